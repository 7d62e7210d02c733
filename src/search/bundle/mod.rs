//! One Pagefind bundle: a shard's records indexed into Pagefind's format ([`format`]), each
//! word read as Pagefind reads it ([`Lexicon`]), its files by name inside the bundle.
//! Records are grouped a few to a fragment file, so that search does not write a file per
//! incident. Pagefind's own indexer spent about half a millisecond of a core on a record,
//! most of it splitting and stemming every word again and compressing at the best level;
//! here each distinct word is read once and the files are compressed at the default level.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use rayon::prelude::*;

use super::format::{self, PackedPage};
use super::lexicon::{FormIx, Lexicon, StemIx, Token, Vocabulary};
use super::{Error, Record};

/// The files that search rather than hold records, the same in every bundle: shipped once,
/// with the bundle the search page opens first. Pagefind's own UIs are left out: the theme
/// has one of its own, over the JS API.
const RUNTIME: [&str; 3] = ["pagefind.js", "pagefind-worker.js", "wasm."];

/// Records to a fragment file: a result list of neighbours in time fetches a few files,
/// not one per result, and an archive writes an eighth of the files.
const RECORDS_PER_FILE: usize = 8;

/// Words' places to a word chunk, about: Pagefind's default.
const CHUNK_PLACES: usize = 20_000;

/// A bundle's files, by name inside it: those of its records, and the runtime.
pub(super) struct Bundle {
    pub records: Vec<(String, Vec<u8>)>,
    pub runtime: Vec<(String, Vec<u8>)>,
}

/// Whether a file of Pagefind's is part of the runtime a bundle ships.
pub(super) fn is_runtime(name: &str) -> bool {
    RUNTIME.iter().any(|runtime| name.starts_with(runtime))
}

/// The fragment files `records` are grouped in: a file per [`RECORDS_PER_FILE`].
fn fragment_files(records: usize) -> u32 {
    u32::try_from(records.div_ceil(RECORDS_PER_FILE))
        .unwrap_or(u32::MAX)
        .max(1)
}

/// Indexes `records` in the order given (Pagefind numbers its pages in it, and the same
/// records in the same order give the same bytes).
pub(super) fn bundle(mut records: Vec<Record>, lexicon: &Lexicon) -> Result<Bundle, Error> {
    let language = lexicon.language();
    records.par_iter_mut().for_each(tidy);
    let (text, meta) = distinct_words(&records);
    let lexicon = lexicon.vocabulary(&text, &meta)?;
    let meta_fields: Vec<&str> = records
        .iter()
        .flat_map(|record| record.meta.keys().map(String::as_str))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let pages: Vec<Page> = records
        .par_iter()
        .map(|record| Page::of(record, &lexicon, &meta_fields, language))
        .collect();
    // Apart, so that a shard indexed alone (the last, or an edit's) takes both cores.
    let ((fragments, meta_pages), ((index_chunks, chunk_files), (meta_filters, filter_files))) =
        rayon::join(
            || fragments(&pages, language),
            || {
                rayon::join(
                    || chunks(&lexicon, words(&lexicon, &pages), language),
                    || filters(&records, language),
                )
            },
        );
    let meta = format::cbor(format::MetaIndex {
        version: &lexicon.pagefind.version,
        pages: meta_pages,
        index_chunks,
        filters: meta_filters,
        sorts: sorts(&records),
        meta_fields,
    });
    let meta_hash = format::sha1_text(&meta);
    let meta_name = format!(
        "{language}_{}",
        &meta_hash[..(language.len() + 8).min(meta_hash.len())]
    );
    let entry = format::json(&format::Entry {
        version: &lexicon.pagefind.version,
        languages: BTreeMap::from([(
            language,
            format::EntryLanguage {
                hash: &meta_name,
                wasm: lexicon.pagefind.wasm.as_deref(),
                page_count: records.len(),
            },
        )]),
        include_characters: &lexicon.pagefind.include_characters,
    })
    .into_bytes();
    let mut files = vec![
        (
            format!("pagefind.{meta_name}.pf_meta"),
            format::compressed(&meta),
        ),
        ("pagefind-entry.json".to_string(), entry),
    ];
    files.extend(
        fragments
            .into_iter()
            .chain(chunk_files)
            .chain(filter_files)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(name, bytes)| (name, format::compressed(&bytes)))
            .collect::<Vec<_>>(),
    );
    Ok(Bundle {
        records: files,
        runtime: lexicon.pagefind.runtime.clone(),
    })
}

