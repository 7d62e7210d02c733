//! The bundle against Pagefind's own indexer, byte for byte before compression, over
//! chosen and random records.

use super::*;
use proptest::prelude::*;

fn record(number: usize, content: &str, title: &str, components: &[&str]) -> Record {
    Record {
        url: format!("/acme/incident-{number}/"),
        content: content.to_string(),
        meta: BTreeMap::from([
            ("title".to_string(), title.to_string()),
            ("provider".to_string(), "Acme Cloud".to_string()),
        ]),
        filters: BTreeMap::from([
            ("provider".to_string(), vec!["Acme Cloud".to_string()]),
            (
                "component".to_string(),
                components.iter().map(|c| c.to_string()).collect(),
            ),
        ]),
        sort: BTreeMap::from([(
            "start".to_string(),
            format!("2024-03-{:02}T10:00:00Z", 28 - number % 28),
        )]),
    }
}

/// Every file of a bundle's records, as its bytes before compression.
fn plain(files: Vec<(String, Vec<u8>)>) -> BTreeMap<String, Vec<u8>> {
    files
        .into_iter()
        .filter(|(name, _)| {
            !is_runtime(name) && !name.starts_with("pagefind-") || name == "pagefind-entry.json"
        })
        .map(|(name, bytes)| {
            let bytes = format::decompressed(&bytes).unwrap_or(bytes);
            (name, bytes)
        })
        .collect()
}

/// The bundle written here and Pagefind's own, file by file, before compression.
fn assert_as_pagefind_writes(records: Vec<Record>, lexicon: &Lexicon) {
    let files = fragment_files(records.len());
    let theirs = super::super::lexicon::pagefind_bundle(records.clone(), "en", files).unwrap();
    let ours = bundle(records, lexicon).unwrap().records;
    let (ours, theirs) = (plain(ours), plain(theirs));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "the same files"
    );
    for (name, bytes) in &ours {
        assert!(
            bytes == &theirs[name],
            "{name} differs:\nours   {:?}\ntheirs {:?}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&theirs[name])
        );
    }
}

#[test]
fn a_bundle_holds_the_bytes_pagefind_writes_for_the_same_records() {
    let records = vec![
        record(
            0,
            "The API gateway returned errors in us-east-1.",
            "API errors",
            &["API"],
        ),
        record(
            1,
            "ThreeAntelopes three-antelopes sysconfig.is_python_build café crème AT&T 99.9% IPv6 \u{200B} zero\u{200B}width 🚀 launch",
            "Café outage: Crème brûlée",
            &["Edge (AMS)", "Edge (AMS)"],
        ),
        record(2, "- ok", "", &[]),
        record(
            3,
            "Straße İstanbul ÅNGSTRÖM naïve résumé-ready e.g. U.S. a.b.c.d",
            "Naïve title",
            &["API"],
        ),
    ];
    // The words of one bundle are known to the next: the same bytes still.
    let lexicon = Lexicon::new("en");
    assert_as_pagefind_writes(records.clone(), &lexicon);
    // One record to a bundle: its fragment in a file of its own, not a group.
    assert_as_pagefind_writes(records[1..2].to_vec(), &lexicon);
    // Many: grouped fragments, several word chunks.
    let many = (0..40)
        .map(|n| {
            let words: String = (0..600)
                .map(|w| format!("word{} ", (w * 7 + n) % 997))
                .collect();
            record(n, &words, &format!("Incident {n}"), &["API"])
        })
        .collect();
    assert_as_pagefind_writes(many, &lexicon);
    assert_as_pagefind_writes(records, &Lexicon::new("en"));
}

/// Pieces of words that Pagefind splits, folds or stems in ways of their own.
const PIECES: [&str; 24] = [
    "api",
    "API",
    "Gateway",
    "-",
    "_",
    ".",
    "é",
    "e\u{301}",
    "ß",
    "İ",
    "ǅ",
    "🚀",
    "9",
    "%",
    "&",
    "'",
    "ing",
    "ed",
    "ΣΑΣ",
    "ー",
    "カタカナ",
    "\u{200B}",
    "https://a.b/c?d=e",
    "Ⅷ",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::collection::vec(prop::sample::select(&PIECES[..]), 1..4),
            any::<bool>(),
        ),
        0..12,
    )
    .prop_map(|words| {
        words
            .into_iter()
            .map(|(pieces, newline)| pieces.concat() + if newline { "\n" } else { " " })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn any_words_are_indexed_as_pagefind_indexes_them(
        texts in prop::collection::vec((text(), text()), 1..12),
    ) {
        // Pagefind leaves out a record without a word in its text; here it is kept
        // (`a_record_without_text_is_found_by_its_title`).
        let records = texts
            .iter()
            .enumerate()
            .map(|(n, (content, title))| record(n, &format!("{content} outage"), title, &["API"]))
            .collect();
        // Shared by the cases: each meets words known from the last.
        static KNOWN: std::sync::LazyLock<Lexicon> = std::sync::LazyLock::new(|| Lexicon::new("en"));
        assert_as_pagefind_writes(records, &KNOWN);
    }
}

#[test]
fn a_record_without_text_is_found_by_its_title() {
    let records = vec![
        record(0, "", "Quiet outage", &["API"]),
        record(1, "Loud", "Loud outage", &["API"]),
    ];
    let known = Lexicon::new("en");
    let (text, meta) = distinct_words(&records);
    let lexicon = known.vocabulary(&text, &meta).unwrap();
    let pages: Vec<Page> = records
        .iter()
        .map(|r| Page::of(r, &lexicon, &["provider", "title"], "en"))
        .collect();
    let fragment: serde_json::Value = serde_json::from_slice(&pages[0].fragment.alone()).unwrap();
    assert_eq!(
        (
            fragment["word_count"].as_u64(),
            fragment["content"].as_str()
        ),
        (Some(1), Some(""))
    );
    let quiet = lexicon.stems.iter().position(|s| &**s == "quiet").unwrap();
    let words = words(&lexicon, &pages);
    let listed: Vec<usize> = words[quiet].pages.iter().map(|p| p.page_number).collect();
    assert_eq!(listed, [0]);
    assert_eq!(
        words[quiet].pages[0].meta_locs,
        [-2, 0],
        "the title's first word"
    );
    let files = bundle(records, &known).unwrap().records;
    let entry = files
        .iter()
        .find(|(name, _)| name == "pagefind-entry.json")
        .unwrap();
    let entry: serde_json::Value = serde_json::from_slice(&entry.1).unwrap();
    assert_eq!(entry["languages"]["en"]["page_count"], 2);
}

#[test]
fn pagefind_marks_in_the_text_of_a_record_are_words() {
    let records = vec![record(
        0,
        "___PAGEFIND_WEIGHT___9 heavy ___END_PAGEFIND_WEIGHT___ light",
        "a ___PAGEFIND_x title",
        &["API"],
    )];
    let known = Lexicon::new("en");
    let (text, meta) = distinct_words(&records);
    let lexicon = known.vocabulary(&text, &meta).unwrap();
    let page = Page::of(&records[0], &lexicon, &["provider", "title"], "en");
    assert_eq!(page.word_count, 4, "the marks are counted as words");
    assert!(
        page.places
            .iter()
            .all(|(_, _, place)| !matches!(place, Place::Text { weight, .. } if *weight > 24)),
        "no word weighs more than the text's own"
    );
    let mut title = records[0].meta["title"].clone();
    untagged(&mut title);
    assert_eq!(
        title, "a title",
        "Pagefind's marks leave the metadata as they leave it"
    );
}
