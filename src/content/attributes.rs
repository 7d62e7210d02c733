//! Tags with too many attributes, found before html5ever reads them.
//!
//! html5ever's tokenizer compares each attribute's name with every name the tag already
//! holds, so one tag of `n` distinct attributes costs `n²` comparisons: 160,000 of them
//! (1.5 MB) took 28 s. No tag the renderer passes to it may hold more than
//! [`MAX_ATTRIBUTES`], which bounds that work to `MAX_ATTRIBUTES` comparisons per attribute.
//!
//! Which `<` starts a tag depends on what came before (a comment, a `<script>`, a quoted
//! value), so the scan does not guess: every `<` followed by a letter, and every `</`
//! followed by one, may start a tag, and each is followed through the tokenizer's tag
//! states exactly. Followings that reach the same state at the same character go on alike,
//! so they merge, keeping the largest count: at most one per state, ten in all, whatever the
//! input. Every tag html5ever reads is one of those followed, so none holds more
//! attributes than the scan counted.

use std::cell::Cell;
use std::fmt;

use pulldown_cmark::html;

use super::dialect::events_at;

/// The most attributes one tag of content may hold; no element needs a tenth of them.
pub(crate) const MAX_ATTRIBUTES: usize = 100;

/// The byte offset in `markdown` of the markdown that writes a tag with more than
/// [`MAX_ATTRIBUTES`] attributes into its page, if one does. Linear in its size.
pub(crate) fn crowded_tag(markdown: &str) -> Option<usize> {
    // Without a `<` the renderer writes only its own tags, each with a few attributes.
    if !markdown.contains('<') {
        return None;
    }
    let at = Cell::new(0);
    let mut scan = Scan::new(&at, MAX_ATTRIBUTES);
    let events = events_at(markdown).map(|(event, range)| {
        at.set(range.start);
        event
    });
    // The scan stops the writer at the first crowded tag.
    let _ = html::write_html_fmt(&mut scan, events);
    scan.found
}

/// The tokenizer's states inside a tag, as the HTML standard names them.
#[derive(Clone, Copy)]
enum State {
    TagName,
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    DoubleQuoted,
    SingleQuoted,
    Unquoted,
    AfterQuoted,
    SelfClosing,
}

const STATES: usize = 10;

/// What one character does to a tag being read.
struct Step {
    /// `None` when the tag ends (or is no tag).
    next: Option<State>,
    /// Whether the character starts an attribute.
    starts_attribute: bool,
}

fn is_space(c: char) -> bool {
    // The tokenizer reads `\r` as `\n`.
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

impl State {
    fn step(self, c: char) -> Step {
        let go = |next| Step {
            next: Some(next),
            starts_attribute: false,
        };
        let end = Step {
            next: None,
            starts_attribute: false,
        };
        let attribute = Step {
            next: Some(State::Name),
            starts_attribute: true,
        };
        match (self, c) {
            (State::TagName, c) if is_space(c) => go(State::BeforeName),
            (State::TagName, '/') => go(State::SelfClosing),
            (State::TagName, '>') => end,
            (State::TagName, _) => go(State::TagName),
            (State::BeforeName, c) if is_space(c) => go(State::BeforeName),
            (State::BeforeName, '/') => go(State::SelfClosing),
            (State::BeforeName, '>') => end,
            (State::BeforeName, _) => attribute,
            (State::Name, c) if is_space(c) => go(State::AfterName),
            (State::Name, '/') => go(State::SelfClosing),
            (State::Name, '>') => end,
            (State::Name, '=') => go(State::BeforeValue),
            (State::Name, _) => go(State::Name),
            (State::AfterName, c) if is_space(c) => go(State::AfterName),
            (State::AfterName, '/') => go(State::SelfClosing),
            (State::AfterName, '=') => go(State::BeforeValue),
            (State::AfterName, '>') => end,
            (State::AfterName, _) => attribute,
            (State::BeforeValue, c) if is_space(c) => go(State::BeforeValue),
            (State::BeforeValue, '"') => go(State::DoubleQuoted),
            (State::BeforeValue, '\'') => go(State::SingleQuoted),
            (State::BeforeValue, '>') => end,
            (State::BeforeValue, c) => State::Unquoted.step(c),
            (State::DoubleQuoted, '"') | (State::SingleQuoted, '\'') => go(State::AfterQuoted),
            (State::DoubleQuoted | State::SingleQuoted, _) => go(self),
            (State::Unquoted, c) if is_space(c) => go(State::BeforeName),
            (State::Unquoted, '>') => end,
            (State::Unquoted, _) => go(State::Unquoted),
            (State::AfterQuoted, c) if is_space(c) => go(State::BeforeName),
            (State::AfterQuoted, '/') => go(State::SelfClosing),
            (State::AfterQuoted, '>') | (State::SelfClosing, '>') => end,
            (State::AfterQuoted | State::SelfClosing, c) => State::BeforeName.step(c),
        }
    }
}

/// Tags followed so far, merged by state.
#[derive(Clone, Copy)]
struct Following {
    /// The most attributes any of them has started.
    attributes: usize,
    /// Where the one with the most started, in the markdown.
    start: usize,
}

/// HTML read as the renderer writes it, in pieces.
struct Scan<'a> {
    /// By state: the tags being followed.
    following: [Option<Following>; STATES],
    /// How many are being followed, to skip text quickly when none is.
    live: usize,
    /// The last two characters, to see a tag start.
    before: [char; 2],
    /// The offset in the markdown of what is being written.
    at: &'a Cell<usize>,
    limit: usize,
    found: Option<usize>,
}

