//! No content file can crash, stall or smuggle anything into a build: every time and
//! duration is checked, every file costs time and memory linear in its size, escaped
//! control characters are dropped, and updates split where the page shows headings.

use std::time::Duration;

use crate::common::{Site, incident, readable, select, stderr, text, tree};
use outages::content::source::is_forbidden_char;

/// The front matter of a valid incident, with `more` lines added.
fn front(more: &str) -> String {
    format!("---\ntitle: X\nstarted: 2024-03-05T14:00:00Z\nimpact: major\n{more}---\nBody.\n")
}

/// Runs `args`, which must fail with the usual exit code (1, not a panic's 101), and
/// returns its stderr.
fn fails(site: &Site, args: &[&str]) -> String {
    let output = site.run(args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// The message of the error at `path:line_col`, asserting it is there.
fn message_at<'a>(site: &Site, err: &'a str, file: &str, line_col: &str) -> &'a str {
    let location = format!("{}:{line_col}", site.path(file).display());
    err.split(&location)
        .nth(1)
        .unwrap_or_else(|| panic!("{location} missing from:\n{err}"))
        .split("\n\n")
        .next()
        .unwrap()
}

#[test]
fn huge_durations_and_years_past_9999_are_errors_at_their_position_not_crashes() {
    let site = Site::new(&[
        (
            "content/acme/secs.md",
            &front("duration: 9000000000000000s\n"),
        ),
        ("content/acme/days.md", &front("duration: 100000000d\n")),
        ("content/acme/over.md", &front("duration: 3651d\n")),
        (
            "content/acme/year0.md",
            "---\ntitle: X\nstarted: 0000-06-01T14:00:00Z\nimpact: major\n---\n",
        ),
        (
            "content/acme/offset.md",
            "---\ntitle: X\nstarted: 2024-03-05T14:00:00Z\nresolved: 9999-12-31T23:00:00-05:00\nimpact: major\n---\n",
        ),
        (
            "content/acme/end.md",
            "---\ntitle: X\nstarted: 9999-12-31T12:00:00Z\nduration: 1d\nimpact: major\n---\n",
        ),
        (
            "content/acme/update.md",
            &format!("{}### 0000-01-01 10:00 UTC: resolved\n", front("")),
        ),
        ("content/acme/fine.md", &front("duration: 3650d\n")),
    ]);
    for command in ["build", "check"] {
        let err = fails(&site, &[command]);
        for (file, line_col, words) in [
            ("secs.md", "5:11", "is too long"),
            ("days.md", "5:11", "at most 3650d (ten years)"),
            ("over.md", "5:11", "is too long"),
            ("year0.md", "3:10", "outside the years 0001 to 9999"),
            ("offset.md", "4:11", "outside the years 0001 to 9999"),
            ("end.md", "4:11", "falls after the year 9999"),
            ("update.md", "7:5", "outside the years 0001 to 9999"),
        ] {
            let message = message_at(&site, &err, &format!("content/acme/{file}"), line_col);
            assert!(
                message.contains(words),
                "`{words}` missing for {file}: {message}"
            );
        }
        assert!(err.contains("7 errors in 7 files"), "all at once:\n{err}");
    }
}

#[test]
fn second_60_is_an_error_at_its_position() {
    let site = Site::new(&[
        (
            "content/acme/leap.md",
            &format!(
                "{}\n### 2016-12-31 23:59:60 UTC: investigating\nDown.\n",
                front("resolved: 2024-03-05T22:59:60Z\n")
            ),
        ),
        (
            "content/acme/fine.md",
            &incident("Fine", "2024-03-05T14:00:59Z"),
        ),
    ]);
    let err = fails(&site, &["check"]);
    for line_col in ["5:11", "9:5"] {
        let message = message_at(&site, &err, "content/acme/leap.md", line_col);
        assert!(message.contains("has second 60"), "{message}");
    }
    assert!(err.contains("2 errors in 1 file"), "{err}");
}

#[test]
fn an_alias_bomb_is_refused_at_once() {
    // 500 KB that aliases would repeat into 45 MB, on every page that shows components.
    let big = "x".repeat(500_000);
    let aliases = vec!["*a"; 90].join(", ");
    let site = Site::new(&[(
        "content/acme/bomb.md",
        &front(&format!(
            "extra: {{pad: &a \"{big}\"}}\ncomponents: [{aliases}]\n"
        )),
    )]);
    let err = fails(&site, &["build"]);
    let message = message_at(&site, &err, "content/acme/bomb.md", "6:14");
    assert!(message.contains("aliases (`*name`)"), "{message}");
    assert!(!site.path("public").exists());
}

