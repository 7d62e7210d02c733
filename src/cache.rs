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
//!   (slugs and URLs as the parser checks them).
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

/// The cache folder's name at the site root.
pub const CACHE_DIR: &str = ".outages-cache";
/// The one file of the cache.
const FILE: &str = "build";
const MAGIC: &[u8; 20] = b"outages build cache\n";
/// Bumped whenever what is stored changes shape.
const FORMAT: u32 = 3;
/// The largest entry read back: a content file is at most a few megabytes.
const MAX_ENTRY: u64 = 256 << 20;
/// The buffer between the stored part and the file, both ways: large enough for the hash
/// to work on many blocks at once.
const BUFFER: usize = 256 << 10;
/// How close to the last scan a file's mtime may be before its times are not trusted.
const RACY: Duration = Duration::from_secs(2);

/// A 32-byte hash.
pub type Hash = [u8; 32];

/// The program: what it is built from (`build.rs` hashes its sources, theme, locked
/// dependencies and compiler), so a cache or an index made by another version is never
/// taken back, while a rebuild of the same sources (a CI runner's) keeps them.
pub fn program() -> &'static Hash {
    static PROGRAM: std::sync::OnceLock<Hash> = std::sync::OnceLock::new();
    PROGRAM.get_or_init(|| *blake3::hash(env!("OUTAGES_BUILD_ID").as_bytes()).as_bytes())
}

/// What a file's metadata says of it: equal stamps, same bytes (with the racy exception).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    size: u64,
    inode: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    pub fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            size: meta.len(),
            inode: meta.ino(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// A stamp from the fields of a `stat` (whatever their integer types on this
    /// platform).
    pub fn from_stat(
        size: impl Into<i128>,
        inode: impl Into<i128>,
        mtime: (impl Into<i128>, impl Into<i128>),
        ctime: (impl Into<i128>, impl Into<i128>),
    ) -> Stamp {
        let int = |v: i128| i64::try_from(v).unwrap_or(i64::MAX);
        Stamp {
            size: u64::try_from(size.into()).unwrap_or(u64::MAX),
            inode: u64::try_from(inode.into()).unwrap_or(u64::MAX),
            mtime: (int(mtime.0.into()), int(mtime.1.into())),
            ctime: (int(ctime.0.into()), int(ctime.1.into())),
        }
    }

    /// Whether a file stamped so after `looked` would be trusted by its stamp alone: it
    /// was last changed well before.
    pub fn settled(&self, looked: SystemTime) -> bool {
        !self.racy(moment(looked))
    }

    /// Whether the file was changed so close to `looked` (the moment before it was
    /// stamped) that another change in the same clock tick could leave the same stamp.
    /// The later of the two times counts: a user can put the mtime back, not the ctime.
    fn racy(&self, looked: (i64, i64)) -> bool {
        let ns = |(secs, nanos): (i64, i64)| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        let latest = ns(self.mtime).max(ns(self.ctime));
        latest + RACY.as_nanos() as i128 >= ns(looked)
    }
}

/// A file of the output as a build left it: its stamp, and the hash of the bytes the build
/// meant it to hold. A file whose stamp is not the one recorded, or is racy, is hashed
/// again: only its bytes say whether it is still the build's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Left {
    pub stamp: Stamp,
    pub hash: Hash,
}

/// The files of the output as a build left them, with when they were looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lefts {
    /// The moment before the first of the stamps was taken, as seconds and nanoseconds
    /// since the epoch.
    looked: (i64, i64),
    /// Each file the manifest lists, in its order (`None`: not a file the build could
    /// read back, never trusted).
    pub each: Vec<Option<Left>>,
}

impl Lefts {
    pub fn new(looked: SystemTime, each: Vec<Option<Left>>) -> Lefts {
        Lefts {
            looked: moment(looked),
            each,
        }
    }

    /// Whether `left`, seen as `now`, can be taken as unchanged without reading it.
    pub fn trusted(&self, left: &Left, now: &Stamp) -> bool {
        left.stamp == *now && !now.racy(self.looked)
    }
}

/// A moment as seconds and nanoseconds since the epoch (before it: the epoch).
fn moment(time: SystemTime) -> (i64, i64) {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(since) => (
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
            i64::from(since.subsec_nanos()),
        ),
        Err(_) => (0, 0),
    }
}

/// One input file as the last build saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seen {
    pub path: PathBuf,
    pub stamp: Stamp,
    pub hash: Hash,
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
    pub providers: usize,
    pub pages: usize,
    pub files: usize,
    pub warnings: Vec<Diagnostic>,
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
    pub written: Option<Written>,
    /// The length and hash of what the content files gave, as stored.
    stored: (u64, Hash),
}

