//! `outages provider add` and `outages sync` against a status page served here, on
//! 127.0.0.1, from the real Statuspage payloads: conditional requests, retries, waits,
//! timeouts, caps and redirects, each failure local to its provider. No test touches the
//! internet.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::common::status_page::{
    Reply, Server, add, content, empty_site, json, payload, real_incidents, refused, run, sync,
};
use crate::common::{Site, stderr};

/// `incidents.json` with one more update on its first incident.
fn with_new_update(body: &str) -> String {
    let mut json: serde_json::Value = serde_json::from_str(body).unwrap();
    let updates = json["incidents"][0]["incident_updates"]
        .as_array_mut()
        .unwrap();
    let mut newer = updates[0].clone();
    newer["id"] = "synced-update".into();
    newer["status"] = "resolved".into();
    newer["body"] = "This incident has been resolved, says the newer payload.".into();
    newer["created_at"] = "2026-08-18T12:00:00.000Z".into();
    newer["display_at"] = "2026-08-18T12:00:00.000Z".into();
    updates.insert(0, newer);
    json["incidents"][0]["status"] = "resolved".into();
    json["incidents"][0]["resolved_at"] = "2026-08-18T12:00:00.000Z".into();
    json.to_string()
}

#[test]
fn a_new_user_adds_two_providers_syncs_and_a_second_sync_changes_nothing() {
    let server = Server::start();
    let incidents = payload("github-summary-two-open-incidents.json");
    server.provider(
        "github",
        vec![json(&incidents, "v1")],
        vec![json(
            &payload("github-summary-scheduled-maintenance.json"),
            "m1",
        )],
    );
    server.provider(
        "acme",
        vec![json(
            &payload("github-summary-critical-incident.json"),
            "a1",
        )],
        vec![json("{\"scheduled_maintenances\": []}", "a2")],
    );
    let site = empty_site();
    let added = add(&site, &["github", &server.page("github")]);
    assert!(
        added.starts_with("created ") && added.contains("content/github/_index.md"),
        "{added}"
    );
    add(
        &site,
        &[
            "acme",
            &server.page("acme"),
            "--name",
            "Acme Cloud",
            "--url",
            "https://acme.example",
        ],
    );

    let first = sync(&site, &[]);
    assert!(
        first.contains("github: 3 new, 0 updated, 0 unchanged"),
        "{first}"
    );
    assert!(
        first.contains("acme: 1 new, 0 updated, 0 unchanged"),
        "{first}"
    );
    assert!(
        first.contains("synced 2 of 2 providers: 4 new, 0 updated, 0 unchanged"),
        "{first}"
    );
    // The page's own name fills in the `_index.md` that had none; a given name stays.
    let index = std::fs::read_to_string(site.path("content/github/_index.md")).unwrap();
    assert!(index.starts_with("---\nname: \"GitHub\"\n"), "{index}");
    let acme = std::fs::read_to_string(site.path("content/acme/_index.md")).unwrap();
    assert!(acme.contains("name: \"Acme Cloud\""), "{acme}");
    assert!(acme.contains("url: \"https://acme.example\""), "{acme}");
    assert!(site.path(".outages-cache/sync.json").is_file());

    // The files build, and the pages show the providers by name.
    site.build(&[]);
    let provider = site.read("github/index.html");
    assert!(provider.contains("GitHub"));
    assert_eq!(site.rows("github/index.html"), 3);
    assert_eq!(site.rows("acme/index.html"), 1);

    // Again: every request is conditional, every answer 304, and nothing changes.
    let before = content(&site);
    let second = sync(&site, &[]);
    assert!(second.contains("github: unchanged (304)"), "{second}");
    assert!(second.contains("acme: unchanged (304)"), "{second}");
    assert!(second.contains("2 not modified"), "{second}");
    assert_eq!(content(&site), before);
    let agents = server.book.lock().unwrap().agents.clone();
    assert!(
        agents
            .iter()
            .all(|a| a.starts_with(concat!("outages/", env!("CARGO_PKG_VERSION")))),
        "{agents:?}"
    );
    let conditional: Vec<_> = server
        .seen("github")
        .into_iter()
        .filter(|(path, _)| path.contains("/api/v2/") && !path.ends_with("summary.json"))
        .skip(2)
        .collect();
    assert_eq!(conditional.len(), 2);
    for (path, tag) in &conditional {
        assert!(tag.is_some(), "{path} was asked without If-None-Match");
    }

    // A newer payload adds its update to the file that holds the incident; a dry run says
    // so first and writes nothing, not even the server's new validators.
    server.provider(
        "github",
        vec![json(&with_new_update(&incidents), "v2")],
        vec![json(
            &payload("github-summary-scheduled-maintenance.json"),
            "m1",
        )],
    );
    let state = std::fs::read(site.path(".outages-cache/sync.json")).unwrap();
    let dry = sync(&site, &["GitHub", "--dry-run"]);
    assert!(
        dry.contains("github: 0 new, 1 updated, 1 unchanged (dry run)"),
        "{dry}"
    );
    assert!(dry.contains("nothing was written"), "{dry}");
    assert_eq!(content(&site), before);
    assert_eq!(
        std::fs::read(site.path(".outages-cache/sync.json")).unwrap(),
        state
    );
    let third = sync(&site, &["github"]);
    assert!(
        third.contains("github: 0 new, 1 updated, 1 unchanged"),
        "{third}"
    );
    assert!(third.contains("(+1 update)"), "{third}");
    let changed: Vec<_> = content(&site)
        .into_iter()
        .filter(|(path, bytes)| before.get(path) != Some(bytes))
        .collect();
    assert_eq!(changed.len(), 1, "one file holds the incident");
    let text = String::from_utf8(changed[0].1.clone()).unwrap();
    assert!(text.contains("says the newer payload"), "{text}");
    let fourth = sync(&site, &["github"]);
    assert!(fourth.contains("github: unchanged (304)"), "{fourth}");
}

