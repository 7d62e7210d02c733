//! The old tree and the new: what becomes of each entry of the old output, the staging
//! folder the new tree is built in, and the swap of the two.

use super::*;

/// What becomes of an entry of the old output folder.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Fate {
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
pub(super) fn fate(path: &Path, is_dir: bool, new: &PathSet, before: &PathSet) -> Fate {
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
pub(super) struct Old {
    pub(super) out: PathBuf,
    /// The folder itself, to open files beneath it.
    pub(super) dir: Option<rustix::fd::OwnedFd>,
    /// Every entry, parents before children, none reached through a symlink: listed when
    /// first asked for (a build that changes a few files never needs the whole list).
    pub(super) entries: std::sync::OnceLock<BTreeMap<PathBuf, EntryKind>>,
    /// The previous build's manifest, as read.
    pub(super) manifest: Option<Vec<u8>>,
    /// What it lists, made when first asked for (a build that changes a few files only
    /// asks whether the few it removes emptied a folder).
    pub(super) written: std::sync::OnceLock<PathSet>,
    /// The folder's own permissions; `None` when there is no output folder yet.
    pub(super) root: Option<fs::Permissions>,
}

impl Old {
    pub(super) fn read(out: &Path) -> Result<Old, Error> {
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
    pub(super) fn written(&self) -> &PathSet {
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
    pub(super) fn open_file(&self, relative: &Path) -> Option<File> {
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
    pub(super) fn is_file(&self, path: &Path) -> bool {
        let entries = self.entries.get_or_init(|| {
            // A folder that cannot be listed now has nothing to compare with; the commit
            // lists it again and says why.
            walk(&self.out).unwrap_or_default()
        });
        matches!(entries.get(path), Some(EntryKind::File))
    }
}

/// The output folder's metadata; `None` if it does not exist yet.
pub(super) fn root_of(out: &Path) -> Result<Option<fs::Metadata>, Error> {
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
pub(super) fn walk(out: &Path) -> Result<BTreeMap<PathBuf, EntryKind>, Error> {
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
            EntryKind::Dir(meta.permissions())
        } else if file_type.is_file() {
            EntryKind::File
        } else if file_type.is_symlink() {
            EntryKind::Symlink
        } else {
            EntryKind::Other
        };
        let relative = entry.path().strip_prefix(out).unwrap_or(entry.path());
        entries.insert(relative.to_path_buf(), kind);
    }
    Ok(entries)
}

/// This build's folder beside the output; removed when dropped, unless already removed.
pub(super) struct Staging {
    pub(super) path: Option<PathBuf>,
}

impl Staging {
    /// A new folder named after the output and this process; a number is added if a folder
    /// of that name could not be removed.
    pub(super) fn create(parent: &Path, prefix: &str) -> Result<Staging, Error> {
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

    pub(super) fn path(&self) -> &Path {
        self.path.as_deref().expect("present until removed")
    }

    pub(super) fn remove(mut self) -> Option<Leftover> {
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
pub(super) fn remove_tree(path: &Path) -> std::io::Result<()> {
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
pub(super) fn is_staging(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| {
        rest.is_empty()
            || rest
                .strip_prefix('-')
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Puts back an output folder that a build killed between two renames left aside, then
/// removes what killed builds left. Runs under the lock only.
pub(super) fn clear_leftovers(
    out: &Path,
    parent: &Path,
    prefix: &str,
) -> Result<Vec<Leftover>, Error> {
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
pub(super) fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
pub(super) fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Whether an exchange failed because the system or the filesystem cannot do it.
pub(super) fn exchange_unsupported(error: &io::Error) -> bool {
    use rustix::io::Errno;
    error.kind() == io::ErrorKind::Unsupported
        || Errno::from_io_error(error)
            .is_some_and(|e| [Errno::INVAL, Errno::NOSYS, Errno::NOTSUP].contains(&e))
}

/// Hard-links a file into the new tree (same bytes, same mtime); where the filesystem or
/// the file refuses a link, copies it and its mtime.
pub(super) fn link_or_copy(from: &Path, to: &Path) -> Result<(), Error> {
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
pub(super) fn carry(from: &Path, to: &Path, kind: &EntryKind) -> Result<(), Error> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(io_at("create", parent))?;
    }
    match kind {
        EntryKind::Dir(_) => fs::create_dir_all(to).map_err(io_at("create", to)),
        EntryKind::File => link_or_copy(from, to),
        EntryKind::Symlink => fs::read_link(from)
            .and_then(|target| std::os::unix::fs::symlink(target, to))
            .map_err(io_at("copy", from)),
        EntryKind::Other => fs::hard_link(from, to).map_err(io_at("carry over", from)),
    }
}
