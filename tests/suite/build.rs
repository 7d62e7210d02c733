//! Whole builds of fixture sites, read back with real parsers.

use crate::common::{
    ROW_TITLE, SEED, Site, incident, mtimes, search_files_gone, select, stderr, text, tree,
};

#[test]
fn the_seed_export_builds_as_is_with_every_fact_on_its_page() {
    // Dropped straight into content/, renamed .md: the export names its own provider.
    let site = Site::new(&[("content/000_8c1ae5358ecda903.md", SEED)]);
    site.build(&[]);
    let page = site.html("lightstep/000-8c1ae5358ecda903/index.html");

    assert_eq!(text(&select(&page, "h1")[0]), "Lightstep Webapp Down");
    assert_eq!(select(&page, "h1").len(), 1, "one h1");
    let facts = text(&select(&page, "dl.facts")[0]);
    for fact in [
        "ServiceNow Cloud Observability",
        "Major outage",
        "3h 24m",
        "2022-01-20 17:58 UTC",
        "2022-01-20 21:22 UTC",
        "Components (4)",
        "US - Service Directory",
        "US - Dashboards",
        "US - Change Intelligence",
        "+1 more",
        "us",
        "DWN-c972089f00",
        "Confirmed",
    ] {
        assert!(
            facts.contains(fact),
            "`{fact}` missing from the facts: {facts}"
        );
    }
    let times: Vec<_> = select(&page, "dl.facts time")
        .iter()
        .map(|t| t.attr("datetime").unwrap().to_string())
        .collect();
    assert!(
        times.contains(&"2022-01-20T17:58:00Z".to_string()),
        "{times:?}"
    );
    assert!(
        times.contains(&"2022-01-20T21:22:00Z".to_string()),
        "{times:?}"
    );
    let official = select(&page, "dl.facts a[href='https://stspg.io/0ywk8cvcqg82']");
    assert_eq!(official.len(), 1, "the official link");

    let updates = select(&page, "ol.timeline > li");
    assert_eq!(updates.len(), 5, "five updates in the timeline");
    assert!(text(&updates[0]).contains("We are currently investigating this issue."));
    assert!(text(&updates[4]).to_lowercase().contains("resolved"));

    let postmortem = &select(&page, "section.postmortem")[0];
    let headings: Vec<String> = postmortem
        .select(&scraper::Selector::parse("h3").unwrap())
        .map(|h| text(&h))
        .collect();
    assert_eq!(
        headings,
        [
            "Summary",
            "Timeline (12-hour Pacific Time)",
            "Root Cause",
            "Action items"
        ]
    );
    let postmortem_text = text(postmortem);
    assert!(
        postmortem_text.contains("(9:49am - 10:37am)"),
        "un-escaped one level: {postmortem_text}"
    );
    assert!(
        !postmortem_text.contains('\\'),
        "no escapes left: {postmortem_text}"
    );
    assert!(
        !postmortem_text.contains("**"),
        "bold is rendered: {postmortem_text}"
    );

    let attribution = text(&select(&page, "footer.attribution")[0]);
    assert!(attribution.starts_with("down.guide reads providers' official status pages"));
}

#[test]
fn the_sample_archive_of_this_repository_builds() {
    // The output inside the temp folder: the lock beside it goes with it.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(["build", "--root", env!("CARGO_MANIFEST_DIR"), "--output"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let files = tree(&out);
    let incidents = files
        .keys()
        .filter(|p| p.starts_with("api/v1/") && p.matches('/').count() == 3)
        .count();
    assert!(
        incidents >= 31,
        "at least the seed and 30 more: {incidents}"
    );
    let providers = files
        .keys()
        .filter(|p| p.matches('/').count() == 1 && p.ends_with("/index.html"))
        .count();
    assert!(providers >= 6, "{providers} providers");
}

