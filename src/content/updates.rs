//! The body of an incident: a summary, then updates that each start at a top-level
//! `### <time>: <status>` heading and run to the next one, whatever headings they hold.
//!
//! The headings are found in pulldown-cmark's own events, with the options the renderer
//! uses, so what starts an update here is exactly what the page shows as a heading: a
//! `###` line inside a code block, a list item or a quote is text, however it got there.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::attributes::{MAX_ATTRIBUTES, crowded_tag};
use crate::content::fields::{FileCtx, Pos, time_error};
use crate::content::source::trim_blank_lines;
use crate::content::time::{TimeError, parse_timestamp};
use crate::content::yaml::closest;
use crate::diagnostics::Diagnostic;
use crate::model::{Status, Timestamp, Update};

/// The markdown dialect of content: the renderer parses with these options too.
pub const MARKDOWN_OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS);

/// What a body holds.
#[derive(Debug, Default, PartialEq)]
pub struct Body {
    pub(crate) summary: String,
    /// In time order (a stable sort, so equal times keep the order written).
    pub updates: Vec<Update>,
}

/// Splits `body`, whose first line is line `first_line` of the file.
pub fn parse_body(
    ctx: &FileCtx,
    body: &str,
    first_line: usize,
    errors: &mut Vec<Diagnostic>,
) -> Body {
    let mut lines = Lines::new(body, first_line);
    // Each update: its time, status, and the byte range of its text in `body`.
    let mut starts: Vec<(Timestamp, Status, Range<usize>)> = Vec::new();
    let (headings, swallowed) = top_level_h3(body);
    let mut swallowed_lines = Lines::new(body, first_line);
    for offset in swallowed {
        let line = &body[offset..];
        let text = line[..line.find('\n').unwrap_or(line.len())].trim_end();
        let looks_like_update = text
            .strip_prefix("###")
            .is_some_and(|rest| !matches!(read_heading(rest.trim()), Heading::Text));
        if looks_like_update {
            let (line, col) = swallowed_lines.at(offset);
            errors.push(
                ctx.error(
                    Pos::new(line, col, text.chars().count()),
                    "this update is inside the HTML above it, so it would show as text",
                )
                .with_hint("leave a blank line between the HTML and the `###` heading"),
            );
        }
    }
    for heading in headings {
        let text = &body[heading.text.clone()];
        let mut pos = || {
            let (line, col) = lines.at(heading.text.start);
            Pos::new(line, col, text.chars().count())
        };
        match read_heading(text) {
            Heading::Update(at, status) => {
                let parsed = Status::parse(status);
                if let Status::Other(other) = &parsed
                    && let Some(known) = closest(&other.to_lowercase(), Status::KNOWN)
                {
                    let offset = heading.text.start + text.rfind(status).unwrap_or(0);
                    let (line, col) = lines.at(offset);
                    errors.push(
                        ctx.error(
                            Pos::new(line, col, status.chars().count()),
                            format!(
                                "`{status}` is no status this site knows, so it is shown as written"
                            ),
                        )
                        .with_hint(format!(
                            "did you mean `{known}`? known: {}",
                            Status::KNOWN.join(", ")
                        ))
                        .warning(),
                    );
                }
                starts.push((at, parsed, heading.whole));
            }
            Heading::BadTime(time, error) => {
                let at = Pos {
                    width: time.chars().count(),
                    ..pos()
                };
                errors.push(time_error(ctx, at, time, error));
            }
            Heading::NoStatus => errors.push(
                ctx.error(pos(), "this update has no status")
                    .with_hint("write `### 2022-01-20 17:58 UTC: investigating`"),
            ),
            Heading::Text => {}
        }
    }
    let summary = &body[..starts.first().map_or(body.len(), |(_, _, h)| h.start)];
    // What a page shows of the body: the summary, then each update's text.
    let mut shown = |text: &'_ str| {
        let offset = crowded_tag(text).and_then(|at| {
            let start = (text.as_ptr() as usize).checked_sub(body.as_ptr() as usize)?;
            start.checked_add(at)
        });
        if let Some(offset) = offset {
            let (line, col) = Lines::new(body, first_line).at(offset);
            errors.push(crowded_tag_error(ctx, Pos::new(line, col, 1)));
        }
        text.to_string()
    };
    let summary = shown(strip_updates_heading(trim_blank_lines(summary)));
    let mut updates: Vec<Update> = with_ends(&starts, body.len())
        .map(|((at, status, heading), end)| Update {
            at: *at,
            status: status.clone(),
            body: shown(trim_blank_lines(&body[heading.end..end])),
        })
        .collect();
    updates.sort_by_key(|update| update.at);
    Body { summary, updates }
}

