//! The build cache: what the last build read and wrote, kept in `.outages-cache/` at the
//! site root (or `--cache-dir`), so that the next build parses again only the files that
//! changed and renders again only the pages whose declared inputs changed.
//!
//! - A file is looked at as git looks at its index: its size, inode and times first, its
//!   bytes (hashed) only when those differ, or when it was written so close to the last
//!   scan that a change in the same clock tick could hide behind equal times.
//! - The cache is one file, written aside and renamed into place, with a checksum: a build
//!   killed at any instant leaves the previous cache or the new one. One that is damaged,
//!   truncated, of another format, of another program or of another site folder is
//!   ignored and replaced, never trusted; what it holds is checked again as it is read
//!   (slugs and URLs as the parser checks them). Beside it, with search on, the search
//!   index's words (`search-words`), written the same way, with a hash of its own.
//! - It holds what parsing gave (the incidents), the fingerprint of what every page reads
//!   besides them (the program, the options, `site.yaml`, the templates and static files),
//!   and a hash of the manifest of the output it produced: only an output that still holds
//!   exactly that build is updated page by page.
//! - Each output file is known the same way, by its stamp and the hash of the bytes the
//!   build meant it to hold: one whose stamp differs, or is racy, is hashed again, so a
//!   page rewritten to the same size with its mtime put back is never taken for the
//!   build's.
//! - Its index (what was seen of each file, and what was written) is read apart from the
//!   parsed incidents, which are read only when a build needs them: a build with nothing
//!   to do reads the index alone (and copies the rest, checked, when files were seen with
//!   new times, as after a checkout).

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::content::Loaded;
use crate::diagnostics::Diagnostic;

mod file;
mod stamp;
#[cfg(test)]
mod tests;

use file::*;
pub use file::{Begun, Bodies, begin, make_dir, sealed, write, write_aside};
use stamp::*;
pub use stamp::{Left, Lefts, Stamp};

/// The cache folder's name at the site root.
pub const CACHE_DIR: &str = ".outages-cache";

/// The file of the cache folder that keeps the words Pagefind was asked about, and how it
/// reads them, from one build with search to the next.
pub(crate) const SEARCH_WORDS: &str = "search-words";

/// A 32-byte hash.
pub type Hash = [u8; 32];

/// The program: what it is built from (`build.rs` hashes its sources, theme, locked
/// dependencies and compiler), so a cache or an index made by another version is never
/// taken back, while a rebuild of the same sources (a CI runner's) keeps them.
pub fn program() -> &'static Hash {
    static PROGRAM: std::sync::OnceLock<Hash> = std::sync::OnceLock::new();
    PROGRAM.get_or_init(|| *blake3::hash(env!("OUTAGES_BUILD_ID").as_bytes()).as_bytes())
}

/// One input file as the last build saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seen {
    /// The file, relative to the site root: `content/acme/a.md`.
    pub path: PathBuf,
    pub(crate) stamp: Stamp,
    pub(crate) hash: Hash,
}

/// What the last build wrote, and from what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    /// The program, the options, the output folder and every input but the content.
    pub key: Hash,
    /// The hash of the output's manifest once written.
    pub manifest: Hash,
    /// The fingerprint of the plan ([`crate::render::fingerprint`]), so a build after an
    /// edit makes the last build's plan only if its own differs.
    pub plan: Hash,
    /// Each file the manifest lists, in its order, as the build left it.
    pub left: Lefts,
    /// For the summary of a build that has nothing to do.
    pub incidents: usize,
    pub(crate) providers: usize,
    pub(crate) pages: usize,
    pub(crate) files: usize,
    pub(crate) warnings: Vec<Diagnostic>,
}

/// Everything the cache holds but what the content files gave: all that a build with
/// nothing to do reads.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Index {
    /// When the inputs were looked at, as seconds and nanoseconds since the epoch.
    scanned: (u64, u32),
    /// The templates, static files and `site.yaml`.
    pub theme: Vec<Seen>,
    /// Each content file that parsed, in path order; what it gave is stored in the same
    /// order after the index.
    pub content: Vec<Seen>,
    pub(crate) written: Option<Written>,
    /// The length and hash of what the content files gave, as stored.
    stored: (u64, Hash),
}

impl Index {
    pub(crate) fn new(
        scanned: SystemTime,
        theme: Vec<Seen>,
        content: Vec<Seen>,
        written: Option<Written>,
    ) -> Index {
        let since = scanned
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        Index {
            scanned: (since.as_secs(), since.subsec_nanos()),
            theme,
            content,
            written,
            stored: (0, [0; 32]),
        }
    }

    /// When the inputs were looked at: `None` for an empty cache (nothing is trusted).
    pub fn scanned(&self) -> Option<SystemTime> {
        (self.scanned != (0, 0) && self.scanned.1 < 1_000_000_000)
            .then(|| {
                SystemTime::UNIX_EPOCH.checked_add(Duration::new(self.scanned.0, self.scanned.1))
            })
            .flatten()
    }
}

/// A cache as read back: its index, and what the content files gave, still on disk and
/// read only when asked for (a build with nothing to do reads it only to copy it, when
/// files were seen with new times).
#[derive(Debug, Default)]
pub struct Cache {
    /// Its index, read in full (empty for a cache that could not be trusted).
    pub index: Index,
    /// The cache file, held open: another build may replace it meanwhile.
    file: Option<File>,
}

