//! Markdown → HTML that is safe to embed: pulldown-cmark renders, ammonia sanitises.
//! Content comes from third-party status pages, so nothing it holds is trusted.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;

use ammonia::{Builder, UrlRelative};
use pulldown_cmark::{Event, Tag, TagEnd, html};

use crate::content::dialect::events;
use crate::content::source::without_forbidden;
use crate::render::balance::balance;

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

/// Attributes kept, by tag; no other attribute survives on any tag.
static ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href", "title"]),
    ("abbr", &["title"]),
    ("td", &["align"]),
    ("th", &["align"]),
    ("ol", &["start"]),
];

/// The one sanitiser: an explicit allow-list of tags and attributes (nothing from ammonia's
/// defaults, which allow `title` and `lang` everywhere), http/https/mailto links only.
fn sanitizer() -> Builder<'static> {
    let mut builder = Builder::empty();
    builder
        .tags(TAGS.iter().copied().collect::<HashSet<_>>())
        .generic_attributes(HashSet::new())
        .tag_attributes(
            ATTRIBUTES
                .iter()
                .map(|&(tag, attrs)| (tag, attrs.iter().copied().collect()))
                .collect(),
        )
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
///
/// Markdown that holds raw HTML goes through ammonia. Markdown without a single `<` cannot
/// hold any: pulldown-cmark escapes all its text and attributes, so the only way in is a
/// link target, and those are resolved and checked exactly as ammonia checks them (a
/// WHATWG URL join against the page, then http, https or mailto only). That skips an HTML
/// parse per update, the largest cost of a build.
pub fn to_html(markdown: &str, page_url: &str) -> String {
    let html = render(markdown, page_url);
    // A character reference (`&#27;`) decodes to a character no page or feed may hold.
    match without_forbidden(&html) {
        Cow::Owned(clean) => clean,
        Cow::Borrowed(_) => html,
    }
}

/// The words of untrusted markdown as a reader sees them, for the search index: text and
/// code, blocks and lines apart, the text of raw HTML as the page shows it (no tag, comment,
/// attribute or script: no markup of the content reaches the index, so none can reach a
/// result), link targets left out. Written to `out`.
pub fn push_text(out: &mut String, markdown: &str) {
    let mut gap = false;
    // Raw HTML comes a line or a tag at a time: read as one piece, so a tag or a script
    // split over lines is still seen whole.
    let mut html = String::new();
    for event in events(markdown) {
        if let Event::Html(raw) | Event::InlineHtml(raw) = &event {
            html.push_str(raw);
            continue;
        }
        if !html.is_empty() {
            html_text(out, &mut gap, &std::mem::take(&mut html));
        }
        match event {
            Event::Text(text) | Event::Code(text) => push_words(out, &mut gap, &text),
            // The end of a block, not of a word's emphasis: `**cloud**flare` stays one word.
            Event::End(
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript
                | TagEnd::Link
                | TagEnd::Image,
            ) => {}
            Event::SoftBreak | Event::HardBreak | Event::End(_) | Event::Rule => gap = true,
            _ => {}
        }
    }
    html_text(out, &mut gap, &html);
    if gap && !out.is_empty() {
        out.push(' ');
    }
}

fn push_words(out: &mut String, gap: &mut bool, text: &str) {
    if text.is_empty() {
        return;
    }
    if *gap && !out.is_empty() {
        out.push(' ');
    }
    *gap = false;
    out.push_str(text);
}

/// Elements whose content a page never shows as text (the sanitiser drops it).
const UNSHOWN: [&str; 5] = ["script", "style", "template", "noscript", "title"];

/// The text of raw HTML: tags (quoted attribute values and all) and comments left out, the
/// content of [`UNSHOWN`] elements too, the common character references decoded, and a
/// gap where a tag stood. One pass over `html`.
fn html_text(out: &mut String, gap: &mut bool, html: &str) {
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        push_html_words(out, gap, &rest[..lt]);
        rest = &rest[lt..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let end = tag_end(rest);
        let name: String = rest[1..end]
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let closing = rest[1..].starts_with('/');
        rest = &rest[end..];
        // A tag ends a word only where it breaks the line on the page; `<b>` is inline.
        *gap |= !matches!(
            name.as_str(),
            "b" | "i"
                | "em"
                | "strong"
                | "code"
                | "a"
                | "span"
                | "abbr"
                | "del"
                | "sub"
                | "sup"
                | "mark"
                | "small"
                | "u"
                | "s"
                | "kbd"
        );
        if !closing && UNSHOWN.contains(&name.as_str()) {
            let close = format!("</{name}");
            rest = find_ascii_ci(rest, &close).map_or("", |at| &rest[at + tag_end(&rest[at..])..]);
        }
    }
    push_html_words(out, gap, rest);
}

