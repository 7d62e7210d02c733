//! The body of an incident: a summary, then updates that each start at a
//! `### <time>: <status>` heading and run to the next one, whatever headings they hold.

use crate::content::fields::{FileCtx, Pos};
use crate::content::time::{ACCEPTED_FORMATS, parse_timestamp};
use crate::diagnostics::Diagnostic;
use crate::model::{Status, Update};

/// What a body holds.
#[derive(Debug, Default, PartialEq)]
pub struct Body {
    pub summary: String,
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
    let mut summary = String::new();
    let mut updates: Vec<Update> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in body.lines().enumerate() {
        fence = track_fence(fence, line);
        let heading = if fence.is_none() {
            line.strip_prefix("### ")
        } else {
            None
        };
        if let Some(rest) = heading {
            let pos = Pos::new(first_line + i, 5, rest.chars().count());
            match read_heading(rest) {
                Heading::Update(at, status) => {
                    updates.push(Update {
                        at,
                        status: Status::parse(status),
                        body: String::new(),
                    });
                    continue;
                }
                Heading::BadTime(time) => {
                    errors.push(
                        ctx.error(
                            Pos {
                                width: time.chars().count(),
                                ..pos
                            },
                            format!("cannot read the time `{time}` of this update"),
                        )
                        .with_hint(ACCEPTED_FORMATS),
                    );
                    continue;
                }
                Heading::NoStatus => {
                    errors.push(
                        ctx.error(pos, "this update has no status")
                            .with_hint("write `### 2022-01-20 17:58 UTC: investigating`"),
                    );
                    continue;
                }
                Heading::Text => {}
            }
        }
        let target = match updates.last_mut() {
            Some(update) => &mut update.body,
            None => &mut summary,
        };
        target.push_str(line);
        target.push('\n');
    }
    for update in &mut updates {
        update.body = update.body.trim().to_string();
    }
    updates.sort_by_key(|update| update.at);
    Body {
        summary: strip_updates_heading(summary.trim()).to_string(),
        updates,
    }
}

enum Heading<'a> {
    Update(crate::model::Timestamp, &'a str),
    BadTime(&'a str),
    NoStatus,
    Text,
}

fn read_heading(rest: &str) -> Heading<'_> {
    let looks_like_time = rest.trim_start().starts_with(|c: char| c.is_ascii_digit());
    match rest.split_once(": ") {
        Some((time, status)) => match parse_timestamp(time) {
            Some(_) if status.trim().is_empty() => Heading::NoStatus,
            Some(at) => Heading::Update(at, status.trim()),
            None if looks_like_time => Heading::BadTime(time),
            None => Heading::Text,
        },
        None if parse_timestamp(rest.trim_end_matches(':')).is_some() => Heading::NoStatus,
        None => Heading::Text,
    }
}

/// Follows fenced code blocks, so a `###` line inside one is left alone.
/// The rules are CommonMark's: at most three spaces of indent, and a backtick fence's info
/// string holds no backtick (```` ```kubectl``` was run ```` is inline code, not a fence).
fn track_fence(fence: Option<(char, usize)>, line: &str) -> Option<(char, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return fence;
    }
    let Some(marker) = trimmed.chars().next().filter(|c| *c == '`' || *c == '~') else {
        return fence;
    };
    let run = trimmed.chars().take_while(|c| *c == marker).count();
    if run < 3 {
        return fence;
    }
    match fence {
        None if marker == '`' && trimmed[run..].contains('`') => None,
        None => Some((marker, run)),
        Some((open, len)) if open == marker && run >= len && trimmed[run..].trim().is_empty() => {
            None
        }
        open => open,
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
