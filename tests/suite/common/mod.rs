//! Helpers for whole-build tests: write a site into a temp folder, run the real binary,
//! read the output back with real parsers.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

pub mod status_page;

pub const SEED: &str = include_str!("../../fixtures/seed.md");

/// A site folder in a temp dir; removed when dropped.
pub struct Site {
    pub dir: tempfile::TempDir,
}

impl Site {
    pub fn new(files: &[(&str, &str)]) -> Site {
        let site = Site {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        for (path, text) in files {
            site.write(path, text);
        }
        site
    }

    /// A site of generated files.
    pub fn from_owned(files: &[(String, String)]) -> Site {
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        Site::new(&refs)
    }

    /// How many incidents a built page lists (one listed twice, as ongoing and among the
    /// latest, counts once).
    pub fn rows(&self, page: &str) -> usize {
        let html = self.html(page);
        let links: std::collections::BTreeSet<&str> =
            select(&html, &format!(".incident-list {ROW_TITLE}"))
                .iter()
                .filter_map(|a| a.value().attr("href"))
                .collect();
        links.len()
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root().join(relative)
    }

    pub fn write(&self, relative: &str, text: &str) {
        self.write_bytes(relative, text.as_bytes());
    }

    pub fn write_bytes(&self, relative: &str, bytes: &[u8]) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Runs `outages <args> --root <site>`.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_env(args, &[])
    }

    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_outages"));
        command
            .args(args)
            .arg("--root")
            .arg(self.root())
            .env_remove("CI");
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().expect("the binary runs")
    }

    /// Builds into `public/`, panicking with the diagnostics if the build fails.
    pub fn build(&self, extra: &[&str]) -> String {
        let mut args = vec!["build"];
        args.extend_from_slice(extra);
        let output = self.run(&args);
        assert!(
            output.status.success(),
            "build failed:\n{}",
            stderr(&output)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// A file of the built site (under `public/`).
    pub fn read(&self, relative: &str) -> String {
        let path = self.path("public").join(relative);
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{relative}: {e}"))
    }

    pub fn html(&self, relative: &str) -> scraper::Html {
        scraper::Html::parse_document(&self.read(relative))
    }
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every file under `dir`, relative path → bytes.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    each_file(dir, |path| std::fs::read(path).unwrap())
}

/// The files of a built site as a browser reads them: the search index's data (Pagefind's
/// `.pf_*` files) and the data files' JSON Lines decompressed, and Pagefind's own code (its scripts and WebAssembly) left
/// out, as nothing of content is in it.
pub fn readable(files: &BTreeMap<String, Vec<u8>>) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .filter_map(|(path, bytes)| {
            // The data files' JSON Lines are gzipped: what matters is their text.
            if path.starts_with("data/") && path.ends_with(".jsonl.gz") {
                let mut text = Vec::new();
                std::io::Read::read_to_end(
                    &mut flate2::read::GzDecoder::new(&bytes[..]),
                    &mut text,
                )
                .unwrap_or_else(|e| panic!("{path} is not gzip: {e}"));
                return Some((path.clone(), text));
            }
            let Some(name) = path.strip_prefix("pagefind/") else {
                return Some((path.clone(), bytes.clone()));
            };
            if !name.contains(".pf_") {
                return None;
            }
            let mut text = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
                .unwrap_or_else(|e| panic!("{path} is not gzip: {e}"));
            Some((path.clone(), text))
        })
        .collect()
}

/// Every file under `dir`, relative path → modification time.
pub fn mtimes(dir: &Path) -> BTreeMap<String, SystemTime> {
    each_file(dir, |path| {
        std::fs::metadata(path).unwrap().modified().unwrap()
    })
}

fn each_file<T>(dir: &Path, read: impl Fn(&Path) -> T) -> BTreeMap<String, T> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let relative = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (relative, read(e.path()))
        })
        .collect()
}

/// An incident's title in a list row: the link in the row's middle part (rows name their
/// parts by place, not by class).
pub const ROW_TITLE: &str = ".incident-row > div > a";

pub fn select<'a>(html: &'a scraper::Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    let selector = scraper::Selector::parse(css).unwrap_or_else(|e| panic!("{css}: {e:?}"));
    html.select(&selector).collect()
}

pub fn text(element: &scraper::ElementRef) -> String {
    element
        .text()
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A minimal valid incident in the canonical format.
pub fn incident(title: &str, started: &str) -> String {
    format!(
        "---\ntitle: {title}\nstarted: {started}\nresolved: 2024-03-05T16:00:00Z\nimpact: major\n---\n\
         ### 2024-03-05 14:00 UTC: investigating\nLooking into it.\n### 2024-03-05 16:00 UTC: resolved\nFixed.\n"
    )
}

/// A property-test runner with a fixed seed, so `cargo test` is the same run every time;
/// `cases` unless the environment variable `env` asks for more.
pub fn seeded_runner(env: &str, cases: u32, seed: u8) -> proptest::test_runner::TestRunner {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let cases = std::env::var(env)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    let config = Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// How many files of the search index under `dir` (`pagefind/`) a build removed, given the
/// tree before it: Pagefind names them by hashes of their bytes, so their number follows
/// the index's layout, which other tests check.
pub fn search_files_gone(before: &BTreeMap<String, Vec<u8>>, dir: &Path) -> usize {
    let after = tree(dir);
    before
        .keys()
        .filter(|path| path.starts_with("pagefind/") && !after.contains_key(*path))
        .count()
}

/// `3h 24m`, `2d 4h`, `45m`, `0m`; seconds only under a minute.
pub fn length(seconds: i64) -> String {
    if seconds == 0 {
        return "0m".into();
    }
    if seconds < 60 {
        return format!("{seconds}s");
    }
    let parts = [
        (seconds / 86_400, "d"),
        (seconds % 86_400 / 3_600, "h"),
        (seconds % 3_600 / 60, "m"),
    ];
    parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect::<Vec<_>>()
        .join(" ")
}
