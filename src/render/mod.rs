//! From the archive to bytes: the page plan (every file of the site and what it is made
//! from), then rendering each page. Nothing here touches the output folder.

pub mod api;
mod balance;
pub mod feeds;
pub mod hosting;
pub mod markdown;
mod sitemap;
pub mod theme;
pub mod views;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use rayon::slice::ParallelSliceMut;
use serde::Serialize;
use tera::Context;

use crate::archive::{Archive, IncidentIx, ProviderIx};
use crate::config::Config;
use crate::diagnostics::Diagnostic;
use crate::render::feeds::FeedSpec;
use crate::render::theme::{AssetSource, Theme};
use crate::render::views::{FeedLinks, IncidentView, SummaryView, Views};
use crate::routes::{self, FeedFormat};

/// How many finished incidents the home page lists under "Latest".
const HOME_LATEST: usize = 20;

/// What a page is, and so what it is made from. Indices point into the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageKind {
    Home,
    NotFound,
    Provider(ProviderIx),
    Incident(IncidentIx),
    /// `None`: the site's feed.
    Feed(Option<ProviderIx>, FeedFormat),
    ApiProviders,
    ApiProvider(ProviderIx),
    ApiIncident(IncidentIx),
    Sitemap,
    Robots,
    NoJekyll,
    Cname,
    /// `_headers` for Netlify and Cloudflare Pages.
    Headers,
    /// `_redirects` for Netlify and Cloudflare Pages.
    Redirects,
    /// A redirect from an old URL to an incident: the incident, and which of its aliases.
    Alias(IncidentIx, usize),
    /// The asset at this index of the theme.
    Asset(usize),
}

/// What a page is made from, besides `site.yaml`, which any page may read (a change to it
/// rebuilds the whole site). Declared once per kind, in [`PageKind::reads`]: `serve`
/// renders a page again when, and only when, one of its inputs changed, and the
/// randomized oracle test holds every kind to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    /// The theme's templates, and the names of its assets, which pages link.
    pub templates: bool,
    /// The bytes of the theme's and the site's static files.
    pub assets: bool,
    /// One incident: its facts, its text and its provider's name.
    pub incident: Option<IncidentIx>,
    /// One provider: its `_index.md` and its incidents.
    pub provider: Option<ProviderIx>,
    /// The whole archive: every incident and provider, and their order.
    pub archive: bool,
}

impl PageKind {
    /// What this kind of page reads. A new kind must say it here (the match has no
    /// catch-all), which is all `serve` needs to keep it up to date.
    pub fn reads(&self) -> Reads {
        let none = Reads::default();
        let page = Reads {
            templates: true,
            ..none
        };
        match *self {
            PageKind::Home => Reads {
                archive: true,
                ..page
            },
            PageKind::NotFound => page,
            PageKind::Provider(p) => Reads {
                provider: Some(p),
                ..page
            },
            PageKind::Incident(i) | PageKind::Alias(i, _) => Reads {
                incident: Some(i),
                ..page
            },
            PageKind::Feed(None, _)
            | PageKind::ApiProviders
            | PageKind::Sitemap
            | PageKind::Redirects => Reads {
                archive: true,
                ..none
            },
            PageKind::Feed(Some(p), _) | PageKind::ApiProvider(p) => Reads {
                provider: Some(p),
                ..none
            },
            PageKind::ApiIncident(i) => Reads {
                incident: Some(i),
                ..none
            },
            // It names the theme's assets, hashed names and all.
            PageKind::Headers => Reads {
                templates: true,
                assets: true,
                ..none
            },
            PageKind::Asset(_) => Reads {
                assets: true,
                ..none
            },
            PageKind::Robots | PageKind::NoJekyll | PageKind::Cname => none,
        }
    }

    /// A file of the site as a whole, which a static file of the same name replaces.
    fn is_site_file(&self) -> bool {
        matches!(
            self,
            PageKind::Home
                | PageKind::NotFound
                | PageKind::Feed(None, _)
                | PageKind::ApiProviders
                | PageKind::Sitemap
                | PageKind::Robots
                | PageKind::NoJekyll
                | PageKind::Cname
                | PageKind::Headers
                | PageKind::Redirects
        )
    }
}

