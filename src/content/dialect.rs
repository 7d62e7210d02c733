//! The markdown of content as pages show it: the parser with the site's options and its
//! adjustments, as one stream of events. The renderer writes pages from it, and the
//! content's checks read the same stream, so what they check is what pages hold.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

use super::updates::MARKDOWN_OPTIONS;

/// The deepest nesting of elements kept, from markdown and raw HTML alike. Markdown itself
/// rarely goes past 20 (a list in a list in a quote, with emphasis and a link); browsers
/// flatten past 512.
pub const MAX_DEPTH: usize = 64;

/// The parser with the page's adjustments. Elements nested deeper than [`MAX_DEPTH`] lose
/// their tags and keep their text (`>` typed 50,000 times is one quote 64 deep), as raw
/// HTML does in the renderer's balancing: no page holds more nesting than a browser renders.
pub(crate) fn events(markdown: &str) -> impl Iterator<Item = Event<'_>> {
    events_at(markdown).map(|(event, _)| event)
}

/// [`events`] with the range of the markdown each comes from.
pub(crate) fn events_at(markdown: &str) -> impl Iterator<Item = (Event<'_>, Range<usize>)> {
    let mut depth = 0usize;
    let parser = Parser::new_ext(markdown, MARKDOWN_OPTIONS).into_offset_iter();
    parser.filter_map(move |(event, range)| {
        let kept = match event {
            Event::Start(_) => {
                depth += 1;
                depth <= MAX_DEPTH
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                depth < MAX_DEPTH
            }
            _ => true,
        };
        kept.then(|| (adjust(event), range))
    })
}

fn adjust(event: Event<'_>) -> Event<'_> {
    match event {
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
        // pulldown-cmark writes a task's box as an `<input>`, which no page of untrusted
        // text may hold: the box becomes the character it stands for.
        Event::TaskListMarker(done) => Event::Text(if done { "☑ " } else { "☐ " }.into()),
        other => other,
    }
}

fn demote(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 | HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        HeadingLevel::H4 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    }
}
