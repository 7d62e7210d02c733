//! Payloads as a status page serves them: bytes to text (UTF-8, or UTF-16 as AWS serves its
//! events), JSON read with its error's place, files read with a bound, and the addresses
//! of a page's answers.

use std::io::Read as _;
use std::path::Path;

use serde::de::DeserializeOwned;
use url::Url;

use super::{Error, Misuse};
use crate::content::source::{TextError, decode_text};
use crate::diagnostics::Diagnostic;

/// The most a payload may hold: a whole history in one answer (Google Cloud's), far below
/// what would hurt.
pub const MAX_PAYLOAD_BYTES: usize = 64 * 1024 * 1024;

/// A payload's bytes as text: UTF-8, or UTF-16 with or without its byte order mark (AWS
/// serves its events so).
pub fn payload_text(bytes: Vec<u8>) -> Result<String, TextError> {
    let utf16 = |bytes: &[u8], little: bool| -> Option<String> {
        if !bytes.len().is_multiple_of(2) {
            return None;
        }
        let units = bytes.chunks_exact(2).map(|pair| match little {
            true => u16::from_le_bytes([pair[0], pair[1]]),
            false => u16::from_be_bytes([pair[0], pair[1]]),
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .ok()
    };
    let decoded = match bytes.as_slice() {
        [0xff, 0xfe, rest @ ..] => utf16(rest, true),
        [0xfe, 0xff, rest @ ..] => utf16(rest, false),
        // JSON or XML begins with an ASCII character: UTF-16 puts a zero beside it.
        [first, 0, ..] if first.is_ascii() && *first != 0 => utf16(&bytes, true),
        [0, second, ..] if second.is_ascii() && *second != 0 => utf16(&bytes, false),
        _ => None,
    };
    match decoded {
        Some(text) => decode_text(text.into_bytes()),
        None => decode_text(bytes),
    }
}

/// Reads a JSON payload whole; an error names the line and column, and what was expected.
pub(crate) fn read_json<T: DeserializeOwned>(
    origin: &Path,
    text: &str,
    platform: &str,
    expected: &str,
) -> Result<T, Diagnostic> {
    serde_json::from_str(text).map_err(|e| {
        let message = match e.classify() {
            serde_json::error::Category::Data => format!("unexpected {platform} data: {e}"),
            _ => format!("invalid JSON: {e}"),
        };
        Diagnostic::at(origin, text, e.line(), e.column(), 1, message)
            .with_hint(format!("expected {expected}"))
    })
}

/// A payload file's bytes, at most [`MAX_PAYLOAD_BYTES`].
pub(super) fn read_file(file: &Path) -> Result<Vec<u8>, Error> {
    let cannot = |source| {
        Error::Usage(Misuse::Read {
            file: file.to_path_buf(),
            source,
        })
    };
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_PAYLOAD_BYTES as u64 + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(Error::Usage(Misuse::TooBig(file.to_path_buf())));
    }
    Ok(bytes)
}

/// `path` (like `api/v2/incidents.json`) under a status page, taken as a folder.
pub fn under(page: &Url, path: &str) -> Url {
    let mut base = page.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    base.set_query(None);
    base.set_fragment(None);
    base.join(path).unwrap_or(base)
}

/// A JSON id as text, whether the platform writes it as a number or a string.
pub(crate) fn id_text(id: &serde_json::Value) -> Option<String> {
    match id {
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_read_as_utf8_or_utf16_with_or_without_a_mark() {
        let text = "[{\"a\": \"é\"}]";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let marked = [[0xff, 0xfe].as_slice(), &le].concat();
        for bytes in [text.as_bytes().to_vec(), le, be, marked] {
            assert_eq!(payload_text(bytes).unwrap(), text);
        }
        assert!(
            payload_text(vec![0xff, 0xfe, 0x00, 0xd8]).is_err(),
            "a lone surrogate"
        );
    }
}
