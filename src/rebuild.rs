//! What a build takes from the last one, through the build cache ([`crate::cache`]): the
//! inputs are looked at against what it saw, and the build starts from the last build's
//! output (rendering only the pages whose declared inputs changed), from its parsed
//! files (rendering everything), or finds nothing to do at all.

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use foldhash::{HashMap, HashSet};
use rayon::prelude::*;

use crate::cache::{self, Bodies, Cache, Hash, Index, Left, Lefts, Looked, Seen, Written};
use crate::config::CONFIG_FILE;
use crate::content::{self, Files, Loaded};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::output::{self, Output, OutputFile};
use crate::render::theme::{STATIC_DIR, TEMPLATES_DIR};
use crate::site::{Changes, Options, Site};
use crate::sources;

/// A build starting from its own last output renders again only what changed, as long as
/// at most this many content files changed, or this share of them (1 in …); past it,
/// rendering everything costs less than working out what to.
const UPDATE_MIN: usize = 64;
const UPDATE_SHARE: usize = 8;

/// The inputs, as the cache saw them and as they are now.
pub struct Scan {
    dir: PathBuf,
    key: Hash,
    before: Cache,
    scanned: SystemTime,
    /// Every content file, in path order.
    content: Vec<Looked<Result<Loaded, Vec<Diagnostic>>>>,
    /// The templates, static files and `site.yaml`.
    theme: Vec<Seen>,
    /// What every page reads besides the content: the options, the output folder, and the
    /// theme and `site.yaml` as they are now.
    render_key: Hash,
    /// The content files that were added, changed or deleted since the cache; `None` when
    /// there is no last output, or more changed than an update of it is for.
    changed: Option<Changes>,
    /// The last build's files, in the manifest's order, as seen now, when every one still
    /// holds what the cache says that build wrote (`None`: it cannot be built on).
    verified: Option<Verified>,
    /// The files the output's manifest lists (the last build's), in order.
    written_paths: Vec<String>,
    /// The site the last output shows, when there are changes to update it with: put
    /// together while the output was looked at.
    written_site: Option<Site>,
}

/// The last build's files (`paths`, in the manifest's order, as `left` recorded them) as
/// they are now, if every one still holds what that build wrote: a file whose stamp is not
/// the recorded one, or is racy, is hashed again.
fn verify(out: &Path, paths: &[String], left: &Lefts, scanned: SystemTime) -> Option<Verified> {
    if paths.len() != left.each.len() {
        return None;
    }
    let now = output::look_at(out, paths);
    let each: Vec<(Left, bool)> = paths
        .par_iter()
        .zip(now)
        .zip(&left.each)
        .map(|((path, now), recorded)| {
            let (now, recorded) = (now?, (*recorded)?);
            if left.trusted(&recorded, &now) {
                return Some((recorded, false));
            }
            let hash = output::hash_at(out, path, &now)?;
            let worth = now != recorded.stamp || now.settled(scanned);
            (hash == recorded.hash).then_some((Left { stamp: now, hash }, worth))
        })
        .collect::<Option<_>>()?;
    let hashed = each.iter().any(|(_, hashed)| *hashed);
    Some(Verified {
        each: each.into_iter().map(|(left, _)| left).collect(),
        hashed,
    })
}

/// The last build's files as a look at the output found them, every one holding what that
/// build wrote.
struct Verified {
    /// In the manifest's order, with their stamps of now.
    each: Vec<Left>,
    /// Whether any was hashed again and would now be trusted by its stamp (a new stamp, or
    /// a racy one since settled): then the cache records them as seen now, so that the
    /// next build need not hash them.
    hashed: bool,
}

/// Where a build starts.
pub enum StartFrom {
    /// Nothing read differs from what made the output: it stays as it is.
    Nothing(Written),
    /// The last build's output, with these content files changed.
    Written(Changes),
    /// The parsed files, rendering every page.
    Scratch,
}

