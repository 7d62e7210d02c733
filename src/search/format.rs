//! Pagefind's bundle format, as its browser script reads it: the metadata (`pf_meta`), the
//! word chunks (`pf_index`) and filters (`pf_filter`), CBOR arrays; fragments
//! (`pf_fragment`), JSON; each gzipped behind a `pagefind_dcd` mark and named after the SHA-1
//! of its content, as Pagefind names them, so that a bundle written here holds the very
//! bytes Pagefind's own indexer would write for the same records (a test holds the two
//! side by side).

use minicbor::Encode;
use sha1::Digest;

/// The mark in front of every compressed file: Pagefind's script checks for it.
const MARK: &[u8] = b"pagefind_dcd";

/// zlib's level 2: Pagefind's best level took a tenth of a cold build's CPU. At 10,000
/// incidents the index is 8.5 MB at this level, 7.8 at the default and 7.4 at the best (a
/// tenth of a kilobyte an incident).
const LEVEL: u32 = 2;

/// `pagefind.<hash>.pf_meta`: what search loads first.
#[derive(Encode)]
pub(super) struct MetaIndex<'a> {
    #[n(0)]
    pub version: &'a str,
    #[n(1)]
    pub pages: Vec<MetaPage>,
    #[n(2)]
    pub index_chunks: Vec<MetaChunk>,
    #[n(3)]
    pub filters: Vec<MetaFilter<'a>>,
    #[n(4)]
    pub sorts: Vec<MetaSort<'a>>,
    #[n(5)]
    pub meta_fields: Vec<&'a str>,
}

/// A record: its fragment's name, its number of words, and its fragment file's name.
#[derive(Encode)]
pub(super) struct MetaPage {
    #[n(0)]
    pub hash: String,
    #[n(1)]
    pub word_count: u32,
    #[n(2)]
    pub group_hash: String,
}

/// A word chunk: the words from `from` to `to` (shortest distinct prefixes) are in `hash`.
#[derive(Encode)]
pub(super) struct MetaChunk {
    #[n(0)]
    pub from: String,
    #[n(1)]
    pub to: String,
    #[n(2)]
    pub hash: String,
}

/// A filter's file.
#[derive(Encode)]
pub(super) struct MetaFilter<'a> {
    #[n(0)]
    pub filter: &'a str,
    #[n(1)]
    pub hash: String,
}

/// The records in the order of one sort key.
#[derive(Encode)]
pub(super) struct MetaSort<'a> {
    #[n(0)]
    pub sort: &'a str,
    #[n(1)]
    pub pages: Vec<usize>,
}

/// `index/<hash>.pf_index`: words in order, each with where it is. Written by hand (the
/// bulk of an index, and of its time with a derived encoder): `[[word…]]`.
pub(super) struct WordIndex<'a> {
    pub words: Vec<PackedWord<'a>>,
}

/// A stemmed word, the records it is in, as written and under other diacritics:
/// `[word, [page…], [variant…]]`.
pub(super) struct PackedWord<'a> {
    pub word: &'a str,
    pub pages: Vec<PackedPage>,
    pub additional_variants: Vec<PackedVariant<'a>>,
}

/// The word as written with its diacritics (`café` of `cafe`): `[form, [page…]]`.
pub(super) struct PackedVariant<'a> {
    pub form: &'a str,
    pub pages: Vec<PackedPage>,
}

/// A word's places in one record, `locs` in its text, `meta_locs` in its metadata:
/// `[page_number, [loc…], [meta_loc…]]`.
pub(super) struct PackedPage {
    /// The record's number, less the previous page's in the list.
    pub page_number: usize,
    pub locs: Vec<i32>,
    pub meta_locs: Vec<i32>,
}

impl WordIndex<'_> {
    /// Its CBOR bytes, as a derived encoder writes them (definite lengths, shortest
    /// integers).
    pub(super) fn cbor(&self) -> Vec<u8> {
        let mut out = Vec::new();
        head(&mut out, ARRAY, 1);
        head(&mut out, ARRAY, self.words.len() as u64);
        for word in &self.words {
            head(&mut out, ARRAY, 3);
            text(&mut out, word.word);
            pages(&mut out, &word.pages);
            head(&mut out, ARRAY, word.additional_variants.len() as u64);
            for variant in &word.additional_variants {
                head(&mut out, ARRAY, 2);
                text(&mut out, variant.form);
                pages(&mut out, &variant.pages);
            }
        }
        out
    }
}