impl Index {
    pub fn new(
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

/// A reader of a file from an offset of its own, so that readers of one file never move
/// each other's place.
struct At<'a> {
    file: &'a File,
    offset: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::unix::fs::FileExt as _;
        let n = self.file.read_at(buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

/// What the content files gave, as read from the cache file.
struct Stored<'a> {
    reader: BufReader<Checked<io::Take<At<'a>>>>,
    expected: (u64, Hash),
}

impl Stored<'_> {
    /// The bytes of one length-prefixed entry.
    fn entry(&mut self) -> Option<Vec<u8>> {
        let mut len = [0u8; 8];
        self.reader.read_exact(&mut len).ok()?;
        let len = u64::from_le_bytes(len);
        if len > MAX_ENTRY {
            return None;
        }
        // Allocated at most a buffer's worth ahead: a damaged length asks for no more
        // memory than the file holds, and that buffer.
        let mut buffer = Vec::with_capacity(len.min(BUFFER as u64) as usize);
        (&mut self.reader).take(len).read_to_end(&mut buffer).ok()?;
        (buffer.len() as u64 == len).then_some(buffer)
    }

    /// Whether everything was read, and was what the index says.
    fn finish(mut self) -> bool {
        let mut rest = [0u8; 1];
        let at_end = matches!(self.reader.read(&mut rest), Ok(0));
        let checked = self.reader.get_ref();
        at_end
            && checked.read_total == self.expected.0
            && checked.hasher.finalize().as_bytes() == &self.expected.1
    }
}

/// What a cache written now stores of each content file, in the index's order: its parsed
/// form, encoded now (`Some`), or what `earlier` stored for the same path, copied byte for
/// byte (`None`): a build after one edit encodes one file, not the archive.
pub struct Bodies<'a> {
    pub earlier: Option<&'a Cache>,
    pub each: Vec<Option<&'a Loaded>>,
}

impl<'a> Bodies<'a> {
    /// Every file's parsed form, encoded now.
    pub fn encoded(loaded: Vec<&'a Loaded>) -> Bodies<'a> {
        Bodies {
            earlier: None,
            each: loaded.into_iter().map(Some).collect(),
        }
    }

    /// What `earlier` stored, for the same files in its order.
    pub fn same(earlier: &'a Cache) -> Bodies<'a> {
        Bodies {
            earlier: Some(earlier),
            each: vec![None; earlier.index.content.len()],
        }
    }
}

/// What an earlier cache stored, read in its order as a cache written now asks for it.
struct Earlier<'a> {
    seen: &'a [Seen],
    stored: Stored<'a>,
    next: usize,
}

impl Earlier<'_> {
    /// The stored bytes of the file `now` sees, skipping (but checking) those of paths
    /// before it; only if they were stored for the same bytes of it.
    fn take(&mut self, now: &Seen) -> io::Result<Vec<u8>> {
        while let Some(seen) = self.seen.get(self.next) {
            self.next += 1;
            let bytes = self
                .stored
                .entry()
                .ok_or_else(|| damaged("the cache to copy from is damaged"))?;
            if seen.path == now.path {
                return match seen.hash == now.hash {
                    true => Ok(bytes),
                    false => Err(damaged("the cache to copy from holds other bytes")),
                };
            }
        }
        Err(damaged("the cache to copy from lacks a file"))
    }