/// Each sort key with the records in its order. Sort values are times (RFC 3339), which
/// order as text; records of the same time keep their order.
fn sorts(records: &[Record]) -> Vec<format::MetaSort<'_>> {
    let mut keys: Vec<&str> = records
        .iter()
        .flat_map(|record| record.sort.keys().map(String::as_str))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|key| {
            let mut pages: Vec<(&str, usize)> = records
                .iter()
                .enumerate()
                .filter_map(|(page, record)| Some((record.sort.get(key)?.as_str(), page)))
                .collect();
            pages.sort_by_key(|&(value, _)| value);
            format::MetaSort {
                sort: key,
                pages: pages.into_iter().map(|(_, page)| page).collect(),
            }
        })
        .collect()
}

/// Pagefind removes its private marks (`___PAGEFIND_…` and the word they start) from a
/// record's metadata and filters, and zero-width spaces from the words of its text; so
/// does this, so that a record is what Pagefind would make of it.
fn tidy(record: &mut Record) {
    if record.content.contains('\u{200B}') {
        record.content = record.content.replace('\u{200B}', "");
    }
    for value in record.meta.values_mut() {
        untagged(value);
    }
    for value in record.filters.values_mut().flatten() {
        untagged(value);
    }
}

/// `text` without any `___PAGEFIND_` followed by a word, and the space after it. Until
/// none is left: what is left around one removed could make another.
fn untagged(text: &mut String) {
    const TAG: &str = "___PAGEFIND_";
    let mut from = 0;
    while let Some(found) = text[from..].find(TAG).map(|at| from + at) {
        let rest = &text[found + TAG.len()..];
        let word = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if word == 0 {
            from = found + 1;
            continue;
        }
        let mut end = found + TAG.len() + word;
        if let Some(space) = text[end..].chars().next().filter(|c| c.is_whitespace()) {
            end += space.len_utf8();
        }
        text.replace_range(found..end, "");
        // A new tag may start up to a tag's length before.
        from = found.saturating_sub(TAG.len());
        while !text.is_char_boundary(from) {
            from -= 1;
        }
    }
}

/// Every distinct word of `records`' text and of their metadata.
fn distinct_words(records: &[Record]) -> (Vec<&str>, Vec<&str>) {
    let mut text: HashSet<&str> = HashSet::new();
    let mut meta: HashSet<&str> = HashSet::new();
    for record in records {
        text.extend(record.content.split_whitespace());
        meta.extend(record.meta.values().flat_map(|v| v.split_whitespace()));
    }
    (text.into_iter().collect(), meta.into_iter().collect())
}

/// Where a token is in a record.
#[derive(Clone, Copy)]
enum Place {
    /// In its text, with the token's weight.
    Text { weight: u8, position: u32 },
    /// In a metadata field (by its place in the bundle's fields).
    Meta { field: u16, position: u32 },
}

/// The usual weight of a word as Pagefind writes it: listed first, without a mark.
const USUAL_WEIGHT: u8 = 25;

impl Place {
    /// The order a word's places are listed in: the text's before the metadata's; in the
    /// text the usual weight first, then weight by weight, each by position; in the
    /// metadata field by field, each by position.
    fn order(self) -> (bool, u16, u32) {
        match self {
            Place::Text { weight, position } => {
                let weight = if weight == USUAL_WEIGHT { 0 } else { weight };
                (false, u16::from(weight), position)
            }
            Place::Meta { field, position } => (true, field, position),
        }
    }
}

