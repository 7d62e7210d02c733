//! The pipeline, start to end: files → model → archive → pages → bytes → disk.
//! `build` and `check` share every step but the last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use foldhash::HashSet;
use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::cache::{self, Written};
use crate::config::{Config, StandIn};
use crate::content::CONTENT_DIR;
use crate::diagnostics::Diagnostics;
use crate::output::{self, Leftover, Output, OutputFile, WriteStats};
use crate::rebuild::{CacheNotWritten, Saving, Scan, StartFrom};
use crate::render::Page;
use crate::render::theme::{STATIC_DIR, TEMPLATES_DIR};
use crate::routes;
use crate::search;
use crate::site::{Changes, Options, Rerendered, Site, render_pages};

/// What a build did, for the summary line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Incidents in the archive (drafts among them only with `--drafts`).
    pub incidents: usize,
    /// Providers in the archive.
    pub providers: usize,
    /// Files of the site, every kind.
    pub files: usize,
    /// HTML pages among them.
    pub pages: usize,
    /// How many files were written, left as they were, and removed (all zero for `check`).
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
    /// How long the build took, start to end.
    pub elapsed: Duration,
}

impl Summary {
    /// The summary of a build that found nothing to do, the output left as the last
    /// build wrote it.
    fn unchanged(
        options: &Options,
        written: &Written,
        output: Option<Output>,
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
            leftovers: output.map(Output::release).unwrap_or_default(),
            stand_in_base_url: base_url.stand_in(),
            warnings: Diagnostics(written.warnings.clone()),
            cache_error,
            elapsed: start.elapsed(),
        }
    }
}

/// Why a build or a check failed; each kind has its exit code.
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
    /// The root holds no `content/` folder.
    #[error(transparent)]
    NoSite(#[from] crate::content::NoSite),
    /// Something of the user's is in the way of the output.
    #[error(transparent)]
    InTheWay(output::Error),
    /// The cache folder is inside the output folder, which is published.
    #[error(
        "refusing to keep the build cache in {}: it is inside the output folder, which is published",
        .0.display()
    )]
    CacheInOutput(PathBuf),
    /// The output folder is the site folder or above it, or lies inside `content/`,
    /// `templates/` or `static/`: replacing it would delete the site's own files.
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

/// What a build does with what it makes.
enum Mode {
    /// `check`: renders every page and writes nothing.
    Check,
    /// Writes into the output folder.
    Write(Box<Writing>),
}

/// What a build that writes holds: the output folder (`out`, resolved), and what the
/// cache says of the last build when there is one to read.
struct Writing {
    out: PathBuf,
    output: Output,
    cache: Option<Scan>,
}

impl Mode {
    /// Writing into `out_dir`, holding its lock, or checking only (`None`).
    fn open(
        options: &Options,
        out_dir: Option<&Path>,
        progress: &ProgressBar,
    ) -> Result<Mode, Error> {
        let Some(dir) = out_dir else {
            return Ok(Mode::Check);
        };
        let out = resolved(dir);
        let output = Output::open(&out, || {
            // Said once, as cargo does, so a build that seems stuck says why.
            progress.suspend(|| {
                eprintln!("waiting for another build of {} to finish", dir.display());
            });
        })?;
        let cache =
            (options.cache_dir.as_ref()).and_then(|cache| Scan::new(options, cache, &out, &output));
        Ok(Mode::Write(Box::new(Writing { out, output, cache })))
    }

    fn output(&self) -> Option<&Output> {
        match self {
            Mode::Check => None,
            Mode::Write(writing) => Some(&writing.output),
        }
    }

    fn cache(&self) -> Option<&Scan> {
        match self {
            Mode::Write(writing) => writing.cache.as_ref(),
            Mode::Check => None,
        }
    }

    fn cache_mut(&mut self) -> Option<&mut Scan> {
        match self {
            Mode::Write(writing) => writing.cache.as_mut(),
            Mode::Check => None,
        }
    }

    /// Nothing to do: the output stays as the last build (`written`) left it.
    fn unchanged(self, options: &Options, written: &Written, start: Instant) -> (Summary, Made) {
        let (output, scan) = match self {
            Mode::Write(writing) => (Some(writing.output), writing.cache),
            Mode::Check => (None, None),
        };
        let cache_error = scan.as_ref().and_then(|scan| scan.nothing_to_do(written));
        let summary = Summary::unchanged(options, written, output, cache_error, start);
        let made = Made {
            _site: None,
            _files: Vec::new(),
            _scan: scan,
        };
        (summary, made)
    }

    /// Puts `files` in place (nothing for `check`), then saves the cache.
    fn commit(
        self,
        files: &[OutputFile],
        begun: Option<Saving>,
        site: &Site,
    ) -> Result<Committed, Error> {
        let Mode::Write(writing) = self else {
            return Ok(Committed::default());
        };
        let Writing { out, output, cache } = *writing;
        let (written, leftovers) = output.commit(files)?;
        // Once the files are in place: the cache says how they are.
        let cache_error =
            (cache.as_ref()).and_then(|scan| scan.save(begun, site, &out, files).err());
        Ok(Committed {
            written,
            leftovers,
            cache_error,
            scan: cache,
        })
    }
}

