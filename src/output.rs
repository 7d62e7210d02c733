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

/// A site path as a path relative to the output folder, or `None` if it could leave it
/// or could not be one line of the manifest.
fn site_relative(site_path: &str) -> Option<&Path> {
    // What `Path::components` would give, read from the bytes (a build looks at every
    // path of its output): no root, no `..`, no leading `.` (a `.` further in, or an
    // empty part, is no component at all).
    let inside = !site_path.is_empty()
        && !site_path.starts_with('/')
        && !site_path.contains(['\\', '\n', '\r'])
        && site_path
            .split('/')
            .enumerate()
            .all(|(n, part)| part != ".." && (n > 0 || part != "."));
    inside.then_some(Path::new(site_path))
}

/// The path of a file the site writes, relative to the output folder: one that stays in
/// it and is not the manifest.
fn site_file(site_path: &str) -> Result<&Path, Error> {
    site_relative(site_path)
        .filter(|p| *p != Path::new(MANIFEST))
        .ok_or_else(|| Error::BadPath(site_path.to_string()))
}

/// Opens a file for reading, refusing a symlink (the walk already refused symlinked folders).
fn open_nofollow(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(File::from(fd))
}

/// An entry of the old output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    File,
    Dir(fs::Permissions),
    Symlink,
    /// A FIFO, socket or device: carried over by a hard link, never opened.
    Other,
}

/// Site paths as files, and every folder holding one.
#[derive(Debug, Default)]
struct PathSet {
    files: HashSet<PathBuf>,
    dirs: HashSet<PathBuf>,
}

impl PathSet {
    fn new<'a>(paths: impl IntoIterator<Item = &'a Path>) -> PathSet {
        let mut set = PathSet::default();
        for path in paths {
            for dir in path.ancestors().skip(1) {
                // Once a folder is known, so are the ones above it.
                if dir.as_os_str().is_empty() || !set.dirs.insert(dir.to_path_buf()) {
                    break;
                }
            }
            set.files.insert(path.to_path_buf());
        }
        set
    }

    /// What a manifest lists.
    fn from_manifest(bytes: &[u8]) -> PathSet {
        PathSet::new(manifest_lines(&String::from_utf8_lossy(bytes)).map(Path::new))
    }
}

/// The lines of a manifest that name a file of the site: those that could leave the output
/// folder, or name the manifest itself, are ignored.
fn manifest_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|line| site_relative(line).is_some_and(|path| path != Path::new(MANIFEST)))
}

/// How each of these files of the output folder `out` is now: `None` when it is not a
/// plain file reached through folders only, no link.
///
/// One `stat` a file, relative to the folder, and one for each folder on the way: every
/// folder is checked not to be a link first, so the path to each file is one of folders
/// (a build after nothing changed looks at every file of the output: this is its cost).
/// A folder swapped for a link between the two could be looked through: only metadata,
/// and by someone who can write the folder anyway; nothing is read or written through it.
pub fn look_at<S: AsRef<str> + Sync>(out: &Path, paths: &[S]) -> Vec<Option<Stamp>> {
    use rustix::fs::{AtFlags, FileType};
    let Ok(dir) = open_dir(out) else {
        return vec![None; paths.len()];
    };
    let stat = |path: &str| rustix::fs::statat(&dir, path, AtFlags::SYMLINK_NOFOLLOW).ok();
    // Each path checked once: `None` for one that could leave the folder.
    let inside: Vec<Option<&str>> = paths
        .par_iter()
        .map(|path| Some(path.as_ref()).filter(|path| site_relative(path).is_some()))
        .collect();
    let folders = folders_of(inside.iter().flatten().copied());
    let not_folders: HashSet<&str> = folders
        .par_iter()
        .copied()
        .filter(|folder| {
            stat(folder).is_none_or(|st| FileType::from_raw_mode(st.st_mode) != FileType::Directory)
        })
        .collect();
    inside
        .par_iter()
        .map(|path| {
            let path = (*path)?;
            let through_links = !not_folders.is_empty()
                && path
                    .match_indices('/')
                    .any(|(at, _)| not_folders.contains(&path[..at]));
            if through_links {
                return None;
            }
            let st = stat(path)?;
            (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile).then(|| {
                Stamp::from_stat(
                    st.st_size,
                    st.st_ino,
                    (st.st_mtime, st.st_mtime_nsec),
                    (st.st_ctime, st.st_ctime_nsec),
                )
            })
        })
        .collect()
}

