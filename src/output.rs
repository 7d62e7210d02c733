//! Writing the site: only after every page rendered, only the files whose bytes changed,
//! and removing what no longer belongs. The one module that touches the output folder.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use rayon::prelude::*;
use walkdir::WalkDir;

/// A rendered file. `bytes` is `None` when the file on disk already holds exactly them.
pub struct OutputFile {
    pub path: String,
    pub bytes: Option<Vec<u8>>,
}

/// What a write did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WriteStats {
    pub written: usize,
    pub unchanged: usize,
    pub removed: usize,
}

/// Joins a site path to the output folder, refusing anything that could leave it.
pub fn safe_join(out_dir: &Path, site_path: &str) -> Option<PathBuf> {
    let relative = Path::new(site_path);
    let inside = !site_path.is_empty()
        && !site_path.contains('\\')
        && relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
    inside.then(|| out_dir.join(relative))
}

/// Whether the file at `site_path` already holds `bytes` (so it need not be written, and
/// its mtime stays, so a sync to a CDN sends only what changed).
pub fn is_unchanged(out_dir: &Path, site_path: &str, bytes: &[u8]) -> bool {
    let Some(path) = safe_join(out_dir, site_path) else {
        return false;
    };
    match fs::metadata(&path) {
        Ok(meta) if meta.is_file() && meta.len() == bytes.len() as u64 => {
            fs::read(&path).is_ok_and(|old| old == bytes)
        }
        _ => false,
    }
}

/// Writes the changed files and removes every file of `out_dir` that is not in `files`.
pub fn commit(out_dir: &Path, files: &[OutputFile]) -> io::Result<WriteStats> {
    fs::create_dir_all(out_dir)?;
    let mut targets = Vec::with_capacity(files.len());
    for file in files {
        let path = safe_join(out_dir, &file.path).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{}` would leave the output folder", file.path),
            )
        })?;
        targets.push(path);
    }
    // Folders first, each once: creating files is what costs on most disks.
    let dirs: BTreeSet<&Path> = files
        .iter()
        .zip(&targets)
        .filter(|(file, _)| file.bytes.is_some())
        .filter_map(|(_, path)| path.parent())
        .collect();
    for dir in dirs {
        fs::create_dir_all(dir)?;
    }
    files
        .par_iter()
        .zip(&targets)
        .try_for_each(|(file, path)| match &file.bytes {
            Some(bytes) => write_atomically(path, bytes),
            None => Ok(()),
        })?;
    let written = files.iter().filter(|f| f.bytes.is_some()).count();
    let keep: HashSet<&Path> = targets.iter().map(PathBuf::as_path).collect();
    Ok(WriteStats {
        written,
        unchanged: files.len() - written,
        removed: prune(out_dir, &keep)?,
    })
}

/// Writes through a temporary file and a rename, so a reader (or a crash) never sees half a
/// file. The folder exists already.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .expect("joined paths have a name")
        .to_string_lossy();
    let temp = path.with_file_name(format!(".{name}.outages-tmp"));
    fs::write(&temp, bytes)?;
    fs::rename(&temp, path)
}

/// Removes files that are not kept, then the folders left empty. Symbolic links are removed
/// as links, never followed.
fn prune(out_dir: &Path, keep: &HashSet<&Path>) -> io::Result<usize> {
    let mut removed = 0;
    let mut dirs = Vec::new();
    for entry in WalkDir::new(out_dir).min_depth(1).contents_first(true) {
        let entry = entry.map_err(io::Error::other)?;
        if entry.file_type().is_dir() {
            dirs.push(entry.into_path());
        } else if !keep.contains(entry.path()) {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    for dir in dirs {
        // Fails, harmlessly, when the folder still holds files.
        let _ = fs::remove_dir(&dir);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_never_leave_the_output_folder() {
        let out = Path::new("/site/public");
        assert_eq!(
            safe_join(out, "a/b/index.html"),
            Some(out.join("a/b/index.html"))
        );
        for bad in ["../x", "a/../../x", "/etc/passwd", "", "a\\..\\x", "./a"] {
            assert_eq!(safe_join(out, bad), None, "{bad}");
        }
    }
}