/// Text between tags, its runs of white space one space as a page shows them.
fn push_html_words(out: &mut String, gap: &mut bool, text: &str) {
    let text = decode_references(text);
    if text.trim().is_empty() {
        *gap |= !text.is_empty();
        return;
    }
    *gap |= text.starts_with(char::is_whitespace);
    for (n, word) in text.split_whitespace().enumerate() {
        *gap |= n > 0;
        push_words(out, gap, word);
    }
    *gap = text.ends_with(char::is_whitespace);
}

/// Where the tag that `text` starts with (at its `<`) ends: after its `>`, quoted values
/// skipped; the end of `text` if it never closes.
fn tag_end(text: &str) -> usize {
    let mut quote = None;
    for (at, byte) in text.bytes().enumerate().skip(1) {
        match (quote, byte) {
            (None, b'"' | b'\'') => quote = Some(byte),
            (Some(q), _) if q == byte => quote = None,
            (None, b'>') => return at + 1,
            _ => {}
        }
    }
    text.len()
}

/// Where `needle` (ASCII, lower case) first occurs in `haystack`, ignoring ASCII case.
fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Text with the character references a page shows as one character each decoded.
fn decode_references(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return text.into();
    }
    let mut out = text.to_string();
    for (reference, character) in [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&apos;", "'"),
        ("&nbsp;", " "),
        ("&amp;", "&"),
    ] {
        out = out.replace(reference, character);
    }
    out.into()
}

fn render(markdown: &str, page_url: &str) -> String {
    if markdown.trim().is_empty() {
        return String::new();
    }
    let base = ammonia::Url::parse(page_url).ok();
    if !markdown.contains('<')
        && let Some(html) = render_without_html(markdown, base.as_ref())
    {
        return html;
    }
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, events(markdown));
    sanitize(&balance(&raw), base)
}

