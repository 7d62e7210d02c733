//! One writer of `content/` at a time, and nothing a killed writer left behind.
//!
//! `import`, `sync`, `new` and `provider add` hold [`Writer`]: an exclusive lock on
//! `.content.lock` beside `content/` (a second writer waits for the first to finish). Taking
//! it finishes what a killed writer began: a commit of several files is written as a
//! journal (`.content.journal`) before the first file is put in place, so a commit cut short
//! is completed by the next writer, and the hidden files a writer stages beside its
//! targets (`.<name>.<pid>.import`, `.sync`, `.new`) that no journal names are removed.

use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::content::CONTENT_DIR;
use crate::diagnostics::Diagnostic;
use crate::lockfile::{self, LockError};

/// The lock file, beside `content/`.
const LOCK_FILE: &str = ".content.lock";
/// A commit in progress, beside `content/`.
const JOURNAL_FILE: &str = ".content.journal";

/// Why a file is staged: the end of its hidden name, so that a killed writer's files are
/// told from the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// An incident an import or sync writes.
    Import,
    /// A provider's `_index.md` a sync names.
    Sync,
    /// A file `new` or `provider add` creates.
    New,
}

impl Purpose {
    const ALL: [Purpose; 3] = [Purpose::Import, Purpose::Sync, Purpose::New];

    fn suffix(self) -> &'static str {
        match self {
            Purpose::Import => "import",
            Purpose::Sync => "sync",
            Purpose::New => "new",
        }
    }
}

/// The hidden file beside `path` that this process stages its new text in.
pub(crate) fn staging_path(path: &Path, purpose: Purpose) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}.{}.{}",
        std::process::id(),
        purpose.suffix()
    ))
}

/// Whether `name` is a file [`staging_path`] made (of any process).
fn is_staging_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    Purpose::ALL.iter().any(|purpose| {
        rest.strip_suffix(purpose.suffix())
            .and_then(|r| r.strip_suffix('.'))
            .and_then(|r| r.rsplit_once('.'))
            .is_some_and(|(target, pid)| {
                !target.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
            })
    })
}

/// The archive's write lock, held while a command may write `content/`; what it needs to
/// write (an import's [`Known`](super::Known) and commit) takes it as proof.
pub struct Writer {
    root: PathBuf,
    _lock: File,
    /// What finishing a killed writer's work did, for the user.
    pub recovered: Vec<String>,
}

impl Writer {
    /// Locks the archive at `root`, calling `on_wait` once if another writer holds it;
    /// then completes a killed writer's commit and removes its staged files.
    pub fn take(root: &Path, on_wait: impl FnOnce()) -> Result<Writer, Diagnostic> {
        let lock_path = root.join(LOCK_FILE);
        let cannot = |action: &str, e: io::Error| {
            Diagnostic::file(
                &lock_path,
                format!("cannot {action} the archive's lock: {e}"),
            )
        };
        let lock = lockfile::lock(&lock_path, on_wait).map_err(|e| match e {
            LockError::Create(e) => cannot("create", e),
            LockError::Take(e) => cannot("take", e),
        })?;
        let mut writer = Writer {
            root: root.to_path_buf(),
            _lock: lock,
            recovered: Vec::new(),
        };
        writer.recovered = replay(root);
        writer.recovered.extend(clear_staged(root));
        Ok(writer)
    }

    /// The site root whose `content/` this lock is for.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Puts every staged file in place as one: the journal first, so that a kill part way
    /// is completed by the next writer. On an error (with the index of the file that
    /// failed), what was put in place is undone by `undo` (given the index of each file
    /// done, latest first) and the journal removed.
    pub(crate) fn commit(
        &self,
        files: &[Move],
        mut undo: impl FnMut(usize),
    ) -> Result<(), (usize, io::Error)> {
        if files.is_empty() {
            return Ok(());
        }
        let journal = self.root.join(JOURNAL_FILE);
        if let Err(e) = write_journal(&self.root, files) {
            let _ = fs::remove_file(&journal);
            return Err((0, e));
        }
        for (at, file) in files.iter().enumerate() {
            if let Err(e) = file.apply(&self.root) {
                (0..at).rev().for_each(&mut undo);
                let _ = fs::remove_file(&journal);
                return Err((at, e));
            }
        }
        sync_parents(&self.root, files);
        // Left behind, it costs the next writer a look: every file it names is in place.
        let _ = fs::remove_file(&journal);
        Ok(())
    }
}

/// One file of a commit: a staged file and the target it becomes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Move {
    /// Relative to the site root, under `content/`.
    pub staged: PathBuf,
    pub target: PathBuf,
    /// A new file is linked in under a name nothing holds; an old one is replaced whole.
    pub new: bool,
}

impl Move {
    /// Puts the staged file in place; done again (after a kill), it does nothing more. The
    /// staged file exists exactly until it is in place.
    fn apply(&self, root: &Path) -> io::Result<()> {
        let (staged, target) = (root.join(&self.staged), root.join(&self.target));
        if self.new {
            match fs::hard_link(&staged, &target) {
                Ok(()) => {}
                // Linked before a kill, the staged name not yet removed.
                Err(e)
                    if e.kind() == io::ErrorKind::AlreadyExists && same_file(&staged, &target) => {}
                Err(e) => return Err(e),
            }
            fs::remove_file(&staged)
        } else {
            fs::rename(&staged, &target)
        }
    }

