//! Atlassian Statuspage v2 JSON: `incidents.json`, `summary.json`,
//! `incidents/unresolved.json`, `scheduled-maintenances.json`. Recognised by shape: an
//! object holding `incidents` or `scheduled_maintenances`, or a single incident. An old
//! incident's timeline kept as one HTML list is split into its updates ([`timeline`]).
//!
//! incident.io answers the same paths, with differences a client meets: its incidents carry
//! no `components`, `shortlink` may be `null`, and an empty list may be `null`.

use std::path::Path;

use serde::Deserialize;
use url::Url;

use super::{Imported, Parsed, identity, read_json, timeline};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Platform, Source, Status, Timestamp, Update, WebUrl};

#[derive(Deserialize)]
struct Payload {
    page: Option<Page>,
    incidents: Option<Vec<Incident>>,
    scheduled_maintenances: Option<Vec<Incident>>,
    /// `incidents/<id>.json` answers `{"incident": {...}}`.
    incident: Option<Incident>,
}

#[derive(Deserialize)]
pub struct Page {
    pub name: String,
    /// The status page's address: an incident's page is `<url>/incidents/<id>`.
    pub url: Option<String>,
}

#[derive(Deserialize)]
struct Incident {
    id: String,
    name: Option<String>,
    status: Option<String>,
    impact: Option<String>,
    created_at: Timestamp,
    started_at: Option<Timestamp>,
    resolved_at: Option<Timestamp>,
    shortlink: Option<String>,
    components: Option<Vec<Named>>,
    incident_updates: Option<Vec<IncidentUpdate>>,
    scheduled_for: Option<Timestamp>,
    scheduled_until: Option<Timestamp>,
}

#[derive(Deserialize)]
struct IncidentUpdate {
    status: String,
    body: Option<String>,
    created_at: Timestamp,
    display_at: Option<Timestamp>,
    affected_components: Option<Vec<Named>>,
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

const EXPECTED: &str = "a Statuspage v2 answer holding `incidents` or `scheduled_maintenances` \
     (incidents.json, summary.json, incidents/unresolved.json, scheduled-maintenances.json)";

/// Reads a payload of `platform` (a Statuspage or incident.io); `page` is the status page
/// it came from, for the incidents' own pages when the payload does not name its page.
pub fn parse(
    path: &Path,
    text: &str,
    platform: Platform,
    page: Option<&Url>,
) -> Result<Parsed, Diagnostic> {
    // One parse: every field is optional, so any object reads, and the shape is judged after.
    let payload: Payload = read_json(path, text, "Statuspage", EXPECTED)?;
    if payload.incidents.is_none()
        && payload.scheduled_maintenances.is_none()
        && payload.incident.is_none()
    {
        return Err(Diagnostic::file(path, "this is not a Statuspage payload")
            .with_hint(format!("expected {EXPECTED}")));
    }
    let page_url = payload
        .page
        .as_ref()
        .and_then(|p| p.url.clone())
        .or_else(|| page.map(|url| url.as_str().to_string()));
    let convert =
        |incident, maintenance| convert(incident, maintenance, page_url.as_deref(), platform);
    let incidents = payload
        .incidents
        .into_iter()
        .flatten()
        .chain(payload.incident)
        .map(|incident| convert(incident, false))
        .chain(
            payload
                .scheduled_maintenances
                .into_iter()
                .flatten()
                .map(|incident| convert(incident, true)),
        )
        .collect();
    Ok(Parsed {
        page_url: page_url.as_deref().and_then(WebUrl::parse),
        page: payload.page.map(|p| p.name),
        incidents,
    })
}

/// Who the incident `code` of a status page on `platform` is, as the archive finds it.
pub fn source_of(platform: Platform, code: &str) -> Source {
    identity(platform.keyword(), code)
}

fn convert(
    incident: Incident,
    maintenance: bool,
    page_url: Option<&str>,
    platform: Platform,
) -> Imported {
    let impact = match incident.impact.as_deref().and_then(Impact::parse) {
        _ if maintenance => Impact::Maintenance,
        Some(impact) => impact,
        None => Impact::None,
    };
    let mut components: Vec<String> = incident
        .components
        .into_iter()
        .flatten()
        .map(|c| c.name)
        .collect();
    let updates_given = incident.incident_updates.unwrap_or_default();
    let done = incident.resolved_at.is_some()
        || matches!(
            incident.status.as_deref(),
            Some("resolved" | "postmortem" | "completed")
        );
    let old_timeline = match updates_given.as_slice() {
        [only] => only.body.as_deref().and_then(|body| {
            let near = incident.started_at.unwrap_or(incident.created_at);
            timeline::split(body, near, done && !maintenance)
        }),
        _ => None,
    };
    let updates: Vec<Update> = updates_given
        .into_iter()
        .map(|update| {
            components.extend(
                update
                    .affected_components
                    .into_iter()
                    .flatten()
                    .map(|c| c.name),
            );
            Update {
                at: update.display_at.unwrap_or(update.created_at),
                status: Status::parse(&update.status),
                body: update.body.unwrap_or_default(),
            }
        })
        .collect();
    // A timeline split from one list ends where its last entry is, not where the list was
    // filed.
    let last = old_timeline.as_ref().and_then(|u| u.last()).map(|u| u.at);
    let updates = old_timeline.unwrap_or(updates);
    let (started, resolved, extra) = if maintenance {
        // A maintenance runs in its window; the window itself is kept as data.
        let window = serde_json::json!({
            "scheduled_for": incident.scheduled_for.map(super::time),
            "scheduled_until": incident.scheduled_until.map(super::time),
        });
        let start = incident
            .scheduled_for
            .or(incident.started_at)
            .unwrap_or(incident.created_at);
        (
            start,
            incident.resolved_at.or(incident.scheduled_until),
            Some(window),
        )
    } else {
        (
            incident.started_at.unwrap_or(incident.created_at),
            incident.resolved_at.map(|end| end.max(last.unwrap_or(end))),
            None,
        )
    };
    // The incident's own page, which a feed links too; else the shortlink.
    let official_url = page_url
        .map(|page| format!("{}/incidents/{}", page.trim_end_matches('/'), incident.id))
        .filter(|url| WebUrl::parse(url).is_some())
        .or(incident.shortlink);
    Imported {
        source: source_of(platform, &incident.id),
        legacy: None,
        title: incident.name.unwrap_or_default(),
        started,
        resolved,
        impact: Some(impact),
        components,
        regions: Vec::new(),
        official_url,
        extra,
        updates,
        approximate: false,
        continues: None,
    }
    .tidy()
}