/// One file of the site: its path under the output folder and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// `/`-separated, relative, made only of checked slugs and fixed names.
    pub path: String,
    pub kind: PageKind,
}

/// Every file of the site, sorted by path, or every path conflict: two things written to
/// one path (or to paths that differ only in case), or a file where another needs a
/// folder (`aliases: [/feed.xml/x/]`). Each is found here, before anything is written.
pub fn plan(
    archive: &Archive,
    config: &Config,
    theme: &Theme,
) -> Result<Vec<Page>, Vec<Diagnostic>> {
    let mut pages =
        Vec::with_capacity(archive.incidents.len() * 2 + archive.providers.len() * 5 + 16);
    let mut add = |path: String, kind: PageKind| pages.push(Page { path, kind });
    add(routes::HOME.into(), PageKind::Home);
    add(routes::NOT_FOUND.into(), PageKind::NotFound);
    add(routes::SITEMAP.into(), PageKind::Sitemap);
    add(routes::ROBOTS.into(), PageKind::Robots);
    add(routes::NOJEKYLL.into(), PageKind::NoJekyll);
    add(routes::api_providers(), PageKind::ApiProviders);
    if config.cname.is_some() {
        add(routes::CNAME.into(), PageKind::Cname);
    }
    add(routes::HEADERS.into(), PageKind::Headers);
    add(routes::REDIRECTS.into(), PageKind::Redirects);
    for format in FeedFormat::ALL {
        add(routes::feed("", format), PageKind::Feed(None, format));
    }
    for (index, provider) in archive.providers() {
        let dir = routes::provider_dir(provider.slug.as_str());
        add(routes::page(&dir), PageKind::Provider(index));
        add(
            routes::api_provider(provider.slug.as_str()),
            PageKind::ApiProvider(index),
        );
        for format in FeedFormat::ALL {
            add(
                routes::feed(&dir, format),
                PageKind::Feed(Some(index), format),
            );
        }
    }
    for (index, incident) in archive.incidents() {
        let (provider, slug) = (incident.provider.as_str(), incident.slug.as_str());
        add(
            routes::page(&routes::incident_dir(provider, slug)),
            PageKind::Incident(index),
        );
        add(
            routes::api_incident(provider, slug),
            PageKind::ApiIncident(index),
        );
        for (number, alias) in incident.aliases.iter().enumerate() {
            add(routes::alias(&alias.path), PageKind::Alias(index, number));
        }
    }
    // A site's own static file replaces a generated file of the site of the same name (a
    // custom robots.txt, say); one where an incident or a provider writes is a conflict.
    let assets: HashMap<&str, usize> = theme
        .assets
        .iter()
        .enumerate()
        .map(|(i, asset)| (asset.path.as_str(), i))
        .collect();
    pages.retain(|page| !(page.kind.is_site_file() && assets.contains_key(page.path.as_str())));
    pages.extend(assets.iter().map(|(path, &i)| Page {
        path: path.to_string(),
        kind: PageKind::Asset(i),
    }));
    pages.par_sort_by(|a, b| a.path.cmp(&b.path));
    let errors = conflicts(archive, theme, &pages);
    if errors.is_empty() {
        Ok(pages)
    } else {
        Err(errors)
    }
}

