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