/// A record as indexed: its fragment, and every token's place in it.
struct Page {
    word_count: usize,
    /// Each token's place, by stem, form, and the order the index lists them in.
    places: Vec<(StemIx, Option<FormIx>, Place)>,
    /// `<language>_<SHA-1 of its fragment>`.
    hash: String,
    fragment: format::Fragment,
}

impl Page {
    fn of(record: &Record, lexicon: &Vocabulary, fields: &[&str], language: &str) -> Page {
        let mut content = String::with_capacity(record.content.len());
        let mut places = Vec::new();
        let mut words: u32 = 0;
        for word in record.content.split_whitespace() {
            content.push_str(word);
            content.push(' ');
            for &Token { stem, form, weight } in lexicon.text(word) {
                let position = words;
                places.push((stem, form, Place::Text { weight, position }));
            }
            words = words.saturating_add(1);
        }
        content.pop();
        for (name, value) in &record.meta {
            let field = fields.binary_search(&name.as_str()).unwrap_or(0);
            let field = u16::try_from(field).unwrap_or(u16::MAX);
            for (position, word) in value.split_whitespace().enumerate() {
                let position = u32::try_from(position).unwrap_or(u32::MAX);
                for &Token { stem, form, .. } in lexicon.meta(word) {
                    places.push((stem, form, Place::Meta { field, position }));
                }
            }
        }
        // By stem, then form (as written first), then as the index lists them.
        places.sort_unstable_by_key(|&(stem, form, place)| (stem, form, place.order()));
        let word_count = (words as usize).max(1);
        let fragment = format::Fragment::new(
            &record.url,
            &content,
            word_count,
            &record.filters,
            &record.meta,
        );
        Page {
            hash: format!("{language}_{}", format::sha1_text(&fragment.alone())),
            fragment,
            word_count,
            places,
        }
    }
}

/// The fragment files of `records` and each record's entry in the metadata.
fn fragments(pages: &[Page], language: &str) -> (Vec<(String, Vec<u8>)>, Vec<format::MetaPage>) {
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut short = Vec::with_capacity(pages.len());
    for (number, page) in pages.iter().enumerate() {
        let name = format::short_name(&page.hash, language.len() + 8, 1, |name| {
            names
                .get(name)
                .is_some_and(|&other| pages[other].hash != page.hash)
        });
        names.insert(name.clone(), number);
        short.push(name);
    }
    let count = pages.len();
    let most = fragment_files(count) as usize;
    let mut files = Vec::new();
    let mut meta = Vec::with_capacity(count);
    let word_count = |number: usize| u32::try_from(pages[number].word_count).unwrap_or(u32::MAX);
    if most >= count {
        for (number, name) in short.iter().enumerate() {
            files.push((
                format!("fragment/{name}.pf_fragment"),
                pages[number].fragment.alone(),
            ));
            meta.push(format::MetaPage {
                hash: name.clone(),
                word_count: word_count(number),
                group_hash: String::new(),
            });
        }
        return (files, meta);
    }
    // Pagefind's grouping: as many records to a file as spreads them over `most` files.
    let size = (count as f32 / most as f32).ceil().max(1.0) as usize;
    let prefix = format!("{language}_group_");
    let mut groups: HashSet<String> = HashSet::new();
    for (start, names) in (0..count).step_by(size).zip(short.chunks(size)) {
        let fragments = (names.iter().enumerate())
            .map(|(at, name)| (name.as_str(), &pages[start + at].fragment));
        let json = format::group(fragments);
        let full = format!("{prefix}{}", format::sha1_text(&json));
        let name = format::short_name(&full, prefix.len() + 7, 1, |name| groups.contains(name));
        groups.insert(name.clone());
        for (at, hash) in names.iter().enumerate() {
            meta.push(format::MetaPage {
                hash: hash.clone(),
                word_count: word_count(start + at),
                group_hash: name.clone(),
            });
        }
        files.push((format!("fragment/{name}.pf_fragment"), json));
    }
    (files, meta)
}

