//! How Pagefind reads each word, asked of Pagefind itself: the words a bundle needs are
//! indexed once each, as one record, by Pagefind's own indexer, and its index read back.
//! Splitting (`three-antelopes`, `ThreeAntelopes`, `sysconfig.is_python_build`), diacritics
//! and stemming are then Pagefind's exactly, at the cost of each distinct word once rather
//! than of every word of every record. That is sound because Pagefind reads a word of a
//! record alone: what it makes of it depends on the word and the language, never on the
//! words around it (the record's text here never carries Pagefind's weight marks).
//!
//! The words asked are kept ([`Lexicon`]): the shards indexed at once share them (most of
//! a shard's words are another's), `serve` keeps them from one index to the next, and a
//! build with the cache keeps them in its folder for the next build ([`Lexicon::saved`]),
//! so that an edit asks Pagefind about its new words only. The same call gives Pagefind's
//! script, worker and WebAssembly, its version, and whether the language has a stemmer.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use foldhash::{HashMap, HashMapExt, HashSet};
use minicbor::Decode;

use super::format;
use super::{Error, Record};

/// A stemmed word of a bundle, by its place in [`Vocabulary::stems`] (sorted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct StemIx(u32);

/// A word of a bundle as written with its diacritics, by its place in
/// [`Vocabulary::forms`] (sorted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct FormIx(u32);

impl StemIx {
    pub(super) fn get(self) -> usize {
        self.0 as usize
    }
}

impl FormIx {
    pub(super) fn get(self) -> usize {
        self.0 as usize
    }
}

/// One thing Pagefind indexes a word as: a stem, the form with diacritics it came from
/// (none where it had none), and in a record's text its weight (a compound's parts weigh
/// less than the whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Token {
    pub stem: StemIx,
    pub form: Option<FormIx>,
    pub weight: u8,
}

/// What Pagefind says of itself: what a bundle's entry file and runtime need.
pub(super) struct Pagefind {
    /// Its version, as its script checks it.
    pub version: String,
    /// The language's WebAssembly, if Pagefind stems it.
    pub wasm: Option<String>,
    /// The characters other than letters and digits that Pagefind keeps in a word (`_`).
    pub include_characters: Vec<String>,
    /// Its script, worker and WebAssembly, by name.
    pub runtime: Vec<(String, Vec<u8>)>,
}

/// Pagefind's reading of every word asked so far, in one language.
pub(crate) struct Lexicon {
    language: String,
    known: RwLock<Known>,
}

/// A token as kept: its stem and form by their number in [`Known`].
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Kept {
    stem: u32,
    form: Option<u32>,
    weight: u8,
}

#[derive(Default)]
struct Known {
    stems: Interned,
    forms: Interned,
    /// A word of a record's text (without zero-width spaces), or of its metadata without
    /// a dot or a zero-width space (which Pagefind reads alike): its tokens.
    text: HashMap<Box<str>, Box<[Kept]>>,
    /// Any other word of a record's metadata (no dotted tails, no weights).
    meta: HashMap<Box<str>, Box<[Kept]>>,
    pagefind: Option<Arc<Pagefind>>,
}

/// Names, each numbered once.
#[derive(Default)]
struct Interned {
    names: Vec<Arc<str>>,
    numbers: HashMap<Arc<str>, u32>,
}

impl Interned {
    fn number(&mut self, name: &str) -> u32 {
        if let Some(&number) = self.numbers.get(name) {
            return number;
        }
        let number = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        let name: Arc<str> = name.into();
        self.names.push(name.clone());
        self.numbers.insert(name, number);
        number
    }
}

/// Whether Pagefind reads a word of metadata otherwise than the same word of text: with
/// a dot (a text word's dotted tails) or a zero-width space (left out of a text word).
fn read_apart(meta_word: &str) -> bool {
    meta_word.contains(['.', '\u{200B}'])
}

/// The words of a bundle's records, each with its tokens, its stems and forms numbered in
/// their sorted order (the order of the index's words).
pub(super) struct Vocabulary<'w> {
    /// Every stem of the bundle, sorted.
    pub stems: Vec<Arc<str>>,
    /// Every form with diacritics of the bundle, sorted.
    pub forms: Vec<Arc<str>>,
    text: HashMap<&'w str, Vec<Token>>,
    meta: HashMap<&'w str, Vec<Token>>,
    /// What Pagefind says of itself.
    pub pagefind: Arc<Pagefind>,
}

