//! The output folder under every way a build can go: kept files, swaps, leftovers, paths
//! that would leave it, and builds cut short.

use super::*;
use std::path::Component;

#[test]
fn only_our_own_staging_folders_are_ours() {
    assert!(is_staging(".public.staging-1234", ".public.staging"));
    assert!(is_staging(".public.staging", ".public.staging"));
    for yours in [
        ".public.staging-backup",
        ".public.staging-",
        ".public.stagingx",
        ".public.staging-12a",
    ] {
        assert!(!is_staging(yours, ".public.staging"), "{yours}");
    }
}

proptest::proptest! {
    #[test]
    fn a_site_path_is_inside_as_its_components_say(
        path in "[./a\\\\\n]{0,8}"
    ) {
        let components = !path.is_empty()
            && !path.contains(['\\', '\n', '\r'])
            && Path::new(&path)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        proptest::prop_assert_eq!(site_relative(&path).is_some(), components);
    }

    #[test]
    fn a_site_path_is_spelled_plainly_as_its_components_read(path in "[./ab]{1,10}") {
        if let Some(relative) = site_relative(&path) {
            let components: PathBuf = relative.components().collect();
            let plain = plain_spelling(&path);
            proptest::prop_assert_eq!(Some(plain.as_ref()), components.to_str());
        }
    }

    #[test]
    fn the_folders_of_paths_are_each_listed_once(
        mut paths in proptest::collection::vec("[ab/.-]{1,7}", 0..12),
        sort: bool,
    ) {
        if sort {
            paths.sort();
        }
        let mut found = folders_of(paths.iter().map(String::as_str));
        found.sort_unstable();
        let mut expected: Vec<&str> = paths
            .iter()
            .flat_map(|p| p.match_indices('/').map(move |(at, _)| &p[..at]))
            .collect();
        expected.sort_unstable();
        expected.dedup();
        proptest::prop_assert_eq!(found, expected);
    }
}

#[test]
fn paths_never_leave_the_output_folder() {
    assert_eq!(
        site_relative("a/b/index.html"),
        Some(Path::new("a/b/index.html"))
    );
    for bad in [
        "../x",
        "a/../../x",
        "/etc/passwd",
        "",
        "a\\..\\x",
        "./a",
        "a\nb",
    ] {
        assert_eq!(site_relative(bad), None, "{bad:?}");
    }
}

#[test]
fn the_manifest_is_sorted_and_read_back_never_leaves_the_folder() {
    let text = manifest_text(["b/index.html", "a.txt", "a/x.json"]);
    assert_eq!(text, "a.txt\na/x.json\nb/index.html\n");
    let read = PathSet::from_manifest(text.as_bytes());
    assert_eq!(read.files.len(), 3);
    assert!(read.dirs.contains(Path::new("a")) && read.dirs.contains(Path::new("b")));
    let hostile = PathSet::from_manifest(b"../../etc/passwd\n/abs\n.outages-manifest\nok\r\n");
    assert_eq!(
        hostile.files,
        HashSet::from_iter([PathBuf::from("ok")]),
        "only safe lines count"
    );
}

fn fate_of(path: &str, is_dir: bool) -> Fate {
    let new = PathSet::new(["index.html", "acme/a/index.html", "notes"].map(Path::new));
    let before = PathSet::new(["index.html", "acme/b/index.html", "old.css"].map(Path::new));
    fate(Path::new(path), is_dir, &new, &before)
}

#[test]
fn only_what_an_earlier_build_wrote_is_removed() {
    assert_eq!(fate_of("old.css", false), Fate::Removed);
    assert_eq!(fate_of("acme/b/index.html", false), Fate::Removed);
    assert_eq!(
        fate_of("acme/b", true),
        Fate::Ours,
        "made again only if needed"
    );
    assert_eq!(fate_of("index.html", false), Fate::Ours);
    assert_eq!(fate_of(MANIFEST, false), Fate::Ours);
    for (path, is_dir) in [
        ("notes.txt", false),
        (".git", true),
        (".git/HEAD", false),
        ("acme/mine.txt", false),
        ("acme/b/mine.txt", false),
    ] {
        assert_eq!(fate_of(path, is_dir), Fate::Kept, "{path}");
    }
}

