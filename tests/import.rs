//! Importing status pages, and the `new` and `init` scaffolds, end to end: the files they
//! write build at once, and the pages show everything the payload held.

mod common;

use std::path::Path;

use common::{Site, select, stderr, text, tree};

/// Real Statuspage answers (githubstatus.com, via outages/github-outages, MIT): see its README.
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/statuspage");
const ATOM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/history.atom");

fn payload(name: &str) -> String {
    format!("{DATA}/{name}")
}

fn import(site: &Site, args: &[&str]) -> String {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    let output = site.run(&all);
    assert!(
        output.status.success(),
        "import failed:\n{}",
        stderr(&output)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Every page under `dir` of the built site, as text.
fn page_text(site: &Site, path: &str) -> String {
    text(&select(&site.html(path), "main")[0])
}

#[test]
fn every_payload_imports_with_every_update_component_and_time() {
    let site = Site::new(&[]);
    for name in [
        "github-summary-critical-incident.json",
        "github-summary-two-open-incidents.json",
        "github-summary-scheduled-maintenance.json",
    ] {
        let out = import(&site, &["statuspage", &payload(name)]);
        assert!(
            out.contains("into content/github/"),
            "the provider comes from the page's name: {out}"
        );
    }
    site.build(&[]);
    for name in std::fs::read_dir(DATA).unwrap().map(|e| e.unwrap().path()) {
        if name.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&name).unwrap()).unwrap();
        let incidents = json["incidents"]
            .as_array()
            .unwrap()
            .iter()
            .chain(json["scheduled_maintenances"].as_array().unwrap());
        for incident in incidents {
            let api: Vec<_> = tree(&site.path("public/api/v1/github"))
                .into_values()
                .collect();
            let id = incident["id"].as_str().unwrap();
            let found = api
                .iter()
                .map(|bytes| serde_json::from_slice::<serde_json::Value>(bytes).unwrap())
                .find(|doc| doc["id"] == id)
                .unwrap_or_else(|| panic!("incident {id} was not imported"));
            let updates = incident["incident_updates"].as_array().unwrap();
            assert_eq!(
                found["updates"].as_array().unwrap().len(),
                updates.len(),
                "{id}: every update"
            );
            let page = page_text(
                &site,
                &format!(
                    "{}index.html",
                    found["url"]
                        .as_str()
                        .unwrap()
                        .replace("http://127.0.0.1:1111/", "")
                ),
            );
            for update in updates {
                let body = update["body"].as_str().unwrap();
                let first_line = body.lines().next().unwrap().trim();
                let words: String = first_line
                    .split_whitespace()
                    .take(8)
                    .collect::<Vec<_>>()
                    .join(" ");
                assert!(
                    page.contains(&words),
                    "{id}: `{words}` missing from the page"
                );
                let at: chrono::DateTime<chrono::Utc> =
                    update["display_at"].as_str().unwrap().parse().unwrap();
                let shown = at.format("%Y-%m-%d %H:%M UTC").to_string();
                assert!(page.contains(&shown), "{id}: time {shown} missing");
                for component in update["affected_components"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let name = component["name"].as_str().unwrap();
                    assert!(page.contains(name), "{id}: component {name} missing");
                }
            }
            assert_eq!(found["title"], incident["name"]);
        }
    }
    // The maintenance keeps its window and its impact.
    let api = std::fs::read_to_string(
        site.path("public/api/v1/github/2025-05-29-codespaces-scheduled-maintenance.json"),
    )
    .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&api).unwrap();
    assert_eq!(doc["impact"], "maintenance");
    assert_eq!(doc["extra"]["scheduled_until"], "2025-05-30T04:30:00Z");
    assert_eq!(doc["started"], "2025-05-29T21:30:00Z");
}

#[test]
fn importing_twice_changes_nothing() {
    let site = Site::new(&[]);
    import(
        &site,
        &[
            "statuspage",
            &payload("github-summary-critical-incident.json"),
        ],
    );
    let first = tree(&site.path("content"));
    let again = import(
        &site,
        &[
            "statuspage",
            &payload("github-summary-critical-incident.json"),
        ],
    );
    assert!(again.contains("1 unchanged"), "{again}");
    assert_eq!(tree(&site.path("content")), first);
}

#[test]
fn an_older_then_a_newer_payload_merge_without_losing_an_update() {
    let full: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(payload("github-summary-critical-incident.json")).unwrap(),
    )
    .unwrap();
    let mut older = full.clone();
    let updates = older["incidents"][0]["incident_updates"]
        .as_array_mut()
        .unwrap();
    updates.drain(..20); // the newest 20 come first in a Statuspage payload
    let dir = tempfile::tempdir().unwrap();
    let older_path = dir.path().join("older.json");
    std::fs::write(&older_path, older.to_string()).unwrap();
    let total = full["incidents"][0]["incident_updates"]
        .as_array()
        .unwrap()
        .len();

    for order in [["older", "newer"], ["newer", "older"]] {
        let site = Site::new(&[]);
        for which in order {
            let file = if which == "older" {
                older_path.to_str().unwrap().to_string()
            } else {
                payload("github-summary-critical-incident.json")
            };
            import(&site, &["statuspage", &file, "--provider", "github"]);
        }
        let files = tree(&site.path("content/github"));
        assert_eq!(files.len(), 1, "one file per incident: {:?}", files.keys());
        let text = String::from_utf8(files.into_values().next().unwrap()).unwrap();
        assert_eq!(
            text.matches("\n### ").count(),
            total,
            "{order:?}: every update, once"
        );
    }
}