/// What putting a build's files in place did.
#[derive(Default)]
struct Committed {
    written: WriteStats,
    /// Folders of ours beside the output that could not be removed.
    leftovers: Vec<Leftover>,
    /// Why the cache was not saved, if it was not.
    cache_error: Option<CacheNotWritten>,
    /// The cache's look at the inputs, freed with the rest of what the build made.
    scan: Option<Scan>,
}

fn run(
    options: &Options,
    out_dir: Option<&Path>,
    progress: &ProgressBar,
) -> Result<(Summary, Made), Error> {
    let start = Instant::now();
    crate::content::require_dir(&options.root).map_err(|error| Error::Usage(error.into()))?;
    let mut mode = Mode::open(options, out_dir, progress)?;
    let start_from = mode.cache().map(Scan::start_from);
    if let Some(StartFrom::Nothing(written)) = &start_from {
        return Ok(mode.unchanged(options, written, start));
    }
    let (mut site, changed) = load(options, start_from, mode.cache_mut())?;
    let emit = Emit {
        output: mode.output(),
        precompress: options.precompress,
        cache: options.cache_dir.as_deref(),
    };
    let (listed, index, begun) = match changed {
        Some(changed) => render_changed(&mut site, changed, &emit, mode.cache())?,
        None => render_all(&site, &emit, progress)?,
    };
    let Indexed {
        files: index,
        words,
    } = index
        .transpose()
        .map_err(Error::Search)?
        .unwrap_or_default();
    let files = gather(listed, index, &emit)?;
    // The views the pages were made from are a good part of the build's memory, and no
    // longer needed: freed (on a thread of their own) before the commit adds its share.
    let views = std::mem::take(&mut site.views);
    std::thread::spawn(move || drop(views));
    let Committed {
        written,
        leftovers,
        cache_error,
        scan,
    } = mode.commit(&files, begun, &site)?;
    // Like the cache, once the build is in place: a failed build leaves its folder as it was.
    keep_words(options.cache_dir.as_deref(), words);
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
        cache_error,
        elapsed: start.elapsed(),
    };
    let made = Made {
        _site: Some(site),
        _files: files,
        _scan: scan,
    };
    Ok((summary, made))
}

/// The site to build: the last build's, as the cache holds it, with the content files
/// that changed since; or loaded anew (with a cache, parsing only the files it does not
/// hold).
fn load(
    options: &Options,
    start_from: Option<StartFrom>,
    scan: Option<&mut Scan>,
) -> Result<(Site, Option<Changes>), Error> {
    let Some(scan) = scan else {
        return Ok((Site::load(options).map_err(Error::Invalid)?, None));
    };
    if let Some(StartFrom::Written(changed)) = start_from
        && let Some(site) = scan.take_written_site()
    {
        return Ok((site, Some(changed)));
    }
    Ok((scan.fresh_site(options).map_err(Error::Invalid)?, None))
}

/// Where each file of the site goes as soon as it is made: compared with the disk and
/// staged if it changed, with its compressed siblings, in parallel, so none is held in
/// memory. `check` has no output: nothing is staged.
struct Emit<'a> {
    output: Option<&'a Output>,
    precompress: bool,
    /// The build cache's folder, if the build keeps one.
    cache: Option<&'a Path>,
}

/// The search index, if the build makes one.
type SearchFiles = Option<Result<Indexed, search::Error>>;

/// The search index's files, and the words Pagefind was asked about to keep in the cache
/// folder once the build is in place (`None`: none new).
#[derive(Default)]
struct Indexed {
    files: Vec<(String, Vec<u8>)>,
    words: Option<Vec<u8>>,
}

impl Emit<'_> {
    /// Compares with the disk and stages a file if it changed: `false` when unchanged.
    fn stage(&self, path: &str, bytes: &[u8]) -> Result<bool, output::Error> {
        match self.output {
            Some(output) if !output.is_unchanged(path, bytes) => {
                output.stage(path, bytes).map(|()| true)
            }
            _ => Ok(false),
        }
    }

    /// A file of the site, and its compressed siblings unless `is_page` says the site
    /// makes a file of that name itself.
    fn file(&self, is_page: &(dyn Fn(&str) -> bool + Sync), path: &str, bytes: &[u8]) -> Listed {
        let mut files = vec![(path.to_string(), self.stage(path, bytes))];
        // A site's own `X.gz` or `X.br` (a static file) is kept, and `X` not compressed.
        let siblings = routes::precompressed(path);
        if self.precompress
            && output::compressible(path, bytes.len())
            && !siblings.iter().any(|sibling| is_page(sibling))
        {
            let siblings_exist = (self.output)
                .is_some_and(|output| siblings.iter().all(|sibling| output.has_file(sibling)));
            if matches!(files[0].1, Ok(false)) && siblings_exist {
                // Unchanged file, unchanged siblings: no need to compress it again.
                files.extend(siblings.map(|sibling| (sibling, Ok(false))));
            } else {
                for (suffix, compressed) in output::precompressed(bytes) {
                    let path = format!("{path}{suffix}");
                    let staged = self.stage(&path, &compressed);
                    files.push((path, staged));
                }
            }
        }
        files
    }

    /// The search index of the site, built against the output (`None` for `check`, or
    /// without search).
    fn search_index(&self, site: &Site) -> SearchFiles {
        let output = self.output.filter(|_| site.config.search)?;
        Some(search_index(site, output, self.cache))
    }
}

