//! Site paths as paths of the output folder (never outside it), the manifest's lines,
//! and the folders on the way to a file, opened without following a link.

use super::*;

/// A site path as a path relative to the output folder, or `None` if it could leave it
/// or could not be one line of the manifest.
pub(super) fn site_relative(site_path: &str) -> Option<&Path> {
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

/// A site path as `Path::components` reads it, spelled plainly: `a//b/./c/` is `a/b/c`.
/// The site's own paths are plain already, and borrowed.
pub(super) fn plain_spelling(site_path: &str) -> Cow<'_, str> {
    let part = |part: &&str| !part.is_empty() && *part != ".";
    if site_path.split('/').all(|p| part(&p)) {
        return Cow::Borrowed(site_path);
    }
    Cow::Owned(
        site_path
            .split('/')
            .filter(part)
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// The path of a file the site writes, relative to the output folder: one that stays in
/// it and is not the manifest.
pub(super) fn site_file(site_path: &str) -> Result<&Path, Error> {
    site_relative(site_path)
        .filter(|p| *p != Path::new(MANIFEST))
        .ok_or_else(|| Error::BadPath(site_path.to_string()))
}

/// Opens a file for reading, refusing a symlink (the walk already refused symlinked folders).
pub(super) fn open_nofollow(path: &Path) -> io::Result<File> {
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
pub(super) enum EntryKind {
    File,
    Dir(fs::Permissions),
    Symlink,
    /// A FIFO, socket or device: carried over by a hard link, never opened.
    Other,
}

/// Site paths as files, and every folder holding one.
#[derive(Debug, Default)]
pub(super) struct PathSet {
    pub(super) files: HashSet<PathBuf>,
    pub(super) dirs: HashSet<PathBuf>,
}

impl PathSet {
    pub(super) fn new<'a>(paths: impl IntoIterator<Item = &'a Path>) -> PathSet {
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
    pub(super) fn from_manifest(bytes: &[u8]) -> PathSet {
        PathSet::new(manifest_lines(&String::from_utf8_lossy(bytes)).map(Path::new))
    }
}

/// The lines of a manifest that name a file of the site: those that could leave the output
/// folder, or name the manifest itself, are ignored.
pub(super) fn manifest_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|line| site_relative(line).is_some_and(|path| path != Path::new(MANIFEST)))
}

/// The folders on the way to `paths`, each once. The paths of a manifest come sorted, and
/// then the paths under a folder come together: a folder is new only where the path
/// before is not under it, and nothing needs sorting.
pub(super) fn folders_of<'a>(paths: impl Iterator<Item = &'a str> + Clone) -> Vec<&'a str> {
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
pub(super) fn open_dir(path: &Path) -> io::Result<rustix::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(rustix::fs::open(path, flags, Mode::empty())?)
}

/// Opens `relative` beneath the folder `dir` with `flags`, refusing a link anywhere on the
/// way: the kernel checks the whole path in one call (Linux's openat2). `Unsupported`
/// elsewhere, or where a sandbox refuses the call.
pub(super) fn beneath(
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
pub(super) fn manifest_text<'a>(paths: impl IntoIterator<Item = &'a str>) -> String {
    let mut sorted: Vec<&str> = paths.into_iter().collect();
    sorted.sort_unstable();
    let mut text = String::with_capacity(sorted.iter().map(|p| p.len() + 1).sum());
    for path in sorted {
        text.push_str(path);
        text.push('\n');
    }
    text
}
