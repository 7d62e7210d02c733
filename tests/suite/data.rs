//! The archive as data (`data/`): every incident once in its year's JSON Lines and CSV,
//! every update once in its year's JSON Lines, each line valid against the schema the site
//! publishes, and agreeing with the API; read back with real JSON and CSV parsers.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::common::{Site, select, stderr};

const BASE: &str = "https://example.com/archive/";

/// The sample archive of this repository, built under a sub-path into a temp folder.
fn sample() -> Site {
    let site = Site::new(&[]);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .args([
            "build",
            "--root",
            env!("CARGO_MANIFEST_DIR"),
            "--base-url",
            BASE,
        ])
        .arg("--output")
        .arg(site.path("public"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    site
}

fn validator(site: &Site, path: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&site.read(path)).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A gzipped file of the built site, as text.
fn gunzip(site: &Site, path: &str) -> String {
    use std::io::Read as _;
    let gzipped = std::fs::read(site.path("public").join(path)).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(gzipped.as_slice())
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    text
}

/// Every JSON value of a gzipped JSON Lines file, each checked against `schema`.
fn lines(site: &Site, path: &str, schema: &jsonschema::Validator) -> Vec<Value> {
    let text = gunzip(site, path);
    assert!(text.ends_with('\n'), "{path}: every line ends");
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            if let Err(e) = schema.validate(&value) {
                panic!("{path}: {e}: {line}");
            }
            value
        })
        .collect()
}

/// The rows of a CSV file of the built site, each by column name, with the header the
/// page documents.
fn csv_rows(site: &Site, path: &str) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(std::io::Cursor::new(site.read(path)));
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        header[..4],
        ["provider", "provider_name", "id", "slug"],
        "{path}"
    );
    reader
        .records()
        .map(|record| {
            let record = record.unwrap_or_else(|e| panic!("{path}: {e}"));
            header
                .iter()
                .cloned()
                .zip(record.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

#[test]
fn every_incident_and_update_is_in_its_years_files_once_as_the_api_has_it() {
    let site = sample();
    // The API's incidents, by URL: what the data must agree with.
    let api: BTreeMap<String, Value> = walkdir::WalkDir::new(site.path("public/api/v1"))
        .min_depth(2)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p.ends_with("stats.json")
                && !p.ends_with("components.json")
                && !p.to_string_lossy().contains("/days/")
        })
        .map(|p| {
            let json: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
            (json["url"].as_str().unwrap().to_string(), json)
        })
        .collect();
    assert!(api.len() > 10);

    // The page links each year's three files, under the sub-path.
    let page = site.html("data/index.html");
    let links: Vec<String> = select(&page, ".data-years a")
        .iter()
        .map(|a| a.value().attr("href").unwrap().to_string())
        .collect();
    let incidents_schema = validator(&site, "data/incident.schema.json");
    let updates_schema = validator(&site, "data/update.schema.json");
    let (mut seen, mut updates) = (BTreeSet::new(), 0);
    for link in &links {
        let path = link.strip_prefix("/archive/").unwrap();
        let year: i32 = path
            .rsplit('-')
            .next()
            .unwrap()
            .split('.')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        if path.ends_with(".jsonl.gz") && path.starts_with("data/incidents-") {
            let rows = lines(&site, path, &incidents_schema);
            let starts: Vec<&str> = rows
                .iter()
                .map(|r| r["started"].as_str().unwrap())
                .collect();
            assert!(
                starts.windows(2).all(|w| w[0] >= w[1]),
                "{path}: newest first"
            );
            // The CSV beside it holds the same incidents, field for field.
            let csv_path = path.replace(".jsonl.gz", ".csv");
            let records = csv_rows(&site, &csv_path);
            assert_eq!(records.len(), rows.len(), "{csv_path}");
            for (row, record) in rows.iter().zip(&records) {
                let cell = |name: &str| record[name].as_str();
                let url = row["url"].as_str().unwrap();
                let own = &api[url];
                // The line is the API file's first fields and its provider.
                for (key, value) in row.as_object().unwrap() {
                    assert_eq!(&own[key], value, "{path}: {url}: {key}");
                }
                assert_eq!(cell("url"), url);
                assert_eq!(cell("title"), row["title"].as_str().unwrap());
                assert_eq!(cell("impact"), row["impact"].as_str().unwrap());
                assert_eq!(cell("started"), row["started"].as_str().unwrap());
                assert_eq!(cell("resolved"), row["resolved"].as_str().unwrap_or(""));
                assert_eq!(
                    cell("downtime_minutes"),
                    row["downtime_minutes"].to_string()
                );
                let joined: Vec<&str> = row["components"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap())
                    .collect();
                assert_eq!(cell("components"), joined.join("; "));
                assert!(
                    row["started"]
                        .as_str()
                        .unwrap()
                        .starts_with(&year.to_string())
                );
                assert!(seen.insert(url.to_string()), "{url} is in one file only");
            }
        } else if path.starts_with("data/updates-") {
            for update in lines(&site, path, &updates_schema) {
                let own = &api[update["incident_url"].as_str().unwrap()];
                assert!(
                    own["updates"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|u| u["url"] == update["url"]
                            && u["html"] == update["html"]
                            && u["at"] == update["at"]),
                    "{path}: {update}"
                );
                updates += 1;
            }
        }
    }
    assert_eq!(
        seen,
        api.keys().cloned().collect::<BTreeSet<_>>(),
        "every incident"
    );
    let api_updates: usize = api
        .values()
        .map(|i| i["updates"].as_array().unwrap().len())
        .sum();
    assert_eq!(updates, api_updates, "every update");
}

#[test]
fn a_status_pages_text_cannot_become_a_spreadsheet_formula() {
    let site = Site::new(&[(
        "content/acme/evil.md",
        "---\ntitle: '=HYPERLINK(\"https://evil.example\", \"Click\")'\nstarted: 2024-03-05T10:00:00Z\nduration: 1h\nimpact: major\ncomponents: ['+API', 'Web, \"UI\"']\n---\n",
    )]);
    site.build(&[]);
    let records = csv_rows(&site, "data/incidents-2024.csv");
    let cell = |name: &str| records[0][name].clone();
    assert_eq!(
        cell("title"),
        "'=HYPERLINK(\"https://evil.example\", \"Click\")"
    );
    assert_eq!(cell("components"), "'+API; Web, \"UI\"");
    // The JSON keeps the text as it is: no program runs it.
    let line: Value =
        serde_json::from_str(gunzip(&site, "data/incidents-2024.jsonl.gz").trim()).unwrap();
    assert_eq!(
        line["title"],
        "=HYPERLINK(\"https://evil.example\", \"Click\")"
    );
}