#[test]
fn a_file_edited_by_hand_is_not_overwritten() {
    let full = payload("github-summary-critical-incident.json");
    let site = Site::new(&[]);
    import(&site, &["statuspage", &full]);
    let path = site.path("content/github/2026-08-17-incident-with-github-com.md");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("## Updates", "Our own note.\n\n## Updates");
    std::fs::write(&path, &edited).unwrap();
    let out = import(&site, &["statuspage", &full]);
    assert!(
        out.contains("skipped") && out.contains("edited by hand"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
}

#[test]
fn malformed_or_unknown_input_writes_nothing() {
    let site = Site::new(&[
        (
            "bad.json",
            "{\n  \"incidents\": [\n    {\"id\": 1,,}\n  ]\n}\n",
        ),
        ("other.json", "{\"hello\": 1}"),
    ]);
    let bad = site.run(&[
        "import",
        "statuspage",
        site.path("bad.json").to_str().unwrap(),
        "--provider",
        "x",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("bad.json:3:"), "{}", stderr(&bad));
    let other = site.run(&[
        "import",
        "statuspage",
        site.path("other.json").to_str().unwrap(),
        "--provider",
        "x",
    ]);
    assert_eq!(other.status.code(), Some(1));
    assert!(
        stderr(&other).contains("expected a Statuspage v2 answer"),
        "{}",
        stderr(&other)
    );
    site.write(
        "bad.atom",
        "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n  <entry>\n  </feed>\n",
    );
    let atom = site.run(&[
        "import",
        "atom",
        site.path("bad.atom").to_str().unwrap(),
        "--provider",
        "x",
    ]);
    assert_eq!(atom.status.code(), Some(1));
    assert!(stderr(&atom).contains("bad.atom:3:"), "{}", stderr(&atom));
    assert!(!site.path("content").exists(), "nothing written");
}

#[test]
fn history_atom_imports_every_update_with_its_year() {
    let site = Site::new(&[]);
    import(&site, &["atom", ATOM, "--provider", "example-cloud"]);
    site.build(&[]);
    let page = page_text(
        &site,
        "example-cloud/2025-12-31-delayed-webhook-deliveries/index.html",
    );
    for fact in [
        "2025-12-31 23:05 UTC",
        "2026-01-01 00:10 UTC",
        "2026-01-01 01:20 UTC",
        "40 minutes",
        "backlog is draining",
    ] {
        assert!(page.contains(fact), "`{fact}` missing: {page}");
    }
    assert_eq!(
        select(
            &site.html("example-cloud/2025-12-31-delayed-webhook-deliveries/index.html"),
            "ol.timeline > li"
        )
        .len(),
        3
    );
    let maintenance = page_text(
        &site,
        "example-cloud/2026-01-02-database-maintenance/index.html",
    );
    assert!(
        maintenance.contains("Under maintenance") && maintenance.contains("1h 15m"),
        "{maintenance}"
    );
    let again = import(&site, &["atom", ATOM, "--provider", "example-cloud"]);
    assert!(again.contains("2 unchanged"), "{again}");
}

#[test]
fn new_and_init_write_files_that_build_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
            .args(args)
            .output()
            .unwrap()
    };
    assert!(run(&["init", archive.to_str().unwrap()]).status.success());
    let refused = run(&["init", archive.to_str().unwrap()]);
    assert_eq!(
        refused.status.code(),
        Some(2),
        "init refuses a folder that is not empty"
    );
    let new = run(&[
        "new",
        "github",
        "Git operations degraded",
        "--root",
        archive.to_str().unwrap(),
    ]);
    assert!(new.status.success());
    let path = String::from_utf8(new.stdout).unwrap().trim().to_string();
    assert!(
        path.contains("content/github/") && path.ends_with("-git-operations-degraded.md"),
        "{path}"
    );
    assert!(Path::new(&path).exists());
    let twice = run(&[
        "new",
        "github",
        "Git operations degraded",
        "--root",
        archive.to_str().unwrap(),
    ]);
    assert_eq!(twice.status.code(), Some(2), "new never overwrites");
    let built = run(&["build", "--root", archive.to_str().unwrap()]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let summary = String::from_utf8(built.stdout).unwrap();
    assert!(
        summary.starts_with("built 3 incidents from 2 providers"),
        "{summary}"
    );
}
