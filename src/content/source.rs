//! Reading a content file's bytes into text that every later stage can trust: valid UTF-8,
//! no byte-order mark, `\n` line ends.

use std::path::Path;

use crate::diagnostics::Diagnostic;

/// Files larger than this are refused: no incident write-up is this long, and the cap keeps
/// memory bounded whatever lands in `content/`.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// Why a file's bytes are not usable text; `line` and `col` are 0 when the whole file is.
#[derive(Debug, PartialEq, Eq)]
pub struct TextError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl TextError {
    pub fn into_diagnostic(self, path: &Path) -> Diagnostic {
        let mut diagnostic = Diagnostic::file(path, self.message);
        (diagnostic.line, diagnostic.col) = (self.line, self.col);
        diagnostic
    }
}

/// Checks and normalises a file's bytes.
pub fn clean_text(bytes: Vec<u8>) -> Result<String, TextError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(TextError {
            line: 0,
            col: 0,
            message: format!(
                "file is {} bytes, over the limit of {MAX_FILE_BYTES}",
                bytes.len()
            ),
        });
    }
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
    Ok(if text.contains(is_forbidden_control) {
        text.replace(is_forbidden_control, "")
    } else {
        text
    })
}

/// C0 controls other than tab and newline, and DEL.
fn is_forbidden_control(c: char) -> bool {
    (c.is_ascii_control() && c != '\t' && c != '\n') || c == '\u{7f}'
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

    #[test]
    fn non_utf8_is_refused_at_its_position() {
        let error = clean_text(b"a\nb\xff".to_vec()).unwrap_err();
        assert_eq!((error.line, error.col), (2, 2));
    }
}
