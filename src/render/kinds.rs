//! The page kinds. Each says, in one place, which pages it makes (and at which paths, from
//! the route table), what each page reads, and how it is rendered. [`KINDS`] lists them:
//! `build` renders what they plan, and `serve` renders again a page whose declared inputs
//! changed. Adding a kind is a struct, its `impl Kind`, a line in [`KINDS`] and, for a
//! page, its template.

use chrono::{Datelike, NaiveDate};
use tera::Context;

use crate::archive::{Archive, IncidentIx, ProviderIx};
use crate::config::Config;
use crate::diagnostics::Diagnostic;
use crate::insight;
use crate::model::Impact;
use crate::render::paging::Paged;
use crate::render::theme::{AssetSource, Theme};
use crate::render::views::{
    self, FeedLinks, IMPACT_ORDER, IncidentView, PeriodView, ProviderView, StatsView, SummaryView,
    TimeView,
};
use crate::render::words::{by_name, month_label, thousands};
use crate::render::{
    Key, Owner, Page, Reads, Renderer, Year, api, feeds, hosting, insights, sitemap,
};
use crate::routes::{self, FeedFormat};

/// How many finished incidents the home page lists under "Latest".
pub const HOME_LATEST: usize = 20;

/// How many of its latest incidents a provider's page lists; its years list them all.
const PROVIDER_LATEST: usize = 20;

/// How many years of calendar a provider's or a component's page shows (the latest).
const PROVIDER_CALENDARS: usize = 3;

/// How many busiest days the home page and the days index list.
const BUSIEST: usize = 10;

/// One kind of file of the site.
pub trait Kind: Sync {
    /// Adds the kind's pages: each a path and the key it is rendered from.
    fn plan(
        &self,
        archive: &Archive,
        theme: &Theme,
        config: &Config,
        add: &mut dyn FnMut(String, Key),
    );