impl Vocabulary<'_> {
    /// The tokens of a word of a record's text (without zero-width spaces).
    pub(super) fn text(&self, word: &str) -> &[Token] {
        self.text.get(word).map_or(&[], Vec::as_slice)
    }

    /// The tokens of a word of a record's metadata.
    pub(super) fn meta(&self, word: &str) -> &[Token] {
        self.meta.get(word).map_or(&[], Vec::as_slice)
    }
}

/// The words of the record that asks, and the one after them (so that the record has
/// words whatever is asked).
const LAST: &str = "x";

/// The metadata field that holds the metadata words asked.
const FIELD: &str = "w";

impl Lexicon {
    /// A lexicon of no word yet, in `language`.
    pub(crate) fn new(language: &str) -> Lexicon {
        Lexicon {
            language: language.to_string(),
            known: RwLock::new(Known::default()),
        }
    }

    /// The language it reads words in.
    pub(crate) fn language(&self) -> &str {
        &self.language
    }

    /// The tokens of `text` words (of records' text, without zero-width spaces) and
    /// `meta` words (of their metadata), each listed once; Pagefind is asked about those
    /// not known yet.
    pub(super) fn vocabulary<'w>(
        &self,
        text: &[&'w str],
        meta: &[&'w str],
    ) -> Result<Vocabulary<'w>, Error> {
        let (new_text, new_meta, ask_pagefind) = {
            let known = self.known.read().unwrap_or_else(|e| e.into_inner());
            let mut new_text: Vec<&str> = text
                .iter()
                .chain(meta.iter().filter(|w| !read_apart(w)))
                .filter(|w| !known.text.contains_key(**w))
                .copied()
                .collect();
            new_text.sort_unstable();
            new_text.dedup();
            let new_meta: Vec<&str> = meta
                .iter()
                .filter(|w| read_apart(w) && !known.meta.contains_key(**w))
                .copied()
                .collect();
            let known_all = known.pagefind.is_some() && new_text.is_empty() && new_meta.is_empty();
            (new_text, new_meta, !known_all)
        };
        if ask_pagefind {
            let learned = ask(&new_text, &new_meta, &self.language)?;
            let mut known = self.known.write().unwrap_or_else(|e| e.into_inner());
            known.learn(learned, &new_text, &new_meta);
        }
        let known = self.known.read().unwrap_or_else(|e| e.into_inner());
        Ok(known.vocabulary(text, meta))
    }
}

/// What one call to Pagefind told: the tokens at each place of the text and metadata
/// asked, and Pagefind itself.
struct Learned {
    text: Vec<Vec<(String, Option<String>, u8)>>,
    meta: Vec<Vec<(String, Option<String>, u8)>>,
    pagefind: Pagefind,
}

impl Known {
    fn learn(&mut self, learned: Learned, text: &[&str], meta: &[&str]) {
        let Learned {
            text: text_tokens,
            meta: meta_tokens,
            pagefind,
        } = learned;
        if self.pagefind.is_none() {
            self.pagefind = Some(Arc::new(pagefind));
        }
        for (words, tokens, text_side) in [(text, text_tokens, true), (meta, meta_tokens, false)] {
            for (word, tokens) in words.iter().zip(tokens) {
                let kept: Box<[Kept]> = tokens
                    .into_iter()
                    .map(|(stem, form, weight)| Kept {
                        stem: self.stems.number(&stem),
                        form: form.map(|form| self.forms.number(&form)),
                        weight,
                    })
                    .collect();
                let into = if text_side {
                    &mut self.text
                } else {
                    &mut self.meta
                };
                into.entry((*word).into()).or_insert(kept);
            }
        }
    }

