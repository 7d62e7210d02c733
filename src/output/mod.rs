//! Writing the site, the one module that touches the output folder. The folder belongs to
//! the user: a build replaces only what an earlier build wrote, keeps everything else, and
//! leaves either the complete old site or the complete new one, whatever happens.
//!
//! - One build at a time: an exclusive lock on a file beside the output (`.public.lock`).
//! - Rendered files that differ from the ones on disk are written, as they are made, at
//!   their place in a new tree in the build's own staging folder beside the output
//!   (`.public.staging-<pid>`), so a build never holds the whole site in memory.
//! - Once every page has rendered, the new tree is completed: unchanged files hard-linked
//!   from the old tree (their mtime stays, so a CDN sync sends only what changed),
//!   everything the user put in the output carried over, and the manifest
//!   (`.outages-manifest`) listing what was written.
//! - The two trees are swapped in one step (`renameat2(RENAME_EXCHANGE)`), so a kill at any
//!   instant or an error anywhere leaves one complete site. Where that is refused, a rename
//!   pair, which the next build undoes if it was cut between the two renames.
//! - Nothing is read or written through a symlink inside the output folder.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Read as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use foldhash::HashSet;
use rayon::prelude::*;
use walkdir::WalkDir;

use crate::cache::{Hash, Stamp};
use crate::lockfile::LockError;
use crate::routes;

mod compress;
mod journal;
mod look;
mod paths;
#[cfg(test)]
mod tests;
mod tree;

pub use compress::{compressible, precompressed};
use journal::*;
pub use look::{hash_at, look_at};
pub use paths::manifest_hash;
use paths::*;
use tree::*;

/// The list of the files a build wrote, in the output folder: sorted, one site path a line.
pub const MANIFEST: &str = ".outages-manifest";
/// In the staging folder: the new tree, and the old one while a rename pair is under way.
const TREE: &str = "tree";
const ASIDE: &str = "old";

/// A rendered file, and whether its new bytes wait in the staging tree.
pub struct OutputFile {
    pub path: String,
    /// `false` when the file on disk already holds exactly these bytes.
    pub staged: bool,
}

/// What a write did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WriteStats {
    /// Files whose bytes changed.
    pub written: usize,
    pub unchanged: usize,
    /// Files an earlier build wrote that the site no longer has.
    pub removed: usize,
}

/// A folder of an earlier build that could not be removed. The site is complete anyway.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("could not remove {}, left by a build ({reason}): the site is complete; remove that folder by hand", path.display())]
pub struct Leftover {
    pub path: PathBuf,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("cannot put the new site in place at {}: {source}; it still holds the previous site", path.display())]
    Swap { path: PathBuf, source: io::Error },
    #[error("{} was not written by outages and stands where the site now writes {}: move it elsewhere, then build again", yours.display(), ours.display())]
    InTheWay { yours: PathBuf, ours: PathBuf },
    #[error("{} is a mount point inside the output folder, which a build replaces as a whole: unmount it or build elsewhere", .0.display())]
    MountPoint(PathBuf),
    #[error(
        "the site file `{0}` cannot be written: it would leave the output folder, take the manifest's name or hold a line break"
    )]
    BadPath(String),
    #[error(
        "a file was made that the site does not list (a bug of outages): the output is as it was; please report it"
    )]
    Unlisted,
}

/// An I/O error, with what was being done and to which path.
fn io_at(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Io {
        action,
        path,
        source,
    }
}

/// A build's hold on its output folder, from before the first comparison to the swap.
pub struct Output {
    out: PathBuf,
    old: Old,
    /// How many files were staged.
    staged: AtomicUsize,
    leftovers: Vec<Leftover>,
    // Dropped before the lock: the staging folder goes while no other build can look.
    staging: Staging,
    _lock: File,
}

impl Output {
    /// Locks the output folder `out` (absolute, links resolved), calling `on_wait` once if
    /// another build holds it, then clears what killed builds left and reads the old tree.
    pub fn open(out: &Path, on_wait: impl FnOnce()) -> Result<Output, Error> {
        let (Some(parent), Some(name)) = (out.parent(), out.file_name()) else {
            return Err(Error::Io {
                action: "build into",
                path: out.to_path_buf(),
                source: io::ErrorKind::InvalidInput.into(),
            });
        };
        fs::create_dir_all(parent).map_err(io_at("create", parent))?;
        let name = name.to_string_lossy();
        let lock_path = parent.join(format!(".{name}.lock"));
        let lock = crate::lockfile::lock(&lock_path, on_wait).map_err(|e| match e {
            LockError::Create(e) => io_at("create", &lock_path)(e),
            LockError::Take(e) => io_at("lock", &lock_path)(e),
        })?;
        let prefix = format!(".{name}.staging");
        let leftovers = clear_leftovers(out, parent, &prefix)?;
        let staging = Staging::create(parent, &prefix)?;
        Ok(Output {
            out: out.to_path_buf(),
            old: Old::read(out)?,
            staged: AtomicUsize::new(0),
            leftovers,
            staging,
            _lock: lock,
        })
    }

