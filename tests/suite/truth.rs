//! The numbers a reader cites, against a small archive worked out by hand: a provider of
//! twenty components with one down, records that start mid-year and records that stop,
//! stale and fresh unresolved incidents, and an incident posted already resolved.

use serde_json::Value;

use crate::common::{ROW_TITLE, Site, select, stderr, text};

/// An incident file of `provider`: front matter fields as written, and an optional body.
fn file(provider: &str, slug: &str, fields: &str, body: &str) -> (String, String) {
    (
        format!("content/{provider}/{slug}.md"),
        format!("---\ntitle: {slug}\n{fields}\n---\n{body}"),
    )
}

fn archive() -> Site {
    let mut files = vec![
        (
            "content/mesh/_index.md".to_string(),
            "---\nname: Mesh\nstatus_page: https://status.mesh.example\n---\n".to_string(),
        ),
        (
            "content/gone/_index.md".to_string(),
            "---\nname: Gone\nsince: 2020-01-01\n---\n".to_string(),
        ),
        // C07 down a whole day: a twentieth of Mesh.
        file(
            "mesh",
            "c07-down",
            "started: 2025-03-10T00:00:00Z\nresolved: 2025-03-11T00:00:00Z\nimpact: critical\ncomponents: [C07]",
            "",
        ),
        // The archive's latest update.
        file(
            "mesh",
            "last",
            "started: 2026-06-30T00:00:00Z\nresolved: 2026-06-30T01:00:00Z\nimpact: minor\ncomponents: [C01]",
            "",
        ),
        // Posted resolved: its duration is unknown.
        file(
            "mesh",
            "posted",
            "started: 2025-05-05T00:00:00Z\nresolved: 2025-05-05T00:00:00Z\nimpact: major\ncomponents: [C02]",
            "",
        ),
        file(
            "mesh",
            "stale",
            "started: 2026-01-01T00:00:00Z\nimpact: minor",
            "### 2026-01-02 00:00 UTC: investigating\nLooking.\n",
        ),
        file(
            "mesh",
            "fresh",
            "started: 2026-06-29T00:00:00Z\nimpact: minor",
            "### 2026-06-29 12:00 UTC: investigating\nLooking.\n",
        ),
        // Records from 2024-07-01 to 2024-12-01 01:00, not followed by sync.
        file(
            "late",
            "down",
            "started: 2024-07-01T00:00:00Z\nresolved: 2024-07-01T12:00:00Z\nimpact: critical",
            "",
        ),
        file(
            "late",
            "slow",
            "started: 2024-12-01T00:00:00Z\nresolved: 2024-12-01T01:00:00Z\nimpact: minor",
            "",
        ),
        // Ten hours of partial outage, records since 2020-01-01.
        file(
            "gone",
            "partial",
            "started: 2020-10-28T00:00:00Z\nresolved: 2020-10-28T10:00:00Z\nimpact: major",
            "",
        ),
    ];
    // The other nineteen components, each named once by a minor incident in January 2025.
    for n in (1..=20).filter(|&n| n != 7) {
        files.push(file(
            "mesh",
            &format!("minor-{n:02}"),
            &format!(
                "started: 2025-01-{n:02}T00:00:00Z\nresolved: 2025-01-{n:02}T01:00:00Z\nimpact: minor\ncomponents: [C{n:02}]"
            ),
            "",
        ));
    }
    let site = Site::from_owned(&files);
    site.build(&[]);
    site
}

fn stats(site: &Site, provider: &str) -> Value {
    serde_json::from_str(&site.read(&format!("api/v1/{provider}/stats.json"))).unwrap()
}

fn year(stats: &Value, year: i64) -> &Value {
    stats["years"]
        .as_array()
        .unwrap()
        .iter()
        .find(|y| y["year"] == year)
        .unwrap_or_else(|| panic!("no {year} in {stats}"))
}

/// The Uptime column of a provider page's row for `label`.
fn uptime_cell(site: &Site, page: &str, label: &str) -> String {
    let html = site.html(page);
    select(&html, "table.periods tbody tr")
        .iter()
        .find(|row| text(&select_in(row, "th")) == label)
        .map(|row| {
            text(
                &row.select(&scraper::Selector::parse("td").unwrap())
                    .nth(2)
                    .unwrap(),
            )
        })
        .unwrap_or_else(|| panic!("no row {label} on {page}"))
}

fn select_in<'a>(element: &scraper::ElementRef<'a>, css: &str) -> scraper::ElementRef<'a> {
    element
        .select(&scraper::Selector::parse(css).unwrap())
        .next()
        .unwrap()
}

