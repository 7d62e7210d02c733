//! The pipeline, start to end: files → model → archive → pages → bytes → disk.
//! `build` and `check` share every step but the last.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::archive::Archive;
use crate::config::{BaseUrl, Config};
use crate::content::{self, CONTENT_DIR};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::output::{self, OutputFile, WriteStats};
use crate::render::theme::{STATIC_DIR, TEMPLATES_DIR, Theme};
use crate::render::{self, Renderer};

/// What to build, from the command line.
#[derive(Debug, Clone)]
pub struct Options {
    pub root: PathBuf,
    /// Default: `public/` under the root.
    pub output: Option<PathBuf>,
    /// Overrides `site.yaml`'s `base_url`.
    pub base_url: Option<BaseUrl>,
    pub drafts: bool,
}

impl Options {
    pub fn new(root: impl Into<PathBuf>) -> Options {
        Options {
            root: root.into(),
            output: None,
            base_url: None,
            drafts: false,
        }
    }

    pub fn output_dir(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| self.root.join("public"))
    }
}

/// What a build did, for the summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub incidents: usize,
    pub providers: usize,
    /// Files of the site, every kind.
    pub files: usize,
    /// HTML pages among them.
    pub pages: usize,
    pub written: WriteStats,
    pub elapsed: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The content (or site.yaml, or a template) has problems: exit code 1.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// The command cannot run as asked: exit code 2.
    #[error("{0}")]
    Usage(String),
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Builds the site into the output folder. The folder is touched only once every page has
/// rendered: on any error it stays exactly as it was.
pub fn build(options: &Options, progress: &ProgressBar) -> Result<Summary, Error> {
    let out_dir = options.output_dir();
    check_output_dir(&options.root, &out_dir)?;
    run(options, Some(&out_dir), progress)
}

/// Validates everything a build would, rendering every page, and writes nothing.
pub fn check(options: &Options) -> Result<Summary, Error> {
    run(options, None, &ProgressBar::hidden())
}

fn run(
    options: &Options,
    out_dir: Option<&Path>,
    progress: &ProgressBar,
) -> Result<Summary, Error> {
    let start = Instant::now();
    let (config, archive, theme) = load(options).map_err(Error::Invalid)?;
    let pages = render::plan(&archive, &config, &theme)
        .map_err(|e| Error::Invalid(Diagnostics::sorted(e)))?;
    let renderer = Renderer::new(&archive, &config, theme);
    progress.set_length(pages.len() as u64);
    let rendered: Vec<Result<OutputFile, Diagnostic>> = pages
        .par_iter()
        .map(|page| {
            let bytes = renderer.render(page)?;
            progress.inc(1);
            // Compared now, in parallel, so unchanged pages are not held in memory.
            let unchanged =
                out_dir.is_some_and(|dir| output::is_unchanged(dir, &page.path, &bytes));
            Ok(OutputFile {
                path: page.path.clone(),
                bytes: (!unchanged).then_some(bytes),
            })
        })
        .collect();
    let mut files = Vec::with_capacity(rendered.len());
    let mut errors: Vec<Diagnostic> = Vec::new();
    for result in rendered {
        match result {
            Ok(file) => files.push(file),
            // One broken template fails every page made from it: say it once.
            Err(error) if errors.iter().any(|e| e.path == error.path) => {}
            Err(error) => errors.push(error),
        }
    }
    if !errors.is_empty() {
        return Err(Error::Invalid(Diagnostics::sorted(errors)));
    }
    let written = match out_dir {
        Some(dir) => output::commit(dir, &files).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?,
        None => WriteStats::default(),
    };
    progress.finish_and_clear();
    Ok(Summary {
        incidents: archive.incidents.len(),
        providers: archive.providers.len(),
        files: files.len(),
        pages: files.iter().filter(|f| f.path.ends_with(".html")).count(),
        written,
        elapsed: start.elapsed(),
    })
}

/// Reads site.yaml, content and theme, reporting the problems of all three at once.
fn load(options: &Options) -> Result<(Config, Archive, Theme), Diagnostics> {
    let root = &options.root;
    let (config, (content, theme)) = rayon::join(
        || Config::load(root),
        || rayon::join(|| content::load(root, options.drafts), || Theme::load(root)),
    );
    match (config, content, theme) {
        (Ok(mut config), Ok(content), Ok(theme)) => {
            if let Some(base_url) = &options.base_url {
                config.base_url = base_url.clone();
            }
            Ok((config, Archive::assemble(content), theme))
        }
        (config, content, theme) => {
            let errors = [config.err(), content.err(), theme.err()]
                .into_iter()
                .flatten()
                .flatten()
                .collect();
            Err(Diagnostics::sorted(errors))
        }
    }
}

/// Refuses an output folder whose clean-up would delete the site's own files.
fn check_output_dir(root: &Path, out_dir: &Path) -> Result<(), Error> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (root, out) = (absolute(root), absolute(out_dir));
    let protected = [CONTENT_DIR, TEMPLATES_DIR, STATIC_DIR].map(|dir| root.join(dir));
    if root.starts_with(&out) || protected.iter().any(|dir| out.starts_with(dir)) {
        return Err(Error::Usage(format!(
            "refusing to build into {}: it holds the site's own files, and a build removes what it did not write",
            out_dir.display()
        )));
    }
    Ok(())
}
