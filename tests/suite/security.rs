//! Text from third-party status pages is untrusted: nothing executable from it may reach a
//! page, a feed or the API.

use crate::common::{Site, readable, select, stderr, tree};

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
                "script",
                "iframe",
                "object",
                "embed",
                "form",
                "input",
                "button",
                "select",
                "svg",
                "style",
                "foreignobject",
                "use",
                "animate",
                "set",
            ]
            .contains(&name.to_ascii_lowercase().as_str())
                || theme_search(path, element)
                // The theme's own icons and charts.
                || (name == "svg"
                    && path.ends_with(".html")
                    && (element.value().attr("aria-hidden") == Some("true")
                        || (matches!(element.value().attr("role"), Some("img" | "group"))
                            && element.value().has_class("chart", scraper::CaseSensitivity::CaseSensitive)))),
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

/// The theme's search: the header's box and the search page's form, which send a query to
/// the search page, and that page's script; and every page's script of local times.
/// Nothing of content is in them.
fn theme_search(path: &str, element: scraper::ElementRef) -> bool {
    let in_form = || {
        element
            .ancestors()
            .filter_map(scraper::ElementRef::wrap)
            .any(|form| form.value().name() == "form" && theme_search(path, form))
    };
    let value = element.value();
    match value.name() {
        "form" => {
            value.attr("action") == Some("/search/")
                && value.attr("method") == Some("get")
                && (value.has_class("search-box", scraper::CaseSensitivity::CaseSensitive)
                    || value.has_class("search-form", scraper::CaseSensitivity::CaseSensitive))
        }
        "input" | "button" | "select" => {
            in_form()
                || (path == "search/index.html"
                    && matches!(value.id(), Some("search-more" | "search-older")))
        }
        "script" => {
            // The theme's scripts, their names hashed or not, from the site itself.
            let own = |name: &str| {
                value.attr("src").is_some_and(|src| {
                    src.starts_with(name) && src.ends_with(".js") && !src.contains("//")
                })
            };
            (path == "search/index.html" && value.attr("type") == Some("module") && own("/search."))
                // Every page's script of local times.
                || (value.attr("type").is_none() && value.attr("defer").is_some() && own("/time."))
        }
        _ => false,
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
    let readable = readable(&files);
    assert!(
        readable
            .iter()
            .any(|(path, bytes)| path.ends_with(".pf_fragment")
                && String::from_utf8_lossy(bytes).contains("Harmless")),
        "the index holds the incident's text"
    );
    // The index keeps a title as the text it is (as Pagefind keeps a page's text), and
    // the search page only ever sets it as text: its script has no way to make markup.
    let title = "<script>alert('title')</script><img src=x onerror=alert(1)>";
    assert!(
        readable
            .iter()
            .any(|(path, bytes)| path.ends_with(".pf_fragment")
                && String::from_utf8_lossy(bytes)
                    .contains(&format!("\"title\":{}", serde_json::json!(title)))),
        "the index holds the hostile title as text"
    );
    for name in ["search.", "time."] {
        let script = files
            .iter()
            .find(|(path, _)| path.starts_with(name) && path.ends_with(".js"))
            .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
            .unwrap_or_else(|| panic!("the theme's {name}js"));
        for sink in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "Function(",
        ] {
            assert!(!script.contains(sink), "{name}js uses {sink}");
        }
    }
    for (path, bytes) in &readable {
        let text = String::from_utf8_lossy(bytes);
        let lower = text.to_ascii_lowercase();
        // An incident's markdown twin is its file as written, status-page text and all:
        // text to read, served as `text/markdown` with `nosniff` (`_headers`, checked in
        // `build.rs`), never a page. What it holds is checked where it is shown.
        if path.ends_with("/index.md") {
            continue;
        }
        // The index's records are data, read by the script above as text; so are the rows
        // of a CSV file and the events of a calendar, which hosts serve as `text/csv` and
        // `text/calendar`, with `nosniff` (`_headers`).
        let index_data =
            path.starts_with("pagefind/") || path.ends_with(".csv") || path.ends_with(".ics");
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
            if index_data && banned != "javascript:" {
                continue;
            }
            // The theme's search box, and the search page's form and script.
            let theirs = match banned {
                "<form" => lower.matches("<form class=\"search-").count(),
                // Every page's script of local times, and the search page's own.
                "<script" => theme_scripts(&lower),
                // The badges page shows each badge: the theme's image of the site's file.
                "<img" if path == "badges/index.html" => {
                    lower.matches("<img class=\"badge-img\" src=\"").count()
                }
                _ => 0,
            };
            assert_eq!(
                lower.matches(banned).count(),
                theirs,
                "`{banned}` in {path}"
            );
        }
        // The search index's word, filter and meta files are CBOR: binary, but for its text.
        let binary = path.starts_with("pagefind/") && !path.ends_with(".pf_fragment");
        for control in ['\u{1}', '\u{b}'] {
            assert!(
                binary || !text.contains(control),
                "control character in {path}"
            );
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
    let title = crate::common::text(&select(&page, "h1")[0]);
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

/// Every tag, attribute and URL trick docs/content.md says the sanitiser drops.
const DROPPED: &str = r#"<form action="https://evil.example/"><input name=q value=x><input type=checkbox checked>
<button formaction="javascript:alert(1)">go</button><textarea>t</textarea><select><option>o</select></form>
<input type=image src=x onerror=alert(2)><iframe src="javascript:alert(3)"></iframe><frame src=x>
<object data="data:text/html,x"></object><embed src="javascript:alert(4)"><style>*{display:none}</style>
<link rel=stylesheet href=x><meta http-equiv=refresh content="0;url=javascript:alert(5)"><base href="https://evil.example/">
<script>alert(6)</script><img src=x onerror=alert(7)><video poster="javascript:alert(8)"><source src=x></video>
<a href="javascript:alert(9)">a</a> <a href="JaVaScRiPt:alert(10)">b</a> <a href="java&#x09;script:alert(11)">c</a>
<a href="&#106;avascript:alert(12)">d</a> <a href=" javascript:alert(13)">e</a> <a href="data:text/html,<script>alert(14)</script>">f</a>
<a href="vbscript:msgbox(15)">g</a> <blockquote cite="javascript:alert(16)">q</blockquote> <del cite="data:x">d</del>
<a href="https://ok.example/" onclick="alert(17)" style="color:red" class="x" id="clobber" target=_blank>ok</a>
<td background="javascript:alert(18)">c</td> <details open ontoggle=alert(19)><summary onclick=alert(20)>s</summary></details>
<svg><a xlink:href="javascript:alert(21)"><text>svg</text></a><animate attributeName=href values="javascript:alert(22)"/><set attributeName=onload to=alert(23)/></svg>
<math><maction actiontype=statusline xlink:href="javascript:alert(24)">m</maction><mtext><table><mglyph><style><img src=x onerror=alert(25)></style></mglyph></table></mtext></math>
<noscript><p title="</noscript><img src=x onerror=alert(26)>"></noscript>
<svg><style><img src=x onerror=alert(27)></style></svg> <table background="javascript:alert(28)"><tr><td>t</td></tr></table>
<abbr title="ok" lang="xx" onmouseover=alert(29)>abbr</abbr> <ol start=3 type=a><li>item</li></ol>

- [x] a task
- [ ] another
"#;

/// The tags and attributes docs/content.md allows in incident text; nothing else may appear.
fn allowed(tag: &str, attr: Option<&str>) -> bool {
    const TAGS: &[&str] = &[
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "code",
        "del",
        "details",
        "dd",
        "dl",
        "dt",
        "em",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "kbd",
        "li",
        "ol",
        "p",
        "pre",
        "s",
        "samp",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
    ];
    TAGS.contains(&tag)
        && match attr {
            None => true,
            Some(attr) => matches!(
                (tag, attr),
                ("a", "href" | "title" | "rel")
                    | ("abbr", "title")
                    | ("td" | "th", "align")
                    | ("ol", "start")
            ),
        }
}

/// Checks every element of sanitised incident text against the allow-list.
fn check_allowed(place: &str, fragment: &scraper::Html) {
    for element in select(fragment, "body *") {
        let name = element.value().name();
        assert!(allowed(name, None), "<{name}> in {place}");
        for (attr, value) in element.value().attrs() {
            assert!(allowed(name, Some(attr)), "{attr} on <{name}> in {place}");
            if attr == "href" {
                assert!(
                    ["https://", "http://", "mailto:"]
                        .iter()
                        .any(|scheme| value.starts_with(scheme)),
                    "href={value} in {place}"
                );
            }
        }
    }
}

#[test]
fn only_the_readme_allow_list_survives_in_pages_and_feeds() {
    let incident = format!(
        "---\ntitle: Allow-list\nstarted: 2024-03-05T14:00:00Z\nresolved: 2024-03-05T15:00:00Z\nimpact: major\n---\n\
         {DROPPED}\n### 2024-03-05 14:00 UTC: investigating\n{DROPPED}\n"
    );
    let site = Site::new(&[("content/evil/a.md", &incident)]);
    site.build(&[]);
    let page = site.html("evil/a/index.html");
    let prose = select(&page, ".prose");
    assert_eq!(prose.len(), 2, "summary and one update");
    for part in prose {
        let html = part.inner_html();
        check_allowed("the page", &scraper::Html::parse_fragment(&html));
        for kept in [
            "☑ a task",
            "☐ another",
            ">ok</a>",
            "<abbr title=\"ok\">abbr</abbr>",
            "<ol start=\"3\">",
        ] {
            assert!(html.contains(kept), "{kept} missing: {html}");
        }
        assert!(!html.to_ascii_lowercase().contains("alert"), "{html}");
    }
    for feed_path in ["feed.xml", "rss.xml", "feed.json", "evil/feed.xml"] {
        let feed = feed_rs::parser::parse(site.read(feed_path).as_bytes()).unwrap();
        let body = feed.entries[0]
            .content
            .as_ref()
            .and_then(|c| c.body.clone())
            .or(feed.entries[0].summary.as_ref().map(|s| s.content.clone()))
            .unwrap();
        check_allowed(feed_path, &scraper::Html::parse_fragment(&body));
        assert!(
            !body.to_ascii_lowercase().contains("alert"),
            "{feed_path}: {body}"
        );
    }
}

/// Nesting that made the HTML parser quadratic; each case took from 40 s to many minutes.
#[test]
fn deeply_nested_html_renders_in_linear_time() {
    let body = |text: String| {
        format!(
            "---\ntitle: Deep\nstarted: 2024-03-05T14:00:00Z\nimpact: major\n---\n{text}END-OF-TEXT\n"
        )
    };
    let cases = [
        ("divs", "<div>".repeat(100_000)),
        ("lists", "<blockquote><ul><li>".repeat(20_000)),
        (
            "reopened",
            (0..5_000)
                .map(|i| format!("<div><b id={i}></div>"))
                .collect(),
        ),
        ("misnested", "<span><div></span>".repeat(20_000)),
        ("quotes", format!("{} <b>x</b>\n", ">".repeat(50_000))),
        ("markdown-lists", format!("{}x", "- ".repeat(50_000))),
    ];
    for (name, text) in cases {
        let site = Site::new(&[(&format!("content/evil/{name}.md") as &str, &body(text))]);
        // No clock here (speed lives in the benchmarks): quadratic work would take minutes.
        site.build(&[]);
        let page = site.read(&format!("evil/{name}/index.html"));
        assert!(page.contains("END-OF-TEXT"), "{name}: the text stays");
        assert!(page.len() < 2_000_000, "{name}: {} bytes", page.len());
    }
}

/// The theme's own script elements in a page: its script of local times
/// (`<script src="/time.<hash>.js" defer>`) and the search page's module, from the site.
fn theme_scripts(lower: &str) -> usize {
    let own = |tag: &str, before: &str, name: &str, after: &str| {
        tag.strip_prefix(before)
            .and_then(|t| t.strip_suffix(after))
            .and_then(|src| src.rsplit_once('/'))
            .is_some_and(|(dir, file)| {
                !dir.contains('"') && file.starts_with(name) && file.ends_with(".js")
            })
    };
    lower
        .match_indices("<script")
        .filter(|&(at, _)| {
            let end = lower[at..].find('>').map_or(lower.len(), |end| at + end);
            let tag = &lower[at..end];
            own(tag, "<script src=\"", "time.", "\" defer")
                || own(tag, "<script type=\"module\" src=\"", "search.", "\"")
        })
        .count()
}