#[test]
fn a_users_entry_at_our_path_is_replaced_unless_it_is_a_folder() {
    assert_eq!(fate_of("notes", false), Fate::Ours, "a file is replaced");
    assert_eq!(
        fate_of("acme", false),
        Fate::Ours,
        "so is a link to a folder"
    );
    assert_eq!(
        fate_of("notes", true),
        Fate::InTheWay(PathBuf::from("notes"))
    );
    assert_eq!(
        fate_of("notes/mine.txt", false),
        Fate::InTheWay(PathBuf::from("notes"))
    );
}

#[test]
fn precompressed_files_decompress_to_the_original_bytes() {
    use std::io::Read as _;
    let page = "<p>outage</p>\n".repeat(200);
    let [(gz_name, gz), (br_name, br)] = precompressed(page.as_bytes());
    assert_eq!((gz_name, br_name), (".gz", ".br"));
    let mut back = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut back)
        .unwrap();
    assert_eq!(back, page);
    let mut back = Vec::new();
    brotli::BrotliDecompress(&mut &br[..], &mut back).unwrap();
    assert_eq!(back, page.as_bytes());
    assert_eq!(
        precompressed(page.as_bytes()),
        [(".gz", gz), (".br", br)],
        "same bytes every time"
    );
    assert!(compressible("a/index.html", 2000) && !compressible("a/index.html", 900));
    assert!(!compressible("logo.png", 5000));
}

fn open(out: &Path) -> Output {
    Output::open(out, || panic!("no other build")).unwrap()
}

#[test]
fn a_file_added_while_the_pages_render_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join(MANIFEST), "old.html\n").unwrap();
    fs::write(out.join("old.html"), "old").unwrap();
    let output = open(&out);
    // After the old site was read, before the switch.
    fs::write(out.join("notes-during.txt"), "mine").unwrap();
    output.stage("new.html", b"new").unwrap();
    let files = [OutputFile {
        path: "new.html".into(),
        staged: true,
    }];
    output.commit(&files).unwrap();
    assert_eq!(
        fs::read_to_string(out.join("notes-during.txt")).unwrap(),
        "mine"
    );
    assert!(!out.join("old.html").exists());
}

#[test]
fn a_staged_file_the_site_does_not_list_stops_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let output = open(&out);
    output.stage("a/index.html", b"a").unwrap();
    output.stage("b/index.html", b"b").unwrap();
    let files = [OutputFile {
        path: "a/index.html".into(),
        staged: true,
    }];
    assert!(matches!(output.commit(&files), Err(Error::Unlisted)));
    assert!(!out.exists(), "nothing put in place");
}

#[test]
fn a_commit_swaps_in_the_new_tree_keeps_the_users_files_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    fs::create_dir_all(out.join("old")).unwrap();
    fs::write(out.join("old/gone.html"), "x").unwrap();
    fs::write(out.join("same.txt"), "same").unwrap();
    fs::write(out.join(MANIFEST), "old/gone.html\nsame.txt\n").unwrap();
    fs::write(out.join("mine.txt"), "mine").unwrap();
    let output = open(&out);
    assert!(output.is_unchanged("same.txt", b"same"));
    assert!(!output.is_unchanged("mine.txt", b"other"));
    output.stage("a/b/new.html", b"new").unwrap();
    let files = [
        OutputFile {
            path: "a/b/new.html".into(),
            staged: true,
        },
        OutputFile {
            path: "same.txt".into(),
            staged: false,
        },
    ];
    let (stats, leftovers) = output.commit(&files).unwrap();
    assert_eq!(
        stats,
        WriteStats {
            written: 1,
            unchanged: 1,
            removed: 1
        }
    );
    assert!(leftovers.is_empty());
    assert_eq!(fs::read(out.join("a/b/new.html")).unwrap(), b"new");
    assert_eq!(fs::read(out.join("mine.txt")).unwrap(), b"mine");
    assert_eq!(
        fs::read_to_string(out.join(MANIFEST)).unwrap(),
        "a/b/new.html\nsame.txt\n"
    );
    assert!(!out.join("old").exists(), "emptied folders of ours go too");
    let beside: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside.len(), 2, "the output and its lock: {beside:?}");
}