/// The hash of the output's file at `path`, which [`look_at`] found as `stamp`, if it
/// still has that stamp before and after it is read: a file replaced or written meanwhile
/// is vouched for by nobody.
pub fn hash_at(out: &Path, path: &str, stamp: &Stamp) -> Option<Hash> {
    use rustix::fs::{Mode, OFlags};
    // Non-blocking: a FIFO put there since opens without waiting (and fails the stamp).
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let mut file = File::from(rustix::fs::open(out.join(path), flags, Mode::empty()).ok()?);
    let stamped = |file: &File| file.metadata().ok().map(|meta| Stamp::of(&meta));
    if stamped(&file)? != *stamp {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    io::copy(&mut file, &mut hasher).ok()?;
    (stamped(&file)? == *stamp).then(|| *hasher.finalize().as_bytes())
}

/// The folders on the way to `paths`, each once. The paths of a manifest come sorted, and
/// then the paths under a folder come together: a folder is new only where the path
/// before is not under it, and nothing needs sorting.
fn folders_of<'a>(paths: impl Iterator<Item = &'a str> + Clone) -> Vec<&'a str> {
    let folders = |path: &'a str| path.match_indices('/').map(move |(at, _)| &path[..at]);
    let mut pairs = paths.clone().zip(paths.clone().skip(1));
    if !pairs.all(|(a, b)| a <= b) {
        let mut all: Vec<&str> = paths.flat_map(folders).collect();
        all.par_sort_unstable();
        all.dedup();
        return all;
    }
    let mut previous = "";
    let mut found = Vec::new();
    for path in paths {
        found.extend(folders(path).filter(|folder| {
            !(previous.starts_with(folder) && previous.as_bytes().get(folder.len()) == Some(&b'/'))
        }));
        previous = path;
    }
    found
}

/// The folder `path` itself (not a link to one), to open files beneath it.
fn open_dir(path: &Path) -> io::Result<rustix::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(rustix::fs::open(path, flags, Mode::empty())?)
}

/// Opens `relative` beneath the folder `dir` with `flags`, refusing a link anywhere on the
/// way: the kernel checks the whole path in one call (Linux's openat2). `Unsupported`
/// elsewhere, or where a sandbox refuses the call.
fn beneath(
    dir: &rustix::fd::OwnedFd,
    relative: &Path,
    flags: rustix::fs::OFlags,
) -> io::Result<rustix::fd::OwnedFd> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use rustix::io::Errno;
        let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::BENEATH;
        let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat2(dir, relative, flags, Mode::empty(), resolve) {
            Err(Errno::NOSYS | Errno::PERM) => Err(io::ErrorKind::Unsupported.into()),
            other => Ok(other?),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (dir, relative, flags);
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// The hash of the manifest that a commit of `files` writes.
pub fn manifest_hash(files: &[OutputFile]) -> [u8; 32] {
    let text = manifest_text(files.iter().map(|f| f.path.as_str()));
    *blake3::hash(text.as_bytes()).as_bytes()
}

/// The manifest of a build writing `paths`: sorted, one a line.
fn manifest_text<'a>(paths: impl IntoIterator<Item = &'a str>) -> String {
    let mut sorted: Vec<&str> = paths.into_iter().collect();
    sorted.sort_unstable();
    let mut text = String::with_capacity(sorted.iter().map(|p| p.len() + 1).sum());
    for path in sorted {
        text.push_str(path);
        text.push('\n');
    }
    text
}

/// What becomes of an entry of the old output folder.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    /// Ours: written again, or a folder made again as needed.
    Ours,
    /// Ours, and the new site no longer has it.
    Removed,
    /// The user's: carried over as it is.
    Kept,
    /// The user's, where the new site writes this file.
    InTheWay(PathBuf),
}

