//! Golden pages and feeds: the seed export and a small hostile-free fixture built with a
//! fixed base URL, kept as snapshots (`cargo insta review` after an intended change), so
//! any change to what users see shows in review, byte for byte.

use crate::common::{SEED, Site, incident};

fn site() -> Site {
    let site = Site::new(&[
        ("content/lightstep/seed.md", SEED),
        (
            "content/acme/_index.md",
            "---\nname: Acme Cloud\nurl: https://acme.example\n---\nWe host things.\n",
        ),
        (
            "content/acme/api.md",
            &incident("API errors", "2024-03-05T14:00:00Z"),
        ),
        (
            "site.yaml",
            "title: Golden Archive\nbase_url: https://status.example.com/archive/\n",
        ),
    ]);
    site.build(&[]);
    site
}

#[test]
fn golden_pages_and_feeds() {
    let site = site();
    for path in [
        "lightstep/seed/index.html",
        "acme/index.html",
        "index.html",
        "feed.xml",
        "rss.xml",
        "feed.json",
        "api/v1/lightstep/seed.json",
        "sitemap.xml",
    ] {
        let name = path.replace(['/', '.'], "_");
        insta::assert_snapshot!(name, site.read(path));
    }
}
