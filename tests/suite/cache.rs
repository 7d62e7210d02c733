//! The build cache (`.outages-cache/`): a build after it redoes only what changed, always
//! gives the bytes a build from scratch gives, repairs an output edited by hand, and never
//! trusts a cache that is damaged, truncated or another's. (The randomized oracle over
//! cached builds is in `incremental.rs`.)

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Site, incident, readable, stderr, tree};

/// A site of `count` incidents over two providers.
fn archive(count: usize) -> Site {
    let site = Site::new(&[]);
    for i in 0..count {
        let provider = ["acme", "globex"][i % 2];
        let day = 1 + i % 28;
        site.write(
            &format!("content/{provider}/i{i}.md"),
            &incident(
                &format!("Outage {i}"),
                &format!("2024-02-{day:02}T{:02}:00:00Z", i % 24),
            ),
        );
    }
    site
}

/// What a build from scratch of `site` gives, built into a fresh folder.
fn from_scratch(site: &Site) -> std::collections::BTreeMap<String, Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let output = site.run(&["build", "--no-cache", "--output", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    tree(&out)
}

/// The number before `word` in a summary line (`3 written`).
fn count(summary: &str, word: &str) -> usize {
    let words: Vec<&str> = summary.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| w.trim_end_matches(',') == word)
        .unwrap_or_else(|| panic!("no {word} in {summary}"));
    words[at - 1].parse().unwrap()
}

/// Sets a file's modification time into the past, as if it had been written long ago (a
/// file written just before a build is always read again, as its time cannot tell).
fn age(path: &Path) {
    let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
}

#[test]
fn a_build_after_a_build_writes_nothing_and_one_after_an_edit_only_what_shows_it() {
    let site = archive(40);
    let first = site.build(&[]);
    assert_eq!(count(&first, "unchanged"), 0, "{first}");
    let cache = site.path(".outages-cache");
    assert!(cache.join("build").is_file());
    assert!(
        std::fs::read_to_string(cache.join("CACHEDIR.TAG"))
            .unwrap()
            .starts_with("Signature: 8a477f597d28d172789f06886806bc55"),
        "tagged as a cache, so backups skip it"
    );
    let before = crate::common::mtimes(&site.path("public"));
    let again = site.build(&[]);
    assert_eq!(count(&again, "written"), 0, "{again}");
    assert_eq!(crate::common::mtimes(&site.path("public")), before);
    // New text in one update: its page, its API file and the feeds that carry it.
    let file = site.path("content/acme/i4.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}More news.\n")).unwrap();
    // Dated well before the builds, so whether it has settled does not depend on how long
    // they take (a file changed in the last seconds is read again until it has).
    age(&file);
    let edited = site.build(&[]);
    // (Its search index's files among them, renamed by their content.)
    let written = count(&edited, "written");
    assert!((1..=20).contains(&written), "{edited}");
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    // The cache knows the files that build wrote as they are: the next build writes
    // nothing. Files written in the last two seconds are hashed again until they settle,
    // and the first build that finds them settled records their stamps: waited for here,
    // so that which build that is does not depend on the machine's load. From then on a
    // build has nothing to do (it would write the cache again had it started from the
    // parsed files).
    std::thread::sleep(Duration::from_millis(2_500));
    let modified = || {
        std::fs::metadata(cache.join("build"))
            .unwrap()
            .modified()
            .unwrap()
    };
    let again = site.build(&[]);
    assert_eq!(count(&again, "written"), 0, "{again}");
    let saved = modified();
    let steady = site.build(&[]);
    assert_eq!(count(&steady, "written"), 0, "{steady}");
    assert_eq!(
        saved,
        modified(),
        "the build after the edit found something to do"
    );
}

#[test]
fn files_seen_long_ago_are_taken_from_the_cache_by_their_times_and_an_edit_is_still_seen() {
    let site = archive(6);
    let file = site.path("content/acme/i0.md");
    for entry in walkdir::WalkDir::new(site.path("content")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            age(entry.path());
        }
    }
    site.build(&[]);
    assert_eq!(count(&site.build(&[]), "written"), 0);
    // Same size, new words: the time changed, so it is read again.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("Outage 0", "Outage X")).unwrap();
    age(&file);
    assert!(count(&site.build(&[]), "written") > 0);
    assert!(site.read("index.html").contains("Outage X"));
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
}

