//! The commands that write `content/` (`import`, `sync`, `new`, `provider add`) as an
//! attacker and a careless user meet them: a status page cannot write another provider's
//! incidents, two writers at once take turns, and a writer killed at any point leaves the
//! archive with all of its commit or none, and no hidden file behind.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::status_page::{Server, add, content, empty_site, json, payload, run, sync};
use crate::common::{Site, stderr};

const EMPTY: &str = "{\"scheduled_maintenances\": []}";

/// GitHub's real incident as a hostile page would serve it: the same incident code, renamed,
/// of no impact, resolved five minutes in, with one forged update.
fn forged(real: &str) -> String {
    let mut json: Value = serde_json::from_str(real).unwrap();
    json["page"]["name"] = "Evil".into();
    let incident = &mut json["incidents"][0];
    incident["name"] = "Nothing happened".into();
    incident["impact"] = "none".into();
    incident["status"] = "resolved".into();
    incident["resolved_at"] = "2026-08-17T13:45:00.000Z".into();
    let updates = incident["incident_updates"].as_array_mut().unwrap();
    let mut extra = updates[0].clone();
    extra["id"] = "forged".into();
    extra["status"] = "resolved".into();
    extra["body"] = "FORGED".into();
    extra["created_at"] = "2026-08-17T13:45:00.000Z".into();
    extra["display_at"] = "2026-08-17T13:45:00.000Z".into();
    updates.insert(0, extra);
    json.to_string()
}

/// `payload` with each incident's code (and its updates') made `<prefix>-<n>`, and `copies`
/// copies of its incidents: distinct incidents for another provider.
fn renumbered(payload: &str, prefix: &str, copies: usize) -> String {
    let mut json: Value = serde_json::from_str(payload).unwrap();
    let originals = json["incidents"].as_array().unwrap().clone();
    let mut incidents = Vec::new();
    for n in 0..copies {
        for (i, original) in originals.iter().enumerate() {
            let mut incident = original.clone();
            let code = format!("{prefix}-{n}-{i}");
            incident["id"] = code.clone().into();
            incident["name"] = format!("Incident {code}").into();
            incident["shortlink"] = format!("https://stspg.io/{code}").into();
            for update in incident["incident_updates"].as_array_mut().unwrap() {
                update["incident_id"] = code.clone().into();
            }
            incidents.push(incident);
        }
    }
    json["incidents"] = incidents.into();
    json.to_string()
}

/// The files under `content/` whose names are hidden (a writer's staged files, a journal).
fn hidden(site: &Site) -> Vec<String> {
    content(site)
        .into_keys()
        .filter(|path| path.split('/').any(|part| part.starts_with('.')))
        .collect()
}

fn incidents_of(files: &BTreeMap<String, Vec<u8>>, provider: &str) -> usize {
    files
        .keys()
        .filter(|p| p.starts_with(&format!("{provider}/")) && !p.ends_with("_index.md"))
        .count()
}

#[test]
fn a_followed_page_cannot_rewrite_another_providers_incidents() {
    let server = Server::start();
    let real = payload("github-summary-critical-incident.json");
    let fake = forged(&real);
    server.provider("victim", vec![json(&real, "v")], vec![json(EMPTY, "e")]);
    server.provider("evil", vec![json(&fake, "f")], vec![json(EMPTY, "e")]);
    let site = empty_site();
    add(
        &site,
        &["github", &server.page("victim"), "--name", "GitHub"],
    );
    assert!(sync(&site, &["github"]).contains("github: 1 new"));
    let before = content(&site);

    add(&site, &["evil", &server.page("evil"), "--name", "Evil"]);
    let (output, stdout) = run(&site, &["sync", "evil"]);
    assert_eq!(output.status.code(), Some(3), "{stdout}{}", stderr(&output));
    assert!(
        stdout.contains("conflict  content/github/")
            && stdout.contains("this incident is github's"),
        "{stdout}"
    );
    assert!(stdout.contains("1 held by another provider"), "{stdout}");
    let after = content(&site);
    let added: Vec<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert_eq!(added, ["evil/_index.md"], "only the provider's own file");
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{path} was rewritten");
    }

    // The same payload imported by hand for the other provider.
    site.write("forged.json", &fake);
    let forged_file = site.path("forged.json");
    let file = forged_file.to_str().unwrap();
    for args in [
        vec!["import", "statuspage", file, "--provider", "evil"],
        // Named by the payload itself ("Evil").
        vec!["import", "statuspage", file],
    ] {
        let (output, stdout) = run(&site, &args);
        assert_eq!(output.status.code(), Some(3), "{stdout}{}", stderr(&output));
        assert!(stdout.contains("this incident is github's"), "{stdout}");
        assert_eq!(content(&site), after);
    }

    site.build(&[]);
    let public = crate::common::tree(&site.path("public"));
    assert!(
        public.keys().any(|k| k.starts_with("github/")),
        "github's pages"
    );
    for (path, bytes) in public {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("Nothing happened") && !text.contains("FORGED"),
            "{path} shows the forged incident"
        );
    }
}

