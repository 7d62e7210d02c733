//! The index in shards. Records are split by the year they started, a year of more than
//! [`SHARD_RECORDS`] into blocks of that many in time order; each shard is a Pagefind bundle
//! of its own under `pagefind/<shard>/`. An archive grows at its newest end, so an old shard
//! keeps its records: while its fingerprint is the one the state file gives it, its files
//! are taken again byte for byte, and one edited incident indexes one shard again.
//!
//! Beside them, at `pagefind/words/`, the bundle of the shards' words: one record per
//! shard, holding every word its incidents have. The search page asks it first, and loads
//! and merges only the shards that can match. That keeps Pagefind's answers those of one
//! index: a shard without a word would otherwise match the longest word it has that starts
//! the one asked for (`normal` for `normalisation`).

use std::collections::HashMap;

use rayon::prelude::*;

use super::bundle;
use super::{Error, Record};
use crate::routes;

/// Records to a shard at most: few enough that indexing the one an edit or a sync touches
/// takes well under a second (Pagefind spends about 0.5 ms on a record), and that the
/// shards built at once stay within [`RECORDS_IN_FLIGHT`]; many enough that a search of a
/// common word loads tens of shards, not hundreds, at 100,000 incidents.
const SHARD_RECORDS: usize = 2_000;

/// Records being indexed at once, over all shards: Pagefind holds about 40 KB for each.
const RECORDS_IN_FLIGHT: usize = 20_000;

/// A shard's name, which is also its folder: `2024`, or `2024-2` for a year's second block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ShardKey(String);

impl ShardKey {
    /// Its folder: `pagefind/2024/`.
    fn dir(&self) -> String {
        routes::search_shard_dir(&self.0)
    }
}

/// The words bundle's entry in the state file, beside the shards' (no year reads like it).
const WORDS_ENTRY: &str = "words";

/// The words bundle's filter: which shard a record holds the words of.
const COVERS: &str = "covers";

pub(super) struct Shard {
    key: ShardKey,
    records: Vec<Record>,
}

/// The shards of `records`, newest first, each in time order.
pub(super) fn split(mut records: Vec<Record>) -> Vec<Shard> {
    records.par_sort_unstable_by(|a, b| (a.year, &a.sort, &a.url).cmp(&(b.year, &b.sort, &b.url)));
    let mut years: Vec<(i32, Vec<Record>)> = Vec::new();
    for record in records {
        match years.last_mut() {
            Some((year, list)) if *year == record.year => list.push(record),
            _ => years.push((record.year, vec![record])),
        }
    }
    let mut shards = Vec::new();
    for (year, list) in years {
        if list.len() <= SHARD_RECORDS {
            shards.push(Shard {
                key: ShardKey(year.to_string()),
                records: list,
            });
            continue;
        }
        // Blocks from January on: what a year gains at its end changes its last block.
        let mut rest = list.into_iter();
        for block in 1.. {
            let records: Vec<Record> = rest.by_ref().take(SHARD_RECORDS).collect();
            if records.is_empty() {
                break;
            }
            shards.push(Shard {
                key: ShardKey(format!("{year}-{block}")),
                records,
            });
        }
    }
    shards.reverse();
    shards
}