    /// What a page of this kind reads, besides `site.yaml`, in the archive it is planned
    /// from.
    fn reads(&self, archive: &Archive, key: Key) -> Reads;

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
    &ProviderFile {
        path: routes::api_provider,
        make: api_provider,
    },
    &ApiIncident,
    &Cname,
    &Asset,
    &SiteFile {
        path: routes::API_PROVIDERS,
        reads: ARCHIVE,
        make: |r| {
            let through = r.archive.through.map(|t| TimeView::new(t).iso);
            api::providers(&r.views.providers, through.as_deref(), &r.config.base_url)
        },
    },
    &SiteFile {
        path: routes::SITEMAP,
        reads: SITEMAP,
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
    &ProviderYear,
    &ComponentPage,
    &DayPage,
    &DaysIndex,
    &SearchPage,
    &SitemapPart,
    &ProviderFile {
        path: routes::api_stats,
        make: api_stats,
    },
    &ProviderFile {
        path: routes::api_components,
        make: api_components,
    },
    &ApiDay,
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
    provider_part: None,
    provider_list: None,
    days: None,
    archive: false,
    list: None,
    pages: false,
};

const TEMPLATED: Reads = Reads {
    templates: true,
    ..NOTHING
};

const ARCHIVE: Reads = Reads {
    archive: true,
    ..NOTHING
};

/// What a sitemap shows: every page, each with the day of the newest update on it, which
/// the list of every incident gives (their days, years, components and update times); not
/// the text of updates, nor a provider's `_index.md`.
const SITEMAP: Reads = Reads {
    list: Some((0, usize::MAX)),
    pages: true,
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
    fn plan(&self, _: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        add(self.path.to_string(), Key::Site);
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        self.reads
    }

    fn render(&self, r: &Renderer, _: &Page) -> Result<Vec<u8>, Diagnostic> {
        Ok((self.make)(r))
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

/// The theme's asset that is not written: its search script, when there is no search page
/// to load it (a site's own `static/search.js` is written all the same).
fn unused_asset<'t>(theme: &'t Theme, config: &Config) -> Option<&'t str> {
    let path = theme.asset_paths.get(routes::SEARCH_SCRIPT)?;
    let theirs = theme
        .assets
        .iter()
        .any(|asset| asset.path == *path && matches!(asset.source, AssetSource::Embedded(_)));
    (!config.search && theirs).then_some(path.as_str())
}

fn headers(r: &Renderer) -> Vec<u8> {
    let unused = unused_asset(r.theme, r.config);
    let hashed: Vec<&str> = r
        .theme
        .asset_paths
        .iter()
        .filter(|(name, path)| name != path && unused != Some(path.as_str()))
        .map(|(_, path)| path.as_str())
        .collect();
    hosting::headers(&r.config.base_url, &hashed, r.config.search)
}

fn redirects(r: &Renderer) -> Vec<u8> {
    let base = &r.config.base_url;
    // From the archive, not the views: few incidents have aliases.
    let aliases = r
        .archive
        .incidents
        .iter()
        .filter(|incident| !incident.aliases.is_empty())
        .flat_map(|incident| {
            let path = base.path(&routes::incident_dir(
                incident.provider.as_str(),
                incident.slug.as_str(),
            ));
            incident
                .aliases
                .iter()
                .map(move |alias| (alias.path.as_str(), path.clone()))
        });
    hosting::redirects(&r.config.base_url, aliases)
}

struct Home;

/// How many ongoing incidents the home page shows as cards.
const HOME_ONGOING: usize = 10;

impl Kind for Home {
    fn plan(&self, _: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        add(routes::HOME.into(), Key::Site);
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        Reads {
            archive: true,
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        // Chosen from the archive: only the views shown are made.
        // Ongoing: unresolved and updated lately; a stale one is listed with the others.
        let shown = |ongoing: bool| {
            r.archive
                .incidents()
                .filter(move |(_, incident)| {
                    (incident.is_ongoing() && !r.archive.is_stale(incident)) == ongoing
                })
                .map(|(i, _)| &r.views.incidents[i].summary)
        };
        let ongoing: Vec<&SummaryView> = shown(true).collect();
        let latest: Vec<&SummaryView> = shown(false).take(HOME_LATEST).collect();
        let mut ctx = r.html_context(
            "home",
            &r.config.title,
            r.config.description.clone(),
            "",
            &FeedLinks::new(&r.config.base_url, ""),
            "All incidents",
        );
        let base = &r.config.base_url;
        ctx.insert(
            "calendar",
            &r.archive.days.last().map(|day| {
                insights::site_calendar(r.archive, r.views, base, day.date.year(), "calendar")
            }),
        );
        ctx.insert(
            "busiest",
            &insights::busiest_days(r.archive, r.views, base, BUSIEST),
        );
        // At most this many cards; the rest as a list below them.
        let (cards, more) = ongoing.split_at(ongoing.len().min(HOME_ONGOING));
        ctx.insert("ongoing", cards);
        ctx.insert("ongoing_more", more);
        ctx.insert("ongoing_count", &ongoing.len());
        ctx.insert("latest", &latest);
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        // The grid by name, as a reader looks a provider up (the archive keeps them by slug).
        let mut providers: Vec<&ProviderView> = r.views.providers.iter().collect();
        providers.sort_by(|a, b| by_name(&a.reference.name, &b.reference.name));
        ctx.insert("providers", &providers);
        ctx.insert("incident_total", &r.views.incidents.len());
        r.template("index.html", page, &ctx)
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

struct NotFound;

impl Kind for NotFound {
    fn plan(&self, _: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        add(routes::NOT_FOUND.into(), Key::Site);
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
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
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, provider) in archive.providers() {
            let dir = routes::provider_dir(provider.slug.as_str());
            add(routes::page(&dir), Key::Provider(index));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            provider_part: key.part(),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Provider(i) = page.key else {
            return Err(wrong_key(page));
        };
        let provider = &r.views.providers[i];
        let source = &r.archive.providers[i];
        let name = &provider.reference.name;
        let latest: Vec<&SummaryView> = source
            .incidents
            .iter()
            .take(PROVIDER_LATEST)
            .map(|&x| &r.views.incidents[x].summary)
            .collect();
        let description = format!(
            "Every incident of {name} in the {}, with its uptime and downtime.",
            r.config.title
        );
        let mut ctx = r.html_context(
            "provider",
            name,
            description,
            &routes::provider_dir(&provider.reference.slug),
            &provider.feeds,
            &format!("{name} incidents"),
        );
        let calendar_years = &source.years[..source.years.len().min(PROVIDER_CALENDARS)];
        let views = |list: &[IncidentIx]| -> Vec<&IncidentView> {
            list.iter().map(|&x| &*r.views.incidents[x]).collect()
        };
        ctx.insert("provider", provider);
        ctx.insert("latest", &latest);
        ctx.insert("ongoing", &views(&source.stats.ongoing));
        ctx.insert("stale", &views(&source.stats.stale));
        ctx.insert("stale_after", &r.config.stale_after.to_string());
        ctx.insert("unrecorded", &provider.stats.all_time.after_the_fact);
        ctx.insert("part", &false);
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        ctx.insert("years", &year_links(r, i));
        ctx.insert("components", &component_links(r, i));
        insert_charts(&mut ctx, r, i, None, calendar_years);
        r.template("provider.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        provider_owner(archive, page)
    }
}

struct IncidentPage;

impl Kind for IncidentPage {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, incident) in archive.incidents() {
            let dir = routes::incident_dir(incident.provider.as_str(), incident.slug.as_str());
            add(routes::page(&dir), Key::Incident(index));
        }
    }

    fn reads(&self, archive: &Archive, key: Key) -> Reads {
        let Some(index) = key.incident() else {
            return TEMPLATED;
        };
        let (provider, position) = archive.places[index];
        Reads {
            incident: Some(index),
            // Its neighbours in its provider's list, and whatever overlapped it.
            provider_list: Some((provider, position.saturating_sub(1), position + 2)),
            days: index.get(&archive.incidents).map(|i| insight::days(i)),
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
            match &summary.duration {
                Some(d) => format!("lasted {d}"),
                None => views::duration_text(summary).to_string(),
            }
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
        // The incident, its neighbours and what overlapped it: what `reads` declares.
        ctx.insert("incident", incident);
        let (newer, older) = r.archive.neighbours(i);
        let summary_of =
            |x: Option<IncidentIx>| x.map(|x| insights::Brief::of(&r.views.incidents[x].summary));
        ctx.insert("newer", &summary_of(newer));
        ctx.insert("older", &summary_of(older));
        let (same_time, overlap_total) = insights::same_time(r.archive, r.views, i);
        ctx.insert("same_time", &same_time);
        ctx.insert("same_time_total", &overlap_total);
        ctx.insert(
            "day_path",
            &r.config
                .base_url
                .path(&routes::day_dir(source.started.date_naive())),
        );
        r.template("incident.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        incident_owner(archive, page)
    }
}

struct AliasPage;

impl Kind for AliasPage {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, incident) in archive.incidents() {
            for (number, alias) in incident.aliases.iter().enumerate() {
                add(routes::alias(&alias.path), Key::Alias(index, number));
            }
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
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
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
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

    fn reads(&self, _: &Archive, key: Key) -> Reads {
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

struct ApiIncident;

impl Kind for ApiIncident {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, incident) in archive.incidents() {
            let (provider, slug) = (incident.provider.as_str(), incident.slug.as_str());
            add(routes::api_incident(provider, slug), Key::Incident(index));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
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
    fn plan(&self, _: &Archive, _: &Theme, config: &Config, add: &mut dyn FnMut(String, Key)) {
        if config.cname.is_some() {
            add(routes::CNAME.into(), Key::Site);
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
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
    fn plan(&self, _: &Archive, theme: &Theme, config: &Config, add: &mut dyn FnMut(String, Key)) {
        let unused = unused_asset(theme, config);
        for (index, asset) in theme.assets.iter().enumerate() {
            if unused != Some(asset.path.as_str()) {
                add(asset.path.clone(), Key::Asset(index));
            }
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
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

/// Every incident of the archive, newest first, [`PER_PAGE`](crate::render::paging::PER_PAGE) a page, with the years
/// linked to where they start: the whole archive within reach without a page of
/// thousands of rows.
struct IncidentIndex;

#[derive(serde::Serialize)]
struct PageLink {
    number: usize,
    path: String,
}

/// The links between the pages of a list split in pages: previous, next, and the page
/// numbers around the current one, the first and the last (`1 2 … 9 10 11 … 99 100`), so a
/// pager stays a few links long whatever the number of pages.
#[derive(serde::Serialize)]
struct Pager {
    current: usize,
    total: usize,
    /// `None`: a gap (`…`).
    pages: Vec<Option<PageLink>>,
    previous: Option<PageLink>,
    next: Option<PageLink>,
}

impl Pager {
    /// Around page `current` of the list's pages, each page's path from `path`.
    fn new(current: usize, paged: Paged, path: impl Fn(usize) -> String) -> Pager {
        let total = paged.pages();
        let link = |number: usize| PageLink {
            number,
            path: path(number),
        };
        let near = |n: usize| n <= 2 || n + 1 >= total || n.abs_diff(current) <= 2;
        let mut pages = Vec::new();
        for n in 1..=total {
            if near(n) {
                pages.push(Some(link(n)));
            } else if pages.last().is_some_and(Option::is_some) {
                pages.push(None);
            }
        }
        Pager {
            current,
            total,
            pages,
            previous: (current > 1).then(|| link(current - 1)),
            next: (current < total).then(|| link(current + 1)),
        }
    }
}

#[derive(serde::Serialize)]
struct YearLink {
    year: i32,
    path: String,
}

impl Kind for IncidentIndex {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for n in Paged::new(archive.incidents.len()).numbers() {
            add(routes::page(&routes::incidents_dir(n)), Key::Number(n));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        let window = Paged::window(match key {
            Key::Number(n) => n,
            _ => 1,
        });
        Reads {
            list: Some((window.start, window.end)),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Number(n) = page.key else {
            return Err(wrong_key(page));
        };
        let base = &r.config.base_url;
        // The years from the archive: only the views shown are made.
        let all = &r.archive.incidents;
        let paged = Paged::new(all.len());
        // Newest first, so each year's first incident is found by a binary search: no
        // page scans the archive.
        let year_of = |i: usize| all[i].started.year();
        let years: Vec<YearLink> = match (all.first(), all.last()) {
            (Some(newest), Some(oldest)) => (r.archive.years.iter().copied())
                .filter(|year| (oldest.started.year()..=newest.started.year()).contains(year))
                .filter_map(|year| {
                    let first = all.partition_point(|i| i.started.year() > year);
                    (first < all.len() && year_of(first) == year).then(|| YearLink {
                        year,
                        path: format!(
                            "{}#y{year}",
                            base.path(&routes::incidents_dir(Paged::page_of(first)))
                        ),
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let shown = paged.items_of(n);
        let shown = by_year(
            IncidentIx::all(shown.end)
                .skip(shown.start)
                .map(|i| &r.views.incidents[i].summary),
        );
        let title = match n {
            1 => "Every incident".to_string(),
            n => format!("Every incident, page {n} of {}", paged.pages()),
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
        ctx.insert(
            "pager",
            &Pager::new(n, paged, |n| base.path(&routes::incidents_dir(n))),
        );
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

/// Incidents newest first, grouped by the year they started in.
fn by_year<'a>(summaries: impl Iterator<Item = &'a SummaryView>) -> Vec<Year<'a>> {
    let mut years: Vec<Year> = Vec::new();
    for summary in summaries {
        match years.last_mut() {
            Some(year) if year.year == summary.started.year => year.incidents.push(summary),
            _ => years.push(Year {
                year: summary.started.year,
                incidents: vec![summary],
            }),
        }
    }
    years
}

#[derive(serde::Serialize)]
struct CountLink<'a> {
    name: std::borrow::Cow<'a, str>,
    path: String,
    count: usize,
}

/// A provider's years with incidents, newest first, each linking its page.
fn year_links(r: &Renderer, i: ProviderIx) -> Vec<CountLink<'static>> {
    let provider = &r.archive.providers[i];
    provider
        .years
        .iter()
        .map(|&year| CountLink {
            name: year.to_string().into(),
            path: r
                .config
                .base_url
                .path(&routes::provider_year_dir(provider.slug.as_str(), year)),
            count: provider
                .stats
                .years
                .iter()
                .find(|(y, _)| *y == year)
                .map_or(0, |(_, period)| period.incidents),
        })
        .collect()
}

/// A provider's components, by name, each linking its page.
fn component_links<'a>(r: &'a Renderer, i: ProviderIx) -> Vec<CountLink<'a>> {
    let provider = &r.archive.providers[i];
    let mut links: Vec<CountLink> = provider
        .components
        .iter()
        .map(|component| CountLink {
            name: component.name.as_str().into(),
            path: r.config.base_url.path(&routes::component_dir(
                provider.slug.as_str(),
                component.slug.as_str(),
            )),
            count: component.incidents.len(),
        })
        .collect();
    links.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    links
}

/// A provider's month charts (the last months, or those of `year`) and its calendars of
/// `calendar_years`, as its page and its year pages show them.
fn insert_charts(
    ctx: &mut Context,
    r: &Renderer,
    i: ProviderIx,
    year: Option<i32>,
    calendar_years: &[i32],
) {
    let source = &r.archive.providers[i];
    let name = &r.views.providers[i].reference.name;
    let subject = match year {
        Some(year) => format!("{name}, {year}"),
        None => name.clone(),
    };
    ctx.insert(
        "months",
        &insights::month_charts(&source.stats, year, "months", &subject),
    );
    ctx.insert(
        "calendars",
        &insights::impact_calendars(
            r.archive,
            &r.config.base_url,
            &source.incidents,
            calendar_years,
            "calendar",
            name,
        ),
    );
}

/// A provider's incidents of one year, with that year's numbers, charts and calendar, and
/// its incidents 100 a page.
struct ProviderYear;

/// The incidents of a list (newest first) that started in `year`: one run of it, found by
/// two binary searches.
pub(crate) fn year_run(
    list: &[IncidentIx],
    year: i32,
    started: impl Fn(&IncidentIx) -> i32,
) -> &[IncidentIx] {
    let from = list.partition_point(|x| started(x) > year);
    let to = list.partition_point(|x| started(x) >= year);
    &list[from..to.max(from)]
}

impl Kind for ProviderYear {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, provider) in archive.providers() {
            for &year in &provider.years {
                let started = |x: &IncidentIx| archive.incidents[*x].started.year();
                let count = year_run(&provider.incidents, year, started).len();
                for n in Paged::new(count).numbers() {
                    let dir = routes::provider_year_page_dir(provider.slug.as_str(), year, n);
                    add(routes::page(&dir), Key::Year(index, year, n));
                }
            }
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            provider_part: key.part(),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Year(i, year, n) = page.key else {
            return Err(wrong_key(page));
        };
        let provider = &r.views.providers[i];
        let source = &r.archive.providers[i];
        let name = &provider.reference.name;
        let all = year_run(&source.incidents, year, |&x| {
            r.views.incidents[x].summary.started.year
        });
        let paged = Paged::new(all.len());
        let incidents: Vec<&SummaryView> = all[paged.items_of(n)]
            .iter()
            .map(|&x| &r.views.incidents[x].summary)
            .collect();
        let period = source
            .stats
            .years
            .iter()
            .find(|(y, _)| *y == year)
            .map(|(_, period)| PeriodView::new(year.to_string(), period, None));
        let years = year_links(r, i);
        let mut ctx = r.html_context(
            "provider-year",
            &format!("{name} in {year}"),
            format!("Every incident of {name} in {year}, with its uptime and downtime."),
            &routes::provider_year_page_dir(&provider.reference.slug, year, n),
            &provider.feeds,
            &format!("{name} incidents"),
        );
        ctx.insert("provider", &provider.reference);
        ctx.insert("year", &year);
        ctx.insert("incident_total", &all.len());
        ctx.insert(
            "pager",
            &Pager::new(n, paged, |n| {
                let dir = routes::provider_year_page_dir(&provider.reference.slug, year, n);
                r.config.base_url.path(&dir)
            }),
        );
        ctx.insert("year_text", &year.to_string());
        ctx.insert("stats", &provider.stats);
        ctx.insert(
            "unrecorded",
            &period.as_ref().map_or(0, |period| period.after_the_fact),
        );
        ctx.insert("part", &false);
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        ctx.insert("period", &period);
        ctx.insert("incidents", &incidents);
        ctx.insert("years", &years);
        // The year's charts and calendar are on its first page.
        if n == 1 {
            insert_charts(&mut ctx, r, i, Some(year), &[year]);
        }
        r.template("provider_year.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        provider_owner(archive, page)
    }
}

/// One component of a provider: its incidents, numbers and calendar.
struct ComponentPage;

impl Kind for ComponentPage {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, provider) in archive.providers() {
            for (number, component) in provider.components.iter().enumerate() {
                for n in Paged::new(component.incidents.len()).numbers() {
                    let dir = routes::component_page_dir(
                        provider.slug.as_str(),
                        component.slug.as_str(),
                        n,
                    );
                    add(routes::page(&dir), Key::Component(index, number, n));
                }
            }
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            provider_part: key.part(),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Component(i, c, n) = page.key else {
            return Err(wrong_key(page));
        };
        let provider = &r.views.providers[i];
        let Some(component) = r.archive.providers[i].components.get(c) else {
            return Err(wrong_key(page));
        };
        let name = &provider.reference.name;
        let paged = Paged::new(component.incidents.len());
        let title = match n {
            1 => format!("{} · {name}", component.name),
            n => format!("{} · {name}, page {n} of {}", component.name, paged.pages()),
        };
        let stats = StatsView::new(&component.stats, &r.views.incidents, |_| None);
        let mut years: Vec<i32> = component
            .incidents
            .iter()
            .map(|&x| r.views.incidents[x].summary.started.year)
            .collect();
        years.dedup();
        // The latest year: a component's history is in its list and its table.
        years.truncate(1);
        let mut ctx = r.html_context(
            "component",
            &title,
            format!(
                "Every incident of {name} that affected {}, with its uptime and downtime.",
                component.name
            ),
            &routes::component_page_dir(&provider.reference.slug, component.slug.as_str(), n),
            &provider.feeds,
            &format!("{name} incidents"),
        );
        ctx.insert("provider", &provider.reference);
        ctx.insert("component", &component.name);
        ctx.insert(
            "pager",
            &Pager::new(n, paged, |n| {
                let dir = routes::component_page_dir(
                    &provider.reference.slug,
                    component.slug.as_str(),
                    n,
                );
                r.config.base_url.path(&dir)
            }),
        );
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        ctx.insert("unrecorded", &stats.all_time.after_the_fact);
        ctx.insert("part", &true);
        ctx.insert("stats", &stats);
        // Newest first, a page of them at a time: no page lists thousands.
        ctx.insert(
            "groups",
            &by_year(
                component.incidents[paged.items_of(n)]
                    .iter()
                    .map(|&x| &r.views.incidents[x].summary),
            ),
        );
        ctx.insert("incident_total", &component.incidents.len());
        ctx.insert(
            "calendars",
            &insights::impact_calendars(
                r.archive,
                &r.config.base_url,
                &component.incidents,
                &years,
                "calendar",
                &component.name,
            ),
        );
        r.template("component.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        provider_owner(archive, page)
    }
}

/// Every incident of every provider active on one UTC day, on a 24-hour timeline: the
/// view of outages that happened together.
struct DayPage;

impl Kind for DayPage {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for day in &archive.days {
            add(routes::page(&routes::day_dir(day.date)), Key::Day(day.date));
        }
    }

    fn reads(&self, archive: &Archive, key: Key) -> Reads {
        // The day, and the days it links as the one before and the one after: any change
        // between them (a day appearing or going) changes those links.
        let days = match key {
            Key::Day(date) => {
                let position = archive.days.partition_point(|d| d.date < date);
                let before = position.checked_sub(1).and_then(|p| archive.days.get(p));
                let after = archive.days.get(position + 1);
                Some((
                    before.map_or(NaiveDate::MIN, |d| d.date),
                    after.map_or(NaiveDate::MAX, |d| d.date),
                ))
            }
            _ => None,
        };
        Reads { days, ..TEMPLATED }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Some(day) = (match page.key {
            Key::Day(date) => r.archive.day(date),
            _ => None,
        }) else {
            return Err(wrong_key(page));
        };
        let (entries, timeline) = insights::day(r.archive, r.views, day);
        let date = day.date.format("%A %-d %B %Y").to_string();
        let base = &r.config.base_url;
        // The days before and after that have incidents: found by binary search.
        let position = r.archive.days.partition_point(|d| d.date < day.date);
        let link = |d: Option<&crate::archive::Day>| {
            d.map(|d| CountLink {
                name: d.date.to_string().into(),
                path: base.path(&routes::day_dir(d.date)),
                count: d.incidents.len(),
            })
        };
        let mut ctx = r.html_context(
            "day",
            &format!("Outages on {}", day.date),
            format!(
                "Every incident of every provider on {date} (UTC): {} incident{} at {} provider{}.",
                thousands(day.incidents.len() as i64),
                if day.incidents.len() == 1 { "" } else { "s" },
                thousands(day.providers as i64),
                if day.providers == 1 { "" } else { "s" },
            ),
            &routes::day_dir(day.date),
            &FeedLinks::new(base, ""),
            "All incidents",
        );
        ctx.insert("date", &day.date.to_string());
        ctx.insert("date_text", &date);
        ctx.insert("providers", &day.providers);
        ctx.insert("entries", &entries);
        ctx.insert("timeline", &timeline);
        ctx.insert(
            "previous_day",
            &link(position.checked_sub(1).and_then(|p| r.archive.days.get(p))),
        );
        ctx.insert("next_day", &link(r.archive.days.get(position + 1)));
        r.template("day.html", page, &ctx)
    }
}

/// The calendar of every year, and the busiest days.
struct DaysIndex;

impl Kind for DaysIndex {
    fn plan(&self, _: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        add(routes::page(routes::DAYS_DIR), Key::Site);
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        Reads {
            archive: true,
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let base = &r.config.base_url;
        let years: Vec<i32> = match (r.archive.days.first(), r.archive.days.last()) {
            (Some(first), Some(last)) => (r.archive.years.iter().copied())
                .filter(|year| (first.date.year()..=last.date.year()).contains(year))
                .collect(),
            _ => Vec::new(),
        };
        let calendars: Vec<insights::Calendar> = years
            .iter()
            .map(|&year| insights::site_calendar(r.archive, r.views, base, year, "calendar"))
            .collect();
        let mut ctx = r.html_context(
            "days",
            "Every day",
            format!(
                "Every day of the {} with an outage, year by year, and the days when most providers were down at once.",
                r.config.title
            ),
            routes::DAYS_DIR,
            &FeedLinks::new(base, ""),
            "All incidents",
        );
        ctx.insert("calendars", &calendars);
        ctx.insert("day_total", &r.archive.days.len());
        ctx.insert(
            "busiest",
            &insights::busiest_days(r.archive, r.views, base, BUSIEST * 2),
        );
        r.template("days.html", page, &ctx)
    }
}

/// One UTC day as data.
struct ApiDay;

impl Kind for ApiDay {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for day in &archive.days {
            add(routes::api_day(day.date), Key::Day(day.date));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            days: match key {
                Key::Day(date) => Some((date, date)),
                _ => None,
            },
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Some(day) = (match page.key {
            Key::Day(date) => r.archive.day(date),
            _ => None,
        }) else {
            return Err(wrong_key(page));
        };
        let incidents: Vec<&IncidentView> = day
            .incidents
            .iter()
            .map(|&x| &*r.views.incidents[x])
            .collect();
        let base = &r.config.base_url;
        Ok(api::day(
            &day.date.to_string(),
            &base.url(&routes::day_dir(day.date)),
            day.providers,
            &incidents,
            base,
        ))
    }
}

/// One JSON file per provider (its API file, its numbers, its components), made by a
/// function of the provider: written as data, like [`SiteFile`]. Each reads only what
/// lists and numbers show of the provider (see `Reads::provider_part`): no text of an
/// update.
struct ProviderFile {
    path: fn(&str) -> String,
    make: fn(&Renderer, ProviderIx) -> Vec<u8>,
}

impl Kind for ProviderFile {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, provider) in archive.providers() {
            add((self.path)(provider.slug.as_str()), Key::Provider(index));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            provider_part: key.part(),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        match page.key {
            Key::Provider(i) => Ok((self.make)(r, i)),
            _ => Err(wrong_key(page)),
        }
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        provider_owner(archive, page)
    }
}

/// `api/v1/<provider>.json`: the provider and its incidents.
fn api_provider(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let incidents: Vec<&IncidentView> = r.archive.providers[i]
        .incidents
        .iter()
        .map(|&x| &*r.views.incidents[x])
        .collect();
    api::provider(&r.views.providers[i], &incidents, &r.config.base_url)
}

/// `api/v1/<provider>/stats.json`: its numbers, month by month too.
fn api_stats(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let months: Vec<((i32, u32), PeriodView)> = r.archive.providers[i]
        .stats
        .months
        .iter()
        .map(|(month, period)| (*month, PeriodView::new(month_label(*month), period, None)))
        .collect();
    let through = r.archive.through.map(|t| TimeView::new(t).iso);
    api::stats(&r.views.providers[i], &months, through.as_deref())
}

/// `api/v1/<provider>/components.json`: its components, each with its page.
fn api_components(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let provider = &r.archive.providers[i];
    let entries: Vec<api::ComponentEntry> = provider
        .components
        .iter()
        .filter_map(|c| {
            let newest = &r.views.incidents[*c.incidents.first()?];
            Some(api::ComponentEntry {
                slug: c.slug.as_str(),
                name: &c.name,
                url: r.config.base_url.url(&routes::component_dir(
                    provider.slug.as_str(),
                    c.slug.as_str(),
                )),
                incident_count: c.incidents.len(),
                last_started: &newest.summary.started.iso,
                stats: StatsView::new(&c.stats, &r.views.incidents, |_| None),
            })
        })
        .collect();
    api::components(&r.views.providers[i], &entries)
}

/// `search/`: the search box, facets and results, drawn by the theme's script from the
/// index; without JavaScript, where else to look.
struct SearchPage;

impl Kind for SearchPage {
    fn plan(&self, _: &Archive, _: &Theme, config: &Config, add: &mut dyn FnMut(String, Key)) {
        if config.search {
            add(routes::SEARCH_PAGE.into(), Key::Site);
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        TEMPLATED
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let base = &r.config.base_url;
        let mut ctx = r.html_context(
            "search",
            "Search",
            format!(
                "Search every incident of the {}: by words, provider, impact, year, component and region.",
                r.config.title
            ),
            routes::SEARCH_DIR,
            &FeedLinks::new(base, ""),
            "All incidents",
        );
        // The search script offers impacts in the order pages list them.
        ctx.insert("impacts", &IMPACT_ORDER.map(Impact::label));
        r.template("search.html", page, &ctx)
    }
}

/// `sitemap-N.xml`: one part of a sitemap too long for one file.
struct SitemapPart;

impl Kind for SitemapPart {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for n in 1..=sitemap::parts(super::sitemap_len(archive)) {
            add(routes::sitemap_part(n), Key::Number(n));
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        SITEMAP
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Number(n) = page.key else {
            return Err(wrong_key(page));
        };
        Ok(r.sitemap_part(n))
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Pager;
    use crate::render::paging::{PER_PAGE, Paged};

    /// A list of `total` pages.
    fn pages(total: usize) -> Paged {
        Paged::new(total * PER_PAGE)
    }

    fn shown(current: usize, total: usize) -> String {
        Pager::new(current, pages(total), |n| n.to_string())
            .pages
            .iter()
            .map(|p| p.as_ref().map_or("…".to_string(), |p| p.number.to_string()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_pager_shows_the_ends_and_the_pages_near_the_current_one() {
        assert_eq!(shown(1, 1), "1");
        assert_eq!(shown(2, 5), "1 2 3 4 5");
        assert_eq!(shown(1, 100), "1 2 3 … 99 100");
        assert_eq!(shown(50, 100), "1 2 … 48 49 50 51 52 … 99 100");
        assert_eq!(shown(100, 100), "1 2 … 98 99 100");
        // A thousand pages, a dozen links: the pager does not grow with the archive.
        assert!(shown(500, 1000).split(' ').count() <= 11);
        let pager = Pager::new(1, pages(3), |n| n.to_string());
        assert!(pager.previous.is_none() && pager.next.is_some_and(|p| p.number == 2));
    }
}
