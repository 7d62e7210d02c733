//! The search index as the browser reads it: Pagefind's entry file, its records (one per
//! incident, decompressed as its script does), the page and box that use it, and
//! `search: false`. Searching itself, in Chromium, is in `scripts/validate`.

use std::collections::BTreeMap;

use crate::common::{Site, incident, readable, select, tree};

fn archive() -> Site {
    let postmortem = "---\ntitle: Checkout errors\nstarted: 2024-03-05T14:00:00Z\nresolved: 2024-03-05T15:30:00Z\nimpact: critical\ncomponents: [Checkout, API]\nregions: [eu-west]\n---\nPayments failed.\n\n### 2024-03-05 14:00 UTC: investigating\nWe are looking into it.\n\n### 2024-03-06 10:00 UTC: postmortem\nA **stale** certificate on the zanzibar gateway & its <em>peers</em>.\n";
    Site::new(&[
        ("content/acme/_index.md", "---\nname: Acme Cloud\n---\n"),
        ("content/acme/checkout.md", postmortem),
        (
            "content/acme/older.md",
            &incident("Slow dashboard", "2023-07-01T09:00:00Z"),
        ),
        (
            "content/globex/dns.md",
            &incident("DNS resolution failures", "2024-03-05T14:30:00Z"),
        ),
    ])
}

/// The index's records: the shards' fragment files (a record, or a few by Pagefind's
/// hash), decompressed and parsed, by URL.
fn records(files: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, serde_json::Value> {
    readable(files)
        .into_iter()
        .filter(|(path, _)| path.ends_with(".pf_fragment") && in_shard(path))
        .flat_map(|(path, bytes)| {
            // Pagefind's signature, then JSON.
            let json = bytes
                .strip_prefix(b"pagefind_dcd")
                .expect("a Pagefind record");
            let file: serde_json::Value =
                serde_json::from_slice(json).unwrap_or_else(|e| panic!("{path}: {e}"));
            // A record alone, or a group of them by hash.
            match file.get("url") {
                Some(_) => vec![file],
                None => file.as_object().unwrap().values().cloned().collect(),
            }
        })
        .map(|record| (record["url"].as_str().unwrap().to_string(), record))
        .collect()
}

/// Whether a file of the index is in a shard's folder (`pagefind/2024/…`), not the words
/// bundle's.
fn in_shard(path: &str) -> bool {
    path.strip_prefix("pagefind/")
        .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_digit()))
}

fn index_files(site: &Site) -> BTreeMap<String, Vec<u8>> {
    tree(&site.path("public"))
        .into_iter()
        .filter(|(path, _)| path.starts_with("pagefind/"))
        .collect()
}

#[test]
fn a_build_started_in_a_deleted_folder_is_an_error_not_a_crash() {
    let site = archive();
    let gone = tempfile::tempdir().unwrap();
    // The shell's folder deleted under it: the build starts there.
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg("cd \"$2\" && rmdir \"$2\" && exec \"$0\" build --root \"$1\"")
        .arg(env!("CARGO_BIN_EXE_outages"))
        .arg(site.root())
        .arg(gone.path())
        .env_remove("CI")
        .output()
        .unwrap();
    let stderr = crate::common::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "error: the search index could not be built: the current folder cannot be read"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !site.path("public/index.html").exists(),
        "nothing half-written"
    );
}

