//! Slack's status API: `api/v2.0.0/history` (a list of incidents) and `api/v2.0.0/current`
//! (what is open now, under `active_incidents`). Each note is an update, in HTML; times
//! carry the page's offset. `type` says how bad: an outage, an incident, a notice or a
//! maintenance; the services named are the components.

use std::path::Path;

use serde::Deserialize;

use super::{Imported, Parsed, close_with_last, id_text, identity, read_json};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Platform, Status, Timestamp, Update};

#[derive(Deserialize)]
#[serde(untagged)]
enum Payload {
    History(Vec<Incident>),
    Current { active_incidents: Vec<Incident> },
}

#[derive(Deserialize)]
struct Incident {
    id: serde_json::Value,
    #[serde(default)]
    title: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    status: Option<String>,
    url: Option<String>,
    date_created: Timestamp,
    date_updated: Option<Timestamp>,
    #[serde(default)]
    services: Option<Vec<String>>,
    #[serde(default)]
    notes: Option<Vec<Note>>,
}

#[derive(Deserialize)]
struct Note {
    #[serde(default)]
    body: Option<String>,
    date_created: Timestamp,
}

const EXPECTED: &str = "Slack's api/v2.0.0/history (a list of incidents) or api/v2.0.0/current";

pub fn parse(path: &Path, text: &str) -> Result<Parsed, Diagnostic> {
    let incidents = match read_json(path, text, "Slack", EXPECTED)? {
        Payload::History(incidents) => incidents,
        Payload::Current { active_incidents } => active_incidents,
    };
    let incidents = incidents
        .into_iter()
        .map(|incident| convert(path, incident))
        .collect::<Result<Vec<Imported>, Diagnostic>>()?;
    Ok(Parsed {
        page: Some("Slack".to_string()),
        page_url: None,
        incidents,
    })
}

/// How bad, as Slack's page says it: an outage (Slack unavailable for many) a major one; an
/// incident (some users affected) a partial one; a notice none.
fn impact(kind: Option<&str>) -> Impact {
    match kind {
        Some("outage") => Impact::Critical,
        Some("incident") => Impact::Major,
        Some("maintenance") => Impact::Maintenance,
        _ => Impact::None,
    }
}

fn convert(path: &Path, incident: Incident) -> Result<Imported, Diagnostic> {
    let Some(id) = id_text(&incident.id) else {
        return Err(Diagnostic::file(
            path,
            format!("an incident's id is `{}`, not a number", incident.id),
        )
        .with_hint(format!("expected {EXPECTED}")));
    };
    let done = matches!(
        incident.status.as_deref(),
        Some("resolved" | "completed" | "closed")
    );
    let maintenance = incident.kind.as_deref() == Some("maintenance");
    let mut updates: Vec<Update> = incident
        .notes
        .unwrap_or_default()
        .into_iter()
        .map(|note| Update {
            at: note.date_created,
            status: Status::Update,
            body: note.body.unwrap_or_default(),
        })
        .collect();
    updates.sort_by_key(|u| u.at);
    // A closed incident's last note is its resolution.
    let resolved = match done {
        true => close_with_last(&mut updates, maintenance).or(incident.date_updated),
        false => None,
    };
    Ok(Imported {
        source: identity(Platform::Slack.keyword(), &id),
        legacy: None,
        title: incident.title.unwrap_or_default(),
        started: incident.date_created,
        resolved,
        impact: Some(impact(incident.kind.as_deref())),
        components: incident.services.unwrap_or_default(),
        regions: Vec::new(),
        official_url: incident.url,
        extra: None,
        updates,
        approximate: false,
        continues: None,
    }
    .tidy())
}
