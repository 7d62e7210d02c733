//! The output folder belongs to the user, and a build is all or nothing: a build removes
//! only files an earlier build wrote (its manifest), never writes through a symlink, waits
//! for another build of the same folder, and leaves the complete old site or the complete
//! new one whether it is killed, meets an unwritable file or fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Site, incident, search_files_gone, stderr, tree};

type Files = BTreeMap<String, Vec<u8>>;

/// A site of `count` incidents over two providers; `version` changes every page's words.
fn archive(count: usize, version: &str) -> Site {
    let site = Site::new(&[]);
    for i in 0..count {
        let provider = ["acme", "globex"][i % 2];
        let day = 1 + i % 28;
        let text = incident(
            &format!("Outage {i} {version}"),
            &format!("2024-02-{day:02}T{:02}:00:00Z", i % 24),
        );
        site.write(&format!("content/{provider}/i{i}.md"), &text);
    }
    site
}

fn outages(site: &Site, out: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_outages"));
    command
        .arg("build")
        .args(extra)
        .arg("--root")
        .arg(site.root())
        .arg("--output")
        .arg(out)
        .env_remove("CI");
    command
}

/// Builds `site` into `out`, panicking with the errors if the build fails; returns stdout.
fn build_into(site: &Site, out: &Path) -> String {
    let output = outages(site, out, &[]).output().unwrap();
    assert!(
        output.status.success(),
        "build failed:\n{}",
        stderr(&output)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// What a build of `site` into a fresh folder holds.
fn clean_build(site: &Site) -> Files {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    build_into(site, &out);
    tree(&out)
}

/// Names beside `out` that a build leaves: nothing but the lock file, once it is done.
fn beside(out: &Path) -> Vec<String> {
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    let mut names: Vec<String> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.")))
        .collect();
    names.sort();
    names
}

/// Which of the expected sites `out` holds, or a panic naming the first difference.
fn which(out: &Path, sites: &[(&str, &Files)], when: &str) -> String {
    let actual = tree(out);
    for (name, files) in sites {
        if actual == **files {
            return name.to_string();
        }
    }
    let (_, first) = sites[0];
    let differing: Vec<&String> = actual
        .keys()
        .chain(first.keys())
        .filter(|k| actual.get(*k) != first.get(*k))
        .take(5)
        .collect();
    panic!(
        "{when}: the output is none of the complete sites ({} files; differs from the first at {differing:?})",
        actual.len()
    );
}

#[test]
fn files_the_build_did_not_write_are_kept() {
    let site = archive(2, "v1");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "keep").unwrap();
    build_into(&site, &out);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "keep"
    );
    std::fs::remove_file(site.path("content/globex/i1.md")).unwrap();
    let index = tree(&out);
    let again = build_into(&site, &out);
    // Its page and markdown twin, feeds (all and major outages), year page, API files
    // (provider, stats, components, incident), badge and maintenance calendar, and the
    // search index's files that held it.
    let search = search_files_gone(&index, &out);
    assert!(
        again.contains(&format!(" {} removed", 16 + search)),
        "the provider's pages: {again}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "keep"
    );
    assert!(
        !out.join("globex").exists(),
        "our stale pages and folders go"
    );
}

#[test]
fn the_manifest_lists_every_file_the_build_wrote_sorted() {
    let site = archive(3, "v1");
    site.build(&["--precompress"]);
    let files = tree(&site.path("public"));
    let manifest = String::from_utf8(files[".outages-manifest"].clone()).unwrap();
    let listed: Vec<&str> = manifest.lines().collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted);
    let written: Vec<&str> = files
        .keys()
        .map(String::as_str)
        .filter(|k| *k != ".outages-manifest")
        .collect();
    assert_eq!(listed, written);
    assert!(listed.iter().any(|p| p.ends_with(".html.br")), "{manifest}");
}