#[test]
fn both_formats_crlf_bom_and_offsets_read_alike() {
    let lf = "---\ntitle: Offset\nprovider: Greenmesh Cloud\nstarted: 2024-03-05T09:02:00-05:00\nduration: 1h 30m\n\
              impact: Partial outage\ncomponents: [API]\nregions: [us]\n---\nA summary.\n\n## Updates\n\
              ### 2024-03-05 14:02 UTC: investigating\nLooking.\n### 2024-03-05T15:32:00Z: resolved\nDone.\n";
    let crlf = format!("\u{feff}{}", lf.replace('\n', "\r\n"));
    // Two sites, one file each: in one site the two would be each other's neighbours.
    let site = Site::new(&[("content/a/x.md", lf)]);
    let other = Site::new(&[("content/a/x.md", &crlf)]);
    site.build(&[]);
    other.build(&[]);
    assert_eq!(
        site.read("greenmesh-cloud/x/index.html"),
        other.read("greenmesh-cloud/x/index.html"),
        "CRLF and a BOM read exactly like LF"
    );
    let page = site.html("greenmesh-cloud/x/index.html");
    let facts = text(&select(&page, "dl.facts")[0]);
    assert!(
        facts.contains("2024-03-05 14:02 UTC"),
        "the offset is shown in UTC: {facts}"
    );
    assert!(
        facts.contains("2024-03-05 15:32 UTC"),
        "resolved = started + duration: {facts}"
    );
    assert!(facts.contains("Greenmesh Cloud") && facts.contains("Partial outage"));
    assert_eq!(
        text(&select(&page, ".summary")[0]),
        "A summary.",
        "the `## Updates` heading is not summary"
    );
    assert_eq!(select(&page, "ol.timeline > li").len(), 2);
}

#[test]
fn ongoing_incidents_come_first_on_the_home_page() {
    let site = Site::new(&[
        (
            "content/acme/old.md",
            &incident("Old one", "2024-03-05T14:00:00Z"),
        ),
        (
            "content/acme/now.md",
            "---\ntitle: Still burning\nstarted: 2024-03-01T00:00:00Z\nimpact: critical\n---\n\
             ### 2024-03-01 00:00 UTC: identified\nWorking on it.\n",
        ),
    ]);
    site.build(&[]);
    let home = site.html("index.html");
    let ongoing = text(&select(&home, "section.ongoing")[0]);
    assert!(
        ongoing.contains("Still burning") && ongoing.contains("identified"),
        "{ongoing}"
    );
    let page = text(&select(&site.html("acme/now/index.html"), "dl.facts")[0]);
    assert!(page.contains("ongoing"), "{page}");
}

#[test]
fn provider_pages_show_stats_and_group_by_year_newest_first() {
    let site = Site::new(&[
        (
            "content/acme/_index.md",
            "---\nname: Acme Cloud\nurl: https://acme.example\nstatus_page: https://status.acme.example\n---\nWe host things.\n",
        ),
        (
            "content/acme/a.md",
            // The longest incident, but degraded performance: not the longest outage (the
            // Edgewise sample once linked its "longest" to a No-impact delay).
            "---\ntitle: A\nstarted: 2023-05-01T10:00:00Z\nduration: 5h\nimpact: minor\n---\n",
        ),
        (
            "content/acme/b.md",
            "---\ntitle: B\nstarted: 2024-05-01T10:00:00Z\nduration: 3h\nimpact: major\n---\n",
        ),
        (
            "content/acme/c.md",
            "---\ntitle: C\nstarted: 2024-06-01T10:00:00Z\nduration: 2h\nimpact: critical\n---\n",
        ),
        (
            "content/acme/m.md",
            "---\ntitle: M\nstarted: 2024-07-01T10:00:00Z\nduration: 9h\nimpact: maintenance\n---\n",
        ),
    ]);
    site.build(&[]);
    let page = site.html("acme/index.html");
    assert_eq!(text(&select(&page, "h1")[0]), "Acme Cloud");
    let stats: Vec<String> = select(&page, "dl.stats > div").iter().map(text).collect();
    let stat = |name: &str| {
        stats
            .iter()
            .find(|s| s.starts_with(name))
            .cloned()
            .unwrap_or_default()
    };
    // The band is the last 12 months, to the archive's latest update (M's end,
    // 2024-07-01 19:00): A started before them.
    let period = text(&select(&page, ".stats-period")[0]);
    assert_eq!(period, "Last 12 months, to 2024-07-01");
    assert_eq!(stat("Incidents"), "Incidents 2");
    // B's 3 hours of partial outage count 30 %, C's 2 hours of major outage in full, A's
    // degraded performance and M's maintenance not at all.
    assert_eq!(
        stat("Downtime, any part"),
        "Downtime, any part 2h 54m",
        "maintenance is not downtime"
    );
    // 366 days (29 February 2024 is in them) less 10,440 s: 99.9669… %, rounded down.
    assert_eq!(stat("Uptime"), "Uptime 99.96 %");
    // B's 3 h and C's 2 h: maintenance is not resolved outage time.
    assert_eq!(stat("Median"), "Median time to resolve 2h 30m");
    assert_eq!(
        stat("Longest outage"),
        "Longest outage 3h",
        "the longest major or partial outage"
    );
    assert_eq!(stat("Last incident"), "Last incident 2024-06-01");
    // All time: A's five hours of degraded performance add no downtime (an import once
    // showed days of "downtime" made only of No-impact incidents).
    let all_time: Vec<String> = select(&page, "table.periods tbody tr")
        .last()
        .map(|row| row.child_elements().map(|cell| text(&cell)).collect())
        .unwrap_or_default();
    assert_eq!(all_time[..3], ["All time", "3", "2h 54m"]);
    let years: Vec<String> = select(&page, ".year-links a").iter().map(text).collect();
    assert_eq!(years, ["2024 3", "2023 1"], "each year links its page");
    let year = site.html("acme/2024/index.html");
    let titles: Vec<String> = select(&year, ROW_TITLE).iter().map(text).collect();
    assert_eq!(
        titles,
        ["M", "C", "B"],
        "the year page lists its year's incidents"
    );
    let titles: Vec<String> = select(&page, ROW_TITLE).iter().map(text).collect();
    assert_eq!(titles, ["M", "C", "B", "A"]);
    assert_eq!(
        select(&page, "a[href='https://status.acme.example']").len(),
        1
    );
}