/// Every pair of pages that cannot both be written, once. Paths are compared lowercased:
/// a build on macOS or Windows, or a host that ignores case, would make `Old/` and `old/`
/// one file. Linear in the paths' length (times a logarithm): an alias may be long.
fn conflicts(archive: &Archive, theme: &Theme, pages: &[Page]) -> Vec<Diagnostic> {
    // Slugs are lowercase already: only the odd alias or static file is copied to compare.
    let mut keys: Vec<(Cow<str>, usize)> = pages
        .iter()
        .enumerate()
        .map(|(i, page)| {
            let key = if page.path.chars().any(char::is_uppercase) {
                Cow::Owned(page.path.to_lowercase())
            } else {
                Cow::Borrowed(page.path.as_str())
            };
            (key, i)
        })
        .collect();
    keys.par_sort_unstable();
    let mut errors = Vec::new();
    // A name a filesystem cannot hold (255 bytes on most; `--precompress` adds 3) fails
    // only when written: found here instead, with `check`.
    for page in pages {
        if let Some(long) = page.path.split('/').find(|name| name.len() > MAX_NAME) {
            let owner = owner(archive, theme, page);
            let (path, line, col) = owner
                .place
                .unwrap_or_else(|| (PathBuf::from("content"), 0, 0));
            let mut diagnostic = Diagnostic::file(
                path,
                format!(
                    "{} would be written under a name of {} bytes, longer than a file system allows",
                    owner.what,
                    long.len()
                ),
            )
            .with_hint(format!("shorten the file name, `slug:` or alias to at most {MAX_NAME} bytes"));
            (diagnostic.line, diagnostic.col) = (line, col);
            errors.push(diagnostic);
        }
    }
    for pair in keys.windows(2) {
        if pair[0].0 == pair[1].0 {
            let (first, second) = (&pages[pair[0].1], &pages[pair[1].1]);
            let message = if first.path == second.path {
                format!("would be written to `{}`", first.path)
            } else {
                format!(
                    "would be written to `{}`, which differs only in case from `{}`",
                    second.path, first.path
                )
            };
            errors.push(
                clash(archive, theme, first, second, message)
                    .with_hint("give one of them another path: another `slug:`, or another alias"),
            );
        }
    }
    // A file at a path another page needs as a folder: the pages under it sort right after
    // `path/`, so one search per file finds them.
    let mut previous = None;
    for (key, file) in &keys {
        // One report per path, even when two pages share it.
        if previous.replace(key) == Some(key) {
            continue;
        }
        let at = keys.partition_point(|(other, _)| before_folder(other, key));
        if let Some((under, inside)) = keys.get(at)
            && under
                .strip_prefix(key.as_ref())
                .is_some_and(|rest| rest.starts_with('/'))
        {
            let (file, inside) = (&pages[*file], &pages[*inside]);
            let message = format!(
                "`{}` would be a file, and also a folder holding `{}`",
                file.path, inside.path
            );
            errors.push(clash(archive, theme, file, inside, message).with_hint(
                "a path cannot be a file and a folder at once: choose an alias outside every file",
            ));
        }
    }
    errors
}

/// The longest name of a file or folder of the output: 255 bytes, less the 3 of `.gz`.
const MAX_NAME: usize = 252;

/// Whether `other` sorts before `folder` + `/`, without making that string.
fn before_folder(other: &str, folder: &str) -> bool {
    match other.strip_prefix(folder) {
        Some(rest) => rest.as_bytes().first().is_none_or(|&b| b < b'/'),
        None => other < folder,
    }
}

/// The error for two pages that cannot both be written, at the alias's line when one of
/// them is an alias, else in the file one of them comes from.
fn clash(
    archive: &Archive,
    theme: &Theme,
    first: &Page,
    second: &Page,
    message: String,
) -> Diagnostic {
    let (a, b) = (owner(archive, theme, first), owner(archive, theme, second));
    let (here, other) = match (&a.place, &b.place) {
        (Some((_, line, _)), _) if *line > 0 => (a, b),
        (_, Some((_, line, _))) if *line > 0 => (b, a),
        (Some(_), _) => (a, b),
        (_, Some(_)) => (b, a),
        (None, None) => (a, b),
    };
    let (path, line, col) = here
        .place
        .unwrap_or_else(|| (PathBuf::from("content"), 0, 0));
    let other = match other.place {
        Some((file, line, col)) if line > 0 => {
            format!("{} ({}:{line}:{col})", other.what, file.display())
        }
        _ => other.what,
    };
    let mut diagnostic = Diagnostic::file(
        path,
        format!("{message}: {} and {other} cannot both be there", here.what),
    );
    (diagnostic.line, diagnostic.col) = (line, col);
    diagnostic
}