/// Each update heading (time, status, range) of a body with where its update ends: at the
/// next one's heading, the last at `len`.
fn with_ends(
    starts: &[(Timestamp, Status, Range<usize>)],
    len: usize,
) -> impl Iterator<Item = (&(Timestamp, Status, Range<usize>), usize)> {
    let ends = starts
        .iter()
        .skip(1)
        .map(|(_, _, heading)| heading.start)
        .chain([len]);
    starts.iter().zip(ends)
}

/// The updates of `body` in the order written, each with the range it takes from its
/// heading to the next update's: split as [`parse_body`] splits, for a writer that rewrites
/// one update in place.
pub fn written_updates(body: &str) -> Vec<(Update, Range<usize>)> {
    let starts: Vec<(Timestamp, Status, Range<usize>)> = top_level_h3(body)
        .0
        .into_iter()
        .filter_map(|heading| match read_heading(&body[heading.text.clone()]) {
            Heading::Update(at, status) => Some((at, Status::parse(status), heading.whole)),
            _ => None,
        })
        .collect();
    with_ends(&starts, body.len())
        .map(|((at, status, heading), end)| {
            let update = Update {
                at: *at,
                status: status.clone(),
                body: trim_blank_lines(&body[heading.end..end]).to_string(),
            };
            (update, heading.start..end)
        })
        .collect()
}

/// The error for markdown that writes a tag with more attributes than a page may hold.
pub(crate) fn crowded_tag_error(ctx: &FileCtx, at: Pos) -> Diagnostic {
    ctx.error(
        at,
        format!("this HTML tag has more than {MAX_ATTRIBUTES} attributes, which no page may hold"),
    )
    .with_hint("an element needs a few attributes; remove the others")
}

/// An H3 heading of the document itself (not inside a list, quote or other container).
struct HeadingSpan {
    /// The heading with its markers and line end.
    whole: Range<usize>,
    /// Its text, as written (markup and escapes kept).
    text: Range<usize>,
}

/// The top-level H3 headings of `markdown`, in order, in one pass of the parser; and the
/// offsets of lines starting `###` that an HTML block took in as its own (CommonMark
/// ends such a block only at a blank line), which a writer almost surely meant as headings.
fn top_level_h3(markdown: &str) -> (Vec<HeadingSpan>, Vec<usize>) {
    let mut headings = Vec::new();
    let mut swallowed = Vec::new();
    let mut depth = 0usize;
    let mut open: Option<HeadingSpan> = None;
    for (event, range) in Parser::new_ext(markdown, MARKDOWN_OPTIONS).into_offset_iter() {
        let start = range.start;
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H3,
                ..
            }) if depth == 0 => {
                open = Some(HeadingSpan {
                    text: range.end..range.end,
                    whole: range,
                });
                depth += 1;
            }
            Event::End(TagEnd::Heading(HeadingLevel::H3)) if depth == 1 => {
                headings.extend(open.take());
                depth -= 1;
            }
            event => {
                if let Some(heading) = &mut open {
                    // The text runs from the first inline event to the end of the last.
                    if heading.text.is_empty() {
                        heading.text = range;
                    } else {
                        heading.text.end = heading.text.end.max(range.end);
                    }
                }
                match event {
                    Event::Html(html) if depth == 1 && html.starts_with("###") => {
                        swallowed.push(start);
                    }
                    Event::Start(_) => depth += 1,
                    Event::End(_) => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
    }
    (headings, swallowed)
}

/// Line and column of byte offsets that only grow: one scan of the text in all.
struct Lines<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str, first_line: usize) -> Lines<'a> {
        Lines {
            text,
            offset: 0,
            line: first_line,
        }
    }

    /// The 1-based line and column (in characters) of `offset`, at or after the last one.
    fn at(&mut self, offset: usize) -> (usize, usize) {
        self.line += self.text[self.offset..offset].matches('\n').count();
        self.offset = offset;
        let line_start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        (self.line, self.text[line_start..offset].chars().count() + 1)
    }
}

