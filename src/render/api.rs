//! The static JSON API under `api/v1/`: the archive as data, for scripts and dashboards.

use serde::Serialize;

use crate::config::BaseUrl;
use crate::numbers;
use crate::render::views::{IncidentView, PeriodView, ProviderView, StatsView, UpdateView};
use crate::routes;

/// A provider as `providers.json` lists it and its own file begins. A number is `*_count`,
/// a list is plural.
#[derive(Serialize)]
struct ProviderEntry<'a> {
    slug: &'a str,
    name: &'a str,
    url: &'a str,
    api_url: String,
    website: Option<&'a str>,
    status_page: Option<&'a str>,
    incident_count: usize,
    outage_count: usize,
    maintenance_count: usize,
    ongoing_count: usize,
    stale_count: usize,
    covered_from: Option<&'a str>,
    covered_to: Option<&'a str>,
    total_downtime_seconds: i64,
    median_duration_seconds: Option<i64>,
    last_outage: Option<&'a str>,
}

/// An incident in a list (a provider's file, a day's): everything a consumer needs without
/// fetching its file. The incident's own file begins with the same fields; a list of several
/// providers adds `provider` and `provider_name` beside it (`#[serde(flatten)]`).
#[derive(Serialize)]
pub struct ListItem<'a> {
    slug: &'a str,
    id: Option<&'a str>,
    title: &'a str,
    impact: &'a str,
    impact_label: &'a str,
    started: &'a str,
    resolved: Option<&'a str>,
    ongoing: bool,
    stale: bool,
    duration_seconds: Option<i64>,
    downtime_minutes: i64,
    components: &'a [String],
    regions: &'a [String],
    url: &'a str,
    api_url: String,
}

/// Seconds as whole minutes, rounded to the nearest (half a minute up).
pub fn minutes(seconds: i64) -> i64 {
    seconds.saturating_add(30).div_euclid(60)
}

fn provider_entry<'a>(provider: &'a ProviderView, base: &BaseUrl) -> ProviderEntry<'a> {
    ProviderEntry {
        slug: &provider.reference.slug,
        name: &provider.reference.name,
        url: &provider.reference.url,
        api_url: base.url(&routes::api_provider(&provider.reference.slug)),
        website: provider.website.as_deref(),
        status_page: provider.status_page.as_deref(),
        incident_count: provider.incident_count,
        outage_count: provider.stats.outages,
        maintenance_count: provider.stats.maintenance,
        ongoing_count: provider.stats.ongoing,
        stale_count: provider.stats.stale,
        covered_from: provider.stats.covered_from.as_ref().map(|t| t.iso.as_str()),
        covered_to: provider.stats.covered_to.as_ref().map(|t| t.iso.as_str()),
        total_downtime_seconds: provider.stats.all_time.downtime_seconds,
        median_duration_seconds: provider.stats.all_time.mttr_seconds,
        last_outage: provider.stats.last.as_ref().map(|s| s.started.iso.as_str()),
    }
}

pub fn list_item<'a>(incident: &'a IncidentView, base: &BaseUrl) -> ListItem<'a> {
    let s = &incident.summary;
    ListItem {
        slug: &incident.slug,
        id: incident.id.as_deref(),
        title: &s.title,
        impact: s.impact.keyword,
        impact_label: s.impact.label,
        started: &s.started.iso,
        resolved: s.resolved.as_ref().map(|t| t.iso.as_str()),
        ongoing: s.ongoing,
        stale: s.stale,
        duration_seconds: incident.duration_seconds,
        downtime_minutes: minutes(s.downtime_seconds),
        components: &incident.components,
        regions: &incident.regions,
        url: &s.url,
        api_url: base.url(&routes::api_incident(&s.provider.slug, &incident.slug)),
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

/// `api/v1/providers.json`: every provider, and the archive's latest update (how far
/// its data runs).
pub fn providers(providers: &[ProviderView], through: Option<&str>, base: &BaseUrl) -> Vec<u8> {
    #[derive(Serialize)]
    struct Doc<'a> {
        through: Option<&'a str>,
        providers: Vec<ProviderEntry<'a>>,
    }
    to_json(&Doc {
        through,
        providers: providers.iter().map(|p| provider_entry(p, base)).collect(),
    })
}