    /// The bundle's view of `text` and `meta` words, all known.
    fn vocabulary<'w>(&self, text: &[&'w str], meta: &[&'w str]) -> Vocabulary<'w> {
        let tokens = |word: &str, apart: bool| {
            let map = if apart { &self.meta } else { &self.text };
            map.get(word).map_or(&[][..], |kept| &kept[..])
        };
        let mut stems: HashSet<u32> = HashSet::default();
        let mut forms: HashSet<u32> = HashSet::default();
        let all = text
            .iter()
            .map(|w| tokens(w, false))
            .chain(meta.iter().map(|w| tokens(w, read_apart(w))));
        for kept in all.flatten() {
            stems.insert(kept.stem);
            forms.extend(kept.form);
        }
        let sorted = |numbers: HashSet<u32>, interned: &Interned| {
            let mut named: Vec<(Arc<str>, u32)> = numbers
                .into_iter()
                .map(|n| (interned.names[n as usize].clone(), n))
                .collect();
            named.sort_unstable();
            let local: HashMap<u32, u32> = named
                .iter()
                .enumerate()
                .map(|(at, (_, n))| (*n, u32::try_from(at).unwrap_or(u32::MAX)))
                .collect();
            (named.into_iter().map(|(name, _)| name).collect(), local)
        };
        let (stem_names, stem_local) = sorted(stems, &self.stems);
        let (form_names, form_local) = sorted(forms, &self.forms);
        let local = |kept: &[Kept]| -> Vec<Token> {
            // Every stem and form of these tokens was numbered just above.
            kept.iter()
                .map(|k| Token {
                    stem: StemIx(stem_local.get(&k.stem).copied().unwrap_or_default()),
                    form: k.form.and_then(|f| form_local.get(&f).copied()).map(FormIx),
                    weight: k.weight,
                })
                .collect()
        };
        let mut text_map = HashMap::with_capacity(text.len());
        for &word in text {
            text_map.insert(word, local(tokens(word, false)));
        }
        let mut meta_map = HashMap::with_capacity(meta.len());
        for &word in meta {
            meta_map.insert(word, local(tokens(word, read_apart(word))));
        }
        Vocabulary {
            stems: stem_names,
            forms: form_names,
            text: text_map,
            meta: meta_map,
            pagefind: self.pagefind.clone().unwrap_or_else(|| {
                Arc::new(Pagefind {
                    version: String::new(),
                    wasm: None,
                    include_characters: Vec::new(),
                    runtime: Vec::new(),
                })
            }),
        }
    }
}

/// Asks Pagefind about `text` and `meta` words, in `language`.
fn ask(text: &[&str], meta: &[&str], language: &str) -> Result<Learned, Error> {
    let mut content = String::new();
    for word in text {
        // A word of `___PAGEFIND_…` would be taken for an instruction (a weight, an
        // anchor) and moves the words after it; `-` in front changes nothing else of what
        // Pagefind makes of a word that starts with `_`: it is left out of the word and
        // splits compounds as `_` does.
        if word.starts_with('_') {
            content.push('-');
        }
        content.push_str(word);
        content.push(' ');
    }
    content.push_str(LAST);
    // Metadata words come without Pagefind's marks (`bundle::tidy`).
    let fields = BTreeMap::from([(FIELD.to_string(), meta.join(" "))]);
    let files = pagefind_files(content, fields, language)?;
    let mut pagefind = Pagefind {
        version: String::new(),
        wasm: None,
        include_characters: Vec::new(),
        runtime: Vec::new(),
    };
    let mut words = Vec::new();
    for (name, bytes) in files {
        if name.starts_with("index/") {
            let plain = format::decompressed(&bytes).ok_or_else(|| unreadable(&name))?;
            let chunk: Chunk = minicbor::decode(&plain).map_err(|_| unreadable(&name))?;
            words.extend(chunk.words);
        } else if name == "pagefind-entry.json" {
            let entry: EntryRead = serde_json::from_slice(&bytes).map_err(|_| unreadable(&name))?;
            pagefind.version = entry.version;
            pagefind.include_characters = entry.include_characters;
            pagefind.wasm = entry.languages.into_values().next().and_then(|l| l.wasm);
        } else if super::bundle::is_runtime(&name) {
            pagefind.runtime.push((name, bytes));
        }
    }
    let mut learned = Learned {
        text: vec![Vec::new(); text.len()],
        meta: vec![Vec::new(); meta.len()],
        pagefind,
    };
    for word in words {
        let places = word.pages.iter().map(|page| (None, page)).chain(
            word.additional_variants
                .iter()
                .flat_map(|v| v.pages.iter().map(|page| (Some(&v.form), page))),
        );
        for (form, page) in places {
            for (weight, position) in weighted(&page.locs) {
                if let Some(tokens) = learned.text.get_mut(position) {
                    tokens.push((word.word.clone(), form.cloned(), weight));
                }
            }
            for position in in_field(&page.meta_locs) {
                if let Some(tokens) = learned.meta.get_mut(position) {
                    tokens.push((word.word.clone(), form.cloned(), 0));
                }
            }
        }
    }
    Ok(learned)
}