#[test]
fn one_component_down_of_twenty_costs_a_twentieth() {
    let site = archive();
    let mesh = stats(&site, "mesh");
    let y2025 = year(&mesh, 2025);
    // Covered from 2025-01-01 (the first record): 365 days. 86,400 s ÷ 20 = 4,320 s of
    // component-time down: 1 − 4,320 ÷ 31,536,000 = 99.986 %, shown rounded down.
    assert_eq!(y2025["uptime_percent"], 99.98, "{y2025}");
    // Some part was down the whole day: 1 − 86,400 ÷ 31,536,000 = 99.726 %.
    assert_eq!(y2025["any_uptime_percent"], 99.72, "{y2025}");
    assert_eq!(y2025["downtime_seconds"], 86_400);
    assert_eq!(y2025["covered_seconds"], 365 * 86_400);
    assert_eq!(uptime_cell(&site, "mesh/index.html", "2025"), "99.98 %");
    // The component's own page and API entry count its own incidents.
    let components: Value =
        serde_json::from_str(&site.read("api/v1/mesh/components.json")).unwrap();
    let list = components["components"].as_array().unwrap();
    assert_eq!(list.len(), 20);
    let c07 = list.iter().find(|c| c["name"] == "C07").unwrap();
    assert_eq!(year(c07, 2025)["uptime_percent"], 99.72, "{c07}");
    let c01 = list.iter().find(|c| c["name"] == "C01").unwrap();
    assert_eq!(year(c01, 2025)["uptime_percent"], 100.0, "{c01}");
    assert_eq!(
        uptime_cell(&site, "mesh/components/c07/index.html", "2025"),
        "99.72 %"
    );
}