#[test]
fn a_broken_archive_names_every_bad_file_and_leaves_public_untouched() {
    let site = Site::new(&[(
        "content/acme/good.md",
        &incident("Good", "2024-03-05T14:00:00Z"),
    )]);
    site.build(&[]);
    let before = tree(&site.path("public"));
    let before_times = mtimes(&site.path("public"));

    site.write(
        "content/acme/good.md",
        &incident("Good but edited", "2024-03-05T14:00:00Z"),
    );
    site.write(
        "content/acme/impact.md",
        "---\ntitle: X\nstarted: 2024-03-05T14:00:00Z\nimpact: sever\n---\n",
    );
    site.write(
        "content/acme/typo.md",
        "---\ntitle: X\nstarted: 2024-03-05T14:00:00Z\nimpcat: major\nimpact: major\n---\n",
    );
    site.write(
        "content/acme/time.md",
        "---\ntitle: X\nstarted: yesterday\nimpact: major\n---\n",
    );
    site.write("content/acme/yaml.md", "---\ntitle: [oops\n---\n");
    site.write("content/acme/empty.md", "");
    site.write_bytes("content/acme/latin1.md", b"---\ntitle: caf\xe9\n---\n");
    site.write("content/acme/update.md", "---\ntitle: X\nstarted: 2024-03-05T14:00:00Z\nimpact: major\n---\n### 2024-03-05 25:00 UTC: investigating\n");
    let output = site.run(&["build"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    for (file, line_col, words) in [
        ("impact.md", "4:9", "unknown impact `sever`"),
        ("typo.md", "4:1", "did you mean `impact`"),
        ("time.md", "3:10", "2022-01-20T17:58:00Z"),
        ("yaml.md", "2:", "expected text here"),
        ("empty.md", "1:1", "empty"),
        ("latin1.md", "2:11", "UTF-8"),
        ("update.md", "6:5", "2024-03-05 25:00 UTC"),
    ] {
        let location = format!(
            "{}:{line_col}",
            site.path("content/acme").join(file).display()
        );
        assert!(err.contains(&location), "{location} missing from:\n{err}");
        let message = err
            .split(&location)
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap();
        assert!(
            message.contains(words),
            "`{words}` missing for {file}: {message}"
        );
    }
    assert!(err.contains("7 errors in 7 files"), "{err}");
    assert_eq!(
        tree(&site.path("public")),
        before,
        "public/ is byte-identical"
    );
    assert_eq!(mtimes(&site.path("public")), before_times, "and untouched");

    let check = site.run(&["check"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(stderr(&check), err, "check reports exactly what build does");
}

#[test]
fn two_incidents_on_one_url_are_one_error_naming_both_files() {
    let site = Site::new(&[
        (
            "content/acme/outage.md",
            &incident("A", "2024-03-05T14:00:00Z"),
        ),
        (
            "content/acme/other.md",
            &format!(
                "---\nslug: outage\n{}",
                &incident("B", "2024-03-05T14:00:00Z")[4..]
            ),
        ),
    ]);
    let output = site.run(&["build"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("acme/outage/index.html"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("outage.md") && lines[0].contains("other.md"),
        "{err}"
    );
    assert!(!site.path("public").exists());
}

#[test]
fn unsafe_slugs_and_providers_are_errors_and_nothing_leaves_the_output() {
    let site = Site::new(&[
        (
            "content/acme/a.md",
            &format!(
                "---\nslug: ../../escape\n{}",
                &incident("A", "2024-03-05T14:00:00Z")[4..]
            ),
        ),
        (
            "content/acme/b.md",
            &format!(
                "---\nprovider: a/b\n{}",
                &incident("B", "2024-03-05T14:00:00Z")[4..]
            ),
        ),
        (
            "content/acme/c.md",
            &format!(
                "---\nslug: \"\"\n{}",
                &incident("C", "2024-03-05T14:00:00Z")[4..]
            ),
        ),
        (
            "content/acme/d.md",
            &format!(
                "---\naliases: [/../../etc/]\n{}",
                &incident("D", "2024-03-05T14:00:00Z")[4..]
            ),
        ),
    ]);
    let output = site.run(&["build"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    for file in ["a.md:2:7", "b.md:2:11", "c.md:2:7", "d.md:2:11"] {
        assert!(err.contains(file), "{file} missing from:\n{err}");
    }
    assert!(!site.path("public").exists());
    assert!(!site.root().parent().unwrap().join("escape").exists());
}

#[test]
fn the_output_does_not_depend_on_the_number_of_threads() {
    let site = Site::new(&[("content/lightstep/seed.md", SEED)]);
    for i in 0..40 {
        let provider = ["acme", "globex", "initech"][i % 3];
        site.write(
            &format!("content/{provider}/incident-{i}.md"),
            &incident(
                &format!("Incident {i}"),
                &format!("2024-0{}-{:02}T1{}:00:00Z", i % 2 + 1, i % 28 + 1, i % 10),
            ),
        );
    }
    let (one, many) = (site.path("one"), site.path("many"));
    let built_one = site.run_env(
        &["build", "--output", one.to_str().unwrap()],
        &[("RAYON_NUM_THREADS", "1")],
    );
    let built_many = site.run_env(
        &["build", "--output", many.to_str().unwrap()],
        &[("RAYON_NUM_THREADS", "8")],
    );
    assert!(built_one.status.success(), "{}", stderr(&built_one));
    assert!(built_many.status.success(), "{}", stderr(&built_many));
    let (a, b) = (tree(&one), tree(&many));
    assert!(a.len() > 100, "{}", a.len());
    assert_eq!(a, b);
}

#[test]
fn a_rebuild_rewrites_only_what_changed_and_removes_what_is_gone() {
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        ("content/acme/b.md", &incident("B", "2024-02-05T14:00:00Z")),
    ]);
    let first = site.build(&[]);
    assert!(first.contains("0 unchanged"), "{first}");
    let times = mtimes(&site.path("public"));
    std::thread::sleep(std::time::Duration::from_millis(20));

    let again = site.build(&[]);
    assert!(
        again.contains(" 0 written") && again.contains("0 removed"),
        "{again}"
    );
    assert_eq!(
        mtimes(&site.path("public")),
        times,
        "a no-op rebuild touches nothing"
    );

    std::fs::remove_file(site.path("content/acme/b.md")).unwrap();
    let index = tree(&site.path("public"));
    let after = site.build(&[]);
    assert!(
        !site.path("public/acme/b").exists(),
        "the removed incident's page is gone"
    );
    assert!(!site.path("public/api/v1/acme/b.json").exists());
    // B lasted from 5 February to 5 March: its page, markdown twin and API file go, and so
    // do the 29 days only it touched (a page and a JSON file each); so do the search index's
    // files that held it.
    let search = search_files_gone(&index, &site.path("public"));
    assert!(search > 0);
    assert!(
        after.contains(&format!(" {} removed", 61 + search)),
        "{after}"
    );
    assert!(!site.path("public/days/2024-02-05").exists());
    assert!(site.path("public/days/2024-03-05/index.html").exists());
    let unchanged = mtimes(&site.path("public"));
    assert_eq!(
        unchanged["api/v1/acme/a.json"], times["api/v1/acme/a.json"],
        "the other incident's file stays as it was"
    );
    assert_ne!(
        unchanged["acme/a/index.html"], times["acme/a/index.html"],
        "its page lost its link to B, its neighbour"
    );
}

#[test]
fn site_files_and_overrides() {
    let site = Site::new(&[
        (
            "site.yaml",
            "title: Test Archive\nbase_url: https://status.example.com/\ncname: status.example.com\nfeed_limit: 1\n",
        ),
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        (
            "content/acme/draft.md",
            &format!(
                "---\ndraft: true\n{}",
                &incident("Draft", "2024-03-05T14:00:00Z")[4..]
            ),
        ),
        (
            "templates/incident.html",
            "<!doctype html><title>{{ incident.title }}</title><p>custom {{ incident.title }}</p>",
        ),
        ("static/extra/logo.txt", "logo"),
    ]);
    site.build(&[]);
    assert_eq!(site.read("CNAME"), "status.example.com\n");
    assert_eq!(site.read(".nojekyll"), "");
    assert_eq!(site.read("extra/logo.txt"), "logo");
    assert!(
        site.read("acme/a/index.html").contains("<p>custom A</p>"),
        "the site's template wins"
    );
    assert!(
        site.read("index.html").contains("Test Archive"),
        "other templates stay the default"
    );
    assert!(
        !site.path("public/style.css").exists(),
        "theme assets carry a hash"
    );
    assert!(
        !site.path("public/acme/draft").exists(),
        "drafts are left out"
    );
    let robots = site.read("robots.txt");
    assert!(
        robots.contains("Sitemap: https://status.example.com/sitemap.xml"),
        "{robots}"
    );
    site.build(&["--drafts"]);
    assert!(
        site.path("public/acme/draft/index.html").exists(),
        "--drafts includes them"
    );
}

#[test]
fn check_validates_and_writes_nothing() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    let output = site.run(&["check"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with("checked 1 incident from 1 provider:")
    );
    assert!(!site.path("public").exists());
}

#[test]
fn usage_errors_exit_2() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    let output = site.run(&["build", "--base-url", "not a url"]);
    assert_eq!(output.status.code(), Some(2));
    let output = site.run(&["build", "--output", site.path("content").to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "never build over the content"
    );
    assert!(site.path("content/acme/a.md").exists());
}

/// Every command family ends a usage error the same way: `error: ` and its words on
/// stderr, exit code 2, nothing written.
#[test]
fn every_command_says_a_usage_error_once_and_exits_2() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    let cache = site.path("public/cache");
    let cache = cache.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["new", "a/b", "Title"],
            "error: the provider `a/b` must be a single path segment",
        ),
        (
            &["new", "acme", "!!!"],
            "error: the title `!!!` has no letter or digit",
        ),
        (
            &["provider", "add", "acme2", "notaurl"],
            "error: `notaurl` is not a web address",
        ),
        (&["sync", "nope"], "error: no provider `nope`"),
        (
            &["import", "statuspage", "missing.json"],
            "error: cannot read missing.json",
        ),
        (
            &["build", "--cache-dir", cache],
            "error: refusing to keep the build cache in",
        ),
    ];
    for (args, words) in cases {
        let output = site.run(args);
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains(words), "{args:?}: {said}");
        assert_eq!(
            said.matches("error:").count(),
            1,
            "{args:?}: said once: {said}"
        );
    }
    assert!(!site.path("content/acme2").exists());
    assert!(!site.path("public").exists());
    // `init` takes its folder, not `--root`.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .arg("init")
        .arg(site.path("content"))
        .output()
        .unwrap();
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("is not empty; init writes a new archive"),
        "{said}"
    );
}

#[test]
fn theme_assets_carry_a_hash_of_their_bytes_and_pages_link_them() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    site.build(&[]);
    let css_of = |site: &Site| {
        let home = site.html("index.html");
        select(&home, "link[rel=stylesheet]")[0]
            .value()
            .attr("href")
            .unwrap()
            .to_string()
    };
    let first = css_of(&site);
    let name = first.trim_start_matches('/');
    assert!(
        name.starts_with("style.") && name.ends_with(".css") && name.len() == 18,
        "{first}"
    );
    assert!(site.path("public").join(name).exists());
    assert!(
        site.read("acme/a/index.html").contains(&first),
        "every page links the same file"
    );
    site.build(&[]);
    assert_eq!(css_of(&site), first, "stable across identical builds");
    site.write("static/style.css", "body { color: teal }");
    site.build(&[]);
    let second = css_of(&site);
    assert_ne!(second, first, "a new stylesheet gets a new name");
    assert_eq!(
        site.read(second.trim_start_matches('/')),
        "body { color: teal }"
    );
    assert!(
        !site.path("public").join(name).exists(),
        "the old one is removed"
    );
}

