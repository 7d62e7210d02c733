//! The pipeline, start to end: files → model → archive → pages → bytes → disk.
//! `build` and `check` share every step but the last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use foldhash::HashSet;
use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::cache::Written;
use crate::config::{Config, StandIn};
use crate::content::CONTENT_DIR;
use crate::diagnostics::Diagnostics;
use crate::output::{self, Leftover, Output, OutputFile, WriteStats};
use crate::rebuild::{CacheNotWritten, Scan, StartFrom};
use crate::render::Page;
use crate::render::theme::{STATIC_DIR, TEMPLATES_DIR};
use crate::routes;
use crate::search;
use crate::site::{Options, Rerendered, Site, render_pages};

/// What a build did, for the summary line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub incidents: usize,
    pub providers: usize,
    /// Files of the site, every kind.
    pub files: usize,
    /// HTML pages among them.
    pub pages: usize,
    pub written: WriteStats,
    /// Folders of ours beside the output that could not be removed: worth a warning.
    pub leftovers: Vec<Leftover>,
    /// The base URL only stands in for the site's own (none was given, or `init`'s
    /// example is still there): worth a warning before the site is deployed.
    pub stand_in_base_url: Option<StandIn>,
    /// What builds but looks wrong (`### … : resolvd`), to show the writer.
    pub warnings: Diagnostics,
    /// The build cache could not be written: the build is complete, the next one slower.
    pub cache_error: Option<CacheNotWritten>,
    pub elapsed: Duration,
}

impl Summary {
    /// The summary of a build that found nothing to do, the output left as the last
    /// build wrote it.
    fn unchanged(
        options: &Options,
        written: &Written,
        output: Output,
        cache_error: Option<CacheNotWritten>,
        start: Instant,
    ) -> Summary {
        let config = Config::load(&options.root).unwrap_or_default();
        let base_url = options.base_url.as_ref().unwrap_or(&config.base_url);
        Summary {
            incidents: written.incidents,
            providers: written.providers,
            files: written.files,
            pages: written.pages,
            written: WriteStats {
                written: 0,
                unchanged: written.files,
                removed: 0,
            },
            leftovers: output.release(),
            stand_in_base_url: base_url.stand_in(),
            warnings: Diagnostics(written.warnings.clone()),
            cache_error,
            elapsed: start.elapsed(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The content (or site.yaml, or a template) has problems: exit code 1.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// The command cannot run as asked: exit code 2.
    #[error(transparent)]
    Usage(Misuse),
    /// Writing the output failed; it holds the complete old site (or the new one, with
    /// a warning): exit code 1.
    #[error(transparent)]
    Output(output::Error),
    /// The search index could not be built; the output is untouched: exit code 1.
    #[error(transparent)]
    Search(search::Error),
}

impl crate::diagnostics::Failure for Error {
    /// A command that cannot run as asked is a usage error; the rest are failures of the
    /// site or of writing it.
    fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => crate::diagnostics::EXIT_USAGE,
            Error::Invalid(_) | Error::Output(_) | Error::Search(_) => {
                crate::diagnostics::EXIT_INVALID
            }
        }
    }
}

/// A build that cannot run as asked: the folders given, not the content, are wrong.
#[derive(Debug, thiserror::Error)]
pub enum Misuse {
    #[error(transparent)]
    NoSite(#[from] crate::content::NoSite),
    /// Something of the user's is in the way of the output.
    #[error(transparent)]
    InTheWay(output::Error),
    #[error(
        "refusing to keep the build cache in {}: it is inside the output folder, which is published",
        .0.display()
    )]
    CacheInOutput(PathBuf),
    #[error(
        "refusing to build into {}: it holds the site's own files, and a build replaces the output folder as a whole",
        .0.display()
    )]
    OutputHoldsSite(PathBuf),
}