#[test]
fn uptime_counts_only_the_time_the_records_cover() {
    let site = archive();
    let late = stats(&site, "late");
    let y2024 = year(&late, 2024);
    // Not followed: from its first record (2024-07-01) to its last (2024-12-01 01:00),
    // 153 days and an hour. 1 − 43,200 ÷ 13,222,800 = 99.673 %; over the whole year it
    // would be 99.86 %.
    assert_eq!(y2024["covered_seconds"], 153 * 86_400 + 3_600);
    assert_eq!(y2024["uptime_percent"], 99.67, "{y2024}");
    // After its last record there are none: not 100 %.
    for (y, period) in [2025, 2026].map(|y| (y, year(&late, y))) {
        assert!(period["uptime_percent"].is_null(), "{y}: {period}");
        assert_eq!(
            uptime_cell(&site, "late/index.html", &y.to_string()),
            "no records"
        );
    }
    assert!(late["last_12_months"]["uptime_percent"].is_null());
    let page = site.html("late/index.html");
    let band = text(&select(&page, ".stats-period")[0]);
    assert!(band.contains("no records"), "{band}");
    // `since:` starts the records before the first incident: 301 days and 10 hours of
    // 2020, 3 h of downtime (10 h at 30 %): 1 − 10,800 ÷ 26,042,400 = 99.958 %.
    let gone = stats(&site, "gone");
    let y2020 = year(&gone, 2020);
    assert_eq!(y2020["covered_seconds"], 301 * 86_400 + 36_000);
    assert_eq!(y2020["uptime_percent"], 99.95, "{y2020}");
    assert!(year(&gone, 2021)["uptime_percent"].is_null());
    let providers: Value = serde_json::from_str(&site.read("api/v1/providers.json")).unwrap();
    assert_eq!(providers["through"], "2026-06-30T01:00:00Z");
    let mesh = providers["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["slug"] == "mesh")
        .unwrap();
    // Followed by sync: its records run to the archive's latest update.
    assert_eq!(mesh["covered_from"], "2025-01-01T00:00:00Z");
    assert_eq!(mesh["covered_to"], "2026-06-30T01:00:00Z");
}

#[test]
fn a_stale_unresolved_incident_is_not_ongoing() {
    let site = archive();
    let home = site.html("index.html");
    let ongoing: Vec<String> = select(&home, ".ongoing-card h3").iter().map(text).collect();
    assert_eq!(ongoing, ["fresh"]);
    let hero = text(&select(&home, ".hero-stats")[0]);
    assert!(hero.contains("1 ongoing"), "{hero}");
    assert!(hero.contains("data through 2026-06-30"), "{hero}");
    let mesh = site.html("mesh/index.html");
    let stale: Vec<String> = select(&mesh, &format!("#unresolved {ROW_TITLE}"))
        .iter()
        .map(text)
        .collect();
    assert_eq!(stale, ["stale"]);
    let now: Vec<String> = select(&mesh, &format!("#ongoing {ROW_TITLE}"))
        .iter()
        .map(text)
        .collect();
    assert_eq!(now, ["fresh"]);
    let page = site.html("mesh/stale/index.html");
    let tags = text(&select(&page, ".incident-tags")[0]);
    assert!(tags.contains("no update since 2026-01-02"), "{tags}");
    let api: Value = serde_json::from_str(&site.read("api/v1/mesh/stale.json")).unwrap();
    assert_eq!(
        (api["ongoing"].clone(), api["stale"].clone()),
        (true.into(), true.into())
    );
    let check = site.run(&["check"]);
    let said = stderr(&check);
    assert!(
        said.contains("stale.md") && said.contains("no update since 2026-01-02"),
        "{said}"
    );
    assert!(!said.contains("fresh.md"), "{said}");
    // A shorter `stale_after` makes the fresh one stale too.
    site.write("site.yaml", "stale_after: 12h\n");
    site.build(&[]);
    let home = site.html("index.html");
    assert!(select(&home, ".ongoing-card").is_empty());
}

#[test]
fn an_incident_posted_resolved_has_no_duration() {
    let site = archive();
    let page = site.html("mesh/posted/index.html");
    let facts = text(&select(&page, ".facts")[0]);
    assert!(facts.contains("duration not recorded"), "{facts}");
    let mesh = stats(&site, "mesh");
    assert_eq!(mesh["all_time"]["after_the_fact_count"], 1);
    let api: Value = serde_json::from_str(&site.read("api/v1/mesh/posted.json")).unwrap();
    assert!(api["duration_seconds"].is_null(), "{api}");
    let note = text(&select(&site.html("mesh/index.html"), ".counted")[0]);
    assert!(
        note.contains("1 incident was posted already resolved"),
        "{note}"
    );
}

#[test]
fn check_warns_of_an_update_before_the_start() {
    let site = Site::new(&[
        (
            "content/acme/early.md",
            "---\ntitle: Early\nstarted: 2024-03-05T14:00:00Z\nresolved: 2024-03-05T16:00:00Z\nimpact: major\n---\n### 2024-03-05 13:00 UTC: investigating\nLooking.\n",
        ),
        // Announced a week ahead, as maintenance is: no clock is wrong.
        (
            "content/acme/window.md",
            "---\ntitle: Window\nstarted: 2024-03-12T14:00:00Z\nresolved: 2024-03-12T16:00:00Z\nimpact: maintenance\n---\n### 2024-03-05 13:00 UTC: scheduled\nPlanned.\n### 2024-03-12 16:00 UTC: completed\nDone.\n",
        ),
    ]);
    let check = site.run(&["check"]);
    assert!(check.status.success(), "{}", stderr(&check));
    let said = stderr(&check);
    assert!(
        said.contains("content/acme/early.md:3:")
            && said.contains("dated 2024-03-05 13:00 UTC, before `started`"),
        "{said}"
    );
    assert!(!said.contains("window.md"), "{said}");
}

#[test]
fn the_home_page_shows_ten_ongoing_cards_and_lists_the_rest() {
    let mut files: Vec<(String, String)> = (1..=12)
        .map(|n| {
            file(
                "busy",
                &format!("open-{n:02}"),
                &format!("started: 2026-06-{n:02}T00:00:00Z\nimpact: minor"),
                &format!("### 2026-06-{n:02} 12:00 UTC: investigating\nLooking.\n"),
            )
        })
        .collect();
    files.push(file(
        "calm",
        "open",
        "started: 2026-06-05T00:00:00Z\nimpact: major",
        "### 2026-06-05 12:00 UTC: investigating\nLooking.\n",
    ));
    let site = Site::from_owned(&files);
    site.build(&[]);
    let home = site.html("index.html");
    assert_eq!(select(&home, ".ongoing-card").len(), 10);
    let rest: Vec<String> = select(&home, &format!(".more-ongoing {ROW_TITLE}"))
        .iter()
        .map(text)
        .collect();
    assert_eq!(rest.len(), 3, "{rest:?}");
    let hero = text(&select(&home, ".hero-stats")[0]);
    assert!(hero.contains("13 ongoing"), "{hero}");
    // One ongoing incident: the provider's card links it; several: its page's list.
    let links: Vec<(String, String)> = select(&home, ".provider-card .ongoing-label a")
        .iter()
        .map(|a| (text(a), a.value().attr("href").unwrap().to_string()))
        .collect();
    assert!(
        links.contains(&("12 ongoing".to_string(), "/busy/#ongoing".to_string())),
        "{links:?}"
    );
    assert!(
        links.contains(&("1 ongoing".to_string(), "/calm/open/".to_string())),
        "{links:?}"
    );
}

#[test]
fn an_incident_at_the_archives_last_instant_counts_in_every_period_that_ends_there() {
    let site = Site::new(&[
        (
            "content/acme/a.md",
            "---\ntitle: A\nstarted: 2026-06-01T00:00:00Z\nresolved: 2026-06-30T12:00:00Z\nimpact: major\n---\n",
        ),
        // Posted resolved at the archive's latest update.
        (
            "content/acme/b.md",
            "---\ntitle: B\nstarted: 2026-06-30T12:00:00Z\nresolved: 2026-06-30T12:00:00Z\nimpact: minor\n---\n",
        ),
    ]);
    site.build(&[]);
    let stats = stats(&site, "acme");
    for (name, period) in [
        ("all time", &stats["all_time"]),
        ("last 12 months", &stats["last_12_months"]),
        ("2026", year(&stats, 2026)),
        ("June", stats["months"].as_array().unwrap().last().unwrap()),
    ] {
        assert_eq!(period["incident_count"], 2, "{name}: {period}");
        assert_eq!(period["after_the_fact_count"], 1, "{name}: {period}");
    }
}
