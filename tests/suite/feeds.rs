//! Feeds as readers see them: parsed with feed-rs; ids that never change.

use crate::common::{SEED, Site, incident};

fn parse(site: &Site, path: &str) -> feed_rs::model::Feed {
    let bytes = std::fs::read(site.path("public").join(path)).unwrap();
    feed_rs::parser::parse(&bytes[..]).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn archive() -> Site {
    Site::new(&[
        (
            "site.yaml",
            "title: Feeds Test\nbase_url: https://one.example/\nfeed_limit: 2\n",
        ),
        ("content/lightstep/seed.md", SEED),
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        ("content/acme/b.md", &incident("B", "2024-03-04T14:00:00Z")),
        ("content/acme/c.md", &incident("C", "2024-03-03T14:00:00Z")),
    ])
}

#[test]
fn atom_rss_and_json_feeds_parse_with_ids_titles_links_and_dates() {
    let site = archive();
    site.build(&[]);
    for dir in ["", "acme/", "lightstep/"] {
        for name in ["feed.xml", "rss.xml", "feed.json"] {
            let path = format!("{dir}{name}");
            let feed = parse(&site, &path);
            assert!(feed.title.is_some(), "{path}: title");
            assert!(!feed.entries.is_empty(), "{path}: entries");
            assert!(feed.entries.len() <= 2, "{path}: feed_limit");
            for entry in &feed.entries {
                assert!(
                    entry.id.starts_with("tag:outages,2026:"),
                    "{path}: id {}",
                    entry.id
                );
                assert!(entry.title.is_some(), "{path}: entry title");
                assert!(
                    entry
                        .links
                        .iter()
                        .any(|l| l.href.starts_with("https://one.example/")),
                    "{path}: link"
                );
                assert!(
                    entry.published.is_some() || entry.updated.is_some(),
                    "{path}: date"
                );
            }
        }
    }
    let atom = parse(&site, "acme/feed.xml");
    let titles: Vec<_> = atom
        .entries
        .iter()
        .map(|e| e.title.as_ref().unwrap().content.clone())
        .collect();
    assert_eq!(titles, ["A", "B"], "newest first");
    let newest = atom.entries.iter().filter_map(|e| e.updated).max();
    assert_eq!(
        atom.updated, newest,
        "the feed's updated is its newest entry's"
    );
    let seed = parse(&site, "lightstep/feed.xml");
    assert_eq!(
        seed.entries[0].id, "tag:outages,2026:lightstep/DWN-c972089f00",
        "the export's id"
    );
    assert_eq!(
        seed.entries[0].updated.unwrap().to_rfc3339(),
        "2022-02-01T23:14:00+00:00",
        "an entry's updated is its latest update (the postmortem)"
    );
    let content = seed.entries[0]
        .content
        .as_ref()
        .and_then(|c| c.body.clone())
        .unwrap();
    assert!(
        content.contains("Root Cause"),
        "the whole incident is in the entry"
    );
}

#[test]
fn entry_ids_survive_a_new_domain_and_rebuilds_are_byte_identical() {
    let site = archive();
    site.build(&[]);
    let first = std::fs::read(site.path("public/feed.xml")).unwrap();
    let ids = |site: &Site| {
        parse(site, "feed.json")
            .entries
            .into_iter()
            .map(|e| e.id)
            .collect::<Vec<_>>()
    };
    let before = ids(&site);
    std::fs::remove_dir_all(site.path("public")).unwrap();
    site.build(&[]);
    assert_eq!(
        std::fs::read(site.path("public/feed.xml")).unwrap(),
        first,
        "no build time in feeds"
    );
    site.build(&["--base-url", "https://two.example/archive/"]);
    assert_eq!(ids(&site), before, "a new domain keeps every entry id");
    let moved = parse(&site, "feed.xml");
    assert!(
        moved.entries[0].links[0]
            .href
            .starts_with("https://two.example/archive/")
    );
}

#[test]
fn major_outage_feeds_carry_only_major_outages_newest_first() {
    let major = |title: &str, day: u32| {
        format!(
            "---\ntitle: {title}\nstarted: 2024-03-{day:02}T10:00:00Z\nresolved: 2024-03-{day:02}T11:00:00Z\nimpact: critical\n---\n"
        )
    };
    let site = Site::new(&[
        (
            "site.yaml",
            "title: T\nbase_url: https://one.example/s/\nfeed_limit: 2\n",
        ),
        ("content/acme/a.md", &major("Down A", 1)),
        (
            "content/acme/b.md",
            &incident("Partial B", "2024-03-05T14:00:00Z"),
        ),
        ("content/acme/c.md", &major("Down C", 3)),
        ("content/acme/d.md", &major("Down D", 2)),
        (
            "content/globex/e.md",
            &incident("Partial E", "2024-03-04T14:00:00Z"),
        ),
    ]);
    site.build(&[]);
    let titles = |path: &str| -> Vec<String> {
        let feed = parse(&site, path);
        let own = feed
            .links
            .iter()
            .find(|l| l.rel.as_deref() == Some("self"))
            .map(|l| l.href.clone());
        if !path.ends_with(".json") {
            assert_eq!(
                own.as_deref(),
                Some(format!("https://one.example/s/{path}").as_str())
            );
        }
        feed.entries
            .iter()
            .map(|e| e.title.as_ref().unwrap().content.clone())
            .collect()
    };
    for format in ["feed.xml", "rss.xml", "feed.json"] {
        // The newest two (the feed's limit) of the major outages, whatever came between.
        assert_eq!(titles(&format!("major/{format}")), ["Down C", "Down D"]);
        assert_eq!(
            titles(&format!("acme/major/{format}")),
            ["Down C", "Down D"]
        );
        assert!(titles(&format!("globex/major/{format}")).is_empty());
        assert_eq!(titles(&format!("acme/{format}")), ["Partial B", "Down C"]);
    }
    let page = site.html("acme/index.html");
    let links: Vec<String> = crate::common::select(&page, "a")
        .iter()
        .filter_map(|a| a.value().attr("href"))
        .map(String::from)
        .collect();
    assert!(links.contains(&"/s/acme/major/feed.xml".to_string()));
    let home = site.html("index.html");
    let footer: Vec<&str> = crate::common::select(&home, "footer a")
        .iter()
        .filter_map(|a| a.value().attr("href"))
        .collect();
    assert!(footer.contains(&"/s/major/feed.xml"), "{footer:?}");
}

#[test]
fn a_providers_maintenance_calendar_holds_its_windows_for_calendar_apps() {
    let site = Site::new(&[
        (
            "content/acme/upgrade.md",
            "---\ntitle: \"Database upgrade; phase 1, east\\nEND:VEVENT\\nBEGIN:VEVENT\"\nstarted: 2024-03-05T22:00:00Z\nresolved: 2024-03-06T01:30:00Z\nimpact: maintenance\n---\n",
        ),
        (
            "content/acme/scheduled.md",
            "---\ntitle: Network maintenance\nstarted: 2024-04-01T02:00:00Z\nimpact: maintenance\n---\n### 2024-03-20 09:00 UTC: scheduled\nWe will move the routers.\n",
        ),
        (
            "content/acme/outage.md",
            &crate::common::incident("API down", "2024-03-05T14:00:00Z"),
        ),
        (
            "content/beta/outage.md",
            &crate::common::incident("Beta down", "2024-03-05T14:00:00Z"),
        ),
    ]);
    site.build(&[]);
    let parse = |path: &str| {
        let text = site.read(path);
        // RFC 5545: CRLF line ends, no line over 75 octets.
        assert!(text.ends_with("\r\n") && !text.replace("\r\n", "").contains('\n'));
        assert!(text.split("\r\n").all(|line| line.len() <= 75), "{text}");
        let mut calendars: Vec<ical::parser::ical::component::IcalCalendar> =
            ical::IcalParser::new(std::io::BufReader::new(text.as_bytes()))
                .map(|c| c.unwrap_or_else(|e| panic!("{path}: {e}")))
                .collect();
        assert_eq!(calendars.len(), 1, "{path}");
        calendars.remove(0)
    };
    let value = |props: &[ical::property::Property], name: &str| {
        props
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.value.clone())
    };
    let calendar = parse("acme/maintenance.ics");
    assert_eq!(
        value(&calendar.properties, "X-WR-CALNAME").as_deref(),
        Some("acme: maintenance")
    );
    // The two maintenance windows, newest first; no outage, and no event a title made.
    let events: Vec<_> = calendar.events.iter().map(|e| &e.properties).collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(
        value(events[0], "SUMMARY").as_deref(),
        Some("Network maintenance")
    );
    assert_eq!(
        value(events[0], "DTSTART").as_deref(),
        Some("20240401T020000Z")
    );
    assert_eq!(value(events[0], "DTEND"), None, "not over yet: no end");
    assert_eq!(
        value(events[1], "SUMMARY").as_deref(),
        Some("Database upgrade\\; phase 1\\, east\\nEND:VEVENT\\nBEGIN:VEVENT")
    );
    assert_eq!(
        value(events[1], "DTSTART").as_deref(),
        Some("20240305T220000Z")
    );
    assert_eq!(
        value(events[1], "DTEND").as_deref(),
        Some("20240306T013000Z")
    );
    assert_eq!(
        value(events[1], "URL").as_deref(),
        Some("http://127.0.0.1:1111/acme/upgrade/"),
        "the page, absolute"
    );
    for event in &events {
        for required in ["UID", "DTSTAMP", "DTSTART"] {
            assert!(value(event, required).is_some(), "{required}: {event:?}");
        }
    }
    assert_ne!(value(events[0], "UID"), value(events[1], "UID"));
    // A provider without maintenance has the calendar all the same, to subscribe to early.
    assert!(parse("beta/maintenance.ics").events.is_empty());
    let page = site.html("acme/index.html");
    let links: Vec<&str> = crate::common::select(&page, "a")
        .iter()
        .filter_map(|a| a.value().attr("href"))
        .filter(|href| href.ends_with(".ics"))
        .collect();
    assert_eq!(links, ["/acme/maintenance.ics"]);
}

