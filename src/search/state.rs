//! The state file, `pagefind/.outages-index`: what the last index made each shard (and
//! the words bundle) from, and each of their files' hash, so that a shard whose records
//! did not change is taken again, byte for byte, instead of indexed anew. Anything it
//! says that does not hold (a file gone, changed, outside its folder) means indexing again.

use std::collections::HashMap;

use rayon::prelude::*;

const STATE_HEADER: &str = "outages search index 3";

/// A state file's first line, before its entries.
pub(super) fn header() -> String {
    format!("{STATE_HEADER}\n")
}

/// A file of the index: its site path and bytes.
pub(super) type File = (String, Vec<u8>);

/// The state file of the last index: for each shard (and the words bundle), its
/// fingerprint, the hash of a shard's words, and each of its files' hash and path.
pub(super) struct State<'a> {
    entries: HashMap<&'a str, Entry<'a>>,
}

struct Entry<'a> {
    fingerprint: &'a str,
    /// A shard's words' hash (the words bundle has none).
    words: Option<&'a str>,
    /// Each file's hash and path, as listed.
    files: Vec<(&'a str, &'a str)>,
}

impl<'a> State<'a> {
    /// Reads a state file; `None` if it is not one this program writes.
    pub(super) fn parse(bytes: &'a [u8]) -> Option<State<'a>> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.lines();
        if lines.next() != Some(STATE_HEADER) {
            return None;
        }
        let mut entries = HashMap::new();
        let mut current: Option<(&str, Entry)> = None;
        for line in lines {
            if let Some(entry) = line.strip_prefix("shard ") {
                let mut fields = entry.split(' ');
                let (name, fingerprint) = (fields.next()?, fields.next()?);
                let words = fields.next();
                if fields.next().is_some() {
                    return None;
                }
                entries.extend(current.take());
                let files = Vec::new();
                current = Some((
                    name,
                    Entry {
                        fingerprint,
                        words,
                        files,
                    },
                ));
            } else {
                current.as_mut()?.1.files.push(line.split_once(' ')?);
            }
        }
        entries.extend(current);
        Some(State { entries })
    }

    /// The files an entry lists, read with `read`, if it was made from `fingerprint` and
    /// every file is there with the bytes it had, each under `dir` and listed once, in
    /// order. Anything else is `None`: the entry is built again, never trusted.
    pub(super) fn reusable(
        &self,
        name: &str,
        fingerprint: &str,
        dir: &str,
        read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
    ) -> Option<Vec<File>> {
        let Entry {
            fingerprint: stated,
            files: listed,
            ..
        } = self.entries.get(name)?;
        if *stated != fingerprint
            || listed.is_empty()
            || !listed.windows(2).all(|pair| pair[0].1 < pair[1].1)
        {
            return None;
        }
        listed
            .par_iter()
            .map(|&(hash, path)| Some((path.to_string(), checked(path, hash, dir, read)?)))
            .collect()
    }

    /// The files an entry lists under `dir` whose path is `wanted` and that are there with
    /// the bytes they had, read with `read`, whatever it was made from: what is left of it
    /// to read back.
    pub(super) fn still_there(
        &self,
        name: &str,
        dir: &str,
        wanted: impl Fn(&str) -> bool + Sync,
        read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
    ) -> Vec<File> {
        let Some(entry) = self.entries.get(name) else {
            return Vec::new();
        };
        (entry.files)
            .par_iter()
            .filter(|(_, path)| wanted(path))
            .filter_map(|&(hash, path)| Some((path.to_string(), checked(path, hash, dir, read)?)))
            .collect()
    }

    /// The hash of a shard's words, as the entry `name` gives it.
    pub(super) fn words(&self, name: &str) -> Option<&'a str> {
        self.entries.get(name)?.words
    }
}

