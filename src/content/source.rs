//! Reading a content file's bytes into text that every later stage can trust: valid UTF-8,
//! no byte-order mark, `\n` line ends, none of the characters XML and HTML forbid. The one
//! definition of those characters is here, for decoded strings ([`Scrub`]) and feeds alike.

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use serde_saphyr::Spanned;

use crate::diagnostics::Diagnostic;

/// Files larger than this are refused: no incident write-up is this long, and the cap keeps
/// memory bounded whatever lands in `content/`.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// Why a file's bytes are not usable text; `line` and `col` are 0 when the whole file is.
#[derive(Debug, PartialEq, Eq)]
pub struct TextError {
    pub(crate) line: usize,
    pub(crate) col: usize,
    pub(crate) message: String,
}

impl TextError {
    fn whole_file(message: String) -> TextError {
        TextError {
            line: 0,
            col: 0,
            message,
        }
    }

    pub(crate) fn into_diagnostic(self, path: &Path) -> Diagnostic {
        let mut diagnostic = Diagnostic::file(path, self.message);
        (diagnostic.line, diagnostic.col) = (self.line, self.col);
        diagnostic
    }
}

/// Reads a content file into clean text. Only a regular file is read (a FIFO or a device
/// would block or never end), never through a symbolic link (the listing follows none), and
/// never more than [`MAX_FILE_BYTES`], even if the file grows while it is read.
pub fn read_text(path: &Path) -> Result<String, TextError> {
    let cannot = |e: std::io::Error| TextError::whole_file(format!("cannot read: {e}"));
    // Checked before opening, so a FIFO is never opened at all…
    regular_size(&std::fs::symlink_metadata(path).map_err(cannot)?)?;
    let file = open_no_wait(path).map_err(cannot)?;
    // …and again on what was opened, in case it was swapped in between.
    regular_size(&file.metadata().map_err(cannot)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    clean_text(bytes)
}

/// Refuses what is not a regular file, or is over the size limit.
fn regular_size(meta: &std::fs::Metadata) -> Result<(), TextError> {
    if !meta.is_file() {
        return Err(TextError::whole_file(
            "not a regular file (a link, FIFO, socket or device): content files must be plain files"
                .to_string(),
        ));
    }
    too_large(usize::try_from(meta.len()).unwrap_or(usize::MAX))
}

fn too_large(len: usize) -> Result<(), TextError> {
    if len > MAX_FILE_BYTES {
        return Err(TextError::whole_file(format!(
            "file is {len} bytes, over the limit of {MAX_FILE_BYTES} (4 MiB); split it or shorten it"
        )));
    }
    Ok(())
}

/// Opens for reading without waiting for a FIFO's writer and without following a link.
#[cfg(unix)]
fn open_no_wait(path: &Path) -> std::io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::NOCTTY).bits() as i32)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_wait(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// How many bytes of blank lines `text` starts with.
pub fn blank_lines_before(text: &str) -> usize {
    text.split_inclusive('\n')
        .take_while(|line| line.trim().is_empty())
        .map(str::len)
        .sum()
}

/// `text` without its blank lines at the start and its whitespace at the end. The first
/// line keeps its indentation, which markdown reads: four spaces start a code block, and a
/// `### ` indented so is code, not a heading.
pub fn trim_blank_lines(text: &str) -> &str {
    text[blank_lines_before(text)..].trim_end()
}

/// Checks and normalises a file's bytes.
pub fn clean_text(bytes: Vec<u8>) -> Result<String, TextError> {
    too_large(bytes.len())?;
    decode_text(bytes)
}

/// Checks and normalises bytes of any size (a payload, whose size the caller bounds): UTF-8,
/// without a BOM, `\n` line ends, no forbidden characters.
pub fn decode_text(bytes: Vec<u8>) -> Result<String, TextError> {
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..at];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        TextError {
            line: before.iter().filter(|&&b| b == b'\n').count() + 1,
            col: String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1,
            message: "file is not valid UTF-8 here; save it as UTF-8".to_string(),
        }
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let text = if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_string()
    };
    // Control characters pasted from status pages are invalid in HTML and XML alike.
    Ok(match without_forbidden(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(clean) => clean,
    })
}

