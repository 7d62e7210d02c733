//! Importing status pages, and the `new` and `init` scaffolds, end to end: the files they
//! write build at once, and the pages show everything the payload held.

use std::path::Path;

use crate::common::{Site, select, stderr, text, tree};

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
    let summaries = [
        "github-summary-critical-incident.json",
        "github-summary-two-open-incidents.json",
        "github-summary-scheduled-maintenance.json",
    ];
    for name in summaries {
        let out = import(&site, &["statuspage", &payload(name)]);
        assert!(
            out.contains("into content/github/"),
            "the provider comes from the page's name: {out}"
        );
    }
    site.build(&[]);
    for name in summaries {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(payload(name)).unwrap()).unwrap();
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
        let files = incident_files(&site.path("content/github"));
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
fn a_file_with_a_summary_of_its_own_still_gets_new_updates() {
    let full: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(payload("github-summary-critical-incident.json")).unwrap(),
    )
    .unwrap();
    let mut older = full.clone();
    older["incidents"][0]["incident_updates"]
        .as_array_mut()
        .unwrap()
        .remove(0);
    let site = Site::new(&[("older.json", &older.to_string())]);
    import(
        &site,
        &["statuspage", site.path("older.json").to_str().unwrap()],
    );
    let path = site.path("content/github/2026-08-17-incident-with-github-com.md");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("## Updates", "Our own note.\n\n## Updates");
    std::fs::write(&path, &edited).unwrap();
    let out = import(
        &site,
        &[
            "statuspage",
            &payload("github-summary-critical-incident.json"),
        ],
    );
    assert!(out.contains("(+1 update)"), "{out}");
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(now.contains("Our own note.\n\n## Updates"), "{now}");
    let total = full["incidents"][0]["incident_updates"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(now.matches("\n### ").count(), total);
}

/// `(status, body, at)` of an update.
type Said<'a> = (&'a str, &'a str, &'a str);
/// `(id, name, created_at, resolved_at, impact, updates)` of an incident.
type Told<'a> = (
    &'a str,
    &'a str,
    &'a str,
    Option<&'a str>,
    &'a str,
    &'a [Said<'a>],
);