impl Scan {
    /// Looks at every input against the cache in `dir`; `None` when the content cannot be
    /// listed (a full build says why).
    pub fn new(options: &Options, dir: &Path, out: &Path, output: &Output) -> Option<Scan> {
        let root = &options.root;
        let key = cache::key(root);
        // Before anything is looked at: a file changed after this is seen as changed.
        let scanned = SystemTime::now();
        // Both mostly on one core: the cache's index decoded while the content is listed.
        let (before, paths) =
            rayon::join(|| cache::read(dir, &key), || content::content_files(root));
        let paths = paths.ok()?;
        let seen_before = by_path(&before.index.content);
        // The last build's manifest is read beside the look at the content.
        let (content, written_paths) = rayon::join(
            || {
                cache::look(
                    root,
                    &paths,
                    &|path| seen_before.get(path_key(path)).copied(),
                    before.index.scanned(),
                    |path, bytes| content::load_bytes(root, path, bytes),
                )
            },
            || output.manifest_paths(),
        );
        let theme_before = by_path(&before.index.theme);
        let theme_paths = theme_files(root);
        let theme_looked = cache::look(
            root,
            &theme_paths,
            &|path| theme_before.get(path_key(path)).copied(),
            before.index.scanned(),
            |_, _| (),
        );
        let mut hasher = blake3::Hasher::new();
        hasher.update(&key);
        let options_text = format!("{}{}\n", options.shaping(), out.display());
        hasher.update(options_text.as_bytes());
        let mut theme = Vec::with_capacity(theme_looked.len());
        for (path, looked) in theme_paths.iter().zip(&theme_looked) {
            hasher.update(path.as_os_str().as_encoded_bytes());
            match looked.seen() {
                Some(seen) => {
                    hasher.update(b"\0=");
                    hasher.update(&seen.hash);
                    theme.push(seen.clone());
                }
                // Gone (`site.yaml` is optional), or unreadable: then the theme's load
                // says why and no cache is written.
                None => {
                    hasher.update(b"\0-");
                }
            }
        }
        let render_key = *hasher.finalize().as_bytes();
        // The files the cache saw that are no longer listed: only a last output to update
        // needs them.
        let gone: Vec<&Seen> = match before.index.written {
            Some(_) => {
                let listed: HashSet<&[u8]> = paths.iter().map(|path| path_key(path)).collect();
                let seen = before.index.content.iter();
                seen.filter(|seen| !listed.contains(path_key(&seen.path)))
                    .collect()
            }
            None => Vec::new(),
        };
        let count = content
            .iter()
            .filter(|looked| !matches!(looked, Looked::Same(_)))
            .count()
            + gone.len();
        // What changed, as read now (`None`: gone). Unreadable files are parsed, which says
        // why; files no longer listed (deleted, or behind a link the listing does not
        // follow) are gone, whatever the disk would give through another way. Not made
        // when there is no last output to update, or too much changed to update it: a
        // build from scratch needs none of it (and a first build would hold every file
        // twice).
        let updatable =
            before.index.written.is_some() && count <= UPDATE_MIN.max(content.len() / UPDATE_SHARE);
        let changed = updatable.then(|| {
            let mut changed: Changes = content
                .iter()
                .filter_map(|looked| match looked {
                    Looked::Same(_) => None,
                    Looked::Changed(seen, loaded) => {
                        Some((seen.path.clone(), Some(loaded.clone())))
                    }
                    Looked::Unreadable(path) => {
                        Some((path.clone(), Some(content::load_file(root, path))))
                    }
                })
                .chain(gone.iter().map(|seen| (seen.path.clone(), None)))
                .collect();
            changed.sort_by(|a, b| a.0.cmp(&b.0));
            changed
        });
        // The output holds what the last build left: its manifest, and every file as it was
        // (a file edited or deleted by hand, and the build starts from scratch). Taken
        // against `scanned`, the moment before the output is looked at.
        // With changes to update it with, the site the last output shows is put together
        // while the output is looked at (each mostly keeps one core busy): it is needed
        // unless the output was changed by hand.
        let updating = changed.as_ref().is_some_and(|changed| !changed.is_empty());
        let (verified, written_site) = match before.index.written.as_ref() {
            Some(written)
                if written.key == render_key
                    && output.manifest_hash() == Some(written.manifest) =>
            {
                rayon::join(
                    || verify(out, &written_paths, &written.left, scanned),
                    || updating.then(|| written_site(&before, options)).flatten(),
                )
            }
            _ => (None, None),
        };
        Some(Scan {
            dir: dir.to_path_buf(),
            key,
            before,
            scanned,
            content,
            theme,
            render_key,
            changed,
            written_site: written_site.filter(|_| verified.is_some()),
            verified,
            written_paths,
        })
    }