/// CBOR's major types used here.
const UNSIGNED: u8 = 0;
const NEGATIVE: u8 = 1;
const TEXT: u8 = 3;
const ARRAY: u8 = 4;

/// A CBOR item's head: its major type and a number in the fewest bytes.
fn head(out: &mut Vec<u8>, major: u8, value: u64) {
    let major = major << 5;
    match value {
        0..=23 => out.push(major | value as u8),
        24..=0xff => out.extend_from_slice(&[major | 24, value as u8]),
        0x100..=0xffff => {
            out.push(major | 25);
            out.extend_from_slice(&(value as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(major | 26);
            out.extend_from_slice(&(value as u32).to_be_bytes());
        }
        _ => {
            out.push(major | 27);
            out.extend_from_slice(&value.to_be_bytes());
        }
    }
}

fn text(out: &mut Vec<u8>, text: &str) {
    head(out, TEXT, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

fn ints(out: &mut Vec<u8>, ints: &[i32]) {
    head(out, ARRAY, ints.len() as u64);
    for &int in ints {
        match u64::try_from(int) {
            Ok(positive) => head(out, UNSIGNED, positive),
            // -1 - n is written as n.
            Err(_) => head(out, NEGATIVE, (-1 - i64::from(int)) as u64),
        }
    }
}

fn pages(out: &mut Vec<u8>, pages: &[PackedPage]) {
    head(out, ARRAY, pages.len() as u64);
    for page in pages {
        head(out, ARRAY, 3);
        head(out, UNSIGNED, page.page_number as u64);
        ints(out, &page.locs);
        ints(out, &page.meta_locs);
    }
}

/// `filter/<hash>.pf_filter`: each value of a filter with its records.
#[derive(Encode)]
pub(super) struct FilterIndex<'a> {
    #[n(0)]
    pub filter: &'a str,
    #[n(1)]
    pub values: Vec<PackedValue<'a>>,
}

/// A filter's value and the records that have it.
#[derive(Encode)]
pub(super) struct PackedValue<'a> {
    #[n(0)]
    pub value: &'a str,
    #[n(1)]
    pub pages: Vec<usize>,
}

/// A record's fragment, what a result shows: each field as JSON, made once for the two
/// orders Pagefind writes its fields in.
pub(super) struct Fragment {
    url: String,
    content: String,
    word_count: usize,
    filters: String,
    meta: String,
}

impl Fragment {
    pub(super) fn new(
        url: &str,
        content: &str,
        word_count: usize,
        filters: &std::collections::BTreeMap<String, Vec<String>>,
        meta: &std::collections::BTreeMap<String, String>,
    ) -> Fragment {
        Fragment {
            url: json(url),
            content: json(content),
            word_count,
            filters: json(filters),
            meta: json(meta),
        }
    }

    /// As a file of its own, and as hashed for its name: Pagefind's field order.
    pub(super) fn alone(&self) -> Vec<u8> {
        let Fragment { url, content, .. } = self;
        let (count, filters, meta) = (self.word_count, &self.filters, &self.meta);
        format!(
            r#"{{"url":{url},"content":{content},"word_count":{count},"filters":{filters},"meta":{meta},"anchors":[]}}"#
        )
        .into_bytes()
    }

    /// Inside a group file, whose fragments Pagefind reads back as JSON values: fields in
    /// the order of their names.
    fn grouped(&self, out: &mut String) {
        let Fragment { url, content, .. } = self;
        let (count, filters, meta) = (self.word_count, &self.filters, &self.meta);
        out.push_str(&format!(
            r#"{{"anchors":[],"content":{content},"filters":{filters},"meta":{meta},"url":{url},"word_count":{count}}}"#
        ));
    }
}

/// What a fragment file says of a record, read back.
#[derive(serde::Deserialize)]
pub(super) struct Said {
    pub url: String,
    pub content: String,
}

/// A fragment file read back: one record's fragment, or a group of them by name.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum FragmentFile {
    Alone(Said),
    Group(std::collections::BTreeMap<String, Said>),
}

/// The records a fragment file holds (as [`decompressed`] gives it), each with its URL and
/// text; none if it is not a fragment file.
pub(super) fn said(plain: &[u8]) -> Vec<Said> {
    match serde_json::from_slice(plain) {
        Ok(FragmentFile::Alone(said)) => vec![said],
        Ok(FragmentFile::Group(group)) => group.into_values().collect(),
        Err(_) => Vec::new(),
    }
}

/// A group file: each fragment under its name, names in order.
pub(super) fn group<'a>(fragments: impl Iterator<Item = (&'a str, &'a Fragment)>) -> Vec<u8> {
    let mut fragments: Vec<_> = fragments.collect();
    fragments.sort_by_key(|&(name, _)| name);
    let mut out = String::from("{");
    for (at, (name, fragment)) in fragments.into_iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        out.push_str(&json(name));
        out.push(':');
        fragment.grouped(&mut out);
    }
    out.push('}');
    out.into_bytes()
}

