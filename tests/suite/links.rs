//! A site built for a sub-path (a GitHub Pages project site) has no broken internal link:
//! every URL in pages, feeds and the sitemap resolves to a file of the output.

use std::collections::BTreeSet;

use crate::common::{SEED, Site, select, tree};

const BASE: &str = "https://user.github.io/repo/";

/// Maps an internal URL (absolute under BASE, or root-relative under /repo/) to the file
/// a static host would serve; `None` for external URLs.
fn target(url: &str) -> Option<String> {
    let path = url
        .strip_prefix("https://user.github.io")
        .or_else(|| url.strip_prefix('/').map(|_| url))?;
    let path = path.split(['#', '?']).next().unwrap();
    let inside = path
        .strip_prefix("/repo/")
        .unwrap_or_else(|| panic!("`{url}` leaves the sub-path"));
    Some(if inside.is_empty() || inside.ends_with('/') {
        format!("{inside}index.html")
    } else {
        inside.to_string()
    })
}

/// The destination of every link in a markdown text, as a markdown reader finds them.
fn markdown_links(text: &str) -> Vec<String> {
    pulldown_cmark::Parser::new(text)
        .filter_map(|event| match event {
            pulldown_cmark::Event::Start(pulldown_cmark::Tag::Link { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn llms_txt_names_each_provider_as_text_and_links_its_data() {
    let evil = "Evil](https://evil.example/)\n# Owned <script>";
    let site = Site::new(&[
        ("content/lightstep/seed.md", SEED),
        (
            "content/acme/_index.md",
            &format!("---\nname: {evil:?}\n---\n"),
        ),
        (
            "content/acme/a.md",
            &crate::common::incident("A", "2024-03-05T14:00:00Z"),
        ),
    ]);
    site.build(&["--base-url", BASE]);
    let text = site.read("llms.txt");
    assert!(text.starts_with("# Outage Archive\n\n> "), "{text}");
    assert!(text.contains("2 incidents of 2 providers"), "{text}");
    // One heading, two sections: the provider's name made none, nor a link of its own.
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(headings, ["# Outage Archive", "## Data", "## Providers"]);
    let links = markdown_links(&text);
    assert!(links.iter().all(|url| url.starts_with(BASE)), "{links:?}");
    assert_eq!(links.len(), 5 + 2 * 3, "{links:?}");
    // The name reads back whole, as the link's text.
    let mut in_link = false;
    let mut names = Vec::new();
    for event in pulldown_cmark::Parser::new(&text) {
        match event {
            pulldown_cmark::Event::Start(pulldown_cmark::Tag::Link { dest_url, .. }) => {
                in_link = dest_url.as_ref() == format!("{BASE}acme/");
            }
            pulldown_cmark::Event::End(pulldown_cmark::TagEnd::Link) => in_link = false,
            pulldown_cmark::Event::Text(words) if in_link => names.push(words.to_string()),
            _ => {}
        }
    }
    assert_eq!(names.concat(), evil.replace("\n", " "));
}

#[test]
fn every_internal_link_of_a_sub_path_build_resolves() {
    let site = Site::new(&[
        ("content/lightstep/seed.md", SEED),
        (
            "content/acme/_index.md",
            "---\nname: Acme\n---\nSee [the seed](../lightstep/seed/).\n",
        ),
        (
            "content/acme/a.md",
            "---\ntitle: A\nstarted: 2024-03-05T14:00:00Z\nduration: 1h\nimpact: minor\naliases: [/old/a/]\n---\n\
             ### 2024-03-05 14:00 UTC: investigating\nSee [B](../b/) and [home](/repo/).\n",
        ),
        (
            "content/acme/b.md",
            "---\ntitle: B\nstarted: 2023-03-05T14:00:00Z\nimpact: major\n---\n",
        ),
    ]);
    site.build(&["--base-url", BASE]);
    let files = tree(&site.path("public"));
    let mut checked = BTreeSet::new();
    let mut check = |from: &str, url: &str| {
        if let Some(file) = target(url) {
            assert!(
                files.contains_key(&file),
                "{from} links to {url}, but {file} is not in the output"
            );
            checked.insert(file);
        }
    };
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        if path.ends_with(".html") {
            let html = scraper::Html::parse_document(&text);
            for element in select(&html, "[href], [src]") {
                let url = element
                    .value()
                    .attr("href")
                    .or(element.value().attr("src"))
                    .unwrap();
                check(path, url);
            }
            for refresh in select(&html, "meta[http-equiv=refresh]") {
                check(
                    path,
                    refresh
                        .value()
                        .attr("content")
                        .unwrap()
                        .split("url=")
                        .nth(1)
                        .unwrap(),
                );
            }
        } else if path == "llms.txt" {
            for url in markdown_links(&text) {
                check(path, &url);
            }
        } else if path.ends_with(".xml") || path.ends_with(".json") {
            // Every absolute URL in feeds, the sitemap and the API (inside content HTML too).
            for (start, _) in text.match_indices("https://user.github.io") {
                let url = text[start..]
                    .split(['"', '\\', '<', '>', '\'', ' ', '&'])
                    .next()
                    .unwrap();
                check(path, url);
            }
        }
    }
    for prefix in ["style.", "favicon."] {
        assert!(
            checked.iter().any(|f| f.starts_with(prefix)),
            "nothing linked to the theme's {prefix}*"
        );
    }
    for must in [
        "api/v1/acme/stats.json",
        "acme/b/index.html",
        "lightstep/seed/index.html",
        "feed.xml",
        "acme/rss.xml",
    ] {
        assert!(checked.contains(must), "nothing linked to {must}");
    }
    // 404.html is served at any depth: its links must not be relative.
    let not_found = site.html("404.html");
    for element in select(&not_found, "[href]") {
        let href = element.value().attr("href").unwrap();
        let fine =
            href.starts_with("/repo/") || href.starts_with("https://") || href.starts_with('#');
        assert!(fine, "relative link {href} in 404.html");
    }
    // The alias redirects to the incident's absolute URL.
    let alias = site.html("old/a/index.html");
    let refresh = select(&alias, "meta[http-equiv=refresh]")[0]
        .value()
        .attr("content")
        .unwrap()
        .to_string();
    assert_eq!(refresh, "0; url=https://user.github.io/repo/acme/a/");
}
