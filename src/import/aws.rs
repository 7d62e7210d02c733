//! The AWS Health Dashboard: its RSS feed (`rss/all.rss`), where each item is one post of an
//! event, and `public/currentevents`, the events open now (or just closed) with their log.
//!
//! A post names its service and region and its own time (`#directconnect-eu-central-1_1787025679`)
//! and says the event's state in its title (`Service disruption: …`, `[RESOLVED]`). The
//! posts of a service and region, in time order up to a `[RESOLVED]` one, are one event;
//! its id is the service, region and time of its first post, as `currentevents` names it.
//! Its components are the services it touched in its region, by their codes
//! (`signin (me-central-1)`), the rows of AWS's own dashboard, so a regional event counts
//! against that region only.
//! The feed holds only the latest posts, so an event whose first posts fell out of it
//! [continues](super::Imported::continues) the open event of its service and region.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{TimeZone, Utc};
use serde::Deserialize;

use super::{Imported, Parsed, feed, identity, read_json};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Platform, Status, Timestamp, Update};

/// One post of the feed.
struct Post {
    series: String,
    at: Timestamp,
    state: String,
    resolved: bool,
    summary: String,
    body: String,
    link: Option<String>,
}

/// Reads `rss/all.rss` (or one service's feed): its posts grouped into events.
pub fn parse_feed(path: &Path, text: &str) -> Result<Parsed, Diagnostic> {
    let mut posts = Vec::new();
    for item in feed::read(path, text)?.items {
        let (series, _) = item
            .id
            .rsplit_once('#')
            .and_then(|(_, post)| post.rsplit_once('_'))
            .filter(|(series, epoch)| !series.is_empty() && epoch.parse::<i64>().is_ok())
            .ok_or_else(|| {
                Diagnostic::file(
                    path,
                    format!(
                        "the item `{}` has the guid `{}`, which names no event",
                        item.title, item.id
                    ),
                )
                .with_hint("expected AWS's items, with a guid like `…#ec2-us-east-1_1787025679`")
            })?;
        let title = item.title.as_str();
        let (state, summary) = title.split_once(':').unwrap_or(("", title));
        let summary = summary.trim();
        let (resolved, summary) = match summary.strip_prefix("[RESOLVED]") {
            Some(rest) => (true, rest.trim()),
            None => (false, summary),
        };
        posts.push(Post {
            series: series.to_string(),
            at: item.published.with_timezone(&Utc),
            state: state.trim().to_string(),
            resolved,
            summary: summary.to_string(),
            body: item.html.clone(),
            link: item.link.clone(),
        });
    }
    posts.sort_by(|a, b| (&a.series, a.at).cmp(&(&b.series, b.at)));
    let mut incidents = Vec::new();
    let mut event: Vec<Post> = Vec::new();
    for post in posts {
        if event.last().is_some_and(|last| last.series != post.series) {
            incidents.extend(from_posts(std::mem::take(&mut event)));
        }
        let ends = post.resolved;
        event.push(post);
        if ends {
            incidents.extend(from_posts(std::mem::take(&mut event)));
        }
    }
    incidents.extend(from_posts(event));
    Ok(Parsed {
        page: Some("AWS".to_string()),
        page_url: None,
        incidents,
    })
}

/// The level of a post's state, on the scale of the events' statuses: a disruption or
/// impact 3, a degradation or performance issue 2, an informational message 1; none for a
/// state that says nothing of it (`Service is operating normally`).
fn level_of_state(state: &str) -> Option<i64> {
    let state = state.to_ascii_lowercase();
    let says = |words: &[&str]| words.iter().any(|w| state.contains(w));
    if says(&["disruption", "impact"]) {
        Some(3)
    } else if says(&["degradation", "performance"]) {
        Some(2)
    } else {
        says(&["informational"]).then_some(1)
    }
}