pub fn provider(provider: &ProviderView, incidents: &[&IncidentView], base: &BaseUrl) -> Vec<u8> {
    #[derive(Serialize)]
    struct Doc<'a> {
        #[serde(flatten)]
        provider: ProviderEntry<'a>,
        incidents: Vec<ListItem<'a>>,
    }
    to_json(&Doc {
        provider: provider_entry(provider, base),
        incidents: incidents.iter().map(|i| list_item(i, base)).collect(),
    })
}

pub fn incident<'a>(incident: &'a IncidentView, base: &BaseUrl) -> Vec<u8> {
    #[derive(Serialize)]
    struct Update<'a> {
        at: &'a str,
        status: &'a str,
        html: &'a str,
        /// Its place on the incident's page.
        url: String,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        #[serde(flatten)]
        entry: ListItem<'a>,
        provider: &'a str,
        provider_name: &'a str,
        level: Option<&'a str>,
        updated: &'a str,
        unnamed_components: u32,
        official_url: Option<&'a str>,
        summary_html: &'a str,
        updates: Vec<Update<'a>>,
        extra: Option<&'a serde_json::Value>,
    }
    let update = |u: &'a UpdateView| Update {
        at: &u.time.iso,
        status: &u.status,
        html: u.html.as_str(),
        url: u.anchor.on(&incident.summary.url),
    };
    let s = &incident.summary;
    to_json(&Doc {
        entry: list_item(incident, base),
        provider: &s.provider.slug,
        provider_name: &s.provider.name,
        level: incident.level,
        updated: &incident.updated.iso,
        unnamed_components: incident.unnamed_components,
        official_url: incident.official_url.as_deref(),
        summary_html: incident.summary_html.as_str(),
        updates: incident
            .timeline
            .iter()
            .chain(&incident.postmortem)
            .map(update)
            .collect(),
        extra: incident.extra.as_ref(),
    })
}

/// The downtime rule, as `stats.json` states it for its reader.
pub const RULE: &str = "Downtime counts a major outage (critical) in full and a partial outage (major) at 30 %; degraded performance, no impact and maintenance add none. Overlapping incidents of a provider count once, the worst impact winning each minute; an ongoing incident counts up to its latest update. Uptime is 1 - downtime / the length of the period, rounded down to two decimals. Periods are UTC years and months, and end at `through`. Incidents count in the period they started in; maintenance is counted apart.";

#[derive(Serialize)]
struct ImpactNumbers {
    incident_count: usize,
    duration_seconds: i64,
}

#[derive(Serialize)]
struct PeriodNumbers<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    year: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    month: Option<String>,
    from: &'a str,
    to: &'a str,
    incident_count: usize,
    outage_count: usize,
    maintenance_count: usize,
    by_impact: std::collections::BTreeMap<&'static str, ImpactNumbers>,
    downtime_seconds: i64,
    downtime_minutes: i64,
    uptime_percent: Option<f64>,
    any_uptime_percent: Option<f64>,
    covered_seconds: i64,
    mttr_seconds: Option<i64>,
    after_the_fact_count: usize,
}

fn period_numbers(period: &PeriodView) -> PeriodNumbers<'_> {
    PeriodNumbers {
        year: None,
        month: None,
        from: &period.from,
        to: &period.to,
        incident_count: period.incidents,
        outage_count: period.outages,
        maintenance_count: period.maintenance,
        by_impact: period
            .by_impact
            .iter()
            .map(|t| {
                (
                    t.keyword,
                    ImpactNumbers {
                        incident_count: t.count,
                        duration_seconds: t.duration_seconds,
                    },
                )
            })
            .collect(),
        downtime_seconds: period.downtime_seconds,
        downtime_minutes: minutes(period.downtime_seconds),
        uptime_percent: period.uptime_percent,
        any_uptime_percent: period.any_uptime_percent,
        covered_seconds: period.covered_seconds,
        mttr_seconds: period.mttr_seconds,
        after_the_fact_count: period.after_the_fact,
    }
}

/// The numbers of each year, newest first.
fn year_numbers(years: &[PeriodView]) -> Vec<PeriodNumbers<'_>> {
    years
        .iter()
        .map(|period| PeriodNumbers {
            year: period.label.parse().ok(),
            ..period_numbers(period)
        })
        .collect()
}

/// How the communication numbers are counted, as `stats.json` states it.
pub const TELLING_RULE: &str = "Of the incidents other than maintenance. first_update: from the start to the first update, of those whose record starts before it; start_is_first_update_count counts those whose record starts at the first update, for which the wait is not recorded. update_gap: each incident's median time between consecutive updates up to its resolution, of those with two or more. Incidents posted after the fact (resolved the instant they started) are in neither. Each bin counts from from_seconds (included) to to_seconds (excluded; null: no end).";