#[test]
fn every_page_loads_the_script_of_local_times_and_keeps_utc_in_its_text() {
    let moved =
        incident("A", "2024-03-05T14:00:00Z").replacen("---\n", "---\naliases: [/old/a/]\n", 1);
    let site = Site::new(&[("content/acme/a.md", &moved)]);
    site.build(&["--base-url", "https://user.github.io/repo/"]);
    let pages: Vec<String> = tree(&site.path("public"))
        .into_keys()
        .filter(|path| path.ends_with(".html"))
        .collect();
    assert!(pages.len() > 10, "{pages:?}");
    let mut scripts = std::collections::BTreeSet::new();
    for page in &pages {
        let html = site.html(page);
        let found: Vec<_> = select(&html, "script[src]")
            .iter()
            .map(|s| s.value().attr("src").unwrap().to_string())
            .filter(|src| src.contains("/time."))
            .collect();
        // A deferred script of the site's own, one per page; the alias pages redirect at
        // once and have none.
        match found[..] {
            [ref src] => {
                assert!(select(&html, "script[src*='/time.'][defer]").len() == 1);
                scripts.insert(src.clone());
            }
            [] => assert!(
                page == "old/a/index.html" && site.read(page).contains("http-equiv=\"refresh\""),
                "{page}"
            ),
            _ => panic!("{page}: {found:?}"),
        }
    }
    let [src] = &scripts.into_iter().collect::<Vec<_>>()[..] else {
        panic!("one script for every page");
    };
    let name = src.strip_prefix("/repo/").unwrap();
    assert_eq!(
        site.read(name),
        include_str!("../../static/time.js"),
        "the theme's script, under its hashed name"
    );
    // The times themselves stay UTC in the HTML: the script changes only what a browser
    // shows.
    let incident = site.html("acme/a/index.html");
    let started = &select(&incident, ".facts time[datetime]")[0];
    assert_eq!(
        started.value().attr("datetime"),
        Some("2024-03-05T14:00:00Z")
    );
    assert_eq!(text(started), "2024-03-05 14:00 UTC");
}

