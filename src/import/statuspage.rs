//! Atlassian Statuspage v2 JSON: `incidents.json`, `summary.json`,
//! `incidents/unresolved.json`, `scheduled-maintenances.json`. Recognised by shape: an
//! object holding `incidents` or `scheduled_maintenances`, or a single incident. An old
//! incident's timeline kept as one HTML list is split into its updates ([`timeline`]).

use std::path::Path;

use serde::Deserialize;

use super::{Imported, identity, timeline};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Source, Status, Timestamp, Update, WebUrl};

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
    #[serde(default)]
    name: String,
    status: Option<String>,
    impact: Option<String>,
    created_at: Timestamp,
    started_at: Option<Timestamp>,
    resolved_at: Option<Timestamp>,
    shortlink: Option<String>,
    #[serde(default)]
    components: Vec<Named>,
    #[serde(default)]
    incident_updates: Vec<IncidentUpdate>,
    scheduled_for: Option<Timestamp>,
    scheduled_until: Option<Timestamp>,
}

#[derive(Deserialize)]
struct IncidentUpdate {
    status: String,
    body: Option<String>,
    created_at: Timestamp,
    display_at: Option<Timestamp>,
    #[serde(default)]
    affected_components: Option<Vec<Named>>,
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

/// What a payload holds: its page's name and its incidents.
pub struct Parsed {
    pub page: Option<String>,
    pub incidents: Vec<Imported>,
}

const EXPECTED: &str = "a Statuspage v2 answer holding `incidents` or `scheduled_maintenances` \
     (incidents.json, summary.json, incidents/unresolved.json, scheduled-maintenances.json)";

pub fn parse(path: &Path, text: &str) -> Result<Parsed, Diagnostic> {
    // One parse: every field is optional, so any object reads, and the shape is judged after.
    let payload: Payload = serde_json::from_str(text).map_err(|e| {
        let diagnostic = Diagnostic::at(
            path,
            text,
            e.line(),
            e.column(),
            1,
            match e.classify() {
                serde_json::error::Category::Data => format!("unexpected Statuspage data: {e}"),
                _ => format!("invalid JSON: {e}"),
            },
        );
        diagnostic.with_hint(format!("expected {EXPECTED}"))
    })?;
    if payload.incidents.is_none()
        && payload.scheduled_maintenances.is_none()
        && payload.incident.is_none()
    {
        return Err(Diagnostic::file(path, "this is not a Statuspage payload")
            .with_hint(format!("expected {EXPECTED}")));
    }
    let page_url = payload.page.as_ref().and_then(|p| p.url.clone());
    let incidents = payload
        .incidents
        .into_iter()
        .flatten()
        .chain(payload.incident)
        .map(|incident| convert(incident, false, page_url.as_deref()))
        .chain(
            payload
                .scheduled_maintenances
                .into_iter()
                .flatten()
                .map(|incident| convert(incident, true, page_url.as_deref())),
        )
        .collect();
    Ok(Parsed {
        page: payload.page.map(|p| p.name),
        incidents,
    })
}

/// Who the Statuspage incident `code` is, as the archive finds it.
pub fn source_of(code: &str) -> Source {
    identity("statuspage", code)
}

fn convert(incident: Incident, maintenance: bool, page_url: Option<&str>) -> Imported {
    let impact = match incident.impact.as_deref().and_then(Impact::parse) {
        _ if maintenance => Impact::Maintenance,
        Some(impact) => impact,
        None => Impact::None,
    };
    let mut components: Vec<String> = incident.components.into_iter().map(|c| c.name).collect();
    let done = incident.resolved_at.is_some()
        || matches!(
            incident.status.as_deref(),
            Some("resolved" | "postmortem" | "completed")
        );
    let old_timeline = match incident.incident_updates.as_slice() {
        [only] => only.body.as_deref().and_then(|body| {
            let near = incident.started_at.unwrap_or(incident.created_at);
            timeline::split(body, near, done && !maintenance)
        }),
        _ => None,
    };
    let updates: Vec<Update> = incident
        .incident_updates
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
        source: source_of(&incident.id),
        legacy: None,
        title: incident.name,
        started,
        resolved,
        impact: Some(impact),
        components,
        official_url,
        extra,
        updates,
        approximate: false,
    }
    .tidy()
}