    /// The files the last build's manifest lists, in its order.
    pub fn written_paths(&self) -> &[String] {
        &self.written_paths
    }

    pub fn start_from(&self) -> StartFrom {
        match (&self.before.index.written, &self.changed) {
            (Some(written), Some(changed)) if self.verified.is_some() && changed.is_empty() => {
                StartFrom::Nothing(written.clone())
            }
            (Some(_), Some(changed)) if self.verified.is_some() => {
                StartFrom::Written(changed.clone())
            }
            _ => StartFrom::Scratch,
        }
    }

    /// The site as the cache holds it, before the changes: what the last build's output
    /// shows, if there are changes to update it with. `None` if it does not load (then the
    /// build starts from scratch).
    pub fn take_written_site(&mut self) -> Option<Site> {
        self.written_site.take()
    }

    /// The site of the files as they are now, parsing only those that changed.
    pub fn fresh_site(&self, options: &Options) -> Result<Site, Diagnostics> {
        let root = &options.root;
        // What the cache holds, unless it cannot be read: then every file is parsed.
        let mut cached: HashMap<&[u8], Loaded> = match self.before.loaded() {
            Some(loaded) => self
                .before
                .index
                .content
                .iter()
                .map(|seen| path_key(&seen.path))
                .zip(loaded)
                .collect(),
            None => HashMap::default(),
        };
        Site::load_with(options, || {
            Ok(self
                .content
                .iter()
                .map(|looked| match looked {
                    Looked::Same(seen) => {
                        let loaded = match cached.remove(path_key(&seen.path)) {
                            Some(loaded) => Ok(loaded),
                            None => content::load_file(root, &seen.path),
                        };
                        (seen.path.clone(), loaded)
                    }
                    Looked::Changed(seen, loaded) => (seen.path.clone(), loaded.clone()),
                    Looked::Unreadable(path) => (path.clone(), content::load_file(root, path)),
                })
                .collect())
        })
    }

    /// After a build that found nothing to do, the output left as it is: the cache is
    /// written again only if what it saw of the files changed (new times). Why it could
    /// not be, if so.
    pub fn nothing_to_do(&self, written: &Written) -> Option<CacheNotWritten> {
        // What the cache saw of each file, as it is seen now (new times, same bytes).
        let now = by_path(self.content.iter().filter_map(Looked::seen));
        let content: Option<Vec<Seen>> = self
            .before
            .index
            .content
            .iter()
            .map(|seen| now.get(path_key(&seen.path)).map(|s| (*s).clone()))
            .collect();
        let seen_again = content.as_ref().is_none_or(|content| {
            content
                .iter()
                .map(|s| s.stamp)
                .ne(self.before.index.content.iter().map(|s| s.stamp))
        }) || self.theme.iter().map(|s| s.stamp).ne(self
            .before
            .index
            .theme
            .iter()
            .map(|s| s.stamp));
        // Output files hashed again (new stamps, or racy ones) are recorded as seen now, so
        // that the next build can trust their stamps.
        let mut written = written.clone();
        let rehashed = self.verified.as_ref().filter(|verified| verified.hashed);
        if let Some(verified) = rehashed {
            let each = verified.each.iter().copied().map(Some).collect();
            written.left = Lefts::new(self.scanned, each);
        }
        match (seen_again || rehashed.is_some(), content) {
            // If what the files gave is damaged, an empty cache in its place: the next
            // build starts from scratch (and writes it whole).
            (true, Some(content)) => {
                let file = cache::begin(&self.dir, &self.key, &content, Bodies::same(&self.before));
                let mut index = Index::new(
                    self.scanned,
                    self.theme.clone(),
                    content,
                    Some(written.clone()),
                );
                self.finish(file, &mut index, |_| None).err()
            }
            _ => None,
        }
    }

