//! YAML through serde-saphyr, with errors turned into our diagnostics.
//!
//! serde-saphyr is the maintained, pure-Rust successor of the deprecated serde_yaml: it
//! reports line and column, and its default budgets stop alias bombs.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::diagnostics::Diagnostic;

/// A YAML problem at a line (already shifted to the file's numbering) and column.
#[derive(Debug)]
pub struct YamlError {
    line: usize,
    col: usize,
    message: String,
}

/// Parses `text`, a YAML document that starts at line `line_offset + 1` of its file.
pub fn from_str<T: DeserializeOwned>(text: &str, line_offset: usize) -> Result<T, YamlError> {
    serde_saphyr::from_str(text).map_err(|error| {
        let (line, col) = error
            .location()
            .map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
        let message = error.without_snippet().to_string();
        // The message repeats the position, which we print our own way.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        YamlError {
            line: line.max(1) + line_offset,
            col: col.max(1),
            message,
        }
    })
}

impl YamlError {
    /// Turns the error into a diagnostic of `path`, whose whole text is `text`; `fields` are
    /// the keys the document may hold, to suggest the one a typo meant.
    pub fn into_diagnostic(self, path: &Path, text: &str, fields: &[&str]) -> Diagnostic {
        if let Some(key) = unknown_field(&self.message) {
            let diagnostic = Diagnostic::at(
                path,
                text,
                self.line,
                self.col,
                key.chars().count(),
                format!("unknown field `{key}`"),
            );
            let allowed = fields.join(", ");
            let hint = match closest(key, fields) {
                Some(best) => format!(
                    "did you mean `{best}`? Allowed: {allowed}; custom data goes under `extra`"
                ),
                None => format!("allowed fields: {allowed}; custom data goes under `extra`"),
            };
            return diagnostic.with_hint(hint);
        }
        Diagnostic::at(
            path,
            text,
            self.line,
            self.col,
            1,
            format!("invalid YAML: {}", self.message),
        )
    }
}

fn unknown_field(message: &str) -> Option<&str> {
    message.strip_prefix("unknown field `")?.split('`').next()
}

/// The allowed word nearest to a typo, if it is near enough to be what was meant.
pub fn closest<'a>(typo: &str, words: &[&'a str]) -> Option<&'a str> {
    words
        .iter()
        .map(|word| (strsim::jaro_winkler(typo, word), *word))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, word)| word)
}

/// Where a top-level `key:` sits in a YAML text, for errors about its value.
pub fn find_key(text: &str, key: &str) -> (usize, usize) {
    text.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or((1, 1), |i| (i + 1, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_a_suggestion() {
        assert_eq!(
            closest("impcat", &["title", "impact", "started"]),
            Some("impact")
        );
        assert_eq!(closest("zzz", &["title", "impact"]), None);
    }

    #[test]
    fn errors_are_shifted_to_the_file_lines() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        struct Doc {
            #[allow(dead_code)]
            title: String,
        }
        let text = "---\ntitle: x\nimpcat: major\n---\n";
        let error = from_str::<Doc>("title: x\nimpcat: major\n", 1).unwrap_err();
        let diagnostic = error.into_diagnostic(Path::new("a.md"), text, &["title", "impact"]);
        assert_eq!((diagnostic.line, diagnostic.col), (3, 1));
        assert_eq!(diagnostic.message, "unknown field `impcat`");
        assert!(diagnostic.hint.unwrap().contains("did you mean `impact`"));
    }
}
