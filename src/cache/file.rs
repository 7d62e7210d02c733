//! The cache file: its preamble, its checksummed parts, and how it is written aside and
//! renamed into place, so that a build killed at any instant leaves the old one or the new.

use super::*;

/// The one file of the cache.
pub(super) const FILE: &str = "build";
pub(super) const MAGIC: &[u8; 20] = b"outages build cache\n";
/// Bumped whenever what is stored changes shape.
pub(super) const FORMAT: u32 = 3;
/// The largest entry read back: a content file is at most a few megabytes.
pub(super) const MAX_ENTRY: u64 = 256 << 20;
/// The buffer between the stored part and the file, both ways: large enough for the hash
/// to work on many blocks at once.
pub(super) const BUFFER: usize = 256 << 10;
/// A reader of a file from an offset of its own, so that readers of one file never move
/// each other's place.
pub(super) struct At<'a> {
    pub(super) file: &'a File,
    pub(super) offset: u64,
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
pub(super) struct Stored<'a> {
    pub(super) reader: BufReader<Checked<io::Take<At<'a>>>>,
    pub(super) expected: (u64, Hash),
}

impl Stored<'_> {
    /// The bytes of one length-prefixed entry.
    pub(super) fn entry(&mut self) -> Option<Vec<u8>> {
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
    pub(super) fn finish(mut self) -> bool {
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
    pub(crate) earlier: Option<&'a Cache>,
    pub(crate) each: Vec<Option<&'a Loaded>>,
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
pub(super) struct Earlier<'a> {
    pub(super) seen: &'a [Seen],
    pub(super) stored: Stored<'a>,
    pub(super) next: usize,
}

impl Earlier<'_> {
    /// The stored bytes of the file `now` sees, skipping (but checking) those of paths
    /// before it; only if they were stored for the same bytes of it.
    pub(super) fn take(&mut self, now: &Seen) -> io::Result<Vec<u8>> {
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
    pub(super) fn finish(mut self) -> io::Result<()> {
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

/// The file: the preamble (magic, format, key), what the content files gave, the index,
/// the index's length and the hash of the preamble and the index. The index comes last
/// so that the rest can be written as it is made; it is read first, and alone.
pub(super) fn read_file(path: &Path, key: &Hash) -> Option<Cache> {
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
pub(super) const PREAMBLE: usize = MAGIC.len() + 4 + 32;

pub(super) fn preamble(key: &Hash) -> [u8; PREAMBLE] {
    let mut preamble = [0u8; PREAMBLE];
    preamble[..MAGIC.len()].copy_from_slice(MAGIC);
    preamble[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&FORMAT.to_le_bytes());
    preamble[MAGIC.len() + 4..].copy_from_slice(key);
    preamble
}

/// A reader that hashes and counts what it reads.
pub(super) struct Checked<R> {
    pub(super) inner: R,
    pub(super) hasher: blake3::Hasher,
    pub(super) read_total: u64,
}

impl<R: Read> Checked<R> {
    pub(super) fn new(inner: R) -> Checked<R> {
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
pub(super) struct Hashing<W> {
    pub(super) inner: W,
    pub(super) hasher: blake3::Hasher,
    pub(super) written: u64,
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
    pub(super) aside: Aside,
    pub(super) out: File,
    pub(super) preamble: [u8; PREAMBLE],
    /// How many content files it stores, and the length and hash of what they gave.
    pub(super) entries: usize,
    pub(super) stored: (u64, Hash),
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
pub(super) struct Aside {
    pub(super) temporary: PathBuf,
    pub(super) path: PathBuf,
    pub(super) kept: bool,
}

impl Aside {
    /// Makes the cache folder `dir` if missing, and clears what builds killed while
    /// writing left in it.
    pub(super) fn new(dir: &Path, name: &str) -> io::Result<Aside> {
        make_dir(dir)?;
        clear_killed(dir);
        Ok(Aside {
            temporary: dir.join(format!("{name}.{}.tmp", std::process::id())),
            path: dir.join(name),
            kept: false,
        })
    }

    pub(super) fn keep(mut self) -> io::Result<()> {
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
pub(super) fn clear_killed(dir: &Path) {
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
pub(super) fn aside_pid(name: &str) -> Option<u32> {
    let (_, pid) = name.strip_suffix(".tmp")?.rsplit_once('.')?;
    // Digits only (`parse` would take a `+`).
    pid.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| pid.parse().ok())?
}

/// Whether process `pid` runs (or may: one that cannot be asked counts as running).
pub(super) fn running(pid: u32) -> bool {
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

/// What follows the index: its length, and the hash of the preamble and the index.
pub(super) fn trailer(preamble: &[u8; PREAMBLE], index: &[u8]) -> [u8; 40] {
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
pub(super) fn damaged(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

pub(super) fn encode<T: Serialize>(value: &T) -> io::Result<Vec<u8>> {
    postcard::to_allocvec(value).map_err(io::Error::other)
}
