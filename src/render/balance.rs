//! Raw HTML made balanced and shallow before the sanitiser parses it.
//!
//! html5ever's tree builder scans its stack of open elements at most tags, and reopens every
//! misnested formatting element (`<b>`, `<em>`…) at each text: its cost grows with the
//! nesting depth, so 100,000 nested `<div>` took 75 s and `<div><b id=N></div>` repeated
//! multiplied its own output. One linear pass over html5ever's own tokenizer, with a model
//! of the open elements that follows the parser's usual implied closes, fixes both:
//!
//! - tags nested deeper than [`MAX_DEPTH`] are dropped (their text stays);
//! - an element the model closes implicitly gets its end tag written out, so no formatting
//!   element is left for the parser to reopen;
//! - what would switch the parser's tokenizer or tree-building mode is dropped, tags the
//!   sanitiser removes anyway: `<script>`, `<style>`, `<svg>` and `<math>` with their
//!   content (the sanitiser keeps none of it), `<select>`, `<html>`, `<head>`, `<body>`;
//!   raw-text elements (`<xmp>`, `<iframe>`, `<textarea>`, `<noscript>`…) keep their
//!   content as plain text.
//!
//! So the parser never holds more than a bounded stack, whatever the input. Well-formed
//! markup (all markdown produces, and ordinary hand-written HTML) passes unchanged.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{LocalName, local_name};

use crate::content::dialect::MAX_DEPTH;

/// Returns `html` balanced, at most [`MAX_DEPTH`] deep, for the sanitiser. Linear in its size.
pub fn balance(html: &str) -> String {
    let sink = Sink {
        state: RefCell::new(State {
            out: String::with_capacity(html.len() + html.len() / 8),
            open: Vec::with_capacity(MAX_DEPTH),
            dropping_content: false,
            foreign: 0,
        }),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.state.into_inner().out
}

struct Sink {
    state: RefCell<State>,
}

/// An open element, classified once when it opens: the searches that follow are the hot
/// loop, and must not compare names against lists.
struct Open {
    name: LocalName,
    flags: u8,
}

const SPECIAL: u8 = 1;
const HEADING: u8 = 2;
/// A boundary of the default scope, and so of the list-item and button scopes.
const BOUNDARY: u8 = 4;
const LIST_BOUNDARY: u8 = 8;
const BUTTON_BOUNDARY: u8 = 16;
const TABLE_BOUNDARY: u8 = 32;

impl Open {
    fn new(name: &LocalName) -> Open {
        let text: &str = name;
        let flag = |yes: bool, flag: u8| if yes { flag } else { 0 };
        let boundary = matches!(
            text,
            "applet"
                | "caption"
                | "html"
                | "table"
                | "td"
                | "th"
                | "marquee"
                | "object"
                | "template"
        );
        Open {
            name: name.clone(),
            flags: flag(is_special(text), SPECIAL)
                | flag(is_heading(text), HEADING)
                | flag(boundary, BOUNDARY)
                | flag(matches!(text, "ol" | "ul"), LIST_BOUNDARY)
                | flag(text == "button", BUTTON_BOUNDARY)
                | flag(
                    matches!(text, "html" | "table" | "template"),
                    TABLE_BOUNDARY,
                ),
        }
    }

    fn is(&self, name: &LocalName) -> bool {
        self.name == *name
    }
}

struct State {
    out: String,
    /// The model of the parser's open elements, innermost last.
    open: Vec<Open>,
    /// Inside `<script>` or `<style>`, whose text the sanitiser drops.
    dropping_content: bool,
    /// How many `<svg>` or `<math>` are open. Their content is dropped: the sanitiser keeps
    /// none of it, and dropping it keeps the parser out of foreign content.
    foreign: usize,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) if state.foreign > 0 => return state.foreign(&tag),
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return state.start(&tag),
                TagKind::EndTag => state.end(&tag.name),
            },
            Token::CharacterTokens(text) if !state.dropping_content && state.foreign == 0 => {
                escape_text(&mut state.out, &text)
            }
            // Comments and doctypes are dropped by the sanitiser; NUL by the parser.
            _ => {}
        }
        TokenSinkResult::Continue
    }

    /// In foreign content `<![CDATA[…]]>` is text, not a comment to its first `>`.
    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.state.borrow().foreign > 0
    }
}