#[test]
fn deep_nesting_in_front_matter_is_a_clear_error() {
    let deep = format!("extra: {}1{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let site = Site::new(&[("content/acme/deep.md", &front(&deep))]);
    let err = fails(&site, &["build"]);
    assert!(err.contains("nested too deep: at most 32 levels"), "{err}");
}

#[test]
fn a_fifo_under_content_neither_hangs_a_build_nor_a_reread() {
    let site = Site::new(&[(
        "content/acme/ok.md",
        &incident("Ok", "2024-03-05T14:00:00Z"),
    )]);
    let fifo = site.path("content/acme/pipe.md");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|status| status.success()) {
        eprintln!("no mkfifo here; skipped");
        return;
    }
    // A file swapped for a FIFO after the listing (what `serve` rereads by name) is
    // refused at once; reading it used to wait for a writer forever.
    let root = site.root().to_path_buf();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let loaded =
            outages::content::load_file(&root, std::path::Path::new("content/acme/pipe.md"));
        let _ = send.send(loaded.err().unwrap_or_default());
    });
    let errors = receive
        .recv_timeout(Duration::from_secs(10))
        .expect("reading a FIFO returns at once");
    assert!(
        errors[0].message.contains("not a regular file"),
        "{errors:?}"
    );
    site.build(&[]);
    assert!(site.read("acme/ok/index.html").contains("Ok"));
}

#[test]
fn a_fifo_named_site_yaml_is_refused_at_once() {
    let site = Site::new(&[(
        "content/acme/ok.md",
        &incident("Ok", "2024-03-05T14:00:00Z"),
    )]);
    let made = std::process::Command::new("mkfifo")
        .arg(site.path("site.yaml"))
        .status();
    if !made.is_ok_and(|status| status.success()) {
        eprintln!("no mkfifo here; skipped");
        return;
    }
    // It used to wait for a writer forever; `fails` would never return.
    let err = fails(&site, &["build"]);
    assert!(err.contains("site.yaml"), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    assert!(!site.path("public").exists());
}

#[test]
fn a_file_over_4_mib_is_refused_by_its_size() {
    let site = Site::new(&[]);
    let mut text = front("");
    text.push_str(&"word ".repeat(900_000));
    site.write("content/acme/long.md", &text);
    let err = fails(&site, &["build"]);
    let message = message_at(&site, &err, "content/acme/long.md", "");
    assert!(message.contains("over the limit of 4194304"), "{message}");
}

#[test]
fn a_problem_on_every_line_is_reported_in_linear_time() {
    // Each line of an export's facts past the regions is an error: 30,000 of them took
    // over half a minute when every error scanned the file for its line.
    let mut export = String::from(
        "# T\n\n- Provider: acme\n- Impact: major\n- started 2024-03-05 14:00 UTC\n- a\n- b\n",
    );
    for i in 0..30_000 {
        export.push_str(&format!("- junk {i}\n"));
    }
    // And a flood of unknown keys on one line, each of which would copy the line.
    let keys: Vec<String> = (0..30_000).map(|i| format!("k{i}: 1")).collect();
    let site = Site::new(&[
        ("content/acme/export.md", &export),
        (
            "content/acme/keys.md",
            &format!("---\n{{{}}}\n---\n", keys.join(", ")),
        ),
    ]);
    // No clock here (speed lives in the benchmarks): quadratic work would take minutes.
    let err = fails(&site, &["check"]);
    assert!(err.contains("unexpected line in the export's facts"));
    let message = message_at(&site, &err, "content/acme/export.md", "30007:3");
    assert!(message.contains("unexpected line"), "{message}");
    assert!(
        err.contains("29980 more unknown fields"),
        "{}",
        &err[err.len() - 300..]
    );
}

/// One tag of `n` distinct attributes: html5ever compares each name with every one before.
fn crowded(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("a{i}=\"{i}\"")).collect();
    format!("<p {}>text</p>", names.join(" "))
}

#[test]
fn a_tag_with_more_attributes_than_a_page_may_hold_is_an_error_at_its_position() {
    let site = Site::new(&[
        (
            "content/acme/_index.md",
            &format!("---\nname: Acme\n---\nIntro.\n\n{}\n", crowded(1000)),
        ),
        (
            "content/acme/update.md",
            &format!(
                "{}\n### 2024-03-05 14:00 UTC: investigating\nIn text {}\n",
                front(""),
                crowded(1000)
            ),
        ),
        // The most a tag may hold is fine, in a summary.
        (
            "content/acme/fits.md",
            &format!("{}{}\n", front(""), crowded(100)),
        ),
    ]);
    let err = fails(&site, &["check"]);
    for (file, line_col) in [
        ("content/acme/_index.md", "6:1"),
        ("content/acme/update.md", "9:9"),
    ] {
        let message = message_at(&site, &err, file, line_col);
        assert!(message.contains("more than 100 attributes"), "{message}");
    }
    assert!(err.contains("2 errors in 2 files"), "{err}");
}