/// A stem's places over the bundle: as written, and under each form with diacritics (in
/// the order first met).
#[derive(Default)]
struct Word {
    pages: Vec<PackedPage>,
    variants: Vec<(FormIx, Vec<PackedPage>)>,
}

impl Word {
    /// How much of a chunk it fills, as Pagefind counts.
    fn places(&self) -> usize {
        let pages = self
            .pages
            .iter()
            .chain(self.variants.iter().flat_map(|(_, p)| p));
        pages
            .map(|p| p.locs.len() + p.meta_locs.len() + 1)
            .sum::<usize>()
            + self.variants.len()
    }
}

/// Every stem's places, by stem.
fn words(lexicon: &Vocabulary, pages: &[Page]) -> Vec<Word> {
    let mut words: Vec<Word> = (0..lexicon.stems.len()).map(|_| Word::default()).collect();
    for (number, page) in pages.iter().enumerate() {
        for places in page.places.chunk_by(|a, b| a.0 == b.0) {
            let Some(word) = words.get_mut(places[0].0.get()) else {
                continue;
            };
            let mut forms = places.chunk_by(|a, b| a.1 == b.1).peekable();
            if let Some(plain) = forms.next_if(|places| places[0].1.is_none()) {
                word.pages.push(packed(number, plain));
            }
            if forms.peek().is_none() {
                continue;
            }
            // Forms met in the text first, then those met only in metadata, each by form.
            let forms: Vec<_> = forms.collect();
            let in_text = |places: &[Located]| matches!(places[0].2, Place::Text { .. });
            let text = forms.iter().filter(|places| in_text(places));
            let meta_only = forms.iter().filter(|places| !in_text(places));
            for &places in text.chain(meta_only) {
                let Some(form) = places[0].1 else { continue };
                let page = packed(number, places);
                match word.variants.iter_mut().find(|(f, _)| *f == form) {
                    Some((_, pages)) => pages.push(page),
                    None => word.variants.push((form, vec![page])),
                }
            }
        }
    }
    words
}

/// A token's stem, its form, and where it is.
type Located = (StemIx, Option<FormIx>, Place);

/// A record's page in a word's list, from its places in the order they are listed:
/// text positions in steps from the last, `-(w + 1)` before the first of weight `w` other
/// than the usual; metadata positions field by field, `-(f + 1)` before field `f`'s.
fn packed(number: usize, places: &[Located]) -> PackedPage {
    let mut locs = Vec::new();
    let mut meta_locs = Vec::new();
    let (mut weight, mut field, mut last) = (USUAL_WEIGHT, None, 0u32);
    for &(_, _, place) in places {
        match place {
            Place::Text {
                weight: w,
                position,
            } if w == weight => {
                locs.push(step(position, last));
                last = position;
            }
            Place::Text {
                weight: w,
                position,
            } => {
                locs.push(-i32::from(w) - 1);
                locs.push(i32::try_from(position).unwrap_or(i32::MAX));
                (weight, last) = (w, position);
            }
            Place::Meta { field: f, position } => {
                if field != Some(f) {
                    meta_locs.push(-i32::from(f) - 1);
                    (field, last) = (Some(f), 0);
                }
                meta_locs.push(step(position, last));
                last = position;
            }
        }
    }
    PackedPage {
        page_number: number,
        locs,
        meta_locs,
    }
}

fn step(position: u32, last: u32) -> i32 {
    i32::try_from(position.saturating_sub(last)).unwrap_or(i32::MAX)
}

