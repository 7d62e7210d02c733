//! YAML through serde-saphyr, with errors turned into our diagnostics.
//!
//! serde-saphyr is the maintained, pure-Rust successor of the deprecated serde_yaml: it
//! reports line and column, and its budgets bound what one text can cost. Every decoded
//! value is [scrubbed](Scrub) here, the one place YAML escapes are turned into characters.

use std::path::Path;

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess};
use serde_saphyr::Spanned;

use crate::content::fields::{FileCtx, Pos};
use crate::content::source::Scrub;
use crate::diagnostics::Diagnostic;

/// How deep mappings and lists may nest: front matter needs three or four levels.
pub const MAX_DEPTH: usize = 32;

/// The limits of one YAML text, so its cost is linear in its size whatever it holds: aliases
/// (`*name`) may repeat values, but the decoded text and the number of values stay within
/// what the text itself spells out (plus a little, so small files may still use them).
fn options(text: &str) -> serde_saphyr::Options {
    let limit = text.len().saturating_add(4096);
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_total_scalar_bytes: limit,
            max_nodes: limit,
            max_events: limit.saturating_mul(2),
            max_depth: MAX_DEPTH,
            flow_nesting_limit: MAX_DEPTH,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: limit,
            max_replay_stack_depth: MAX_DEPTH,
        },
    }
}

/// What a budget breach means for the person who wrote the file.
fn over_budget(error: &serde_saphyr::Error) -> Option<String> {
    use serde_saphyr::budget::BudgetBreach;
    use serde_saphyr::granit_parser::ErrorKind;
    use serde_saphyr::{Error, ExternalMessageSource};
    let aliases = "aliases (`*name`) here repeat more than the front matter holds; write the values out instead";
    let too_deep =
        || format!("values are nested too deep: at most {MAX_DEPTH} levels of mappings and lists");
    Some(match error {
        Error::AliasError { error, .. } => return over_budget(error),
        Error::Budget {
            breach: BudgetBreach::Depth { .. },
            ..
        } => too_deep(),
        Error::ExternalMessage { source, .. }
            if matches!(source.as_ref(), ExternalMessageSource::Parser(e)
                if matches!(e.kind(), ErrorKind::RecursionLimitExceeded)) =>
        {
            too_deep()
        }
        Error::Budget { .. } => aliases.to_string(),
        Error::AliasReplayLimitExceeded { .. }
        | Error::AliasExpansionLimitExceeded { .. }
        | Error::AliasReplayStackDepthExceeded { .. }
        | Error::AliasReplayCounterOverflow { .. } => aliases.to_string(),
        _ => return None,
    })
}

/// A list of texts, or one text standing for a list of one: `components: API` is `[API]`,
/// as a writer means it.
pub fn one_or_many<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    struct Texts;
    impl<'de> serde::de::Visitor<'de> for Texts {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence of texts")
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Vec<String>, E> {
            Ok(vec![text.to_string()])
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Vec<String>, A::Error> {
            let mut texts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(text) = seq.next_element()? {
                texts.push(text);
            }
            Ok(texts)
        }
    }
    deserializer.deserialize_any(Texts)
}

/// A YAML problem at a line (already shifted to the file's numbering) and column.
#[derive(Debug)]
pub struct YamlError {
    line: usize,
    col: usize,
    message: String,
}

/// Parses `text`, a YAML document that starts at line `line_offset + 1` of its file.
/// Every string of the value comes back [scrubbed](Scrub).
pub fn from_str<T: DeserializeOwned + Scrub>(
    text: &str,
    line_offset: usize,
) -> Result<T, YamlError> {
    let mut value: T =
        serde_saphyr::from_str_with_options(text, options(text)).map_err(|error| {
            let (line, col) = error
                .location()
                .map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
            let error = error.without_snippet();
            let message = over_budget(error).unwrap_or_else(|| {
                let message = error.to_string();
                // The message repeats the position, which we print our own way.
                let message = match message.rfind(" at line ") {
                    Some(i) => &message[..i],
                    None => &message,
                };
                plain_words(message)
            });
            YamlError {
                line: line.max(1) + line_offset,
                col: col.max(1),
                message,
            }
        })?;
    value.scrub();
    Ok(value)
}

