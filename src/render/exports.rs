//! The archive as files to download: a year's incidents as JSON Lines and CSV, and its
//! updates as JSON Lines, for analysts and agents who want the whole record at once rather
//! than a file per incident. The JSON Lines are gzipped (a sixth of their size on a real
//! archive: the updates' text repeats what the API holds), the CSV is not, for spreadsheets.

use serde::Serialize;

use crate::config::BaseUrl;
use crate::render::api::{self, ListItem};
use crate::render::views::IncidentView;

/// An incident a line: what its API file begins with, and its provider.
#[derive(Serialize)]
struct IncidentRow<'a> {
    provider: &'a str,
    provider_name: &'a str,
    #[serde(flatten)]
    entry: ListItem<'a>,
}

/// An update a line, with the incident it belongs to and its permalink.
#[derive(Serialize)]
struct UpdateRow<'a> {
    provider: &'a str,
    incident: &'a str,
    incident_url: &'a str,
    at: &'a str,
    status: &'a str,
    html: &'a str,
    url: String,
}

/// JSON Lines of rows, gzipped: one JSON value a line, each ending in `\n`, compressed as
/// it is written (the same bytes for the same rows: no time or name in the header). At
/// zlib's fastest level: a year's updates are the largest files a build writes, and at
/// 10,000 incidents the default level costs a third of a second of CPU for 2 MB less.
fn lines<T: Serialize>(rows: impl Iterator<Item = T>) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::fast());
    for row in rows {
        out.write_all(&api::to_json(&row))
            .expect("writing to memory cannot fail");
    }
    out.finish().expect("writing to memory cannot fail")
}

/// `incidents-<year>.jsonl.gz`.
pub fn incidents_jsonl(incidents: &[&IncidentView], base: &BaseUrl) -> Vec<u8> {
    lines(incidents.iter().map(|incident| IncidentRow {
        provider: &incident.summary.provider.slug,
        provider_name: &incident.summary.provider.name,
        entry: api::list_item(incident, base),
    }))
}

/// `updates-<year>.jsonl.gz`: every update of the incidents, theirs in order, the
/// postmortem last.
pub fn updates_jsonl(incidents: &[&IncidentView]) -> Vec<u8> {
    lines(incidents.iter().flat_map(|incident| {
        let s = &incident.summary;
        (incident.timeline.iter().chain(&incident.postmortem)).map(move |u| UpdateRow {
            provider: &s.provider.slug,
            incident: &incident.slug,
            incident_url: &s.url,
            at: &u.time.iso,
            status: &u.status,
            html: u.html.as_str(),
            url: u.anchor.on(&s.url),
        })
    }))
}

/// The columns of `incidents-<year>.csv`.
pub const CSV_COLUMNS: [&str; 14] = [
    "provider",
    "provider_name",
    "id",
    "slug",
    "title",
    "impact",
    "started",
    "resolved",
    "ongoing",
    "duration_seconds",
    "downtime_minutes",
    "components",
    "regions",
    "url",
];

/// `incidents-<year>.csv` (RFC 4180: a header row, fields quoted where they must be,
/// lines ending in CRLF). Components and regions are joined by `; `.
pub fn incidents_csv(incidents: &[&IncidentView]) -> Vec<u8> {
    use Cell::{Ours, Theirs};
    let mut out = String::new();
    row(&mut out, &CSV_COLUMNS.map(|name| Ours(name.into())));
    for incident in incidents {
        let s = &incident.summary;
        let or_empty = |value: Option<String>| Ours(value.unwrap_or_default().into());
        row(
            &mut out,
            &[
                Ours(s.provider.slug.as_str().into()),
                Theirs(&s.provider.name),
                Theirs(incident.id.as_deref().unwrap_or_default()),
                Ours(incident.slug.as_str().into()),
                Theirs(&s.title),
                Ours(s.impact.keyword.into()),
                Ours(s.started.iso.as_str().into()),
                Ours(s.resolved.as_ref().map_or("", |t| t.iso.as_str()).into()),
                Ours(s.ongoing.to_string().into()),
                or_empty(incident.duration_seconds.map(|d| d.to_string())),
                Ours(api::minutes(s.downtime_seconds).to_string().into()),
                Theirs(&incident.components.join("; ")),
                Theirs(&incident.regions.join("; ")),
                Ours(s.url.as_str().into()),
            ],
        );
    }
    out.into_bytes()
}