/// `_headers` as Netlify and Cloudflare Pages read it: a path pattern alone on a line, then
/// that pattern's headers, indented, one `Name: value` each.
fn parse_headers(text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut rules: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        if line.starts_with(char::is_whitespace) {
            // Cloudflare's `! Name` drops a header an earlier rule set.
            let (name, value) = line
                .trim()
                .split_once(": ")
                .or_else(|| line.trim().starts_with("! ").then(|| (line.trim(), "")))
                .unwrap_or_else(|| panic!("not a header: {line}"));
            rules
                .last_mut()
                .expect("a header under a pattern")
                .1
                .push((name.into(), value.into()));
        } else {
            assert!(
                line.starts_with('/') && !line.contains(' '),
                "not a pattern: {line}"
            );
            rules.push((line.to_string(), Vec::new()));
        }
    }
    rules
}

#[test]
fn host_files_parse_as_hosts_read_them() {
    let alias = format!(
        "---\naliases: [/old/path/, /older.html]\n{}",
        &incident("A", "2024-03-05T14:00:00Z")[4..]
    );
    let site = Site::new(&[("content/acme/a.md", &alias)]);
    site.build(&["--base-url", "https://user.github.io/repo/"]);
    let rules = parse_headers(&site.read("_headers"));
    let header = |pattern: &str, name: &str| {
        rules
            .iter()
            .find(|(p, _)| p == pattern)
            .and_then(|(_, headers)| headers.iter().find(|(n, _)| n == name))
            .map(|(_, value)| value.clone())
            .unwrap_or_else(|| panic!("no {name} for {pattern}"))
    };
    // The markdown twins are text, never sniffed into a page.
    assert_eq!(
        header("/repo/*/index.md", "Content-Type"),
        "text/markdown; charset=utf-8"
    );
    assert_eq!(header("/repo/*", "X-Content-Type-Options"), "nosniff");
    let site_policy = header("/repo/*", "Content-Security-Policy");
    assert!(site_policy.contains("default-src 'none'"));
    assert!(
        site_policy.contains("script-src 'self';"),
        "pages run the site's own scripts, and only those"
    );
    assert!(!site_policy.contains("unsafe-") && !site_policy.contains("wasm"));
    assert!(
        site_policy.contains("form-action 'self'"),
        "the header's search box"
    );
    // The search page only: the site's policy detached (Cloudflare joins the values of
    // matching rules), then one that lets its own scripts and Pagefind's WebAssembly run.
    let search = &rules.iter().find(|(p, _)| p == "/repo/search/*").unwrap().1;
    let names: Vec<&str> = search.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["! Content-Security-Policy", "Content-Security-Policy"]
    );
    let search_policy = header("/repo/search/*", "Content-Security-Policy");
    assert_eq!(
        header("/repo/pagefind/*", "Content-Security-Policy"),
        search_policy,
        "Pagefind's worker fetches the index under its own file's policy"
    );
    assert!(search_policy.contains("script-src 'self' 'wasm-unsafe-eval';"));
    assert!(!search_policy.contains("unsafe-inline") && !search_policy.contains("'unsafe-eval'"));
    assert!(
        !rules.iter().any(|(p, h)| p.starts_with("/repo/pagefind/")
            && h.iter().any(|(n, _)| n == "Cache-Control")),
        "Pagefind's short hashes may name another file in another build: not cached for a year"
    );
    assert_eq!(header("/repo/*", "X-Content-Type-Options"), "nosniff");
    assert!(header("/repo/feed.xml", "Content-Type").starts_with("application/atom+xml"));
    assert!(header("/repo/*/rss.xml", "Content-Type").starts_with("application/rss+xml"));
    assert!(header("/repo/*/feed.json", "Content-Type").starts_with("application/feed+json"));
    assert!(header("/repo/", "Cache-Control").contains("max-age=300"));
    let css = select(&site.html("index.html"), "link[rel=stylesheet]")[0]
        .value()
        .attr("href")
        .unwrap()
        .to_string();
    assert_eq!(
        header(&css, "Cache-Control"),
        "public, max-age=31536000, immutable"
    );
    // The catch-all sets no caching: hosts join the values of every matching rule, and a
    // hashed asset must get the year alone.
    let catch_all = &rules.iter().find(|(p, _)| p == "/repo/*").unwrap().1;
    assert!(catch_all.iter().all(|(name, _)| name != "Cache-Control"));

    let redirects: Vec<Vec<String>> = site
        .read("_redirects")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect();
    assert_eq!(
        redirects,
        [
            ["/repo/old/path/", "/repo/acme/a/", "301"],
            ["/repo/older.html", "/repo/acme/a/", "301"]
        ]
    );
    let page = site.html("older.html");
    let refresh = select(&page, "meta[http-equiv=refresh]")[0]
        .value()
        .attr("content")
        .unwrap()
        .to_string();
    assert_eq!(refresh, "0; url=https://user.github.io/repo/acme/a/");
}