/// The characters no text of a site may hold: those XML 1.0 forbids (C0 controls other than
/// tab, line feed and carriage return; U+FFFE, U+FFFF), the other controls HTML forbids
/// (DEL, C1), and every Unicode noncharacter (U+FDD0–U+FDEF, the last two of each plane).
/// Feed readers reject a feed that holds one; browsers treat them as errors.
pub fn is_forbidden_char(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{fdd0}'..='\u{fdef}')
        || (c as u32) & 0xfffe == 0xfffe
}

/// `text` without the [forbidden characters](is_forbidden_char); borrowed when it has none.
pub fn without_forbidden(text: &str) -> Cow<'_, str> {
    if has_forbidden(text) {
        Cow::Owned(text.replace(is_forbidden_char, ""))
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether `text` holds a [forbidden character](is_forbidden_char). Every text of a site
/// is checked (files, feeds, rendered markdown), and most of it is printable ASCII: runs
/// of that are checked 64 bytes at a time, without decoding characters, and only the
/// chunks between them character by character.
fn has_forbidden(text: &str) -> bool {
    let printable = |b: &u8| matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r');
    let mut rest = text;
    loop {
        let plain: usize = rest
            .as_bytes()
            .chunks(64)
            // A fold, not `all`: without an early exit the compiler checks 16 bytes at once.
            .take_while(|chunk| chunk.iter().fold(true, |all, b| all & printable(b)))
            .map(<[u8]>::len)
            .sum();
        // Every byte before `plain` is ASCII, so it starts a character; the next chunk is
        // looked at to the end of its last character.
        let mut end = plain.saturating_add(64).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        if rest[plain..end].contains(is_forbidden_char) {
            return true;
        }
        if end == rest.len() {
            return false;
        }
        rest = &rest[end..];
    }
}

/// Removes the [forbidden characters](is_forbidden_char) from every string a value holds.
/// Applied to every value decoded from YAML, whose escapes (`"\u001b"`) can write what the
/// file's bytes may not.
pub(crate) trait Scrub {
    fn scrub(&mut self);
}

impl Scrub for String {
    fn scrub(&mut self) {
        if let Cow::Owned(clean) = without_forbidden(self) {
            *self = clean;
        }
    }
}

impl<T: Scrub> Scrub for Option<T> {
    fn scrub(&mut self) {
        if let Some(value) = self {
            value.scrub();
        }
    }
}

impl<T: Scrub> Scrub for Vec<T> {
    fn scrub(&mut self) {
        self.iter_mut().for_each(Scrub::scrub);
    }
}

impl<T: Scrub> Scrub for Spanned<T> {
    fn scrub(&mut self) {
        self.value.scrub();
    }
}

impl Scrub for serde_json::Value {
    fn scrub(&mut self) {
        match self {
            serde_json::Value::String(text) => text.scrub(),
            serde_json::Value::Array(items) => items.scrub(),
            serde_json::Value::Object(map) if map.keys().any(|k| k.contains(is_forbidden_char)) => {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(mut key, mut value)| {
                        key.scrub();
                        value.scrub();
                        (key, value)
                    })
                    .collect();
            }
            serde_json::Value::Object(map) => map.values_mut().for_each(Scrub::scrub),
            serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_and_crlf_read_like_lf() {
        let text = clean_text(b"\xEF\xBB\xBF---\r\ntitle: x\r\n---\r\n".to_vec()).unwrap();
        assert_eq!(text, "---\ntitle: x\n---\n");
    }

    #[test]
    fn control_characters_are_dropped() {
        assert_eq!(
            clean_text(b"a\x01b\x0bc\td\n".to_vec()).unwrap(),
            "abc\td\n"
        );
    }

    proptest::proptest! {
        #[test]
        fn the_ascii_fast_path_finds_what_a_look_at_every_character_finds(
            text in "([ -~\t\n]{0,140}[\\x00-\\x{a0}\\x{fdd0}\\x{fffe}\\x{1fffe}é]?){0,8}",
        ) {
            proptest::prop_assert_eq!(has_forbidden(&text), text.contains(is_forbidden_char));
        }
    }

    #[test]
    fn non_utf8_is_refused_at_its_position() {
        let error = clean_text(b"a\nb\xff".to_vec()).unwrap_err();
        assert_eq!((error.line, error.col), (2, 2));
    }
}