/// The (weight, position) of each place of a word in a record's text: positions rise
/// from the last, a negative number `-(w + 1)` sets the weight `w` of those after it and
/// is followed by a position of its own.
fn weighted(locs: &[i32]) -> Vec<(u8, usize)> {
    let mut places = Vec::with_capacity(locs.len());
    let (mut weight, mut last) = (25u8, 0usize);
    let mut locs = locs.iter();
    while let Some(&loc) = locs.next() {
        if loc < 0 {
            weight = u8::try_from(-(i64::from(loc) + 1)).unwrap_or(u8::MAX);
            last = locs
                .next()
                .map_or(0, |&at| usize::try_from(at).unwrap_or(0));
        } else {
            last = last.saturating_add(usize::try_from(loc).unwrap_or(0));
        }
        places.push((weight, last));
    }
    places
}

/// The positions of a word in the one metadata field asked (`-1`, then steps).
fn in_field(meta_locs: &[i32]) -> Vec<usize> {
    let mut last = 0usize;
    meta_locs
        .iter()
        .filter(|&&loc| loc >= 0)
        .map(|&loc| {
            last = last.saturating_add(usize::try_from(loc).unwrap_or(0));
            last
        })
        .collect()
}

#[derive(Decode)]
struct Chunk {
    #[n(0)]
    words: Vec<Word>,
}

#[derive(Decode)]
struct Word {
    #[n(0)]
    word: String,
    #[n(1)]
    pages: Vec<Page>,
    #[n(2)]
    additional_variants: Vec<Variant>,
}

#[derive(Decode)]
struct Variant {
    #[n(0)]
    form: String,
    #[n(1)]
    pages: Vec<Page>,
}

#[derive(Decode)]
struct Page {
    #[n(0)]
    _page_number: u64,
    #[n(1)]
    locs: Vec<i32>,
    #[n(2)]
    meta_locs: Vec<i32>,
}

#[derive(serde::Deserialize)]
struct EntryRead {
    version: String,
    include_characters: Vec<String>,
    languages: BTreeMap<String, EntryLanguageRead>,
}

#[derive(serde::Deserialize)]
struct EntryLanguageRead {
    wasm: Option<String>,
}

fn unreadable(name: &str) -> Error {
    Error::Pagefind(format!(
        "Pagefind wrote a file this program cannot read: {name}"
    ))
}

/// Pagefind's bundle of one record of `content` and `meta`, its files by name.
fn pagefind_files(
    content: String,
    meta: BTreeMap<String, String>,
    language: &str,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let record = Record {
        url: "/".to_string(),
        content,
        meta,
        filters: BTreeMap::new(),
        sort: BTreeMap::new(),
    };
    pagefind_bundle(vec![record], language, 1)
}

/// Pagefind's own bundle of `records` (in `max_fragments` fragment files at most, where
/// they are more), its files by name.
pub(super) fn pagefind_bundle(
    records: Vec<Record>,
    language: &str,
    max_fragments: u32,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    use pagefind::api::PagefindIndex;
    use pagefind::options::PagefindServiceConfig;

    let options = PagefindServiceConfig::builder()
        .force_language(language.to_string())
        .max_fragments(max_fragments)
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(failed)?;
    runtime.block_on(async {
        let mut index = PagefindIndex::new(Some(options)).map_err(failed)?;
        for Record {
            url,
            content,
            meta,
            filters,
            sort,
        } in records
        {
            let language = language.to_string();
            index
                .add_custom_record(
                    url,
                    content,
                    language,
                    Some(meta),
                    Some(filters),
                    Some(sort),
                )
                .await
                .map_err(failed)?;
        }
        let files = index.get_files().await.map_err(failed)?;
        Ok(files
            .into_iter()
            .filter_map(|file| {
                let name = file.filename.to_str()?.replace('\\', "/");
                Some((name, file.contents))
            })
            .collect())
    })
}

fn failed(error: impl std::fmt::Display) -> Error {
    Error::Pagefind(error.to_string())
}

mod saved;