#[test]
fn a_server_error_is_retried_and_retry_after_is_waited_for() {
    let server = Server::start();
    let empty = "{\"incidents\": [], \"scheduled_maintenances\": []}";
    server.provider(
        "flaky",
        vec![
            Reply::Status(500),
            Reply::Status(502),
            json(&payload("github-summary-critical-incident.json"), "f"),
        ],
        vec![Reply::RetryAfter(429, 1), json(empty, "e")],
    );
    let site = empty_site();
    add(&site, &["flaky", &server.page("flaky"), "--name", "Flaky"]);
    let out = sync(&site, &[]);
    assert!(out.contains("flaky: 1 new"), "{out}");
    let book = server.book.lock().unwrap();
    let times: Vec<Instant> = book
        .seen
        .iter()
        .filter(|(path, ..)| path.ends_with("scheduled-maintenances.json"))
        .map(|(.., at)| *at)
        .collect();
    assert_eq!(times.len(), 2);
    assert!(
        times[1] - times[0] >= Duration::from_millis(950),
        "Retry-After: 1 was not waited for: {:?}",
        times[1] - times[0]
    );
    let incidents = book
        .seen
        .iter()
        .filter(|(path, ..)| path.ends_with("incidents.json"))
        .count();
    assert_eq!(incidents, 3, "two server errors, then the answer");
}