#[test]
fn every_incident_is_a_record_with_its_words_and_facets() {
    let site = archive();
    site.build(&["--base-url", "https://user.github.io/repo/"]);
    let files = index_files(&site);
    // What the search page reads first: the shards, newest first, and every facet's
    // totals.
    let listed: serde_json::Value = serde_json::from_slice(&files["pagefind/shards.json"]).unwrap();
    assert_eq!(
        listed["shards"],
        serde_json::json!([{"name": "2024", "incidents": 2}, {"name": "2023", "incidents": 1}])
    );
    assert_eq!(
        listed["filters"]["provider"],
        serde_json::json!({"Acme Cloud": 2, "globex": 1})
    );
    // Each shard a bundle whose entry names the meta file that is there; the words
    // bundle, with a record per shard and Pagefind's script, beside them.
    for (dir, pages) in [
        ("pagefind/2024/", 2),
        ("pagefind/2023/", 1),
        ("pagefind/words/", 2),
    ] {
        let entry: serde_json::Value =
            serde_json::from_slice(&files[&format!("{dir}pagefind-entry.json")]).unwrap();
        assert_eq!(
            entry["languages"]["en"]["page_count"], pages,
            "{dir}: {entry}"
        );
        let hash = entry["languages"]["en"]["hash"].as_str().unwrap();
        assert!(
            files.contains_key(&format!("{dir}pagefind.{hash}.pf_meta")),
            "{dir}"
        );
    }
    for needed in [
        "pagefind/words/pagefind.js",
        "pagefind/words/pagefind-worker.js",
        "pagefind/words/wasm.en.pagefind",
    ] {
        assert!(files.contains_key(needed), "{needed}");
    }
    assert!(
        !files
            .keys()
            .any(|path| in_shard(path) && path.ends_with(".js")),
        "Pagefind's script is shipped once"
    );
    assert!(
        !files.keys().any(|path| path.contains("-ui.")),
        "Pagefind's own UIs are not shipped: the theme has its own"
    );
    // Records are grouped into fragment files, not one file each.
    assert_eq!(
        files
            .keys()
            .filter(|path| in_shard(path) && path.ends_with(".pf_fragment"))
            .count(),
        2,
        "a file per shard here"
    );

    let records = records(&files);
    // Paths from the site's root: Pagefind's script puts the folder it is served from in
    // front, so the same index works under any base URL.
    assert_eq!(
        records.keys().collect::<Vec<_>>(),
        ["/acme/checkout/", "/acme/older/", "/globex/dns/"]
    );
    let checkout = &records["/acme/checkout/"];
    let content = checkout["content"].as_str().unwrap();
    assert!(
        content.contains("A stale certificate on the zanzibar gateway & its peers."),
        "the postmortem's words as they read, markup gone: {content}"
    );
    assert!(content.contains("Payments failed.") && content.contains("We are looking into it."));
    let meta = &checkout["meta"];
    assert_eq!(meta["title"], "Checkout errors");
    assert_eq!(meta["provider"], "Acme Cloud");
    assert_eq!(meta["impact"], "Major outage");
    assert_eq!(meta["impact_key"], "critical");
    assert_eq!(meta["date"], "2024-03-05");
    assert_eq!(meta["month"], "March 2024");
    assert_eq!(meta["duration"], "1h 30m");
    assert_eq!(meta["components"], "Checkout, API");
    let filters = &checkout["filters"];
    assert_eq!(filters["provider"], serde_json::json!(["Acme Cloud"]));
    assert_eq!(filters["impact"], serde_json::json!(["Major outage"]));
    assert_eq!(filters["year"], serde_json::json!(["2024"]));
    assert_eq!(filters["component"], serde_json::json!(["Checkout", "API"]));
    assert_eq!(filters["region"], serde_json::json!(["eu-west"]));
    assert!(
        records["/globex/dns/"]["filters"]
            .get("component")
            .is_none(),
        "no empty facet"
    );
}

#[test]
fn text_inside_an_html_block_is_found_as_the_page_shows_it() {
    // As GitHub wrote a resolution summary: an HTML block, a script beside it.
    let body = "---\ntitle: Storage degraded\nstarted: 2025-06-12T10:00:00Z\nresolved: 2025-06-12T11:00:00Z\nimpact: minor\n---\n### 2025-06-12 10:00 UTC: resolved\n<p>Customers in zebrafrankfurt saw <b>slow</b>\nwrites.</p>\n<script>quagga()</script>\n";
    let site = Site::new(&[("content/acme/storage.md", body)]);
    site.build(&[]);
    let records = records(&index_files(&site));
    let content = records.values().next().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        content.contains("Customers in zebrafrankfurt saw slow writes."),
        "{content}"
    );
    assert!(
        !content.contains("quagga") && !content.contains('<'),
        "{content}"
    );
    let url = records.keys().next().unwrap();
    let page = site.read(&format!("{}index.html", url.trim_start_matches('/')));
    assert!(page.contains("zebrafrankfurt") && !page.contains("quagga"));
}

