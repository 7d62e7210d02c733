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

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::bundle;
use super::format;
use super::lexicon::Lexicon;
use super::state::{self, File, State};
use super::{Error, Record};
use crate::routes;

/// Records to a shard at most: few enough that indexing the one an edit or a sync touches
/// takes a fraction of a second (about 0.1 ms of a core a record), and that the
/// shards built at once stay within [`RECORDS_IN_FLIGHT`]; many enough that a search of a
/// common word loads tens of shards, not hundreds, at 100,000 incidents.
const SHARD_RECORDS: usize = 2_000;

/// Records being indexed at once, over all shards: each is held with its words' places
/// while its shard is indexed.
const RECORDS_IN_FLIGHT: usize = 20_000;

/// The most incidents whose shards the search page reads at once for a search: a search
/// that may match in more reads the newest (or oldest) [`READ_FIRST`] first, and the
/// rest a batch at a time as the reader asks. A shard costs the first search about 33 bytes
/// an incident (its metadata, filters and a chunk of its words), so a first search stays
/// near 600 KiB, runtime included, at any size.
const READ_WHOLE: usize = 12_000;

/// Incidents read by each batch beyond [`READ_WHOLE`] (whole shards, so a little more).
const READ_FIRST: usize = 6_000;

/// A shard's name, which is also its folder: `2024`, or `2024-2` for a year's second block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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

/// A shard: its name, and what its records are made of, in time order.
pub(super) struct Shard<T> {
    key: ShardKey,
    members: Vec<T>,
}

impl<T> Shard<T> {
    pub(super) fn key(&self) -> &ShardKey {
        &self.key
    }

    pub(super) fn members(&self) -> &[T] {
        &self.members
    }
}

/// The shards of `items`, newest first, each in time order: `year` is the year an item
/// started, `order` puts two in time order (and any two apart, so that the same items
/// make the same shards).
pub(super) fn split<T: Send>(
    mut items: Vec<T>,
    year: impl Fn(&T) -> i32 + Sync,
    order: impl Fn(&T, &T) -> std::cmp::Ordering + Sync,
) -> Vec<Shard<T>> {
    items.par_sort_unstable_by(|a, b| year(a).cmp(&year(b)).then_with(|| order(a, b)));
    let mut years: Vec<(i32, Vec<T>)> = Vec::new();
    for item in items {
        match years.last_mut() {
            Some((started, list)) if *started == year(&item) => list.push(item),
            _ => years.push((year(&item), vec![item])),
        }
    }
    let mut shards = Vec::new();
    for (year, list) in years {
        if list.len() <= SHARD_RECORDS {
            shards.push(Shard {
                key: ShardKey(year.to_string()),
                members: list,
            });
            continue;
        }
        // Blocks from January on: what a year gains at its end changes its last block.
        let mut rest = list.into_iter();
        for block in 1.. {
            let members: Vec<T> = rest.by_ref().take(SHARD_RECORDS).collect();
            if members.is_empty() {
                break;
            }
            shards.push(Shard {
                key: ShardKey(format!("{year}-{block}")),
                members,
            });
        }
    }
    shards.reverse();
    shards
}

/// A shard's member: what makes one record, and says cheaply what that record is made of.
pub(super) trait Member {
    /// Its record: the costly part, the plain text of its markdown.
    fn record(&self) -> Record;
    /// Its record's facets, made without its text.
    fn filters(&self) -> Filters;
    /// Writes all its record is made of into `out`: two members that write the same bytes
    /// make the same record, so a shard is known again without its records made.
    fn identify(&self, out: &mut Vec<u8>);
}

/// A record's facets: each name with its values.
pub(super) type Filters = BTreeMap<String, Vec<String>>;

/// What a shard is indexed from: its members, the language, and this very program (its
/// Pagefind and its way of filtering Pagefind's files). Two shards with one fingerprint
/// make the same files.
///
/// The members' bytes are gathered, then hashed in one call: fed a member at a time, the
/// hasher took most of an edit's fingerprints (it hashes many 1 KiB chunks at once only in
/// what it is given at once).
fn fingerprint<T: Member>(members: &[T], language: &str) -> String {
    let mut bytes = crate::cache::program().to_vec();
    bytes.extend_from_slice(&(members.len() as u64).to_le_bytes());
    field(&mut bytes, language);
    for member in members {
        member.identify(&mut bytes);
    }
    blake3::hash(&bytes).to_hex().to_string()
}

