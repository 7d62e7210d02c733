//! Markdown → HTML that is safe to embed: pulldown-cmark renders, ammonia sanitises.
//! Content comes from third-party status pages, so nothing it holds is trusted.

use std::cell::RefCell;
use std::collections::HashSet;

use ammonia::{Builder, UrlRelative};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd, html};

const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS);

static TAGS: &[&str] = &[
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
    "input",
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

/// The one sanitiser: an explicit allow-list, http/https/mailto links only.
fn sanitizer() -> Builder<'static> {
    let mut builder = Builder::empty();
    builder
        .tags(TAGS.iter().copied().collect::<HashSet<_>>())
        .add_tag_attributes("a", ["href", "title"])
        .add_tag_attributes("abbr", ["title"])
        .add_tag_attributes("td", ["align"])
        .add_tag_attributes("th", ["align"])
        .add_tag_attributes("ol", ["start"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .link_rel(Some("noopener noreferrer nofollow"))
        .strip_comments(true);
    builder
}

thread_local! {
    // Built once per thread: a builder is costly to make and `clean` needs it mutable only
    // to set the page each link is relative to.
    static SANITIZER: RefCell<Builder<'static>> = RefCell::new(sanitizer());
}

/// Renders untrusted markdown. Headings move down a level, never above `h3`, so a
/// postmortem's `## Summary` nests under the page's own sections. Relative links are made
/// absolute against `page_url`, so the HTML works in feeds too.
pub fn to_html(markdown: &str, page_url: &str) -> String {
    if markdown.trim().is_empty() {
        return String::new();
    }
    let events = Parser::new_ext(markdown, OPTIONS).map(|event| match event {
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Event::Start(Tag::Heading {
            level: demote(level),
            id,
            classes,
            attrs,
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(demote(level))),
        // Status pages show each line as written; a timeline typed line by line must not
        // run together into one paragraph.
        Event::SoftBreak => Event::HardBreak,
        other => other,
    });
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, events);
    sanitize(&raw, page_url)
}

/// Cleans HTML from an untrusted source.
pub fn sanitize(html: &str, page_url: &str) -> String {
    let relative = match ammonia::Url::parse(page_url) {
        Ok(base) => UrlRelative::RewriteWithBase(base),
        Err(_) => UrlRelative::Deny,
    };
    SANITIZER.with_borrow_mut(|builder| builder.url_relative(relative).clean(html).to_string())
}

fn demote(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 | HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        HeadingLevel::H4 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "https://example.com/repo/a/b/";

    #[test]
    fn harmless_markup_stays() {
        let html = to_html(
            "**bold** `code`<br>line\n\n- item\n\n| a |\n|---|\n| 1 |\n",
            PAGE,
        );
        for want in [
            "<strong>bold</strong>",
            "<code>code</code>",
            "<br>",
            "<li>item</li>",
            "<table>",
        ] {
            assert!(html.contains(want), "{want} missing from {html}");
        }
    }

    #[test]
    fn scripts_handlers_and_javascript_urls_are_removed() {
        let html = to_html(
            "<script>alert(1)</script><img src=x onerror=alert(2)><iframe src=https://x></iframe>\n\n\
             [x](javascript:alert(3)) <a href=\"JaVaScRiPt:alert(4)\" onclick=\"alert(5)\">y</a>\n\n\
             <svg onload=alert(6)></svg>\n\n[d](data:text/html,hi) [e](vbscript:msgbox)",
            PAGE,
        );
        let lower = html.to_ascii_lowercase();
        for banned in [
            "<script",
            "onerror",
            "<iframe",
            "javascript:",
            "onclick",
            "<svg",
            "onload",
            "data:",
            "alert",
            "vbscript",
        ] {
            assert!(!lower.contains(banned), "{banned} survived: {html}");
        }
        assert!(html.contains(">x</a>"), "the link text stays: {html}");
    }

    #[test]
    fn links_are_absolute_and_do_not_leak_the_referrer() {
        let html = to_html("[rel](../c/) [abs](https://x.example/)", PAGE);
        assert!(
            html.contains("href=\"https://example.com/repo/a/c/\""),
            "{html}"
        );
        assert!(
            html.contains("rel=\"noopener noreferrer nofollow\""),
            "{html}"
        );
    }

    #[test]
    fn lines_stay_lines() {
        assert_eq!(
            to_html("09:49 failing\n09:52 full", PAGE),
            "<p>09:49 failing<br>\n09:52 full</p>\n"
        );
    }

    #[test]
    fn headings_nest_under_the_page() {
        assert_eq!(to_html("## Summary", PAGE), "<h3>Summary</h3>\n");
        assert_eq!(to_html("# Top", PAGE), "<h3>Top</h3>\n");
    }
}
