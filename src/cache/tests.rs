//! The cache under every way it can go wrong: damaged, truncated, of another program or
//! folder, killed while written, racy stamps.

use super::*;

#[test]
fn files_left_aside_by_a_process_that_is_gone_are_cleared_and_no_others() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    let running = std::os::unix::process::parent_id();
    let names = [
        format!("{FILE}.{gone}.tmp"),
        format!("{FILE}.{running}.tmp"),
        format!("{FILE}.tmp"),
        format!("{FILE}.{gone}x.tmp"),
        "notes.tmp".to_string(),
    ];
    for name in &names {
        fs::write(dir.path().join(name), "x").unwrap();
    }
    write_aside(dir.path(), "state", |path| fs::write(path, "new")).unwrap();
    let mut left: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let mut expected: Vec<String> = names[1..].to_vec();
    expected.extend(["CACHEDIR.TAG".to_string(), "state".to_string()]);
    expected.sort();
    assert_eq!(left, expected);
}

fn stamp(mtime: i64) -> Stamp {
    Stamp {
        size: 10,
        inode: 7,
        mtime: (mtime, 0),
        ctime: (mtime, 0),
    }
}

fn seen(mtime: i64) -> Seen {
    Seen {
        path: PathBuf::from("content/a/b.md"),
        stamp: stamp(mtime),
        hash: [1; 32],
    }
}

#[test]
fn times_are_trusted_only_when_equal_and_older_than_the_scan_by_a_margin() {
    let scanned = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    assert!(unchanged(&seen(999_000), &stamp(999_000), Some(scanned)));
    // Written in the moment of the scan: a later write could keep the same times.
    assert!(!unchanged(&seen(999_999), &stamp(999_999), Some(scanned)));
    assert!(!unchanged(&seen(999_000), &stamp(999_001), Some(scanned)));
    let moved = Stamp {
        inode: 8,
        ..stamp(999_000)
    };
    assert!(!unchanged(&seen(999_000), &moved, Some(scanned)));
    assert!(!unchanged(&seen(999_000), &stamp(999_000), None));
    // Dated before 1970, or at the end of time: no overflow, and no trust for the latter.
    assert!(unchanged(&seen(-5), &stamp(-5), Some(scanned)));
    assert!(!unchanged(&seen(i64::MAX), &stamp(i64::MAX), Some(scanned)));
}

#[test]
fn an_output_file_is_trusted_only_with_its_whole_stamp_and_written_well_before_the_look() {
    let looked = SystemTime::UNIX_EPOCH + Duration::new(1_000_000, 500);
    let lefts = Lefts::new(looked, Vec::new());
    let left = Left {
        stamp: stamp(999_000),
        hash: [1; 32],
    };
    assert!(lefts.trusted(&left, &stamp(999_000)));
    // Any field of the stamp, to the nanosecond: another file, or another write.
    let others = [
        Stamp {
            inode: 8,
            ..stamp(999_000)
        },
        Stamp {
            mtime: (999_000, 1),
            ..stamp(999_000)
        },
        Stamp {
            ctime: (999_000, 1),
            ..stamp(999_000)
        },
        Stamp {
            size: 11,
            ..stamp(999_000)
        },
    ];
    for other in others {
        assert!(!lefts.trusted(&left, &other), "{other:?}");
    }
    // Changed (its ctime says so, whatever its mtime) in the moments before the look:
    // a write in the same tick could leave this stamp.
    let racy = Stamp {
        ctime: (999_999, 0),
        ..stamp(999_000)
    };
    let left = Left {
        stamp: racy,
        ..left
    };
    assert!(!lefts.trusted(&left, &racy));
    let later = looked + Duration::from_secs(10);
    assert!(!racy.settled(looked) && racy.settled(later));
    assert!(Lefts::new(later, Vec::new()).trusted(&left, &racy));
    // Dated at the end of time: no overflow, and no trust.
    let end = stamp(i64::MAX);
    let left = Left { stamp: end, ..left };
    assert!(!lefts.trusted(&left, &end));
}

fn provider(slug: &str) -> Loaded {
    Loaded::Provider(
        crate::model::Slug::parse(slug).unwrap(),
        crate::model::ProviderInfo::default(),
    )
}

fn slug_of(loaded: &Loaded) -> &str {
    match loaded {
        Loaded::Provider(slug, _) => slug.as_str(),
        Loaded::Incident(_) => "an incident",
    }
}