    /// Begins the cache this build leaves with what each file that parsed gave, as the
    /// look at the content found it: copied from the last cache where the file is the
    /// same, encoded where it changed. That is all of the cache but its index, which waits
    /// for the build's end, so it can be written while the pages render.
    pub fn begin_save(&self) -> Saving {
        let (content, each): (Vec<Seen>, Vec<Option<&Loaded>>) = self
            .content
            .iter()
            .filter_map(|looked| match looked {
                Looked::Same(seen) => Some((seen.clone(), None)),
                Looked::Changed(seen, Ok(loaded)) => Some((seen.clone(), Some(loaded))),
                Looked::Changed(_, Err(_)) | Looked::Unreadable(_) => None,
            })
            .unzip();
        let bodies = Bodies {
            earlier: Some(&self.before),
            each,
        };
        let file = cache::begin(&self.dir, &self.key, &content, bodies);
        Saving { content, file }
    }

    /// Keeps what this build parsed and wrote, for the next one: the cache `saving` began
    /// (begun now if `None`), with what was written.
    pub fn save(
        &self,
        saving: Option<Saving>,
        site: &Site,
        out: &Path,
        files: &[OutputFile],
    ) -> Result<(), CacheNotWritten> {
        let Saving { content, file } = saving.unwrap_or_else(|| self.begin_save());
        let written = Written {
            key: self.render_key,
            manifest: output::manifest_hash(files),
            plan: crate::render::fingerprint(&site.pages),
            left: self.left(out, files),
            incidents: site.archive.incidents.len(),
            providers: site.archive.providers.len(),
            pages: site.html_pages(),
            files: files.len(),
            warnings: site.warnings().0,
        };
        let mut index = Index::new(self.scanned, self.theme.clone(), content, Some(written));
        // If the last cache turns out damaged, every file is encoded from the site.
        let parsed = site.files();
        self.finish(file, &mut index, |content| index_loaded(content, parsed))
    }

    /// How each of `files` (in the manifest's order) is left in `out`: stamped and hashed
    /// again only where this build wrote it, or where the last build's files were not
    /// verified; the others as they were verified (a file this build did not write it did
    /// not touch, but for a link into a new tree, which changes its ctime: then the next
    /// build hashes it again).
    fn left(&self, out: &Path, files: &[OutputFile]) -> Lefts {
        let mut sorted: Vec<&OutputFile> = files.iter().collect();
        sorted.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        // The last build's files, as the manifest lists them: sorted the same way, and one
        // for one with what was verified of them.
        let before: &[Left] = self.verified.as_ref().map_or(&[], |v| &v.each);
        let before_paths = &self.written_paths[..before.len().min(self.written_paths.len())];
        let mut next = 0;
        let earlier: Vec<Option<Left>> = sorted
            .iter()
            .map(|file| {
                let path = file.path.as_str();
                while before_paths.get(next).is_some_and(|p| p.as_str() < path) {
                    next += 1;
                }
                let same = before_paths.get(next).is_some_and(|p| p == path);
                same.then(|| before[next]).filter(|_| !file.staged)
            })
            .collect();
        let again: Vec<&str> = sorted
            .iter()
            .zip(&earlier)
            .filter(|(_, earlier)| earlier.is_none())
            .map(|(file, _)| file.path.as_str())
            .collect();
        let stamps = output::look_at(out, &again);
        let mut looked = again
            .par_iter()
            .zip(stamps)
            .map(|(path, stamp)| {
                let stamp = stamp?;
                let hash = output::hash_at(out, path, &stamp)?;
                Some(Left { stamp, hash })
            })
            .collect::<Vec<_>>()
            .into_iter();
        let each = earlier
            .into_iter()
            .map(|earlier| earlier.or_else(|| looked.next().flatten()))
            .collect();
        Lefts::new(self.scanned, each)
    }

