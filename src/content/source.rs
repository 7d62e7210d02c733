//! Reading a content file's bytes into text that every later stage can trust: valid UTF-8,
//! no byte-order mark, `\n` line ends.

/// Files larger than this are refused: no incident write-up is this long, and the cap keeps
/// memory bounded whatever lands in `content/`.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// Checks and normalises a file's bytes; the error says what is wrong with the file.
pub fn clean_text(bytes: Vec<u8>) -> Result<String, String> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "file is {} bytes, over the limit of {MAX_FILE_BYTES}",
            bytes.len()
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!(
            "file is not valid UTF-8 (first bad byte on line {line}, byte {at}); save it as UTF-8"
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_string()
    })
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
    fn non_utf8_is_refused_with_its_line() {
        let error = clean_text(b"a\nb\xff".to_vec()).unwrap_err();
        assert!(error.contains("line 2"), "{error}");
    }
}