/// Decides an entry's fate from the new site and what the previous build wrote. A file or
/// link of the user's at a path the site now writes is replaced; a folder of theirs there
/// is in the way.
fn fate(path: &Path, is_dir: bool, new: &PathSet, before: &PathSet) -> Fate {
    let ours_before = if is_dir {
        before.dirs.contains(path)
    } else {
        before.files.contains(path)
    };
    let ours = |kept| match (ours_before, is_dir) {
        (true, false) => Fate::Removed,
        (true, true) => Fate::Ours,
        (false, _) => kept,
    };
    if path == Path::new(MANIFEST) {
        Fate::Ours
    } else if new.files.contains(path) {
        if is_dir && !ours_before {
            Fate::InTheWay(path.to_path_buf())
        } else {
            Fate::Ours
        }
    } else if new.dirs.contains(path) {
        ours(Fate::Ours)
    } else if let Some(file) = path.ancestors().skip(1).find(|a| new.files.contains(*a)) {
        ours(Fate::InTheWay(file.to_path_buf()))
    } else {
        ours(Fate::Kept)
    }
}

/// The output folder as it was when the build started.
#[derive(Debug, Default)]
struct Old {
    out: PathBuf,
    /// The folder itself, to open files beneath it.
    dir: Option<rustix::fd::OwnedFd>,
    /// Every entry, parents before children, none reached through a symlink: listed when
    /// first asked for (a build that changes a few files never needs the whole list).
    entries: std::sync::OnceLock<BTreeMap<PathBuf, Kind>>,
    /// The previous build's manifest, as read.
    manifest: Option<Vec<u8>>,
    /// What it lists, made when first asked for (a build that changes a few files only
    /// asks whether the few it removes emptied a folder).
    written: std::sync::OnceLock<PathSet>,
    /// The folder's own permissions; `None` when there is no output folder yet.
    root: Option<fs::Permissions>,
}

impl Old {
    fn read(out: &Path) -> Result<Old, Error> {
        let Some(root) = root_of(out)? else {
            return Ok(Old {
                out: out.to_path_buf(),
                ..Old::default()
            });
        };
        let path = out.join(MANIFEST);
        let manifest = match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => {
                let mut bytes = Vec::new();
                open_nofollow(&path)
                    .and_then(|mut file| file.read_to_end(&mut bytes))
                    .map_err(io_at("read", &path))?;
                Some(bytes)
            }
            _ => None,
        };
        let dir = open_dir(out).ok();
        Ok(Old {
            out: out.to_path_buf(),
            dir,
            entries: std::sync::OnceLock::new(),
            written: std::sync::OnceLock::new(),
            manifest,
            root: Some(root.permissions()),
        })
    }

    /// What the last build's manifest lists.
    fn written(&self) -> &PathSet {
        self.written.get_or_init(|| {
            self.manifest
                .as_deref()
                .map(PathSet::from_manifest)
                .unwrap_or_default()
        })
    }

    /// The file at `relative`, for reading, if it is a plain file reached through no link.
    /// Where the kernel can (Linux's openat2), it checks the whole path in the one call;
    /// elsewhere the folder is listed once and asked.
    fn open_file(&self, relative: &Path) -> Option<File> {
        if let Some(dir) = &self.dir {
            use rustix::fs::OFlags;
            // Non-blocking, so a FIFO put there opens without waiting (and is refused).
            match beneath(dir, relative, OFlags::RDONLY | OFlags::NONBLOCK) {
                Ok(fd) => {
                    let file = File::from(fd);
                    return file.metadata().is_ok_and(|m| m.is_file()).then_some(file);
                }
                Err(e) if e.kind() == io::ErrorKind::Unsupported => {}
                Err(_) => return None,
            }
        }
        self.is_file(relative)
            .then(|| open_nofollow(&self.out.join(relative)).ok())
            .flatten()
    }

    /// Whether the entry at `path` is a file (not a link), reached through no link.
    fn is_file(&self, path: &Path) -> bool {
        let entries = self.entries.get_or_init(|| {
            // A folder that cannot be listed now has nothing to compare with; the commit
            // lists it again and says why.
            walk(&self.out).unwrap_or_default()
        });
        matches!(entries.get(path), Some(Kind::File))
    }
}