enum Heading<'a> {
    Update(Timestamp, &'a str),
    BadTime(&'a str, TimeError),
    NoStatus,
    Text,
}

fn read_heading(text: &str) -> Heading<'_> {
    let looks_like_time = text.trim_start().starts_with(|c: char| c.is_ascii_digit());
    match text.split_once(": ") {
        Some((time, status)) => match parse_timestamp(time) {
            Ok(_) if status.trim().is_empty() => Heading::NoStatus,
            Ok(at) => Heading::Update(at, status.trim()),
            // `### yesterday: investigating` is an update whose time cannot be read, as
            // much as `### 2024-03-05 10:30: monitoring` is.
            Err(error) if looks_like_time || !matches!(Status::parse(status), Status::Other(_)) => {
                Heading::BadTime(time, error)
            }
            Err(_) => Heading::Text,
        },
        None if parse_timestamp(text.trim_end_matches(':')).is_ok() => Heading::NoStatus,
        None => Heading::Text,
    }
}

/// The `## Updates` (or `## Updates from <Name>`) heading that introduces the updates is
/// layout, not summary.
fn strip_updates_heading(summary: &str) -> &str {
    match summary
        .rsplit_once('\n')
        .map_or(("", summary), |(a, b)| (a, b))
    {
        (before, last)
            if last
                .trim_start_matches('#')
                .trim()
                .to_ascii_lowercase()
                .starts_with("updates")
                && last.starts_with("## ") =>
        {
            before.trim_end()
        }
        _ => summary,
    }
}