/// What a set of records is indexed from: the records, the language, and this very program
/// (its Pagefind and its way of filtering Pagefind's files). Two shards with one
/// fingerprint make the same files.
fn fingerprint(records: &[Record], language: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(crate::cache::program());
    fn field(hasher: &mut blake3::Hasher, text: &str) {
        hasher.update(&(text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    // Every field and every count, so that no two sets of records read the same.
    fn count(n: usize, hasher: &mut blake3::Hasher) {
        hasher.update(&(n as u64).to_le_bytes());
    }
    count(records.len(), &mut hasher);
    field(&mut hasher, language);
    for record in records {
        field(&mut hasher, &record.url);
        field(&mut hasher, &record.content);
        hasher.update(&record.year.to_le_bytes());
        for map in [&record.meta, &record.sort] {
            count(map.len(), &mut hasher);
            for (key, value) in map {
                field(&mut hasher, key);
                field(&mut hasher, value);
            }
        }
        count(record.filters.len(), &mut hasher);
        for (key, values) in &record.filters {
            field(&mut hasher, key);
            count(values.len(), &mut hasher);
            for value in values {
                field(&mut hasher, value);
            }
        }
    }
    hasher.finalize().to_hex().to_string()
}

const STATE_HEADER: &str = "outages search index 2";

/// A file of the index: its site path and bytes.
type File = (String, Vec<u8>);

/// The state file of the last index: for each shard (and the words bundle), its
/// fingerprint and each of its files' hash and path.
pub(super) struct State<'a> {
    entries: HashMap<&'a str, Entry<'a>>,
}

struct Entry<'a> {
    fingerprint: &'a str,
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
                let (name, fingerprint) = entry.split_once(' ')?;
                entries.extend(current.take());
                let files = Vec::new();
                current = Some((name, Entry { fingerprint, files }));
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
    fn reusable(
        &self,
        name: &str,
        fingerprint: &str,
        dir: &str,
        read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
    ) -> Option<Vec<File>> {
        let Entry {
            fingerprint: stated,
            files: listed,
        } = self.entries.get(name)?;
        if *stated != fingerprint
            || listed.is_empty()
            || !listed.windows(2).all(|pair| pair[0].1 < pair[1].1)
        {
            return None;
        }
        listed
            .par_iter()
            .map(|&(hash, path)| {
                let inside = path.strip_prefix(dir).is_some_and(|name| {
                    !name.is_empty() && !name.split('/').any(|part| part.is_empty() || part == "..")
                });
                let bytes = read(path)
                    .filter(|bytes| inside && blake3::hash(bytes).to_hex().as_str() == hash)?;
                Some((path.to_string(), bytes))
            })
            .collect()
    }
}

/// Writes one entry of the state file.
fn state_entry(out: &mut String, name: &str, fingerprint: &str, files: &[File]) {
    out.push_str(&format!("shard {name} {fingerprint}\n"));
    for (path, bytes) in files {
        out.push_str(&format!("{} {path}\n", blake3::hash(bytes).to_hex()));
    }
}

/// A shard as this index has it: its files, taken again or made now, and its words.
pub(super) struct Made {
    key: ShardKey,
    fingerprint: String,
    incidents: usize,
    files: Vec<File>,
    words: String,
}

/// Each shard's files: those of the last index where they hold the same records, else
/// indexed now, several shards at once within [`RECORDS_IN_FLIGHT`]. Newest first.
pub(super) fn build(
    shards: Vec<Shard>,
    language: &str,
    last: Option<&State>,
    read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
) -> Result<Vec<Made>, Error> {
    let made = |shard: Shard| -> Result<Made, Error> {
        let incidents = shard.records.len();
        let words = words(&shard.records);
        let (fingerprint, files) = bundle_at(
            &shard.key.0,
            &shard.key.dir(),
            shard.records,
            false,
            language,
            last,
            read,
        )?;
        Ok(Made {
            key: shard.key,
            fingerprint,
            incidents,
            files,
            words,
        })
    };
    let threads = rayon::current_num_threads().min((RECORDS_IN_FLIGHT / SHARD_RECORDS).max(1));
    let work = || shards.into_par_iter().map(made).collect();
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) if threads < rayon::current_num_threads() => pool.install(work),
        _ => work(),
    }
}

/// One bundle's files at `dir`: the last index's, where its entry `name` was made from the
/// same records, else Pagefind's of them now (with its script and WebAssembly if
/// `runtime`). Its fingerprint, and its files sorted by path.
fn bundle_at(
    name: &str,
    dir: &str,
    records: Vec<Record>,
    runtime: bool,
    language: &str,
    last: Option<&State>,
    read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
) -> Result<(String, Vec<File>), Error> {
    let fingerprint = fingerprint(&records, language);
    if let Some(files) = last.and_then(|last| last.reusable(name, &fingerprint, dir, read)) {
        return Ok((fingerprint, files));
    }
    let made = bundle::bundle(records, language)?;
    let code = if runtime { made.runtime } else { Vec::new() };
    let mut files: Vec<File> = made
        .records
        .into_iter()
        .chain(code)
        .map(|(name, bytes)| (format!("{dir}{name}"), bytes))
        .collect();
    files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok((fingerprint, files))
}

/// Every word of `records` once, lowercase, without the punctuation around it (Pagefind
/// splits and stems them as it does the records), in order: what the words bundle indexes
/// for their shard. A new sentence of words the shard has leaves them as they were.
fn words(records: &[Record]) -> String {
    let texts = records.iter().flat_map(|record| {
        std::iter::once(record.content.as_str())
            .chain(record.meta.values().map(String::as_str))
            .chain(record.filters.values().flatten().map(String::as_str))
    });
    let words: std::collections::BTreeSet<String> = texts
        .flat_map(str::split_whitespace)
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut joined = String::new();
    for word in words {
        joined.push_str(&word);
        joined.push(' ');
    }
    joined
}

