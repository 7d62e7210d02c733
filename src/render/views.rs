//! What templates, feeds and the API see: plain data, pre-formatted (times in UTC as text,
//! durations as `3h 24m`, URLs complete, markdown as sanitised HTML), each incident's made
//! the first time a page asks for it and kept for the build. Templates stay dumb and a theme can be swapped
//! without touching Rust.

use std::sync::{Arc, OnceLock};

use chrono::{Datelike, SecondsFormat, Timelike};
use foldhash::HashMap;
use serde::{Serialize, Serializer};

use crate::archive::{Archive, IncidentIx, Provider, Stats};
use crate::config::BaseUrl;
use crate::model::{Duration, Impact, Incident, Slug, Timestamp, Update};
use crate::numbers::Period;
use crate::render::markdown;
use crate::render::words::{length, uptime_text};
use crate::routes::{self, FeedFormat, FeedSet};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeView {
    /// The time itself, for feeds and the API; templates get the texts below.
    #[serde(skip)]
    pub at: Timestamp,
    /// RFC 3339 in UTC, for `<time datetime>` and machines.
    pub iso: String,
    /// `2022-01-20 17:58 UTC`.
    pub text: String,
    pub date: String,
    pub year: i32,
}

impl TimeView {
    pub fn new(time: Timestamp) -> TimeView {
        // chrono's own `2022-01-20`, not strftime, which parses its format on every call
        // (a build formats hundreds of thousands of times).
        let date = time.date_naive().to_string();
        TimeView {
            at: time,
            iso: time.to_rfc3339_opts(SecondsFormat::Secs, true),
            text: format!("{date} {:02}:{:02} UTC", time.hour(), time.minute()),
            year: time.year(),
            date,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImpactView {
    pub keyword: &'static str,
    pub label: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderRef {
    pub slug: String,
    pub name: String,
    pub path: String,
    pub url: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct UpdateView {
    /// Its place on the incident's page.
    pub anchor: Anchor,
    pub time: TimeView,
    pub status: String,
    /// The status as a CSS-safe word: `in-progress`.
    pub status_class: String,
    pub html: Html,
}

/// An update's place on its incident's page, its `id` and `#fragment`: `update-` and the
/// UTC minute it was posted, `update-20250307-1003`, then `-2`, `-3`… for the later updates
/// of that minute; the postmortem's is `postmortem`. Made of the update's own time (and
/// those before it in the same minute), so a link to an update stays good as updates are
/// added after it. Kept as the time and its rank, not as text: an archive has several
/// updates per incident, and the text is written only where a page or file shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Update { at: Timestamp, nth: u32 },
    Postmortem,
}

impl Anchor {
    /// The anchors of `times`, in their order.
    fn of_each(times: impl Iterator<Item = Timestamp>) -> Vec<Anchor> {
        let mut seen: HashMap<i64, u32> = HashMap::default();
        times
            .map(|at| {
                let nth = seen.entry(at.timestamp().div_euclid(60)).or_insert(0);
                *nth = nth.saturating_add(1);
                Anchor::Update { at, nth: *nth }
            })
            .collect()
    }

    /// Its URL on the incident page at `page_url`.
    pub fn on(&self, page_url: &str) -> String {
        format!("{page_url}#{self}")
    }
}

impl std::fmt::Display for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match *self {
            Anchor::Postmortem => f.write_str("postmortem"),
            Anchor::Update { at, nth } => {
                write!(
                    f,
                    "update-{:04}{:02}{:02}-{:02}{:02}",
                    at.year(),
                    at.month(),
                    at.day(),
                    at.hour(),
                    at.minute()
                )?;
                if nth > 1 {
                    write!(f, "-{nth}")?;
                }
                Ok(())
            }
        }
    }
}

impl Serialize for Anchor {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A piece of an incident's markdown as sanitised HTML. The incident's pieces are rendered
/// together the first time a page asks for one, and kept (at their exact size): a build
/// that renders every page renders each once, and a build that renders a few (after one
/// edit) renders only theirs, not the whole archive's.
#[derive(Clone)]
pub struct Html {
    of: Arc<IncidentHtml>,
    part: Part,
}

/// What an incident's pieces of HTML are made from, and once made, the pieces.
struct IncidentHtml {
    incident: Arc<Incident>,
    /// The site's address: relative links are resolved against the incident's page.
    base: Arc<BaseUrl>,
    parts: OnceLock<Parts>,
}

struct Parts {
    summary: Box<str>,
    /// As `Incident::updates` holds them.
    updates: Box<[Box<str>]>,
    attribution: Box<str>,
}

#[derive(Debug, Clone, Copy)]
enum Part {
    Summary,
    /// The update at this index of `updates`.
    Update(u32),
    Attribution,
}

impl IncidentHtml {
    fn parts(&self) -> &Parts {
        self.parts.get_or_init(|| {
            let incident = &self.incident;
            let dir = routes::incident_dir(incident.provider.as_str(), incident.slug.as_str());
            let page_url = self.base.url(&dir);
            let html = |markdown: &str| markdown::to_html(markdown, &page_url).into_boxed_str();
            Parts {
                summary: html(&incident.summary),
                updates: incident.updates.iter().map(|u| html(&u.body)).collect(),
                attribution: incident
                    .attribution
                    .as_deref()
                    .map(html)
                    .unwrap_or_default(),
            }
        })
    }
}

impl Html {
    pub fn as_str(&self) -> &str {
        let parts = self.of.parts();
        match self.part {
            Part::Summary => &parts.summary,
            Part::Update(i) => usize::try_from(i)
                .ok()
                .and_then(|i| parts.updates.get(i))
                .map_or("", |html| html),
            Part::Attribution => &parts.attribution,
        }
    }
}

impl Serialize for Html {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Debug for Html {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Html").field(&self.part).finish()
    }
}

/// An incident in a list: enough for a row of the home or provider page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryView {
    pub title: String,
    pub path: String,
    pub url: String,
    pub provider: ProviderRef,
    pub impact: ImpactView,
    pub started: TimeView,
    pub resolved: Option<TimeView>,
    /// How long it lasted, when the record says: `None` while it is unresolved and when
    /// it was posted already resolved.
    pub duration: Option<String>,
    /// The incident's own downtime, in seconds.
    pub downtime_seconds: i64,
    /// Not resolved (yet).
    pub ongoing: bool,
    /// Not resolved, and no update for longer than the site's `stale_after` before the
    /// archive's latest update: not shown as ongoing.
    pub stale: bool,
    /// Posted already resolved: its duration is not recorded.
    pub after_the_fact: bool,
    pub latest_status: Option<String>,
}

/// An incident with every fact, for its own page, its feed entry and its API file.
#[derive(Debug, Clone, Serialize)]
pub struct IncidentView {
    #[serde(flatten)]
    pub summary: SummaryView,
    pub slug: String,
    pub level: Option<&'static str>,
    pub components: Vec<String>,
    /// The components again, each with its page.
    pub component_links: Vec<ComponentLink>,
    pub unnamed_components: u32,
    pub component_count: usize,
    pub regions: Vec<String>,
    pub id: Option<String>,
    pub official_url: Option<String>,
    pub duration_seconds: Option<i64>,
    pub updated: TimeView,
    pub summary_html: Html,
    pub timeline: Vec<UpdateView>,
    pub postmortem: Option<UpdateView>,
    pub attribution_html: Html,
    pub extra: Option<serde_json::Value>,
    /// The tag URI that identifies this incident in feeds, forever.
    pub tag: String,
}

/// The numbers of one impact in a period.
#[derive(Debug, Clone, Serialize)]
pub struct TallyView {
    pub keyword: &'static str,
    pub label: &'static str,
    pub count: usize,
    /// The time the resolved ones covered, overlaps counted once.
    pub duration: String,
    pub duration_seconds: i64,
}

/// The numbers of one period, as text for pages and as numbers for machines.
#[derive(Debug, Clone, Serialize)]
pub struct PeriodView {
    /// `2024`, `March 2024`, `Last 12 months`, `All time`.
    pub label: String,
    pub from: String,
    pub to: String,
    pub incidents: usize,
    pub outages: usize,
    pub maintenance: usize,
    /// Every impact, worst first, maintenance last.
    pub by_impact: Vec<TallyView>,
    /// The downtime of any part.
    pub downtime: String,
    pub downtime_seconds: i64,
    /// The uptime of the parts, `99.95 %`; `None` when the archive has no records for
    /// any of the period.
    pub uptime: Option<String>,
    pub uptime_percent: Option<f64>,
    /// The share of the covered time with no part down.
    pub any_uptime: Option<String>,
    pub any_uptime_percent: Option<f64>,
    /// How much of the period the archive has records for.
    pub covered_seconds: i64,
    /// That time as text, when it is less than the whole period (the uptime is of it).
    pub covered_part: Option<String>,
    pub mttr: Option<String>,
    pub mttr_seconds: Option<i64>,
    /// Outages posted already resolved, left out of the median.
    pub after_the_fact: usize,
    /// The period's own page (a year's), if it has one.
    pub path: Option<String>,
}

impl PeriodView {
    pub fn new(label: String, period: &Period, path: Option<String>) -> PeriodView {
        PeriodView {
            label,
            from: TimeView::new(period.from).iso,
            to: TimeView::new(period.to).iso,
            incidents: period.incidents,
            outages: period.outages(),
            maintenance: period.maintenance(),
            by_impact: IMPACT_ORDER
                .iter()
                .map(|&impact| {
                    let tally = period.tally(impact);
                    TallyView {
                        keyword: impact.keyword(),
                        label: impact.label(),
                        count: tally.count,
                        duration: length(tally.duration),
                        duration_seconds: tally.duration.seconds(),
                    }
                })
                .collect(),
            downtime: length(period.downtime),
            downtime_seconds: period.downtime.seconds(),
            uptime: period.uptime.map(uptime_text),
            uptime_percent: period.uptime.map(percent),
            any_uptime: period.any_uptime.map(uptime_text),
            any_uptime_percent: period.any_uptime.map(percent),
            covered_seconds: period.covered.seconds(),
            covered_part: (period.covered.seconds() > 0
                && period.covered < Duration::between(period.from, period.to))
            .then(|| length(period.covered)),
            mttr: period.mttr.map(|d| d.to_string()),
            mttr_seconds: period.mttr.map(|d| d.seconds()),
            after_the_fact: period.after_the_fact,
            path,
        }
    }
}

/// Hundredths of a percent as a percentage.
fn percent(hundredths: u32) -> f64 {
    f64::from(hundredths) / 100.0
}

/// Impacts as pages list them: worst first, maintenance apart at the end.
pub const IMPACT_ORDER: [Impact; 5] = [
    Impact::Critical,
    Impact::Major,
    Impact::Minor,
    Impact::None,
    Impact::Maintenance,
];

/// How long an incident lasted, as words: its duration, or why there is none.
pub fn duration_text(summary: &SummaryView) -> &str {
    match (&summary.duration, summary.ongoing, summary.stale) {
        (Some(duration), _, _) => duration,
        (None, true, false) => "ongoing",
        (None, true, true) => "unresolved",
        (None, false, _) => "duration not recorded",
    }
}

/// A provider's or a component's record, as its page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct StatsView {
    pub outages: usize,
    pub maintenance: usize,
    /// Unresolved outages updated lately.
    pub ongoing: usize,
    /// The one ongoing outage, when there is exactly one (to link it).
    pub ongoing_one: Option<SummaryView>,
    /// Unresolved outages with no update for long: not ongoing.
    pub stale: usize,
    /// When the archive's records of it begin and end, if it has any.
    pub covered_from: Option<TimeView>,
    pub covered_to: Option<TimeView>,
    pub all_time: PeriodView,
    pub last_12_months: PeriodView,
    /// Newest first, each linking its year page when it has one.
    pub years: Vec<PeriodView>,
    pub longest: Option<SummaryView>,
    pub longest_12_months: Option<SummaryView>,
    pub last: Option<SummaryView>,
}

impl StatsView {
    /// `year_path` gives the page of a year, if there is one.
    pub fn new(
        stats: &Stats,
        incidents: &IncidentViews,
        year_path: impl Fn(i32) -> Option<String>,
    ) -> StatsView {
        let summary = |index: Option<IncidentIx>| index.map(|i| incidents[i].summary.clone());
        StatsView {
            outages: stats.all_time.outages(),
            maintenance: stats.all_time.maintenance(),
            ongoing: stats.ongoing.len(),
            ongoing_one: match stats.ongoing[..] {
                [one] => summary(Some(one)),
                _ => None,
            },
            stale: stats.stale.len(),
            covered_from: stats.coverage.map(|(from, _)| TimeView::new(from)),
            covered_to: stats.coverage.map(|(_, to)| TimeView::new(to)),
            all_time: PeriodView::new("All time".into(), &stats.all_time, None),
            last_12_months: PeriodView::new("Last 12 months".into(), &stats.last_12_months, None),
            years: stats
                .years
                .iter()
                .map(|(year, period)| PeriodView::new(year.to_string(), period, year_path(*year)))
                .collect(),
            longest: summary(stats.longest),
            longest_12_months: summary(stats.longest_12_months),
            last: summary(stats.last),
        }
    }
}

/// A component chip: its name, and its page when the name makes a slug.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentLink {
    pub name: String,
    pub path: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct FeedLinks {
    pub atom: String,
    pub rss: String,
    pub json: String,
    /// The Atom feed of major outages only.
    pub major: String,
}

impl FeedLinks {
    /// The three feeds in the folder `dir` (`""` for the site, `lightstep/` for a provider).
    pub fn new(base: &BaseUrl, dir: &str) -> FeedLinks {
        FeedLinks {
            atom: base.path(&routes::feed(dir, FeedFormat::Atom)),
            rss: base.path(&routes::feed(dir, FeedFormat::Rss)),
            json: base.path(&routes::feed(dir, FeedFormat::Json)),
            major: base.path(&routes::feed_of(dir, FeedSet::Major, FeedFormat::Atom)),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ProviderView {
    #[serde(flatten)]
    pub reference: ProviderRef,
    pub website: Option<String>,
    pub status_page: Option<String>,
    pub description_html: String,
    pub stats: StatsView,
    pub feeds: FeedLinks,
    /// Its maintenance windows as an iCalendar file.
    pub calendar: String,
    pub incident_count: usize,
}

/// Every view of the archive. The providers' are made with it (and with them the views of
/// each provider's longest and latest incident); every other incident's is made the first
/// time a page asks for it: a build that renders every page makes them all (in parallel,
/// before the pages), one that renders a few pages after an edit makes only theirs.
#[derive(Default)]
pub struct Views {
    /// In archive order. Shared, so a rebuild reuses the views of unchanged incidents.
    pub incidents: IncidentViews,
    /// Whether the view at the same index is new (its incident or provider changed).
    pub fresh: Vec<bool>,
    pub providers: Vec<ProviderView>,
}

/// The view of every incident, in archive order, each made when first asked for.
#[derive(Default)]
pub struct IncidentViews {
    slots: Vec<Slot>,
    base: Arc<BaseUrl>,
}

/// An incident, the name of its provider, whether it is stale, and its view once made:
/// the view is a function of the first three (and the site's address).
#[derive(Clone)]
struct Slot {
    incident: Arc<Incident>,
    provider_name: Arc<str>,
    stale: bool,
    view: OnceLock<Arc<IncidentView>>,
}

impl IncidentViews {
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The name of the provider of the incident at `i`, as its view shows it, without
    /// making the view.
    pub fn provider_name(&self, i: IncidentIx) -> &str {
        &self.slots[i].provider_name
    }

    /// Every incident's provider name, in order, as the views show them.
    pub fn provider_names(&self) -> Vec<Arc<str>> {
        self.slots
            .iter()
            .map(|slot| Arc::clone(&slot.provider_name))
            .collect()
    }

    /// How many views are made: what a test of laziness counts.
    #[cfg(test)]
    pub fn made(&self) -> usize {
        self.slots.iter().filter(|s| s.view.get().is_some()).count()
    }

    /// The views in order, each made as the iterator reaches it.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Arc<IncidentView>> {
        IncidentIx::all(self.len()).map(|i| &self[i])
    }

    /// Every view, made in parallel where needed: for a build that renders every page.
    pub fn all(&self) -> Vec<Arc<IncidentView>> {
        use rayon::prelude::*;
        let indices: Vec<IncidentIx> = IncidentIx::all(self.len()).collect();
        indices.par_iter().map(|&i| Arc::clone(&self[i])).collect()
    }

    /// Whether a list shows the view at `i` differently from the one `other` has at `j`
    /// (see [`shows_differently`]), making neither when they are one view (the same
    /// incident under the same provider name) or belong to different pages (whose URLs
    /// differ).
    pub fn shows_differently(&self, i: IncidentIx, other: &IncidentViews, j: IncidentIx) -> bool {
        let (Some(a), Some(b)) = (i.get(&self.slots), j.get(&other.slots)) else {
            return true;
        };
        if Arc::ptr_eq(&a.incident, &b.incident)
            && a.provider_name == b.provider_name
            && a.stale == b.stale
        {
            return false;
        }
        a.incident.provider != b.incident.provider
            || a.incident.slug != b.incident.slug
            || shows_differently(&self[i], &other[j])
    }
}

impl std::ops::Index<IncidentIx> for IncidentViews {
    type Output = Arc<IncidentView>;

    fn index(&self, index: IncidentIx) -> &Arc<IncidentView> {
        let slot = &self.slots[index];
        slot.view.get_or_init(|| {
            Arc::new(incident_view(
                &slot.incident,
                provider_ref(&slot.incident, &slot.provider_name, &self.base),
                slot.stale,
                &self.base,
            ))
        })
    }
}

/// Whether a list, a day or a number would show an incident differently: its summary, its
/// components, id or regions (a day's data lists them), or its latest update (where an
/// ongoing incident ends). New text in an update shows only on its own page and in feeds.
fn shows_differently(old: &IncidentView, new: &IncidentView) -> bool {
    old.summary != new.summary
        || old.components != new.components
        || old.id != new.id
        || old.regions != new.regions
        || old.updated != new.updated
}

impl Views {
    /// Renders every view and the markdown of every incident now, in parallel: for a build
    /// that renders every page, before the pages' own allocations begin (interleaved with
    /// them, the same HTML costs a build of 100,000 incidents some 50 MiB more at its peak).
    pub fn render_markdown(&self) {
        use rayon::prelude::*;
        self.incidents.all().par_iter().for_each(|view| {
            view.summary_html.of.parts();
        });
    }

    /// The views of `archive`. With the `previous` views, an incident that is still the
    /// same value (the same `Arc`) under the same provider name keeps its view (made or
    /// not): only what changed is made again.
    pub fn new(archive: &Archive, base: &BaseUrl, previous: Option<&Views>) -> Views {
        use rayon::prelude::*;
        let reusable: HashMap<usize, &Slot> = previous
            .map(|views| {
                views
                    .incidents
                    .slots
                    .iter()
                    .map(|slot| (Arc::as_ptr(&slot.incident) as usize, slot))
                    .collect()
            })
            .unwrap_or_default();
        let names: HashMap<&str, Arc<str>> = archive
            .providers
            .iter()
            .map(|p| (p.slug.as_str(), Arc::from(p.name.as_str())))
            .collect();
        let (slots, fresh): (Vec<Slot>, Vec<bool>) = archive
            .incidents
            .par_iter()
            .map(|incident| {
                let provider_name = names
                    .get(incident.provider.as_str())
                    .cloned()
                    .unwrap_or_else(|| Arc::from(incident.provider.as_str()));
                let stale = archive.is_stale(incident);
                match reusable.get(&(Arc::as_ptr(incident) as usize)) {
                    Some(slot) if slot.provider_name == provider_name && slot.stale == stale => {
                        ((*slot).clone(), false)
                    }
                    _ => (
                        Slot {
                            incident: Arc::clone(incident),
                            provider_name,
                            stale,
                            view: OnceLock::new(),
                        },
                        true,
                    ),
                }
            })
            .unzip();
        let incidents = IncidentViews {
            slots,
            base: Arc::new(base.clone()),
        };
        let providers = archive
            .providers
            .iter()
            .map(|provider| provider_view(provider, &incidents, base))
            .collect();
        Views {
            incidents,
            fresh,
            providers,
        }
    }
}

fn provider_ref(incident: &Incident, name: &str, base: &BaseUrl) -> ProviderRef {
    let dir = routes::provider_dir(incident.provider.as_str());
    ProviderRef {
        slug: incident.provider.to_string(),
        name: name.to_string(),
        path: base.path(&dir),
        url: base.url(&dir),
    }
}

fn update_view(of: &Arc<IncidentHtml>, index: u32, update: &Update, anchor: Anchor) -> UpdateView {
    let status = update.status.as_str().to_string();
    UpdateView {
        anchor,
        time: TimeView::new(update.at),
        status_class: slug::slugify(&status),
        status,
        html: Html {
            of: Arc::clone(of),
            part: Part::Update(index),
        },
    }
}

fn incident_view(
    incident: &Arc<Incident>,
    provider: ProviderRef,
    stale: bool,
    base: &Arc<BaseUrl>,
) -> IncidentView {
    let dir = routes::incident_dir(incident.provider.as_str(), incident.slug.as_str());
    let url = base.url(&dir);
    let of = Arc::new(IncidentHtml {
        incident: Arc::clone(incident),
        base: Arc::clone(base),
        parts: OnceLock::new(),
    });
    let html = |part| Html {
        of: Arc::clone(&of),
        part,
    };
    let summary = SummaryView {
        title: incident.title.clone(),
        path: base.path(&dir),
        url: url.clone(),
        provider,
        impact: ImpactView {
            keyword: incident.impact.keyword(),
            label: incident.impact.label(),
        },
        started: TimeView::new(incident.started),
        resolved: incident.resolved.map(TimeView::new),
        duration: crate::numbers::recorded_duration(incident).map(|d| d.to_string()),
        downtime_seconds: crate::numbers::downtime(incident).seconds(),
        ongoing: incident.is_ongoing(),
        stale,
        after_the_fact: crate::numbers::after_the_fact(incident),
        latest_status: incident
            .timeline()
            .last()
            .map(|u| u.status.as_str().to_string()),
    };
    IncidentView {
        slug: incident.slug.to_string(),
        level: incident.level.map(|l| l.keyword()),
        components: incident.components.clone(),
        component_links: incident
            .components
            .iter()
            .map(|name| ComponentLink {
                name: name.clone(),
                path: base.path(&routes::component_dir(
                    incident.provider.as_str(),
                    Slug::of_component(name).as_str(),
                )),
            })
            .collect(),
        unnamed_components: incident.unnamed_components,
        component_count: incident.component_count(),
        regions: incident.regions.clone(),
        id: incident.id.clone(),
        official_url: incident
            .official_url
            .as_ref()
            .map(|u| u.as_str().to_string()),
        duration_seconds: crate::numbers::recorded_duration(incident).map(|d| d.seconds()),
        updated: TimeView::new(incident.updated()),
        summary_html: html(Part::Summary),
        timeline: incident
            .numbered_timeline()
            .zip(Anchor::of_each(
                incident.numbered_timeline().map(|(_, u)| u.at),
            ))
            .map(|((i, u), anchor)| update_view(&of, i, u, anchor))
            .collect(),
        postmortem: incident
            .numbered_postmortem()
            .map(|(i, u)| update_view(&of, i, u, Anchor::Postmortem)),
        attribution_html: html(Part::Attribution),
        extra: incident.extra.clone(),
        tag: tag_uri(incident),
        summary,
    }
}

/// A feed entry id that survives a change of domain or URL layout (RFC 4151): built from
/// the provider and the incident's own id (or slug), never from `base_url`.
pub fn tag_uri(incident: &Incident) -> String {
    let key = incident.id.as_deref().unwrap_or(incident.slug.as_str());
    routes::incident_tag(incident.provider.as_str(), key)
}

fn provider_view(provider: &Provider, incidents: &IncidentViews, base: &BaseUrl) -> ProviderView {
    let dir = routes::provider_dir(provider.slug.as_str());
    let url = base.url(&dir);
    ProviderView {
        reference: ProviderRef {
            slug: provider.slug.to_string(),
            name: provider.name.clone(),
            path: base.path(&dir),
            url: url.clone(),
        },
        website: provider.info.url.as_ref().map(|u| u.as_str().to_string()),
        status_page: provider
            .info
            .status_page
            .as_ref()
            .map(|u| u.as_str().to_string()),
        description_html: provider
            .info
            .description
            .as_deref()
            .map(|d| markdown::to_html(d, &url))
            .unwrap_or_default(),
        stats: StatsView::new(&provider.stats, incidents, |year| {
            provider
                .years
                .contains(&year)
                .then(|| base.path(&routes::provider_year_dir(provider.slug.as_str(), year)))
        }),
        feeds: FeedLinks::new(base, &dir),
        calendar: base.path(&routes::maintenance_calendar(provider.slug.as_str())),
        incident_count: provider.incidents.len(),
    }
}
