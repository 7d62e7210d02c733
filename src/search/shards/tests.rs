use super::*;

fn record(url: &str, start: &str) -> Record {
    Record {
        url: url.to_string(),
        content: format!("words of {url}"),
        meta: BTreeMap::from([("title".to_string(), url.to_string())]),
        filters: BTreeMap::from([("year".to_string(), vec![start[..4].to_string()])]),
        sort: BTreeMap::from([("start".to_string(), start.to_string())]),
    }
}

fn names(shards: &[Shard<Record>]) -> Vec<(&str, usize)> {
    shards
        .iter()
        .map(|shard| (shard.key.0.as_str(), shard.members.len()))
        .collect()
}

/// Records in shards by the year of their start, in time order.
fn split_records(records: Vec<Record>) -> Vec<Shard<Record>> {
    split(
        records,
        |record| record.sort["start"][..4].parse().unwrap(),
        |a, b| (&a.sort, &a.url).cmp(&(&b.sort, &b.url)),
    )
}

#[test]
fn shards_are_years_newest_first_and_a_big_year_is_cut_in_time_order() {
    let mut records = vec![
        record("/b/", "2023-05-01T00:00:00Z"),
        record("/a/", "2024-01-01T00:00:00Z"),
        record("/c/", "2023-01-01T00:00:00Z"),
    ];
    let shards = split_records(records.clone());
    assert_eq!(names(&shards), [("2024", 1), ("2023", 2)]);
    let urls: Vec<&str> = shards[1].members.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls, ["/c/", "/b/"], "in time order inside");

    // A year of more than a shard holds: blocks from January, the last one partial, so
    // that what the year gains at its end changes its last block only.
    for day in 0..(2 * SHARD_RECORDS + 1) {
        let start = format!("2025-01-01T00:00:{:02}Z", day % 60);
        records.push(record(&format!("/y/{day:06}/"), &start));
    }
    let shards = split_records(records);
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

/// A record stands for itself: it is made of all its fields.
impl Member for Record {
    fn record(&self) -> Record {
        self.clone()
    }

    fn filters(&self) -> Filters {
        self.filters.clone()
    }

    fn identify(&self, out: &mut Vec<u8>) {
        field(out, &self.url);
        field(out, &self.content);
    }
}

/// A record that counts how often it is made.
struct Counted<'a> {
    record: Record,
    made: &'a std::sync::atomic::AtomicUsize,
}

impl Member for Counted<'_> {
    fn record(&self) -> Record {
        self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.record.clone()
    }

    fn filters(&self) -> Filters {
        self.record.filters.clone()
    }

    fn identify(&self, out: &mut Vec<u8>) {
        self.record.identify(out);
    }
}

#[test]
fn the_words_of_a_shard_taken_again_are_read_back_not_gathered_from_its_records() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let lexicon = Lexicon::new("en");
    let made = AtomicUsize::new(0);
    // The whole index of `records` built on the `last` one's files.
    let index = |records: &[Record], last: &BTreeMap<String, Vec<u8>>| {
        let members = (records.iter())
            .map(|record| Counted {
                record: record.clone(),
                made: &made,
            })
            .collect();
        let shards = split(
            members,
            |member: &Counted| member.record.sort["start"][..4].parse().unwrap(),
            |a, b| a.record.url.cmp(&b.record.url),
        );
        let read = |path: &str| last.get(path).cloned();
        let state = last.get(routes::SEARCH_INDEX_STATE);
        let state = state.and_then(|bytes| State::parse(bytes));
        let built = build(shards, |_| None, &lexicon, state.as_ref(), &read).unwrap();
        let files = files(built, &lexicon, state.as_ref(), &read).unwrap();
        files.into_iter().collect::<BTreeMap<_, _>>()
    };
    let old = record("/old/", "2023-01-01T00:00:00Z");
    let new = record("/new/", "2024-01-01T00:00:00Z");
    let first = index(&[old.clone(), new.clone()], &BTreeMap::new());
    let mut edited = new.clone();
    edited.content.push_str(" quokkaville");
    let fresh = index(&[old.clone(), edited.clone()], &BTreeMap::new());

    made.store(0, Ordering::Relaxed);
    let again = index(&[old.clone(), edited.clone()], &first);
    assert_eq!(made.load(Ordering::Relaxed), 1, "only the edited record");
    assert_eq!(again, fresh, "the same bytes as an index made anew");

    // The words bundle's text changed since, the state file made to vouch for its files:
    // words that are not the shard's by their hash are not taken, but gathered.
    let mut tampered = first.clone();
    let mut state = String::from_utf8(first[routes::SEARCH_INDEX_STATE].clone()).unwrap();
    for (path, bytes) in &mut tampered {
        if path.starts_with(routes::SEARCH_WORDS_DIR) && path.ends_with(".pf_fragment") {
            let plain = format::decompressed(bytes).unwrap();
            let text = String::from_utf8(plain).unwrap();
            assert!(text.contains("old words"), "{text}");
            let forged = format::compressed(text.replace("old words", "odd words").as_bytes());
            let hash = |bytes: &[u8]| blake3::hash(bytes).to_hex().to_string();
            state = state.replace(&hash(bytes), &hash(&forged));
            *bytes = forged;
        }
    }
    tampered.insert(routes::SEARCH_INDEX_STATE.to_string(), state.into_bytes());
    made.store(0, Ordering::Relaxed);
    assert_eq!(index(&[old, edited], &tampered), fresh);
    assert_eq!(made.load(Ordering::Relaxed), 2, "both records");
}

#[test]
fn the_fingerprint_follows_the_members_their_order_and_the_language() {
    let a = record("/a/", "2024-01-01T00:00:00Z");
    let b = record("/b/", "2024-01-02T00:00:00Z");
    let base = fingerprint(&[a.clone(), b.clone()], "en");
    assert_eq!(base, fingerprint(&[a.clone(), b.clone()], "en"));
    assert_ne!(base, fingerprint(&[a.clone(), b.clone()], "de"));
    assert_ne!(base, fingerprint(&[b.clone(), a.clone()], "en"));
    assert_ne!(base, fingerprint(std::slice::from_ref(&a), "en"));
    // Two texts that run together the same way are still two members.
    let mut joined = a.clone();
    joined.content.push_str("/b/");
    let mut short = b.clone();
    short.url.clear();
    assert_ne!(base, fingerprint(&[joined, short], "en"));
}

#[test]
fn the_words_of_a_shard_are_each_word_once_from_every_field_as_pagefind_reads_it() {
    let mut one = record("/a/", "2024-01-01T00:00:00Z");
    one.content = "DNS failures, DNS again".to_string();
    one.filters
        .insert("component".into(), vec!["Edge (AMS)".into()]);
    assert_eq!(words(&[one]), "2024 a again ams dns edge failures ");
}
