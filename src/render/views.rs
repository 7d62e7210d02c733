//! What templates, feeds and the API see: plain data, pre-formatted once per build (times
//! in UTC as text, durations as `3h 24m`, URLs complete, markdown already sanitised HTML).
//! Templates stay dumb and a theme can be swapped without touching Rust.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{Datelike, SecondsFormat, Timelike};
use serde::Serialize;

use crate::archive::{Archive, IncidentIx, Provider};
use crate::config::BaseUrl;
use crate::model::{Incident, Timestamp, Update};
use crate::render::markdown;
use crate::routes::{self, FeedFormat};

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
        // Written out by hand: strftime parses its format on every call, and a build
        // formats hundreds of thousands of times.
        let date = format!("{:04}-{:02}-{:02}", time.year(), time.month(), time.day());
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
    pub time: TimeView,
    pub status: String,
    /// The status as a CSS-safe word: `in-progress`.
    pub status_class: String,
    pub html: String,
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
    pub duration: Option<String>,
    /// The incident's own downtime (SPEC §6), in seconds.
    pub downtime_seconds: i64,
    pub ongoing: bool,
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
    pub unnamed_components: u32,
    pub component_count: usize,
    pub regions: Vec<String>,
    pub id: Option<String>,
    pub official_url: Option<String>,
    pub duration_seconds: Option<i64>,
    pub updated: TimeView,
    pub summary_html: String,
    pub timeline: Vec<UpdateView>,
    pub postmortem: Option<UpdateView>,
    pub attribution_html: String,
    pub extra: Option<serde_json::Value>,
    /// The tag URI that identifies this incident in feeds, forever.
    pub tag: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatsView {
    pub outages: usize,
    pub maintenance: usize,
    pub ongoing: usize,
    pub total: Option<String>,
    pub total_seconds: i64,
    pub median: Option<String>,
    pub median_seconds: Option<i64>,
    pub longest: Option<SummaryView>,
    pub last: Option<SummaryView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FeedLinks {
    pub atom: String,
    pub rss: String,
    pub json: String,
}

impl FeedLinks {
    /// The three feeds in the folder `dir` (`""` for the site, `lightstep/` for a provider).
    pub fn new(base: &BaseUrl, dir: &str) -> FeedLinks {
        FeedLinks {
            atom: base.path(&routes::feed(dir, FeedFormat::Atom)),
            rss: base.path(&routes::feed(dir, FeedFormat::Rss)),
            json: base.path(&routes::feed(dir, FeedFormat::Json)),
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
    pub incident_count: usize,
}

/// Every view of the archive, made once per build, in parallel.
pub struct Views {
    /// In archive order. Shared, so a rebuild reuses the views of unchanged incidents.
    pub incidents: Vec<Arc<IncidentView>>,
    /// Whether the view at the same index was made anew (its incident or provider changed).
    pub fresh: Vec<bool>,
    pub providers: Vec<ProviderView>,
}

impl Views {
    /// Makes the views of `archive`. With the `previous` archive and its views, an incident
    /// that is still the same value (the same `Arc`) under the same provider name keeps its
    /// view: only what changed has its markdown rendered again.
    pub fn new(archive: &Archive, base: &BaseUrl, previous: Option<(&Archive, &Views)>) -> Views {
        use rayon::prelude::*;
        let reusable: HashMap<usize, &Arc<IncidentView>> = previous
            .map(|(archive, views)| {
                archive
                    .incidents
                    .iter()
                    .map(|i| Arc::as_ptr(i) as usize)
                    .zip(&views.incidents)
                    .collect()
            })
            .unwrap_or_default();
        let (incidents, fresh): (Vec<Arc<IncidentView>>, Vec<bool>) = archive
            .incidents
            .par_iter()
            .map(|incident| {
                let name = provider_name(archive, incident);
                match reusable.get(&(Arc::as_ptr(incident) as usize)) {
                    Some(view) if view.summary.provider.name == name => (Arc::clone(view), false),
                    _ => (
                        Arc::new(incident_view(
                            incident,
                            provider_ref(incident, name, base),
                            base,
                        )),
                        true,
                    ),
                }
            })
            .unzip();
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

fn provider_name<'a>(archive: &'a Archive, incident: &'a Incident) -> &'a str {
    archive
        .provider(&incident.provider)
        .map_or(incident.provider.as_str(), |p| p.name.as_str())
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

fn update_view(update: &Update, page_url: &str) -> UpdateView {
    let status = update.status.as_str().to_string();
    UpdateView {
        time: TimeView::new(update.at),
        status_class: slug::slugify(&status),
        status,
        html: markdown::to_html(&update.body, page_url),
    }
}

fn incident_view(incident: &Incident, provider: ProviderRef, base: &BaseUrl) -> IncidentView {
    let dir = routes::incident_dir(incident.provider.as_str(), incident.slug.as_str());
    let url = base.url(&dir);
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
        duration: incident.duration().map(|d| d.to_string()),
        downtime_seconds: crate::insight::downtime(incident).seconds(),
        ongoing: incident.is_ongoing(),
        latest_status: incident
            .timeline()
            .last()
            .map(|u| u.status.as_str().to_string()),
    };
    IncidentView {
        slug: incident.slug.to_string(),
        level: incident.level.map(|l| l.keyword()),
        components: incident.components.clone(),
        unnamed_components: incident.unnamed_components,
        component_count: incident.component_count(),
        regions: incident.regions.clone(),
        id: incident.id.clone(),
        official_url: incident
            .official_url
            .as_ref()
            .map(|u| u.as_str().to_string()),
        duration_seconds: incident.duration().map(|d| d.seconds()),
        updated: TimeView::new(incident.updated()),
        summary_html: markdown::to_html(&incident.summary, &url),
        timeline: incident.timeline().map(|u| update_view(u, &url)).collect(),
        postmortem: incident.postmortem().map(|u| update_view(u, &url)),
        attribution_html: incident
            .attribution
            .as_deref()
            .map(|a| markdown::to_html(a, &url))
            .unwrap_or_default(),
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

fn provider_view(
    provider: &Provider,
    incidents: &[Arc<IncidentView>],
    base: &BaseUrl,
) -> ProviderView {
    let dir = routes::provider_dir(provider.slug.as_str());
    let url = base.url(&dir);
    let stats = &provider.stats;
    let summary = |index: Option<IncidentIx>| index.map(|i| incidents[i].summary.clone());
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
        stats: StatsView {
            outages: stats.outages,
            maintenance: stats.maintenance,
            ongoing: stats.ongoing,
            total: (stats.total.seconds() > 0).then(|| stats.total.to_string()),
            total_seconds: stats.total.seconds(),
            median: stats.median.map(|d| d.to_string()),
            median_seconds: stats.median.map(|d| d.seconds()),
            longest: summary(stats.longest),
            last: summary(stats.last),
        },
        feeds: FeedLinks::new(base, &dir),
        incident_count: provider.incidents.len(),
    }
}