#[test]
fn a_second_writer_waits_for_the_first() {
    let site = empty_site();
    site.write("content/acme/_index.md", "---\nname: Acme\n---\n");
    let lock = std::fs::File::create(site.path(".content.lock")).unwrap();
    lock.lock().unwrap();
    let mut new = Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(["new", "acme", "Held up"])
        .arg("--root")
        .arg(site.root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It waits however long the lock is held; half a second shows it does not go ahead.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        new.try_wait().unwrap().is_none(),
        "it went on under the lock"
    );
    assert_eq!(incidents_of(&content(&site), "acme"), 0);
    drop(lock);
    let output = new.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("waiting for another import, sync or `new`"),
        "{}",
        stderr(&output)
    );
    assert_eq!(incidents_of(&content(&site), "acme"), 1);
}

#[test]
fn two_syncs_at_once_write_each_incident_once() {
    let server = Server::start();
    let two = payload("github-summary-two-open-incidents.json");
    let site = empty_site();
    let providers: Vec<String> = (0..8).map(|n| format!("p{n}")).collect();
    for name in &providers {
        let own = renumbered(&two, name, 1);
        server.provider(name, vec![json(&own, name)], vec![json(EMPTY, "e")]);
        add(&site, &[name, &server.page(name), "--name", name]);
    }
    for round in 0..3 {
        let syncs: Vec<_> = (0..2)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_outages"))
                    .args(["sync", "--jobs", "4", "--root"])
                    .arg(site.root())
                    .env_remove("CI")
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in syncs {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                stderr(&output)
            );
        }
        let files = content(&site);
        for name in &providers {
            assert_eq!(incidents_of(&files, name), 2, "round {round}: {name}");
        }
        assert!(hidden(&site).is_empty(), "{:?}", hidden(&site));
        let check = site.run(&["check"]);
        assert!(check.status.success(), "{}", stderr(&check));
    }
}

#[test]
fn an_import_killed_at_any_point_commits_all_or_nothing_and_leaves_no_file_behind() {
    let site = empty_site();
    site.write("content/other/_index.md", "---\nname: Other\n---\n");
    let many = renumbered(&payload("github-summary-two-open-incidents.json"), "k", 60);
    site.write("many.json", &many);
    let file = site.path("many.json");
    let import = || {
        Command::new(env!("CARGO_BIN_EXE_outages"))
            .args(["import", "statuspage"])
            .arg(&file)
            .args(["--provider", "github", "--root"])
            .arg(site.root())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // How long a whole import takes here, so the kills fall all along it;
    // the slowest of three, as a loaded machine varies.
    let mut whole = Duration::ZERO;
    for _ in 0..3 {
        let start = Instant::now();
        assert!(import().wait().unwrap().success());
        whole = whole.max(start.elapsed());
    }
    for step in 0..16u32 {
        std::fs::remove_dir_all(site.path("content/github")).unwrap();
        let mut child = import();
        std::thread::sleep(whole * step / 10);
        let _ = child.kill();
        child.wait().unwrap();
        // The next writer finishes or clears what the killed one left.
        let new = site.run(&["new", "other", &format!("After kill {step}")]);
        assert!(new.status.success(), "{}", stderr(&new));
        assert!(hidden(&site).is_empty(), "step {step}: {:?}", hidden(&site));
        let written = incidents_of(&content(&site), "github");
        assert!(
            written == 0 || written == 120,
            "step {step}: {written} of 120"
        );
        let check = site.run(&["check"]);
        assert!(check.status.success(), "{}", stderr(&check));
        if site.path("content/github").exists() {
            continue;
        }
        std::fs::create_dir_all(site.path("content/github")).unwrap();
    }
    // Left to finish, the same import writes all of it.
    std::fs::remove_dir_all(site.path("content/github")).unwrap();
    assert!(import().wait().unwrap().success());
    assert_eq!(incidents_of(&content(&site), "github"), 120);
}