/// The last build's output, with what changed rendered again. The cache is begun beside:
/// all of it but its index, the larger part of writing it after one edit, and mostly one
/// core's work.
fn render_changed(
    site: &mut Site,
    changed: Changes,
    emit: &Emit,
    scan: Option<&Scan>,
) -> Result<(Listed, SearchFiles, Option<Saving>), Error> {
    // The site's own `X.gz` and `X.br`: static files, as the last build had them (a
    // change to one renders everything).
    let own: HashSet<String> = (site.theme.assets.iter())
        .filter(|a| routes::is_precompressed(&a.path))
        .map(|a| a.path.clone())
        .collect();
    let (update, begun) = rayon::join(
        || {
            site.update_content(changed, |page, bytes| {
                emit.file(&|path| own.contains(path), &page.path, &bytes)
            })
        },
        || scan.map(Scan::begin_save),
    );
    let update = update.map_err(Error::Invalid)?;
    // The manifest as the look at the inputs read it.
    let written = scan.map(Scan::written_paths).unwrap_or_default();
    let listed = updated(written, update, &own);
    Ok((listed, emit.search_index(site), begun))
}

/// Every page of the site, rendered, with the search index built beside them (its
/// records are added one at a time, so it keeps one core busy while the pages take the
/// rest).
fn render_all(
    site: &Site,
    emit: &Emit,
    progress: &ProgressBar,
) -> Result<(Listed, SearchFiles, Option<Saving>), Error> {
    progress.set_length(site.pages.len() as u64);
    site.views.render_markdown();
    let pages: Vec<&Page> = site.pages.iter().collect();
    let is_page = |path: &str| {
        (site.pages)
            .binary_search_by(|p| p.path.as_str().cmp(path))
            .is_ok()
    };
    let (rendered, index) = rayon::join(
        || {
            render_pages(&site.renderer(), &pages, |page, bytes| {
                progress.inc(1);
                emit.file(&is_page, &page.path, &bytes)
            })
        },
        || emit.search_index(site),
    );
    let listed = rendered
        .map_err(Error::Invalid)?
        .into_iter()
        .flatten()
        .collect();
    Ok((listed, index, None))
}

/// The files of the build: the pages listed, and the search index, which replaces the
/// last one whole (with search on, no page may be under it).
fn gather(
    mut listed: Listed,
    index: Vec<(String, Vec<u8>)>,
    emit: &Emit,
) -> Result<Vec<OutputFile>, Error> {
    if !index.is_empty() {
        listed.retain(|(path, _)| !path.starts_with(routes::SEARCH_INDEX_DIR));
    }
    let no_pages = |_: &str| false;
    let indexed: Vec<_> = index
        .par_iter()
        .flat_map_iter(|(path, bytes)| emit.file(&no_pages, path, bytes))
        .collect();
    listed.extend(indexed);
    let mut files = Vec::with_capacity(listed.len());
    for (path, staged) in listed {
        files.push(OutputFile {
            path,
            staged: staged?,
        });
    }
    Ok(files)
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
/// the same records with this same program, the others built anew. With a cache folder,
/// it starts from the words Pagefind was asked about there, and gives back those to keep.
fn search_index(
    site: &Site,
    output: &Output,
    cache: Option<&Path>,
) -> Result<Indexed, search::Error> {
    let saved = cache.and_then(|dir| std::fs::read(dir.join(cache::SEARCH_WORDS)).ok());
    let mut memory = saved.map_or_else(search::Memory::default, |saved| {
        search::Memory::with_words(&saved)
    });
    let files = search::index(
        &site.archive.incidents,
        &site.views.incidents.provider_names(),
        &site.config.language,
        |path| output.read(path),
        &mut memory,
    )?;
    let words = cache.and(memory.saved_words());
    Ok(Indexed { files, words })
}

/// Keeps the words Pagefind was asked about in the cache folder, for the next build. Only a
/// saving of time: a build that cannot keep them asks Pagefind again.
fn keep_words(cache: Option<&Path>, words: Option<Vec<u8>>) {
    if let (Some(dir), Some(words)) = (cache, words) {
        let _ = cache::write_aside(dir, cache::SEARCH_WORDS, |path| std::fs::write(path, words));
    }
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
