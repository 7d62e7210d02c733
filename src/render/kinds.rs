//! The page kinds. Each says, in one place, which pages it makes (and at which paths, from
//! the route table), what each page reads, and how it is rendered. [`KINDS`] lists them:
//! `build` renders what they plan, and `serve` renders again a page whose declared inputs
//! changed. Adding a kind is a struct, its `impl Kind`, a line in [`KINDS`] and, for a
//! page, its template.

use tera::Context;

use crate::archive::Archive;
use crate::diagnostics::Diagnostic;
use crate::render::theme::{AssetSource, Theme};
use crate::render::views::{FeedLinks, IncidentView, SummaryView};
use crate::render::{Key, Owner, Page, Reads, Renderer, Year, api, feeds, hosting, sitemap};
use crate::routes::{self, FeedFormat};

/// How many finished incidents the home page lists under "Latest".
const HOME_LATEST: usize = 20;

/// One kind of file of the site.
pub trait Kind: Sync {
    /// Adds the kind's pages: each a path and the key it is rendered from.
    fn plan(&self, archive: &Archive, theme: &Theme, cname: bool, add: &mut dyn FnMut(String, Key));

    /// What a page of this kind reads, besides `site.yaml`.
    fn reads(&self, key: Key) -> Reads;

    /// The bytes of one page of this kind.
    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic>;

    /// A file of the site as a whole, which a static file of the same path replaces.
    fn site_file(&self, _key: Key) -> bool {
        false
    }

    /// Who writes the page, for the message of a path conflict.
    fn owner(&self, _archive: &Archive, _theme: &Theme, page: &Page) -> Owner {
        Owner {
            what: format!("the generated `{}`", page.path),
            place: None,
        }
    }
}

/// Every kind of the site, in no particular order (pages are sorted by path).
pub static KINDS: &[&dyn Kind] = &[
    &Home,
    &NotFound,
    &ProviderPage,
    &IncidentPage,
    &AliasPage,
    &FeedFile,
    &ApiProvider,
    &ApiIncident,
    &Cname,
    &Asset,
    &SiteFile {
        path: routes::API_PROVIDERS,
        reads: ARCHIVE,
        make: |r| api::providers(&r.views.providers, &r.config.base_url),
    },
    &SiteFile {
        path: routes::SITEMAP,
        reads: ARCHIVE,
        make: |r| r.sitemap(),
    },
    &SiteFile {
        path: routes::ROBOTS,
        reads: NOTHING,
        make: |r| sitemap::robots(&r.config.base_url.url(routes::SITEMAP)),
    },
    &SiteFile {
        path: routes::NOJEKYLL,
        reads: NOTHING,
        make: |_| Vec::new(),
    },
    // `_headers` names the theme's assets, hashed names and all.
    &SiteFile {
        path: routes::HEADERS,
        reads: Reads {
            templates: true,
            assets: true,
            ..NOTHING
        },
        make: headers,
    },
    &SiteFile {
        path: routes::REDIRECTS,
        reads: ARCHIVE,
        make: redirects,
    },
    &IncidentIndex,
];

/// A page planned with a key its kind does not read: a bug, reported rather than a panic.
fn wrong_key(page: &Page) -> Diagnostic {
    Diagnostic::file(
        &page.path,
        format!(
            "internal error: `{}` was planned with {:?}; please report it",
            page.path, page.key
        ),
    )
}

const NOTHING: Reads = Reads {
    templates: false,
    assets: false,
    incident: None,
    provider: None,
    archive: false,
    list: None,
};

const TEMPLATED: Reads = Reads {
    templates: true,
    ..NOTHING
};

const ARCHIVE: Reads = Reads {
    archive: true,
    ..NOTHING
};

/// One file of the site as a whole, made by a function from what it declares it reads:
/// the simplest kinds, written as data.
struct SiteFile {
    path: &'static str,
    reads: Reads,
    make: fn(&Renderer) -> Vec<u8>,
}

impl Kind for SiteFile {
    fn plan(&self, _: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        add(self.path.to_string(), Key::Site);
    }

    fn reads(&self, _: Key) -> Reads {
        self.reads
    }

