//! Which files of a site folder are its sources: one rule for the content listing, the
//! theme's `templates/` and `static/`, and what `serve` watches, so none of them can see a
//! file that the others ignore.

use std::path::Path;

/// Whether a file or folder name is never a source: hidden names (`.git`, `.DS_Store`,
/// `.#a.md`), except `.well-known`, which hosts serve from `static/`; and what editors
/// leave beside the files they edit (swap, backup and temporary files, vim's `4913`
/// probe).
pub fn is_ignored_name(name: &str) -> bool {
    (name.starts_with('.') && name != ".well-known")
        || name.starts_with('~')
        || name.ends_with('~')
        || [".swp", ".swo", ".swx", ".tmp"]
            .iter()
            .any(|ext| name.ends_with(ext))
        || (name.starts_with('#') && name.ends_with('#'))
        || name.ends_with("___jb_tmp___")
        || name.ends_with("___jb_old___")
        || name == "4913"
}

/// Every entry under `dir`, sorted by name, without ignored names or what is under them.
/// Symbolic links are listed, never followed.
pub fn walk(dir: &Path) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> {
    // Entries of one folder are its path and their names: comparing the paths' bytes is
    // comparing the names, and cheaper than `file_name()`, which parses each path again
    // at every comparison (8% of a build with nothing to do, at 100,000 incidents).
    walkdir::WalkDir::new(dir)
        .sort_by(|a, b| a.path().as_os_str().cmp(b.path().as_os_str()))
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0 || !is_ignored_name(&entry.file_name().to_string_lossy())
        })
}

/// Whether a path (relative to the site root) has an ignored name anywhere on its way.
pub fn is_ignored(relative: &Path) -> bool {
    relative
        .components()
        .any(|c| is_ignored_name(&c.as_os_str().to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_lists_each_folder_sorted_by_name_as_walkdir_would() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for path in [
            "b/a.md", "a-b/x.md", "a/b/c.md", "a/a.md", "a.md", "B.md", "a/b.md", "é.md",
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("made");
            std::fs::write(&path, "").expect("written");
        }
        let listed = |entries: Vec<walkdir::DirEntry>| -> Vec<std::path::PathBuf> {
            entries
                .into_iter()
                .map(walkdir::DirEntry::into_path)
                .collect()
        };
        let ours = listed(walk(dir.path()).collect::<Result<_, _>>().expect("listed"));
        let by_name = walkdir::WalkDir::new(dir.path())
            .sort_by_file_name()
            .into_iter();
        let expected = listed(by_name.collect::<Result<_, _>>().expect("listed"));
        assert_eq!(ours, expected);
        assert_eq!(ours.len(), 13);
    }

    #[test]
    fn hidden_names_and_editor_litter_are_ignored_everywhere() {
        for ignored in [
            "content/a/.b.md.swp",
            "content/.git/x.md",
            "content/a/b.md~",
            "content/a/~b.md",
            "content/a/#b.md#",
            "templates/base.html___jb_tmp___",
            "static/.DS_Store",
            "content/a/4913",
        ] {
            assert!(is_ignored(Path::new(ignored)), "{ignored}");
        }
        for source in [
            "content/a/b.md",
            "static/.well-known/security.txt",
            "templates/base.html",
            "site.yaml",
        ] {
            assert!(!is_ignored(Path::new(source)), "{source}");
        }
    }
}
