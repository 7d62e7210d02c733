//! Reading the last output back: each file's stamp, and its hash where its stamp alone
//! cannot vouch for it.

use super::*;

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
