//! The page kinds. Each says, in one place, which pages it makes (and at which paths, from
//! the route table), what each page reads, and how it is rendered. [`KINDS`] lists them:
//! `build` renders what they plan, and `serve` renders again a page whose declared inputs
//! changed. Adding a kind is a struct and its `impl Kind` in the file of its family (an
//! incident's pages, a provider's, the days, the index of all incidents, the data, the
//! site's own files), a line in [`KINDS`] and, for a page, its template.

use chrono::{Datelike, NaiveDate};
use tera::Context;

use crate::archive::{Archive, IncidentIx, ProviderIx};
use crate::config::Config;
use crate::diagnostics::Diagnostic;
use crate::model::Impact;
use crate::numbers;
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

mod data;
mod days;
mod home;
mod incident;
mod index;
mod provider;
mod site;

use data::*;
use days::*;
use home::*;
use incident::*;
use index::*;
pub(crate) use provider::year_run;
use provider::*;
use site::*;

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

/// The day a day's page or data file is planned for.
fn day_of<'a>(r: &Renderer<'a>, page: &Page) -> Result<&'a crate::archive::Day, Diagnostic> {
    let day = match page.key {
        Key::Day(date) => r.archive.day(date),
        _ => None,
    };
    day.ok_or_else(|| wrong_key(page))
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