/// The parser's and serde's messages in the words of someone writing the file: they name
/// Rust types and parser options the writer never sees.
fn plain_words(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("duplicate mapping key: ") {
        let key = rest.split(',').next().unwrap_or(rest).trim();
        return format!("`{key}` is given twice; keep one");
    }
    if message.starts_with("unknown field") {
        return message.to_string(); // turned into its own diagnostic, with a suggestion
    }
    let (found, expected) = match message.strip_prefix("invalid type: ") {
        Some(rest) => match rest.split_once(", expected ") {
            Some((found, expected)) => (Some(found), Some(expected)),
            None => (Some(rest), None),
        },
        None => (None, message.strip_prefix("expected ")),
    };
    let wanted = expected.and_then(|what| {
        Some(if what.contains("sequence") {
            "a list here, like `[API, Dashboard]`"
        } else if what.contains("u64") || what.contains("u32") || what.contains("usize") {
            "a whole number here, like 50"
        } else if what.contains("bool") {
            "`true` or `false` here"
        } else if what.contains("map") || what.contains("struct") {
            "a mapping here, like `{kind: statuspage, id: abc}`"
        } else if what.contains("string") || what.contains("str") {
            "text here"
        } else {
            return None;
        })
    });
    let found = found.map(|found| {
        if found.starts_with("sequence") {
            ", found a list (quote text that starts with `[`)"
        } else if found.starts_with("map") {
            ", found a mapping (quote text that starts with `{` or holds `: `)"
        } else if found.starts_with("string") {
            ", found text"
        } else if found.starts_with("integer") || found.starts_with("floating") {
            ", found a number"
        } else if found.starts_with("boolean") {
            ", found true or false"
        } else if found.starts_with("unit") || found.starts_with("null") {
            ", found nothing"
        } else {
            ""
        }
    });
    if let Some(what) = wanted {
        // The parser says only what it wanted: a list or mapping where text was due is
        // almost always text that starts like one.
        let quote = if found.is_none() && what == "text here" {
            " (put text that starts with `[` or `{` in quotes)"
        } else {
            ""
        };
        return format!("expected {what}{}{quote}", found.unwrap_or(""));
    }
    if message.starts_with("invalid u") || message.starts_with("invalid value: integer") {
        return "expected a whole number here, like 50".into();
    }
    format!("invalid YAML: {message}")
}

impl YamlError {
    /// Turns the error into a diagnostic of `path`, whose whole text is `text`; `fields` are
    /// the keys the document may hold, to suggest the one a typo meant.
    pub fn into_diagnostic(self, ctx: &FileCtx, fields: &[&str]) -> Diagnostic {
        let pos = Pos::new(self.line, self.col, 1);
        match unknown_field(&self.message) {
            Some(key) => unknown_key(ctx, pos, key, fields),
            None => ctx.error(pos, self.message),
        }
    }
}

/// A mapping read by [`from_str_checked`].
pub struct Checked<T> {
    /// `None` when the YAML itself is broken.
    pub value: Option<T>,
    pub errors: Vec<Diagnostic>,
    /// The fields that unknown keys probably meant (`impcat` → `impact`): such a field is
    /// not reported missing as well, one typo being one error.
    pub meant: Vec<&'static str>,
}

/// Parses a mapping whose top-level keys must be among `fields`, reporting every unknown
/// key, with its position and the key it probably meant. The value comes back even when
/// there are unknown keys, so the caller can check the known ones and report all at once.
pub fn from_str_checked<T: DeserializeOwned + Scrub>(
    yaml: &str,
    line_offset: usize,
    fields: &'static [&'static str],
    path: &Path,
    text: &str,
) -> Checked<T> {
    let ctx = FileCtx::new(path, text);
    let unknown = unknown_keys(yaml, line_offset, fields);
    let meant = unknown
        .iter()
        .filter_map(|(key, _)| suggestion(key, fields))
        .collect();
    let mut errors: Vec<Diagnostic> = unknown
        .iter()
        .take(MAX_UNKNOWN_KEYS)
        .map(|(key, pos)| unknown_key(&ctx, *pos, key, fields))
        .collect();
    if let Some((_, pos)) = unknown.get(MAX_UNKNOWN_KEYS) {
        errors.push(
            ctx.error(
                *pos,
                format!("{} more unknown fields", unknown.len() - MAX_UNKNOWN_KEYS),
            )
            .with_hint("is this file front matter at all?"),
        );
    }
    let value = match from_str::<T>(yaml, line_offset) {
        Ok(value) => Some(value),
        Err(error) => {
            errors.push(error.into_diagnostic(&ctx, fields));
            None
        }
    };
    Checked {
        value,
        errors,
        meant,
    }
}