#[test]
fn a_git_checkout_keeps_its_git_folder_and_our_stale_pages_go() {
    let site = archive(4, "v1");
    site.build(&[]);
    let public = site.path("public");
    let git = public.join(".git");
    for (path, text) in [
        ("HEAD", "ref: refs/heads/gh-pages\n"),
        ("objects/ab/cdef0123", "\x00blob"),
        ("refs/heads/gh-pages", "0123abcd\n"),
    ] {
        let path = git.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir(git.join("empty")).unwrap();
    std::os::unix::fs::symlink("refs/heads/gh-pages", git.join("link")).unwrap();
    std::fs::write(public.join("README.md"), "mine").unwrap();
    let before = tree(&git);

    std::fs::remove_file(site.path("content/acme/i2.md")).unwrap();
    let index = tree(&public);
    let again = site.build(&[]);
    // Its page, markdown twin and API file, and the search index's files that held it.
    let search = search_files_gone(&index, &public);
    assert!(
        again.contains(&format!(" {} removed", 3 + search)),
        "{again}"
    );
    assert_eq!(tree(&git), before, ".git is kept byte for byte");
    assert_eq!(
        std::fs::read_link(git.join("link")).unwrap(),
        Path::new("refs/heads/gh-pages"),
        "a symlink stays a symlink"
    );
    assert!(
        git.join("empty").is_dir(),
        "an empty folder of the user's stays"
    );
    assert_eq!(site.read("README.md"), "mine");
    assert!(!public.join("acme/i2").exists());
    assert!(!public.join("api/v1/acme/i2.json").exists());
    let ours: Files = tree(&public)
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".git/") && k != "README.md")
        .collect();
    assert_eq!(
        ours,
        clean_build(&site),
        "and the site is exactly a clean build"
    );
}

#[test]
fn a_symlink_in_the_output_never_redirects_a_read_or_a_write() {
    let site = archive(4, "v1");
    site.build(&[]);
    let public = site.path("public");
    let elsewhere = tempfile::tempdir().unwrap();
    // The provider's pages, moved out and linked back: a build that followed the link
    // would find them unchanged, or write the changed one into `elsewhere`.
    let target = elsewhere.path().join("acme");
    std::fs::rename(public.join("acme"), &target).unwrap();
    std::os::unix::fs::symlink(&target, public.join("acme")).unwrap();
    let outside = tree(elsewhere.path());

    site.write(
        "content/acme/i0.md",
        &incident("Outage 0 v2", "2024-02-01T00:00:00Z"),
    );
    site.build(&[]);
    assert_eq!(
        tree(elsewhere.path()),
        outside,
        "nothing outside is touched"
    );
    assert!(
        !std::fs::symlink_metadata(public.join("acme"))
            .unwrap()
            .is_symlink(),
        "our folder replaces the link"
    );
    assert_eq!(tree(&public), clean_build(&site));
}