/// Who writes a page: a description, and where to point an error at, if anywhere.
struct Owner {
    what: String,
    /// The file, and the line and column (0 for the file as a whole).
    place: Option<(PathBuf, usize, usize)>,
}

fn owner(archive: &Archive, theme: &Theme, page: &Page) -> Owner {
    match page.kind {
        PageKind::Alias(i, number) => {
            let incident = &archive.incidents[i];
            let alias = &incident.aliases[number];
            Owner {
                what: format!("the alias `/{}`", alias.path),
                place: Some((incident.file.clone(), alias.line, alias.col)),
            }
        }
        PageKind::Incident(i) | PageKind::ApiIncident(i) => {
            let file = archive.incidents[i].file.clone();
            Owner {
                what: format!("the incident in `{}`", file.display()),
                place: Some((file, 0, 0)),
            }
        }
        PageKind::Provider(i) | PageKind::ApiProvider(i) | PageKind::Feed(Some(i), _) => Owner {
            what: format!("the pages of provider `{}`", archive.providers[i].slug),
            place: None,
        },
        PageKind::Asset(i) => match &theme.assets[i].source {
            AssetSource::File(path) => Owner {
                what: format!("the static file `{}`", path.display()),
                place: Some((path.clone(), 0, 0)),
            },
            AssetSource::Embedded(_) => Owner {
                what: format!("the theme's `{}`", page.path),
                place: None,
            },
        },
        _ => Owner {
            what: format!("the generated `{}`", page.path),
            place: None,
        },
    }
}

/// Renders pages from an archive and its views, prepared beforehand.
pub struct Renderer<'a> {
    pub archive: &'a Archive,
    pub config: &'a Config,
    pub theme: &'a Theme,
    pub views: &'a Views,
}

#[derive(Serialize)]
struct SiteView<'a> {
    title: &'a str,
    description: &'a str,
    language: &'a str,
    url: String,
    path: &'a str,
    /// Each theme asset's URL path, by name: `{{ site.assets["style.css"] }}`.
    assets: BTreeMap<&'a str, String>,
    feeds: FeedLinks,
}

#[derive(Serialize)]
struct PageMeta<'a> {
    kind: &'static str,
    title: &'a str,
    description: String,
    canonical: String,
    feeds: &'a FeedLinks,
    feed_title: String,
}

#[derive(Serialize)]
struct Year<'a> {
    year: i32,
    incidents: Vec<&'a SummaryView>,
}

/// Gives every template the site's settings, serialised once for all pages.
pub fn set_site(theme: &mut Theme, config: &Config) {
    let base = &config.base_url;
    let site = SiteView {
        title: &config.title,
        description: &config.description,
        language: &config.language,
        url: base.url(""),
        path: base.root_path(),
        assets: theme
            .asset_paths
            .iter()
            .map(|(name, path)| (name.as_str(), base.path(path)))
            .collect(),
        feeds: FeedLinks::new(base, ""),
    };
    theme.tera.global_context().insert("site", &site);
}