impl State {
    /// A tag inside `<svg>` or `<math>`: dropped, unless it ends the foreign content as
    /// the parser would (the closing tag, or an HTML tag such as `<p>` that breaks out).
    fn foreign(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        match tag.kind {
            TagKind::StartTag if breaks_out(name) => {
                self.foreign = 0;
                return self.start(tag);
            }
            TagKind::StartTag if matches!(name, "svg" | "math") && !tag.self_closing => {
                self.foreign += 1
            }
            TagKind::EndTag if matches!(name, "svg" | "math") => self.foreign -= 1,
            TagKind::EndTag if matches!(name, "p" | "br") => {
                self.foreign = 0;
                self.end(&tag.name);
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }

    fn start(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        if let Some(kind) = raw_kind(name) {
            self.dropping_content = matches!(name, "script" | "style");
            return kind;
        }
        if matches!(name, "svg" | "math") {
            self.foreign = usize::from(!tag.self_closing);
            return TokenSinkResult::Continue;
        }
        if matches!(
            name,
            "select" | "html" | "head" | "body" | "frameset" | "frame"
        ) {
            return TokenSinkResult::Continue;
        }
        self.implied_closes(name, &tag.name);
        if is_void(name) {
            self.write_start(tag);
        } else if self.open.len() < MAX_DEPTH {
            self.write_start(tag);
            self.open.push(Open::new(&tag.name));
        }
        TokenSinkResult::Continue
    }

    /// The closes the parser makes before inserting `name`, as the HTML standard's "in body"
    /// rules give them for the tags that commonly go unclosed.
    fn implied_closes(&mut self, name: &str, atom: &LocalName) {
        if closes_p(name) {
            self.close_in_scope(|n| n.is(&local_name!("p")), Scope::Button);
        }
        let top_is =
            |state: &State, name: LocalName| state.open.last().is_some_and(|top| top.is(&name));
        match name {
            "li" => self.close_item(|n| n.is(&local_name!("li"))),
            "dd" | "dt" => {
                self.close_item(|n| n.is(&local_name!("dd")) || n.is(&local_name!("dt")))
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                if self.open.last().is_some_and(|top| top.flags & HEADING != 0) =>
            {
                self.close_to(self.open.len() - 1)
            }
            "td" | "th" => self.close_in_scope(
                |n| n.is(&local_name!("td")) || n.is(&local_name!("th")),
                Scope::Table,
            ),
            "tr" => self.close_in_scope(|n| n.is(&local_name!("tr")), Scope::Table),
            "tbody" | "thead" | "tfoot" => self.close_in_scope(
                |n| {
                    n.is(&local_name!("tbody"))
                        || n.is(&local_name!("thead"))
                        || n.is(&local_name!("tfoot"))
                },
                Scope::Table,
            ),
            "a" | "nobr" | "button" => self.close_in_scope(|n| n.is(atom), Scope::Default),
            "option" | "optgroup" => {
                if top_is(self, local_name!("option")) {
                    self.close_to(self.open.len() - 1);
                }
                if name == "optgroup" && top_is(self, local_name!("optgroup")) {
                    self.close_to(self.open.len() - 1);
                }
            }
            _ => {}
        }
    }

    /// A new list item closes the open one, unless a special element stands between.
    fn close_item(&mut self, wanted: impl Fn(&Open) -> bool) {
        for (i, open) in self.open.iter().enumerate().rev() {
            if wanted(open) {
                return self.close_to(i);
            }
            if open.flags & SPECIAL != 0
                && !(open.is(&local_name!("address"))
                    || open.is(&local_name!("div"))
                    || open.is(&local_name!("p")))
            {
                return;
            }
        }
    }

    fn end(&mut self, atom: &LocalName) {
        let name: &str = atom;
        if raw_kind(name).is_some()
            || matches!(
                name,
                "svg" | "math" | "select" | "html" | "head" | "body" | "frameset" | "frame"
            )
        {
            self.dropping_content = false;
            return;
        }
        let found = if is_heading(name) {
            self.find(|n| n.flags & HEADING != 0, Scope::Default)
        } else if is_special(name) || is_formatting(name) {
            let scope = match name {
                "li" => Scope::ListItem,
                "p" => Scope::Button,
                "table" | "tbody" | "thead" | "tfoot" | "tr" | "td" | "th" => Scope::Table,
                _ => Scope::Default,
            };
            self.find(|n| n.is(atom), scope)
        } else {
            // Any other end tag closes the nearest such element, unless a special one is
            // in the way: then the parser ignores it.
            self.open
                .iter()
                .rposition(|n| n.is(atom) || n.flags & SPECIAL != 0)
                .filter(|&i| self.open[i].is(atom))
        };
        match found {
            // Misnested inline formatting (`<b>x<i>y</b>z</i>`): the parser closes what is
            // inside and reopens the formatting elements at the next text, so they stay
            // open in the model too, and count towards its depth.
            Some(i)
                if is_formatting(name)
                    && self.open[i + 1..].iter().all(|n| n.flags & SPECIAL == 0) =>
            {
                let inside = self.open.split_off(i + 1);
                self.open.pop();
                self.write_end(name);
                self.open
                    .extend(inside.into_iter().filter(|n| is_formatting(&n.name)));
            }
            Some(i) => {
                // The tag as written closes the element; what it closes on the way is
                // closed explicitly first, so no formatting element is left to reopen.
                self.close_to(i + 1);
                self.open.pop();
                self.write_end(name);
            }
            // The parser ignores it, or makes an empty element (`</p>`, `</br>`): the same
            // bounded work whether or not it is there.
            None => self.write_end(name),
        }
    }

    /// Closes the nearest element matching `wanted` if it is in `scope`.
    fn close_in_scope(&mut self, wanted: impl Fn(&Open) -> bool, scope: Scope) {
        if let Some(i) = self.find(wanted, scope) {
            self.close_to(i);
        }
    }

    /// The nearest open element matching `wanted`, if no scope boundary stands before it.
    fn find(&self, wanted: impl Fn(&Open) -> bool, scope: Scope) -> Option<usize> {
        let boundary = scope.flags();
        for (i, open) in self.open.iter().enumerate().rev() {
            if wanted(open) {
                return Some(i);
            }
            if open.flags & boundary != 0 {
                return None;
            }
        }
        None
    }

    /// Closes every element from the innermost down to index `depth`, writing their end tags.
    fn close_to(&mut self, depth: usize) {
        while self.open.len() > depth {
            if let Some(open) = self.open.pop() {
                self.write_end(&open.name);
            }
        }
    }

    fn write_start(&mut self, tag: &Tag) {
        let out = &mut self.out;
        out.push('<');
        out.push_str(&tag.name);
        for attr in &tag.attrs {
            let name: &str = &attr.name.local;
            // The sanitiser keeps only plain names; odd ones could only confuse a re-parse.
            if name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
            {
                out.push(' ');
                out.push_str(name);
                out.push_str("=\"");
                for c in attr.value.chars() {
                    match c {
                        '&' => out.push_str("&amp;"),
                        '"' => out.push_str("&quot;"),
                        c => out.push(c),
                    }
                }
                out.push('"');
            }
        }
        out.push('>');
    }

    fn write_end(&mut self, name: &str) {
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push('>');
    }
}

fn escape_text(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// Elements whose content the tokenizer reads as text, as the parser would tell it to.
pub(crate) fn raw_kind(name: &str) -> Option<TokenSinkResult<()>> {
    Some(match name {
        "script" => TokenSinkResult::RawData(RawKind::ScriptData),
        "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
            TokenSinkResult::RawData(RawKind::Rawtext)
        }
        "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
        "plaintext" => TokenSinkResult::Plaintext,
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum Scope {
    Default,
    ListItem,
    Button,
    Table,
}

impl Scope {
    /// The flags of the elements that end the search.
    fn flags(self) -> u8 {
        match self {
            Scope::Default => BOUNDARY,
            Scope::ListItem => BOUNDARY | LIST_BOUNDARY,
            Scope::Button => BOUNDARY | BUTTON_BOUNDARY,
            Scope::Table => TABLE_BOUNDARY,
        }
    }
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "image"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// HTML start tags that end foreign content.
fn breaks_out(name: &str) -> bool {
    is_heading(name)
        || matches!(
            name,
            "b" | "big"
                | "blockquote"
                | "body"
                | "br"
                | "center"
                | "code"
                | "dd"
                | "div"
                | "dl"
                | "dt"
                | "em"
                | "embed"
                | "font"
                | "head"
                | "hr"
                | "i"
                | "img"
                | "li"
                | "listing"
                | "menu"
                | "meta"
                | "nobr"
                | "ol"
                | "p"
                | "pre"
                | "ruby"
                | "s"
                | "small"
                | "span"
                | "strong"
                | "strike"
                | "sub"
                | "sup"
                | "table"
                | "tt"
                | "u"
                | "ul"
                | "var"
        )
}

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn is_formatting(name: &str) -> bool {
    matches!(
        name,
        "a" | "b"
            | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "nobr"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

/// Start tags that close an open `<p>` first.
fn closes_p(name: &str) -> bool {
    is_heading(name)
        || matches!(
            name,
            "address"
                | "article"
                | "aside"
                | "blockquote"
                | "center"
                | "dd"
                | "details"
                | "dialog"
                | "dir"
                | "div"
                | "dl"
                | "dt"
                | "fieldset"
                | "figcaption"
                | "figure"
                | "footer"
                | "form"
                | "header"
                | "hgroup"
                | "hr"
                | "li"
                | "listing"
                | "main"
                | "menu"
                | "nav"
                | "ol"
                | "p"
                | "pre"
                | "search"
                | "section"
                | "summary"
                | "table"
                | "ul"
        )
}

/// The standard's "special" elements, which bound where an end tag can reach.
fn is_special(name: &str) -> bool {
    is_heading(name)
        || is_void(name)
        || matches!(
            name,
            "address"
                | "applet"
                | "article"
                | "aside"
                | "blockquote"
                | "body"
                | "button"
                | "caption"
                | "center"
                | "colgroup"
                | "dd"
                | "details"
                | "dir"
                | "div"
                | "dl"
                | "dt"
                | "fieldset"
                | "figcaption"
                | "figure"
                | "footer"
                | "form"
                | "frame"
                | "frameset"
                | "head"
                | "header"
                | "hgroup"
                | "html"
                | "iframe"
                | "li"
                | "listing"
                | "main"
                | "marquee"
                | "menu"
                | "nav"
                | "noembed"
                | "noframes"
                | "noscript"
                | "object"
                | "ol"
                | "p"
                | "plaintext"
                | "pre"
                | "script"
                | "search"
                | "section"
                | "select"
                | "style"
                | "summary"
                | "table"
                | "tbody"
                | "td"
                | "template"
                | "textarea"
                | "tfoot"
                | "th"
                | "thead"
                | "title"
                | "tr"
                | "ul"
                | "wbr"
                | "xmp"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_markup_passes_unchanged() {
        for html in [
            "<p>a <strong>b</strong> <a href=\"https://x.example/?a=1&amp;b=2\">c</a></p>\n",
            "<ul>\n<li>one</li>\n<li><p>two</p>\n<ul><li>three</li></ul></li>\n</ul>\n",
            "<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>",
            "<blockquote>\n<p>q &lt;x&gt; &amp;</p>\n</blockquote>\n<br><hr>",
        ] {
            assert_eq!(balance(html), html);
        }
    }

    #[test]
    fn depth_is_bounded_and_text_kept() {
        let html = balance(&format!("{}deep", "<div>".repeat(1000)));
        assert_eq!(html.matches("<div>").count(), MAX_DEPTH);
        assert!(html.contains("deep"));
    }

    #[test]
    fn misnested_formatting_stays_as_the_parser_reads_it() {
        assert_eq!(balance("<b>x<i>y</b>z</i>"), "<b>x<i>y</b>z</i>");
    }

    #[test]
    fn implicitly_closed_elements_are_closed_explicitly() {
        assert_eq!(
            balance("<ul><li>a<li><b>b<li>c</ul>"),
            "<ul><li>a</li><li><b>b</b></li><li>c</li></ul>"
        );
        assert_eq!(
            balance("<div><b id=1></div>x"),
            "<div><b id=\"1\"></b></div>x"
        );
        assert_eq!(balance("<p>a<div>b</div></p>"), "<p>a</p><div>b</div></p>");
    }

    #[test]
    fn parser_modes_never_switch() {
        assert_eq!(
            balance(
                "<script>alert(1)</script><style>p{}</style><xmp><b>x</b></xmp><svg><g>y</g></svg>"
            ),
            "&lt;b&gt;x&lt;/b&gt;"
        );
    }
}