/// The field `key` probably meant.
fn suggestion<'a>(key: &str, fields: &[&'a str]) -> Option<&'a str> {
    (key.len() <= MAX_SUGGESTED_KEY)
        .then(|| closest(key, fields))
        .flatten()
}

/// Unknown keys past this many are counted, not listed: each would copy its line.
const MAX_UNKNOWN_KEYS: usize = 20;

/// Keys longer than this get no suggestion: no field name is near them.
const MAX_SUGGESTED_KEY: usize = 64;

fn unknown_key(ctx: &FileCtx, pos: Pos, key: &str, fields: &[&str]) -> Diagnostic {
    let mut allowed = format!("allowed: {}", fields.join(", "));
    if fields.contains(&"extra") {
        allowed.push_str("; custom data goes under `extra`");
    }
    let hint = match suggestion(key, fields) {
        Some(best) => format!("did you mean `{best}`? {allowed}"),
        None => allowed,
    };
    let shown: String = key.chars().take(MAX_SUGGESTED_KEY).collect();
    let ellipsis = if shown.len() < key.len() { "…" } else { "" };
    ctx.error(
        Pos {
            width: key.chars().count(),
            ..pos
        },
        format!("unknown field `{shown}{ellipsis}`"),
    )
    .with_hint(hint)
}

/// The top-level keys of `yaml` that are not in `fields`, with their file positions.
/// A quick look at the lines comes first: the keys are parsed only when it sees one it
/// does not know (or a layout it cannot judge), so well-formed files pay one parse.
fn unknown_keys(yaml: &str, line_offset: usize, fields: &[&str]) -> Vec<(String, Pos)> {
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
    let Ok(Keys(keys)) = from_str::<Keys>(yaml, line_offset) else {
        return Vec::new(); // the full parse reports the syntax error
    };
    keys.into_iter()
        .filter(|key| !fields.contains(&key.value.as_str()))
        .map(|key| {
            let pos = Pos::new(
                key.referenced.line() as usize + line_offset,
                key.referenced.column().max(1) as usize,
                1,
            );
            (key.value, pos)
        })
        .collect()
}

/// The keys of a mapping, values skipped.
struct Keys(Vec<Spanned<String>>);

