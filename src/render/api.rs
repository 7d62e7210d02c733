//! The static JSON API under `api/v1/`: the archive as data, for scripts and dashboards.

use serde::Serialize;

use crate::config::BaseUrl;
use crate::render::views::{IncidentView, ProviderView, SummaryView, UpdateView};
use crate::routes;

#[derive(Serialize)]
struct ProviderEntry<'a> {
    slug: &'a str,
    name: &'a str,
    url: &'a str,
    api_url: String,
    website: Option<&'a str>,
    status_page: Option<&'a str>,
    incidents: usize,
    outages: usize,
    maintenance: usize,
    ongoing: usize,
    total_downtime_seconds: i64,
    median_duration_seconds: Option<i64>,
    last_outage: Option<&'a str>,
}

#[derive(Serialize)]
struct IncidentEntry<'a> {
    slug: String,
    title: &'a str,
    url: &'a str,
    api_url: String,
    impact: &'a str,
    started: &'a str,
    resolved: Option<&'a str>,
    ongoing: bool,
}

fn provider_entry<'a>(provider: &'a ProviderView, base: &BaseUrl) -> ProviderEntry<'a> {
    ProviderEntry {
        slug: &provider.reference.slug,
        name: &provider.reference.name,
        url: &provider.reference.url,
        api_url: base.url(&routes::api_provider(&provider.reference.slug)),
        website: provider.website.as_deref(),
        status_page: provider.status_page.as_deref(),
        incidents: provider.incident_count,
        outages: provider.stats.outages,
        maintenance: provider.stats.maintenance,
        ongoing: provider.stats.ongoing,
        total_downtime_seconds: provider.stats.all_time.downtime_seconds,
        median_duration_seconds: provider.stats.all_time.mttr_seconds,
        last_outage: provider.stats.last.as_ref().map(|s| s.started.iso.as_str()),
    }
}

fn incident_entry<'a>(summary: &'a SummaryView, slug: &str, base: &BaseUrl) -> IncidentEntry<'a> {
    IncidentEntry {
        slug: slug.to_string(),
        title: &summary.title,
        url: &summary.url,
        api_url: base.url(&routes::api_incident(&summary.provider.slug, slug)),
        impact: summary.impact.keyword,
        started: &summary.started.iso,
        resolved: summary.resolved.as_ref().map(|t| t.iso.as_str()),
        ongoing: summary.ongoing,
    }
}

/// JSON with `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026`: the same data, but
/// text from status pages can never form markup, even if a careless client pastes the JSON
/// into a page.
pub fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    let mut json = serde_json::to_vec(value).expect("API values always serialise");
    // These characters are never JSON syntax, so they can only occur inside strings.
    if json.iter().any(|b| matches!(b, b'<' | b'>' | b'&')) {
        let mut escaped = Vec::with_capacity(json.len() + 64);
        for byte in json {
            match byte {
                b'<' => escaped.extend_from_slice(b"\\u003c"),
                b'>' => escaped.extend_from_slice(b"\\u003e"),
                b'&' => escaped.extend_from_slice(b"\\u0026"),
                _ => escaped.push(byte),
            }
        }
        json = escaped;
    }
    json.push(b'\n');
    json
}

pub fn providers(providers: &[ProviderView], base: &BaseUrl) -> Vec<u8> {
    #[derive(Serialize)]
    struct Doc<'a> {
        providers: Vec<ProviderEntry<'a>>,
    }
    to_json(&Doc {
        providers: providers.iter().map(|p| provider_entry(p, base)).collect(),
    })
}

pub fn provider(provider: &ProviderView, incidents: &[&IncidentView], base: &BaseUrl) -> Vec<u8> {
    #[derive(Serialize)]
    struct Doc<'a> {
        #[serde(flatten)]
        provider: ProviderEntry<'a>,
        incidents: Vec<IncidentEntry<'a>>,
    }
    to_json(&Doc {
        provider: provider_entry(provider, base),
        incidents: incidents
            .iter()
            .map(|i| incident_entry(&i.summary, &i.slug, base))
            .collect(),
    })
}

pub fn incident<'a>(incident: &'a IncidentView, base: &BaseUrl) -> Vec<u8> {
    #[derive(Serialize)]
    struct Update<'a> {
        at: &'a str,
        status: &'a str,
        html: &'a str,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        #[serde(flatten)]
        entry: IncidentEntry<'a>,
        id: Option<&'a str>,
        provider: &'a str,
        provider_name: &'a str,
        impact_label: &'a str,
        level: Option<&'a str>,
        duration_seconds: Option<i64>,
        updated: &'a str,
        components: &'a [String],
        unnamed_components: u32,
        regions: &'a [String],
        official_url: Option<&'a str>,
        summary_html: &'a str,
        updates: Vec<Update<'a>>,
        extra: Option<&'a serde_json::Value>,
    }
    let update = |u: &'a UpdateView| Update {
        at: &u.time.iso,
        status: &u.status,
        html: &u.html,
    };
    let s = &incident.summary;
    to_json(&Doc {
        entry: incident_entry(s, &incident.slug, base),
        id: incident.id.as_deref(),
        provider: &s.provider.slug,
        provider_name: &s.provider.name,
        impact_label: s.impact.label,
        level: incident.level,
        duration_seconds: incident.duration_seconds,
        updated: &incident.updated.iso,
        components: &incident.components,
        unnamed_components: incident.unnamed_components,
        regions: &incident.regions,
        official_url: incident.official_url.as_deref(),
        summary_html: &incident.summary_html,
        updates: incident
            .timeline
            .iter()
            .chain(&incident.postmortem)
            .map(update)
            .collect(),
        extra: incident.extra.as_ref(),
    })
}