/// A field of the CSV: written by the archive, or text a status page chose.
enum Cell<'a> {
    Ours(std::borrow::Cow<'a, str>),
    Theirs(&'a str),
}

fn row(out: &mut String, cells: &[Cell]) {
    for (n, cell) in cells.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        let (text, formula) = match cell {
            Cell::Ours(text) => (&**text, false),
            // A spreadsheet runs a cell that begins like a formula (CSV injection): text
            // from a status page that does gets a `'` first, which spreadsheets hide.
            Cell::Theirs(text) => (*text, text.starts_with(['=', '+', '-', '@', '\t', '\r'])),
        };
        let quote = text.contains([',', '"', '\n', '\r']);
        if quote {
            out.push('"');
        }
        if formula {
            out.push('\'');
        }
        out.push_str(&text.replace('"', "\"\""));
        if quote {
            out.push('"');
        }
    }
    out.push_str("\r\n");
}

/// The API's schema of an incident, which the rows' schemas are made from: one source for
/// the fields both carry.
const API_INCIDENT_SCHEMA: &str = include_str!("../../schemas/incident.schema.json");

/// The API's incident schema, parsed (it is the crate's own file: the data tests validate
/// every line against what is made of it).
fn api_schema() -> serde_json::Value {
    serde_json::from_str(API_INCIDENT_SCHEMA).unwrap_or_default()
}

/// A schema of rows: these `properties` (each a name and the schema of the value), all
/// required, no other field; with `defs`, the API's `$defs` and its list item's fields too.
fn row_schema(
    title: &str,
    defs: Option<&serde_json::Value>,
    properties: Vec<(&str, serde_json::Value)>,
) -> Vec<u8> {
    use serde_json::{Map, Value, json};
    let required: Vec<&str> = properties.iter().map(|(name, _)| *name).collect();
    let properties: Map<String, Value> = (properties.into_iter())
        .map(|(name, value)| (name.to_string(), value))
        .collect();
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "type": "object",
        "properties": properties,
        "required": required,
        "unevaluatedProperties": false,
    });
    if let Some(defs) = defs {
        schema["$ref"] = json!("#/$defs/item");
        schema["$defs"] = defs.clone();
    }
    api::to_json(&schema)
}

/// `data/incident.schema.json`: a line of `incidents-<year>.jsonl.gz`.
pub fn incident_schema() -> Vec<u8> {
    let api = api_schema();
    let property = |name: &str| api["properties"][name].clone();
    row_schema(
        "data/incidents-<year>.jsonl.gz: one incident a line",
        Some(&api["$defs"]),
        vec![
            ("provider", property("provider")),
            ("provider_name", property("provider_name")),
        ],
    )
}

/// `data/update.schema.json`: a line of `updates-<year>.jsonl.gz`.
pub fn update_schema() -> Vec<u8> {
    let api = api_schema();
    let update = &api["properties"]["updates"]["items"]["properties"];
    let mut properties = vec![
        ("provider", api["properties"]["provider"].clone()),
        (
            "incident",
            api["$defs"]["item"]["properties"]["slug"].clone(),
        ),
        (
            "incident_url",
            serde_json::json!({"type": "string", "format": "uri"}),
        ),
    ];
    for name in ["at", "status", "html", "url"] {
        properties.push((name, update[name].clone()));
    }
    row_schema(
        "data/updates-<year>.jsonl.gz: one update a line",
        None,
        properties,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(cells: &[Cell]) -> String {
        let mut out = String::new();
        row(&mut out, cells);
        out
    }

    #[test]
    fn fields_are_quoted_where_they_must_be_and_formulas_never_run() {
        assert_eq!(
            csv(&[
                Cell::Ours("a".into()),
                Cell::Theirs("say \"hi\", twice"),
                Cell::Theirs("line\nbreak")
            ]),
            "a,\"say \"\"hi\"\", twice\",\"line\nbreak\"\r\n"
        );
        assert_eq!(
            csv(&[Cell::Theirs("=HYPERLINK(\"x\")"), Cell::Theirs("-1")]),
            "\"'=HYPERLINK(\"\"x\"\")\",'-1\r\n"
        );
        // The archive's own values are never changed: a negative number stays one.
        assert_eq!(csv(&[Cell::Ours("-1".into())]), "-1\r\n");
    }
}