/// How bad a level says an event is: 3 a major outage, 2 degraded performance, below no
/// impact.
fn impact_of_level(level: i64) -> Impact {
    match level {
        3.. => Impact::Critical,
        2 => Impact::Minor,
        _ => Impact::None,
    }
}

/// The event a run of one series' posts tells of (none for no post). When no post says
/// how bad (only a closing one is left in the feed), neither does the event.
fn from_posts(posts: Vec<Post>) -> Option<Imported> {
    let first = posts.first()?.at;
    let last = posts.last()?;
    let series = last.series.clone();
    let (service, region) = split_series(&series);
    let resolved = last.resolved.then_some(last.at);
    let level = posts.iter().filter_map(|p| level_of_state(&p.state)).max();
    let impact = level.map(impact_of_level);
    let title = last.summary.clone();
    let official_url = last.link.clone();
    let updates = posts
        .into_iter()
        .map(|post| Update {
            at: post.at,
            status: if post.resolved {
                Status::Resolved
            } else {
                Status::Update
            },
            body: post.body,
        })
        .collect();
    Some(
        Imported {
            source: identity(Platform::Aws.keyword(), &event_id(&series, first)),
            legacy: None,
            title,
            started: first,
            resolved,
            impact,
            components: vec![in_region(service, region)],
            regions: region.map(str::to_string).into_iter().collect(),
            official_url,
            extra: None,
            updates,
            approximate: false,
            continues: Some(series),
        }
        .tidy(),
    )
}

/// An event's id: its series and the Unix time of its first post.
fn event_id(series: &str, first: Timestamp) -> String {
    format!("{series}_{}", first.timestamp())
}

/// A service in one region, by its code, as the dashboard lists its rows and the feed names
/// them: `ec2 (us-east-1)`. An event touches a service in its region only, so its uptime is
/// the region's.
fn in_region(service: &str, region: Option<&str>) -> String {
    match region {
        Some(region) => format!("{service} ({region})"),
        None => service.to_string(),
    }
}

/// `directconnect-eu-central-1` → (`directconnect`, `eu-central-1`); a global service has
/// no region.
fn split_series(series: &str) -> (&str, Option<&str>) {
    let parts: Vec<&str> = series.split('-').collect();
    let n = parts.len();
    let word = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase());
    let area = |p: &str| p.len() == 2 && word(p);
    let number = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    let region_parts = match parts.as_slice() {
        [.., a, b, direction, digits]
            if n >= 5
                && area(a)
                && matches!(*b, "gov" | "iso" | "isob" | "isoe" | "isof")
                && word(direction)
                && number(digits) =>
        {
            4
        }
        [.., a, direction, digits] if n >= 4 && area(a) && word(direction) && number(digits) => 3,
        _ => return (series, None),
    };
    let cut = parts[..n - region_parts]
        .iter()
        .map(|p| p.len() + 1)
        .sum::<usize>();
    (&series[..cut - 1], Some(&series[cut..]))
}

#[derive(Deserialize)]
struct Event {
    date: Epoch,
    arn: Option<String>,
    status: Option<Epoch>,
    service: String,
    summary: Option<String>,
    #[serde(default)]
    event_log: Option<Vec<Logged>>,
    #[serde(default)]
    impacted_services: Option<BTreeMap<String, Impacted>>,
    end_time: Option<Epoch>,
}

#[derive(Deserialize)]
struct Logged {
    #[serde(default)]
    message: Option<String>,
    status: Option<Epoch>,
    timestamp: Epoch,
}

#[derive(Deserialize)]
struct Impacted {
    max: Option<Epoch>,
}

/// A whole number AWS writes as a number or as a string of digits.
#[derive(Deserialize)]
#[serde(untagged)]
enum Epoch {
    Number(i64),
    Text(String),
}

impl Epoch {
    fn value(&self) -> Option<i64> {
        match self {
            Epoch::Number(n) => Some(*n),
            Epoch::Text(text) => text.trim().parse().ok(),
        }
    }