#[test]
fn a_user_folder_where_the_site_writes_a_file_is_an_error_that_changes_nothing() {
    let site = archive(2, "v1");
    site.build(&[]);
    let public = site.path("public");
    site.write("static/notes/a.txt", "ours");
    // The user's folder sits where the site now writes a file.
    std::fs::create_dir_all(public.join("notes/a.txt")).unwrap();
    std::fs::write(public.join("notes/a.txt/mine"), "mine").unwrap();
    let before = tree(&public);
    let output = site.run(&["build"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("notes/a.txt"), "{err}");
    assert_eq!(tree(&public), before);
    assert!(beside(&public) == [".public.lock"], "{:?}", beside(&public));
}

#[test]
fn a_second_build_of_the_same_folder_waits_for_the_first() {
    let site = archive(2, "v1");
    let out = site.path("public");
    // Holds the lock as a running build would.
    let lock = std::fs::File::create(site.path(".public.lock")).unwrap();
    lock.lock().unwrap();
    let mut child = outages(&site, &out, &[])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    assert_eq!(
        line.trim_end(),
        format!("waiting for another build of {} to finish", out.display())
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(child.try_wait().unwrap().is_none(), "it waits");
    assert!(!out.exists(), "and writes nothing meanwhile");
    lock.unlock().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(tree(&out), clean_build(&site));
}

#[test]
fn concurrent_builds_end_with_one_complete_build() {
    let (a, b) = (archive(60, "a"), archive(60, "b"));
    let (expected_a, expected_b) = (clean_build(&a), clean_build(&b));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    for round in 0..4 {
        let spawn = |site: &Site| {
            outages(site, &out, &[])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (first, second) = (spawn(&a), spawn(&b));
        for child in [first, second] {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                stderr(&output)
            );
        }
        which(
            &out,
            &[("a", &expected_a), ("b", &expected_b)],
            &format!("round {round}"),
        );
        assert_eq!(beside(&out), [".public.lock"]);
    }
}

/// A small seeded generator, so a failing run can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn kill_after(mut child: Child, after: Duration) {
    std::thread::sleep(after);
    // Already done is fine: the instant fell after the end.
    let _ = child.kill();
    child.wait().unwrap();
}

#[test]
fn a_build_killed_at_any_instant_leaves_the_old_or_the_new_site() {
    let a = archive(120, "a");
    let b = archive(130, "b");
    let sites = [(&a, clean_build(&a)), (&b, clean_build(&b))];
    let expected = [("a", &sites[0].1), ("b", &sites[1].1)];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    build_into(&a, &out);
    // How long a build over the other site takes, to spread the kills over it.
    let start = Instant::now();
    build_into(&b, &out);
    build_into(&a, &out);
    let run = start.elapsed() / 2;
    let mut current = 0;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let kills = 15;
    for i in 0..kills {
        let next = 1 - current;
        let at = run.mul_f64((i as f64 + rng.next()) / kills as f64);
        kill_after(
            outages(sites[next].0, &out, &[])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
            at,
        );
        let now = which(&out, &expected, &format!("killed after {at:?}"));
        current = usize::from(now == "b");
    }
    let next = 1 - current;
    build_into(sites[next].0, &out);
    assert_eq!(tree(&out), sites[next].1, "a next build succeeds");
    assert_eq!(beside(&out), [".public.lock"], "and leaves nothing behind");
}

/// Runs `chattr` on `path`; false (with a note) where it is refused.
fn chattr(flag: &str, path: &Path) -> bool {
    let status = Command::new("chattr").arg(flag).arg(path).output();
    match status {
        Ok(output) if output.status.success() => true,
        Ok(output) => {
            eprintln!("skipped: chattr {flag} refused: {}", stderr(&output));
            false
        }
        Err(e) => {
            eprintln!("skipped: no chattr: {e}");
            false
        }
    }
}

/// Makes everything under a folder mutable again when dropped, even after a failed assert.
struct Mutable(PathBuf);

impl Drop for Mutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr")
            .arg("-R")
            .arg("-i")
            .arg(&self.0)
            .output();
    }
}

#[test]
fn an_unwritable_file_leaves_the_old_or_the_new_site() {
    let site = archive(20, "a");
    site.build(&[]);
    let public = site.path("public");
    let robots_time = std::fs::metadata(public.join("robots.txt"))
        .unwrap()
        .modified()
        .unwrap();
    let _cleanup = Mutable(site.root().to_path_buf());
    // index.html changes, robots.txt does not (and cannot be hard-linked).
    if !chattr("+i", &public.join("index.html")) || !chattr("+i", &public.join("robots.txt")) {
        return;
    }
    for i in 0..20 {
        let provider = ["acme", "globex"][i % 2];
        let text = std::fs::read_to_string(site.path(&format!("content/{provider}/i{i}.md")));
        site.write(
            &format!("content/{provider}/i{i}.md"),
            &text.unwrap().replace(" a\n", " b\n"),
        );
    }
    let expected = clean_build(&site);
    let output = site.run(&["build"]);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert_eq!(tree(&public), expected, "the new site, complete");
    assert!(
        err.contains("warning:") && err.contains(".public.staging"),
        "the old tree that could not be removed is named: {err}"
    );
    assert_eq!(
        std::fs::metadata(public.join("robots.txt"))
            .unwrap()
            .modified()
            .unwrap(),
        robots_time,
        "an unchanged file keeps its time, even copied"
    );
    drop(_cleanup);
    site.build(&[]);
    assert_eq!(
        beside(&public),
        [".public.lock"],
        "the next build clears it"
    );
}