/// A Statuspage payload of these incidents.
fn statuspage(incidents: &[Told]) -> String {
    let incidents: Vec<serde_json::Value> = incidents
        .iter()
        .map(|(id, name, created, resolved, impact, updates)| {
            serde_json::json!({
                "id": id, "name": name, "created_at": created, "resolved_at": resolved,
                "impact": impact,
                "incident_updates": updates.iter().map(|(status, body, at)| serde_json::json!({
                    "status": status, "body": body, "created_at": at,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({"page": {"name": "Example", "url": "https://status.example.com"}, "incidents": incidents})
        .to_string()
}

fn set_line(path: &Path, key: &str, line: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let old = text
        .lines()
        .find(|l| l.starts_with(&format!("{key}:")))
        .unwrap()
        .to_string();
    std::fs::write(path, text.replacen(&old, line, 1)).unwrap();
}

#[test]
fn a_feed_names_its_provider_and_a_new_provider_gets_its_name_and_page() {
    let site = Site::new(&[]);
    // No --provider: the feed's title names the page, as a Statuspage payload's `page` does.
    let report = import(&site, &["atom", ATOM]);
    assert!(
        report.contains("created   content/example-cloud/_index.md"),
        "{report}"
    );
    let index = std::fs::read_to_string(site.path("content/example-cloud/_index.md")).unwrap();
    assert!(index.contains("name: \"Example Cloud\"\n"), "{index}");
    assert!(
        index.contains("status_page: \"https://status.example.com\"\n"),
        "{index}"
    );
    assert!(
        index.contains("sync: false\n"),
        "an import follows nothing: {index}"
    );
    // The provider's pages carry the page's name, not the folder's.
    let built = site.run(&["build"]);
    assert!(built.status.success(), "{}", stderr(&built));
    let page = site.read("example-cloud/index.html");
    assert!(page.contains("<h1>Example Cloud"), "{page}");
    // A provider described by hand keeps its description.
    site.write("content/example-cloud/_index.md", "---\nname: Ours\n---\n");
    let again = import(&site, &["atom", ATOM]);
    assert!(!again.contains("_index.md"), "{again}");
    assert_eq!(
        std::fs::read_to_string(site.path("content/example-cloud/_index.md")).unwrap(),
        "---\nname: Ours\n---\n"
    );
}

#[test]
fn a_provider_imported_without_its_page_address_is_told_how_to_follow_it() {
    let site = Site::new(&[]);
    let slack = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/slack/history-2026-08-18.json"
    );
    import(&site, &["slack", slack]);
    let index = std::fs::read_to_string(site.path("content/slack/_index.md")).unwrap();
    assert!(index.starts_with("---\nname: \"Slack\"\n"), "{index}");
    // Slack's payload names no address, so following it needs one first.
    assert!(
        !index.lines().any(|line| line.starts_with("status_page:")),
        "{index}"
    );
    assert!(
        index.contains("add\n# `status_page:` (the page's address) and make the next line `sync: {kind: slack}`"),
        "{index}"
    );
    assert!(index.ends_with("sync: false\n---\n"), "{index}");
    site.build(&[]);
}

#[test]
fn hand_edits_are_kept_field_by_field_and_new_updates_still_come() {
    let site = Site::new(&[]);
    import(&site, &["atom", ATOM, "--provider", "example"]);
    let path = site.path("content/example/2025-12-31-delayed-webhook-deliveries.md");
    // What docs/content.md tells users to do after an Atom import, and more.
    set_line(&path, "impact", "impact: major   # seen from our side");
    set_line(&path, "title", "title: Webhooks were late");
    set_line(&path, "resolved", "resolved: 2026-01-01T02:00:00Z");
    set_line(
        &path,
        "official_url",
        "official_url: https://example.org/our-postmortem",
    );
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace(
            "A fix is in place; the backlog is draining.",
            "Fixed by a config rollback.",
        )
        .replace(
            "# seen from our side",
            "# seen from our side\ncomponents: [Webhooks]\nregions: [eu]",
        );
    std::fs::write(&path, &text).unwrap();
    // The provider publishes a new update and renames the incident.
    let newer = std::fs::read_to_string(ATOM)
        .unwrap()
        .replace("<updated>2026-01-01T01:20:00Z</updated>", "<updated>2026-01-01T03:00:00Z</updated>")
        .replace(
            "<title>Delayed webhook deliveries</title>",
            "<title>Delayed webhooks</title>",
        )
        .replacen(
            "<content type=\"html\">",
            "<content type=\"html\">&lt;p&gt;&lt;small&gt;Jan  1, 03:00 UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Postmortem&lt;/strong&gt; - A queue filled up.&lt;/p&gt;",
            1,
        );
    site.write("newer.atom", &newer);
    let out = import(
        &site,
        &[
            "atom",
            site.path("newer.atom").to_str().unwrap(),
            "--provider",
            "example",
        ],
    );
    assert!(out.contains("(+1 update)"), "{out}");
    for kept in [
        "kept title: \"Webhooks were late\" (edited by hand; the provider says \"Delayed webhooks\")",
        "kept official_url: \"https://example.org/our-postmortem\" (edited by hand",
        "kept your text of the update of 2026-01-01T00:10:00Z (edited by hand)",
    ] {
        assert!(out.contains(kept), "`{kept}` missing: {out}");
    }
    let now = std::fs::read_to_string(&path).unwrap();
    for line in [
        "impact: major   # seen from our side",
        "title: Webhooks were late",
        "resolved: 2026-01-01T02:00:00Z",
        "components: [Webhooks]",
        "regions: [eu]",
        "Fixed by a config rollback.",
        "### 2026-01-01T03:00:00Z: postmortem\nA queue filled up.",
    ] {
        assert!(now.contains(line), "`{line}` missing:\n{now}");
    }
    assert!(
        !now.contains("A fix is in place"),
        "an edited update is not put back:\n{now}"
    );
    let again = import(
        &site,
        &[
            "atom",
            site.path("newer.atom").to_str().unwrap(),
            "--provider",
            "example",
        ],
    );
    assert!(again.contains("2 unchanged"), "{again}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), now);
    site.build(&[]);
}

#[test]
fn fields_the_import_wrote_take_the_providers_news() {
    let first = statuspage(&[(
        "abc",
        "API errors",
        "2024-03-01T10:00:00Z",
        None,
        "minor",
        &[("investigating", "Looking.", "2024-03-01T10:00:00Z")],
    )]);
    let second = statuspage(&[(
        "abc",
        "API errors in EU",
        "2024-03-01T10:00:00Z",
        Some("2024-03-01T11:00:00Z"),
        "major",
        &[
            ("investigating", "Looking.", "2024-03-01T10:00:00Z"),
            ("resolved", "Fixed.", "2024-03-01T11:00:00Z"),
        ],
    )]);
    let site = Site::new(&[("1.json", &first), ("2.json", &second)]);
    import(
        &site,
        &["statuspage", site.path("1.json").to_str().unwrap()],
    );
    let path = site.path("content/example/2024-03-01-api-errors.md");
    set_line(&path, "impact", "impact: critical");
    let out = import(
        &site,
        &["statuspage", site.path("2.json").to_str().unwrap()],
    );
    assert!(
        out.contains("kept impact: critical (edited by hand; the provider says major)"),
        "{out}"
    );
    let now = std::fs::read_to_string(&path).unwrap();
    for line in [
        "title: \"API errors in EU\"",
        "resolved: 2024-03-01T11:00:00Z",
        "impact: critical",
    ] {
        assert!(now.contains(line), "`{line}` missing:\n{now}");
    }
    // A resolution set by hand stays, through the provider's later correction.
    set_line(&path, "resolved", "resolved: 2024-03-01T11:30:00Z");
    let third = statuspage(&[(
        "abc",
        "API errors in EU",
        "2024-03-01T10:00:00Z",
        Some("2024-03-01T11:05:00Z"),
        "major",
        &[
            ("resolved", "Fixed.", "2024-03-01T11:00:00Z"),
            ("postmortem", "Why.", "2024-03-02T11:00:00Z"),
        ],
    )]);
    site.write("3.json", &third);
    let out = import(
        &site,
        &["statuspage", site.path("3.json").to_str().unwrap()],
    );
    assert!(out.contains("kept resolved: 2024-03-01T11:30:00Z (edited by hand; the provider says 2024-03-01T11:05:00Z)"), "{out}");
    assert!(out.contains("(+1 update)"), "{out}");
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(
        now.contains("resolved: 2024-03-01T11:30:00Z") && now.contains("Why."),
        "{now}"
    );
}

/// The file every GitHub payload here writes GitHub's critical incident of 2026-08-17 to.
const CRITICAL: &str = "content/github/2026-08-17-incident-with-github-com.md";

/// The Atom entry of GitHub's critical incident of 2026-08-17, made from its updates in the
/// JSON answer `name` as githubstatus.com renders its `history.atom` (as the real
/// `github-history-2022-06-11.atom` shows): newest first, to the minute, a status only where
/// it changes (else `Update`), the text HTML-escaped with its line breaks as `<br />`.
fn github_feed(name: &str) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(payload(name)).unwrap()).unwrap();
    let incident = json["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == "zkxwbgr0cnmx")
        .unwrap();
    let updates = incident["incident_updates"].as_array().unwrap();
    let at = |value: &serde_json::Value| -> chrono::DateTime<chrono::Utc> {
        value.as_str().unwrap().parse().unwrap()
    };
    let mut trail = String::new();
    for (n, update) in updates.iter().enumerate() {
        let status = update["status"].as_str().unwrap();
        let label = match updates.get(n + 1) {
            Some(older) if older["status"] == status => "Update".to_string(),
            _ => format!(
                "{}{}",
                status[..1].to_uppercase(),
                status[1..].replace('_', " ")
            ),
        };
        let when = at(&update["display_at"]);
        trail.push_str(&format!(
            "<p><small>{} <var data-var='date'>{}</var>, <var data-var='time'>{}</var> UTC</small><br><strong>{label}</strong> - {}</p>",
            when.format("%b"),
            when.format("%e"),
            when.format("%H:%M"),
            update["body"]
                .as_str()
                .unwrap()
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('\n', "<br />")
        ));
    }
    let escaped = trail
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let seconds = "%Y-%m-%dT%H:%M:%SZ";
    let published = at(&incident["created_at"]).format(seconds);
    let updated = at(&updates[0]["display_at"]).format(seconds);
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>tag:www.githubstatus.com,2005:/history</id>
  <title>GitHub Status - Incident History</title>
  <updated>{updated}</updated>
  <entry>
    <id>tag:www.githubstatus.com,2005:Incident/26583342</id>
    <published>{published}</published>
    <updated>{updated}</updated>
    <link rel="alternate" type="text/html" href="https://www.githubstatus.com/incidents/zkxwbgr0cnmx"/>
    <title>Incident with GitHub.com</title>
    <content type="html">{escaped}</content>
  </entry>
</feed>
"#
    )
}

/// The text of a file of the site (not of the built site, as [`Site::read`]).
fn file(site: &Site, path: &str) -> String {
    std::fs::read_to_string(site.path(path)).unwrap()
}

/// The update headings of a file, sorted.
fn headings(text: &str) -> Vec<String> {
    let mut found: Vec<String> = text
        .lines()
        .filter(|line| line.starts_with("### "))
        .map(str::to_string)
        .collect();
    found.sort();
    found
}

/// Runs each import in turn, in the order given.
/// The incident files under `dir`, without the providers' `_index.md` an import writes.
fn incident_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = tree(dir);
    files.retain(|name, _| !name.ends_with("_index.md"));
    files
}

fn import_all(site: &Site, runs: &[&[&str]]) -> Vec<String> {
    runs.iter().map(|args| import(site, args)).collect()
}

/// Runs each import again: none may write, nor report a hand edit nobody made.
fn assert_reimport_changes_nothing(site: &Site, runs: &[&[&str]]) {
    let before = tree(&site.path("content"));
    for out in import_all(site, runs) {
        assert!(out.contains(" 0 created, 0 updated, "), "{out}");
        assert!(!out.contains("by hand"), "{out}");
    }
    assert_eq!(tree(&site.path("content")), before);
}

#[test]
fn one_incident_from_json_and_from_atom_is_one_file_in_either_order() {
    let json = payload("github-summary-critical-incident.json");
    let alone = Site::new(&[]);
    import(&alone, &["statuspage", &json]);
    // The API's 35 updates, to the second with their status, and the resolution that only
    // the feed of the day after has (to the minute).
    let mut expected = headings(&file(&alone, CRITICAL));
    assert_eq!(expected.len(), 35);
    expected.push("### 2026-08-17T21:15:00Z: resolved".to_string());
    expected.sort();
    for json_first in [true, false] {
        let site = Site::new(&[(
            "history.atom",
            &github_feed("github-incidents-2026-08-18.json"),
        )]);
        let atom = site.path("history.atom");
        let runs: [&[&str]; 2] = [
            &["statuspage", &json],
            // The provider the JSON names: its feed and its API tell of one incident.
            &["atom", atom.to_str().unwrap(), "--provider", "github"],
        ];
        let order: Vec<&[&str]> = if json_first {
            runs.to_vec()
        } else {
            runs.iter().rev().copied().collect()
        };
        import_all(&site, &order);
        let files = incident_files(&site.path("content"));
        assert_eq!(
            files.len(),
            1,
            "json first: {json_first}: {:?}",
            files.keys()
        );
        let text = file(&site, CRITICAL);
        assert_eq!(
            headings(&text),
            expected,
            "json first: {json_first}: every update once, as the API tells it:\n{text}"
        );
        assert!(text.contains("impact: critical"), "{text}");
        assert!(text.contains("resolved: 2026-08-17T21:15:00Z"), "{text}");
        assert_reimport_changes_nothing(&site, &order);
        site.build(&[]);
    }
}

#[test]
fn a_real_feed_and_its_api_tell_each_update_once_in_either_order() {
    // The feed labels four of the six updates `Update`; the API says `investigating`.
    let feed = payload("github-history-2022-06-11.atom");
    let api = payload("github-incident-gcqz5grcs4z6.json");
    let path = "content/github/2022-05-20-incident-with-github-packages-and-github-pages.md";
    let alone = Site::new(&[]);
    import(&alone, &["statuspage", &api]);
    let expected = headings(&file(&alone, path));
    assert_eq!(expected.len(), 6);
    let runs: [&[&str]; 2] = [
        &["statuspage", &api],
        &["atom", &feed, "--provider", "github"],
    ];
    for order in [runs.to_vec(), runs.iter().rev().copied().collect()] {
        let site = Site::new(&[]);
        import_all(&site, &order);
        let text = file(&site, path);
        assert_eq!(headings(&text), expected, "{order:?}:\n{text}");
        assert_reimport_changes_nothing(&site, &order);
    }
}

#[test]
fn a_feed_update_edited_by_hand_keeps_its_edit_when_the_api_comes() {
    let site = Site::new(&[]);
    let feed = payload("github-history-2022-06-11.atom");
    import(&site, &["atom", &feed, "--provider", "github"]);
    let path = "content/github/2022-05-20-incident-with-github-packages-and-github-pages.md";
    let edited = file(&site, path).replace(
        "### 2022-05-20T10:09:00Z: update",
        "### 2022-05-20T10:09:00Z: identified",
    );
    site.write(path, &edited);
    import(
        &site,
        &["statuspage", &payload("github-incident-gcqz5grcs4z6.json")],
    );
    let text = file(&site, path);
    let found = headings(&text);
    assert_eq!(found.len(), 6, "{text}");
    assert!(
        found.contains(&"### 2022-05-20T10:09:00Z: identified".to_string()),
        "{text}"
    );
    assert!(
        found.contains(&"### 2022-05-20T10:18:15.638Z: investigating".to_string()),
        "the others as the API tells them: {text}"
    );
}

#[test]
fn reimporting_every_github_payload_and_the_feed_reports_nothing_removed() {
    let site = Site::new(&[(
        "history.atom",
        &github_feed("github-incidents-2026-08-18.json"),
    )]);
    let atom = site.path("history.atom").to_str().unwrap().to_string();
    let jsons = [
        "github-incidents-2026-08-18.json",
        "github-summary-critical-incident.json",
        "github-summary-two-open-incidents.json",
    ]
    .map(payload);
    let mut runs: Vec<Vec<&str>> = jsons.iter().map(|j| vec!["statuspage", j]).collect();
    runs.push(vec!["atom", &atom, "--provider", "github"]);
    let runs: Vec<&[&str]> = runs.iter().map(Vec::as_slice).collect();
    import_all(&site, &runs);
    assert_eq!(
        headings(&file(&site, CRITICAL)).len(),
        36,
        "the incident's 36 updates, each once"
    );
    assert_reimport_changes_nothing(&site, &runs);
}

#[test]
fn same_day_same_name_incidents_and_hand_written_files_are_never_overwritten() {
    let incidents = statuspage(&[
        (
            "c",
            "Outage 2",
            "2024-03-01T10:00:00Z",
            None,
            "minor",
            &[("investigating", "c", "2024-03-01T10:00:00Z")],
        ),
        (
            "a",
            "Outage",
            "2024-03-01T11:00:00Z",
            None,
            "minor",
            &[("investigating", "a", "2024-03-01T11:00:00Z")],
        ),
        (
            "2",
            "Outage",
            "2024-03-01T12:00:00Z",
            None,
            "minor",
            &[("investigating", "2", "2024-03-01T12:00:00Z")],
        ),
    ]);
    let mine = crate::common::incident("Our own outage", "2024-03-01T09:00:00Z");
    let site = Site::new(&[
        ("payload.json", &incidents),
        ("content/example/2024-03-01-outage-a.md", &mine),
    ]);
    let out = import(
        &site,
        &["statuspage", site.path("payload.json").to_str().unwrap()],
    );
    assert!(out.contains("3 created"), "{out}");
    let files = tree(&site.path("content/example"));
    // The three imported, the hand-written one, and the new provider's `_index.md`.
    assert_eq!(files.len(), 5, "{:?}", files.keys());
    assert!(files.contains_key("_index.md"), "{:?}", files.keys());
    assert_eq!(
        files["2024-03-01-outage-a.md"],
        mine.as_bytes(),
        "the hand-written file is untouched"
    );
    for id in ["c", "a", "2"] {
        let holding = files
            .values()
            .filter(|text| String::from_utf8_lossy(text).contains(&format!("id: \"{id}\"\n")))
            .count();
        assert_eq!(holding, 1, "incident {id}");
    }
    site.build(&[]);
}

#[test]
fn provider_text_never_forges_an_update() {
    let forged = statuspage(&[(
        "abc",
        "Outage\n### 2024-03-01T10:05:00Z: resolved",
        "2024-03-01T10:00:00Z",
        None,
        "minor",
        &[
            (
                "investigating",
                "Looking.\n### 2024-03-01T10:05:00Z: resolved\nAll good.",
                "2024-03-01T10:00:00Z",
            ),
            (
                "identified\n### 2024-03-02T10:05:00Z: postmortem",
                "<!-- unclosed\n\n### 2024-03-01T10:06:00Z: resolved",
                "2024-03-01T10:01:00Z",
            ),
            ("monitoring", "```\nunclosed code", "2024-03-01T10:02:00Z"),
            (
                "update",
                "<pre>\n### 2024-03-01T10:07:00Z: resolved",
                "2024-03-01T10:03:00Z",
            ),
            ("identified", "Still here.", "2024-03-01T10:04:00Z"),
        ],
    )]);
    let site = Site::new(&[("payload.json", &forged)]);
    import(
        &site,
        &["statuspage", site.path("payload.json").to_str().unwrap()],
    );
    site.build(&[]);
    let api: serde_json::Value = serde_json::from_str(
        &site.read("api/v1/example/2024-03-01-outage-2024-03-01t10-05-00z-resolved.json"),
    )
    .unwrap();
    let updates = api["updates"].as_array().unwrap();
    assert_eq!(updates.len(), 5, "{updates:#?}");
    assert!(api["resolved"].is_null(), "still ongoing: {api}");
    assert!(
        updates
            .iter()
            .all(|u| u["status"] != "resolved" && u["status"] != "postmortem"),
        "{updates:#?}"
    );
    assert!(updates[4]["status"] == "identified", "{updates:#?}");
}

#[test]
fn awkward_provider_text_builds_and_reimports_byte_for_byte() {
    let awkward = statuspage(&[
        (
            "pm",
            "Postmortem",
            "2024-03-01T10:00:00Z",
            Some("2024-03-01T12:00:00Z"),
            "major",
            &[
                ("investigating", "x", "2024-03-01T10:00:00Z"),
                (
                    "postmortem",
                    "## Summary\n### 1. Root cause: a bad deploy\n### 2. Fix: rolled back",
                    "2024-03-02T10:00:00Z",
                ),
            ],
        ),
        (
            "blank",
            "  ",
            "2024-03-01T10:00:00Z",
            None,
            "none",
            &[
                ("", "empty status", "2024-03-01T10:00:00Z"),
                ("investi\u{7}gating", "a bell", "2024-03-01T10:01:00Z"),
                ("update", "```sh\nunclosed fence", "2024-03-01T10:02:00Z"),
                ("resolved", "Fixed.", "2024-03-01T10:03:00Z"),
            ],
        ),
    ]);
    let site = Site::new(&[("payload.json", &awkward)]);
    import(
        &site,
        &["statuspage", site.path("payload.json").to_str().unwrap()],
    );
    let checked = site.run(&["check"]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    let first = tree(&site.path("content"));
    let again = import(
        &site,
        &["statuspage", site.path("payload.json").to_str().unwrap()],
    );
    assert!(again.contains("2 unchanged"), "{again}");
    assert_eq!(tree(&site.path("content")), first);
    site.build(&[]);
    let blank = page_text(&site, "example/2024-03-01-incident-blank/index.html");
    assert!(
        blank.contains("Incident blank") && blank.contains("Fixed."),
        "{blank}"
    );
    let api: serde_json::Value =
        serde_json::from_str(&site.read("api/v1/example/2024-03-01-incident-blank.json")).unwrap();
    let statuses: Vec<&str> = api["updates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["update", "investigating", "update", "resolved"]);
}

#[test]
fn a_merge_over_the_size_limit_is_refused_and_writes_nothing() {
    // Each payload is under the cap; the two trails together are not.
    let big = "word ".repeat(450_000);
    let first = statuspage(&[(
        "big",
        "Big",
        "2024-03-01T10:00:00Z",
        None,
        "minor",
        &[("investigating", &big, "2024-03-01T10:00:00Z")],
    )]);
    let second = statuspage(&[(
        "big",
        "Big",
        "2024-03-01T10:00:00Z",
        None,
        "minor",
        &[("update", &big, "2024-03-01T11:00:00Z")],
    )]);
    let site = Site::new(&[("1.json", &first), ("2.json", &second)]);
    import(
        &site,
        &["statuspage", site.path("1.json").to_str().unwrap()],
    );
    let before = tree(&site.path("content"));
    let refused = site.run(&[
        "import",
        "statuspage",
        site.path("2.json").to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1));
    let message = stderr(&refused);
    assert!(
        message.contains("2024-03-01-big.md")
            && message.contains("the incident big cannot be written"),
        "{message}"
    );
    assert!(message.contains("over the limit"), "{message}");
    assert_eq!(
        tree(&site.path("content")),
        before,
        "no temporary file is left either"
    );
}

#[test]
fn files_written_by_the_previous_importer_are_found_and_kept() {
    // As the Atom importer wrote them before imports kept a record: the entry's tag id.
    let old = "---\ntitle: \"Delayed webhook deliveries\"\nstarted: 2025-12-31T23:05:00Z\nimpact: none\n\
               id: \"24790001\"\nofficial_url: \"https://status.example.com/incidents/x7k2m9p4q1zz\"\n\
               source: {kind: \"statuspage-atom\", id: \"24790001\"}\n---\n## Updates\n\
               ### 2025-12-31T23:05:00Z: investigating\nWebhooks are delayed by up to <strong>40 minutes</strong>.\n";
    let edited = old
        .replace("impact: none", "impact: minor")
        .replace("## Updates", "Seen in EU only.\n\n## Updates");
    for (text, impact) in [(old.to_string(), "none"), (edited, "minor")] {
        let site = Site::new(&[("content/example/2025-12-31-webhooks.md", &text)]);
        let out = import(&site, &["atom", ATOM, "--provider", "example"]);
        assert!(
            out.contains("updated   content/example/2025-12-31-webhooks.md (+2 updates)"),
            "{out}"
        );
        assert!(
            !out.contains("kept"),
            "a feed does not say the impact; the id is the import's: {out}"
        );
        let files = incident_files(&site.path("content/example"));
        assert_eq!(files.len(), 2, "{:?}", files.keys());
        let now = String::from_utf8(files["2025-12-31-webhooks.md"].clone()).unwrap();
        assert!(now.contains(&format!("impact: {impact}\n")), "{now}");
        assert!(now.contains("\nid: \"x7k2m9p4q1zz\""), "{now}");
        assert!(
            now.contains("  id: \"x7k2m9p4q1zz\"")
                && now.contains("resolved: 2026-01-01T01:20:00Z"),
            "{now}"
        );
        assert_eq!(now.matches("\n### ").count(), 3, "{now}");
        let again = import(&site, &["atom", ATOM, "--provider", "example"]);
        assert!(again.contains("2 unchanged"), "{again}");
        site.build(&[]);
    }
}

#[cfg(unix)]
#[test]
fn imports_never_write_through_links() {
    let payload_text = statuspage(&[(
        "abc",
        "Outage",
        "2024-03-01T10:00:00Z",
        None,
        "minor",
        &[("investigating", "x", "2024-03-01T10:00:00Z")],
    )]);
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("kept.md");
    std::fs::write(&outside, "not yours").unwrap();
    for linked in [
        "content",
        "content/example",
        "content/example/2024-03-01-outage.md",
    ] {
        let site = Site::new(&[("payload.json", &payload_text)]);
        std::fs::create_dir_all(site.path("content/example")).unwrap();
        let link = site.path(linked);
        if link.exists() {
            std::fs::remove_dir_all(&link).unwrap();
        }
        let target = if linked.ends_with(".md") {
            outside.clone()
        } else {
            elsewhere.path().to_path_buf()
        };
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let run = site.run(&[
            "import",
            "statuspage",
            site.path("payload.json").to_str().unwrap(),
        ]);
        if linked.ends_with(".md") {
            // The name is taken: the incident gets another, the link's target is untouched.
            assert!(run.status.success(), "{}", stderr(&run));
            assert!(
                site.path("content/example/2024-03-01-outage-abc.md")
                    .is_file()
            );
        } else {
            assert_eq!(run.status.code(), Some(1), "{linked}");
            assert!(
                stderr(&run).contains("is a symbolic link"),
                "{}",
                stderr(&run)
            );
        }
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "not yours");
        assert_eq!(
            std::fs::read_dir(elsewhere.path()).unwrap().count(),
            1,
            "{linked}: nothing written elsewhere"
        );
    }
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
    // init's example base URL is named until the owner gives their own.
    let warned = String::from_utf8_lossy(&built.stderr);
    assert!(
        warned.contains("base_url is still the example https://example.github.io/outages/"),
        "{warned}"
    );
    let own = run(&[
        "build",
        "--root",
        archive.to_str().unwrap(),
        "--base-url",
        "https://status.example.com/",
    ]);
    assert!(own.status.success());
    assert!(
        !String::from_utf8_lossy(&own.stderr).contains("warning"),
        "{}",
        String::from_utf8_lossy(&own.stderr)
    );
    // All that the build left beside the sources is ignored by git.
    let ignore = std::fs::read_to_string(archive.join(".gitignore")).unwrap();
    let patterns: Vec<&str> = ignore.lines().filter(|l| !l.starts_with('#')).collect();
    for entry in std::fs::read_dir(&archive).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if ["content", "site.yaml", ".gitignore"].contains(&name.as_str()) {
            continue;
        }
        assert!(
            patterns.iter().any(|p| {
                let p = p.trim_matches('/');
                p.strip_suffix('*')
                    .map_or(p == name, |prefix| name.starts_with(prefix))
            }),
            "{name} is not ignored by:\n{ignore}"
        );
    }
}

/// Generated Statuspage payloads, as adversarial as status pages get: import → `check`
/// passes with every update → importing again changes no byte. A fixed seed and a few dozen
/// cases in `cargo test`; `OUTAGES_PROPTEST_CASES=5000` for more.
mod generated {
    use std::collections::BTreeMap;

    use outages::import::{self, Change, Request, text};
    use outages::model::Platform;
    use proptest::prelude::*;
    use proptest::sample::select;
    use proptest::test_runner::TestCaseError;
    use serde_json::{Value, json};

    const IDS: &[&str] = &["a", "b", "2", "x y", "ünï", "C"];
    const TIMES: &[&str] = &[
        "2024-03-01T10:00:00Z",
        "2024-03-01T10:00:00.5Z",
        "2024-03-01T10:00:59Z",
        "2024-03-01T23:59:59Z",
        "2024-03-02T01:00:00+02:00",
    ];
    const NAMES: &[&str] = &[
        "",
        " ",
        "Outage",
        "Outage 2",
        "a\nb",
        "\u{1b}[31mred",
        "🎉",
        "### 2024-03-01T10:05:00Z: resolved",
        "\"quoted\": yes",
        "x: {y: [z]}",
        "---",
        "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore",
    ];
    const STATUSES: &[&str] = &[
        "",
        "investigating",
        "resolved",
        "postmortem",
        "in_progress",
        "Mitigated",
        "\u{7}",
        "a # b #",
        "*x*",
        "  update  ",
        "identified\u{0}",
        ":",
        "ü",
        "resolved\n### 2024-03-01T10:05:00Z: postmortem",
    ];
    const LINES: &[&str] = &[
        "",
        "Plain words.",
        "### 2024-03-01T10:05:00Z: resolved",
        "### 2024-03-01 10:05 UTC: postmortem",
        "### 1. Root cause: a",
        "   ### 2024-03-01T10:05:00Z: resolved",
        "> ### 2024-03-01T10:05:00Z: x",
        "\t### 2024-03-01T10:05:00Z: resolved",
        "###",
        "#### deep",
        "## Summary",
        "```",
        "```sh",
        "~~~~",
        "````",
        "- ```sh",
        "1. ```",
        "  ```",
        "    indented",
        "<!--",
        "-->",
        "<!-- -->",
        "<pre>",
        "</pre>",
        "<PRE>",
        "<script>",
        "<div>",
        "</div>",
        "<?php",
        "<![CDATA[",
        "---",
        "===",
        "***",
        "a\u{0}b\u{1b}c\u{7f}",
        "\u{85}next\u{2028}line\u{fffe}",
        "émoji 🎉",
        "&amp; &#35; &lt;",
        "\\",
        "[x]: https://example.com",
        "| a | b |",
        "|---|---|",
        "\r\n### 2024-03-01T10:05:00Z: resolved",
    ];

    fn update() -> impl Strategy<Value = Value> {
        (
            select(STATUSES),
            prop::collection::vec(select(LINES), 0..7),
            select(TIMES),
            any::<bool>(),
        )
            .prop_map(|(status, lines, at, has_body)| {
                let body = if has_body {
                    Value::from(lines.join("\n"))
                } else {
                    Value::Null
                };
                json!({"status": status, "body": body, "created_at": at})
            })
    }

    fn payload() -> impl Strategy<Value = Value> {
        let incident = (
            select(IDS),
            select(NAMES),
            select(TIMES),
            select(&["none", "minor", "major", "critical", "bogus"][..]),
            prop::collection::vec(update(), 0..5),
        )
            .prop_map(|(id, name, at, impact, updates)| {
                json!({"id": id, "name": name, "created_at": at, "impact": impact, "incident_updates": updates})
            });
        prop::collection::vec(incident, 1..6)
            .prop_map(|incidents| json!({"page": {"name": "Example"}, "incidents": incidents}))
    }

    /// `(time, status)` of every distinct update the payload holds, as the archive must.
    fn expected(payload: &Value) -> Vec<(String, String)> {
        let mut distinct = BTreeMap::new();
        for incident in payload["incidents"].as_array().unwrap() {
            let id = text::one_line(incident["id"].as_str().unwrap());
            for update in incident["incident_updates"].as_array().unwrap() {
                let at: chrono::DateTime<chrono::Utc> =
                    update["created_at"].as_str().unwrap().parse().unwrap();
                let status = text::status(update["status"].as_str().unwrap())
                    .as_str()
                    .to_string();
                let body = text::clean_body(update["body"].as_str().unwrap_or_default());
                distinct.insert(
                    (id.clone(), at, status.clone(), body),
                    (at.to_rfc3339(), status),
                );
            }
        }
        let mut all: Vec<(String, String)> = distinct.into_values().collect();
        all.sort();
        all
    }

    fn run_case(payload: &Value) -> Result<(), TestCaseError> {
        let site = tempfile::tempdir().unwrap();
        let file = site.path().join("payload.json");
        std::fs::write(&file, payload.to_string()).unwrap();
        let request = Request {
            platform: Platform::Statuspage,
            file: &file,
            provider: None,
            root: site.path(),
        };
        let report =
            import::run(&request).map_err(|e| TestCaseError::fail(format!("import: {e:?}")))?;
        let checked = outages::build::check(&outages::site::Options::new(site.path()));
        prop_assert!(
            checked.is_ok(),
            "check: {}",
            checked.err().map(|e| e.to_string()).unwrap_or_default()
        );
        let mut loaded: Vec<(String, String)> = Vec::new();
        for result in outages::content::load_all(site.path())
            .unwrap()
            .into_values()
        {
            if let Ok(outages::content::Loaded::Incident(incident)) = result {
                loaded.extend(
                    incident
                        .updates
                        .iter()
                        .map(|u| (u.at.to_rfc3339(), u.status.as_str().to_string())),
                );
            }
        }
        loaded.sort();
        prop_assert_eq!(loaded, expected(payload), "report: {}", report);
        let before = super::tree(&site.path().join("content"));
        let again =
            import::run(&request).map_err(|e| TestCaseError::fail(format!("re-import: {e:?}")))?;
        prop_assert!(
            again.outcomes.iter().all(|o| o.change == Change::Unchanged),
            "{}",
            again
        );
        prop_assert_eq!(super::tree(&site.path().join("content")), before);
        Ok(())
    }

    #[test]
    fn generated_payloads_import_check_and_reimport_unchanged() {
        crate::common::seeded_runner("OUTAGES_PROPTEST_CASES", 40, 8)
            .run(&payload(), |payload| run_case(&payload))
            .unwrap();
    }
}

#[test]
fn an_indented_code_block_at_the_start_of_a_body_stays_code() {
    // Four spaces (or a tab) before `### …` make it code: trimmed away, it would be a
    // heading, and one that looks like an update's.
    let payload = statuspage(&[(
        "code",
        "Code",
        "2024-03-01T10:00:00Z",
        Some("2024-03-01T12:00:00Z"),
        "minor",
        &[
            (
                "investigating",
                "\n    ### 2024-03-01 11:00 UTC: resolved\n    not a heading\n\nText.",
                "2024-03-01T10:00:00Z",
            ),
            ("resolved", "\t### tabbed\nafter", "2024-03-01T12:00:00Z"),
        ],
    )]);
    let site = Site::new(&[("payload.json", &payload)]);
    let json = site.path("payload.json");
    import(&site, &["statuspage", json.to_str().unwrap()]);
    let first = tree(&site.path("content"));
    let again = import(&site, &["statuspage", json.to_str().unwrap()]);
    assert!(again.contains("1 unchanged"), "{again}");
    assert_eq!(tree(&site.path("content")), first);
    site.build(&[]);
    let page = site.html("example/2024-03-01-code/index.html");
    let code: Vec<String> = select(&page, ".update pre code").iter().map(text).collect();
    assert_eq!(code.len(), 2, "{code:?}");
    assert!(
        code[0].contains("### 2024-03-01 11:00 UTC: resolved"),
        "{code:?}"
    );
    assert!(code[1].contains("### tabbed"), "{code:?}");
    assert!(select(&page, ".update h3, .update h4").is_empty());
    assert_eq!(select(&page, ".update").len(), 2);
}

/// An incident of 2013 whose whole timeline is one update holding a list: `import` splits
/// it as `sync` does, each entry at its own time, and a second import changes nothing.
#[test]
fn an_old_timeline_imports_as_one_update_per_entry() {
    let site = Site::new(&[]);
    let old = payload("incidents/xqj5k7lhbrz3.json");
    let out = import(&site, &["statuspage", &old]);
    assert!(out.contains("(11 updates)"), "{out}");
    let path = out
        .split_whitespace()
        .find(|word| word.starts_with("content/") && !word.ends_with("/_index.md"))
        .unwrap();
    let text = file(&site, path);
    let found = headings(&text);
    assert_eq!(found.len(), 11, "{text}");
    assert_eq!(found[0], "### 2013-01-24T21:47:49Z: update");
    assert!(
        found.iter().any(|h| h.starts_with("### 2013-01-25T")),
        "{found:?}"
    );
    assert_eq!(
        found.iter().filter(|h| h.ends_with(": resolved")).count(),
        1
    );
    assert!(!text.contains("<strong>"), "{text}");
    assert_reimport_changes_nothing(&site, &[&["statuspage", &old]]);
    site.build(&[]);
}

#[test]
fn a_feed_that_gives_an_incident_of_another_source_s_id_is_refused_and_writes_nothing() {
    let site = Site::new(&[]);
    std::fs::create_dir_all(site.path("content")).unwrap();
    import(
        &site,
        &[
            "statuspage",
            &payload("github-incidents-2026-08-18.json"),
            "--provider",
            "github",
        ],
    );
    let before = tree(&site.path("content"));
    // An item with no page of its own, its guid the code of a Statuspage incident: a
    // feed's incident of that id would be a second incident of one id.
    let feed = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>x</title>\
        <link>https://example.com/</link><description>d</description><item><title>Down</title>\
        <guid>bmpybhnrky3x</guid><pubDate>Mon, 17 Aug 2026 10:00:00 +0000</pubDate></item>\
        </channel></rss>";
    let path = site.path("feed.rss");
    std::fs::write(&path, feed).unwrap();
    let output = site.run(&[
        "import",
        "feed",
        path.to_str().unwrap(),
        "--provider",
        "github",
    ]);
    let errors = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{errors}");
    assert!(
        errors.contains("holds the id `bmpybhnrky3x`, which the payload also gives"),
        "{errors}"
    );
    assert_eq!(tree(&site.path("content")), before);
    assert!(site.run(&["check"]).status.success());
}

#[test]
fn a_payload_larger_than_a_content_file_imports() {
    let site = Site::new(&[]);
    std::fs::create_dir_all(site.path("content")).unwrap();
    // Over the 4 MiB a content file may hold, as a whole history in one file is.
    let json = std::fs::read_to_string(payload("github-incidents-2026-08-18.json")).unwrap();
    let path = site.path("big.json");
    std::fs::write(&path, format!("{json}{}", " ".repeat(5 << 20))).unwrap();
    let out = import(&site, &["statuspage", path.to_str().unwrap()]);
    assert!(out.contains("5 created"), "{out}");
}