#[test]
fn each_failure_is_its_providers_alone_and_writes_nothing_for_it() {
    let server = Server::start();
    let empty = "{\"scheduled_maintenances\": []}";
    let good = payload("github-summary-critical-incident.json");
    let cases: [(&str, Reply, &str); 9] = [
        (
            "slow",
            Reply::Slow(Duration::from_secs(5)),
            "no complete answer within 1 s (3 tries)",
        ),
        ("huge", Reply::Huge(70), "over 64 MB"),
        ("sized", Reply::Sized(70), "over 64 MB"),
        (
            "patient",
            Reply::RetryAfter(429, 3600),
            "asks to wait 3600 s",
        ),
        ("badjson", json("{\"incidents\": [", "b"), "invalid JSON"),
        (
            "shape",
            json("{\"status\": {}}", "s"),
            "this is not a Statuspage payload",
        ),
        ("gone", Reply::Status(404), "HTTP 404 Not Found"),
        (
            "loop",
            Reply::Redirect("/loop/api/v2/incidents.json".into()),
            "redirect loop",
        ),
        (
            "down",
            Reply::Status(503),
            "HTTP 503 Service Unavailable (3 tries)",
        ),
    ];
    let site = empty_site();
    for (name, reply, _) in &cases {
        server.provider(name, vec![reply.clone()], vec![json(empty, "e")]);
        add(&site, &[name, &server.page(name), "--name", name]);
    }
    // Larger than a content file may be (4 MiB), as a payload of many incidents may be.
    let padded = format!("{good}{}", " ".repeat(5 << 20));
    server.provider("fine", vec![json(&padded, "g")], vec![json(empty, "e")]);
    add(&site, &["fine", &server.page("fine"), "--name", "Fine"]);
    // Nothing listens there: refused at once, not tried again.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_page = format!("http://{}/closed", closed.local_addr().unwrap());
    drop(closed);
    add(
        &site,
        &[
            "closed",
            &closed_page,
            "--name",
            "Closed",
            "--kind",
            "statuspage",
        ],
    );
    let before = content(&site);

    let (output, stdout) = run(&site, &["sync", "--timeout", "1"]);
    let errors = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{stdout}\n{errors}");
    assert!(stdout.contains("fine: 1 new"), "{stdout}");
    assert!(
        stdout.contains("synced 1 of 11 providers: 1 new, 0 updated, 0 unchanged; 10 failed"),
        "{stdout}"
    );
    let refused = errors
        .lines()
        .find(|l| l.starts_with("closed: failed"))
        .unwrap_or_else(|| panic!("{errors}"));
    assert!(refused.contains("cannot connect"), "{refused}");
    assert!(
        !refused.contains("tries"),
        "a refused connection is not retried: {refused}"
    );
    for (name, _, reason) in &cases {
        let line = errors
            .lines()
            .position(|l| l.starts_with(&format!("{name}: failed")))
            .unwrap_or_else(|| panic!("no failure for {name}:\n{errors}"));
        let told: String = errors
            .lines()
            .skip(line)
            .take(4)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            told.contains(reason),
            "{name}: expected `{reason}` in:\n{told}"
        );
        assert!(
            told.contains(&format!("/{name}/api/v2/incidents.json")),
            "{name}: the URL is named:\n{told}"
        );
    }
    // Only the provider that synced has new files.
    let after = content(&site);
    let new: Vec<&String> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    assert_eq!(new.len(), 1, "{new:?}");
    assert!(new[0].starts_with("fine/"), "{new:?}");
}

#[test]
fn providers_on_one_host_are_fetched_one_request_at_a_time() {
    let server = Server::start();
    let site = empty_site();
    for name in ["one", "two", "three"] {
        server.provider(
            name,
            vec![Reply::Slow(Duration::from_millis(200))],
            vec![Reply::Slow(Duration::from_millis(200))],
        );
        add(&site, &[name, &server.page(name), "--name", name]);
    }
    // What `provider add` asked to find the platform is not the sync's.
    server.book.lock().unwrap().seen.clear();
    let out = sync(&site, &["--jobs", "8"]);
    assert!(out.contains("synced 3 of 3 providers"), "{out}");
    let book = server.book.lock().unwrap();
    assert_eq!(
        book.seen.len(),
        9,
        "two endpoints and the history's first page each"
    );
    assert_eq!(book.most_in_flight, 1, "one host, one request at a time");
}