#[test]
fn a_swap_that_fails_leaves_the_old_site_and_no_staging_folder() {
    let site = archive(6, "a");
    site.build(&[]);
    let public = site.path("public");
    let before = tree(&public);
    let _cleanup = Mutable(site.root().to_path_buf());
    if !chattr("+i", &public) {
        return;
    }
    site.write(
        "content/acme/i0.md",
        &incident("Outage 0 b", "2024-02-01T00:00:00Z"),
    );
    let output = site.run(&["build"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains(&public.display().to_string()), "{err}");
    assert_eq!(tree(&public), before);
    assert_eq!(beside(&public), [".public.lock"]);
    drop(_cleanup);
    site.build(&[]);
    assert_eq!(tree(&public), clean_build(&site));
}

#[test]
fn a_build_killed_between_two_renames_is_recovered_with_the_users_files() {
    // Where the folders cannot be exchanged in one step, a build moves the old site aside,
    // then the new one in; killed between the two, the next build puts the old one back.
    let site = archive(3, "a");
    site.build(&[]);
    let public = site.path("public");
    std::fs::write(public.join("notes.txt"), "keep").unwrap();
    let aside = site.path(".public.staging-999999");
    std::fs::create_dir(&aside).unwrap();
    std::fs::rename(&public, aside.join("old")).unwrap();
    site.build(&[]);
    assert_eq!(site.read("notes.txt"), "keep");
    assert_eq!(beside(&public), [".public.lock"]);
}

#[test]
fn a_folder_of_yours_named_like_our_staging_folders_is_kept() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    let yours = site.path(".public.staging-backup");
    std::fs::create_dir(&yours).unwrap();
    std::fs::write(yours.join("notes.txt"), "precious").unwrap();
    site.build(&[]);
    assert_eq!(
        std::fs::read_to_string(yours.join("notes.txt")).unwrap(),
        "precious"
    );
}

#[test]
fn a_content_folder_that_is_a_link_is_still_refused_as_output() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    let elsewhere = tempfile::tempdir().unwrap();
    let real = elsewhere.path().join("content");
    std::fs::rename(site.path("content"), &real).unwrap();
    std::os::unix::fs::symlink(&real, site.path("content")).unwrap();
    let output = outages(&site, &site.path("content"), &[]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("refusing to build into"),
        "{}",
        stderr(&output)
    );
    assert!(
        real.join("acme/a.md").exists(),
        "the incident is still there"
    );
    assert!(
        !real.join("index.html").exists(),
        "nothing written into content/"
    );
}

#[test]
fn a_static_file_of_yours_named_like_a_compressed_copy_wins() {
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        ("static/big.txt", &"text ".repeat(1000)),
        ("static/big.txt.gz", "mine"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    for _ in 0..2 {
        build_into_with(&site, &out, &["--precompress"]);
        assert_eq!(
            std::fs::read_to_string(out.join("big.txt.gz")).unwrap(),
            "mine"
        );
        let manifest = std::fs::read_to_string(out.join(".outages-manifest")).unwrap();
        assert_eq!(manifest.matches("big.txt.gz\n").count(), 1, "{manifest}");
        // A change, so the second build makes a new tree around the kept file.
        site.write("content/acme/b.md", &incident("B", "2024-03-04T14:00:00Z"));
    }
}

fn build_into_with(site: &Site, out: &Path, extra: &[&str]) {
    let output = outages(site, out, extra).output().unwrap();
    assert!(
        output.status.success(),
        "build failed:\n{}",
        stderr(&output)
    );
}

#[test]
fn a_file_of_yours_where_the_site_needs_a_folder_is_replaced() {
    // The README's promise: that path is the site's.
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    std::fs::create_dir(site.path("public")).unwrap();
    std::fs::write(site.path("public/acme"), "notes").unwrap();
    site.build(&[]);
    assert!(site.path("public/acme").is_dir());
    assert!(site.read("acme/a/index.html").contains("<h1"));
}