    /// Inside `content/`, staged beside its target: a journal that says otherwise was not
    /// written by a writer.
    fn is_sound(&self) -> bool {
        let inside = |path: &Path| {
            let mut parts = path.components();
            parts.next() == Some(Component::Normal(CONTENT_DIR.as_ref()))
                && parts.all(|part| matches!(part, Component::Normal(_)))
        };
        inside(&self.staged)
            && inside(&self.target)
            && self.staged.parent() == self.target.parent()
            && self
                .staged
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(is_staging_name)
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[derive(Serialize, Deserialize)]
struct Journal {
    files: Vec<Move>,
}

/// Writes the journal whole (beside it first, then renamed in place), durably.
fn write_journal(root: &Path, files: &[Move]) -> io::Result<()> {
    let journal = root.join(JOURNAL_FILE);
    let temporary = staging_path(&journal, Purpose::New);
    let text = serde_json::to_vec(&Journal {
        files: files.to_vec(),
    })
    .map_err(io::Error::other)?;
    let _ = fs::remove_file(&temporary);
    let written = (|| {
        let mut file = File::options()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        file.write_all(&text)?;
        file.sync_all()?;
        fs::rename(&temporary, &journal)?;
        File::open(root)?.sync_all()
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// Makes the renames of a commit durable before its journal goes.
fn sync_parents(root: &Path, files: &[Move]) {
    let mut folders: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.target.parent().map(|p| root.join(p)))
        .collect();
    folders.sort();
    folders.dedup();
    for folder in folders {
        let _ = File::open(folder).and_then(|f| f.sync_all());
    }
}

/// Completes the commit a killed writer journaled; says what it did.
fn replay(root: &Path) -> Vec<String> {
    let journal = root.join(JOURNAL_FILE);
    let Ok(bytes) = fs::read(&journal) else {
        return Vec::new();
    };
    let mut said = Vec::new();
    match serde_json::from_slice::<Journal>(&bytes) {
        Ok(Journal { files }) if files.iter().all(Move::is_sound) => {
            let mut done = 0usize;
            for file in &files {
                // Put in place before the kill: nothing staged is left of it.
                if fs::symlink_metadata(root.join(&file.staged)).is_err() {
                    continue;
                }
                match file.apply(root) {
                    Ok(()) => done += 1,
                    Err(e) => said.push(format!(
                        "{}: an interrupted import could not be completed ({e}); check the file and import again",
                        file.target.display()
                    )),
                }
            }
            if done > 0 {
                said.push(format!(
                    "completed an import or sync that was interrupted: {done} more of its {} files put in place",
                    files.len()
                ));
            }
            sync_parents(root, &files);
        }
        _ => said.push(format!(
            "{}: not a journal this program wrote; removed",
            journal.display()
        )),
    }
    let _ = fs::remove_file(&journal);
    said
}

/// Removes the staged files that writers killed before their commit left under
/// `content/` (with the lock held, no other writer is at work); says how many.
fn clear_staged(root: &Path) -> Option<String> {
    let _ = fs::remove_file(staging_path(&root.join(JOURNAL_FILE), Purpose::New));
    let mut removed = 0usize;
    let walk = walkdir::WalkDir::new(root.join(CONTENT_DIR)).follow_links(false);
    for entry in walk.into_iter().flatten() {
        let stale =
            entry.file_type().is_file() && entry.file_name().to_str().is_some_and(is_staging_name);
        if stale && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    (removed > 0).then(|| {
        format!(
            "removed {} that an interrupted import, sync or `new` left under {CONTENT_DIR}/",
            crate::diagnostics::count(removed, "hidden staged file")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_names_are_told_from_the_users() {
        for name in [".a.md.123.import", "._index.md.9.sync", ".2026-x.md.1.new"] {
            assert!(is_staging_name(name), "{name}");
        }
        for name in [
            "a.md",
            ".a.md.import",
            ".a.md.12x.import",
            "..1.import",
            ".a.md.1.imports",
            ".hidden.md",
        ] {
            assert!(!is_staging_name(name), "{name}");
        }
        let staged = staging_path(Path::new("content/a/x.md"), Purpose::Import);
        assert!(is_staging_name(
            staged.file_name().unwrap().to_str().unwrap()
        ));
    }

    #[test]
    fn a_commit_cut_short_is_completed_by_the_next_writer() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("content/a")).unwrap();
        fs::write(root.join("content/a/old.md"), "old").unwrap();
        let moves: Vec<Move> = [("old.md", false), ("new.md", true)]
            .iter()
            .map(|(name, new)| {
                let target = Path::new("content/a").join(name);
                let staged = staging_path(&target, Purpose::Import);
                fs::write(root.join(&staged), format!("{name} as imported")).unwrap();
                Move {
                    staged,
                    target,
                    new: *new,
                }
            })
            .collect();
        // Killed after the journal and the first file.
        write_journal(root, &moves).unwrap();
        moves[0].apply(root).unwrap();
        let stray = root.join("content/a/.other.md.77.new");
        fs::write(&stray, "left by a killed `new`").unwrap();

        let writer = Writer::take(root, || {}).unwrap();
        assert_eq!(writer.recovered.len(), 2, "{:?}", writer.recovered);
        for name in ["old.md", "new.md"] {
            let text = fs::read_to_string(root.join("content/a").join(name)).unwrap();
            assert_eq!(text, format!("{name} as imported"));
        }
        assert!(!root.join(JOURNAL_FILE).exists());
        let mut left: Vec<String> = fs::read_dir(root.join("content/a"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["new.md", "old.md"]);
    }

    #[test]
    fn a_journal_outside_content_is_refused() {
        let bad = Move {
            staged: PathBuf::from("content/a/.x.md.1.import"),
            target: PathBuf::from("content/../x.md"),
            new: false,
        };
        assert!(!bad.is_sound());
        let good = Move {
            target: PathBuf::from("content/a/x.md"),
            ..bad
        };
        assert!(good.is_sound());
    }
}
