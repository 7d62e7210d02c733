//! Watching the site's sources with notify and a debouncer: creates, edits, deletes,
//! renames and editors' save-by-rename all arrive as one batch of changed paths.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::{EventKind, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};
use notify_debouncer_full::{
    DebounceEventResult, Debouncer, FileIdCache, NoCache, RecommendedCache, new_debouncer_opt,
};

use crate::config::CONFIG_FILE;
use crate::content::CONTENT_DIR;
use crate::render::theme::{STATIC_DIR, TEMPLATES_DIR};
use crate::sources;

/// Long enough to fold an editor's write-temp-then-rename into one batch, short enough to
/// feel instant.
const DEBOUNCE: Duration = Duration::from_millis(30);
const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Keeps the watch alive; dropping it stops watching.
pub struct Watch {
    /// The site root, resolved, as the watches were made.
    root: PathBuf,
    debouncer: Backend,
}

enum Backend {
    Native(Debouncer<RecommendedWatcher, RecommendedCache>),
    Poll(Debouncer<PollWatcher, NoCache>),
}

impl Watch {
    /// Watches the source folder `dir` (`content`) afresh: one made after the watch began
    /// (a new `templates/`), or one moved away and back, which a native watch does not
    /// follow (it stays on the folder that moved). Any earlier watch of it is dropped.
    pub fn rewatch(&mut self, dir: &str) -> notify::Result<()> {
        let path = self.root.join(dir);
        match &mut self.debouncer {
            Backend::Native(debouncer) => {
                let _ = debouncer.unwatch(&path);
                debouncer.watch(&path, RecursiveMode::Recursive)
            }
            Backend::Poll(debouncer) => {
                let _ = debouncer.unwatch(&path);
                debouncer.watch(&path, RecursiveMode::Recursive)
            }
        }
    }
}

/// Watches `root`'s content, templates, static files and site.yaml, sending each batch of
/// relevant changed paths to `changes`, as `root` joined with the path inside it.
pub fn watch(root: &Path, poll: bool, changes: Sender<Vec<PathBuf>>) -> notify::Result<Watch> {
    // Events carry absolute, resolved paths; the site knows its root as it was given.
    let real_root = root.canonicalize()?;
    let (given_root, watched_root) = (root.to_path_buf(), real_root.clone());
    let handler = move |result: DebounceEventResult| {
        let Ok(events) = result else { return };
        let mut paths: Vec<PathBuf> = events
            .into_iter()
            // Reading a file is an event too; a rebuild reads every source, so counting
            // reads would rebuild forever.
            .filter(|event| !matches!(event.event.kind, EventKind::Access(_)))
            .flat_map(|event| event.event.paths)
            .filter_map(|path| path.strip_prefix(&watched_root).ok().map(Path::to_path_buf))
            .filter(|relative| is_source(relative))
            .map(|relative| given_root.join(relative))
            .collect();
        paths.sort();
        paths.dedup();
        if !paths.is_empty() {
            let _ = changes.send(paths);
        }
    };
    if poll {
        let config = notify::Config::default()
            .with_poll_interval(POLL_INTERVAL)
            .with_compare_contents(true);
        let mut debouncer =
            new_debouncer_opt::<_, PollWatcher, NoCache>(DEBOUNCE, None, handler, NoCache, config)?;
        add_roots(&mut debouncer, &real_root)?;
        Ok(Watch {
            root: real_root,
            debouncer: Backend::Poll(debouncer),
        })
    } else {
        let mut debouncer = new_debouncer_opt::<_, RecommendedWatcher, RecommendedCache>(
            DEBOUNCE,
            None,
            handler,
            RecommendedCache::new(),
            notify::Config::default(),
        )?;
        add_roots(&mut debouncer, &real_root)?;
        Ok(Watch {
            root: real_root,
            debouncer: Backend::Native(debouncer),
        })
    }
}

/// The source folders recursively, and the root itself (not recursively) for site.yaml and
/// for templates/ or static/ created later. Never the output or anything else in the root.
fn add_roots<W: Watcher, C: FileIdCache>(
    debouncer: &mut Debouncer<W, C>,
    root: &Path,
) -> notify::Result<()> {
    debouncer.watch(root, RecursiveMode::NonRecursive)?;
    for dir in [CONTENT_DIR, TEMPLATES_DIR, STATIC_DIR] {
        let path = root.join(dir);
        if path.is_dir() {
            debouncer.watch(&path, RecursiveMode::Recursive)?;
        }
    }
    Ok(())
}

/// Whether a changed path (relative to the site root) can change the site: under content/,
/// templates/ or static/, or site.yaml; never an editor's swap, backup or temporary file.
pub fn is_source(relative: &Path) -> bool {
    let in_sources = [CONTENT_DIR, TEMPLATES_DIR, STATIC_DIR]
        .iter()
        .any(|dir| relative.starts_with(dir))
        || relative == Path::new(CONFIG_FILE);
    in_sources && !sources::is_ignored(relative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sources_count_and_editor_litter_does_not() {
        let yes = [
            "content/a/b.md",
            "content/a",
            "site.yaml",
            "templates/base.html",
            "static/x.css",
        ];
        for path in yes {
            assert!(is_source(Path::new(path)), "{path}");
        }
        let no = [
            "public/index.html",
            "content/a/.b.md.swp",
            "content/a/b.md~",
            "content/a/4913",
            "content/a/b.md.tmp",
            "content/.git/x",
            "content/a/b.md___jb_tmp___",
            "site.yaml.bak",
        ];
        for path in no {
            assert!(!is_source(Path::new(path)), "{path}");
        }
    }
}
