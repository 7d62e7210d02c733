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
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
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
