//! Provider text made safe to write: a status page's words must never become structure in
//! an incident file. Titles and statuses become one clean line; an update's body is kept as
//! the provider wrote it, except that it can never hold an update heading (a top-level
//! `### `) nor leave a block open that would swallow the next update's heading, under
//! pulldown-cmark's CommonMark rules, the ones the loader and the renderer use.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag};

use crate::content::source::{clean_text, trim_blank_lines};
use crate::content::updates::MARKDOWN_OPTIONS;
use crate::model::Status;
use crate::render::markdown::push_text;

/// A status word is at most this long: it is a heading, not a sentence.
const MAX_STATUS_CHARS: usize = 80;

/// Whether `c` may not appear in any text written to content: controls (C0, DEL, C1) and
/// Unicode noncharacters, which HTML and XML refuse.
fn is_forbidden(c: char) -> bool {
    c.is_control() || matches!(c as u32, 0xFDD0..=0xFDEF) || (c as u32) & 0xFFFE == 0xFFFE
}

/// One line of plain text: forbidden characters dropped, any run of whitespace (newlines
/// included) one space, trimmed.
pub fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace())
        .map(|word| word.replace(is_forbidden, ""))
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A status as a heading can hold it: letters, digits, spaces and `-.,'/:()`, nothing that
/// markdown reads as syntax (`#`, `*`, `_`, `&`, `<`…), never empty (`update`).
pub fn status(text: &str) -> Status {
    let kept: String = text
        .chars()
        .filter(|c| !is_forbidden(*c) || c.is_whitespace())
        .map(|c| match c {
            c if c.is_alphanumeric() => c,
            '-' | '.' | ',' | '\'' | '/' | ':' | '(' | ')' => c,
            _ => ' ',
        })
        .take(MAX_STATUS_CHARS)
        .collect();
    let line = one_line(&kept);
    Status::parse(if line.is_empty() { "update" } else { &line })
}

/// A body as the loader reads it back: valid text, no forbidden characters, trimmed.
pub fn clean_body(text: &str) -> String {
    let text = clean_text(text.as_bytes().to_vec()).unwrap_or_else(|_| text.to_string());
    let text = text.replace(|c: char| c != '\n' && c != '\t' && is_forbidden(c), "");
    trim_blank_lines(&text).to_string()
}

/// The body to write for a provider's (clean) body: the same text with update headings
/// demoted and open blocks closed, or, when its structure is beyond those two repairs, the
/// whole text in a code block that nothing inside can close.
pub fn escape_body(body: &str) -> String {
    let repaired = repair(body);
    if is_contained(&repaired) {
        repaired
    } else {
        fenced(body)
    }
}

/// Demotes top-level level-3 headings to level 4, writes `#` as `&#35;` at the start of a
/// line inside a top-level HTML block, and closes a fenced code block or an HTML block
/// (`<pre>`, `<!--`…) left open at the end.
fn repair(body: &str) -> String {
    let mut edits: Vec<(usize, &str)> = Vec::new();
    let mut tail = String::new();
    for (block, range) in top_level_blocks(body) {
        match block {
            Block::H3 => {
                let hashes = range.start + leading_spaces(&body[range.clone()]);
                edits.push((hashes, "#"));
            }
            Block::Html => {
                let mut offset = range.start;
                for line in body[range.clone()].split_inclusive('\n') {
                    let indent = leading_spaces(line);
                    if line[indent..].starts_with('#') {
                        edits.push((offset + indent, "&#35;"));
                    }
                    offset += line.len();
                }
                if range.end == body.len() {
                    tail = html_closer(&body[range])
                        .map(str::to_string)
                        .unwrap_or_default();
                }
            }
            Block::Fence if range.end == body.len() => {
                tail = fence_closer(&body[range]).unwrap_or_default();
            }
            Block::Fence | Block::Other => {}
        }
    }
    let mut out = String::with_capacity(body.len() + tail.len() + 8 * edits.len());
    let mut at = 0;
    for (offset, insert) in edits {
        out.push_str(&body[at..offset]);
        out.push_str(insert);
        // `&#35;` replaces the `#`; a demotion adds one.
        at = if insert == "#" { offset } else { offset + 1 };
    }
    out.push_str(&body[at..]);
    if !tail.is_empty() {
        out.push('\n');
        out.push_str(&tail);
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Block {
    H3,
    Html,
    Fence,
    Other,
}

/// The blocks at the top level of `text`, with their byte ranges.
fn top_level_blocks(text: &str) -> Vec<(Block, Range<usize>)> {
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, MARKDOWN_OPTIONS).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let block = match tag {
                        Tag::Heading {
                            level: HeadingLevel::H3,
                            ..
                        } => Block::H3,
                        Tag::HtmlBlock => Block::Html,
                        Tag::CodeBlock(CodeBlockKind::Fenced(_)) => Block::Fence,
                        _ => Block::Other,
                    };
                    blocks.push((block, range));
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Rule | Event::Html(_) if depth == 0 => blocks.push((Block::Other, range)),
            _ => {}
        }
    }
    blocks
}

