//! The page kinds. Each says, in one place, which pages it makes (and at which paths, from
//! the route table), what each page reads, and how it is rendered. [`What`] lists them:
//! `build` renders what they plan, and `serve` renders again a page whose declared inputs
//! changed. Adding a kind is a struct and its `impl Kind` in the file of its family (an
//! incident's pages, a provider's, the days, the index of all incidents, the data, the
//! site's own files), a line in [`kinds!`] and, for a page, its template.

use chrono::{Datelike, NaiveDate};
use rayon::prelude::*;
use tera::Context;

use crate::archive::{Archive, ComponentIx, IncidentIx, ProviderIx};
use crate::config::Config;
use crate::diagnostics::Diagnostic;
use crate::model::Impact;
use crate::numbers;
use crate::render::deps::{Part, Reads};
use crate::render::paging::Paged;
use crate::render::theme::{AssetIx, AssetSource, Theme};
use crate::render::views::{
    self, FeedLinks, IMPACT_ORDER, IncidentView, PeriodView, ProviderView, StatsView, SummaryView,
    TimeView,
};
use crate::render::words::{by_name, impact_heading, month_label, thousands};
use crate::render::{
    Owner, Page, Renderer, Year, api, badges, feeds, hosting, insights, llms, sitemap,
};
use crate::routes::{self, FeedFormat, FeedSet, ProviderOrder};

mod badge;
mod compare;
mod data;
mod days;
mod export;
mod filtered;
mod home;
mod incident;
mod index;
mod provider;
mod site;

use badge::*;
use compare::*;
use data::*;
use days::*;
use export::*;
use filtered::*;
use home::*;
use incident::*;
use index::*;
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

/// One kind of file of the site, with the key its pages are planned with: a page carries
/// its kind's key in [`What`], so no kind is handed another's.
pub(crate) trait Kind: Sync {
    /// What one page of the kind is made from.
    type Key: Copy + std::fmt::Debug + Eq + std::hash::Hash + Send + Sync;

    /// Adds the kind's pages: each a path and the key it is rendered from.
    fn plan(&self, at: &Planning, add: &mut dyn FnMut(String, Self::Key));

    /// What a page of this kind reads, besides `site.yaml`, in the archive it is planned
    /// from.
    fn reads(&self, archive: &Archive, key: Self::Key) -> Reads;

    /// The bytes of one page of this kind.
    fn render(&self, r: &Renderer, page: &Page, key: Self::Key) -> Result<Vec<u8>, Diagnostic>;

    /// Adds the pages made from the rest of the plan, once it is made: `listed` is how
    /// many of its pages the sitemap lists.
    fn plan_after(&self, _listed: usize, _add: &mut dyn FnMut(String, Self::Key)) {}

    /// Whether the sitemap lists the kind's pages: the pages a reader may land on.
    const IN_SITEMAP: bool = false;

    /// The day a page the sitemap lists last changed, if the archive says.
    fn lastmod(&self, _dates: &Dates, _key: Self::Key) -> Option<NaiveDate> {
        None
    }

    /// A file of the site as a whole, which a static file of the same path replaces.
    fn site_file(&self, _key: Self::Key) -> bool {
        false
    }

    /// Who writes the page, for the message of a path conflict.
    fn owner(&self, _archive: &Archive, _theme: &Theme, page: &Page, _key: Self::Key) -> Owner {
        generated(page)
    }
}