/// Renders markdown that holds no raw HTML; `None` if the parser found some after all.
/// Unsafe links keep their text and lose the link; images keep their alt text.
fn render_without_html(markdown: &str, base: Option<&ammonia::Url>) -> Option<String> {
    let mut raw_html = false;
    let mut dropped_link = false;
    let events = events(markdown).filter_map(|event| match event {
        Event::Html(_) | Event::InlineHtml(_) => {
            raw_html = true;
            None
        }
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => match checked_url(&dest_url, base) {
            Some(url) => Some(Event::Start(Tag::Link {
                link_type,
                dest_url: url.into(),
                title,
                id,
            })),
            None => {
                dropped_link = true;
                None
            }
        },
        Event::End(TagEnd::Link) if dropped_link => {
            dropped_link = false;
            None
        }
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        other => Some(other),
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    // Text is escaped, so `<a href="` can only be a link pulldown-cmark wrote.
    (!raw_html).then(|| {
        out.replace(
            "<a href=\"",
            "<a rel=\"noopener noreferrer nofollow\" href=\"",
        )
    })
}

/// A link target resolved against the page, if it is http, https or mailto.
fn checked_url(target: &str, base: Option<&ammonia::Url>) -> Option<String> {
    let url = match base {
        Some(base) => base.join(target).ok()?,
        None => ammonia::Url::parse(target).ok()?,
    };
    matches!(url.scheme(), "http" | "https" | "mailto").then(|| url.into())
}

/// Cleans HTML from an untrusted source.
fn sanitize(html: &str, base: Option<ammonia::Url>) -> String {
    let relative = match base {
        Some(base) => UrlRelative::RewriteWithBase(base),
        None => UrlRelative::Deny,
    };
    SANITIZER.with_borrow_mut(|builder| builder.url_relative(relative).clean(html).to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_keeps_the_words_and_drops_the_markup() {
        let mut out = String::new();
        super::push_text(
            &mut out,
            "## Cause\nA **cloud**flare [link](javascript:x) `code`\n\n<script>alert(1)</script>\n\n- one\n- two",
        );
        assert_eq!(out, "Cause A cloudflare link code one two ");
    }

    #[test]
    fn text_inside_html_blocks_is_what_the_page_shows() {
        let mut out = String::new();
        super::push_text(
            &mut out,
            "<p>Customers in <b>zebra</b>frankfurt &amp; Paris</p>\n<p title=\"a>b onclick=x\">next</p><!-- hidden -->\n<script>\nalert(1)\n</SCRIPT >after\n\nplain",
        );
        assert_eq!(out, "Customers in zebrafrankfurt & Paris next after plain ");
    }

    use super::*;
    use crate::content::dialect::MAX_DEPTH;

    const PAGE: &str = "https://example.com/repo/a/b/";

    #[test]
    fn character_references_never_write_forbidden_characters() {
        for markdown in [
            "a&#27;b &#x7f;",
            "<b>a&#27;b</b>",
            "[a&#1;b](https://x.test/ \"t&#2;\")",
        ] {
            let html = to_html(markdown, PAGE);
            assert!(
                !html.contains(crate::content::source::is_forbidden_char),
                "{html:?}"
            );
            assert!(html.contains('a') && html.contains('b'), "{html:?}");
        }
    }

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
        let html = to_html("09:49 failing\n09:52 full", PAGE);
        assert!(html.starts_with("<p>09:49 failing<br"), "{html}");
        assert!(html.contains("09:52 full</p>"), "{html}");
    }

    #[test]
    fn links_without_raw_html_are_checked_like_ammonia_does() {
        for hostile in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](java\tscript:alert(1))",
            "[x]( javascript:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](javascript&#58;alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox(1))",
            "[x][r]\n\n[r]: javascript:alert(1)",
            "![x](javascript:alert(1))",
            "[x](file:///etc/passwd)",
        ] {
            let html = to_html(hostile, PAGE);
            assert!(
                !html.contains("href") && !html.contains("src"),
                "{hostile} gave {html}"
            );
            assert!(html.contains('x'), "the text stays: {html}");
        }
        let html = to_html(
            "[ok](https://example.com/?a=1&b=\"2\") [mail](mailto:ops@example.com) [rel](c/)",
            PAGE,
        );
        assert!(
            html.contains("href=\"https://example.com/?a=1&amp;b=%222%22\""),
            "{html}"
        );
        assert!(html.contains("href=\"mailto:ops@example.com\""), "{html}");
        assert!(
            html.contains("href=\"https://example.com/repo/a/b/c/\""),
            "{html}"
        );
        assert_eq!(
            html.matches("rel=\"noopener noreferrer nofollow\"").count(),
            3,
            "{html}"
        );
    }

    #[test]
    fn text_is_escaped_without_raw_html() {
        let html = to_html("Tom & Jerry: 5 > 3, \"quoted\" `a && b`", PAGE);
        assert!(
            html.contains("Tom &amp; Jerry: 5 &gt; 3, \"quoted\" <code>a &amp;&amp; b</code>"),
            "{html}"
        );
    }

    #[test]
    fn headings_nest_under_the_page() {
        assert_eq!(to_html("## Summary", PAGE), "<h3>Summary</h3>\n");
        assert_eq!(to_html("# Top", PAGE), "<h3>Top</h3>\n");
    }

    #[test]
    fn balancing_keeps_what_ordinary_html_parses_to() {
        let base = ammonia::Url::parse(PAGE).ok();
        for markdown in [
            "<p>one<p>two",
            "<ul><li>a<li>b <b>bold</b></ul>\n\ntext",
            "<table><tr><td>a<td>b<tr><td>c</table>",
            "<details><summary>More</summary>\n\n- x\n- y\n\n</details>",
            "<b>bold <i>both</b> italic</i> plain",
            "> quote <em>with</em>\n> - list\n>   - nested <code>c</code>",
            "<div>\n\n**md** in a div\n\n</div>\n\n<dl><dt>a<dd>b<dt>c<dd>d</dl>",
            "<h2>Head</h2><p>Para <a href=\"https://x.example/\">l</a><br>x</p>",
            "<p>para<div>block</div></p>",
            "<textarea>&lt;t&gt;</textarea> <iframe>f</iframe>",
            "<svg><g>in svg</g></svg><math><mi>x</mi></math><select><option>o</select>",
            "a <!-- comment --> b <!doctype html> c &amp; &lt;",
        ] {
            let mut raw = String::new();
            html::push_html(&mut raw, events(markdown));
            assert_eq!(
                sanitize(&balance(&raw), base.clone()),
                sanitize(&raw, base.clone()),
                "{markdown}"
            );
        }
    }

    #[test]
    fn task_lists_are_text_not_inputs() {
        let html = to_html("- [x] done\n- [ ] todo <b>b</b>", PAGE);
        assert!(html.contains("☑ done") && html.contains("☐ todo"), "{html}");
        assert!(!html.contains("<input"), "{html}");
    }

    #[test]
    fn markdown_nesting_is_bounded() {
        for markdown in [
            format!("{} deep", ">".repeat(1000)),
            format!("{} deep <b>b</b>", ">".repeat(1000)),
            format!("{}deep", "- ".repeat(1000)),
        ] {
            let html = to_html(&markdown, PAGE);
            assert!(html.contains("deep"), "{html}");
            let opened = html.matches("<blockquote>").count() + html.matches("<ul>").count();
            assert!(opened <= MAX_DEPTH, "{opened} levels");
        }
    }
}