#[test]
fn a_damaged_truncated_or_foreign_cache_is_ignored_and_replaced() {
    let site = archive(12);
    site.build(&[]);
    let cache = site.path(".outages-cache/build");
    let good = std::fs::read(&cache).unwrap();
    let other = archive(3);
    other.build(&[]);
    let foreign = std::fs::read(other.path(".outages-cache/build")).unwrap();
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x55;
    let damaged: [(&str, Vec<u8>); 5] = [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("one byte changed", flipped),
        ("longer", [good.as_slice(), b"x"].concat()),
        (
            "garbage",
            b"outages build cache\n\x01\x00\x00\x00garbage".to_vec(),
        ),
        ("foreign", foreign),
    ];
    for (what, bytes) in damaged {
        // A change the damaged cache could hide, were it trusted.
        site.write(
            "content/acme/i0.md",
            &incident(&format!("Outage 0 ({what})"), "2024-02-01T00:00:00Z"),
        );
        std::fs::write(&cache, bytes).unwrap();
        site.build(&[]);
        assert_eq!(tree(&site.path("public")), from_scratch(&site), "{what}");
        assert!(site.read("index.html").contains(what), "{what}");
        let again = site.build(&[]);
        assert_eq!(
            count(&again, "written"),
            0,
            "{what}: the cache was written anew"
        );
    }
}

#[test]
fn a_build_with_nothing_to_do_needs_only_the_caches_index_and_a_damaged_rest_is_replaced() {
    let site = archive(12);
    site.build(&[]);
    let cache = site.path(".outages-cache/build");
    let mut bytes = std::fs::read(&cache).unwrap();
    // A byte of what the files gave, which the cache stores first, after its preamble.
    bytes[56 + 20] ^= 0x55;
    std::fs::write(&cache, &bytes).unwrap();
    assert_eq!(count(&site.build(&[]), "written"), 0);
    // (Had it read the damaged part, it would have started from scratch and written the
    // cache anew.)
    assert_eq!(std::fs::read(&cache).unwrap(), bytes, "not written again");
    // New times, same bytes: the cache is written again, and not from its damaged part.
    let file = site.path("content/acme/i0.md");
    age(&file);
    let output = site.run(&["build"]);
    assert!(output.status.success());
    assert_eq!(
        count(&String::from_utf8_lossy(&output.stdout), "written"),
        0
    );
    assert!(!stderr(&output).contains("cache"), "{}", stderr(&output));
    assert_ne!(std::fs::read(&cache).unwrap(), bytes, "replaced");
    // An edit then gives what a build from scratch gives, and the cache is whole again.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("Outage 0", "Outage X")).unwrap();
    site.build(&[]);
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    std::fs::write(&file, &text).unwrap();
    assert!(count(&site.build(&[]), "written") > 0);
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    // Damaged again, then an edit: what the cache held cannot be copied, so the build
    // writes every file's parsed form, and the next build trusts it.
    let mut bytes = std::fs::read(&cache).unwrap();
    bytes[56 + 20] ^= 0x55;
    std::fs::write(&cache, &bytes).unwrap();
    std::fs::write(&file, text.replace("Outage 0", "Outage Y")).unwrap();
    let output = site.run(&["build"]);
    assert!(output.status.success());
    assert!(!stderr(&output).contains("cache"), "{}", stderr(&output));
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    let whole = std::fs::metadata(&cache).unwrap().len();
    assert!(
        whole > bytes.len() as u64 / 2,
        "every file's parsed form: {whole} bytes"
    );
    let other = site.path("content/globex/i1.md");
    let text = std::fs::read_to_string(&other).unwrap();
    std::fs::write(&other, format!("{text}More news.\n")).unwrap();
    let edited = site.build(&[]);
    assert!((1..=20).contains(&count(&edited, "written")), "{edited}");
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
}