#[test]
fn sync_follows_only_providers_with_a_status_page_and_not_opted_out() {
    let server = Server::start();
    server.provider(
        "on",
        vec![json(&payload("github-summary-critical-incident.json"), "x")],
        vec![json("{\"scheduled_maintenances\": []}", "y")],
    );
    server.provider("off", vec![Reply::Status(500)], vec![Reply::Status(500)]);
    let site = Site::new(&[
        ("content/plain/_index.md", "---\nname: Plain\n---\n"),
        (
            "content/off/_index.md",
            &format!(
                "---\nname: Off\nstatus_page: {}\nsync: false\n---\n",
                server.page("off")
            ),
        ),
        (
            "content/on/_index.md",
            &format!(
                "---\nname: On\nstatus_page: {}\nsync: {{kind: statuspage}}\n---\n",
                server.page("on")
            ),
        ),
    ]);
    let out = sync(&site, &[]);
    assert!(out.contains("synced 1 of 1 provider"), "{out}");
    assert!(server.seen("off").is_empty());
    site.build(&[]);

    // Named ones are synced even when opted out; unknown ones and ones without a page are
    // usage errors.
    let (output, _) = run(&site, &["sync", "off"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(!server.seen("off").is_empty(), "named, it is synced");
    refused(&site, &["sync", "nope"], "no provider `nope`");
    refused(&site, &["sync", "plain"], "has no `status_page`");

    site.write(
        "content/on/_index.md",
        "---\nname: On\nstatus_page: https://status.example.com\nsync: {kind: rss}\n---\n",
    );
    // A wrong `sync:` value is an error at its place; for sync, that provider's alone.
    let (output, stdout) = run(&site, &["sync"]);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    let errors = stderr(&output);
    assert!(errors.contains("on: failed"), "{errors}");
    assert!(errors.contains("content/on/_index.md:4:"), "{errors}");
    assert!(
        errors.contains("\"rss\"") && errors.contains("one of statuspage, incident-io,"),
        "{errors}"
    );
    assert!(stdout.contains("synced 0 of 1 provider"), "{stdout}");
    assert_eq!(site.run(&["build"]).status.code(), Some(1));
}

#[test]
fn provider_add_refuses_what_it_cannot_write_well() {
    let site = empty_site();
    add(
        &site,
        &[
            "github",
            "https://www.githubstatus.com",
            "--name",
            "GitHub",
            "--kind",
            "statuspage",
        ],
    );
    for (args, says) in [
        (
            vec!["github", "https://www.githubstatus.com"],
            "exists already",
        ),
        (vec!["other", "javascript:alert(1)"], "not a web address"),
        (
            vec!["other", "https://x.example", "--url", "javascript:alert(1)"],
            "not a web address",
        ),
        (vec!["../x", "https://x.example.com"], "provider `../x`"),
    ] {
        let mut all = vec!["provider", "add"];
        all.extend(args);
        refused(&site, &all, says);
    }
    site.build(&[]);
    assert!(site.read("github/index.html").contains("githubstatus.com"));
    // The slug printed is the folder's, and sync takes the name as typed too.
    let out = add(
        &site,
        &[
            "Status Cake",
            "https://status.example.com",
            "--kind",
            "statuspage",
        ],
    );
    assert!(out.contains("content/status-cake/_index.md"), "{out}");
    assert!(out.contains("now: outages sync status-cake"), "{out}");
}

#[test]
fn the_page_name_goes_into_an_index_in_its_own_line_ends_and_an_empty_name_is_left_alone() {
    let server = Server::start();
    let empty = "{\"scheduled_maintenances\": []}";
    let two = payload("github-summary-two-open-incidents.json");
    server.provider("crlf", vec![json(&two, "c")], vec![json(empty, "e")]);
    server.provider(
        "blank",
        vec![json(&payload("github-summary-critical-incident.json"), "b")],
        vec![json(empty, "e")],
    );
    let site = Site::new(&[
        (
            "content/crlf/_index.md",
            &format!(
                "\u{feff}---\r\nstatus_page: {}\r\n---\r\nAbout.\r\n",
                server.page("crlf")
            ),
        ),
        (
            "content/blank/_index.md",
            &format!(
                "---\nname: \"\"\nstatus_page: {}\n---\n",
                server.page("blank")
            ),
        ),
    ]);
    let out = sync(&site, &[]);
    assert!(out.contains("crlf: 2 new"), "{out}");
    assert!(out.contains("blank: 1 new"), "{out}");
    assert!(
        out.contains("warning: ") && out.contains("its `name:` is empty"),
        "{out}"
    );
    let crlf = std::fs::read_to_string(site.path("content/crlf/_index.md")).unwrap();
    assert!(
        crlf.starts_with("\u{feff}---\r\nname: \"GitHub\"\r\nstatus_page:"),
        "{crlf:?}"
    );
    site.build(&[]);
    assert!(site.read("crlf/index.html").contains("GitHub"));
}

/// The workflow users copy: valid YAML with what the README promises.
#[test]
fn the_sync_workflow_runs_on_a_schedule_one_at_a_time_and_deploys() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.github/workflows/sync.yml"
    ))
    .unwrap();
    let workflow: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let on = &workflow["on"];
    assert!(on["schedule"][0]["cron"].is_string(), "{on}");
    assert!(on.get("workflow_dispatch").is_some(), "{on}");
    assert!(workflow["concurrency"]["group"].is_string());
    assert_eq!(workflow["permissions"]["contents"], "read");
    assert_eq!(workflow["jobs"]["sync"]["permissions"]["contents"], "write");
    let jobs = workflow["jobs"].as_object().unwrap();
    let runs: Vec<&str> = jobs
        .values()
        .flat_map(|job| job["steps"].as_array().into_iter().flatten())
        .filter_map(|step| step["run"].as_str())
        .collect();
    assert!(runs.iter().any(|r| r.contains("sync")), "{runs:?}");
    assert!(runs.iter().any(|r| r.contains("git commit")), "{runs:?}");
    let deploy = jobs
        .values()
        .find(|job| job["uses"].as_str() == Some("./.github/workflows/pages.yml"))
        .expect("the Pages workflow deploys what sync committed");
    // The run started from the commit before the sync's: the deploy builds the new one.
    assert_eq!(deploy["with"]["ref"], "${{ needs.sync.outputs.commit }}");
    let pages = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.github/workflows/pages.yml"
    ))
    .unwrap();
    let pages: serde_json::Value = serde_saphyr::from_str(&pages).unwrap();
    assert!(pages["on"]["workflow_call"]["inputs"].get("ref").is_some());
    let checkout = &pages["jobs"]["build"]["steps"][0];
    assert_eq!(checkout["with"]["ref"], "${{ inputs.ref }}");
}

