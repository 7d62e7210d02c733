//! Text from third-party status pages is untrusted: nothing executable from it may reach a
//! page, a feed or the API.

mod common;

use common::{Site, select, stderr, tree};

const HOSTILE_INCIDENT: &str = r#"---
title: "<script>alert('title')</script><img src=x onerror=alert(1)>"
started: 2024-03-05T14:00:00Z
resolved: 2024-03-05T15:00:00Z
impact: major
components: ["<script>alert('component')</script>", "<b onmouseover=alert(2)>API</b>"]
regions: ["<iframe src=https://evil.example></iframe>"]
id: "<svg onload=alert(3)>"
official_url: "https://status.example.com/incidents/1?a=1&b='onmouseover=alert(4)'"
---
Summary with <script>alert(5)</script> and [a link](javascript:alert(6)).

### 2024-03-05 14:00 UTC: investigating
<iframe src="https://evil.example"></iframe><a href="JAVASCRIPT:alert(7)" onclick="alert(8)">click</a>
<img src="x" onerror="alert(9)"> <form action="javascript:alert(10)"><button>go</button></form>

[x](javascript:alert(11)) [y](  javascript:alert(12)) [z](data:text/html;base64,PHNjcmlwdD4=)

<object data="x"></object><embed src="x"><style>body{display:none}</style>
<details open ontoggle=alert(13)><summary>s</summary></details>
Control characters: \u0001 and \u000b.
### 2024-03-05 15:00 UTC: resolved
**Harmless** markup stays: <br> <em>em</em> `code` [ok](https://example.com/ok)
"#;

const HOSTILE_PROVIDER: &str = r#"---
name: "<script>alert('provider')</script>Evil Corp"
description: "<img src=x onerror=alert(14)> <a href='javascript:alert(15)'>x</a>"
---
"#;

/// Attributes and schemes that would run code in a browser.
fn scan_html(path: &str, html: &scraper::Html) {
    for element in select(html, "*") {
        let name = element.value().name();
        assert!(
            ![
                "script", "iframe", "object", "embed", "form", "svg", "style"
            ]
            .contains(&name)
                || (name == "svg"
                    && path.ends_with(".html")
                    && element.value().attr("aria-hidden") == Some("true")),
            "<{name}> in {path}"
        );
        for (attr, value) in element.value().attrs() {
            assert!(
                !attr.to_ascii_lowercase().starts_with("on"),
                "handler {attr} on <{name}> in {path}"
            );
            let value = value.trim().to_ascii_lowercase();
            assert!(
                !value.starts_with("javascript:") && !value.starts_with("data:"),
                "{attr}={value} in {path}"
            );
        }
    }
}

#[test]
fn hostile_content_leaves_no_trace_in_pages_feeds_or_api() {
    let hostile = HOSTILE_INCIDENT
        .replace("\\u0001", "\u{1}")
        .replace("\\u000b", "\u{b}");
    let site = Site::new(&[
        ("content/evil/hostile.md", &hostile),
        ("content/evil/_index.md", HOSTILE_PROVIDER),
    ]);
    site.build(&[]);
    let files = tree(&site.path("public"));
    assert!(files.len() > 10);
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        let lower = text.to_ascii_lowercase();
        // Raw bytes, whatever the file type: no markup from content and no script URL.
        // (Handler text such as `onerror=` may remain as escaped, inert text of a title;
        // the structural scan below proves no element carries one.)
        for banned in [
            "<script",
            "<iframe",
            "<img",
            "<object",
            "<embed",
            "<form",
            "javascript:",
        ] {
            assert!(!lower.contains(banned), "`{banned}` in {path}");
        }
        for control in ['\u{1}', '\u{b}'] {
            assert!(!text.contains(control), "control character in {path}");
        }
        if path.ends_with(".html") {
            scan_html(path, &scraper::Html::parse_document(&text));
        }
    }
    // Content HTML inside feeds, parsed as a reader would.
    for feed_path in [
        "feed.xml",
        "rss.xml",
        "feed.json",
        "evil/feed.xml",
        "evil/rss.xml",
        "evil/feed.json",
    ] {
        let feed = feed_rs::parser::parse(&files[feed_path][..])
            .unwrap_or_else(|e| panic!("{feed_path}: {e}"));
        for entry in feed.entries {
            let body = entry
                .content
                .and_then(|c| c.body)
                .or(entry.summary.map(|s| s.content))
                .unwrap_or_default();
            scan_html(feed_path, &scraper::Html::parse_fragment(&body));
            assert!(
                body.contains("<strong>Harmless</strong>"),
                "harmless markup survives in {feed_path}"
            );
        }
    }
    let page = site.html("evil/hostile/index.html");
    let title = common::text(&select(&page, "h1")[0]);
    assert_eq!(
        title, "<script>alert('title')</script><img src=x onerror=alert(1)>",
        "shown as text, not run"
    );
    let harmless = select(&page, "ol.timeline > li")[1].html();
    for kept in [
        "<br>",
        "<em>em</em>",
        "<code>code</code>",
        "href=\"https://example.com/ok\"",
    ] {
        assert!(harmless.contains(kept), "{kept} missing: {harmless}");
    }
}

#[test]
fn url_fields_must_be_http_or_https() {
    let site = Site::new(&[
        (
            "content/evil/a.md",
            "---\ntitle: A\nstarted: 2024-03-05T14:00:00Z\nimpact: major\nofficial_url: javascript:alert(1)\n---\n",
        ),
        (
            "content/evil/_index.md",
            "---\nurl: \"JavaScript:alert(2)\"\nstatus_page: data:text/html,x\n---\n",
        ),
    ]);
    let output = site.run(&["build"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    for location in ["a.md:5:15", "_index.md:2:6", "_index.md:3:14"] {
        assert!(err.contains(location), "{location} missing:\n{err}");
    }
    assert!(err.contains("is not an http(s) URL"));
    assert!(!site.path("public").exists());
}