#[test]
fn each_component_has_a_feed_of_its_incidents_newest_first() {
    let with = |title: &str, day: u32, components: &str| {
        format!(
            "---\ntitle: {title}\nstarted: 2024-03-{day:02}T10:00:00Z\nresolved: 2024-03-{day:02}T11:00:00Z\nimpact: major\ncomponents: [{components}]\n---\n### 2024-03-{day:02} 10:00 UTC: investigating\nWords of {title}.\n"
        )
    };
    let site = Site::new(&[
        (
            "site.yaml",
            "title: T\nbase_url: https://one.example/s/\nfeed_limit: 2\n",
        ),
        ("content/acme/a.md", &with("API one", 1, "API")),
        ("content/acme/b.md", &with("Both", 2, "API, Web UI")),
        ("content/acme/c.md", &with("Web only", 3, "Web UI")),
        ("content/acme/d.md", &with("API three", 4, "api")),
    ]);
    site.build(&[]);
    let entries = |path: &str| -> Vec<(String, String)> {
        let feed = parse(&site, path);
        let own = feed.links.iter().find(|l| l.rel.as_deref() == Some("self"));
        assert_eq!(
            own.map(|l| l.href.as_str()),
            Some(format!("https://one.example/s/{path}").as_str())
        );
        feed.entries
            .iter()
            .map(|e| {
                let body = e.content.as_ref().and_then(|c| c.body.clone()).unwrap();
                (e.title.as_ref().unwrap().content.clone(), body)
            })
            .collect()
    };
    // `api` and `API` are one component; the feed's limit of two, newest first.
    let api = entries("acme/components/api/feed.xml");
    let titles: Vec<&str> = api.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(titles, ["API three", "Both"]);
    // Each entry its facts and a link to the page, not its updates' text.
    assert!(
        api.iter()
            .all(|(t, body)| !body.contains(&format!("Words of {t}."))
                && body.contains("Every update on its page")
                && body.contains("<p>Components: "))
    );
    let web: Vec<String> = entries("acme/components/web-ui/feed.xml")
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    assert_eq!(web, ["Web only", "Both"]);
    // The same entry ids as the provider's feed: a reader of both sees one incident once.
    let ids = |path: &str| -> Vec<String> {
        parse(&site, path)
            .entries
            .iter()
            .map(|e| e.id.clone())
            .collect()
    };
    let tag = |slug: &str| format!("tag:outages,2026:acme/{slug}");
    assert_eq!(ids("acme/components/api/feed.xml"), [tag("d"), tag("b")]);
    assert_eq!(ids("acme/feed.xml")[0], tag("d"));
    // The component's page names its feed.
    let page = site.html("acme/components/api/index.html");
    let alternate = crate::common::select(
        &page,
        "link[rel=alternate][href$='components/api/feed.xml']",
    );
    assert_eq!(alternate.len(), 1);
    assert_eq!(
        crate::common::select(&page, "a[href='/s/acme/components/api/feed.xml']").len(),
        1
    );
}