#[test]
fn the_index_is_the_same_bytes_whatever_the_threads_and_base_url() {
    let site = archive();
    let output = site.run_env(&["build"], &[("RAYON_NUM_THREADS", "1")]);
    assert!(output.status.success());
    let one = index_files(&site);
    std::fs::remove_dir_all(site.path("public")).unwrap();
    let output = site.run_env(
        &["build", "--base-url", "https://user.github.io/repo/"],
        &[("RAYON_NUM_THREADS", "8")],
    );
    assert!(output.status.success());
    let many = index_files(&site);
    assert!(one.len() > 8, "{}", one.len());
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        many.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &one {
        assert!(many[path] == *bytes, "{path} differs");
    }
}

#[test]
fn an_edit_replaces_the_index_files_it_changes_and_removes_the_old_ones() {
    let site = archive();
    site.build(&[]);
    let before = index_files(&site);
    std::fs::remove_file(site.path("content/acme/older.md")).unwrap();
    site.write(
        "content/globex/dns.md",
        &incident(
            "DNS resolution failures in zanzibar",
            "2024-03-05T14:30:00Z",
        ),
    );
    site.build(&[]);
    let after = index_files(&site);
    let records = records(&after);
    assert_eq!(
        records.keys().collect::<Vec<_>>(),
        ["/acme/checkout/", "/globex/dns/"]
    );
    assert_eq!(
        records["/globex/dns/"]["meta"]["title"],
        "DNS resolution failures in zanzibar"
    );
    // 2023 lost its one incident: its shard is gone. 2024's edit made its shard again.
    assert!(!after.keys().any(|path| path.starts_with("pagefind/2023/")));
    assert!(
        before
            .keys()
            .filter(|path| path.starts_with("pagefind/2024/"))
            .any(|path| !after.contains_key(path)),
        "the edited shard's old files are gone"
    );
    // Pagefind's own code is unchanged, so it is not rewritten.
    assert_eq!(
        before["pagefind/words/pagefind.js"],
        after["pagefind/words/pagefind.js"]
    );
}

#[test]
fn an_edit_indexes_its_shard_again_and_leaves_the_others_byte_for_byte() {
    let site = archive();
    site.build(&[]);
    let before = index_files(&site);
    let state = |files: &BTreeMap<String, Vec<u8>>| {
        String::from_utf8(files["pagefind/.outages-index"].clone()).unwrap()
    };
    site.write(
        "content/globex/dns.md",
        &incident("DNS failures in quokkaville", "2024-03-05T14:30:00Z"),
    );
    let output = site.build(&[]);
    let after = index_files(&site);
    let shard = |files: &BTreeMap<String, Vec<u8>>, dir: &str| -> BTreeMap<String, Vec<u8>> {
        files
            .iter()
            .filter(|(path, _)| path.starts_with(dir))
            .map(|(path, bytes)| (path.clone(), bytes.clone()))
            .collect()
    };
    assert_eq!(
        shard(&before, "pagefind/2023/"),
        shard(&after, "pagefind/2023/"),
        "2023's shard, whose records did not change, is the same files: {output}"
    );
    assert_ne!(
        shard(&before, "pagefind/2024/"),
        shard(&after, "pagefind/2024/")
    );
    // The state names each shard with what it was made from: 2023's line stays.
    let line = |text: String, name: &str| {
        text.lines()
            .find(|line| line.starts_with(&format!("shard {name} ")))
            .unwrap()
            .to_string()
    };
    assert_eq!(line(state(&before), "2023"), line(state(&after), "2023"));
    assert_ne!(line(state(&before), "2024"), line(state(&after), "2024"));
    // The new word is in the words bundle, which names the shard to load for it.
    let words: Vec<String> = readable(&after)
        .into_iter()
        .filter(|(path, _)| path.starts_with("pagefind/words/") && path.ends_with(".pf_fragment"))
        .map(|(_, bytes)| String::from_utf8_lossy(&bytes).into_owned())
        .collect();
    assert!(
        words
            .iter()
            .any(|text| text.contains("quokkaville") && text.contains("\"covers\":[\"2024\"]")),
        "{words:?}"
    );
    // 2023's shard was taken again, its words not gathered: made again with the bundle,
    // they are still there.
    assert!(
        words
            .iter()
            .any(|text| text.contains("dashboard") && text.contains("\"covers\":[\"2023\"]")),
        "{words:?}"
    );
    // The words Pagefind was asked about are kept with the cache for the next build, and
    // what it made with them and with the shards taken again is what a build anew makes.
    assert!(site.path(".outages-cache/search-words").is_file());
    let anew = site.path("anew");
    site.build(&["--no-cache", "--output", anew.to_str().unwrap()]);
    let anew: BTreeMap<String, Vec<u8>> = tree(&anew)
        .into_iter()
        .filter(|(path, _)| path.starts_with("pagefind/"))
        .collect();
    assert_eq!(after, anew);
    // Words the shard has already, in another order and case: its shard is indexed again,
    // the words bundle is left as it was.
    site.write(
        "content/globex/dns.md",
        &incident("In quokkaville, DNS failures", "2024-03-05T14:30:00Z"),
    );
    site.build(&[]);
    let again = index_files(&site);
    assert_ne!(
        shard(&after, "pagefind/2024/"),
        shard(&again, "pagefind/2024/")
    );
    assert_eq!(
        shard(&after, "pagefind/words/"),
        shard(&again, "pagefind/words/")
    );
}