#[test]
fn escaped_control_characters_never_reach_the_output() {
    let site = Site::new(&[
        (
            "content/acme/escaped.md",
            "---\ntitle: \"Down\\u0000 \\u001b[31mnow\\ufffe\\U0010FFFF\\x85\"\nstarted: 2024-03-05T14:00:00Z\nimpact: major\n\
             components: [\"API\\u0007\"]\nregions: [\"eu\\u000c\"]\nid: \"X\\u0001-1\"\n\
             extra: {\"k\\u0002\": \"v\\u0003\"}\nsource: {kind: \"statuspage\\u0004\", id: \"abc\\u0005\"}\n---\n\
             ### 2024-03-05 14:00 UTC: investigating\nLooking.\n",
        ),
        (
            "content/acme/_index.md",
            "---\nname: \"Acme\\u001b Cloud\"\ndescription: \"All\\u0000 good\"\n---\n",
        ),
    ]);
    site.build(&[]);
    let page = site.html("acme/escaped/index.html");
    let title = text(&select(&page, "h1")[0]);
    assert_eq!(title, "Down [31mnow");
    for (path, bytes) in readable(&tree(&site.path("public"))) {
        // Compressed, or the search index's binary (CBOR) files; its records, JSON, are read.
        let binary = path.starts_with("pagefind/") && !path.ends_with(".pf_fragment");
        if path.ends_with(".gz") || path.ends_with(".br") || binary {
            continue;
        }
        let text = String::from_utf8(bytes).unwrap();
        let bad: Vec<char> = text.chars().filter(|c| is_forbidden_char(*c)).collect();
        assert!(bad.is_empty(), "{path} holds {bad:?}");
        // JSON writes controls as escapes.
        for escape in ["\\u0000", "\\u0001", "\\u001b", "\\u0007"] {
            assert!(!text.contains(escape), "{path} holds {escape}");
        }
    }
    assert!(site.read("acme/index.html").contains("Acme Cloud"));
}

#[test]
fn updates_split_exactly_where_the_page_shows_headings() {
    let site = Site::new(&[(
        "content/acme/fence.md",
        &front("resolved: 2024-03-05T15:00:00Z\n").replace(
            "Body.\n",
            "### 2024-03-05 14:00 UTC: investigating\nWe ran:\n\n1. ```sh\n   kubectl rollout undo\n   ```\n\
             ### 2024-03-05 15:00 UTC: resolved\nFixed.\n",
        ),
    )]);
    site.build(&[]);
    let page = site.html("acme/fence/index.html");
    let updates = select(&page, "ol.timeline > li");
    assert_eq!(
        updates.len(),
        2,
        "the heading after the list item's fence is an update"
    );
    assert!(
        text(&updates[1]).contains("resolved"),
        "{}",
        text(&updates[1])
    );
    assert!(text(&updates[1]).contains("Fixed."));
    assert!(text(&updates[0]).contains("kubectl rollout undo"));
    assert!(!text(&updates[0]).contains("Fixed."));
}

#[test]
fn two_incidents_with_one_id_are_an_error_naming_both() {
    let with_id = |title: &str, id: &str| {
        incident(title, "2024-03-05T14:00:00Z").replacen("---\n", &format!("---\nid: {id}\n"), 1)
    };
    let site = Site::new(&[
        ("content/acme/a.md", &with_id("A", "tag-1")),
        ("content/acme/b.md", &with_id("B", "tag-1")),
        // An id that is another incident's slug gives the same feed entry id too.
        ("content/acme/c.md", &with_id("C", "a-slug")),
        (
            "content/acme/a-slug.md",
            &incident("D", "2024-03-05T14:00:00Z"),
        ),
        // The same id under another provider is another entry.
        ("content/other/a.md", &with_id("E", "tag-1")),
        // And an unrelated error, reported in the same run.
        (
            "content/acme/bad.md",
            "---\ntitle: X\nstarted: 2024-03-05T14:00:00Z\nimpact: sever\n---\n",
        ),
    ]);
    let err = fails(&site, &["build"]);
    let message = message_at(&site, &err, "content/acme/b.md", "2:5");
    assert!(
        message.contains("`tag-1` is already the id of an incident of `acme`"),
        "{message}"
    );
    let first = format!("{}:2:5", site.path("content/acme/a.md").display());
    assert!(message.contains(&first), "{message}");
    let message = message_at(&site, &err, "content/acme/c.md", "2:5");
    assert!(message.contains("a-slug.md (its slug)"), "{message}");
    assert!(err.contains("3 errors in 3 files"), "{err}");
    assert!(!site.path("public").exists());
}