#[test]
fn a_build_whose_output_cannot_be_put_in_place_leaves_the_cache_as_it_was() {
    let site = archive(8);
    site.build(&[]);
    let cache = site.path(".outages-cache");
    let before = std::fs::read(cache.join("build")).unwrap();
    let words = std::fs::read(cache.join("search-words")).unwrap();
    // A new incident, where a folder of the user's stands at its page's path: the cache
    // is being written while the output is put in place, which fails.
    site.write(
        "content/acme/new.md",
        &incident("New", "2024-02-03T04:00:00Z"),
    );
    std::fs::create_dir_all(site.path("public/acme/new/index.html/mine")).unwrap();
    let output = site.run(&["build"]);
    assert!(!output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("was not written by outages"),
        "{}",
        stderr(&output)
    );
    let mut left: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["CACHEDIR.TAG", "build", "search-words"],
        "nothing left aside"
    );
    assert_eq!(std::fs::read(cache.join("build")).unwrap(), before);
    // The new incident's words were asked, and are not kept by a build that failed.
    assert_eq!(std::fs::read(cache.join("search-words")).unwrap(), words);
    std::fs::remove_dir_all(site.path("public/acme/new")).unwrap();
    site.build(&[]);
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
}

#[test]
fn a_file_of_the_output_edited_or_deleted_by_hand_is_written_again() {
    let site = archive(8);
    site.build(&[]);
    let clean = from_scratch(&site);
    std::fs::write(site.path("public/index.html"), "edited").unwrap();
    std::fs::remove_file(site.path("public/acme/feed.xml")).unwrap();
    site.build(&[]);
    assert_eq!(tree(&site.path("public")), clean);
}

/// Puts back the modification times `mtimes` gives, to the nanosecond, as `touch -d` or a
/// write in the same clock tick would leave them.
fn put_back(dir: &Path, mtimes: &std::collections::BTreeMap<String, std::time::SystemTime>) {
    for (path, mtime) in mtimes {
        if let Ok(file) = std::fs::File::options().write(true).open(dir.join(path)) {
            file.set_modified(*mtime).unwrap();
        }
    }
}

