//! Better Stack status pages: `index.json`, a JSON:API document holding the page, its
//! resources (the components) and its recent status reports with their updates. A report
//! is an incident; its type and the states of the resources it touches say how bad.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::{Imported, Parsed, close_with_last, id_text, identity, read_json};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Platform, Status, Timestamp, Update};

#[derive(Deserialize)]
struct Document {
    data: Resource,
    #[serde(default)]
    included: Option<Vec<Resource>>,
}

/// Any JSON:API resource, read for the attributes this reader uses.
#[derive(Deserialize)]
struct Resource {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    attributes: Attributes,
    #[serde(default)]
    relationships: Option<Relationships>,
}

#[derive(Deserialize, Default)]
struct Attributes {
    company_name: Option<String>,
    public_name: Option<String>,
    title: Option<String>,
    report_type: Option<String>,
    starts_at: Option<Timestamp>,
    ends_at: Option<Timestamp>,
    aggregate_state: Option<String>,
    #[serde(default)]
    affected_resources: Option<Vec<Affected>>,
    message: Option<String>,
    published_at: Option<Timestamp>,
}

#[derive(Deserialize)]
struct Affected {
    status_page_resource_id: Option<serde_json::Value>,
    status: Option<String>,
}

#[derive(Deserialize)]
struct Relationships {
    status_updates: Option<Related>,
}

#[derive(Deserialize)]
struct Related {
    #[serde(default)]
    data: Option<Vec<Link>>,
}

#[derive(Deserialize)]
struct Link {
    id: String,
}

const EXPECTED: &str = "a Better Stack status page's index.json (JSON:API: `data` is the \
     `status_page`, `included` its resources and status reports)";

pub fn parse(path: &Path, text: &str) -> Result<Parsed, Diagnostic> {
    let document: Document = read_json(path, text, "Better Stack", EXPECTED)?;
    if document.data.kind != "status_page" {
        return Err(Diagnostic::file(
            path,
            format!("this JSON:API document is a `{}`", document.data.kind),
        )
        .with_hint(format!("expected {EXPECTED}")));
    }
    let included = document.included.unwrap_or_default();
    let of_kind = |kind: &'static str| included.iter().filter(move |r| r.kind == kind);
    let names: BTreeMap<&str, &str> = of_kind("status_page_resource")
        .filter_map(|r| Some((r.id.as_str(), r.attributes.public_name.as_deref()?)))
        .collect();
    let updates: BTreeMap<&str, &Attributes> = of_kind("status_update")
        .map(|r| (r.id.as_str(), &r.attributes))
        .collect();
    let incidents = of_kind("status_report")
        .map(|report| {
            convert(report, &names, &updates).ok_or_else(|| {
                let id = &report.id;
                Diagnostic::file(path, format!("the status report {id} has no start"))
                    .with_hint(format!("expected {EXPECTED}; each report with `starts_at`"))
            })
        })
        .collect::<Result<Vec<Imported>, Diagnostic>>()?;
    Ok(Parsed {
        page: document.data.attributes.company_name,
        page_url: None,
        incidents,
    })
}

/// How bad, from the states a report gives the resources it touches: downtime a major
/// outage, degraded performance, maintenance; a maintenance report is maintenance.
fn impact(report_type: Option<&str>, states: &[Option<String>]) -> Impact {
    if report_type == Some("maintenance") {
        return Impact::Maintenance;
    }
    let worst = |state: &str| states.iter().flatten().any(|s| s == state);
    if worst("downtime") {
        Impact::Critical
    } else if worst("degraded") {
        Impact::Minor
    } else if worst("maintenance") {
        Impact::Maintenance
    } else {
        Impact::None
    }
}

fn convert(
    report: &Resource,
    names: &BTreeMap<&str, &str>,
    updates: &BTreeMap<&str, &Attributes>,
) -> Option<Imported> {
    let attributes = &report.attributes;
    let started = attributes.starts_at?;
    let affected = attributes.affected_resources.as_deref().unwrap_or_default();
    let components = affected
        .iter()
        .filter_map(|a| {
            let id = id_text(a.status_page_resource_id.as_ref()?)?;
            names.get(id.as_str()).map(|name| name.to_string())
        })
        .collect();
    let states: Vec<Option<String>> = affected.iter().map(|a| a.status.clone()).collect();
    let impact = impact(attributes.report_type.as_deref(), &states);
    let done = attributes.aggregate_state.as_deref() == Some("resolved");
    let linked = report
        .relationships
        .as_ref()
        .and_then(|r| r.status_updates.as_ref())
        .and_then(|r| r.data.as_deref())
        .unwrap_or_default();
    let mut told: Vec<Update> = linked
        .iter()
        .filter_map(|link| updates.get(link.id.as_str()))
        .filter_map(|update| {
            Some(Update {
                at: update.published_at?,
                status: Status::Update,
                body: update.message.clone().unwrap_or_default(),
            })
        })
        .collect();
    told.sort_by_key(|u| u.at);
    // A resolved report ends when it says, else with its last update, which closes it.
    let resolved = match done {
        true => {
            let last = close_with_last(&mut told, impact == Impact::Maintenance);
            attributes.ends_at.or(last)
        }
        false => None,
    };
    Some(
        Imported {
            source: identity(Platform::BetterStack.keyword(), &report.id),
            legacy: None,
            title: attributes.title.clone().unwrap_or_default(),
            started,
            resolved,
            impact: Some(impact),
            components,
            regions: Vec::new(),
            official_url: None,
            extra: None,
            updates: told,
            approximate: false,
            continues: None,
        }
        .tidy(),
    )
}