#[test]
fn precompressed_siblings_decompress_to_the_page_and_are_skipped_when_unchanged() {
    use std::io::Read as _;
    let site = Site::new(&[("content/lightstep/seed.md", SEED)]);
    site.build(&["--precompress"]);
    let files = tree(&site.path("public"));
    let mut checked = 0;
    for (path, bytes) in &files {
        let compressible = [".html", ".css", ".xml", ".json", ".svg", ".txt"]
            .iter()
            .any(|e| path.ends_with(e));
        if !compressible {
            continue;
        }
        let (gz, br) = (
            files.get(&format!("{path}.gz")),
            files.get(&format!("{path}.br")),
        );
        assert_eq!(
            gz.is_some(),
            bytes.len() > 1024,
            "{path}: .gz only over 1 KB"
        );
        if let (Some(gz), Some(br)) = (gz, br) {
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(&back, bytes, "{path}.gz");
            let mut back = Vec::new();
            brotli::BrotliDecompress(&mut &br[..], &mut back).unwrap();
            assert_eq!(&back, bytes, "{path}.br");
            checked += 1;
        }
    }
    assert!(checked > 5, "{checked}");
    let again = site.build(&["--precompress"]);
    assert!(again.contains(" 0 written"), "{again}");
    assert_eq!(tree(&site.path("public")), files);
    site.build(&[]);
    // The data files are gzip files of their own, with no uncompressed twin.
    let left: Vec<String> = tree(&site.path("public"))
        .into_keys()
        .filter(|p| p.ends_with(".gz"))
        .collect();
    assert!(
        left.iter()
            .all(|p| p.starts_with("data/") && p.ends_with(".jsonl.gz")),
        "without the flag they go: {left:?}"
    );
}