#[test]
fn what_serve_remembers_of_a_shard_counts_only_for_the_very_same_incidents() {
    use outages::search::{Memory, index};
    use std::sync::Arc;

    let site = archive();
    let loaded = outages::site::Site::load(&outages::site::Options::new(site.root())).unwrap();
    let names = loaded.views.incidents.provider_names();
    let incidents = loaded.archive.incidents.clone();
    let from = |files: &Vec<(String, Vec<u8>)>| {
        let files = files.clone();
        move |path: &str| {
            files
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, b)| b.clone())
        }
    };
    let mut memory = Memory::default();
    let first = index(&incidents, &names, "en", |_| None, &mut memory).unwrap();
    // The same incidents again: the same files.
    let again = index(&incidents, &names, "en", from(&first), &mut memory).unwrap();
    assert_eq!(again, first);
    // One incident edited, the others the very same: what the memory gives is what an
    // index that remembers nothing makes.
    let mut edited = incidents.clone();
    let at = edited
        .iter()
        .position(|i| i.title.starts_with("DNS"))
        .unwrap();
    let mut dns = (*edited[at]).clone();
    dns.title = "DNS failures in quokkaville".to_string();
    edited[at] = Arc::new(dns);
    let remembered = index(&edited, &names, "en", from(&first), &mut memory).unwrap();
    let fresh = index(&edited, &names, "en", from(&first), &mut Memory::default()).unwrap();
    assert_eq!(remembered, fresh);
    assert_ne!(remembered, first);
    let quokka = readable(&remembered.iter().cloned().collect())
        .into_iter()
        .any(|(path, bytes)| {
            path.starts_with("pagefind/words/")
                && String::from_utf8_lossy(&bytes).contains("quokkaville")
        });
    assert!(quokka, "the new word is in the words bundle");
    // Another language: nothing remembered counts.
    let german = index(&edited, &names, "de", from(&remembered), &mut memory).unwrap();
    let fresh = index(
        &edited,
        &names,
        "de",
        from(&remembered),
        &mut Memory::default(),
    )
    .unwrap();
    assert_eq!(german, fresh);
}

#[test]
fn a_rebuild_of_the_same_incidents_takes_the_index_again_unless_it_was_damaged() {
    let site = archive();
    site.build(&[]);
    let first = index_files(&site);
    assert!(first.contains_key("pagefind/.outages-index"));
    let again = site.build(&[]);
    assert!(again.contains(" 0 written"), "{again}");
    // A file of the index damaged in the output, or its state: found, and built again.
    let fragment = first.keys().find(|p| p.ends_with(".pf_fragment")).unwrap();
    site.write_bytes(&format!("public/{fragment}"), b"damaged");
    site.build(&[]);
    assert_eq!(index_files(&site), first);
    site.write_bytes(
        "public/pagefind/.outages-index",
        b"outages search index 1\nforged\n",
    );
    site.build(&[]);
    assert_eq!(index_files(&site), first);
}