impl Scrub for Keys {
    fn scrub(&mut self) {
        self.0.scrub();
    }
}

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

    /// A document of one list of texts and a free-form value, as front matter holds.
    #[derive(serde::Deserialize, Debug, Default)]
    struct Doc {
        #[serde(default)]
        title: String,
        #[serde(default)]
        #[allow(dead_code)] // read only to fail on a wrong type
        count: u32,
        #[serde(default)]
        list: Vec<String>,
        extra: Option<serde_json::Value>,
    }

    impl Scrub for Doc {
        fn scrub(&mut self) {
            self.title.scrub();
            self.list.scrub();
            self.extra.scrub();
        }
    }

    #[test]
    fn library_words_become_the_writers() {
        let cases = [
            ("title: a\ntitle: b\n", "`title` is given twice; keep one"),
            (
                "title: [oops\n",
                "expected text here (put text that starts with `[`",
            ),
            ("count: -1\n", "expected a whole number here, like 50"),
            ("count: x\n", "expected a whole number here, like 50"),
            ("list: {a: 1}\n", "expected a list here"),
        ];
        for (yaml, want) in cases {
            let error = from_str::<Doc>(yaml, 0).unwrap_err();
            assert!(
                error.message.starts_with(want),
                "{yaml:?}: {}",
                error.message
            );
            for jargon in ["Options", "u64", "u32", "sequence", "DuplicateKeyPolicy"] {
                assert!(
                    !error.message.contains(jargon),
                    "{yaml:?}: {}",
                    error.message
                );
            }
        }
    }

    #[test]
    fn every_unknown_key_is_reported_with_other_problems() {
        let yaml = "impcat: 1\ncount: x\n\"quoted\": 2\n";
        let text = format!("---\n{yaml}---\n");
        let Checked {
            value: doc,
            errors,
            meant,
        } = from_str_checked::<Doc>(yaml, 1, &["count", "impact"], Path::new("a.md"), &text);
        assert!(doc.is_none());
        assert_eq!(meant, ["impact"]);
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
        struct Strict {
            #[allow(dead_code)]
            title: String,
        }
        impl Scrub for Strict {
            fn scrub(&mut self) {}
        }
        let text = "---\ntitle: x\nimpcat: major\n---\n";
        let error = from_str::<Strict>("title: x\nimpcat: major\n", 1).unwrap_err();
        let ctx = FileCtx::new(Path::new("a.md"), text);
        let diagnostic = error.into_diagnostic(&ctx, &["title", "impact"]);
        assert_eq!((diagnostic.line, diagnostic.col), (3, 1));
        assert_eq!(diagnostic.message, "unknown field `impcat`");
        assert_eq!(diagnostic.source_line.as_deref(), Some("impcat: major"));
        assert!(diagnostic.hint.unwrap().contains("did you mean `impact`"));
    }

    #[test]
    fn escaped_forbidden_characters_are_dropped_from_every_string() {
        let yaml = r#"title: "a\u0000b\u001bc\ufffed\U0010FFFF"
list: ["\x85x\x7f", ok]
extra: {"k\x01": ["\x02v", {"deep": "\x1b[31mred"}]}
"#;
        let doc = from_str::<Doc>(yaml, 0).unwrap();
        assert_eq!(doc.title, "abcd");
        assert_eq!(doc.list, ["x", "ok"]);
        assert_eq!(
            doc.extra.unwrap(),
            serde_json::json!({"k": ["v", {"deep": "[31mred"}]})
        );
    }

    #[test]
    fn aliases_cannot_repeat_more_text_than_the_file_holds() {
        let big = "x".repeat(100_000);
        let aliases = vec!["*a"; 50].join(", ");
        let yaml = format!("title: &a {big}\nlist: [{aliases}]\n");
        let error = from_str::<Doc>(&yaml, 1).unwrap_err();
        assert!(
            error.message.contains("aliases (`*name`)"),
            "{}",
            error.message
        );
        assert!(error.line >= 2, "{error:?}");
        // A few aliases of short values are fine.
        let doc = from_str::<Doc>("title: &t Down\nlist: [*t, *t]\n", 0).unwrap();
        assert_eq!(doc.list, ["Down", "Down"]);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = format!("extra: {}1{}\n", "[".repeat(40), "]".repeat(40));
        let error = from_str::<Doc>(&deep, 0).unwrap_err();
        assert!(
            error.message.contains("nested too deep"),
            "{}",
            error.message
        );
        let block: String = (0..40).map(|i| format!("{}- \n", "  ".repeat(i))).collect();
        let error = from_str::<Doc>(&format!("extra:\n{block}"), 0).unwrap_err();
        assert!(
            error.message.contains("nested too deep"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_flood_of_unknown_keys_is_counted_not_listed() {
        let keys: Vec<String> = (0..5000).map(|i| format!("k{i}: 1")).collect();
        let yaml = format!("{{{}}}\n", keys.join(", "));
        let text = format!("---\n{yaml}---\n");
        let errors = from_str_checked::<Doc>(&yaml, 1, &["title"], Path::new("a.md"), &text).errors;
        assert_eq!(
            errors.len(),
            MAX_UNKNOWN_KEYS + 1,
            "the first listed, the rest counted"
        );
        assert!(errors[MAX_UNKNOWN_KEYS].message.contains("4980 more"));
    }
}