impl Cache {
    /// What each file of the index gave, in its order; `None` when it cannot be trusted
    /// (then the files are parsed again).
    pub fn loaded(&self) -> Option<Vec<Loaded>> {
        let mut reader = self.stored()?;
        let mut loaded = Vec::with_capacity(self.index.content.len());
        // A batch at a time, decoded in parallel while the next is read.
        let mut left = self.index.content.len();
        let mut read = || -> Option<Vec<Vec<u8>>> {
            let batch = left.min(1024);
            left -= batch;
            (0..batch).map(|_| reader.entry()).collect()
        };
        let mut raw = read()?;
        while !raw.is_empty() {
            let (decoded, next) = rayon::join(
                || {
                    raw.par_iter()
                        .map(|bytes| postcard::from_bytes(bytes).ok())
                        .collect::<Option<Vec<Loaded>>>()
                },
                &mut read,
            );
            loaded.extend(decoded?);
            raw = next?;
        }
        reader.finish().then_some(loaded)
    }

    /// A reader of what the content files gave, as stored: it checks the length and hash
    /// the index gives.
    fn stored(&self) -> Option<Stored<'_>> {
        let at = At {
            file: self.file.as_ref()?,
            offset: PREAMBLE as u64,
        };
        // Hashed under the buffer: the hash sees large blocks, not one entry at a time.
        let checked = Checked::new(at.take(self.index.stored.0));
        Some(Stored {
            reader: BufReader::with_capacity(BUFFER, checked),
            expected: self.index.stored,
        })
    }
}

/// What the cache is for: this program, this site folder (as written: messages name
/// files under it). Another key, another cache.
pub fn key(root: &Path) -> Hash {
    let mut hasher = blake3::Hasher::new();
    hasher.update(program());
    hasher.update(&FORMAT.to_le_bytes());
    hasher.update(root.as_os_str().as_encoded_bytes());
    *hasher.finalize().as_bytes()
}

/// The cache in `dir` for `key`, or an empty one if there is none that can be trusted.
pub fn read(dir: &Path, key: &Hash) -> Cache {
    read_file(&dir.join(FILE), key).unwrap_or_default()
}

/// The cache folder of the site at `root`, unless told otherwise.
pub fn default_dir(root: &Path) -> PathBuf {
    root.join(CACHE_DIR)
}

/// Whether a file seen as `stamp` now is, without reading it, the one `seen` describes:
/// same metadata, and not written in the last moments before that scan (a write in the
/// same clock tick after the scan would leave the times equal).
pub fn unchanged(seen: &Seen, stamp: &Stamp, scanned: Option<SystemTime>) -> bool {
    // In whole seconds, checked: a file may be dated before 1970 or far in the future.
    let scanned = scanned
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .and_then(|since| i64::try_from(since.as_secs()).ok());
    let old_enough = scanned.is_some_and(|scanned| {
        stamp
            .mtime
            .0
            .checked_add(RACY.as_secs() as i64 + 1)
            .is_some_and(|limit| limit <= scanned)
    });
    seen.stamp == *stamp && old_enough
}

/// Looks at the files (relative to `root`) against what `before` saw: each is taken as
/// unchanged from its stamp, or read and hashed, and if its bytes differ, given to `parse`
/// (the same bytes that were hashed: what is kept always matches its hash).
pub fn look<'a, T: Send>(
    root: &Path,
    paths: &[PathBuf],
    before: &(dyn Fn(&Path) -> Option<&'a Seen> + Sync),
    scanned: Option<SystemTime>,
    parse: impl Fn(&Path, Vec<u8>) -> T + Sync,
) -> Vec<Looked<T>> {
    paths
        .par_iter()
        .map(|path| {
            let full = root.join(path);
            let previous = before(path);
            // Only a plain file is read: a FIFO would block, a link is not followed.
            let Some(meta) = fs::symlink_metadata(&full)
                .ok()
                .filter(fs::Metadata::is_file)
            else {
                return Looked::Unreadable(path.clone());
            };
            let stamp = Stamp::of(&meta);
            if let Some(seen) = previous.filter(|s| unchanged(s, &stamp, scanned)) {
                return Looked::Same(seen.clone());
            }
            let Ok(bytes) = fs::read(&full) else {
                return Looked::Unreadable(path.clone());
            };
            let seen = Seen {
                path: path.clone(),
                stamp,
                hash: *blake3::hash(&bytes).as_bytes(),
            };
            match previous {
                Some(old) if old.hash == seen.hash => Looked::Same(seen),
                _ => Looked::Changed(seen.clone(), parse(path, bytes)),
            }
        })
        .collect()
}

/// What looking at one file found.
#[derive(Debug, Clone)]
pub enum Looked<T> {
    /// The same bytes as before (with its stamp of now).
    Same(Seen),
    /// New, or other bytes, and what they gave.
    Changed(Seen, T),
    /// Gone, or cannot be read now: parsed again, which reports why.
    Unreadable(PathBuf),
}

impl<T> Looked<T> {
    /// What is seen of the file now, if it could be read.
    pub fn seen(&self) -> Option<&Seen> {
        match self {
            Looked::Same(seen) | Looked::Changed(seen, _) => Some(seen),
            Looked::Unreadable(_) => None,
        }
    }
}