fn index(paths: &[&str]) -> Index {
    let content = paths
        .iter()
        .map(|path| Seen {
            path: PathBuf::from(path),
            ..seen(2)
        })
        .collect();
    Index::new(
        SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 5),
        vec![seen(1)],
        content,
        None,
    )
}

#[test]
fn a_cache_reads_back_as_written_and_not_at_all_when_damaged_or_another_s() {
    let dir = tempfile::tempdir().unwrap();
    let key = [3; 32];
    let (acme, beta) = (provider("acme"), provider("beta"));
    let written = index(&["content/a/_index.md", "content/b/_index.md"]);
    write(
        dir.path(),
        &key,
        &mut written.clone(),
        Bodies::encoded(vec![&acme, &beta]),
    )
    .unwrap();
    let back = read(dir.path(), &key);
    assert_eq!(back.index.scanned(), written.scanned());
    assert_eq!(back.index.content.len(), 2);
    let loaded = back.loaded().unwrap();
    assert_eq!(
        loaded.iter().map(slug_of).collect::<Vec<_>>(),
        ["acme", "beta"]
    );
    assert!(
        read(dir.path(), &[4; 32]).index.scanned().is_none(),
        "another key"
    );
    let file = dir.path().join(FILE);
    let bytes = fs::read(&file).unwrap();
    for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
        fs::write(&file, &bytes[..cut]).unwrap();
        assert!(
            read(dir.path(), &key).index.scanned().is_none(),
            "cut at {cut}"
        );
    }
    // A byte of the index changed: nothing is read.
    let mut flipped = bytes.clone();
    let last = flipped.len() - 50;
    flipped[last] ^= 1;
    fs::write(&file, &flipped).unwrap();
    assert!(
        read(dir.path(), &key).index.scanned().is_none(),
        "a byte changed"
    );
    // A byte of what the files gave changed: the index is read (a build with nothing
    // to do needs no more), what the files gave is not trusted.
    let mut flipped = bytes.clone();
    flipped[PREAMBLE + 12] ^= 1;
    fs::write(&file, &flipped).unwrap();
    let back = read(dir.path(), &key);
    assert_eq!(back.index.content.len(), 2);
    assert!(back.loaded().is_none());
}

#[test]
fn a_cache_written_again_with_new_times_keeps_what_the_files_gave_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let key = [3; 32];
    let (acme, beta) = (provider("acme"), provider("beta"));
    let paths = ["content/a/_index.md", "content/b/_index.md"];
    write(
        dir.path(),
        &key,
        &mut index(&paths),
        Bodies::encoded(vec![&acme, &beta]),
    )
    .unwrap();
    let old = read(dir.path(), &key);
    let mut again = index(&paths);
    again.content[1].stamp = stamp(3);
    write(dir.path(), &key, &mut again, Bodies::same(&old)).unwrap();
    let back = read(dir.path(), &key);
    assert_eq!(back.index.content[1].stamp, stamp(3));
    let loaded = back.loaded().unwrap();
    assert_eq!(
        loaded.iter().map(slug_of).collect::<Vec<_>>(),
        ["acme", "beta"]
    );
    // What it copies is checked as it is copied: a damaged cache is not given a new
    // checksum, and the one in place stays.
    let file = dir.path().join(FILE);
    let mut bytes = fs::read(&file).unwrap();
    bytes[PREAMBLE + 12] ^= 1;
    fs::write(&file, &bytes).unwrap();
    let damaged = read(dir.path(), &key);
    assert!(write(dir.path(), &key, &mut index(&paths), Bodies::same(&damaged)).is_err());
    assert_eq!(fs::read(&file).unwrap(), bytes);
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no file left aside: {names:?}");
}

