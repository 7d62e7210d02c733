//! YAML through serde-saphyr, with errors turned into our diagnostics.
//!
//! serde-saphyr is the maintained, pure-Rust successor of the deprecated serde_yaml: it
//! reports line and column, and its default budgets stop alias bombs.

use std::path::Path;

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess};
use serde_saphyr::Spanned;

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
        match unknown_field(&self.message) {
            Some(key) => unknown_key(path, text, (self.line, self.col), key, fields),
            None => Diagnostic::at(
                path,
                text,
                self.line,
                self.col,
                1,
                format!("invalid YAML: {}", self.message),
            ),
        }
    }
}

/// Parses a mapping whose top-level keys must be among `fields`, reporting every unknown
/// key, with its position and the key it probably meant. The value comes back even when
/// there are unknown keys, so the caller can check the known ones and report all at once.
pub fn from_str_checked<T: DeserializeOwned>(
    yaml: &str,
    line_offset: usize,
    fields: &[&str],
    path: &Path,
    text: &str,
) -> (Option<T>, Vec<Diagnostic>) {
    let mut errors: Vec<Diagnostic> = unknown_keys(yaml, line_offset, fields)
        .into_iter()
        .map(|(key, at)| unknown_key(path, text, at, &key, fields))
        .collect();
    match from_str::<T>(yaml, line_offset) {
        Ok(value) => (Some(value), errors),
        Err(error) => {
            errors.push(error.into_diagnostic(path, text, fields));
            (None, errors)
        }
    }
}

fn unknown_key(
    path: &Path,
    text: &str,
    (line, col): (usize, usize),
    key: &str,
    fields: &[&str],
) -> Diagnostic {
    let mut allowed = format!("allowed: {}", fields.join(", "));
    if fields.contains(&"extra") {
        allowed.push_str("; custom data goes under `extra`");
    }
    let hint = match closest(key, fields) {
        Some(best) => format!("did you mean `{best}`? {allowed}"),
        None => allowed,
    };
    Diagnostic::at(
        path,
        text,
        line,
        col,
        key.chars().count(),
        format!("unknown field `{key}`"),
    )
    .with_hint(hint)
}

/// The top-level keys of `yaml` that are not in `fields`, with their file positions.
/// A quick look at the lines comes first: the keys are parsed only when it sees one it
/// does not know (or a layout it cannot judge), so well-formed files pay one parse.
fn unknown_keys(yaml: &str, line_offset: usize, fields: &[&str]) -> Vec<(String, (usize, usize))> {
    let looks_clean = yaml.lines().all(|line| {
        let first = line.chars().next();
        match first {
            None | Some(' ' | '\t' | '#' | '-') => true,
            Some(_) => line
                .split_once(':')
                .is_some_and(|(key, _)| fields.contains(&key)),
        }
    });
    if looks_clean {
        return Vec::new();
    }
    let Ok(Keys(keys)) = serde_saphyr::from_str::<Keys>(yaml) else {
        return Vec::new(); // the full parse reports the syntax error
    };
    keys.into_iter()
        .filter(|key| !fields.contains(&key.value.as_str()))
        .map(|key| {
            let at = (
                key.referenced.line() as usize + line_offset,
                key.referenced.column().max(1) as usize,
            );
            (key.value, at)
        })
        .collect()
}

/// The keys of a mapping, values skipped.
struct Keys(Vec<Spanned<String>>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Keys, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        deserializer.deserialize_map(Visitor)
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
    fn every_unknown_key_is_reported_with_other_problems() {
        #[derive(serde::Deserialize, Debug)]
        struct Doc {
            #[allow(dead_code)]
            count: u32,
        }
        let yaml = "impcat: 1\ncount: x\n\"quoted\": 2\n";
        let text = format!("---\n{yaml}---\n");
        let (doc, errors) =
            from_str_checked::<Doc>(yaml, 1, &["count", "impact"], Path::new("a.md"), &text);
        assert!(doc.is_none());
        let found: Vec<_> = errors
            .iter()
            .map(|e| (e.line, e.message.as_str()))
            .collect();
        assert_eq!(found[0], (2, "unknown field `impcat`"));
        assert_eq!(found[1], (4, "unknown field `quoted`"));
        assert_eq!(found[2].0, 3);
        assert_eq!(errors.len(), 3);
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