/// `text` with its length in front, so that no two lists of texts write the same bytes.
pub(super) fn field(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// Every value of every facet with the number of records that have it.
type Facets = BTreeMap<String, BTreeMap<String, usize>>;

/// What a shard's records come to, short of its files: what a caller that keeps the same
/// members can give back to [`build`] instead of having their records made again.
#[derive(Clone)]
pub(super) struct Summary {
    fingerprint: String,
    facets: Facets,
    words: String,
}

/// A shard as this index has it: its members, its files, taken again or made now, its
/// words and its facets' counts.
pub(super) struct Made<T> {
    shard: Shard<T>,
    fingerprint: String,
    files: Vec<File>,
    words: Words,
    facets: Facets,
}

impl<T> Made<T> {
    pub(super) fn shard(&self) -> &Shard<T> {
        &self.shard
    }

    /// Its summary, where its words are known.
    pub(super) fn summary(&self) -> Option<Summary> {
        let Words::Made(words) = &self.words else {
            return None;
        };
        Some(Summary {
            fingerprint: self.fingerprint.clone(),
            facets: self.facets.clone(),
            words: words.clone(),
        })
    }
}

/// A shard's words: known (made with its files, or given back), or, for a shard taken
/// again, their hash as the state file gives it. Should the words bundle be made again (a
/// word of another shard new or gone), they are read back from the last words bundle, or
/// gathered from its members if that does not give them. Taken again, a shard's words are
/// not gathered at all: that was most of the index's time after one edit.
enum Words {
    Made(String),
    Stated(String),
}

impl Words {
    fn hash(&self) -> String {
        match self {
            Words::Made(text) => blake3::hash(text.as_bytes()).to_hex().to_string(),
            Words::Stated(hash) => hash.clone(),
        }
    }

    /// The words themselves: for a shard taken again, as the last words bundle held them
    /// (`before`, by shard name) if they still have the stated hash, else gathered from
    /// its members' records.
    fn text<T: Member>(
        self,
        name: &str,
        members: &[T],
        before: &HashMap<String, String>,
    ) -> String {
        match self {
            Words::Made(text) => text,
            Words::Stated(hash) => match before.get(name) {
                Some(text) if blake3::hash(text.as_bytes()).to_hex().as_str() == hash => {
                    text.clone()
                }
                _ => words(&members.iter().map(T::record).collect::<Vec<_>>()),
            },
        }
    }
}

/// Each shard's files: those of the last index where its members are the same, else
/// indexed now, several shards at once within [`RECORDS_IN_FLIGHT`]. Records are made only
/// for the shards indexed, so that only those in flight are in memory; `recall` gives back
/// the summary of a shard the caller knows to have the same members. Newest first.
pub(super) fn build<T: Member + Send + Sync>(
    shards: Vec<Shard<T>>,
    recall: impl Fn(&Shard<T>) -> Option<Summary> + Sync,
    lexicon: &Lexicon,
    last: Option<&State>,
    read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
) -> Result<Vec<Made<T>>, Error> {
    let language = lexicon.language();
    let made = |shard: Shard<T>| -> Result<Made<T>, Error> {
        let dir = shard.key.dir();
        let reusable = |fingerprint: &str| {
            let last = last?;
            let hash = last.words(&shard.key.0)?.to_string();
            Some((last.reusable(&shard.key.0, fingerprint, &dir, read)?, hash))
        };
        if let Some(summary) = recall(&shard)
            && let Some((files, _)) = reusable(&summary.fingerprint)
        {
            return Ok(Made {
                shard,
                fingerprint: summary.fingerprint,
                files,
                words: Words::Made(summary.words),
                facets: summary.facets,
            });
        }
        let facets = facets(&shard.members);
        let fingerprint = fingerprint(&shard.members, language);
        let (files, words) = match reusable(&fingerprint) {
            Some((files, hash)) => (files, Words::Stated(hash)),
            None => {
                let records: Vec<Record> = shard.members.iter().map(T::record).collect();
                let words = words(&records);
                (made_at(&dir, records, false, lexicon)?, Words::Made(words))
            }
        };
        Ok(Made {
            shard,
            fingerprint,
            files,
            words,
            facets,
        })
    };
    let threads = rayon::current_num_threads().min((RECORDS_IN_FLIGHT / SHARD_RECORDS).max(1));
    let work = || shards.into_par_iter().map(made).collect();
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) if threads < rayon::current_num_threads() => pool.install(work),
        _ => work(),
    }
}

/// A shard's facets: every value of each with the number of its members that have it.
fn facets<T: Member>(members: &[T]) -> Facets {
    let mut facets = Facets::new();
    for member in members {
        for (name, values) in member.filters() {
            let counts = facets.entry(name).or_default();
            for value in values {
                *counts.entry(value).or_default() += 1;
            }
        }
    }
    facets
}

/// The Pagefind bundle of `records` at `dir` (with Pagefind's script and WebAssembly if
/// `runtime`): its files, sorted by path.
fn made_at(
    dir: &str,
    records: Vec<Record>,
    runtime: bool,
    lexicon: &Lexicon,
) -> Result<Vec<File>, Error> {
    let made = bundle::bundle(records, lexicon)?;
    let code = if runtime { made.runtime } else { Vec::new() };
    let mut files: Vec<File> = made
        .records
        .into_iter()
        .chain(code)
        .map(|(name, bytes)| (format!("{dir}{name}"), bytes))
        .collect();
    files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// What the words bundle is made from: each shard's name and words' hash, in order, the
/// language and this very program.
fn words_fingerprint(shards: &[(String, String)], language: &str) -> String {
    let mut bytes = crate::cache::program().to_vec();
    let named = shards
        .iter()
        .flat_map(|(name, hash)| [name.as_str(), hash.as_str()]);
    for text in std::iter::once(language).chain(named) {
        field(&mut bytes, text);
    }
    blake3::hash(&bytes).to_hex().to_string()
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
    // Each word as written once (a shard's words repeat: most of its text), then read.
    let written: foldhash::HashSet<&str> = texts.flat_map(str::split_whitespace).collect();
    let mut words: Vec<String> = written
        .into_iter()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|word| !word.is_empty())
        // As Pagefind's record holds it (`bundle::tidy`), so that it reads back the same.
        .map(|word| word.replace('\u{200B}', "").to_lowercase())
        .filter(|word| !word.is_empty())
        .collect();
    words.sort_unstable();
    words.dedup();
    let mut joined = String::new();
    for word in words {
        joined.push_str(&word);
        joined.push(' ');
    }
    joined
}