/// The archive is read once per sync: what one provider wrote is known to the next, so an
/// incident two pages tell of is one file.
#[test]
fn what_one_provider_wrote_is_known_to_another_of_the_same_page() {
    let server = Server::start();
    let empty = "{\"scheduled_maintenances\": []}";
    let two = payload("github-summary-two-open-incidents.json");
    let site = empty_site();
    server.provider("page", vec![json(&two, "p")], vec![json(empty, "e")]);
    // Two folders naming one status page: the user says they are one provider.
    for name in ["first", "second"] {
        add(&site, &[name, &server.page("page"), "--name", name]);
    }
    // A dry run plans the second against the first's plan, as the real run does.
    let dry = sync(&site, &["--jobs", "1", "--dry-run"]);
    assert!(
        dry.contains("first: 2 new, 0 updated, 0 unchanged"),
        "{dry}"
    );
    assert!(
        dry.contains("second: 0 new, 0 updated, 2 unchanged"),
        "{dry}"
    );
    let out = sync(&site, &["--jobs", "1"]);
    assert!(
        out.contains("first: 2 new, 0 updated, 0 unchanged"),
        "{out}"
    );
    assert!(
        out.contains("second: 0 new, 0 updated, 2 unchanged"),
        "{out}"
    );
    let incidents = content(&site)
        .keys()
        .filter(|path| !path.ends_with("_index.md"))
        .count();
    assert_eq!(incidents, 2);
    site.build(&[]);
}

#[test]
fn a_page_that_gives_dates_is_asked_if_modified_since() {
    let server = Server::start();
    let date = "Tue, 18 Aug 2026 09:36:40 GMT".to_string();
    let dated = |body: String| Reply::Dated {
        body,
        date: date.clone(),
    };
    server.provider(
        "dated",
        vec![dated(payload("github-summary-critical-incident.json"))],
        vec![dated("{\"scheduled_maintenances\": []}".into())],
    );
    let site = empty_site();
    add(&site, &["dated", &server.page("dated"), "--name", "Dated"]);
    assert!(sync(&site, &[]).contains("dated: 1 new"));
    let again = sync(&site, &[]);
    assert!(again.contains("dated: unchanged (304)"), "{again}");
}

/// The paths of the incidents fetched whole, in the order asked.
fn fetched_whole(server: &Server, prefix: &str) -> Vec<String> {
    server
        .seen(prefix)
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| path.contains("/api/v2/incidents/"))
        .collect()
}