impl From<output::Error> for Error {
    fn from(error: output::Error) -> Error {
        match error {
            output::Error::InTheWay { .. } | output::Error::MountPoint(_) => {
                Error::Usage(Misuse::InTheWay(error))
            }
            other => Error::Output(other),
        }
    }
}

/// Builds the site into the output folder, holding its lock (waiting, with a notice, for
/// another build of it). The folder is touched only once every page has rendered, and then
/// swapped in one step: on any error it stays exactly as it was.
pub fn build(options: &Options, progress: &ProgressBar) -> Result<Summary, Error> {
    build_and_keep(options, progress).map(|(summary, made)| {
        made.free_aside();
        summary
    })
}

/// As [`build`], handing back what the build made instead of freeing it: for a process
/// that ends next, whose memory goes with it.
pub fn build_and_keep(options: &Options, progress: &ProgressBar) -> Result<(Summary, Made), Error> {
    let out_dir = options.output_dir();
    check_output_dir(&options.root, &out_dir)?;
    if let Some(cache) = &options.cache_dir
        && resolved(cache).starts_with(resolved(&out_dir))
    {
        return Err(Error::Usage(Misuse::CacheInOutput(cache.clone())));
    }
    run(options, Some(&out_dir), progress)
}

/// Validates everything a build would, rendering every page, and writes nothing.
pub fn check(options: &Options) -> Result<Summary, Error> {
    let (summary, made) = run(options, None, &ProgressBar::hidden())?;
    made.free_aside();
    Ok(summary)
}

/// What a build made, still in memory (the site and the cache's view of it): dropping it
/// frees them.
#[must_use]
pub struct Made {
    _site: Option<Site>,
    _files: Vec<OutputFile>,
    _scan: Option<Scan>,
}

impl Made {
    /// Frees it on a thread of its own: freeing a whole archive takes as long as a tenth of
    /// the build, off the path that the caller waits on.
    fn free_aside(self) {
        std::thread::spawn(move || drop(self));
    }
}