/// The output folder's metadata; `None` if it does not exist yet.
fn root_of(out: &Path) -> Result<Option<fs::Metadata>, Error> {
    match fs::symlink_metadata(out) {
        Ok(meta) if meta.is_dir() => Ok(Some(meta)),
        Ok(_) => Err(Error::Io {
            action: "build into",
            path: out.to_path_buf(),
            source: io::ErrorKind::NotADirectory.into(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_at("read", out)(e)),
    }
}

/// Every entry of the output folder, parents before children, none reached through a
/// symlink; an error for a mount point inside it.
fn walk(out: &Path) -> Result<BTreeMap<PathBuf, Kind>, Error> {
    let Some(root) = root_of(out)? else {
        return Ok(BTreeMap::new());
    };
    let mut entries = BTreeMap::new();
    for entry in WalkDir::new(out).min_depth(1) {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(out).to_path_buf();
            io_at("read", &path)(e.into())
        })?;
        let file_type = entry.file_type();
        let kind = if file_type.is_dir() {
            let meta = entry
                .metadata()
                .map_err(|e| io_at("read", entry.path())(e.into()))?;
            // Removing the old tree would empty another filesystem.
            if meta.dev() != root.dev() {
                return Err(Error::MountPoint(entry.into_path()));
            }
            Kind::Dir(meta.permissions())
        } else if file_type.is_file() {
            Kind::File
        } else if file_type.is_symlink() {
            Kind::Symlink
        } else {
            Kind::Other
        };
        let relative = entry.path().strip_prefix(out).unwrap_or(entry.path());
        entries.insert(relative.to_path_buf(), kind);
    }
    Ok(entries)
}

/// This build's folder beside the output; removed when dropped, unless already removed.
struct Staging {
    path: Option<PathBuf>,
}

impl Staging {
    /// A new folder named after the output and this process; a number is added if a folder
    /// of that name could not be removed.
    fn create(parent: &Path, prefix: &str) -> Result<Staging, Error> {
        let pid = std::process::id();
        for n in 0..100 {
            let name = match n {
                0 => format!("{prefix}-{pid}"),
                n => format!("{prefix}-{pid}-{n}"),
            };
            let path = parent.join(name);
            match fs::create_dir(&path) {
                Ok(()) => return Ok(Staging { path: Some(path) }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_at("create", &path)(e)),
            }
        }
        Err(io_at("create", &parent.join(prefix))(
            io::ErrorKind::AlreadyExists.into(),
        ))
    }

    fn path(&self) -> &Path {
        self.path.as_deref().expect("present until removed")
    }

    fn remove(mut self) -> Option<Leftover> {
        let path = self.path.take()?;
        remove_tree(&path).err().map(|e| Leftover {
            path,
            reason: e.to_string(),
        })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = fs::remove_dir_all(path);
        }
    }
}

/// Removes a folder and everything in it, its entries in parallel: the old site is a tree
/// of some 30,000 entries for a 10,000-incident archive, and removing it one entry at a
/// time was a good part of a rebuild that changed one page. Never follows a link.
fn remove_tree(path: &Path) -> std::io::Result<()> {
    let entries: Vec<fs::DirEntry> = fs::read_dir(path)?.collect::<Result<_, _>>()?;
    entries.par_iter().try_for_each(|entry| {
        if entry.file_type()?.is_dir() {
            remove_tree(&entry.path())
        } else {
            fs::remove_file(entry.path())
        }
    })?;
    fs::remove_dir(path)
}