#[derive(Serialize)]
struct BinNumbers {
    from_seconds: i64,
    to_seconds: Option<i64>,
    count: usize,
}

#[derive(Serialize)]
struct DistributionNumbers {
    count: usize,
    median_seconds: Option<i64>,
    bins: Vec<BinNumbers>,
}

impl DistributionNumbers {
    fn of(d: &numbers::Distribution) -> DistributionNumbers {
        let edges = numbers::BIN_EDGES;
        let ends = edges
            .iter()
            .skip(1)
            .map(|e| Some(e.seconds()))
            .chain([None]);
        DistributionNumbers {
            count: d.count(),
            median_seconds: d.median.map(|m| m.seconds()),
            bins: (edges.iter().zip(ends).zip(d.bins))
                .map(|((from, to_seconds), count)| BinNumbers {
                    from_seconds: from.seconds(),
                    to_seconds,
                    count,
                })
                .collect(),
        }
    }
}

/// How a provider told of its outages, for `stats.json`.
#[derive(Serialize)]
struct TellingNumbers {
    rule: &'static str,
    outage_count: usize,
    first_update: DistributionNumbers,
    start_is_first_update_count: usize,
    update_gap: DistributionNumbers,
    after_the_fact_count: usize,
    postmortem_count: usize,
}

/// `api/v1/<provider>/stats.json`: its numbers over all time, the last 12
/// months, each year (newest first) and each month (oldest first), as `(year, month,
/// period)`, and how it told of its outages.
pub fn stats(
    provider: &ProviderView,
    months: &[((i32, u32), PeriodView)],
    through: Option<&str>,
    told: &numbers::Communication,
) -> Vec<u8> {
    #[derive(Serialize)]
    struct Doc<'a> {
        provider: &'a str,
        name: &'a str,
        url: &'a str,
        through: Option<&'a str>,
        rule: &'static str,
        all_time: PeriodNumbers<'a>,
        last_12_months: PeriodNumbers<'a>,
        years: Vec<PeriodNumbers<'a>>,
        months: Vec<PeriodNumbers<'a>>,
        communication: TellingNumbers,
    }
    let stats = &provider.stats;
    to_json(&Doc {
        provider: &provider.reference.slug,
        name: &provider.reference.name,
        url: &provider.reference.url,
        through,
        rule: RULE,
        all_time: period_numbers(&stats.all_time),
        last_12_months: period_numbers(&stats.last_12_months),
        years: year_numbers(&stats.years),
        months: months
            .iter()
            .map(|((year, month), period)| PeriodNumbers {
                month: Some(format!("{year:04}-{month:02}")),
                ..period_numbers(period)
            })
            .collect(),
        communication: TellingNumbers {
            rule: TELLING_RULE,
            outage_count: told.outages,
            first_update: DistributionNumbers::of(&told.first_update),
            start_is_first_update_count: told.start_is_first_update,
            update_gap: DistributionNumbers::of(&told.update_gap),
            after_the_fact_count: told.after_the_fact,
            postmortem_count: told.postmortems,
        },
    })
}

/// A component as `components.json` lists it.
pub struct ComponentEntry<'a> {
    pub slug: &'a str,
    pub name: &'a str,
    pub url: String,
    pub incident_count: usize,
    pub last_started: &'a str,
    pub stats: StatsView,
}

/// `api/v1/<provider>/components.json`: the provider's components, by slug.
pub fn components(provider: &ProviderView, components: &[ComponentEntry]) -> Vec<u8> {
    #[derive(Serialize)]
    struct Entry<'a> {
        slug: &'a str,
        name: &'a str,
        url: &'a str,
        incident_count: usize,
        last_started: &'a str,
        last_12_months: PeriodNumbers<'a>,
        years: Vec<PeriodNumbers<'a>>,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        provider: &'a str,
        name: &'a str,
        components: Vec<Entry<'a>>,
    }
    to_json(&Doc {
        provider: &provider.reference.slug,
        name: &provider.reference.name,
        components: components
            .iter()
            .map(|c| Entry {
                slug: c.slug,
                name: c.name,
                url: &c.url,
                incident_count: c.incident_count,
                last_started: c.last_started,
                last_12_months: period_numbers(&c.stats.last_12_months),
                years: year_numbers(&c.stats.years),
            })
            .collect(),
    })
}