fn run(
    options: &Options,
    out_dir: Option<&Path>,
    progress: &ProgressBar,
) -> Result<(Summary, Made), Error> {
    let start = Instant::now();
    crate::content::require_dir(&options.root).map_err(|error| Error::Usage(error.into()))?;
    let output = match out_dir {
        Some(dir) => Some(Output::open(&resolved(dir), || {
            // Said once, as cargo does, so a build that seems stuck says why.
            progress.suspend(|| {
                eprintln!("waiting for another build of {} to finish", dir.display());
            });
        })?),
        None => None,
    };
    let mut scan = match (&output, &options.cache_dir, out_dir) {
        (Some(output), Some(dir), Some(out)) => Scan::new(options, dir, &resolved(out), output),
        _ => None,
    };
    let start_from = match &scan {
        Some(scan) => scan.start_from(),
        None => StartFrom::Scratch,
    };
    let output = match (&start_from, scan, output) {
        (StartFrom::Nothing(written), Some(found), Some(output)) => {
            let cache_error = found.nothing_to_do(written);
            let summary = Summary::unchanged(options, written, output, cache_error, start);
            let made = Made {
                _site: None,
                _files: Vec::new(),
                _scan: Some(found),
            };
            return Ok((summary, made));
        }
        (_, found, output) => {
            scan = found;
            output
        }
    };
    let written_site = scan.as_mut().and_then(Scan::take_written_site);
    let (mut site, changed) = match (&start_from, &scan, written_site) {
        (StartFrom::Written(changed), Some(_), Some(site)) => (site, Some(changed.as_slice())),
        (_, Some(scan), _) => (scan.fresh_site(options).map_err(Error::Invalid)?, None),
        (_, None, _) => (Site::load(options).map_err(Error::Invalid)?, None),
    };
    // Compares with the disk and stages a file if it changed: `false` when unchanged.
    let stage = |path: &str, bytes: &[u8]| match &output {
        Some(output) if !output.is_unchanged(path, bytes) => {
            output.stage(path, bytes).map(|()| true)
        }
        _ => Ok(false),
    };
    // A file of the site, compared and staged (with its compressed siblings) as soon as
    // it is made, in parallel, so none is held in memory.
    let emit = |is_page: &(dyn Fn(&str) -> bool + Sync), path: &str, bytes: &[u8]| {
        let staged = stage(path, bytes);
        let mut files = vec![(path.to_string(), staged)];
        // A site's own `X.gz` or `X.br` (a static file) is kept, and `X` not compressed.
        let siblings = routes::precompressed(path);
        if options.precompress
            && output::compressible(path, bytes.len())
            && !siblings.iter().any(|sibling| is_page(sibling))
        {
            let siblings_exist = output
                .as_ref()
                .is_some_and(|output| siblings.iter().all(|sibling| output.has_file(sibling)));
            if matches!(files[0].1, Ok(false)) && siblings_exist {
                // Unchanged file, unchanged siblings: no need to compress it again.
                files.extend(siblings.map(|sibling| (sibling, Ok(false))));
            } else {
                for (suffix, compressed) in output::precompressed(bytes) {
                    let path = format!("{path}{suffix}");
                    let staged = stage(&path, &compressed);
                    files.push((path, staged));
                }
            }
        }
        files
    };
    let (mut listed, index, begun) = match changed {
        // The last build's output, with what changed rendered again.
        Some(changed) => {
            // The site's own `X.gz` and `X.br`: static files, as the last build had them (a
            // change to one renders everything).
            let own: HashSet<String> = site
                .theme
                .assets
                .iter()
                .filter(|a| routes::is_precompressed(&a.path))
                .map(|a| a.path.clone())
                .collect();
            // The cache is begun beside: all of it but its index, the larger part of
            // writing it after one edit, and mostly one core's work.
            let (update, begun) = rayon::join(
                || {
                    site.update_content(changed.to_vec(), |page, bytes| {
                        emit(&|path| own.contains(path), &page.path, &bytes)
                    })
                },
                || scan.as_ref().map(Scan::begin_save),
            );
            let update = update.map_err(Error::Invalid)?;
            // The manifest as the look at the inputs read it.
            let written = scan.as_ref().map(Scan::written_paths).unwrap_or_default();
            let listed = updated(written, update, &own);
            let index = output.as_ref().filter(|_| site.config.search);
            (
                listed,
                index.map(|output| search_index(&site, output)).transpose(),
                begun,
            )
        }
        None => {
            progress.set_length(site.pages.len() as u64);
            site.views.render_markdown();
            let pages: Vec<&Page> = site.pages.iter().collect();
            let is_page = |path: &str| {
                site.pages
                    .binary_search_by(|p| p.path.as_str().cmp(path))
                    .is_ok()
            };
            // The search index is built beside the pages (its records are added one at a
            // time, so it keeps one core busy while the pages take the rest). `check` has
            // nothing to index.
            let (rendered, index) = rayon::join(
                || {
                    render_pages(&site.renderer(), &pages, |page, bytes| {
                        progress.inc(1);
                        emit(&is_page, &page.path, &bytes)
                    })
                },
                || {
                    let output = output.as_ref().filter(|_| site.config.search)?;
                    Some(search_index(&site, output))
                },
            );
            let listed: Listed = rendered
                .map_err(Error::Invalid)?
                .into_iter()
                .flatten()
                .collect();
            (listed, index.transpose(), None)
        }
    };
    let index = index.map_err(Error::Search)?.unwrap_or_default();
    // The index replaces the last one whole (with search on, no page may be under it).
    if !index.is_empty() {
        listed.retain(|(path, _)| !path.starts_with(routes::SEARCH_INDEX_DIR));
    }
    let no_pages = |_: &str| false;
    let indexed: Vec<_> = index
        .par_iter()
        .flat_map_iter(|(path, bytes)| emit(&no_pages, path, bytes))
        .collect();
    listed.extend(indexed);
    let mut files = Vec::with_capacity(listed.len());
    for (path, staged) in listed {
        files.push(OutputFile {
            path,
            staged: staged?,
        });
    }
    // The views the pages were made from are a good part of the build's memory, and no
    // longer needed: freed (on a thread of their own) before the commit adds its share.
    let views = std::mem::take(&mut site.views);
    std::thread::spawn(move || drop(views));
    let (written, leftovers) = match output {
        Some(output) => output.commit(&files)?,
        None => (WriteStats::default(), Vec::new()),
    };
    // Once the files are in place: the cache says how they are.
    let saved = match (&scan, out_dir) {
        (Some(scan), Some(out)) => scan.save(begun, &site, &resolved(out), &files).err(),
        _ => None,
    };
    progress.finish_and_clear();
    let summary = Summary {
        incidents: site.archive.incidents.len(),
        providers: site.archive.providers.len(),
        files: files.len(),
        pages: site.html_pages(),
        written,
        leftovers,
        stand_in_base_url: site.config.base_url.stand_in(),
        warnings: site.warnings(),
        cache_error: saved,
        elapsed: start.elapsed(),
    };
    let made = Made {
        _site: Some(site),
        _files: files,
        _scan: scan,
    };
    Ok((summary, made))
}