/// An incident of `acme` from `started` to `resolved` (or ongoing, with `updates`).
fn dated(title: &str, started: &str, resolved: Option<&str>, updates: &[&str]) -> String {
    let resolved = resolved.map_or(String::new(), |r| format!("resolved: {r}\n"));
    let updates: String = updates
        .iter()
        .map(|at| format!("### {at} UTC: update\nStill on it.\n"))
        .collect();
    format!("---\ntitle: {title}\nstarted: {started}\n{resolved}impact: major\n---\n{updates}")
}

/// Every file of a built site and their bytes in all.
fn size(site: &Site) -> (usize, usize) {
    let files = tree(&site.path("public"));
    (files.len(), files.values().map(Vec::len).sum())
}

#[test]
fn dates_far_apart_cost_the_years_that_hold_incidents_not_every_year_between() {
    // Two small incidents eight thousand years apart: what the pages that span years show
    // is the two years, and each far date is a warning on its file.
    let far = Site::new(&[
        (
            "content/acme/old.md",
            &dated(
                "Old",
                "0001-01-01T00:00:00Z",
                Some("0001-01-01T01:00:00Z"),
                &[],
            ),
        ),
        (
            "content/acme/new.md",
            &dated(
                "New",
                "9999-01-01T00:00:00Z",
                Some("9999-01-01T01:00:00Z"),
                &[],
            ),
        ),
    ]);
    let output = far.run(&["build", "--base-url", "https://example.com/"]);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    let warning = message_at(&far, &err, "content/acme/old.md", " warning");
    assert!(warning.contains("starts on 0001-01-01"), "{warning}");
    assert!(!err.contains("new.md"), "the newest is the archive: {err}");
    // A site of two incidents: the same few dozen files as any, not 142 MB (the data
    // files are three per year that holds an incident).
    let (files, bytes) = size(&far);
    assert!(
        files < 90 && bytes < 2_000_000,
        "{files} files, {bytes} bytes"
    );
    let calendars = far.html("days/index.html");
    assert_eq!(
        select(&calendars, "figure.calendar").len(),
        2,
        "one a year with incidents"
    );
    let stats: serde_json::Value =
        serde_json::from_str(&far.read("api/v1/acme/stats.json")).unwrap();
    let counted: Vec<i64> = stats["years"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| y["year"].as_i64().unwrap())
        .collect();
    assert_eq!(counted, [9999, 1]);

    // An ongoing incident whose latest update is dated 9999 lists itself on the days of
    // its own year, not on ten years of them; the far update is a warning.
    let open = Site::new(&[(
        "content/acme/open.md",
        &dated(
            "Open",
            "2024-01-01T00:00:00Z",
            None,
            &["2024-01-01 00:00", "9999-01-01 00:00"],
        ),
    )]);
    let output = open.run(&["build", "--base-url", "https://example.com/"]);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(err.contains("latest update on 9999-01-01"), "{err}");
    let days = tree(&open.path("public/api/v1/days")).len();
    assert_eq!(days, 366, "the days of 2024");

    // Years without an incident between two that have some are still counted (a quiet
    // year is a fact worth showing), up to ten of them in a row.
    let quiet = Site::new(&[
        (
            "content/acme/a.md",
            &dated(
                "A",
                "2015-03-01T00:00:00Z",
                Some("2015-03-01T01:00:00Z"),
                &[],
            ),
        ),
        (
            "content/acme/b.md",
            &dated(
                "B",
                "2025-03-01T00:00:00Z",
                Some("2025-03-01T01:00:00Z"),
                &[],
            ),
        ),
    ]);
    let output = quiet.run(&["build", "--base-url", "https://example.com/"]);
    assert!(!stderr(&output).contains("warning:"), "{}", stderr(&output));
    let stats: serde_json::Value =
        serde_json::from_str(&quiet.read("api/v1/acme/stats.json")).unwrap();
    assert_eq!(stats["years"].as_array().unwrap().len(), 11);
}