/// Adds the level of escaping [`unescape_once`] removes, as down.guide writes it: a
/// backslash before each backslash and emphasis mark (`**Summary**` → `\*\*Summary\*\*`).
/// Any other character reads back as itself, so reading gives back exactly `text`.
pub fn escape_once(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Undoes one level of markdown escaping: `\*\*Summary\*\*` → `**Summary**`,
/// `\\(9:49am\\)` → `\(9:49am\)`. down.guide escapes postmortems once too often.
pub fn unescape_once(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&next) if c == '\\' && next.is_ascii_punctuation() => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn escaping_once_is_undone_by_reading() {
        for text in [
            "## **Summary**",
            r"\(9:49am\) and \* and a\b",
            "snake_case and a trailing \\",
            "plain: text.",
            "",
        ] {
            assert_eq!(unescape_once(&escape_once(text)), text, "{text}");
        }
        assert_eq!(escape_once("**Summary**"), r"\*\*Summary\*\*");
    }

    fn parse(body: &str) -> (Body, Vec<Diagnostic>) {
        let ctx = FileCtx::new(Path::new("x.md"), body);
        let mut errors = Vec::new();
        let parsed = parse_body(&ctx, body, 1, &mut errors);
        (parsed, errors)
    }

    #[test]
    fn updates_run_to_the_next_update_heading_whatever_they_hold() {
        let (body, errors) = parse(
            "Summary text.\n\n## Updates\n### 2022-01-20 17:58 UTC: investigating\nLooking.\n\
             ### 2022-02-01T23:14:00Z: postmortem\n## Summary\nBad.\n### Not a time\nStill here.\n\
             ```\n### 2022-01-20 18:00 UTC: inside code\n```\n",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(body.summary, "Summary text.");
        assert_eq!(body.updates.len(), 2);
        assert_eq!(body.updates[0].status, Status::Investigating);
        assert_eq!(body.updates[0].body, "Looking.");
        assert_eq!(body.updates[1].status, Status::Postmortem);
        assert!(
            body.updates[1]
                .body
                .starts_with("## Summary\nBad.\n### Not a time")
        );
        assert!(body.updates[1].body.contains("inside code"));
    }

    #[test]
    fn inline_code_and_indented_backticks_open_no_fence() {
        let (body, _) = parse(
            "### 2022-01-20 17:58 UTC: investigating\n```kubectl rollout undo``` was run.\n    ```\n\n\
             ### 2022-01-20 18:30 UTC: resolved\nFixed.\n",
        );
        assert_eq!(body.updates.len(), 2, "{body:?}");
    }

    #[test]
    fn written_updates_run_from_their_heading_to_the_next() {
        let body = "Summary.\n\n### 2024-03-05T14:00:00Z: update\nLooking.\n```\n### 2024-03-05T14:01:00Z: no\n```\n\n### 2024-03-05T15:00:00Z: resolved\nFixed.\n";
        let written = written_updates(body);
        let (parsed, _) = parse(body);
        assert_eq!(
            written.iter().map(|(u, _)| u.clone()).collect::<Vec<_>>(),
            parsed.updates
        );
        assert!(body[written[0].1.clone()].starts_with("### 2024-03-05T14:00:00Z: update\n"));
        assert!(body[written[0].1.clone()].ends_with("```\n\n"));
        assert_eq!(
            &body[written[1].1.clone()],
            "### 2024-03-05T15:00:00Z: resolved\nFixed.\n"
        );
    }

    #[test]
    fn only_what_renders_as_a_top_level_heading_starts_an_update() {
        // The fence of a list item closes indented; the heading after it is a heading.
        let (body, errors) = parse(
            "### 2024-03-05 14:00 UTC: investigating\n1. ```sh\n   run\n   ```\n\
             ### 2024-03-05 15:00 UTC: resolved\nFixed.\n",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(body.updates.len(), 2, "{body:?}");
        assert_eq!(body.updates[0].body, "1. ```sh\n   run\n   ```");
        assert_eq!(body.updates[1].body, "Fixed.");
        // Inside a list item or a quote, `###` is no heading of the page.
        let (body, errors) = parse(
            "### 2024-03-05 14:00 UTC: investigating\n- ### 2024-03-05 15:00 UTC: resolved\n\
             \n> ### 2024-03-05 16:00 UTC: resolved\n",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(body.updates.len(), 1, "{body:?}");
    }

    #[test]
    fn an_update_taken_in_by_html_is_an_error_not_a_lost_update() {
        let (body, errors) = parse(
            "### 2024-03-05 14:00 UTC: investigating\n<div>\n### 2024-03-05 17:00 UTC: resolved\n\
             </div>\n<details>x\n### Not an update\n",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!((errors[0].line, errors[0].col), (3, 1));
        assert!(errors[0].message.contains("inside the HTML"));
        assert_eq!(body.updates.len(), 1);
    }

    #[test]
    fn heading_markup_is_the_renderers() {
        // Up to three spaces of indent, a closing sequence: still a heading.
        let (body, errors) = parse(
            "Summary.\n\n   ### 2024-03-05 14:00 UTC: investigating ###\nA.\n###\t2024-03-05 15:00 UTC: resolved\nB.\n",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(body.summary, "Summary.");
        assert_eq!(body.updates.len(), 2, "{body:?}");
        assert_eq!(body.updates[0].status, Status::Investigating);
        assert_eq!(body.updates[1].body, "B.");
    }

    #[test]
    fn splitting_is_linear_in_the_body() {
        let many: String = (0..20_000)
            .map(|i| format!("### 2024-03-05 14:{:02} UTC: update\nline {i}\n", i % 60))
            .collect();
        let nested = format!("{}x\n", "> ".repeat(50_000));
        let lists = format!("{}x\n", "- ".repeat(50_000));
        let fences = "```\n".repeat(50_000);
        // No clock here (speed lives in the benchmarks): quadratic work would take minutes.
        for text in [many.as_str(), &nested, &lists, &fences] {
            let _ = parse(text);
        }
        assert_eq!(parse(&many).0.updates.len(), 20_000);
    }

    #[test]
    fn a_known_status_after_an_unreadable_time_is_an_error_like_a_bad_date() {
        let (body, errors) = parse(
            "### yesterday: investigating\nx\n### 2024-03-05 10:30: monitoring\n### Notes: none\n",
        );
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].message.contains("yesterday"), "{:?}", errors[0]);
        assert_eq!((errors[1].line, errors[1].col), (3, 5));
        assert!(body.updates.is_empty());
    }

    #[test]
    fn updates_are_put_in_time_order() {
        let (body, _) = parse(
            "### 2022-01-20 19:00 UTC: resolved\nb\n### 2022-01-20 18:00 UTC: investigating\na\n",
        );
        assert_eq!(body.updates[0].body, "a");
        assert_eq!(body.updates[1].body, "b");
    }

    #[test]
    fn bad_update_headings_point_at_their_line() {
        let (_, errors) =
            parse("intro\n### 2022-01-32 17:58 UTC: investigating\n### 2022-01-20 17:58 UTC:\n");
        assert_eq!(errors.len(), 2);
        assert_eq!((errors[0].line, errors[0].col), (2, 5));
        assert!(errors[0].message.contains("2022-01-32"));
        assert_eq!(errors[1].line, 3);
        assert!(errors[1].message.contains("no status"));
    }

    #[test]
    fn one_level_of_escaping_is_undone() {
        assert_eq!(unescape_once(r"## \*\*Summary\*\*"), "## **Summary**");
        assert_eq!(unescape_once(r"\\(9:49am\\)"), r"\(9:49am\)");
        assert_eq!(unescape_once(r"a\b"), r"a\b");
    }
}