#[test]
fn a_rename_pair_cut_in_the_middle_is_put_back_by_the_next_build() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let staging = dir.path().join(".public.staging-7");
    fs::create_dir_all(staging.join(ASIDE)).unwrap();
    fs::write(staging.join(ASIDE).join("notes.txt"), "keep").unwrap();
    fs::create_dir_all(dir.path().join(".public.stagingx")).unwrap();
    let output = open(&out);
    assert!(output.has_file("notes.txt"));
    assert!(!staging.exists(), "cleared");
    assert!(
        dir.path().join(".public.stagingx").exists(),
        "a name that is not ours stays"
    );
}

/// Pages `p<i>/index.html` for `i` below `n`, with new bytes where `bytes` gives some.
fn pages(
    output: &Output,
    n: usize,
    bytes: impl Fn(usize) -> Option<&'static [u8]>,
) -> Vec<OutputFile> {
    (0..n)
        .map(|i| {
            let path = format!("p{i}/index.html");
            let staged = bytes(i).map(|b| output.stage(&path, b).unwrap());
            OutputFile {
                path,
                staged: staged.is_some(),
            }
        })
        .collect()
}

/// A temp folder holding `public/` built with `n` pages; and the output folder's inode.
fn site_of(n: usize) -> (tempfile::TempDir, PathBuf, u64) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let output = open(&out);
    let files = pages(&output, n, |_| Some(b"first"));
    output.commit(&files).unwrap();
    let folder = fs::metadata(&out).unwrap().ino();
    (dir, out, folder)
}

#[test]
fn a_few_changes_are_put_in_place_and_many_swap_the_whole_tree() {
    let (_dir, out, folder) = site_of(200);
    let output = open(&out);
    let files = pages(&output, 199, |i| (i < 3).then_some(b"second"));
    let (stats, _) = output.commit(&files).unwrap();
    assert_eq!((stats.written, stats.removed), (3, 1));
    assert_eq!(fs::metadata(&out).unwrap().ino(), folder, "in place");
    assert_eq!(fs::read(out.join("p2/index.html")).unwrap(), b"second");
    assert_eq!(fs::read(out.join("p3/index.html")).unwrap(), b"first");
    assert!(!out.join("p199").exists(), "its emptied folder went too");
    assert_eq!(
        fs::read_to_string(out.join(MANIFEST)).unwrap(),
        manifest_text(files.iter().map(|f| f.path.as_str()))
    );
    let output = open(&out);
    let files = pages(&output, 199, |_| Some(b"third"));
    output.commit(&files).unwrap();
    assert_ne!(fs::metadata(&out).unwrap().ino(), folder, "swapped whole");
    assert_eq!(fs::read(out.join("p3/index.html")).unwrap(), b"third");
}

#[test]
fn a_manifest_line_spelt_otherwise_names_the_same_file_and_removes_nothing_kept() {
    let (_dir, out, folder) = site_of(100);
    // The same file listed again as `p7//index.html` and `p7/./index.html`: one path.
    let manifest = out.join(MANIFEST);
    let mut text = fs::read_to_string(&manifest).unwrap();
    text.push_str("p7//index.html\np7/./index.html\n");
    fs::write(&manifest, text).unwrap();
    let output = open(&out);
    let files = pages(&output, 100, |i| (i == 1).then_some(b"second"));
    let (stats, _) = output.commit(&files).unwrap();
    assert_eq!((stats.written, stats.removed), (1, 0));
    assert_eq!(fs::metadata(&out).unwrap().ino(), folder, "in place");
    assert_eq!(fs::read(out.join("p7/index.html")).unwrap(), b"first");
    assert_eq!(fs::read(out.join("p1/index.html")).unwrap(), b"second");
}