    fn render(&self, r: &Renderer, _: &Page) -> Result<Vec<u8>, Diagnostic> {
        Ok((self.make)(r))
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

fn headers(r: &Renderer) -> Vec<u8> {
    let hashed: Vec<&str> = r
        .theme
        .asset_paths
        .iter()
        .filter(|(name, path)| name != path)
        .map(|(_, path)| path.as_str())
        .collect();
    hosting::headers(&r.config.base_url, &hashed)
}

fn redirects(r: &Renderer) -> Vec<u8> {
    let aliases =
        r.archive
            .incidents
            .iter()
            .zip(&r.views.incidents)
            .flat_map(|(incident, view)| {
                incident
                    .aliases
                    .iter()
                    .map(|alias| (alias.path.as_str(), view.summary.path.clone()))
            });
    hosting::redirects(&r.config.base_url, aliases)
}

struct Home;

impl Kind for Home {
    fn plan(&self, _: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        add(routes::HOME.into(), Key::Site);
    }

    fn reads(&self, _: Key) -> Reads {
        Reads {
            archive: true,
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let ongoing: Vec<&SummaryView> = r
            .views
            .incidents
            .iter()
            .filter(|i| i.summary.ongoing)
            .map(|i| &i.summary)
            .collect();
        let latest: Vec<&SummaryView> = r
            .views
            .incidents
            .iter()
            .filter(|i| !i.summary.ongoing)
            .take(HOME_LATEST)
            .map(|i| &i.summary)
            .collect();
        let mut ctx = r.html_context(
            "home",
            &r.config.title,
            r.config.description.clone(),
            "",
            &FeedLinks::new(&r.config.base_url, ""),
            "All incidents",
        );
        ctx.insert("ongoing", &ongoing);
        ctx.insert("latest", &latest);
        ctx.insert("providers", &r.views.providers);
        ctx.insert("incident_total", &r.views.incidents.len());
        r.template("index.html", page, &ctx)
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

struct NotFound;

impl Kind for NotFound {
    fn plan(&self, _: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        add(routes::NOT_FOUND.into(), Key::Site);
    }

    fn reads(&self, _: Key) -> Reads {
        TEMPLATED
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let ctx = r.html_context(
            "404",
            "Page not found",
            r.config.description.clone(),
            routes::NOT_FOUND,
            &FeedLinks::new(&r.config.base_url, ""),
            "All incidents",
        );
        r.template("404.html", page, &ctx)
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

struct ProviderPage;

impl Kind for ProviderPage {
    fn plan(&self, archive: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        for (index, provider) in archive.providers() {
            let dir = routes::provider_dir(provider.slug.as_str());
            add(routes::page(&dir), Key::Provider(index));
        }
    }

    fn reads(&self, key: Key) -> Reads {
        Reads {
            provider: key.provider(),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Provider(i) = page.key else {
            return Err(wrong_key(page));
        };
        let provider = &r.views.providers[i];
        let mut years: Vec<Year> = Vec::new();
        for &index in &r.archive.providers[i].incidents {
            let summary = &r.views.incidents[index].summary;
            match years.last_mut() {
                Some(year) if year.year == summary.started.year => year.incidents.push(summary),
                _ => years.push(Year {
                    year: summary.started.year,
                    incidents: vec![summary],
                }),
            }
        }
        let description = format!(
            "Every incident of {} in the {}.",
            provider.reference.name, r.config.title
        );
        let mut ctx = r.html_context(
            "provider",
            &provider.reference.name,
            description,
            &routes::provider_dir(&provider.reference.slug),
            &provider.feeds,
            &format!("{} incidents", provider.reference.name),
        );
        ctx.insert("provider", provider);
        ctx.insert("years", &years);
        r.template("provider.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        provider_owner(archive, page)
    }
}

struct IncidentPage;

impl Kind for IncidentPage {
    fn plan(&self, archive: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        for (index, incident) in archive.incidents() {
            let dir = routes::incident_dir(incident.provider.as_str(), incident.slug.as_str());
            add(routes::page(&dir), Key::Incident(index));
        }
    }

    fn reads(&self, key: Key) -> Reads {
        Reads {
            incident: key.incident(),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Incident(i) = page.key else {
            return Err(wrong_key(page));
        };
        let incident = &r.views.incidents[i];
        let summary = &incident.summary;
        let description = format!(
            "{} of {}: {}, {}.",
            summary.impact.label,
            summary.provider.name,
            summary.started.text,
            summary
                .duration
                .as_deref()
                .map_or("ongoing".to_string(), |d| format!("lasted {d}"))
        );
        let source = &r.archive.incidents[i];
        let mut ctx = r.html_context(
            "incident",
            &summary.title,
            description,
            &routes::incident_dir(source.provider.as_str(), source.slug.as_str()),
            &FeedLinks::new(
                &r.config.base_url,
                &routes::provider_dir(&summary.provider.slug),
            ),
            &format!("{} incidents", summary.provider.name),
        );
        // Only the incident itself: its page then depends on nothing else, so a partial
        // rebuild knows exactly when to render it again.
        ctx.insert("incident", incident);
        r.template("incident.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        incident_owner(archive, page)
    }
}

struct AliasPage;

impl Kind for AliasPage {
    fn plan(&self, archive: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        for (index, incident) in archive.incidents() {
            for (number, alias) in incident.aliases.iter().enumerate() {
                add(routes::alias(&alias.path), Key::Alias(index, number));
            }
        }
    }

    fn reads(&self, key: Key) -> Reads {
        Reads {
            incident: key.incident(),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Alias(i, _) = page.key else {
            return Err(wrong_key(page));
        };
        let mut ctx = Context::new();
        ctx.insert("target", &r.views.incidents[i].summary.url);
        ctx.insert("title", &r.views.incidents[i].summary.title);
        r.template("alias.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        let Key::Alias(i, number) = page.key else {
            return incident_owner(archive, page);
        };
        let incident = &archive.incidents[i];
        let alias = &incident.aliases[number];
        Owner {
            what: format!("the alias `/{}`", alias.path),
            place: Some((incident.file.clone(), alias.line, alias.col)),
        }
    }
}

struct FeedFile;

impl Kind for FeedFile {
    fn plan(&self, archive: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        for format in FeedFormat::ALL {
            add(routes::feed("", format), Key::Feed(None, format));
        }
        for (index, provider) in archive.providers() {
            let dir = routes::provider_dir(provider.slug.as_str());
            for format in FeedFormat::ALL {
                add(routes::feed(&dir, format), Key::Feed(Some(index), format));
            }
        }
    }

    fn reads(&self, key: Key) -> Reads {
        match key.provider() {
            Some(provider) => Reads {
                provider: Some(provider),
                ..NOTHING
            },
            None => Reads {
                archive: true,
                ..NOTHING
            },
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Feed(scope, format) = page.key else {
            return Err(wrong_key(page));
        };
        let spec = r.feed_spec(scope);
        Ok(match format {
            FeedFormat::Atom => feeds::atom(&spec),
            FeedFormat::Rss => feeds::rss(&spec),
            FeedFormat::Json => feeds::json(&spec),
        })
    }

    fn site_file(&self, key: Key) -> bool {
        // The site's own feeds only; a provider's are the provider's.
        matches!(key, Key::Feed(None, _))
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        match page.key {
            Key::Feed(Some(_), _) => provider_owner(archive, page),
            _ => Owner {
                what: format!("the generated `{}`", page.path),
                place: None,
            },
        }
    }
}

struct ApiProvider;

impl Kind for ApiProvider {
    fn plan(&self, archive: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        for (index, provider) in archive.providers() {
            add(
                routes::api_provider(provider.slug.as_str()),
                Key::Provider(index),
            );
        }
    }

    fn reads(&self, key: Key) -> Reads {
        Reads {
            provider: key.provider(),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Provider(i) = page.key else {
            return Err(wrong_key(page));
        };
        let incidents: Vec<&IncidentView> = r.archive.providers[i]
            .incidents
            .iter()
            .map(|&x| &*r.views.incidents[x])
            .collect();
        Ok(api::provider(
            &r.views.providers[i],
            &incidents,
            &r.config.base_url,
        ))
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        provider_owner(archive, page)
    }
}

struct ApiIncident;

impl Kind for ApiIncident {
    fn plan(&self, archive: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        for (index, incident) in archive.incidents() {
            let (provider, slug) = (incident.provider.as_str(), incident.slug.as_str());
            add(routes::api_incident(provider, slug), Key::Incident(index));
        }
    }

    fn reads(&self, key: Key) -> Reads {
        Reads {
            incident: key.incident(),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Incident(i) = page.key else {
            return Err(wrong_key(page));
        };
        Ok(api::incident(&r.views.incidents[i], &r.config.base_url))
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        incident_owner(archive, page)
    }
}

struct Cname;

impl Kind for Cname {
    fn plan(&self, _: &Archive, _: &Theme, cname: bool, add: &mut dyn FnMut(String, Key)) {
        if cname {
            add(routes::CNAME.into(), Key::Site);
        }
    }

    fn reads(&self, _: Key) -> Reads {
        NOTHING
    }

    fn render(&self, r: &Renderer, _: &Page) -> Result<Vec<u8>, Diagnostic> {
        Ok(format!("{}\n", r.config.cname.as_deref().unwrap_or_default()).into_bytes())
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

struct Asset;

impl Kind for Asset {
    fn plan(&self, _: &Archive, theme: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        for (index, asset) in theme.assets.iter().enumerate() {
            add(asset.path.clone(), Key::Asset(index));
        }
    }

    fn reads(&self, _: Key) -> Reads {
        Reads {
            assets: true,
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Asset(i) = page.key else {
            return Err(wrong_key(page));
        };
        match &r.theme.assets[i].source {
            AssetSource::Embedded(bytes) => Ok(bytes.to_vec()),
            AssetSource::File(path) => {
                std::fs::read(path).map_err(|e| Diagnostic::file(path, format!("cannot read: {e}")))
            }
        }
    }

    fn owner(&self, _: &Archive, theme: &Theme, page: &Page) -> Owner {
        let source = match page.key {
            Key::Asset(i) => theme.assets.get(i).map(|asset| &asset.source),
            _ => None,
        };
        match source {
            Some(AssetSource::File(path)) => Owner {
                what: format!("the static file `{}`", path.display()),
                place: Some((path.clone(), 0, 0)),
            },
            _ => Owner {
                what: format!("the theme's `{}`", page.path),
                place: None,
            },
        }
    }
}

/// Every incident of the archive, newest first, [`INDEX_PAGE`] a page, with the years
/// linked to where they start: the whole archive within reach without a page of
/// thousands of rows.
struct IncidentIndex;

/// How many incidents a page of the index lists.
const INDEX_PAGE: usize = 100;

#[derive(serde::Serialize)]
struct PageLink {
    number: usize,
    path: String,
}

#[derive(serde::Serialize)]
struct YearLink {
    year: i32,
    path: String,
}

impl Kind for IncidentIndex {
    fn plan(&self, archive: &Archive, _: &Theme, _: bool, add: &mut dyn FnMut(String, Key)) {
        let pages = archive.incidents.len().div_ceil(INDEX_PAGE).max(1);
        for n in 1..=pages {
            add(routes::page(&routes::incidents_dir(n)), Key::Number(n));
        }
    }

    fn reads(&self, key: Key) -> Reads {
        let start = match key {
            Key::Number(n) => n.saturating_sub(1).saturating_mul(INDEX_PAGE),
            _ => 0,
        };
        Reads {
            list: Some((start, start.saturating_add(INDEX_PAGE))),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Number(n) = page.key else {
            return Err(wrong_key(page));
        };
        let base = &r.config.base_url;
        let all = &r.views.incidents;
        let pages = all.len().div_ceil(INDEX_PAGE).max(1);
        let link = |number: usize| PageLink {
            number,
            path: base.path(&routes::incidents_dir(number)),
        };
        // Newest first, so each year's first incident is found by a binary search: no
        // page scans the archive.
        let year_of = |i: usize| all[i].summary.started.year;
        let years: Vec<YearLink> = match (all.first(), all.last()) {
            (Some(newest), Some(oldest)) => (oldest.summary.started.year
                ..=newest.summary.started.year)
                .rev()
                .filter_map(|year| {
                    let first = all.partition_point(|v| v.summary.started.year > year);
                    (first < all.len() && year_of(first) == year).then(|| YearLink {
                        year,
                        path: format!(
                            "{}#y{year}",
                            base.path(&routes::incidents_dir(first / INDEX_PAGE + 1))
                        ),
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let start = (n - 1).saturating_mul(INDEX_PAGE).min(all.len());
        let end = start.saturating_add(INDEX_PAGE).min(all.len());
        let shown: Vec<Year> = all[start..end].iter().fold(Vec::new(), |mut groups, view| {
            let summary = &view.summary;
            match groups.last_mut() {
                Some(Year { year, incidents }) if *year == summary.started.year => {
                    incidents.push(summary)
                }
                _ => groups.push(Year {
                    year: summary.started.year,
                    incidents: vec![summary],
                }),
            }
            groups
        });
        let title = match n {
            1 => "Every incident".to_string(),
            n => format!("Every incident, page {n} of {pages}"),
        };
        let mut ctx = r.html_context(
            "incidents",
            &title,
            format!("Every incident in the {}, newest first.", r.config.title),
            &routes::incidents_dir(n),
            &FeedLinks::new(base, ""),
            "All incidents",
        );
        ctx.insert("groups", &shown);
        ctx.insert("years", &years);
        ctx.insert("pages", &(1..=pages).map(link).collect::<Vec<_>>());
        ctx.insert("current", &n);
        ctx.insert("previous", &(n > 1).then(|| link(n - 1)));
        ctx.insert("next", &(n < pages).then(|| link(n + 1)));
        ctx.insert("incident_total", &all.len());
        r.template("incidents.html", page, &ctx)
    }
}

fn incident_owner(archive: &Archive, page: &Page) -> Owner {
    match page.key.incident() {
        Some(i) => {
            let file = archive.incidents[i].file.clone();
            Owner {
                what: format!("the incident in `{}`", file.display()),
                place: Some((file, 0, 0)),
            }
        }
        None => Owner {
            what: format!("the generated `{}`", page.path),
            place: None,
        },
    }
}

fn provider_owner(archive: &Archive, page: &Page) -> Owner {
    Owner {
        what: match page.key.provider() {
            Some(i) => format!("the pages of provider `{}`", archive.providers[i].slug),
            None => format!("the generated `{}`", page.path),
        },
        place: None,
    }
}
