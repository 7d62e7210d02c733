//! What a reader sees on the pages, read back from whole builds: counts written as people
//! read them, lists in the order a reader looks for, charts that show their words whole.

use crate::common::{Site, incident, select, text};

/// `n` incidents of one provider, a minute apart on 2024-03-05, each a minute long.
fn many(n: usize) -> Site {
    let files: Vec<(String, String)> = (0..n)
        .map(|i| {
            (
                format!("content/acme/i{i:04}.md"),
                format!(
                    "---\ntitle: Blip {i}\nstarted: 2024-03-05T{:02}:{:02}:00Z\nduration: 1m\nimpact: major\n---\n",
                    i / 60,
                    i % 60
                ),
            )
        })
        .collect();
    Site::from_owned(&files)
}

#[test]
fn counts_over_999_group_their_thousands_on_every_page() {
    let site = many(1001);
    site.build(&[]);
    let home = site.html("index.html");
    assert_eq!(text(&select(&home, ".hero-stats strong")[0]), "1,001");
    assert_eq!(text(&select(&home, ".provider-counts strong")[0]), "1,001");
    let provider = site.html("acme/index.html");
    let tiles: Vec<String> = select(&provider, ".stats > div").iter().map(text).collect();
    assert!(tiles.contains(&"Incidents 1,001".to_string()), "{tiles:?}");
    let all_time = select(&provider, "table.periods tbody tr");
    let all_time = text(all_time.last().unwrap());
    assert!(all_time.starts_with("All time 1,001 "), "{all_time}");
    let impacts: Vec<String> = select(&provider, "table.numbers tbody tr")
        .iter()
        .map(text)
        .collect();
    assert!(
        impacts
            .iter()
            .any(|row| row.starts_with("Partial outage 1,001 ")),
        "{impacts:?}"
    );
    let chart = select(&provider, "svg.chart-months .bar title")
        .iter()
        .map(text)
        .find(|tip| tip.starts_with("March 2024"));
    assert_eq!(
        chart.as_deref(),
        Some("March 2024: 1,001 incidents — 1,001 partial outage")
    );
    for (page, css, expected) in [
        (
            "incidents/index.html",
            ".lead",
            "1,001 incidents, newest first.",
        ),
        ("acme/2024/index.html", ".lede", "1,001 incidents"),
        (
            "days/2024-03-05/index.html",
            ".lede",
            "1,001 incidents at 1 provider",
        ),
    ] {
        let shown = text(&select(&site.html(page), css)[0]);
        assert!(shown.starts_with(expected), "{page}: {shown}");
    }
}

#[test]
fn the_home_page_lists_providers_by_name_as_a_reader_reads_it() {
    let providers = [
        ("onepassword", "1Password"),
        ("new-relic", "New Relic"),
        ("reddit", "Reddit"),
        ("aws", "amazon Web Services"),
        ("zone-10", "Zone 10"),
        ("zone-9", "Zone 9"),
    ];
    let mut files = Vec::new();
    for (slug, name) in providers {
        files.push((
            format!("content/{slug}/_index.md"),
            format!("---\nname: {name}\n---\n"),
        ));
        files.push((
            format!("content/{slug}/a.md"),
            incident("Down", "2024-03-05T14:00:00Z"),
        ));
    }
    let site = Site::from_owned(&files);
    site.build(&[]);
    let shown: Vec<String> = select(&site.html("index.html"), ".provider-card h3")
        .iter()
        .map(text)
        .collect();
    assert_eq!(
        shown,
        [
            "1Password",
            "amazon Web Services",
            "New Relic",
            "Reddit",
            "Zone 9",
            "Zone 10"
        ]
    );
}

#[test]
fn busiest_days_name_the_worst_hit_provider_first() {
    // On 2024-03-05: two major outages, the longer first; a partial outage; degraded
    // performance, the provider of three incidents before those of one, which go by name;
    // and maintenance, which is no outage.
    let day = [
        ("alpha", "minor", "10:00:00", "1h"),
        ("alpha", "minor", "12:00:00", "1h"),
        ("alpha", "minor", "14:00:00", "1h"),
        ("beta", "critical", "10:00:00", "10m"),
        ("gamma", "critical", "10:00:00", "2h"),
        ("delta", "major", "10:00:00", "1h"),
        ("epsilon", "maintenance", "10:00:00", "5h"),
        ("zeta", "minor", "10:00:00", "1h"),
        ("eta", "minor", "11:00:00", "1h"),
    ];
    let mut files = Vec::new();
    for (n, (slug, impact, at, duration)) in day.into_iter().enumerate() {
        let name = format!("{}{}", slug[..1].to_uppercase(), &slug[1..]);
        files.push((
            format!("content/{slug}/_index.md"),
            format!("---\nname: {name}\n---\n"),
        ));
        files.push((
            format!("content/{slug}/i{n}.md"),
            format!(
                "---\ntitle: Trouble {n}\nstarted: 2024-03-05T{at}Z\nduration: {duration}\nimpact: {impact}\n---\n"
            ),
        ));
    }
    let site = Site::from_owned(&files);
    site.build(&[]);
    let expected = "Gamma, Beta, Delta, Alpha, Eta, Zeta";
    for page in ["days/index.html", "index.html"] {
        let names = select(&site.html(page), ".busiest-names").first().map(text);
        assert_eq!(names.as_deref(), Some(expected), "{page}");
    }
    // The calendar's tooltip of the day names them in the same order.
    let tip = select(&site.html("days/index.html"), "svg.chart-calendar a title")
        .iter()
        .map(text)
        .find(|tip| tip.starts_with("2024-03-05"));
    assert_eq!(
        tip.as_deref(),
        Some("2024-03-05: 6 providers affected — Gamma, Beta, Delta, Alpha and 2 more")
    );
}

#[test]
fn a_day_timeline_writes_each_label_whole() {
    let long = "Elevated error rates for SMS delivery to a subset of carriers in Southeast Asia";
    let site = Site::new(&[
        ("content/acme/_index.md", "---\nname: Acme Cloud\n---\n"),
        (
            "content/acme/long.md",
            &incident(long, "2024-03-05T14:00:00Z"),
        ),
    ]);
    site.build(&[]);
    let page = site.html("days/2024-03-05/index.html");
    let rows = select(&page, ".chart-timeline a");
    assert_eq!(rows.len(), 1);
    let label = select(&page, ".chart-timeline .timeline-label");
    assert_eq!(text(&label[0]), format!("Acme Cloud — {long}"));
    assert_eq!(
        rows[0].value().attr("title"),
        Some(format!("Acme Cloud — {long} — Partial outage, 14:00 – 16:00 UTC").as_str())
    );
}

#[test]
fn the_search_page_gives_its_script_the_impacts_worst_first() {
    let site = Site::new(&[(
        "content/acme/a.md",
        &incident("Down", "2024-03-05T14:00:00Z"),
    )]);
    site.build(&[]);
    let page = site.html("search/index.html");
    let form = select(&page, "form#search");
    assert_eq!(
        form[0].value().attr("data-impacts"),
        Some("Major outage|Partial outage|Degraded performance|No impact|Under maintenance")
    );
}