/// Every file of the index: the shards', the words bundle with Pagefind's script and
/// WebAssembly, the list of shards with the facets' totals, and the state file.
pub(super) fn files(
    made: Vec<Made>,
    facets: serde_json::Value,
    language: &str,
    last: Option<&State>,
    read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
) -> Result<Vec<File>, Error> {
    let mut state = format!("{STATE_HEADER}\n");
    let mut files = Vec::new();
    let mut listed = Vec::new();
    let mut covers = Vec::new();
    for shard in made {
        state_entry(&mut state, &shard.key.0, &shard.fingerprint, &shard.files);
        listed.push(serde_json::json!({
            "name": shard.key.0,
            "incidents": shard.incidents,
        }));
        covers.push(Record {
            url: format!("/{}{}/", routes::SEARCH_INDEX_DIR, shard.key.0),
            content: shard.words,
            meta: Default::default(),
            filters: [(COVERS.to_string(), vec![shard.key.0])].into(),
            sort: Default::default(),
            year: 0,
        });
        files.extend(shard.files);
    }
    if !covers.is_empty() {
        let (fingerprint, words) = bundle_at(
            WORDS_ENTRY,
            routes::SEARCH_WORDS_DIR,
            covers,
            true,
            language,
            last,
            read,
        )?;
        state_entry(&mut state, WORDS_ENTRY, &fingerprint, &words);
        files.extend(words);
    }
    let manifest = serde_json::json!({ "shards": listed, "filters": facets });
    files.push((
        routes::SEARCH_SHARDS.to_string(),
        serde_json::to_vec(&manifest).map_err(|e| Error::Pagefind(e.to_string()))?,
    ));
    files.push((routes::SEARCH_INDEX_STATE.to_string(), state.into_bytes()));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn record(url: &str, start: &str) -> Record {
        Record {
            url: url.to_string(),
            content: format!("words of {url}"),
            meta: BTreeMap::from([("title".to_string(), url.to_string())]),
            filters: BTreeMap::from([("year".to_string(), vec![start[..4].to_string()])]),
            sort: BTreeMap::from([("start".to_string(), start.to_string())]),
            year: start[..4].parse().unwrap(),
        }
    }

    fn names(shards: &[Shard]) -> Vec<(&str, usize)> {
        shards
            .iter()
            .map(|shard| (shard.key.0.as_str(), shard.records.len()))
            .collect()
    }

    #[test]
    fn shards_are_years_newest_first_and_a_big_year_is_cut_in_time_order() {
        let mut records = vec![
            record("/b/", "2023-05-01T00:00:00Z"),
            record("/a/", "2024-01-01T00:00:00Z"),
            record("/c/", "2023-01-01T00:00:00Z"),
        ];
        let shards = split(records.clone());
        assert_eq!(names(&shards), [("2024", 1), ("2023", 2)]);
        let urls: Vec<&str> = shards[1].records.iter().map(|r| r.url.as_str()).collect();
        assert_eq!(urls, ["/c/", "/b/"], "in time order inside");

        // A year of more than a shard holds: blocks from January, the last one partial, so
        // that what the year gains at its end changes its last block only.
        for day in 0..(2 * SHARD_RECORDS + 1) {
            let start = format!("2025-01-01T00:00:{:02}Z", day % 60);
            records.push(record(&format!("/y/{day:06}/"), &start));
        }
        let shards = split(records);
        assert_eq!(
            names(&shards),
            [
                ("2025-3", 1),
                ("2025-2", SHARD_RECORDS),
                ("2025-1", SHARD_RECORDS),
                ("2024", 1),
                ("2023", 2)
            ]
        );
    }

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
        let mut out = format!("{STATE_HEADER}\n");
        for (name, fingerprint, files) in entries {
            state_entry(&mut out, name, fingerprint, files);
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

    #[test]
    fn the_fingerprint_follows_every_field_of_every_record() {
        let record = record("/a/b/", "2024-01-01T00:00:00Z");
        let base = fingerprint(std::slice::from_ref(&record), "en");
        assert_eq!(base, fingerprint(std::slice::from_ref(&record), "en"));
        assert_ne!(base, fingerprint(std::slice::from_ref(&record), "de"));
        // A meta entry moved to the sort keys: the same words, another record.
        let mut moved = record.clone();
        moved.meta.clear();
        moved.sort.insert("title".into(), "/a/b/".into());
        assert_ne!(base, fingerprint(&[moved], "en"));
        let edits: [fn(&mut Record); 6] = [
            |r| r.url.push('x'),
            |r| r.content.push('x'),
            |r| drop(r.meta.insert("title".into(), "U".into())),
            |r| drop(r.filters.insert("year".into(), vec!["2025".into()])),
            |r| drop(r.sort.insert("start".into(), "2025".into())),
            |r| r.year += 1,
        ];
        for edit in edits {
            let mut other = record.clone();
            edit(&mut other);
            assert_ne!(base, fingerprint(&[other], "en"));
        }
    }

    #[test]
    fn the_words_of_a_shard_are_each_word_once_from_every_field_as_pagefind_reads_it() {
        let mut one = record("/a/", "2024-01-01T00:00:00Z");
        one.content = "DNS failures, DNS again".to_string();
        one.filters
            .insert("component".into(), vec!["Edge (AMS)".into()]);
        assert_eq!(words(&[one]), "2024 a again ams dns edge failures ");
    }
}