/// Declares every kind of the site: a variant of [`What`] each, carrying the kind's own
/// key, and the value that plans, declares and renders its pages. Every use of a page
/// matches on [`What`]: a kind left out of one does not compile.
macro_rules! kinds {
    ($($(#[$doc:meta])* $variant:ident($kind:ty) = $value:expr;)*) => {
        /// Which page of which kind a page is: the kind, and the key it was planned with.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum What {
            $($(#[$doc])* $variant(<$kind as Kind>::Key),)*
        }

        /// Every kind's pages, the kinds planned in parallel and gathered in their order.
        pub(crate) fn plan_every_kind(at: &Planning) -> Vec<Page> {
            type Plan = fn(&Planning) -> Vec<Page>;
            let kinds: &[Plan] = &[$(
                |at| {
                    let mut pages = Vec::new();
                    Kind::plan(&$value, at, &mut |path, key| {
                        pages.push(Page { path, what: What::$variant(key) })
                    });
                    pages
                },
            )*];
            let planned: Vec<Vec<Page>> = kinds
                .par_iter()
                .map(|plan| plan(at))
                .collect();
            planned.concat()
        }

        /// The pages every kind makes from the rest of the plan ([`Kind::plan_after`]).
        pub(crate) fn plan_after_every_kind(listed: usize) -> Vec<Page> {
            let mut pages = Vec::new();
            $(Kind::plan_after(&$value, listed, &mut |path, key| {
                pages.push(Page { path, what: What::$variant(key) })
            });)*
            pages
        }

        impl What {
            /// Whether the sitemap lists the page.
            pub(crate) fn in_sitemap(self) -> bool {
                match self {
                    $(What::$variant(_) => <$kind as Kind>::IN_SITEMAP,)*
                }
            }

            /// The day a page the sitemap lists last changed.
            pub(crate) fn lastmod(self, dates: &Dates) -> Option<NaiveDate> {
                match self {
                    $(What::$variant(key) => Kind::lastmod(&$value, dates, key),)*
                }
            }

            /// What the page reads in `archive`, as its kind declares.
            pub(crate) fn reads(self, archive: &Archive) -> Reads {
                match self {
                    $(What::$variant(key) => Kind::reads(&$value, archive, key),)*
                }
            }

            /// The bytes of `page`, as its kind makes them.
            pub(crate) fn render(self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
                match self {
                    $(What::$variant(key) => Kind::render(&$value, r, page, key),)*
                }
            }

            /// Whether a static file of the same path replaces the page.
            pub(crate) fn site_file(self) -> bool {
                match self {
                    $(What::$variant(key) => Kind::site_file(&$value, key),)*
                }
            }

            /// Who writes the page, for the message of a path conflict.
            pub(crate) fn owner(self, archive: &Archive, theme: &Theme, page: &Page) -> Owner {
                match self {
                    $(What::$variant(key) => Kind::owner(&$value, archive, theme, page, key),)*
                }
            }
        }
    };
}

kinds! {
    Home(Home) = Home;
    NotFound(NotFound) = NotFound;
    Provider(ProviderPage) = ProviderPage;
    Incident(IncidentPage) = IncidentPage;
    Alias(AliasPage) = AliasPage;
    Feed(FeedFile) = FeedFile;
    ApiProvider(ProviderFile) = ProviderFile {
        path: routes::api_provider,
        make: api_provider,
        told: false,
    };
    ApiIncident(IncidentFile) = IncidentFile {
        path: routes::api_incident,
        make: api_incident,
        wanted: |_| true,
    };
    /// The incident's markdown twin, which builds again as the same incident.
    Twin(IncidentFile) = IncidentFile {
        path: routes::incident_twin,
        make: incident_twin,
        wanted: |config| config.markdown,
    };
    Cname(Cname) = Cname;
    Asset(Asset) = Asset;
    ApiProviders(SiteFile) = SiteFile {
        path: routes::API_PROVIDERS,
        reads: ARCHIVE,
        make: |r| {
            let through = r.archive.through.map(|t| TimeView::new(t).iso);
            api::providers(&r.views.providers, through.as_deref(), &r.config.base_url)
        },
    };
    ApiIndex(SiteFile) = SiteFile {
        path: routes::API_INDEX,
        reads: ARCHIVE,
        make: api_index,
    };
    ApiPage(ArchivePage) = ArchivePage {
        dir: routes::API_PAGE_DIR,
        make: api_page,
    };
    Compare(ComparePage) = ComparePage;
    Badge(ProviderFile) = ProviderFile {
        path: routes::badge_provider,
        make: provider_badge,
        told: false,
    };
    ComponentBadge(ComponentFile) = ComponentFile {
        path: routes::badge_component,
        make: component_badge,
    };
    ComponentFeed(ComponentFile) = ComponentFile {
        path: routes::component_feed,
        make: component_feed,
    };
    MaintenanceCalendar(ProviderFile) = ProviderFile {
        path: routes::maintenance_calendar,
        make: maintenance_calendar,
        told: false,
    };
    Badges(ArchivePage) = ArchivePage {
        dir: routes::BADGES_DIR,
        make: badges_page,
    };
    Sitemap(SiteFile) = SiteFile {
        path: routes::SITEMAP,
        reads: SITEMAP,
        make: |r| r.sitemap(),
    };
    Robots(SiteFile) = SiteFile {
        path: routes::ROBOTS,
        reads: NOTHING,
        make: |r| sitemap::robots(&r.config.base_url.url(routes::SITEMAP)),
    };
    LlmsTxt(SiteFile) = SiteFile {
        path: routes::LLMS_TXT,
        reads: ARCHIVE,
        make: llms_txt,
    };
    NoJekyll(SiteFile) = SiteFile {
        path: routes::NOJEKYLL,
        reads: NOTHING,
        make: |_| Vec::new(),
    };
    /// `_headers` names the theme's assets, hashed names and all.
    Headers(SiteFile) = SiteFile {
        path: routes::HEADERS,
        reads: Reads {
            templates: true,
            assets: true,
            ..NOTHING
        },
        make: headers,
    };
    Redirects(SiteFile) = SiteFile {
        path: routes::REDIRECTS,
        reads: ARCHIVE,
        make: redirects,
    };
    IncidentIndex(IncidentIndex) = IncidentIndex;
    ImpactList(ImpactList) = ImpactList;
    ProviderYear(ProviderYear) = ProviderYear;
    Component(ComponentPage) = ComponentPage;
    Day(DayPage) = DayPage;
    DaysIndex(ArchivePage) = ArchivePage {
        dir: routes::DAYS_DIR,
        make: days_index,
    };
    Search(SearchPage) = SearchPage;
    SitemapPart(SitemapPart) = SitemapPart;
    ApiStats(ProviderFile) = ProviderFile {
        path: routes::api_stats,
        make: api_stats,
        told: true,
    };
    ApiComponents(ProviderFile) = ProviderFile {
        path: routes::api_components,
        make: api_components,
        told: false,
    };
    ApiDay(ApiDay) = ApiDay;
    Data(DataExport) = DataExport;
    DataPage(ArchivePage) = ArchivePage {
        dir: routes::DATA_DIR,
        make: data_page,
    };
    DataIncidentSchema(SiteFile) = SiteFile {
        path: routes::DATA_INCIDENT_SCHEMA,
        reads: NOTHING,
        make: |_| crate::render::exports::incident_schema(),
    };
    DataUpdateSchema(SiteFile) = SiteFile {
        path: routes::DATA_UPDATE_SCHEMA,
        reads: NOTHING,
        make: |_| crate::render::exports::update_schema(),
    };
}

/// What a kind plans its pages from.
#[derive(Clone, Copy)]
pub(crate) struct Planning<'a> {
    pub(crate) archive: &'a Archive,
    pub(crate) theme: &'a Theme,
    pub(crate) config: &'a Config,
}

/// What a sitemap dates its pages by: the archive, and its newest update's day, found
/// once for every page that shows the whole archive.
pub(crate) struct Dates<'a> {
    pub(crate) archive: &'a Archive,
    pub(crate) newest: Option<NaiveDate>,
}

impl<'a> Dates<'a> {
    pub(crate) fn new(archive: &'a Archive) -> Dates<'a> {
        let newest = archive.updated.iter().max().map(|t| t.date_naive());
        Dates { archive, newest }
    }

    /// The day of the newest update among `incidents`.
    fn of(&self, incidents: &[IncidentIx]) -> Option<NaiveDate> {
        let updated = &self.archive.updated;
        incidents
            .iter()
            .map(|&i| updated[i])
            .max()
            .map(|t| t.date_naive())
    }
}

/// The owner of a page no file writes.
fn generated(page: &Page) -> Owner {
    Owner {
        what: format!("the generated `{}`", page.path),
        place: None,
    }
}

/// The day a day's page or data file is planned for: one the archive has, as planned.
fn day_of<'a>(
    r: &Renderer<'a>,
    page: &Page,
    date: NaiveDate,
) -> Result<&'a crate::archive::Day, Diagnostic> {
    r.archive.day(date).ok_or_else(|| {
        Diagnostic::file(
            &page.path,
            format!(
                "internal error: `{}` was planned for a day without incidents; please report it",
                page.path
            ),
        )
    })
}

const NOTHING: Reads = Reads::NOTHING;

const TEMPLATED: Reads = Reads {
    templates: true,
    ..NOTHING
};

const ARCHIVE: Reads = Reads {
    archive: true,
    ..NOTHING
};
/// A page that shows the archive as a whole.
const TEMPLATED_ARCHIVE: Reads = Reads {
    archive: true,
    ..TEMPLATED
};

/// What a sitemap shows: every page, each with the day of the newest update on it, which
/// the list of every incident gives (their days, years, components and update times); not
/// the text of updates, nor a provider's `_index.md`.
const SITEMAP: Reads = Reads {
    list: Some((0, usize::MAX)),
    pages: true,
    ..NOTHING
};

/// The owner of an incident's pages: its file.
fn incident_owner(archive: &Archive, i: IncidentIx) -> Owner {
    let file = archive.incidents[i].file.clone();
    Owner {
        what: format!("the incident in `{}`", file.display()),
        place: Some((file, 0, 0)),
    }
}

/// The owner of a provider's pages.
fn provider_owner(archive: &Archive, p: ProviderIx) -> Owner {
    Owner {
        what: format!("the pages of provider `{}`", archive.providers[p].slug),
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

#[cfg(test)]
mod tests;