#[test]
fn a_cache_written_after_an_edit_copies_what_did_not_change_and_encodes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let key = [3; 32];
    let [a, b, c, d] = ["acme", "beta", "corp", "delta"].map(provider);
    let paths = [
        "content/a/_index.md",
        "content/b/_index.md",
        "content/c/_index.md",
    ];
    write(
        dir.path(),
        &key,
        &mut index(&paths),
        Bodies::encoded(vec![&a, &b, &c]),
    )
    .unwrap();
    let old = read(dir.path(), &key);
    // `a` copied, `b` gone (skipped over), `c` edited, `d` new.
    let now = [
        "content/a/_index.md",
        "content/c/_index.md",
        "content/d/_index.md",
    ];
    let bodies = Bodies {
        earlier: Some(&old),
        each: vec![None, Some(&c), Some(&d)],
    };
    write(dir.path(), &key, &mut index(&now), bodies).unwrap();
    let back = read(dir.path(), &key).loaded().unwrap();
    assert_eq!(
        back.iter().map(slug_of).collect::<Vec<_>>(),
        ["acme", "corp", "delta"]
    );
    // A file to copy that the earlier cache does not hold is refused as damage.
    let old = read(dir.path(), &key);
    let bodies = Bodies {
        earlier: Some(&old),
        each: vec![None, Some(&c), None],
    };
    let missing = [
        "content/a/_index.md",
        "content/c/_index.md",
        "content/e/_index.md",
    ];
    let error = write(dir.path(), &key, &mut index(&missing), bodies).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
}

#[test]
fn thousands_of_files_read_back_and_copy_across_batches_and_other_bytes_are_not_copied() {
    let dir = tempfile::tempdir().unwrap();
    let key = [3; 32];
    let slugs: Vec<String> = (0..2500).map(|i| format!("p{i:04}")).collect();
    let loaded: Vec<Loaded> = slugs.iter().map(|s| provider(s)).collect();
    let paths: Vec<String> = slugs
        .iter()
        .map(|s| format!("content/{s}/_index.md"))
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    write(
        dir.path(),
        &key,
        &mut index(&paths),
        Bodies::encoded(loaded.iter().collect()),
    )
    .unwrap();
    let old = read(dir.path(), &key);
    assert_eq!(
        old.loaded()
            .unwrap()
            .iter()
            .map(slug_of)
            .collect::<Vec<_>>(),
        slugs
    );
    // Every file copied but one in each batch, encoded anew as another slug.
    let other = provider("other");
    let each = (0..2500)
        .map(|i| (i % 1024 == 7).then_some(&other))
        .collect();
    let bodies = Bodies {
        earlier: Some(&old),
        each,
    };
    write(dir.path(), &key, &mut index(&paths), bodies).unwrap();
    let back = read(dir.path(), &key).loaded().unwrap();
    for (i, loaded) in back.iter().enumerate() {
        let expected = if i % 1024 == 7 {
            "other"
        } else {
            slugs[i].as_str()
        };
        assert_eq!(slug_of(loaded), expected, "file {i}");
    }
    // A file to copy whose bytes are not those the earlier cache stored for it.
    let old = read(dir.path(), &key);
    let mut changed = index(&paths);
    changed.content[3].hash = [9; 32];
    let error = write(dir.path(), &key, &mut changed, Bodies::same(&old)).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
}

proptest::proptest! {
    /// A cache made by hand, of any parsed forms under a right checksum: reading it
    /// never panics, and gives every file's form or none.
    #[test]
    fn any_stored_bytes_under_a_right_checksum_read_back_whole_or_not_at_all(
        entries in proptest::collection::vec(proptest::collection::vec(0u8..8, 0..24), 0..6)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let key = [3; 32];
        let mut stored = Vec::new();
        for entry in &entries {
            stored.extend_from_slice(&(entry.len() as u64).to_le_bytes());
            stored.extend_from_slice(entry);
        }
        let names: Vec<String> = (0..entries.len()).map(|i| format!("content/p{i}/_index.md")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut index = index(&names);
        index.stored = (stored.len() as u64, *blake3::hash(&stored).as_bytes());
        let bytes = sealed(&key, &stored, &encode(&index).unwrap());
        fs::write(dir.path().join(FILE), bytes).unwrap();
        let back = read(dir.path(), &key);
        proptest::prop_assert_eq!(back.index.content.len(), entries.len());
        if let Some(loaded) = back.loaded() {
            proptest::prop_assert_eq!(loaded.len(), entries.len());
        }
    }
}

#[test]
fn what_is_read_back_is_checked_as_the_parser_checks_it() {
    // A slug that is not one, in a cache whose checksum is right (made by hand).
    let forged =
        postcard::to_allocvec(&("Not A Slug", crate::model::ProviderInfo::default())).unwrap();
    let as_loaded: Result<(crate::model::Slug, crate::model::ProviderInfo), _> =
        postcard::from_bytes(&forged);
    assert!(as_loaded.is_err());
    let url = postcard::to_allocvec(&"javascript:alert(1)").unwrap();
    assert!(postcard::from_bytes::<crate::model::WebUrl>(&url).is_err());
}
