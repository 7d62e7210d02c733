//! Google Cloud Service Health: `incidents.json`, the whole history in one answer, newest
//! first. An incident's products are its components (by their current title), its
//! locations its regions, `status_impact` and `severity` its impact; its latest update that
//! is an incident report is its postmortem.

use std::path::Path;

use serde::Deserialize;
use url::Url;

use super::{Imported, Parsed, identity, read_json, under};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Platform, Status, Timestamp, Update};

/// Where Google's incidents live when the payload came from a file.
const SERVICE_HEALTH: &str = "https://status.cloud.google.com/";

#[derive(Deserialize)]
struct Incident {
    id: String,
    begin: Timestamp,
    end: Option<Timestamp>,
    #[serde(default)]
    external_desc: Option<String>,
    #[serde(default)]
    service_name: Option<String>,
    #[serde(default)]
    updates: Option<Vec<IncidentUpdate>>,
    status_impact: Option<String>,
    severity: Option<String>,
    #[serde(default)]
    affected_products: Option<Vec<Product>>,
    #[serde(default)]
    currently_affected_locations: Option<Vec<Location>>,
    #[serde(default)]
    previously_affected_locations: Option<Vec<Location>>,
    uri: Option<String>,
}

#[derive(Deserialize)]
struct IncidentUpdate {
    created: Timestamp,
    when: Option<Timestamp>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct Product {
    title: Option<String>,
    current_title: Option<String>,
}

#[derive(Deserialize)]
struct Location {
    id: Option<String>,
    title: Option<String>,
}

const EXPECTED: &str = "Google Cloud's incidents.json: a list of incidents, each with \
     `id`, `begin` and `updates`";

/// Reads `incidents.json`; `page` is where it came from (else Google's own address), for
/// the incidents' pages.
pub fn parse(path: &Path, text: &str, page: Option<&Url>) -> Result<Parsed, Diagnostic> {
    let incidents: Vec<Incident> = read_json(path, text, "Google Cloud", EXPECTED)?;
    // An incident's `uri` is relative to the page: Google's own at its host's root.
    let own = Url::parse(SERVICE_HEALTH).ok();
    let base = match page {
        Some(page) if page.host_str() != own.as_ref().and_then(Url::host_str) => {
            Some(under(page, ""))
        }
        _ => own,
    };
    Ok(Parsed {
        page: Some("Google Cloud".to_string()),
        page_url: None,
        incidents: incidents
            .into_iter()
            .map(|incident| convert(incident, base.as_ref()))
            .collect(),
    })
}

/// How bad: `SERVICE_OUTAGE` a major outage, `SERVICE_DISRUPTION` a partial one (degraded
/// performance when its severity is low), `SERVICE_INFORMATION` no impact.
fn impact(status_impact: Option<&str>, severity: Option<&str>) -> Impact {
    match (status_impact, severity) {
        (Some("SERVICE_OUTAGE"), _) => Impact::Critical,
        (Some("SERVICE_DISRUPTION"), Some("low")) => Impact::Minor,
        (Some("SERVICE_DISRUPTION"), _) => Impact::Major,
        _ => Impact::None,
    }
}

/// Whether an update's text is an incident report (`# Incident Report`, `## \# Mini
/// Incident Report`…): its first line, markup aside, ends so.
fn is_report(text: &str) -> bool {
    let first = text.lines().next().unwrap_or_default();
    let words: String = first
        .chars()
        .filter(|c| !matches!(c, '#' | '\\' | '*'))
        .collect();
    words
        .trim()
        .to_ascii_lowercase()
        .ends_with("incident report")
}

fn convert(incident: Incident, base: Option<&Url>) -> Imported {
    let end = incident.end;
    let mut updates: Vec<Update> = incident
        .updates
        .unwrap_or_default()
        .into_iter()
        .map(|update| Update {
            at: update.when.unwrap_or(update.created),
            status: Status::Update,
            body: update.text.unwrap_or_default(),
        })
        .collect();
    updates.sort_by_key(|u| u.at);
    // The first update at or after the end that is no report tells of the resolution.
    if let Some(end) = end
        && let Some(resolution) = updates
            .iter_mut()
            .find(|u| u.at >= end && !is_report(&u.body))
    {
        resolution.status = Status::Resolved;
    }
    if let Some(report) = updates.iter_mut().rev().find(|u| is_report(&u.body)) {
        report.status = Status::Postmortem;
    }
    let regions = incident
        .previously_affected_locations
        .into_iter()
        .chain(incident.currently_affected_locations)
        .flatten()
        .filter_map(|location| location.id.or(location.title))
        .collect();
    let components = incident
        .affected_products
        .into_iter()
        .flatten()
        .filter_map(|product| product.current_title.or(product.title))
        .collect();
    let official_url = incident
        .uri
        .as_deref()
        .and_then(|uri| base?.join(uri).ok())
        // Never to another site, whatever the `uri` says.
        .filter(|url| url.host_str() == base.and_then(Url::host_str))
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .map(String::from);
    let title = incident
        .external_desc
        .filter(|d| !d.trim().is_empty())
        .or(incident.service_name)
        .unwrap_or_default();
    Imported {
        source: identity(Platform::GoogleCloud.keyword(), &incident.id),
        legacy: None,
        title,
        started: incident.begin,
        resolved: end,
        impact: Some(impact(
            incident.status_impact.as_deref(),
            incident.severity.as_deref(),
        )),
        components,
        regions,
        official_url,
        extra: None,
        updates,
        approximate: false,
        continues: None,
    }
    .tidy()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_told_by_their_first_line() {
        assert!(is_report("## \\# Incident Report\n## \\#\\# Summary"));
        assert!(is_report("# Mini Incident Report\nx"));
        assert!(is_report("## Preliminary Incident Report"));
        assert!(!is_report("**Summary**\nAn incident report will follow."));
    }

    #[test]
    fn impact_follows_status_impact_then_severity() {
        assert_eq!(
            impact(Some("SERVICE_OUTAGE"), Some("low")),
            Impact::Critical
        );
        assert_eq!(
            impact(Some("SERVICE_DISRUPTION"), Some("medium")),
            Impact::Major
        );
        assert_eq!(
            impact(Some("SERVICE_DISRUPTION"), Some("low")),
            Impact::Minor
        );
        assert_eq!(
            impact(Some("SERVICE_INFORMATION"), Some("high")),
            Impact::None
        );
        assert_eq!(impact(None, None), Impact::None);
    }
}