    fn time(&self) -> Option<Timestamp> {
        Utc.timestamp_opt(self.value()?, 0).single()
    }
}

const EXPECTED: &str = "AWS's public/currentevents: a list of events, each with `service`, \
     `date` and `event_log`";

/// Reads `public/currentevents`.
pub fn parse_events(path: &Path, text: &str) -> Result<Parsed, Diagnostic> {
    let events: Vec<Event> = read_json(path, text, "AWS", EXPECTED)?;
    let incidents = events
        .into_iter()
        .map(|event| {
            convert(event).ok_or_else(|| {
                Diagnostic::file(path, "an event has a time that is not a Unix time")
                    .with_hint(format!("expected {EXPECTED}"))
            })
        })
        .collect::<Result<Vec<Imported>, Diagnostic>>()?;
    Ok(Parsed {
        page: Some("AWS".to_string()),
        page_url: None,
        incidents,
    })
}

fn convert(event: Event) -> Option<Imported> {
    let started = event.date.time()?;
    let resolved = match &event.end_time {
        Some(end) => Some(end.time()?),
        None => None,
    };
    let log = event.event_log.unwrap_or_default();
    let impacted = event.impacted_services.unwrap_or_default();
    let levels = log
        .iter()
        .filter_map(|l| l.status.as_ref()?.value())
        .chain(impacted.values().filter_map(|i| i.max.as_ref()?.value()))
        .chain(event.status.as_ref().and_then(Epoch::value));
    let impact = impact_of_level(levels.max().unwrap_or(0));
    let mut updates = Vec::new();
    for logged in log {
        updates.push(Update {
            at: logged.timestamp.time()?,
            status: Status::Update,
            body: logged.message.unwrap_or_default(),
        });
    }
    let (service, region) = split_series(&event.service);
    let region = region.map(str::to_string).or_else(|| {
        // `arn:aws:health:us-west-2::event/…`
        let arn = event.arn.as_deref()?;
        arn.split(':')
            .nth(3)
            .filter(|r| !r.is_empty())
            .map(str::to_string)
    });
    // The services by their codes (`sts-us-west-2`), as the feed names them.
    let mut codes: Vec<&str> = impacted.keys().map(|key| split_series(key).0).collect();
    if codes.is_empty() {
        codes.push(service);
    }
    let components = codes
        .iter()
        .map(|code| in_region(code, region.as_deref()))
        .collect();
    let summary = event.summary.unwrap_or_default();
    let title = summary
        .trim()
        .trim_start_matches("[RESOLVED]")
        .trim()
        .to_string();
    Some(
        Imported {
            source: identity(Platform::Aws.keyword(), &event_id(&event.service, started)),
            legacy: None,
            title,
            started,
            resolved,
            impact: Some(impact),
            components,
            regions: region.into_iter().collect(),
            official_url: None,
            extra: None,
            updates,
            approximate: false,
            continues: Some(event.service),
        }
        .tidy(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_is_a_service_and_a_region() {
        assert_eq!(
            split_series("directconnect-eu-central-1"),
            ("directconnect", Some("eu-central-1"))
        );
        assert_eq!(
            split_series("ec2-us-gov-west-1"),
            ("ec2", Some("us-gov-west-1"))
        );
        assert_eq!(
            split_series("multipleservices-me-south-1"),
            ("multipleservices", Some("me-south-1"))
        );
        assert_eq!(split_series("route53"), ("route53", None));
        assert_eq!(split_series("eu-central-1"), ("eu-central-1", None));
    }

    #[test]
    fn states_say_how_bad() {
        let impact = |state| level_of_state(state).map(impact_of_level);
        assert_eq!(impact("Service disruption"), Some(Impact::Critical));
        assert_eq!(impact("Service impact"), Some(Impact::Critical));
        assert_eq!(impact("Performance issues"), Some(Impact::Minor));
        assert_eq!(impact("Informational message"), Some(Impact::None));
        assert_eq!(impact("Service is operating normally"), None);
    }
}