/// `api/v1/days/YYYY-MM-DD.json`: every incident active on one UTC day, by start time.
pub fn day(
    date: &str,
    url: &str,
    provider_count: usize,
    incidents: &[&IncidentView],
    base: &BaseUrl,
) -> Vec<u8> {
    #[derive(Serialize)]
    struct Item<'a> {
        #[serde(flatten)]
        entry: ListItem<'a>,
        provider: &'a str,
        provider_name: &'a str,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        date: &'a str,
        url: &'a str,
        incident_count: usize,
        provider_count: usize,
        incidents: Vec<Item<'a>>,
    }
    to_json(&Doc {
        date,
        url,
        incident_count: incidents.len(),
        provider_count,
        incidents: incidents
            .iter()
            .map(|i| Item {
                entry: list_item(i, base),
                provider: &i.summary.provider.slug,
                provider_name: &i.summary.provider.name,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::minutes;

    #[test]
    fn api_minutes_round_to_the_nearest() {
        assert_eq!(minutes(0), 0);
        assert_eq!(minutes(29), 0);
        assert_eq!(minutes(30), 1);
        assert_eq!(minutes(89), 1);
        assert_eq!(minutes(90), 2);
        assert_eq!(minutes(1800), 30);
        assert_eq!(minutes(i64::MAX), i64::MAX / 60);
    }
}

/// One endpoint of the API, as its index lists it.
#[derive(Serialize)]
pub struct Endpoint {
    /// Its path under the site, each varying part in braces: `api/v1/{provider}.json`.
    pub path: &'static str,
    /// What it holds.
    pub what: &'static str,
    /// One file of it in this archive, if the archive has one.
    pub example: Option<String>,
}

/// The files an endpoint's example is taken from: those of the first provider, its newest
/// incident and the archive's latest day, when there are any.
pub struct Examples<'a> {
    pub provider: Option<&'a str>,
    pub incident: Option<(&'a str, &'a str)>,
    pub day: Option<chrono::NaiveDate>,
}

/// Every endpoint of the API, this index first.
pub fn endpoints(base: &BaseUrl, examples: &Examples) -> Vec<Endpoint> {
    let url = |path: Option<String>| path.map(|path| base.url(&path));
    let provider = |path: fn(&str) -> String| url(examples.provider.map(path));
    // This index and the providers' list: always there.
    let always = |path: &str| Some(base.url(path));
    vec![
        Endpoint {
            path: routes::API_INDEX,
            what: "This list of the API's files, with an example of each.",
            example: always(routes::API_INDEX),
        },
        Endpoint {
            path: routes::API_PROVIDERS,
            what: "Every provider: its name, links, counts of incidents, outages, maintenance and ongoing incidents, the days its records cover, its downtime and median time to resolve; and through, the archive's latest update.",
            example: always(routes::API_PROVIDERS),
        },
        Endpoint {
            path: "api/v1/{provider}.json",
            what: "One provider, as the list has it, and every incident of it, newest first: title, impact, times, duration, downtime, components, regions and links.",
            example: provider(routes::api_provider),
        },
        Endpoint {
            path: "api/v1/{provider}/{incident}.json",
            what: "One incident: the fields of a list's, then its provider, level, official page, summary and every update (time, status, HTML and its permalink on the page).",
            example: url(examples
                .incident
                .map(|(p, slug)| routes::api_incident(p, slug))),
        },
        Endpoint {
            path: "api/v1/{provider}/stats.json",
            what: "A provider's numbers for all time, the last 12 months, each year and month: incidents by impact, downtime, uptime and time to resolve, with the rule they are counted by.",
            example: provider(routes::api_stats),
        },
        Endpoint {
            path: "api/v1/{provider}/components.json",
            what: "The components a provider's incidents name, each with its page and its count of incidents.",
            example: provider(routes::api_components),
        },
        Endpoint {
            path: "api/v1/days/{date}.json",
            what: "Every incident of every provider active on one UTC day (the date as 2024-03-05), as a list has them; a day without incidents has no file.",
            example: url(examples.day.map(routes::api_day)),
        },
    ]
}

/// `api/v1/index.json`: the endpoints.
pub fn index(base: &BaseUrl, endpoints: &[Endpoint]) -> Vec<u8> {
    #[derive(Serialize)]
    struct Doc<'a> {
        version: &'static str,
        /// Where the archive is.
        url: &'a str,
        endpoints: &'a [Endpoint],
    }
    to_json(&Doc {
        version: "v1",
        url: &base.url(""),
        endpoints,
    })
}
