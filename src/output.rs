//! Writing the site, the one module that touches the output folder. Rendered files that
//! differ from what is on disk go to a staging folder beside the output as they are made
//! (so a build never holds the whole site in memory); only once every page has rendered are
//! they moved into place, and files that no longer belong are removed. A failed build
//! discards the staging folder and leaves the output exactly as it was.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use rayon::prelude::*;
use walkdir::WalkDir;

/// A rendered file, and where its new bytes wait if they differ from the file on disk.
pub struct OutputFile {
    pub path: String,
    /// `None` when the file on disk already holds exactly these bytes.
    pub staged: Option<PathBuf>,
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

/// A folder beside the output (`.public.staging`), on the same disk so that moving a file
/// from it is a rename. Removed when dropped.
pub struct Staging {
    dir: PathBuf,
}

impl Staging {
    pub fn new(out_dir: &Path) -> io::Result<Staging> {
        let name = out_dir
            .file_name()
            .map_or_else(|| "public".into(), |n| n.to_string_lossy().into_owned());
        let parent = out_dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dir = parent.join(format!(".{name}.staging"));
        // A staging folder left by a build that was killed.
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        fs::create_dir_all(&dir)?;
        Ok(Staging { dir })
    }

    /// Writes the bytes of the file numbered `index`; flat names, so no folder is made.
    pub fn put(&self, index: usize, bytes: &[u8]) -> io::Result<PathBuf> {
        let path = self.dir.join(index.to_string());
        fs::write(&path, bytes)?;
        Ok(path)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Moves the staged files into `out_dir` and removes every file of it that is not in
/// `files`.
pub fn commit(out_dir: &Path, staging: Staging, files: &[OutputFile]) -> io::Result<WriteStats> {
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
    // Folders first, each once: creating entries is what costs on most disks.
    let dirs: BTreeSet<&Path> = files
        .iter()
        .zip(&targets)
        .filter(|(file, _)| file.staged.is_some())
        .filter_map(|(_, path)| path.parent())
        .collect();
    for dir in dirs {
        fs::create_dir_all(dir)?;
    }
    // A rename replaces a file at once: a reader never sees half of one.
    files
        .par_iter()
        .zip(&targets)
        .try_for_each(|(file, path)| match &file.staged {
            Some(staged) => fs::rename(staged, path).or_else(|_| fs::copy(staged, path).map(drop)),
            None => Ok(()),
        })?;
    drop(staging);
    let written = files.iter().filter(|f| f.staged.is_some()).count();
    let keep: HashSet<&Path> = targets.iter().map(PathBuf::as_path).collect();
    Ok(WriteStats {
        written,
        unchanged: files.len() - written,
        removed: prune(out_dir, &keep)?,
    })
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
    [(".gz", gzip), (".br", brotli)]
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

    #[test]
    fn staged_files_move_in_and_stale_files_go() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        fs::create_dir_all(out.join("old")).unwrap();
        fs::write(out.join("old/gone.html"), "x").unwrap();
        fs::write(out.join("same.txt"), "same").unwrap();
        let staging = Staging::new(&out).unwrap();
        let staged = staging.put(0, b"new").unwrap();
        let files = [
            OutputFile {
                path: "a/b/new.html".into(),
                staged: Some(staged),
            },
            OutputFile {
                path: "same.txt".into(),
                staged: None,
            },
        ];
        let stats = commit(&out, staging, &files).unwrap();
        assert_eq!(
            stats,
            WriteStats {
                written: 1,
                unchanged: 1,
                removed: 1
            }
        );
        assert_eq!(fs::read(out.join("a/b/new.html")).unwrap(), b"new");
        assert!(!out.join("old").exists(), "emptied folders go too");
        assert!(
            !dir.path().join(".public.staging").exists(),
            "the staging folder is removed"
        );
    }
}
