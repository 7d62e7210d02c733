//! What an import last wrote into a file, kept in the file itself (`source: {imported: …}`)
//! so that the next import, on any clone, can tell a hand edit: a field was edited by hand
//! iff its value no longer matches the fingerprint recorded for it. One short fingerprint
//! per field and per update the provider published, in one line:
//! `title=1a2b3c4d started=… impact=… updates=5e6f7a8b,9c0d1e2f`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::model::Update;

/// The first 32 bits of a blake3 hash, in hex: enough to tell an edit, short enough to
/// keep one per update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fingerprint([u8; 4]);

impl Fingerprint {
    pub fn of(text: &str) -> Fingerprint {
        let hash = blake3::hash(text.as_bytes());
        let mut short = [0; 4];
        short.copy_from_slice(&hash.as_bytes()[..4]);
        Fingerprint(short)
    }

    /// An update as the provider published it (its time, status and cleaned body).
    pub fn of_update(update: &Update) -> Fingerprint {
        Fingerprint::of(&format!(
            "{}\n{}\n{}",
            super::time(update.at),
            update.status.as_str(),
            update.body
        ))
    }

    fn parse(text: &str) -> Option<Fingerprint> {
        if text.len() != 8 {
            return None;
        }
        let mut short = [0; 4];
        for (i, byte) in short.iter_mut().enumerate() {
            *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Fingerprint(short))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// The fields an import writes, in the order it writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    Title,
    Started,
    Resolved,
    Impact,
    Components,
    Regions,
    Id,
    OfficialUrl,
    Extra,
}

impl Field {
    pub const ALL: [Field; 9] = [
        Field::Title,
        Field::Started,
        Field::Resolved,
        Field::Impact,
        Field::Components,
        Field::Regions,
        Field::Id,
        Field::OfficialUrl,
        Field::Extra,
    ];

    /// Its front-matter key.
    pub fn key(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Started => "started",
            Field::Resolved => "resolved",
            Field::Impact => "impact",
            Field::Components => "components",
            Field::Regions => "regions",
            Field::Id => "id",
            Field::OfficialUrl => "official_url",
            Field::Extra => "extra",
        }
    }
}

/// The fingerprints of what an import wrote. A field missing from it was not written by an
/// import that kept a record (a file from an older version, or one written by hand).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub fields: BTreeMap<Field, Fingerprint>,
    pub updates: BTreeSet<Fingerprint>,
    /// Fields whose value a feed guessed (an impact it does not give, a start to the
    /// minute): a source that knows them replaces them whenever it comes.
    pub guessed: BTreeSet<Field>,
}

/// What a field holds in a file: the YAML text after its key, or `None` when it is left out.
pub fn value_fingerprint(value: Option<&str>) -> Fingerprint {
    Fingerprint::of(value.unwrap_or("~"))
}

impl Record {
    /// Reads the `imported` text back; what it cannot read counts as not recorded.
    pub fn parse(text: &str) -> Record {
        let mut record = Record::default();
        for pair in text.split_whitespace() {
            let Some((key, value)) = pair.split_once('=') else {
                continue;
            };
            if key == "updates" {
                record
                    .updates
                    .extend(value.split(',').filter_map(Fingerprint::parse));
            } else if key == "guessed" {
                record.guessed.extend(
                    value
                        .split(',')
                        .filter_map(|name| Field::ALL.into_iter().find(|f| f.key() == name)),
                );
            } else if let (Some(field), Some(fp)) = (
                Field::ALL.into_iter().find(|f| f.key() == key),
                Fingerprint::parse(value),
            ) {
                record.fields.insert(field, fp);
            }
        }
        record
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (field, fp) in &self.fields {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{}={fp}", field.key())?;
        }
        let lists = [
            (
                "updates",
                self.updates
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>(),
            ),
            (
                "guessed",
                self.guessed.iter().map(|f| f.key().to_string()).collect(),
            ),
        ];
        for (key, list) in lists {
            if !list.is_empty() {
                if !first {
                    f.write_str(" ")?;
                }
                first = false;
                write!(f, "{key}={}", list.join(","))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_to_itself() {
        let mut record = Record::default();
        record
            .fields
            .insert(Field::Impact, value_fingerprint(Some("none")));
        record
            .fields
            .insert(Field::Resolved, value_fingerprint(None));
        record.updates.insert(Fingerprint::of("a"));
        record.updates.insert(Fingerprint::of("b"));
        record.guessed.insert(Field::Impact);
        let text = record.to_string();
        assert!(
            text.starts_with("resolved=") && text.contains(" updates="),
            "{text}"
        );
        assert_eq!(Record::parse(&text), record);
        assert_eq!(Record::parse("impact=zz title"), Record::default());
    }
}