/// The word chunks: stems in order, a chunk closed once it holds [`CHUNK_PLACES`]; each
/// chunk's range of words (the shortest prefixes that tell it from its neighbours) and
/// file.
fn chunks(
    lexicon: &Vocabulary,
    words: Vec<Word>,
    language: &str,
) -> (Vec<format::MetaChunk>, Vec<(String, Vec<u8>)>) {
    let mut chunks: Vec<Vec<(usize, Word)>> = Vec::new();
    let mut chunk = Vec::new();
    let mut filled = 0;
    for (stem, word) in words.into_iter().enumerate() {
        if word.pages.is_empty() && word.variants.is_empty() {
            continue;
        }
        filled += word.places();
        chunk.push((stem, word));
        if filled >= CHUNK_PLACES {
            chunks.push(std::mem::take(&mut chunk));
            filled = 0;
        }
    }
    if !chunk.is_empty() {
        chunks.push(chunk);
    }
    let stem = |ix: usize| &*lexicon.stems[ix];
    let mut meta: Vec<format::MetaChunk> = chunks
        .iter()
        .map(|chunk| format::MetaChunk {
            from: chunk
                .first()
                .map_or(String::new(), |(s, _)| stem(*s).to_string()),
            to: chunk
                .last()
                .map_or(String::new(), |(s, _)| stem(*s).to_string()),
            hash: String::new(),
        })
        .collect();
    for i in 1..meta.len() {
        let (before, after) = meta.split_at_mut(i);
        let (before, after) = (&mut before[i - 1], &mut after[0]);
        let common = after
            .from
            .chars()
            .zip(before.to.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let to: String = before.to.chars().take(common + 1).collect();
        if to >= before.from {
            before.to = to;
        }
        after.from = after.from.chars().take(common + 1).collect();
    }
    let encoded: Vec<(Vec<u8>, String)> = chunks
        .into_par_iter()
        .map(|chunk| {
            let words = chunk
                .into_iter()
                .map(|(ix, word)| format::PackedWord {
                    word: stem(ix),
                    pages: in_steps(word.pages),
                    additional_variants: word
                        .variants
                        .into_iter()
                        .map(|(form, pages)| format::PackedVariant {
                            form: &lexicon.forms[form.get()],
                            pages: in_steps(pages),
                        })
                        .collect(),
                })
                .collect();
            let bytes = format::WordIndex { words }.cbor();
            let hash = format!("{language}_{}", format::sha1_text(&bytes));
            (bytes, hash)
        })
        .collect();
    let mut files: Vec<(String, Vec<u8>)> = Vec::with_capacity(encoded.len());
    let mut names = HashSet::new();
    for ((bytes, hash), chunk) in encoded.into_iter().zip(&mut meta) {
        let name = format::short_name(&hash, language.len() + 8, 2, |name| names.contains(name));
        names.insert(name.clone());
        chunk.hash = name.clone();
        files.push((format!("index/{name}.pf_index"), bytes));
    }
    (meta, files)
}

/// A word's pages with each page number less the one before.
fn in_steps(mut pages: Vec<PackedPage>) -> Vec<PackedPage> {
    let mut last = 0;
    for page in &mut pages {
        let number = page.page_number;
        page.page_number = number.saturating_sub(last);
        last = number;
    }
    pages
}

/// Each filter's file: its values in order, each with its records.
fn filters<'a>(
    records: &'a [Record],
    language: &str,
) -> (Vec<format::MetaFilter<'a>>, Vec<(String, Vec<u8>)>) {
    let mut by_name: BTreeMap<&str, BTreeMap<&str, Vec<usize>>> = BTreeMap::new();
    for (number, record) in records.iter().enumerate() {
        for (name, values) in &record.filters {
            let by_value = by_name.entry(name).or_default();
            for value in values {
                by_value.entry(value).or_default().push(number);
            }
        }
    }
    let mut meta = Vec::new();
    let mut files = Vec::new();
    let mut names = HashSet::new();
    for (filter, values) in by_name {
        let bytes = format::cbor(format::FilterIndex {
            filter,
            values: values
                .into_iter()
                .map(|(value, pages)| format::PackedValue { value, pages })
                .collect(),
        });
        let hash = format!("{language}_{}", format::sha1_text(&bytes));
        let name = format::short_name(&hash, language.len() + 8, 2, |name| names.contains(name));
        names.insert(name.clone());
        files.push((format!("filter/{name}.pf_filter"), bytes));
        meta.push(format::MetaFilter { filter, hash: name });
    }
    (meta, files)
}

#[cfg(test)]
mod tests;