#[test]
fn every_incident_is_within_reach_a_hundred_a_page() {
    let mut files = Vec::new();
    for i in 0..250 {
        files.push((
            format!("content/acme/i{i:03}.md"),
            incident(
                &format!("Incident {i}"),
                &format!("{}-03-05T14:00:00Z", 2020 + i / 100),
            )
            .replace(
                "2024-03-05T16:00:00Z",
                &format!("{}-03-05T16:00:00Z", 2020 + i / 100),
            )
            .replace("impact: major\n", "impact: major\ncomponents: [API]\n"),
        ));
    }
    let site = Site::from_owned(&files);
    site.build(&[]);
    let rows = |path: &str| site.rows(path);
    assert_eq!(rows("incidents/index.html"), 100);
    assert_eq!(rows("incidents/page/2/index.html"), 100);
    assert_eq!(rows("incidents/page/3/index.html"), 50);
    assert!(!site.path("public/incidents/page/4").exists());
    assert!(
        !site.path("public/incidents/page/1").exists(),
        "page 1 is incidents/"
    );
    // Newest first across pages, and each year linked to the page it starts on (2022 has
    // 50 incidents, so 2021 starts on page 1 and 2020 on page 2).
    let first = site.html("incidents/index.html");
    assert_eq!(text(&select(&first, "h2.year")[0]), "2022");
    let years: Vec<String> = select(&first, "nav[aria-label=Years] a")
        .iter()
        .map(|a| a.attr("href").unwrap().to_string())
        .collect();
    assert_eq!(
        years,
        [
            "/incidents/#y2022",
            "/incidents/#y2021",
            "/incidents/page/2/#y2020"
        ]
    );
    let last = site.html("incidents/page/3/index.html");
    assert!(select(&last, "a[rel=next]").is_empty());
    assert_eq!(
        select(&last, "a[rel=prev]")[0].attr("href"),
        Some("/incidents/page/2/")
    );
    // A component's incidents, a hundred a page too; its numbers on the first.
    assert_eq!(rows("acme/components/api/index.html"), 100);
    assert_eq!(rows("acme/components/api/page/2/index.html"), 100);
    assert_eq!(rows("acme/components/api/page/3/index.html"), 50);
    assert!(!site.path("public/acme/components/api/page/4").exists());
    let second = site.html("acme/components/api/page/2/index.html");
    assert!(
        select(&second, ".stats").is_empty(),
        "the numbers are on page 1"
    );
    let pager: Vec<String> = select(&second, "nav.pagination a")
        .iter()
        .map(|a| a.attr("href").unwrap().to_string())
        .collect();
    assert_eq!(
        pager,
        [
            "/acme/components/api/",
            "/acme/components/api/",
            "/acme/components/api/page/3/",
            "/acme/components/api/page/3/"
        ],
        "newer, 1, 3, older"
    );
    assert!(!select(&site.html("acme/components/api/index.html"), ".stats").is_empty());
}