/// `pagefind-entry.json`: the bundle's version and its language's metadata.
#[derive(serde::Serialize)]
pub(super) struct Entry<'a> {
    pub version: &'a str,
    pub languages: std::collections::BTreeMap<&'a str, EntryLanguage<'a>>,
    pub include_characters: &'a [String],
}

/// A language of the bundle: its metadata's name, its WebAssembly (stemming), its records.
#[derive(serde::Serialize)]
pub(super) struct EntryLanguage<'a> {
    pub hash: &'a str,
    pub wasm: Option<&'a str>,
    pub page_count: usize,
}

/// CBOR bytes of `value`.
pub(super) fn cbor(value: impl Encode<()>) -> Vec<u8> {
    let mut bytes = Vec::new();
    // Writing to a vector cannot fail.
    let _ = minicbor::encode(value, &mut bytes);
    bytes
}

/// `value` as compact JSON.
pub(super) fn json(value: &(impl serde::Serialize + ?Sized)) -> String {
    // Strings, numbers, lists and maps of strings: they always serialize.
    serde_json::to_string(value).unwrap_or_default()
}

/// SHA-1 of `bytes` as Pagefind writes it: each byte in lowercase hex without its leading
/// zero (`0a` is `a`), so 20 to 40 characters.
pub(super) fn sha1_text(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(40);
    for byte in sha1::Sha1::digest(bytes) {
        let _ = write!(text, "{byte:x}");
    }
    text
}

/// A file's name: the shortest start of `full` of `length` characters or more, grown by
/// `step` while `taken` has it (two files' hashes that start alike), as Pagefind names
/// them; the whole of `full` if it comes to that.
pub(super) fn short_name(
    full: &str,
    length: usize,
    step: usize,
    taken: impl Fn(&str) -> bool,
) -> String {
    let mut length = length.min(full.len());
    while taken(&full[..length]) && length < full.len() {
        length = (length + step).min(full.len());
    }
    full[..length].to_string()
}

/// `bytes` behind the mark, gzipped (no time or name in the header: same bytes, same file).
pub(super) fn compressed(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gzip = flate2::GzBuilder::new().mtime(0).write(
        Vec::with_capacity(bytes.len() / 3),
        flate2::Compression::new(LEVEL),
    );
    let written = gzip.write_all(MARK).and_then(|()| gzip.write_all(bytes));
    written
        .and_then(|()| gzip.finish())
        .expect("writing to memory cannot fail")
}

/// The most a file read back is let grow to once decompressed: far above any file a bundle
/// holds, far below what a forged one could claim.
const PLAIN_MAX: u64 = 256 << 20;

/// What `compressed` made, as it was: `None` if it is not a compressed file of a bundle
/// (or would decompress past [`PLAIN_MAX`]).
pub(super) fn decompressed(bytes: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .take(PLAIN_MAX + 1)
        .read_to_end(&mut plain)
        .ok()?;
    if plain.len() as u64 > PLAIN_MAX {
        return None;
    }
    plain.strip_prefix(MARK).map(<[u8]>::to_vec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_as_a_cbor_encoder_writes_them() {
        let ints = [
            0,
            1,
            23,
            24,
            255,
            256,
            65_535,
            65_536,
            i32::MAX,
            -1,
            -24,
            -25,
            -256,
            -257,
            i32::MIN,
        ];
        let mut ours = Vec::new();
        super::ints(&mut ours, &ints);
        assert_eq!(ours, cbor(ints.to_vec()));
        for value in [
            0u64,
            23,
            24,
            255,
            256,
            65_535,
            65_536,
            u64::from(u32::MAX),
            u64::from(u32::MAX) + 1,
        ] {
            let mut ours = Vec::new();
            head(&mut ours, UNSIGNED, value);
            assert_eq!(ours, cbor(value), "{value}");
        }
        let mut ours = Vec::new();
        text(&mut ours, "café");
        assert_eq!(ours, cbor("café"));
    }
}