#[test]
fn an_output_rewritten_with_the_same_sizes_and_times_is_not_taken_for_the_cached_one() {
    // A build, a same-size edit built without the cache, the edit undone: every file the
    // cache knows has its size and, once put back, its mtime, but other bytes. (Without
    // search, whose files are named by what they hold: the manifest stays the same.)
    let site = archive(8);
    site.write("site.yaml", "search: false\n");
    site.build(&[]);
    let out = site.path("public");
    let mtimes = crate::common::mtimes(&out);
    let file = site.path("content/acme/i2.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("Outage 2", "Outage Z")).unwrap();
    site.build(&["--no-cache"]);
    assert!(site.read("index.html").contains("Outage Z"));
    put_back(&out, &mtimes);
    std::fs::write(&file, &text).unwrap();
    let again = site.build(&[]);
    assert!(count(&again, "written") > 0, "{again}");
    assert!(!site.read("index.html").contains("Outage Z"));
    assert_eq!(tree(&out), from_scratch(&site));
}

#[test]
fn a_page_edited_by_hand_to_the_same_size_with_its_mtime_put_back_is_written_again() {
    let site = archive(8);
    site.build(&[]);
    let clean = from_scratch(&site);
    let out = site.path("public");
    let mtimes = crate::common::mtimes(&out);
    let page = out.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Outage 3"));
    std::fs::write(&page, html.replace("Outage 3", "Outage Y")).unwrap();
    put_back(&out, &mtimes);
    site.build(&[]);
    assert_eq!(tree(&out), clean);
}

#[test]
fn an_output_copied_elsewhere_and_back_is_hashed_once_and_kept() {
    // New inodes and ctimes, same bytes (a CI cache restoring the folder): nothing is
    // written, and the build records the files as it found them.
    let site = archive(8);
    site.build(&[]);
    let out = site.path("public");
    let mtimes = crate::common::mtimes(&out);
    let files = tree(&out);
    std::fs::remove_dir_all(&out).unwrap();
    for (path, bytes) in &files {
        let path = out.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    put_back(&out, &mtimes);
    let cache = site.path(".outages-cache/build");
    let before = std::fs::read(&cache).unwrap();
    assert_eq!(count(&site.build(&[]), "written"), 0);
    assert_eq!(crate::common::mtimes(&out), mtimes);
    assert_ne!(
        std::fs::read(&cache).unwrap(),
        before,
        "the new stamps recorded"
    );
    assert_eq!(count(&site.build(&[]), "written"), 0);
}

#[test]
fn an_edit_of_an_incident_spanning_more_than_ten_years_renders_every_year_it_counts_in() {
    // A typo makes an incident a century long; its days are listed for ten years at most,
    // but it counts in every year's numbers up to its end.
    let site = archive(4);
    let long = incident("Typo", "1923-02-01T10:00:00Z");
    site.write("content/acme/long.md", &long);
    let late = incident("Late", "2024-03-05T15:00:00Z").replace(
        "resolved: 2024-03-05T16:00:00Z",
        "resolved: 2026-06-01T00:00:00Z",
    );
    site.write("content/globex/late.md", &late);
    site.build(&[]);
    site.write(
        "content/acme/long.md",
        &long.replace(
            "resolved: 2024-03-05T16:00:00Z",
            "resolved: 2025-07-01T00:00:00Z",
        ),
    );
    site.build(&[]);
    let (have, want) = (tree(&site.path("public")), from_scratch(&site));
    let differing: Vec<&String> = want
        .keys()
        .chain(have.keys())
        .filter(|path| want.get(*path) != have.get(*path))
        .collect();
    assert!(differing.is_empty(), "stale: {differing:?}");
}

#[test]
fn no_cache_reads_and_writes_none_and_cache_dir_puts_it_elsewhere() {
    let site = archive(4);
    site.build(&["--no-cache"]);
    assert!(!site.path(".outages-cache").exists());
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("cache");
    site.build(&["--cache-dir", elsewhere.to_str().unwrap()]);
    assert!(elsewhere.join("build").is_file());
    assert!(!site.path(".outages-cache").exists());
    let both = site.run(&["build", "--no-cache", "--cache-dir", "x"]);
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
}

#[test]
fn a_template_site_yaml_or_option_change_renders_every_page_it_touches() {
    let site = archive(6);
    site.build(&[]);
    site.write("site.yaml", "title: Renamed archive\n");
    site.build(&[]);
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    site.write(
        "templates/partials/impact.html",
        "<span class=\"mine\">{{ item.impact.label }}</span>",
    );
    site.build(&[]);
    assert!(site.read("acme/index.html").contains("class=\"mine\""));
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    let output = site.run(&["build", "--base-url", "https://example.com/archive/"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        site.read("feed.xml")
            .contains("https://example.com/archive/")
    );
}

#[test]
fn an_unwritable_cache_is_a_warning_and_the_site_is_complete() {
    let site = archive(4);
    // A file where the cache folder goes: it cannot be made.
    site.write(".outages-cache", "mine");
    let output = site.run(&["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("could not write the build cache"),
        "{}",
        stderr(&output)
    );
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    assert_eq!(
        std::fs::read_to_string(site.path(".outages-cache")).unwrap(),
        "mine"
    );
}

/// Builds killed at random instants while one incident changes back and forth: each next
/// build (with whatever cache and output the kill left) gives what a build from scratch
/// gives, and at no instant is a file of the output partly written.
#[test]
fn a_cached_build_killed_at_any_instant_leaves_a_cache_and_output_the_next_build_trusts_rightly() {
    let site = archive(150);
    let versions = ["first words", "second words, longer than the first"];
    let write = |v: usize| {
        site.write(
            "content/acme/i10.md",
            &incident(
                &format!("Outage ten, {}", versions[v]),
                "2024-02-11T10:00:00Z",
            ),
        )
    };
    write(0);
    site.build(&[]);
    let start = Instant::now();
    write(1);
    site.build(&[]);
    let run = start.elapsed();
    for i in 0..12u32 {
        write((i as usize) % 2);
        let mut child = site_command(&site)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(run.mul_f64(f64::from(i) / 12.0));
        let _ = child.kill();
        child.wait().unwrap();
        site.build(&[]);
        assert_eq!(
            tree(&site.path("public")),
            from_scratch(&site),
            "after a kill at {i}/12 of a build"
        );
    }
}

fn site_command(site: &Site) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_outages"));
    command
        .arg("build")
        .arg("--root")
        .arg(site.root())
        .env_remove("CI");
    command
}

#[test]
fn what_only_a_build_from_scratch_would_see_is_never_missed() {
    let site = archive(8);
    // The site's own compressed copy of a page, and a static file with a tab in its name.
    site.write("static/feed.xml.gz", "mine");
    site.write("static/a\tb.txt", "tabbed");
    site.build(&[]);
    let file = site.path("content/acme/i2.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}More news.\n")).unwrap();
    site.build(&[]);
    assert_eq!(
        site.read("feed.xml.gz"),
        "mine",
        "kept when feed.xml changes"
    );
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    std::fs::remove_file(site.path("static/a\tb.txt")).unwrap();
    site.build(&[]);
    assert!(!site.path("public/a\tb.txt").exists());
    // A content folder replaced by a link to it, which a build does not follow.
    let dir = tempfile::tempdir().unwrap();
    std::fs::rename(site.path("content/globex"), dir.path().join("globex")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("globex"), site.path("content/globex")).unwrap();
    site.build(&[]);
    assert!(!site.path("public/globex").exists());
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    // A folder of the output moved elsewhere and linked back: never read or written through.
    let moved = dir.path().join("acme-pages");
    std::fs::rename(site.path("public/acme"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, site.path("public/acme")).unwrap();
    let before = tree(&moved);
    std::fs::write(&file, format!("{text}Other news.\n")).unwrap();
    site.build(&[]);
    assert_eq!(tree(&moved), before);
    assert!(
        std::fs::symlink_metadata(site.path("public/acme"))
            .unwrap()
            .is_dir()
    );
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
    // The same with nothing else changed: each folder on the way to a file is looked at.
    std::fs::remove_dir_all(&moved).unwrap();
    std::fs::rename(site.path("public/acme"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, site.path("public/acme")).unwrap();
    assert!(count(&site.build(&[]), "written") > 0);
    assert!(
        std::fs::symlink_metadata(site.path("public/acme"))
            .unwrap()
            .is_dir()
    );
    assert_eq!(tree(&site.path("public")), from_scratch(&site));
}

#[test]
fn a_cache_inside_the_output_folder_is_refused() {
    let site = archive(2);
    let cache = site.path("public/cache");
    let output = site.run(&["build", "--cache-dir", cache.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("inside the output folder"));
    assert!(!site.path("public").exists());
}

/// Every page of a provider counts against its records' time, its number of components
/// and its incidents posted already resolved: an edit that moves any of them renders
/// again the years and components it did not touch.
#[test]
fn an_edit_that_moves_what_every_page_counts_against_renders_them_all() {
    let at = |started: &str, resolved: &str, components: &str| {
        format!(
            "---\ntitle: T\nstarted: {started}\nresolved: {resolved}\nimpact: critical\ncomponents: [{components}]\n---\n"
        )
    };
    let site = Site::new(&[
        (
            "content/acme/a.md",
            &at("2023-03-01T00:00:00Z", "2023-03-01T05:00:00Z", "API"),
        ),
        (
            "content/acme/b.md",
            &at("2024-03-01T00:00:00Z", "2024-03-01T05:00:00Z", "Web"),
        ),
        (
            "content/acme/c.md",
            &at("2025-03-01T00:00:00Z", "2025-03-01T05:00:00Z", "API"),
        ),
    ]);
    site.build(&[]);
    let edits = [
        // A third component: every year's uptime is a mean over three now.
        (
            "content/acme/c.md",
            at(
                "2025-03-01T00:00:00Z",
                "2025-03-01T05:00:00Z",
                "API, Search",
            ),
        ),
        // The records begin later: the first year's covered time.
        (
            "content/acme/a.md",
            at("2023-06-01T00:00:00Z", "2023-06-01T05:00:00Z", "API"),
        ),
        // Posted already resolved: the count every note gives.
        (
            "content/acme/b.md",
            at("2024-03-01T00:00:00Z", "2024-03-01T00:00:00Z", "Web"),
        ),
    ];
    for (path, text) in edits {
        site.write(path, &text);
        site.build(&[]);
        assert_eq!(
            readable(&tree(&site.path("public"))),
            readable(&from_scratch(&site)),
            "after editing {path}"
        );
    }
}