#[test]
fn the_sitemap_lists_every_page_it_counts_and_each_once() {
    let multi_day = "---\ntitle: Long\nstarted: 2023-12-30T14:00:00Z\nresolved: 2024-01-02T10:00:00Z\nimpact: major\ncomponents: [API, Web]\n---\n";
    let site = Site::new(&[
        ("content/lightstep/seed.md", SEED),
        ("content/acme/_index.md", "---\nname: Acme\n---\n"),
        ("content/acme/long.md", multi_day),
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        (
            "content/globex/b.md",
            &incident("B", "2021-06-01T08:00:00Z"),
        ),
    ]);
    site.build(&["--base-url", "https://user.github.io/repo/"]);
    let xml = site.read("sitemap.xml");
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let locs: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("loc"))
        .filter_map(|n| n.text())
        .collect();
    let unique: std::collections::BTreeSet<&str> = locs.iter().copied().collect();
    assert_eq!(unique.len(), locs.len(), "each page once");
    // Every page a reader lands on, and no other: each `index.html` but the search page's.
    let public = site.path("public");
    let pages: std::collections::BTreeSet<String> = walkdir::WalkDir::new(&public)
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.ends_with("index.html"))
        .map(|path| {
            let dir = path.parent().unwrap().strip_prefix(&public).unwrap();
            let dir = dir.to_string_lossy().replace('\\', "/");
            format!(
                "https://user.github.io/repo/{dir}{}",
                if dir.is_empty() { "" } else { "/" }
            )
        })
        .filter(|url| !url.ends_with("/search/"))
        .collect();
    let listed: std::collections::BTreeSet<String> = unique.iter().map(|u| u.to_string()).collect();
    assert_eq!(listed, pages);
    assert!(
        !site.path("public/sitemap-1.xml").exists(),
        "one file is enough"
    );
}

#[test]
fn a_provider_year_lists_a_hundred_incidents_a_page() {
    let files: Vec<(String, String)> = (0..120)
        .map(|i| {
            let day = format!("2023-{:02}-{:02}T10:00:00Z", 1 + i / 28, 1 + i % 28);
            (
                format!("content/acme/i{i:03}.md"),
                incident(&format!("Incident {i}"), &day).replace(
                    "resolved: 2024-03-05T16:00:00Z",
                    &format!("resolved: {}", day.replace("T10", "T11")),
                ),
            )
        })
        .collect();
    let site = Site::from_owned(&files);
    site.build(&[]);
    let rows = |path: &str| site.rows(path);
    assert_eq!(rows("acme/2023/index.html"), 100);
    assert_eq!(rows("acme/2023/page/2/index.html"), 20);
    // The sitemap lists the pages past a list's first.
    let sitemap = site.read("sitemap.xml");
    assert!(sitemap.contains("/acme/2023/page/2/</loc>"), "{sitemap}");
    assert!(!site.path("public/acme/2023/page/3").exists());
    let first = site.html("acme/2023/index.html");
    assert!(
        !select(&first, "svg.chart").is_empty(),
        "the year's charts on page 1"
    );
    assert!(text(&select(&first, ".lede")[0]).starts_with("120 incidents, page 1 of 2"));
    let second = site.html("acme/2023/page/2/index.html");
    assert!(select(&second, "svg.chart").is_empty());
    assert_eq!(
        select(&second, "a[rel=prev]")[0].attr("href"),
        Some("/acme/2023/")
    );
}