/// Whether `name`, beside the output, is a staging folder of one of its builds:
/// `.public.staging-<pid>`, or the bare name versions before the manifest used. Nothing
/// else is ours, even with a name like it (`.public.staging-backup` is the user's).
fn is_staging(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| {
        rest.is_empty()
            || rest
                .strip_prefix('-')
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Puts back an output folder that a build killed between two renames left aside, then
/// removes what killed builds left. Runs under the lock only.
fn clear_leftovers(out: &Path, parent: &Path, prefix: &str) -> Result<Vec<Leftover>, Error> {
    let mut found = Vec::new();
    for entry in fs::read_dir(parent).map_err(io_at("read", parent))? {
        let entry = entry.map_err(io_at("read", parent))?;
        if entry
            .file_name()
            .to_str()
            .is_some_and(|name| is_staging(name, prefix))
            && entry.file_type().is_ok_and(|kind| kind.is_dir())
        {
            found.push(entry.path());
        }
    }
    found.sort();
    let missing =
        matches!(fs::symlink_metadata(out), Err(e) if e.kind() == io::ErrorKind::NotFound);
    if missing {
        let aside = found
            .iter()
            .map(|dir| dir.join(ASIDE))
            .find(|old| fs::symlink_metadata(old).is_ok_and(|m| m.is_dir()));
        if let Some(old) = aside {
            fs::rename(&old, out).map_err(io_at("restore", out))?;
        }
    }
    // A build killed while putting files in place: finish what its journal says.
    if !missing {
        for dir in &found {
            if let Ok(journal) = fs::read_to_string(dir.join(JOURNAL)) {
                replay(out, dir, &journal)?;
                // Carried out once: should the folder outlive this build, never again.
                let _ = fs::remove_file(dir.join(JOURNAL));
            }
        }
    }
    Ok(found
        .into_iter()
        .filter_map(|path| {
            fs::remove_dir_all(&path).err().map(|e| Leftover {
                path,
                reason: e.to_string(),
            })
        })
        .collect())
}

/// Swaps two folders in one step; `Unsupported` where the system has no such call.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Whether an exchange failed because the system or the filesystem cannot do it.
fn exchange_unsupported(error: &io::Error) -> bool {
    use rustix::io::Errno;
    error.kind() == io::ErrorKind::Unsupported
        || Errno::from_io_error(error)
            .is_some_and(|e| [Errno::INVAL, Errno::NOSYS, Errno::NOTSUP].contains(&e))
}

/// Hard-links a file into the new tree (same bytes, same mtime); where the filesystem or
/// the file refuses a link, copies it and its mtime.
fn link_or_copy(from: &Path, to: &Path) -> Result<(), Error> {
    if fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    let copy = || -> io::Result<()> {
        let mut source = open_nofollow(from)?;
        let meta = source.metadata()?;
        let mut target = File::create_new(to)?;
        io::copy(&mut source, &mut target)?;
        target.set_permissions(meta.permissions())?;
        target.set_modified(meta.modified()?)
    };
    copy().map_err(io_at("copy", from))
}

/// Carries an entry of the user's from the old tree into the new one.
fn carry(from: &Path, to: &Path, kind: &Kind) -> Result<(), Error> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(io_at("create", parent))?;
    }
    match kind {
        Kind::Dir(_) => fs::create_dir_all(to).map_err(io_at("create", to)),
        Kind::File => link_or_copy(from, to),
        Kind::Symlink => fs::read_link(from)
            .and_then(|target| std::os::unix::fs::symlink(target, to))
            .map_err(io_at("copy", from)),
        Kind::Other => fs::hard_link(from, to).map_err(io_at("carry over", from)),
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
            match fate(path, matches!(kind, Kind::Dir(_)), &new, self.old.written()) {
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
        let removed = match old_manifest.as_slice() == manifest.as_bytes() {
            // The same files (an edit that adds and removes no page): nothing to compare.
            true => Vec::new(),
            false => removed_from(old_manifest, paths),
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
            self.remove_emptied(&removed, paths);
        }
        Ok(Some(stats))
    }

    /// Removes the folders of ours that the removal of `removed` emptied, deepest first:
    /// those the last build had and the new site (of `paths`) has not.
    fn remove_emptied(&self, removed: &[PathBuf], paths: &[&Path]) {
        let new = PathSet::new(paths.iter().copied());
        let mut emptied: Vec<&Path> = removed
            .iter()
            .flat_map(|path| path.ancestors().skip(1))
            .filter(|dir| {
                !dir.as_os_str().is_empty()
                    && self.old.written().dirs.contains(*dir)
                    && !new.dirs.contains(*dir)
            })
            .collect();
        emptied.sort_by_key(|dir| std::cmp::Reverse(dir.components().count()));
        emptied.dedup();
        for dir in emptied {
            // Not empty: something of the user's is in it, and stays.
            let _ = fs::remove_dir(self.out.join(dir));
        }
    }
}

/// The files the last build's manifest (`old_manifest`) lists and the new site (of `paths`)
/// has not, each once in its plain spelling (a line `p/x.html/` names the file
/// `p/x.html`). Compared as paths (`a//b` is `a/b`), without building the sets of folders:
/// a change of a few files needs those only if it removes one.
fn removed_from(old_manifest: &[u8], paths: &[&Path]) -> Vec<PathBuf> {
    let new_files: HashSet<&Path> = paths.iter().copied().collect();
    let old_text = String::from_utf8_lossy(old_manifest);
    let mut removed: Vec<PathBuf> = manifest_lines(&old_text)
        .map(Path::new)
        .filter(|path| !new_files.contains(path))
        .map(|path| path.components().collect())
        .collect();
    removed.sort();
    removed.dedup();
    removed
}

/// A change made in place is at most this many files, or this share of the site (1 in …).
const IN_PLACE_MIN: usize = 64;
const IN_PLACE_SHARE: usize = 16;
/// In a staging folder: the changes a build is putting in place, one a line.
const JOURNAL: &str = "journal";

/// The device and inode of a folder (not a link to one).
fn folder_id(path: &Path) -> Option<(u64, u64)> {
    let meta = fs::symlink_metadata(path).ok()?;
    meta.is_dir().then(|| (meta.dev(), meta.ino()))
}

/// Whether every folder on the way to `relative` in `out` is a real folder on the device
/// `dev` (or missing, to be made, and everything below it too), and the entry itself a
/// plain file or nothing: where a rename or a removal touches only what it names.
fn plain_way(out: &Path, relative: &Path, dev: u64) -> bool {
    let mut missing = false;
    let ancestors: Vec<&Path> = relative.ancestors().skip(1).collect();
    for dir in ancestors.iter().rev().filter(|d| !d.as_os_str().is_empty()) {
        match fs::symlink_metadata(out.join(dir)) {
            Ok(meta) if meta.is_dir() && !missing && meta.dev() == dev => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => missing = true,
            _ => return false,
        }
    }
    match fs::symlink_metadata(out.join(relative)) {
        Ok(meta) => meta.is_file() && !missing,
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    }
}

/// Carries out a journal: renames each staged file that is still in the staging folder to
/// its place (making its folders), removes each file to remove. Doing it twice does no more
/// than once, so a build killed halfway is completed by running it again. Nothing is done
/// in a folder other than the one it was written for, nor where a link or a folder of the
/// user's came on the way since (the next build renders those pages again anyway: the
/// folder no longer matches the cache).
fn replay(out: &Path, staging: &Path, journal: &str) -> Result<(), Error> {
    let Some(folder) = folder_id(out) else {
        return Ok(());
    };
    let mut lines = journal.lines();
    if lines.next() != Some(format!("o\t{}\t{}", folder.0, folder.1).as_str()) {
        return Ok(());
    }
    for line in lines {
        // Paths last: a static file's name may hold a tab. A file to put in place waits
        // under the name `w` gives, or at its own place in the staging tree (`t`).
        let (path, from) = match line.split_once('\t') {
            Some(("w", rest)) => match rest.split_once('\t') {
                Some((name, path)) => (path, Some(staging.join(name))),
                None => continue,
            },
            Some(("t", path)) => (path, Some(staging.join(TREE).join(path))),
            Some(("d", path)) => (path, None),
            _ => continue,
        };
        let Some(relative) = site_relative(path).filter(|p| plain_way(out, p, folder.0)) else {
            continue;
        };
        let target = out.join(relative);
        match from {
            Some(from) if fs::symlink_metadata(&from).is_ok() => {
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(io_at("create", parent))?;
                }
                fs::rename(&from, &target).map_err(io_at("write", &target))?;
            }
            None if fs::symlink_metadata(&target).is_ok_and(|m| m.is_file()) => {
                fs::remove_file(&target).map_err(io_at("remove", &target))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Puts the new tree together beside the old one, then swaps them.
struct Assemble<'a> {
    out: &'a Path,
    tree: &'a Path,
    old: &'a Old,
}

impl Assemble<'_> {
    fn tree(
        &self,
        files: &[OutputFile],
        paths: &[&Path],
        new: &PathSet,
        kept: &[(&Path, &Kind)],
        manifest: &str,
    ) -> Result<(), Error> {
        let tree = self.tree;
        // The changed files are in it already, with their folders.
        fs::create_dir_all(tree).map_err(io_at("create", tree))?;
        // Level by level, so each folder comes after its parent; the folders of one level
        // are made in parallel (10,000 incident folders are most of a tree).
        let mut levels: BTreeMap<usize, Vec<&Path>> = BTreeMap::new();
        for dir in &new.dirs {
            levels
                .entry(dir.components().count())
                .or_default()
                .push(dir.as_ref());
        }
        for dirs in levels.values() {
            dirs.par_iter().try_for_each(|dir| {
                let path = tree.join(dir);
                match fs::create_dir(&path) {
                    // Made already for a changed file in it.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
                    made => made.map_err(io_at("create", &path)),
                }
            })?;
        }
        files
            .par_iter()
            .zip(paths)
            .filter(|(file, _)| !file.staged)
            .try_for_each(|(_, relative)| {
                link_or_copy(&self.out.join(relative), &tree.join(relative))
            })?;
        let mut modes = Vec::new();
        for (relative, kind) in kept {
            let to = tree.join(relative);
            carry(&self.out.join(relative), &to, kind)?;
            if let Kind::Dir(mode) = kind {
                modes.push((to, mode.clone()));
            }
        }
        let path = tree.join(MANIFEST);
        fs::write(&path, manifest).map_err(io_at("write", &path))?;
        if let Some(mode) = &self.old.root {
            modes.insert(0, (tree.to_path_buf(), mode.clone()));
        }
        // Children first: a read-only folder is filled before it is made read-only.
        for (dir, mode) in modes.into_iter().rev() {
            fs::set_permissions(&dir, mode).map_err(io_at("set permissions of", &dir))?;
        }
        Ok(())
    }

    /// Puts the new tree in place of the output folder in one step; the old tree ends up
    /// in the staging folder.
    fn swap(&self, staging: &Path) -> Result<(), Error> {
        let failed = |source| Error::Swap {
            path: self.out.to_path_buf(),
            source,
        };
        if self.old.root.is_none() {
            return fs::rename(self.tree, self.out).map_err(failed);
        }
        match exchange(self.tree, self.out) {
            Ok(()) => Ok(()),
            Err(e) if exchange_unsupported(&e) => {
                // Killed between the two renames, the next build puts the old tree back.
                let aside = staging.join(ASIDE);
                fs::rename(self.out, &aside).map_err(failed)?;
                fs::rename(self.tree, self.out).map_err(|e| {
                    let _ = fs::rename(&aside, self.out);
                    failed(e)
                })
            }
            Err(e) => Err(failed(e)),
        }
    }
}

/// Whether a file is worth `.gz` and `.br` siblings: text, over a kilobyte.
pub fn compressible(site_path: &str, len: usize) -> bool {
    let text = ["html", "css", "js", "json", "xml", "txt", "svg"];
    len > 1024
        && site_path
            .rsplit_once('.')
            .is_some_and(|(_, extension)| text.contains(&extension))
}

/// The `.gz` and `.br` siblings of a file: the best compression, and the same bytes for
/// the same input (no time or name in the gzip header).
pub fn precompressed(bytes: &[u8]) -> [(&'static str, Vec<u8>); 2] {
    use std::io::Write as _;
    let mut gzip = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    gzip.write_all(bytes)
        .expect("writing to memory cannot fail");
    let gzip = gzip.finish().expect("writing to memory cannot fail");
    let mut brotli = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut brotli, &params)
        .expect("writing to memory cannot fail");
    let [gz, br] = routes::PRECOMPRESSED;
    [(gz, gzip), (br, brotli)]
}

#[cfg(test)]
mod tests {
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
}