/// The bytes of the file at `path`, read with `read`, if it lies inside `dir` and its
/// bytes have the hash `hash`: a state file names paths, and is never followed out.
fn checked(
    path: &str,
    hash: &str,
    dir: &str,
    read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
) -> Option<Vec<u8>> {
    let inside = path.strip_prefix(dir).is_some_and(|name| {
        !name.is_empty() && !name.split('/').any(|part| part.is_empty() || part == "..")
    });
    if !inside {
        return None;
    }
    read(path).filter(|bytes| blake3::hash(bytes).to_hex().as_str() == hash)
}

/// Writes one entry of the state file.
pub(super) fn entry(
    out: &mut String,
    name: &str,
    fingerprint: &str,
    words: Option<&str>,
    files: &[File],
) {
    match words {
        Some(words) => out.push_str(&format!("shard {name} {fingerprint} {words}\n")),
        None => out.push_str(&format!("shard {name} {fingerprint}\n")),
    }
    for (path, bytes) in files {
        out.push_str(&format!("{} {path}\n", blake3::hash(bytes).to_hex()));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn files() -> Vec<File> {
        vec![
            (
                "pagefind/2024/fragment/en_1.pf_fragment".to_string(),
                b"one".to_vec(),
            ),
            (
                "pagefind/2024/pagefind-entry.json".to_string(),
                b"{}".to_vec(),
            ),
        ]
    }

    fn reader(files: &[File]) -> impl Fn(&str) -> Option<Vec<u8>> + Sync + use<> {
        let map: BTreeMap<String, Vec<u8>> = files.iter().cloned().collect();
        move |path: &str| map.get(path).cloned()
    }

    fn stated(entries: &[(&str, &str, &[File])]) -> Vec<u8> {
        let mut out = header();
        for (name, fingerprint, files) in entries {
            entry(&mut out, name, fingerprint, Some("w"), files);
        }
        out.into_bytes()
    }

    #[test]
    fn a_shard_is_taken_again_only_when_all_of_it_is_as_it_was() {
        let files = files();
        let dir = "pagefind/2024/";
        let written = stated(&[("2024", "abc", &files)]);
        let state = State::parse(&written).unwrap();
        let reuse = |fingerprint: &str, read: &(dyn Fn(&str) -> Option<Vec<u8>> + Sync)| {
            state.reusable("2024", fingerprint, dir, &read)
        };
        assert_eq!(reuse("abc", &reader(&files)), Some(files.clone()));
        assert_eq!(reuse("abd", &reader(&files)), None, "other records");
        let mut changed = files.clone();
        changed[0].1 = b"tampered".to_vec();
        assert_eq!(reuse("abc", &reader(&changed)), None, "a file changed");
        assert_eq!(reuse("abc", &reader(&files[..1])), None, "a file gone");
        assert_eq!(
            state.reusable("2023", "abc", "pagefind/2023/", &reader(&files)),
            None,
            "another shard"
        );
        assert!(State::parse(b"garbage\nshard 2024 abc\n").is_none());
        assert!(State::parse(b"").is_none());
        assert_eq!(state.words("2024"), Some("w"), "its words' hash");
        let more = format!("{STATE_HEADER}\nshard 2024 abc w x\n");
        assert!(State::parse(more.as_bytes()).is_none(), "a field too many");

        let mut twice = files.clone();
        twice.push(files[1].clone());
        let written = stated(&[("2024", "abc", &twice)]);
        let state = State::parse(&written).unwrap();
        assert_eq!(
            state.reusable("2024", "abc", dir, &reader(&files)),
            None,
            "a path twice"
        );

        // A state that names a file outside the shard's folder is not followed.
        let outside = vec![("index.html".to_string(), b"page".to_vec())];
        for forged in [
            outside,
            vec![("pagefind/2024/../../x".to_string(), b"x".to_vec())],
        ] {
            let written = stated(&[("2024", "abc", &forged)]);
            let state = State::parse(&written).unwrap();
            assert_eq!(state.reusable("2024", "abc", dir, &reader(&forged)), None);
        }
    }
}