    /// Reads what is left, to check it all.
    fn finish(mut self) -> io::Result<()> {
        for _ in self.next..self.seen.len() {
            self.stored
                .entry()
                .ok_or_else(|| damaged("the cache to copy from is damaged"))?;
        }
        match self.stored.finish() {
            true => Ok(()),
            false => Err(damaged("the cache to copy from is damaged")),
        }
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

/// The file: the preamble (magic, format, key), what the content files gave, the index,
/// the index's length and the hash of the preamble and the index. The index comes last
/// so that the rest can be written as it is made; it is read first, and alone.
fn read_file(path: &Path, key: &Hash) -> Option<Cache> {
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut preamble = [0u8; PREAMBLE];
    file.read_exact(&mut preamble).ok()?;
    if preamble != self::preamble(key) {
        return None;
    }
    let trailer = len.checked_sub((PREAMBLE + 40) as u64)?;
    file.seek(SeekFrom::Start(PREAMBLE as u64 + trailer)).ok()?;
    let mut tail = [0u8; 40];
    file.read_exact(&mut tail).ok()?;
    let index_len = u64::from_le_bytes(tail[..8].try_into().ok()?);
    let stored_len = trailer.checked_sub(index_len)?;
    file.seek(SeekFrom::Start(PREAMBLE as u64 + stored_len))
        .ok()?;
    // Read as it comes, not allocated first: a damaged length asks for no more memory
    // than the file holds.
    let mut bytes = Vec::new();
    (&mut file).take(index_len).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 != index_len {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(&preamble);
    hasher.update(&bytes);
    if hasher.finalize().as_bytes() != &tail[8..] {
        return None;
    }
    let index: Index = postcard::from_bytes(&bytes).ok()?;
    // Every path a relative path under `content/`, in order, as the listing gives them:
    // a cache made by hand names nothing else.
    let paths_ok = index.content.iter().all(|seen| {
        seen.path.starts_with(crate::content::CONTENT_DIR)
            && seen
                .path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
    }) && index.content.is_sorted_by(|a, b| a.path < b.path);
    (index.stored.0 == stored_len && index.scanned().is_some() && paths_ok).then_some(Cache {
        index,
        file: Some(file),
    })
}

/// The length of the preamble.
const PREAMBLE: usize = MAGIC.len() + 4 + 32;

fn preamble(key: &Hash) -> [u8; PREAMBLE] {
    let mut preamble = [0u8; PREAMBLE];
    preamble[..MAGIC.len()].copy_from_slice(MAGIC);
    preamble[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&FORMAT.to_le_bytes());
    preamble[MAGIC.len() + 4..].copy_from_slice(key);
    preamble
}

/// A reader that hashes and counts what it reads.
struct Checked<R> {
    inner: R,
    hasher: blake3::Hasher,
    read_total: u64,
}

impl<R: Read> Checked<R> {
    fn new(inner: R) -> Checked<R> {
        Checked {
            inner,
            hasher: blake3::Hasher::new(),
            read_total: 0,
        }
    }
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.read_total += n as u64;
        Ok(n)
    }
}

/// A writer that hashes and counts what it writes.
struct Hashing<W> {
    inner: W,
    hasher: blake3::Hasher,
    written: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Makes the cache folder if missing, with a `CACHEDIR.TAG` so backup tools skip it.
pub fn make_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let tag = dir.join("CACHEDIR.TAG");
    if !tag.exists() {
        fs::write(
            &tag,
            "Signature: 8a477f597d28d172789f06886806bc55\n# The cache of outages: safe to delete, made again by the next build or sync.\n",
        )?;
    }
    Ok(())
}

/// Writes the cache into `dir` ([made](make_dir) if missing), aside first, then renamed
/// over the old one. `bodies` are in the order of `index.content`.
pub fn write(dir: &Path, key: &Hash, index: &mut Index, bodies: Bodies<'_>) -> io::Result<()> {
    begin(dir, key, &index.content, bodies)?.finish(index)
}

/// A cache file written aside, what the content files gave in it and its index to come:
/// the index says what the build wrote, which is known only at its end, and the rest can
/// be written before. Removed if dropped unfinished.
pub struct Begun {
    aside: Aside,
    out: File,
    preamble: [u8; PREAMBLE],
    /// How many content files it stores, and the length and hash of what they gave.
    entries: usize,
    stored: (u64, Hash),
}

/// Begins the cache file of `dir` ([made](make_dir) if missing) with what each file of
/// `content` gave (`bodies`, in its order).
pub fn begin(dir: &Path, key: &Hash, content: &[Seen], bodies: Bodies<'_>) -> io::Result<Begun> {
    let aside = Aside::new(dir, FILE)?;
    let preamble = preamble(key);
    let mut out = File::create(&aside.temporary)?;
    out.write_all(&preamble)?;
    // Hashed under the buffer: the hash sees large blocks, not one entry at a time.
    let hashing = Hashing {
        inner: out,
        hasher: blake3::Hasher::new(),
        written: 0,
    };
    let mut stored = BufWriter::with_capacity(BUFFER, hashing);
    if bodies.each.len() != content.len() {
        return Err(io::Error::other("the cache's index and content differ"));
    }
    let mut earlier = match bodies.earlier {
        Some(cache) if bodies.each.iter().any(Option::is_none) => Some(Earlier {
            seen: &cache.index.content,
            stored: cache
                .stored()
                .ok_or_else(|| damaged("the cache to copy from is gone"))?,
            next: 0,
        }),
        _ => None,
    };
    // Encoded in parallel, a chunk at a time, written in order.
    for (at, chunk) in bodies.each.chunks(1024).enumerate() {
        let encoded: Vec<Option<io::Result<Vec<u8>>>> =
            chunk.par_iter().map(|loaded| loaded.map(encode)).collect();
        for (i, bytes) in encoded.into_iter().enumerate() {
            let bytes = match (bytes, &mut earlier) {
                (Some(bytes), _) => bytes?,
                (None, Some(earlier)) => earlier.take(&content[at * 1024 + i])?,
                (None, None) => return Err(damaged("no cache to copy from")),
            };
            stored.write_all(&(bytes.len() as u64).to_le_bytes())?;
            stored.write_all(&bytes)?;
        }
    }
    if let Some(earlier) = earlier {
        earlier.finish()?;
    }
    let Hashing {
        inner,
        hasher,
        written,
    } = stored
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    Ok(Begun {
        aside,
        out: inner,
        preamble,
        entries: content.len(),
        stored: (written, *hasher.finalize().as_bytes()),
    })
}

impl Begun {
    /// Writes `index` (of the content it was begun with) after what the files gave, then
    /// renames the file over the old one: a reader finds the old cache or the new, whole.
    pub fn finish(self, index: &mut Index) -> io::Result<()> {
        let Begun {
            aside,
            mut out,
            preamble,
            entries,
            stored,
        } = self;
        if index.content.len() != entries {
            return Err(io::Error::other("the cache's index and content differ"));
        }
        index.stored = stored;
        let bytes = encode(&*index)?;
        // Not synced to the disk: a cache torn by a crash fails its checksum and is ignored.
        out.write_all(&bytes)?;
        out.write_all(&trailer(&preamble, &bytes))?;
        drop(out);
        aside.keep()
    }
}

/// A file of the cache folder being written aside (`<name>.<pid>.tmp`), renamed over
/// `name` once whole, so that a reader finds the old file or the new; removed if dropped
/// before.
struct Aside {
    temporary: PathBuf,
    path: PathBuf,
    kept: bool,
}

impl Aside {
    /// Makes the cache folder `dir` if missing, and clears what builds killed while
    /// writing left in it.
    fn new(dir: &Path, name: &str) -> io::Result<Aside> {
        make_dir(dir)?;
        clear_killed(dir);
        Ok(Aside {
            temporary: dir.join(format!("{name}.{}.tmp", std::process::id())),
            path: dir.join(name),
            kept: false,
        })
    }

    fn keep(mut self) -> io::Result<()> {
        fs::rename(&self.temporary, &self.path)?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for Aside {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Removes the files written aside in the cache folder `dir` by processes that no longer
/// run (killed while writing: a cache is some 150 MB at 100,000 incidents). Those of a
/// running process, another build's, are its own.
fn clear_killed(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(aside_pid) else {
            continue;
        };
        if pid != std::process::id() && !running(pid) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The process that writes or wrote a file aside, from its name (`<name>.<pid>.tmp`).
fn aside_pid(name: &str) -> Option<u32> {
    let (_, pid) = name.strip_suffix(".tmp")?.rsplit_once('.')?;
    // Digits only (`parse` would take a `+`).
    pid.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| pid.parse().ok())?
}

/// Whether process `pid` runs (or may: one that cannot be asked counts as running).
fn running(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    rustix::process::test_kill_process(pid) != Err(rustix::io::Errno::SRCH)
}

/// Writes the file `name` of the cache folder `dir` ([made](make_dir) if missing) through
/// `write`, aside first, then renamed over the old one: a reader finds the old or the new.
pub fn write_aside(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let aside = Aside::new(dir, name)?;
    write(&aside.temporary)?;
    aside.keep()
}

/// The cache folder of the site at `root`, unless told otherwise.
pub fn default_dir(root: &Path) -> PathBuf {
    root.join(CACHE_DIR)
}

/// What follows the index: its length, and the hash of the preamble and the index.
fn trailer(preamble: &[u8; PREAMBLE], index: &[u8]) -> [u8; 40] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(preamble);
    hasher.update(index);
    let mut trailer = [0u8; 40];
    trailer[..8].copy_from_slice(&(index.len() as u64).to_le_bytes());
    trailer[8..].copy_from_slice(hasher.finalize().as_bytes());
    trailer
}

/// The bytes of a cache file for `key` that holds `stored` and `index` as given, unchecked,
/// with the index's checksum right: what a cache made by hand can be (for the fuzzer).
pub fn sealed(key: &Hash, stored: &[u8], index: &[u8]) -> Vec<u8> {
    let preamble = preamble(key);
    [&preamble[..], stored, index, &trailer(&preamble, index)].concat()
}

/// The error of a cache that cannot be copied because it cannot be trusted.
fn damaged(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

fn encode<T: Serialize>(value: &T) -> io::Result<Vec<u8>> {
    postcard::to_allocvec(value).map_err(io::Error::other)
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

#[cfg(test)]
mod tests {
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
}
