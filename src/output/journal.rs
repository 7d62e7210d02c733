//! A small change put in place in the output itself, journalled, so that a build cut
//! short is finished by the next one.

use super::*;

/// A change made in place is at most this many files, or this share of the site (1 in …).
pub(super) const IN_PLACE_MIN: usize = 64;
pub(super) const IN_PLACE_SHARE: usize = 16;
/// In a staging folder: the changes a build is putting in place, one a line.
pub(super) const JOURNAL: &str = "journal";

/// The device and inode of a folder (not a link to one).
pub(super) fn folder_id(path: &Path) -> Option<(u64, u64)> {
    let meta = fs::symlink_metadata(path).ok()?;
    meta.is_dir().then(|| (meta.dev(), meta.ino()))
}

/// Whether every folder on the way to `relative` in `out` is a real folder on the device
/// `dev` (or missing, to be made, and everything below it too), and the entry itself a
/// plain file or nothing: where a rename or a removal touches only what it names.
pub(super) fn plain_way(out: &Path, relative: &Path, dev: u64) -> bool {
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
pub(super) fn replay(out: &Path, staging: &Path, journal: &str) -> Result<(), Error> {
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
pub(super) struct Assemble<'a> {
    pub(super) out: &'a Path,
    pub(super) tree: &'a Path,
    pub(super) old: &'a Old,
}

impl Assemble<'_> {
    pub(super) fn tree(
        &self,
        files: &[OutputFile],
        paths: &[&Path],
        new: &PathSet,
        kept: &[(&Path, &EntryKind)],
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
            if let EntryKind::Dir(mode) = kind {
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
    pub(super) fn swap(&self, staging: &Path) -> Result<(), Error> {
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