#[test]
fn a_removed_file_listed_twice_and_spelt_otherwise_is_removed_once() {
    let (_dir, out, folder) = site_of(100);
    // Listed first as `p99/index.html/`, then as written.
    let manifest = out.join(MANIFEST);
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, format!("p99/index.html/\n{text}")).unwrap();
    let output = open(&out);
    let files = pages(&output, 99, |_| None);
    let (stats, _) = output.commit(&files).unwrap();
    assert_eq!((stats.written, stats.removed), (0, 1));
    assert_eq!(fs::metadata(&out).unwrap().ino(), folder, "in place");
    assert!(
        !out.join("p99").exists(),
        "the file and its emptied folder went"
    );
}

#[test]
fn a_link_on_the_way_of_a_change_is_never_written_through() {
    let (dir, out, _) = site_of(100);
    // The user moves a folder of ours elsewhere and links it back.
    let elsewhere = dir.path().join("elsewhere");
    fs::rename(out.join("p5"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("p5")).unwrap();
    let output = open(&out);
    assert!(
        !output.is_unchanged("p5/index.html", b"first"),
        "not read through it"
    );
    let files = pages(&output, 100, |i| (i == 5).then_some(b"second"));
    output.commit(&files).unwrap();
    assert_eq!(fs::read(elsewhere.join("index.html")).unwrap(), b"first");
    assert!(fs::symlink_metadata(out.join("p5")).unwrap().is_dir());
    assert_eq!(fs::read(out.join("p5/index.html")).unwrap(), b"second");
}

#[test]
fn a_journal_left_by_a_build_killed_while_renaming_is_carried_out_by_the_next() {
    let (dir, out, _) = site_of(3);
    // Killed after the journal was written and the first rename done. Its files wait
    // at their place in the staging tree (`t`), or under a number (`w`, as builds
    // before the tree wrote them).
    let staging = dir.path().join(".public.staging-9");
    fs::create_dir_all(staging.join("tree/q")).unwrap();
    fs::write(out.join("p0/index.html"), "second").unwrap();
    fs::write(staging.join("tree/q/index.html"), "second").unwrap();
    fs::write(staging.join("1"), "third").unwrap();
    fs::write(
        staging.join("manifest"),
        "p0/index.html\np1/index.html\nq/index.html\n",
    )
    .unwrap();
    let (dev, ino) = folder_id(&out).unwrap();
    let journal = format!(
        "o\t{dev}\t{ino}\nt\tp0/index.html\nt\tq/index.html\nw\t1\tp1/index.html\nd\tp2/index.html\nw\tmanifest\t.outages-manifest\n"
    );
    fs::write(staging.join(JOURNAL), journal).unwrap();
    // One for another folder (restored in this one's place since): not carried out.
    let other = dir.path().join(".public.staging-8");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("0"), "elsewhere").unwrap();
    let foreign = format!("o\t{dev}\t{}\nw\t0\tp1/index.html\n", ino + 1);
    fs::write(other.join(JOURNAL), foreign).unwrap();
    let output = open(&out);
    assert!(!staging.exists() && !other.exists());
    assert!(output.is_unchanged("p1/index.html", b"third"));
    assert!(output.is_unchanged("q/index.html", b"second"));
    assert!(output.is_unchanged("p0/index.html", b"second"));
    assert!(!out.join("p2/index.html").exists());
    assert_eq!(
        fs::read_to_string(out.join(MANIFEST)).unwrap(),
        "p0/index.html\np1/index.html\nq/index.html\n"
    );
    // Written whole or not at all: a journal still being written is not carried out.
    let staging = dir.path().join(".public.staging-10");
    fs::create_dir_all(&staging).unwrap();
    fs::write(staging.join("0"), "third").unwrap();
    fs::write(staging.join("journal.part"), "w\t0\tp1/index.html\n").unwrap();
    drop(output);
    let output = open(&out);
    assert!(output.is_unchanged("p1/index.html", b"third"));
}