    fn write(
        &self,
        content: Vec<Seen>,
        bodies: Bodies<'_>,
        written: Option<Written>,
    ) -> Result<(), CacheNotWritten> {
        let mut index = Index::new(self.scanned, self.theme.clone(), content, written);
        cache::write(&self.dir, &self.key, &mut index, bodies).map_err(|e| self.failed(e))
    }

    /// Finishes a cache begun with `index`'s content; if what the last cache held turns out
    /// damaged, writes it again with the parsed forms `instead` gives for that content (in
    /// order, for every file), or empty and with nothing written if it gives none.
    fn finish<'a>(
        &self,
        file: io::Result<cache::Begun>,
        index: &mut Index,
        instead: impl FnOnce(&[Seen]) -> Option<Vec<&'a Loaded>>,
    ) -> Result<(), CacheNotWritten> {
        let result = match file.and_then(|begun| begun.finish(index)) {
            Err(e) if e.kind() == io::ErrorKind::InvalidData => match instead(&index.content) {
                Some(loaded) if loaded.len() == index.content.len() => {
                    cache::write(&self.dir, &self.key, index, Bodies::encoded(loaded))
                }
                _ => return self.write(Vec::new(), Bodies::encoded(Vec::new()), None),
            },
            other => other,
        };
        result.map_err(|e| self.failed(e))
    }

    /// What the user is told when the cache cannot be written.
    fn failed(&self, error: io::Error) -> CacheNotWritten {
        CacheNotWritten {
            dir: self.dir.clone(),
            reason: error.to_string(),
        }
    }
}

/// The build cache could not be written: worth a warning, as the site is complete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "could not write the build cache in {} ({reason}): the site is complete, the next build starts from scratch",
    dir.display()
)]
pub struct CacheNotWritten {
    dir: PathBuf,
    /// The system's words for what failed.
    reason: String,
}

/// The site as `cache` holds it, without its plan: what the last build's output shows.
fn written_site(cache: &Cache, options: &Options) -> Option<Site> {
    let plan = cache.index.written.as_ref()?.plan;
    let loaded = cache.loaded()?;
    let files: Files = cache
        .index
        .content
        .iter()
        .zip(loaded)
        .map(|(seen, loaded)| (seen.path.clone(), Ok(loaded)))
        .collect();
    Site::load_unplanned(options, || Ok(files), plan).ok()
}

/// The cache a build began: the content files it stores, and the file with what they gave.
pub struct Saving {
    content: Vec<Seen>,
    file: io::Result<cache::Begun>,
}

/// What each file of `content` gave, as the site has it; `None` if one is missing.
fn index_loaded<'a>(content: &[Seen], files: &'a Files) -> Option<Vec<&'a Loaded>> {
    content
        .iter()
        .map(|seen| files.get(&seen.path)?.as_ref().ok())
        .collect()
}

/// Files as seen, by path.
fn by_path<'a>(seen: impl IntoIterator<Item = &'a Seen>) -> HashMap<&'a [u8], &'a Seen> {
    seen.into_iter()
        .map(|seen| (path_key(&seen.path), seen))
        .collect()
}

/// A path as a key of a map: its bytes, which hash far faster than its components. Every
/// path compared this way comes from [`content::content_files`] (this build's walk, or the
/// one the cache recorded), which spells each path one way; another spelling would only
/// be taken for a new file.
fn path_key(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// Every file of the theme (`templates/`, `static/`) and `site.yaml`, relative to `root`.
fn theme_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from(CONFIG_FILE)];
    for dir in [TEMPLATES_DIR, STATIC_DIR] {
        for entry in sources::walk(&root.join(dir)).flatten() {
            if !entry.file_type().is_dir()
                && let Ok(relative) = entry.path().strip_prefix(root)
            {
                files.push(relative.to_path_buf());
            }
        }
    }
    files
}
