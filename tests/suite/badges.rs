//! The badges: an SVG per provider and per component that says what the pages say, the
//! page that lists them with markdown that embeds each, and the headers that let other
//! sites load them.

use crate::common::{Site, select, text};

/// A badge read back: its accessible name, and its two texts.
fn badge(site: &Site, path: &str) -> (String, Vec<String>) {
    let svg = site.read(path);
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{path}: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert!(!doc.descendants().any(|n| n.has_tag_name("script")));
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or_default().to_string())
        .collect();
    (root.attribute("aria-label").unwrap().to_string(), texts)
}

#[test]
fn badges_say_what_the_pages_say_and_embed_from_their_markdown() {
    let site = Site::new(&[
        (
            "content/acme/_index.md",
            "---\nname: \"Acme <img src=x onerror=alert(1)> ](x)\"\n---\n",
        ),
        (
            "content/acme/a.md",
            "---\ntitle: API down\nstarted: 2024-03-01T10:00:00Z\nresolved: 2024-03-01T12:00:00Z\nimpact: critical\ncomponents: [API]\n---\n",
        ),
        (
            "content/acme/b.md",
            "---\ntitle: Web slow\nstarted: 2024-02-20T10:00:00Z\nresolved: 2024-02-20T11:00:00Z\nimpact: minor\ncomponents: [Web]\n---\n",
        ),
        (
            "content/globex/c.md",
            "---\ntitle: Still slow\nstarted: 2024-03-05T10:00:00Z\nimpact: minor\n---\n### 2024-03-05 10:00 UTC: investigating\nLooking.\n### 2024-03-05 14:00 UTC: identified\nFound it.\n",
        ),
    ]);
    site.build(&["--base-url", "https://example.com/status/"]);

    // The uptime the provider's page gives beside its 90 days' bars.
    let page = site.html("acme/index.html");
    let shown = text(&select(&page, "#recent .recent-uptime")[0]).replace('\u{a0}', " ");
    let shown = shown.split(" uptime").next().unwrap().to_string();
    let (label, texts) = badge(&site, "badges/acme.svg");
    let name = "Acme <img src=x onerror=alert(1)> ](x)";
    assert_eq!(texts, [name.to_string(), format!("{shown} (90 days)")]);
    assert_eq!(label, format!("{name}: {shown} (90 days)"));
    assert!(shown.starts_with("9") && shown != "100.00 %", "{shown}");
    let (_, texts) = badge(&site, "badges/acme/api.svg");
    assert_eq!(texts[0], "API");
    let (_, texts) = badge(&site, "badges/acme/web.svg");
    assert_eq!(
        texts[1], "100.00 % (90 days)",
        "degraded performance is no downtime"
    );
    let (_, texts) = badge(&site, "badges/globex.svg");
    assert_eq!(texts, ["globex", "ongoing incident"]);

    // The page: each provider's badge, and markdown that embeds it and links its page.
    let html = site.html("badges/index.html");
    let cards = select(&html, ".badge-list li");
    assert_eq!(cards.len(), 2);
    for card in cards {
        let code = card
            .select(&scraper::Selector::parse(".snippet code").unwrap())
            .next()
            .map(|c| text(&c))
            .unwrap();
        let mut image = None;
        let mut link = None;
        let mut alt = String::new();
        let mut in_image = false;
        for event in pulldown_cmark::Parser::new(&code) {
            use pulldown_cmark::{Event, Tag, TagEnd};
            match event {
                Event::Start(Tag::Image { dest_url, .. }) => {
                    image = Some(dest_url.to_string());
                    in_image = true;
                }
                Event::End(TagEnd::Image) => in_image = false,
                Event::Start(Tag::Link { dest_url, .. }) => link = Some(dest_url.to_string()),
                Event::Text(t) if in_image => alt.push_str(&t),
                Event::Html(_) | Event::InlineHtml(_) => panic!("markup in {code}"),
                _ => {}
            }
        }
        let image = image.unwrap_or_else(|| panic!("no image in {code}"));
        let link = link.unwrap_or_else(|| panic!("no link in {code}"));
        let file = image.strip_prefix("https://example.com/status/").unwrap();
        assert!(site.path(&format!("public/{file}")).is_file(), "{image}");
        let provider = file
            .strip_prefix("badges/")
            .unwrap()
            .strip_suffix(".svg")
            .unwrap();
        assert_eq!(link, format!("https://example.com/status/{provider}/"));
        if provider == "acme" {
            assert_eq!(alt, format!("{name} status"), "the name whole, as text");
        }
        let img = card
            .select(&scraper::Selector::parse("img").unwrap())
            .next()
            .unwrap();
        assert_eq!(
            img.value().attr("src"),
            Some(format!("/status/{file}").as_str())
        );
    }
    let footer: Vec<_> = select(&html, "footer a")
        .iter()
        .filter_map(|a| a.value().attr("href"))
        .map(String::from)
        .collect();
    assert!(footer.contains(&"/status/badges/".to_string()));

    // Other sites may load the badges and the API.
    let headers = site.read("_headers");
    for pattern in ["/status/badges/*", "/status/api/v1/*"] {
        let rule: String = headers
            .split(&format!("\n{pattern}\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("no rule for {pattern}"))
            .lines()
            .take_while(|l| l.starts_with("  "))
            .collect();
        assert!(
            rule.contains("Access-Control-Allow-Origin: *"),
            "{pattern}: {rule}"
        );
    }
    assert!(
        headers.contains("frame-ancestors 'none'"),
        "pages are not framed"
    );
}