/// The URL of the words bundle's record of the shard `name`: `/pagefind/2024/`.
fn cover_url(name: &str) -> String {
    format!("/{}{name}/", routes::SEARCH_INDEX_DIR)
}

/// Each shard's words as the last words bundle indexed them, by shard name, read back from
/// its files that are still as it wrote them. Without them, remaking the words bundle
/// after one edit made every record of the archive again to gather its shard's words.
fn words_before(
    last: &State,
    read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
) -> HashMap<String, String> {
    let prefix = format!("/{}", routes::SEARCH_INDEX_DIR);
    let fragments = |path: &str| path.ends_with(".pf_fragment");
    let files = last.still_there(WORDS_ENTRY, routes::SEARCH_WORDS_DIR, fragments, read);
    files
        .iter()
        .filter_map(|(_, bytes)| format::decompressed(bytes))
        .flat_map(|plain| format::said(&plain))
        .filter_map(|said| {
            let name = said.url.strip_prefix(&prefix)?.strip_suffix('/')?;
            // A record's text is its words, a space after each, the last one dropped.
            let mut words = said.content;
            if !words.is_empty() {
                words.push(' ');
            }
            Some((name.to_string(), words))
        })
        .collect()
}

/// Every file of the index: the shards', the words bundle with Pagefind's script and
/// WebAssembly, the list of shards with the facets' totals, and the state file.
pub(super) fn files<T: Member + Send + Sync>(
    made: Vec<Made<T>>,
    lexicon: &Lexicon,
    last: Option<&State>,
    read: &(impl Fn(&str) -> Option<Vec<u8>> + Sync),
) -> Result<Vec<File>, Error> {
    let mut state = state::header();
    let mut files = Vec::new();
    let mut listed = Vec::new();
    let mut hashes = Vec::new();
    let mut words = Vec::new();
    // Every facet's totals: what the search page offers before a search, without loading
    // every shard's filters.
    let mut facets = Facets::new();
    for shard in made {
        for (name, counts) in shard.facets {
            let totals = facets.entry(name).or_default();
            for (value, count) in counts {
                *totals.entry(value).or_default() += count;
            }
        }
        let hash = shard.words.hash();
        let key = &shard.shard.key.0;
        state::entry(
            &mut state,
            key,
            &shard.fingerprint,
            Some(&hash),
            &shard.files,
        );
        listed.push(serde_json::json!({
            "name": key,
            "incidents": shard.shard.members.len(),
        }));
        hashes.push((key.clone(), hash));
        files.extend(shard.files);
        words.push((shard.words, shard.shard.members));
    }
    if !words.is_empty() {
        let fingerprint = words_fingerprint(&hashes, lexicon.language());
        let dir = routes::SEARCH_WORDS_DIR;
        let taken = last.and_then(|last| last.reusable(WORDS_ENTRY, &fingerprint, dir, read));
        let bundle = match taken {
            Some(files) => files,
            None => {
                let stated = words
                    .iter()
                    .any(|(words, _)| matches!(words, Words::Stated(_)));
                let before = (last.filter(|_| stated))
                    .map(|last| words_before(last, read))
                    .unwrap_or_default();
                let covers = words
                    .into_par_iter()
                    .zip(hashes)
                    .map(|((words, members), (name, _))| Record {
                        url: cover_url(&name),
                        content: words.text(&name, &members, &before),
                        meta: Default::default(),
                        filters: [(COVERS.to_string(), vec![name])].into(),
                        sort: Default::default(),
                    })
                    .collect();
                made_at(dir, covers, true, lexicon)?
            }
        };
        state::entry(&mut state, WORDS_ENTRY, &fingerprint, None, &bundle);
        files.extend(bundle);
    }
    let manifest = serde_json::json!({
        "shards": listed,
        "filters": facets,
        "reach": { "whole": READ_WHOLE, "first": READ_FIRST },
    });
    files.push((
        routes::SEARCH_SHARDS.to_string(),
        serde_json::to_vec(&manifest).map_err(|e| Error::Pagefind(e.to_string()))?,
    ));
    files.push((routes::SEARCH_INDEX_STATE.to_string(), state.into_bytes()));
    Ok(files)
}

#[cfg(test)]
mod tests;