#[test]
fn every_page_has_the_search_box_and_the_search_page_works_without_script_too() {
    let site = archive();
    site.build(&["--base-url", "https://user.github.io/repo/"]);
    for page in [
        "index.html",
        "acme/index.html",
        "acme/checkout/index.html",
        "404.html",
    ] {
        let html = site.html(page);
        let form = select(&html, "header form[role=search]");
        assert_eq!(form.len(), 1, "{page}");
        assert_eq!(form[0].value().attr("action"), Some("/repo/search/"));
        assert_eq!(form[0].value().attr("method"), Some("get"));
        assert_eq!(select(&html, "header input[name=q]").len(), 1, "{page}");
        // No search script but on the search page: only the one of local times.
        assert!(
            select(&html, "script").iter().all(|s| !s
                .value()
                .attr("src")
                .unwrap_or_default()
                .contains("search")),
            "{page} runs no search script"
        );
    }
    let search = site.html("search/index.html");
    assert!(
        select(&search, "header form").is_empty(),
        "the search page has its own box"
    );
    let form = &select(&search, "form#search")[0];
    assert_eq!(form.value().attr("action"), Some("/repo/search/"));
    assert_eq!(form.value().attr("data-index"), Some("/repo/pagefind/"));
    let scripts = select(&search, "script[type=module]");
    assert_eq!(scripts.len(), 1);
    let src = scripts[0].value().attr("src").unwrap();
    assert!(
        src.starts_with("/repo/search.") && src.ends_with(".js"),
        "{src}"
    );
    assert!(
        site.path("public")
            .join(src.trim_start_matches("/repo/"))
            .exists()
    );
    // Without JavaScript: where else to look.
    let noscript = select(&search, "noscript")[0].inner_html();
    for link in ["/repo/incidents/", "/repo/#providers", "/repo/days/"] {
        assert!(
            noscript.contains(&format!("href=\"{link}\"")),
            "{link}: {noscript}"
        );
    }
}

#[test]
fn nothing_else_may_be_written_where_the_index_goes() {
    let site = archive();
    site.write(
        "content/pagefind/fragment.md",
        &incident("A provider named like the index", "2024-03-05T14:00:00Z"),
    );
    site.write("static/pagefind/notes.txt", "mine");
    let output = site.run(&["build"]);
    assert_eq!(output.status.code(), Some(1));
    let err = crate::common::stderr(&output);
    for what in [
        "`pagefind/fragment/index.html`",
        "`pagefind/notes.txt`",
        "`pagefind/index.html`",
    ] {
        assert!(err.contains(what), "{what} missing:\n{err}");
    }
    assert!(err.contains("where the search index goes"), "{err}");
    assert!(!site.path("public").exists());
    // Without search, the folder is free.
    site.write("site.yaml", "search: false\n");
    site.build(&[]);
    assert!(site.path("public/pagefind/fragment/index.html").exists());
}

#[test]
fn search_false_leaves_no_index_box_page_or_script() {
    let site = archive();
    site.write("site.yaml", "search: false\n");
    site.build(&[]);
    let files = tree(&site.path("public"));
    assert!(
        !files
            .keys()
            .any(|path| path.starts_with("pagefind/") || path.starts_with("search")),
        "{:?}",
        files
            .keys()
            .filter(|p| p.contains("search"))
            .collect::<Vec<_>>()
    );
    assert!(select(&site.html("index.html"), "form").is_empty());
    let headers = site.read("_headers");
    assert!(
        !headers.contains("search") && !headers.contains("wasm"),
        "{headers}"
    );

    // Turned back on, and off again: the index comes and goes with the option.
    site.write("site.yaml", "search: true\n");
    site.build(&[]);
    assert!(
        site.path("public/pagefind/words/pagefind-entry.json")
            .exists()
    );
    site.write("site.yaml", "search: false\n");
    site.build(&[]);
    assert!(!site.path("public/pagefind").exists());
    assert!(!site.path("public/search").exists());
}