    /// Whether the file at `site_path` already holds `bytes` (so it is kept, mtime and all).
    pub fn is_unchanged(&self, site_path: &str, bytes: &[u8]) -> bool {
        let Some(mut file) = site_relative(site_path).and_then(|p| self.old.open_file(p)) else {
            return false;
        };
        if !file
            .metadata()
            .is_ok_and(|meta| meta.len() == bytes.len() as u64)
        {
            return false;
        }
        let mut old = Vec::with_capacity(bytes.len());
        file.read_to_end(&mut old).is_ok() && old == bytes
    }

    /// The bytes of the old tree's file at `site_path`, if it has one (not a link).
    pub fn read(&self, site_path: &str) -> Option<Vec<u8>> {
        let mut file = site_relative(site_path).and_then(|p| self.old.open_file(p))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        Some(bytes)
    }

    /// The hash of the manifest the last build left, if there is one.
    pub fn manifest_hash(&self) -> Option<[u8; 32]> {
        let manifest = self.old.manifest.as_deref()?;
        Some(*blake3::hash(manifest).as_bytes())
    }

    /// The site paths the last build's manifest lists (that can be in the folder).
    pub fn manifest_paths(&self) -> Vec<String> {
        let text = String::from_utf8_lossy(self.old.manifest.as_deref().unwrap_or_default());
        manifest_lines(&text).map(str::to_string).collect()
    }

    /// Lets go of the folder without changing it; what killed builds left that could not
    /// be removed, to warn of.
    pub fn release(self) -> Vec<Leftover> {
        let mut leftovers = self.leftovers;
        leftovers.extend(self.staging.remove());
        leftovers
    }

    /// Whether the old tree has a file (not a link) at `site_path`.
    pub fn has_file(&self, site_path: &str) -> bool {
        site_relative(site_path).is_some_and(|p| self.old.open_file(p).is_some())
    }

    /// Writes changed bytes where the file goes in the new tree, in the staging folder,
    /// making its folders on the way: putting the tree together then moves none of them.
    pub fn stage(&self, site_path: &str, bytes: &[u8]) -> Result<(), Error> {
        let path = self.staging.path().join(TREE).join(site_file(site_path)?);
        self.staged.fetch_add(1, Ordering::Relaxed);
        match fs::write(&path, bytes) {
            // The first file of its folder.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent).map_err(io_at("create", parent))?;
                }
                fs::write(&path, bytes)
            }
            done => done,
        }
        .map_err(io_at("write", &path))
    }

    /// Puts the site of `files` in place of the old one in one step, keeping the user's
    /// entries and dropping ours that the site no longer has. Touches nothing when nothing
    /// changed.
    pub fn commit(self, files: &[OutputFile]) -> Result<(WriteStats, Vec<Leftover>), Error> {
        // A staged file that `files` does not list would be published as one of the user's.
        if self.staged.load(Ordering::Relaxed) != files.iter().filter(|f| f.staged).count() {
            return Err(Error::Unlisted);
        }
        let paths = files
            .iter()
            .map(|file| site_file(&file.path))
            .collect::<Result<Vec<&Path>, Error>>()?;
        let manifest = manifest_text(files.iter().map(|f| f.path.as_str()));
        if let Some(stats) = self.in_place(files, &paths, &manifest)? {
            return Ok((stats, self.release()));
        }
        let new = PathSet::new(paths.iter().copied());
        let mut kept = Vec::new();
        let mut removed = 0;
        // Listed again now, under the lock: what the user put in the folder while the
        // pages rendered is theirs and is carried over like the rest.
        let now = walk(&self.out)?;
        for (path, kind) in &now {
            match fate(
                path,
                matches!(kind, EntryKind::Dir(_)),
                &new,
                self.old.written(),
            ) {
                Fate::Ours => {}
                Fate::Removed => removed += 1,
                Fate::Kept => kept.push((path.as_path(), kind)),
                Fate::InTheWay(ours) => {
                    return Err(Error::InTheWay {
                        yours: self.out.join(path),
                        ours: self.out.join(ours),
                    });
                }
            }
        }
        let written = files.iter().filter(|f| f.staged).count();
        let stats = WriteStats {
            written,
            unchanged: files.len() - written,
            removed,
        };
        let mut leftovers = self.leftovers;
        if written == 0 && removed == 0 && self.old.manifest.as_deref() == Some(manifest.as_bytes())
        {
            leftovers.extend(self.staging.remove());
            return Ok((stats, leftovers));
        }
        let tree = self.staging.path().join(TREE);
        let assemble = Assemble {
            out: &self.out,
            tree: &tree,
            old: &self.old,
        };
        assemble.tree(files, &paths, &new, &kept, &manifest)?;
        assemble.swap(self.staging.path())?;
        leftovers.extend(self.staging.remove());
        Ok((stats, leftovers))
    }
}