/// Files of the site, each with whether its new bytes wait staged (`false`: unchanged on
/// disk).
type Listed = Vec<(String, Result<bool, output::Error>)>;

/// The files of the last build (`written`, from its manifest), with what an update
/// rendered again in place of theirs and what it removed gone, with their compressed
/// siblings (but not the site's `own` files of those names).
fn updated(written: &[String], update: Rerendered<Listed>, own: &HashSet<String>) -> Listed {
    let mut listed: BTreeMap<String, Result<bool, output::Error>> = written
        .iter()
        .map(|path| (path.clone(), Ok(false)))
        .collect();
    let drop_siblings = |listed: &mut BTreeMap<_, _>, path: &str| {
        for sibling in routes::precompressed(path) {
            if !own.contains(&sibling) {
                listed.remove(&sibling);
            }
        }
    };
    for path in &update.removed {
        listed.remove(path);
        drop_siblings(&mut listed, path);
    }
    for files in update.rendered {
        if let Some((path, _)) = files.first() {
            drop_siblings(&mut listed, path);
        }
        listed.extend(files);
    }
    listed.into_iter().collect()
}

/// The search index of the site: the last build's shards, read back, where they indexed
/// the same records with this same program, the others built anew.
fn search_index(site: &Site, output: &Output) -> Result<Vec<(String, Vec<u8>)>, search::Error> {
    search::index(
        &site.archive.incidents,
        &site.views.incidents.provider_names(),
        &site.config.language,
        |path| output.read(path),
        &mut search::Memory::default(),
    )
}

/// The real location of a path that may not exist yet: its deepest existing ancestor with
/// links and `..` resolved, then the rest with `..` applied by hand. Comparing these, and
/// not the paths as written, is what catches `--output ../site` run from inside `site`.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    let base = loop {
        if let Ok(real) = existing.canonicalize() {
            break real;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break existing.to_path_buf(),
        }
    };
    let mut out = base;
    for part in rest.iter().rev() {
        if part == ".." {
            out.pop();
        } else if part != "." {
            out.push(part);
        }
    }
    out
}

/// Refuses an output folder whose clean-up would delete the site's own files.
fn check_output_dir(root: &Path, out_dir: &Path) -> Result<(), Error> {
    let (root, out) = (resolved(root), resolved(out_dir));
    // Resolved each: a `content/` that is a link to elsewhere is still the site's own.
    let protected = [CONTENT_DIR, TEMPLATES_DIR, STATIC_DIR].map(|dir| resolved(&root.join(dir)));
    if root.starts_with(&out) || protected.iter().any(|dir| out.starts_with(dir)) {
        return Err(Error::Usage(Misuse::OutputHoldsSite(out_dir.to_path_buf())));
    }
    Ok(())
}