/// The incident files of `provider`, by the Statuspage code each holds.
fn files_by_code(site: &Site, provider: &str) -> BTreeMap<String, Vec<String>> {
    let mut by_code: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, bytes) in content(site) {
        if !path.starts_with(&format!("{provider}/")) || path.ends_with("_index.md") {
            continue;
        }
        let text = String::from_utf8(bytes).unwrap();
        let id = text
            .lines()
            .find_map(|line| line.strip_prefix("  id: "))
            .unwrap_or_else(|| panic!("{path} has no source id:\n{text}"));
        by_code
            .entry(id.trim_matches('"').to_string())
            .or_default()
            .push(path);
    }
    by_code
}

/// A GitHub whose history lists the real incidents of the fixtures, three pages of four,
/// and whose `incidents.json` gives the newest of them.
fn github_with_history(server: &Server) -> Vec<String> {
    let real = real_incidents();
    let latest = serde_json::json!({ "page": real[0]["page"], "incidents": [real[0]["incident"]] })
        .to_string();
    server.provider(
        "github",
        vec![json(&latest, "l")],
        vec![json("{\"scheduled_maintenances\": []}", "m")],
    );
    let pages: Vec<Vec<serde_json::Value>> = real.chunks(4).map(<[_]>::to_vec).collect();
    server.history("github", &pages);
    real.iter()
        .map(|i| i["incident"]["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_first_sync_reads_the_whole_history_and_the_next_ones_do_not() {
    let server = Server::start();
    let codes = github_with_history(&server);
    assert_eq!(codes.len(), 12);
    let site = empty_site();
    add(&site, &["github", &server.page("github")]);
    let first = sync(&site, &["--delay", "0"]);
    assert!(first.contains("github: 12 new, 0 updated"), "{first}");
    let held = files_by_code(&site, "github");
    assert_eq!(held.len(), codes.len(), "{held:?}");
    assert!(held.values().all(|files| files.len() == 1), "{held:?}");
    // The latest came with incidents.json: only the other eleven were fetched whole.
    let whole = fetched_whole(&server, "github");
    assert_eq!(whole.len(), 11, "{whole:?}");
    assert!(!whole.iter().any(|p| p.contains(&codes[0])), "{whole:?}");
    let pages = |server: &Server| {
        server
            .seen("github")
            .iter()
            .filter(|(path, _)| path.contains("/history.json"))
            .count()
    };
    assert_eq!(pages(&server), 4, "three pages and the empty one after");

    // The history is in: the next sync asks only the latest, and changes no byte.
    let before = content(&site);
    let second = sync(&site, &["--delay", "0"]);
    assert!(second.contains("github: unchanged (304)"), "{second}");
    assert_eq!(content(&site), before);
    assert_eq!(fetched_whole(&server, "github").len(), 11);
    assert_eq!(pages(&server), 4);

    // Asked for, the whole history is read again, and the files are as they were.
    let again = sync(&site, &["--delay", "0", "--history"]);
    assert!(
        again.contains("github: 0 new, 0 updated, 12 unchanged"),
        "{again}"
    );
    assert_eq!(fetched_whole(&server, "github").len(), 11 + 12);
    assert_eq!(content(&site), before);

    site.build(&[]);
    assert_eq!(site.rows("github/index.html"), 12);
    let (check, _) = run(&site, &["check"]);
    assert!(check.status.success(), "{}", stderr(&check));
}

#[test]
fn a_sync_stopped_half_way_is_finished_by_the_next_which_fetches_only_the_rest() {
    let server = Server::start();
    let codes = github_with_history(&server);
    server.book.lock().unwrap().cut = Some(("/api/v2/incidents/".into(), 5, Reply::Status(500)));
    let site = empty_site();
    add(&site, &["github", &server.page("github")]);
    let (output, stdout) = run(&site, &["sync", "--delay", "0"]);
    let errors = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{stdout}\n{errors}");
    assert!(errors.contains("HTTP 500"), "{errors}");
    assert!(
        errors.contains("the 5 incidents of its history fetched before are written"),
        "{errors}"
    );
    let first: Vec<String> = fetched_whole(&server, "github");
    let got: Vec<&String> = first[..5].iter().collect();
    assert_eq!(files_by_code(&site, "github").len(), 1 + 5);

    server.book.lock().unwrap().cut = None;
    let out = sync(&site, &["--delay", "0"]);
    assert!(out.contains("github: 6 new"), "{out}");
    let second = &fetched_whole(&server, "github")[first.len()..];
    assert_eq!(second.len(), 6, "{second:?}");
    assert!(second.iter().all(|p| !got.contains(&p)), "{second:?}");
    let held = files_by_code(&site, "github");
    assert_eq!(held.len(), codes.len(), "{held:?}");
    assert!(held.values().all(|files| files.len() == 1), "{held:?}");
    // Now the history is in: the next sync does not walk it.
    let before = server.seen("github").len();
    sync(&site, &["--delay", "0"]);
    assert_eq!(server.seen("github").len(), before + 2);
}

#[test]
fn an_old_timeline_becomes_one_update_per_entry() {
    let server = Server::start();
    github_with_history(&server);
    let site = empty_site();
    add(&site, &["github", &server.page("github")]);
    sync(&site, &["--delay", "0"]);
    let held = files_by_code(&site, "github");
    let path = &held["lnrxw0q67yzx"][0];
    let text = std::fs::read_to_string(site.path("content").join(path)).unwrap();
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(headings.len(), 11, "{text}");
    assert_eq!(headings[0], "### 2016-01-28T00:32:02Z: update");
    assert_eq!(headings[10], "### 2016-01-28T04:23:50Z: resolved");
    assert!(!text.contains("<li>"), "{text}");
    assert!(text.contains("resolved: 2016-01-28T04:23:50Z"), "{text}");

    site.build(&[]);
    let slug = path.trim_start_matches("github/").trim_end_matches(".md");
    let api: serde_json::Value =
        serde_json::from_str(&site.read(&format!("api/v1/github/{slug}.json"))).unwrap();
    let updates = api["updates"].as_array().unwrap();
    assert_eq!(updates.len(), 11, "{api}");
    assert_eq!(updates[3]["status"], "update");
    assert_eq!(updates[10]["status"], "resolved");
    let page = site.read(&format!("github/{slug}/index.html"));
    assert!(page.contains("Everything operating normally."), "{page}");
    assert!(!page.contains("&lt;li&gt;"), "{page}");
}

/// A GitHub whose history lists 120 incidents, `h000` to `h119`, and whose latest are none.
fn long_history(server: &Server) {
    let real = real_incidents();
    let many: Vec<serde_json::Value> = (0..120)
        .map(|i| {
            let mut incident = real[0].clone();
            incident["incident"]["id"] = format!("h{i:03}").into();
            incident["incident"]["name"] = format!("Incident number {i}").into();
            incident
        })
        .collect();
    let empty = "{\"incidents\": [], \"scheduled_maintenances\": []}";
    server.provider("github", vec![json(empty, "l")], vec![json(empty, "m")]);
    let pages: Vec<Vec<serde_json::Value>> = many.chunks(30).map(<[_]>::to_vec).collect();
    server.history("github", &pages);
}

/// An incident of the history that cannot be read fails its batch, nothing of it written,
/// and no more is fetched for the provider.
#[test]
fn a_broken_incident_of_the_history_stops_the_walk_and_writes_nothing_of_its_batch() {
    let server = Server::start();
    long_history(&server);
    server.on(
        "github",
        "incidents/h010.json",
        vec![json("{\"incident\": [", "x")],
    );
    let site = empty_site();
    add(
        &site,
        &["github", &server.page("github"), "--name", "GitHub"],
    );
    let (output, stdout) = run(&site, &["sync", "--delay", "0"]);
    let errors = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{stdout}\n{errors}");
    assert!(errors.contains("incidents/h010.json"), "{errors}");
    assert!(errors.contains("invalid JSON"), "{errors}");
    assert_eq!(files_by_code(&site, "github").len(), 0);
    let asked = fetched_whole(&server, "github").len();
    assert!((50..100).contains(&asked), "fetching stopped: {asked}");
}

/// A sync killed half way through a long history (120 incidents, written 50 at a time)
/// keeps what it wrote; run again, it fetches only the rest, and tells each hundred.
#[test]
fn a_sync_killed_half_way_keeps_its_batches_and_the_next_fetches_only_the_rest() {
    let server = Server::start();
    long_history(&server);
    // After 75 incidents the server stops answering, and the sync is killed.
    let stall = Reply::Slow(Duration::from_secs(60));
    server.book.lock().unwrap().cut = Some(("/api/v2/incidents/".into(), 75, stall));
    let site = empty_site();
    add(
        &site,
        &["github", &server.page("github"), "--name", "GitHub"],
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(["sync", "--delay", "0", "--root"])
        .arg(site.root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while fetched_whole(&server, "github").len() <= 75 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the sync did not get far"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Time for the merging thread to write what came before the stall.
    std::thread::sleep(Duration::from_millis(1000));
    child.kill().unwrap();
    child.wait().unwrap();
    let written = files_by_code(&site, "github");
    assert!(
        (50..=75).contains(&written.len()),
        "whole batches are written: {}",
        written.len()
    );

    server.book.lock().unwrap().cut = None;
    let asked = fetched_whole(&server, "github").len();
    let (output, stdout) = run(&site, &["sync", "--delay", "0"]);
    assert!(output.status.success(), "{stdout}\n{}", stderr(&output));
    let again = &fetched_whole(&server, "github")[asked..];
    assert_eq!(again.len(), 120 - written.len(), "{again:?}");
    assert!(
        again
            .iter()
            .all(|path| !written.keys().any(|code| path.contains(code.as_str()))),
        "{again:?}"
    );
    let held = files_by_code(&site, "github");
    assert_eq!(held.len(), 120);
    assert!(held.values().all(|files| files.len() == 1), "{held:?}");
    let (check, _) = run(&site, &["check"]);
    assert!(check.status.success(), "{}", stderr(&check));

    // From scratch, the hundredth is told on stderr.
    let fresh = empty_site();
    add(
        &fresh,
        &["github", &server.page("github"), "--name", "GitHub"],
    );
    let (output, _) = run(&fresh, &["sync", "--delay", "0"]);
    let errors = stderr(&output);
    assert!(
        errors.contains("github: 100 of 120 incidents of its history fetched"),
        "{errors}"
    );
    assert!(!errors.contains("200 of"), "{errors}");
}

/// A sync long after the last one, when more incidents came than `incidents.json` holds,
/// goes back to the history for those in between; one that finds the oldest of the latest
/// in the archive does not.
#[test]
fn a_sync_after_a_long_pause_fetches_what_lies_between_from_the_history() {
    let server = Server::start();
    github_with_history(&server);
    let site = empty_site();
    add(&site, &["github", &server.page("github")]);
    sync(&site, &["--delay", "0"]);
    let real = real_incidents();
    let newer: Vec<serde_json::Value> = (1..=3)
        .rev()
        .map(|day| {
            let mut incident = real[0].clone();
            let at = format!("2023-11-0{day}T10:00:00.000Z");
            incident["incident"]["id"] = format!("new{day}").into();
            incident["incident"]["name"] = format!("Newer incident {day}").into();
            incident["incident"]["created_at"] = at.clone().into();
            incident["incident"]["started_at"] = at.into();
            incident
        })
        .collect();
    // incidents.json holds the two newest; the third is only in the history.
    let latest = serde_json::json!({
        "page": real[0]["page"],
        "incidents": [newer[0]["incident"], newer[1]["incident"]],
    })
    .to_string();
    server.on("github", "incidents.json", vec![json(&latest, "l2")]);
    let mut pages = vec![newer.clone()];
    pages.extend(real.chunks(4).map(<[_]>::to_vec));
    server.history("github", &pages);
    let asked = fetched_whole(&server, "github").len();
    let out = sync(&site, &["--delay", "0"]);
    assert!(out.contains("github: 3 new"), "{out}");
    let whole = &fetched_whole(&server, "github")[asked..];
    assert_eq!(whole, ["/github/api/v2/incidents/new1.json"]);
    assert_eq!(files_by_code(&site, "github").len(), 15);

    // The latest again, in a new answer: the oldest of them is known, no walk.
    server.on("github", "incidents.json", vec![json(&latest, "l3")]);
    let before = server.seen("github").len();
    let out = sync(&site, &["--delay", "0"]);
    assert!(
        out.contains("github: 0 new, 0 updated, 2 unchanged"),
        "{out}"
    );
    assert_eq!(server.seen("github").len(), before + 2);
}