impl Output {
    /// Puts a few changed files in place one by one, where the folder is as the last build
    /// left it around each of them: what will be done is written down first (a journal in
    /// the staging folder), so a build killed while renaming is completed by the next one
    /// before anything else. `None`, touching nothing, when the change is too large for
    /// that to pay, or anything around a changed path is unexpected (a link, a folder of
    /// the user's, another filesystem): the whole tree is then swapped as usual.
    fn in_place(
        &self,
        files: &[OutputFile],
        paths: &[&Path],
        manifest: &str,
    ) -> Result<Option<WriteStats>, Error> {
        let Some(old_manifest) = &self.old.manifest else {
            return Ok(None);
        };
        // The same files (an edit that adds and removes no page): nothing to compare. Else
        // each new file in its plain spelling, as text, which hashes at a fraction of the
        // cost of a `Path` (one edit that removes a file of the search index compared every
        // file of the site).
        let plain: Vec<Cow<str>> = match old_manifest.as_slice() == manifest.as_bytes() {
            true => Vec::new(),
            false => (files.iter())
                .map(|file| plain_spelling(&file.path))
                .collect(),
        };
        let removed = match plain.is_empty() {
            true => Vec::new(),
            false => removed_from(old_manifest, &plain),
        };
        let staged: Vec<&Path> = files
            .iter()
            .zip(paths)
            .filter_map(|(file, path)| file.staged.then_some(*path))
            .collect();
        let changes = staged.len() + removed.len();
        let stats = WriteStats {
            written: staged.len(),
            unchanged: files.len() - staged.len(),
            removed: removed.len(),
        };
        if changes == 0 && self.old.manifest.as_deref() == Some(manifest.as_bytes()) {
            return Ok(Some(stats));
        }
        if changes > IN_PLACE_MIN.max(files.len() / IN_PLACE_SHARE) {
            return Ok(None);
        }
        let Some(folder) = folder_id(&self.out) else {
            return Ok(None);
        };
        let expected = |relative: &Path| plain_way(&self.out, relative, folder.0);
        if !staged
            .iter()
            .copied()
            .chain(removed.iter().map(PathBuf::as_path))
            .all(expected)
        {
            return Ok(None);
        }
        let staging = self.staging.path();
        let manifest_path = staging.join("manifest");
        fs::write(&manifest_path, manifest).map_err(io_at("write", &manifest_path))?;
        // The folder it is for: a journal is never carried out in another (one restored
        // from a backup in its place).
        let mut journal = format!("o\t{}\t{}\n", folder.0, folder.1);
        for path in &staged {
            journal.push_str(&format!("t\t{}\n", path.display()));
        }
        for path in &removed {
            journal.push_str(&format!("d\t{}\n", path.display()));
        }
        journal.push_str(&format!("w\tmanifest\t{MANIFEST}\n"));
        // Written aside, then named: a journal is there whole or not at all.
        let part = staging.join("journal.part");
        fs::write(&part, &journal).map_err(io_at("write", &part))?;
        fs::rename(&part, staging.join(JOURNAL)).map_err(io_at("write", &part))?;
        replay(&self.out, staging, &journal)?;
        if !removed.is_empty() {
            self.remove_emptied(&removed, &plain);
        }
        Ok(Some(stats))
    }

    /// Removes the folders of ours that the removal of `removed` emptied, deepest first:
    /// those on the way to a removed file (the last build's, so ours) that hold no file of
    /// the new site (`plain`: its paths in their plain spelling).
    fn remove_emptied(&self, removed: &[PathBuf], plain: &[Cow<str>]) {
        let mut emptied: Vec<&str> = removed
            .iter()
            .flat_map(|path| path.ancestors().skip(1))
            .filter_map(Path::to_str)
            .filter(|dir| !dir.is_empty())
            .collect();
        emptied.sort_by_key(|dir| std::cmp::Reverse(dir.matches('/').count()));
        emptied.dedup();
        let candidates: HashSet<&str> = emptied.iter().copied().collect();
        let still: HashSet<&str> = plain
            .iter()
            .flat_map(|path| path.match_indices('/').map(|(at, _)| &path[..at]))
            .filter(|dir| candidates.contains(dir))
            .collect();
        for dir in emptied.into_iter().filter(|dir| !still.contains(dir)) {
            // Not empty: something of the user's is in it, and stays.
            let _ = fs::remove_dir(self.out.join(dir));
        }
    }
}

/// The files the last build's manifest (`old_manifest`) lists and the new site (`plain`,
/// its paths in their plain spelling) has not, each once in its plain spelling (a line
/// `p/x.html/` names the file `p/x.html`, as `Path` compares them).
fn removed_from(old_manifest: &[u8], plain: &[Cow<str>]) -> Vec<PathBuf> {
    let new_files: HashSet<&str> = plain.iter().map(|path| path.as_ref()).collect();
    let old_text = String::from_utf8_lossy(old_manifest);
    let mut removed: Vec<PathBuf> = manifest_lines(&old_text)
        .map(plain_spelling)
        .filter(|path| !new_files.contains(path.as_ref()))
        .map(|path| PathBuf::from(path.as_ref()))
        .collect();
    removed.sort();
    removed.dedup();
    removed
}