impl Renderer<'_> {
    /// The bytes of one page. A template error names the template and the page.
    pub fn render(&self, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let base = &self.config.base_url;
        // Only the home and 404 pages point at the site's feeds.
        let site_feeds = || FeedLinks::new(base, "");
        Ok(match page.kind {
            PageKind::Home => {
                let ongoing: Vec<&SummaryView> = self
                    .views
                    .incidents
                    .iter()
                    .filter(|i| i.summary.ongoing)
                    .map(|i| &i.summary)
                    .collect();
                let latest: Vec<&SummaryView> = self
                    .views
                    .incidents
                    .iter()
                    .filter(|i| !i.summary.ongoing)
                    .take(HOME_LATEST)
                    .map(|i| &i.summary)
                    .collect();
                let mut ctx = self.html_context(
                    "home",
                    &self.config.title,
                    self.config.description.clone(),
                    "",
                    &site_feeds(),
                    "All incidents",
                );
                ctx.insert("ongoing", &ongoing);
                ctx.insert("latest", &latest);
                ctx.insert("providers", &self.views.providers);
                ctx.insert("incident_total", &self.views.incidents.len());
                self.template("index.html", page, &ctx)?
            }
            PageKind::NotFound => {
                let ctx = self.html_context(
                    "404",
                    "Page not found",
                    self.config.description.clone(),
                    routes::NOT_FOUND,
                    &site_feeds(),
                    "All incidents",
                );
                self.template("404.html", page, &ctx)?
            }
            PageKind::Provider(i) => {
                let provider = &self.views.providers[i];
                let mut years: Vec<Year> = Vec::new();
                for &index in &self.archive.providers[i].incidents {
                    let summary = &self.views.incidents[index].summary;
                    match years.last_mut() {
                        Some(year) if year.year == summary.started.year => {
                            year.incidents.push(summary)
                        }
                        _ => years.push(Year {
                            year: summary.started.year,
                            incidents: vec![summary],
                        }),
                    }
                }
                let description = format!(
                    "Every incident of {} in the {}.",
                    provider.reference.name, self.config.title
                );
                let mut ctx = self.html_context(
                    "provider",
                    &provider.reference.name,
                    description,
                    &routes::provider_dir(&provider.reference.slug),
                    &provider.feeds,
                    &format!("{} incidents", provider.reference.name),
                );
                ctx.insert("provider", provider);
                ctx.insert("years", &years);
                self.template("provider.html", page, &ctx)?
            }
            PageKind::Incident(i) => {
                let incident = &self.views.incidents[i];
                let description = format!(
                    "{} of {}: {}, {}.",
                    incident.summary.impact.label,
                    incident.summary.provider.name,
                    incident.summary.started.text,
                    incident
                        .summary
                        .duration
                        .as_deref()
                        .map_or("ongoing".to_string(), |d| format!("lasted {d}"))
                );
                let mut ctx = self.html_context(
                    "incident",
                    &incident.summary.title,
                    description,
                    &routes::incident_dir(
                        self.archive.incidents[i].provider.as_str(),
                        self.archive.incidents[i].slug.as_str(),
                    ),
                    &FeedLinks::new(base, &routes::provider_dir(&incident.summary.provider.slug)),
                    &format!("{} incidents", incident.summary.provider.name),
                );
                // Only the incident itself: its page then depends on nothing else, so a
                // partial rebuild knows exactly when to render it again.
                ctx.insert("incident", incident);
                self.template("incident.html", page, &ctx)?
            }
            PageKind::Alias(i, _) => {
                let mut ctx = Context::new();
                ctx.insert("target", &self.views.incidents[i].summary.url);
                ctx.insert("title", &self.views.incidents[i].summary.title);
                self.template("alias.html", page, &ctx)?
            }
            PageKind::Feed(scope, format) => {
                let spec = self.feed_spec(scope);
                match format {
                    FeedFormat::Atom => feeds::atom(&spec),
                    FeedFormat::Rss => feeds::rss(&spec),
                    FeedFormat::Json => feeds::json(&spec),
                }
            }
            PageKind::ApiProviders => api::providers(&self.views.providers, base),
            PageKind::ApiProvider(i) => {
                let incidents: Vec<&IncidentView> = self.archive.providers[i]
                    .incidents
                    .iter()
                    .map(|&x| &*self.views.incidents[x])
                    .collect();
                api::provider(&self.views.providers[i], &incidents, base)
            }
            PageKind::ApiIncident(i) => api::incident(&self.views.incidents[i], base),
            PageKind::Sitemap => self.sitemap(),
            PageKind::Robots => sitemap::robots(&base.url(routes::SITEMAP)),
            PageKind::NoJekyll => Vec::new(),
            PageKind::Cname => {
                format!("{}\n", self.config.cname.as_deref().unwrap_or_default()).into_bytes()
            }
            PageKind::Headers => {
                let hashed: Vec<&str> = self
                    .theme
                    .asset_paths
                    .iter()
                    .filter(|(name, path)| name != path)
                    .map(|(_, path)| path.as_str())
                    .collect();
                hosting::headers(base, &hashed)
            }
            PageKind::Redirects => {
                let aliases = self
                    .archive
                    .incidents
                    .iter()
                    .zip(&self.views.incidents)
                    .flat_map(|(incident, view)| {
                        incident
                            .aliases
                            .iter()
                            .map(|alias| (alias.path.as_str(), view.summary.path.clone()))
                    });
                hosting::redirects(base, aliases)
            }
            PageKind::Asset(i) => match &self.theme.assets[i].source {
                AssetSource::Embedded(bytes) => bytes.to_vec(),
                AssetSource::File(path) => std::fs::read(path)
                    .map_err(|e| Diagnostic::file(path, format!("cannot read: {e}")))?,
            },
        })
    }

    fn html_context(
        &self,
        kind: &'static str,
        title: &str,
        description: String,
        site_path: &str,
        feeds: &FeedLinks,
        feed_title: &str,
    ) -> Context {
        let mut ctx = Context::new();
        ctx.insert(
            "page",
            &PageMeta {
                kind,
                title,
                description,
                canonical: self.config.base_url.url(site_path),
                feeds,
                feed_title: feed_title.to_string(),
            },
        );
        ctx
    }

    fn template(&self, name: &str, page: &Page, ctx: &Context) -> Result<Vec<u8>, Diagnostic> {
        let mut out = Vec::with_capacity(16 * 1024);
        self.theme
            .tera
            .render_to(name, ctx, &mut out)
            .map_err(|error| self.theme.template_error(&error, Some(&page.path)))?;
        Ok(out)
    }

    fn feed_spec(&self, scope: Option<ProviderIx>) -> FeedSpec<'_> {
        let base = &self.config.base_url;
        let limit = self.config.feed_limit;
        match scope {
            None => FeedSpec {
                title: self.config.title.clone(),
                description: self.config.description.clone(),
                language: &self.config.language,
                home_url: base.url(""),
                dir_url: base.url(""),
                tag: routes::feed_tag(None),
                entries: self
                    .views
                    .incidents
                    .iter()
                    .take(limit)
                    .map(|v| &**v)
                    .collect(),
            },
            Some(i) => {
                let provider = &self.views.providers[i];
                FeedSpec {
                    title: format!(
                        "{} incidents · {}",
                        provider.reference.name, self.config.title
                    ),
                    description: format!("Every incident of {}.", provider.reference.name),
                    language: &self.config.language,
                    home_url: provider.reference.url.clone(),
                    dir_url: provider.reference.url.clone(),
                    tag: routes::feed_tag(Some(&provider.reference.slug)),
                    entries: self.archive.providers[i]
                        .incidents
                        .iter()
                        .take(limit)
                        .map(|&x| &*self.views.incidents[x])
                        .collect(),
                }
            }
        }
    }

    fn sitemap(&self) -> Vec<u8> {
        fn newest<'v>(list: impl Iterator<Item = &'v IncidentView>) -> Option<&'v str> {
            list.map(|i| i.updated.date.as_str()).max()
        }
        let home_url = self.config.base_url.url("");
        let home = sitemap::Entry {
            url: &home_url,
            lastmod: newest(self.views.incidents.iter().map(|v| &**v)),
        };
        let providers = self
            .views
            .providers
            .iter()
            .zip(&self.archive.providers)
            .map(|(view, provider)| sitemap::Entry {
                url: &view.reference.url,
                lastmod: newest(
                    provider
                        .incidents
                        .iter()
                        .map(|&i| &*self.views.incidents[i]),
                ),
            });
        let incidents = self.views.incidents.iter().map(|i| sitemap::Entry {
            url: &i.summary.url,
            lastmod: Some(&i.updated.date),
        });
        sitemap::sitemap(std::iter::once(home).chain(providers).chain(incidents))
    }
}