impl<'a> Scan<'a> {
    fn new(at: &'a Cell<usize>, limit: usize) -> Scan<'a> {
        Scan {
            following: [None; STATES],
            live: 0,
            before: [' '; 2],
            at,
            limit,
            found: None,
        }
    }

    fn read(&mut self, c: char) {
        if self.live > 0 {
            let mut next = [None; STATES];
            for (state, slot) in STATES_IN_ORDER.iter().zip(self.following) {
                let Some(mut tag) = slot else { continue };
                let step = state.step(c);
                if step.starts_attribute {
                    tag.attributes = tag.attributes.saturating_add(1);
                    if tag.attributes > self.limit {
                        self.found = Some(tag.start);
                        return;
                    }
                }
                if let Some(state) = step.next {
                    merge(&mut next[state as usize], tag);
                }
            }
            self.following = next;
        }
        let starts_tag =
            c.is_ascii_alphabetic() && (self.before[1] == '<' || self.before == ['<', '/']);
        if starts_tag {
            let tag = Following {
                attributes: 0,
                start: self.at.get(),
            };
            merge(&mut self.following[State::TagName as usize], tag);
        }
        self.live = self.following.iter().flatten().count();
        self.before = [self.before[1], c];
    }
}

const STATES_IN_ORDER: [State; STATES] = [
    State::TagName,
    State::BeforeName,
    State::Name,
    State::AfterName,
    State::BeforeValue,
    State::DoubleQuoted,
    State::SingleQuoted,
    State::Unquoted,
    State::AfterQuoted,
    State::SelfClosing,
];

fn merge(slot: &mut Option<Following>, tag: Following) {
    match slot {
        Some(kept) if kept.attributes >= tag.attributes => {}
        _ => *slot = Some(tag),
    }
}

impl fmt::Write for Scan<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            self.read(c);
            if self.found.is_some() {
                return Err(fmt::Error);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::fmt::Write;

    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::{
        BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
    };
    use proptest::prelude::*;

    use super::*;
    use crate::render::balance::raw_kind;

    fn tag(attributes: usize) -> String {
        let names: String = (0..attributes).map(|i| format!(" a{i}=\"{i}\"")).collect();
        format!("<p{names}>text</p>")
    }

    #[test]
    fn a_tag_may_hold_the_most_and_no_more() {
        let fits = format!("Intro\n\n{}", tag(MAX_ATTRIBUTES));
        assert_eq!(crowded_tag(&fits), None);
        let crowded = format!("Intro\n\n{}", tag(MAX_ATTRIBUTES + 1));
        assert_eq!(crowded_tag(&crowded), Some(7));
        // Inline, among text: the offset of the tag's own event.
        let inline = format!("Some *text* {} after", tag(MAX_ATTRIBUTES + 1));
        assert_eq!(crowded_tag(&inline), Some(12));
    }

    #[test]
    fn what_hides_a_tag_from_a_guess_does_not_hide_it_from_the_scan() {
        let crowded = tag(MAX_ATTRIBUTES + 1);
        for markdown in [
            // A quote opened in a comment would swallow the tag if the comment were a tag.
            format!("<!-- <a b=\" -->\n{crowded}\n\"x"),
            // A tag an HTML block left open takes the paragraph after it as attributes.
            format!(
                "<div a=\"\n\ntext\" {}",
                (0..=MAX_ATTRIBUTES)
                    .map(|i| format!("w{i} "))
                    .collect::<String>()
            ),
            // Values holding `>`.
            format!(
                "<p {}>",
                (0..=MAX_ATTRIBUTES)
                    .map(|i| format!("a{i}='>' "))
                    .collect::<String>()
            ),
        ] {
            let mut raw = String::new();
            html::push_html(&mut raw, events_at(&markdown).map(|(event, _)| event));
            assert!(most_in_html5ever(&raw) > MAX_ATTRIBUTES, "{raw}");
            assert!(crowded_tag(&markdown).is_some(), "{markdown}");
        }
    }

    /// The most attributes html5ever's tokenizer gives one tag, run as the renderer runs it.
    fn most_in_html5ever(html: &str) -> usize {
        struct Most(RefCell<usize>);
        impl TokenSink for Most {
            type Handle = ();
            fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
                if let Token::TagToken(tag) = token {
                    let mut most = self.0.borrow_mut();
                    *most = (*most).max(tag.attrs.len());
                    if tag.kind == TagKind::StartTag
                        && let Some(kind) = raw_kind(&tag.name)
                    {
                        return kind;
                    }
                }
                TokenSinkResult::Continue
            }
        }
        let tokenizer = Tokenizer::new(Most(RefCell::new(0)), TokenizerOpts::default());
        let input = BufferQueue::default();
        input.push_back(StrTendril::from(html));
        let _ = tokenizer.feed(&input);
        tokenizer.end();
        tokenizer.sink.0.into_inner()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]
        /// The scan's count is a bound: whatever the markup, no tag html5ever reads holds
        /// more attributes than the scan allows.
        #[test]
        fn no_tag_holds_more_than_the_scan_counts(
            html in "(<a|</b|<!--|-->|<script>|</script>|<title>|</title>|[ \n]|[a-eA-C]{1,2}|=|=\"|\"|'|/|>|<|!|-){0,60}",
            limit in 0usize..4,
        ) {
            let at = Cell::new(0);
            let mut scan = Scan::new(&at, limit);
            let _ = scan.write_str(&html);
            if scan.found.is_none() {
                prop_assert!(most_in_html5ever(&html) <= limit);
            }
        }
    }
}