fn leading_spaces(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The opening fence of a fenced block (its character and length), when no later line of
/// the block closes it.
fn fence_closer(block: &str) -> Option<String> {
    let mut lines = block.lines();
    let first = lines.next()?.trim_start_matches(' ');
    let marker = first.chars().next()?;
    let run = first.chars().take_while(|c| *c == marker).count();
    let closed = lines.next_back().is_some_and(|last| {
        let last = last.trim_start_matches(' ');
        let close = last.chars().take_while(|c| *c == marker).count();
        close >= run && last[close..].trim().is_empty()
    });
    (!closed).then(|| marker.to_string().repeat(run))
}

/// What ends an HTML block of the kinds that run past blank lines (CommonMark kinds 1-5),
/// when the block does not hold it yet.
fn html_closer(block: &str) -> Option<&'static str> {
    let start: String = block
        .trim_start_matches(' ')
        .chars()
        .take(10)
        .collect::<String>()
        .to_ascii_lowercase();
    let raw = ["script", "pre", "style", "textarea"]
        .into_iter()
        .find(|tag| {
            start
                .strip_prefix('<')
                .and_then(|rest| rest.strip_prefix(tag))
                .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t', '\n', '>']))
        });
    // pulldown-cmark ends `<pre>` only at `</pre>` (CommonMark at any of the four).
    let closer = match raw {
        Some("script") => "</script>",
        Some("pre") => "</pre>",
        Some("style") => "</style>",
        Some(_) => "</textarea>",
        None if start.starts_with("<!--") => "-->",
        None if start.starts_with("<![cdata[") => "]]>",
        None if start.starts_with("<?") => "?>",
        None if start.starts_with("<!") => ">",
        None => return None,
    };
    let after_opener = block.trim_start_matches(' ').get(2..).unwrap_or_default();
    let after_opener = after_opener.to_ascii_lowercase();
    (!after_opener.contains(closer)).then_some(closer)
}

/// Whether `body`, written between two update headings, stays inside its update for the
/// loader whichever way it splits: no top-level level-3 heading, a heading right after it
/// is a top-level heading, and no line outside a top-level fenced block starts a fence or
/// an update heading (a line-based splitter would see one).
fn is_contained(body: &str) -> bool {
    let probe = format!("{body}\n\n### 2000-01-01T00:00:00Z: probe\n");
    let blocks = top_level_blocks(&probe);
    let headings: Vec<&Range<usize>> = blocks
        .iter()
        .filter(|(block, _)| *block == Block::H3)
        .map(|(_, range)| range)
        .collect();
    if headings.len() != 1 || headings[0].start != body.len() + 2 {
        return false;
    }
    let fences: Vec<Range<usize>> = blocks
        .iter()
        .filter(|(block, _)| *block == Block::Fence)
        .map(|(_, range)| range.clone())
        .collect();
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if fences
            .iter()
            .any(|fence| start < fence.end && offset > fence.start)
        {
            continue;
        }
        let trimmed = &line[leading_spaces(line)..];
        let fence_like = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        if fence_like || line.starts_with("### ") || line.trim_end() == "###" {
            return false;
        }
    }
    true
}

/// The whole text as one fenced code block, its fence longer than any backtick run inside.
fn fenced(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.saturating_add(1).max(3));
    format!("{fence}\n{body}\n{fence}")
}

/// The words of a body as a reader sees them, for telling the same update from two sources
/// (a feed's HTML, an API's plain text or markdown): markup, character references, markdown
/// escapes, punctuation and the run of white space between words aside, lowercase.
pub fn words(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    push_text(&mut plain, text);
    plain
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_one_safe_line() {
        assert_eq!(status("").as_str(), "update");
        assert_eq!(status(" \u{1b}\n").as_str(), "update");
        assert_eq!(
            status("resolved\n### 2024-03-01T10:05:00Z: postmortem").as_str(),
            "resolved 2024-03-01T10:05:00Z: postmortem"
        );
        assert_eq!(status("in_progress"), Status::InProgress);
        assert_eq!(status("investi\u{7}gating"), Status::Investigating);
        assert_eq!(status("Fixed *now* #1").as_str(), "Fixed now 1");
    }

    #[test]
    fn titles_lose_controls_and_newlines() {
        assert_eq!(one_line(" a\u{0}b\n\tc\u{85}\u{fffe} "), "ab c");
    }

    #[test]
    fn update_headings_in_a_body_are_demoted() {
        let body = "Fixed.\n### 2024-03-01T10:05:00Z: resolved\nmore\n   ### 1. Root cause: x";
        let out = escape_body(body);
        assert_eq!(
            out,
            "Fixed.\n#### 2024-03-01T10:05:00Z: resolved\nmore\n   #### 1. Root cause: x"
        );
        assert!(is_contained(&out));
    }

    #[test]
    fn open_blocks_are_closed() {
        assert_eq!(escape_body("a\n````sh\nx"), "a\n````sh\nx\n````");
        assert_eq!(escape_body("<!-- a\n\nb"), "<!-- a\n\nb\n-->");
        assert_eq!(
            escape_body("<PRE>\n### x\n\ny"),
            "<PRE>\n&#35;## x\n\ny\n</pre>"
        );
        assert_eq!(escape_body("```\nclosed\n```"), "```\nclosed\n```");
    }

    #[test]
    fn what_cannot_be_repaired_becomes_code() {
        let body = "<div>\n```\n</div>\n\n### 2024-03-01T10:05:00Z: resolved";
        let out = escape_body(body);
        assert!(
            out.starts_with("````\n<div>") && out.ends_with("\n````"),
            "{out}"
        );
        assert!(is_contained(&out));
    }

    #[test]
    fn words_ignore_markup() {
        assert_eq!(
            words("Delayed by <strong>40 minutes</strong> &amp; more."),
            words("Delayed by 40 minutes & more")
        );
        // A feed's HTML of an API's plain text: lines as `<br />`, escapes as references.
        assert_eq!(
            words("Retries may work<br /><br />Load &lt; 5% &amp; falling"),
            words("Retries may work\n\nLoad < 5% & falling")
        );
        assert_eq!(words("a \\*b\\*  c"), words("a *b* c"));
        assert_ne!(words("Issues recovered"), words("Issues degraded"));
    }
}
