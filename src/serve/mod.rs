//! `outages serve`: builds the site into memory, serves it, watches the sources and, on a
//! change, updates the site through the same pipeline as `build`, rendering only the pages
//! the change touches. Open pages reload; errors show in the terminal and on every page
//! while the last good site stays served. Nothing is written to disk.

mod http;
mod indexer;
mod watch;

use std::any::Any;
use std::collections::{BTreeSet, HashMap};
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use tokio::sync::broadcast;

use crate::config::{BaseUrl, CONFIG_FILE};
use crate::content::CONTENT_DIR;
use crate::diagnostics::{Diagnostic, Diagnostics, count, thousands};
use crate::render::Page;
use crate::render::theme::{STATIC_DIR, TEMPLATES_DIR};
use crate::site::Options;
use crate::site::{Site, render_pages};

/// The folders watched recursively.
const SOURCE_DIRS: [&str; 3] = [CONTENT_DIR, TEMPLATES_DIR, STATIC_DIR];

/// How `serve` was asked to run: also its command line.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeOptions {
    /// The site folder, holding `content/` (and optionally site.yaml, templates/, static/).
    #[arg(long, default_value = ".", value_parser = crate::site::site_folder)]
    pub root: PathBuf,
    /// The port; the next free one is used when it is taken.
    #[arg(long, default_value_t = 1111)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Serve under this URL's path, as the deployed site (e.g. https://user.github.io/repo/ → /repo/).
    /// Only its path is used.
    #[arg(long, value_parser = BaseUrl::parse)]
    pub base_url: Option<BaseUrl>,
    /// Include incidents marked `draft: true`.
    #[arg(long)]
    pub drafts: bool,
    /// Poll for changes instead of using native events (containers, WSL, network drives).
    #[arg(long)]
    pub poll: bool,
    /// Open the preview in the browser.
    #[arg(long)]
    pub open: bool,
}

/// What the browser is told after a rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reload {
    /// Reload the page.
    Page,
    /// Only stylesheets changed: swap them without a reload.
    Css,
}

/// The site as served: every file's bytes, and the error to show, if any.
#[derive(Default)]
pub struct Store {
    pub(crate) files: HashMap<String, Arc<[u8]>>,
    /// The diagnostics of the last failed rebuild, shown over every page until fixed.
    pub error: Option<String>,
}

pub(crate) struct Shared {
    pub store: RwLock<Store>,
    pub reload: broadcast::Sender<Reload>,
    /// The path the site is served under: `/` or `/repo/`.
    pub base_path: String,
}

/// Why `serve` could not start, or stopped: never the site's content or templates (their
/// errors show in the page and the terminal, and it goes on), but the network, the watch
/// of the files, or a bug.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No port of those tried could be bound.
    #[error("cannot listen on {address} ports {first}-{last}: {source}")]
    Listen {
        /// The address asked for (`--bind`).
        address: IpAddr,
        /// The port asked for, the first tried.
        first: u16,
        /// The last port tried.
        last: u16,
        /// Why the last port tried could not be bound.
        source: std::io::Error,
    },
    /// The address bound cannot be read back.
    #[error("the server's own address cannot be read: {0}")]
    Address(std::io::Error),
    /// The address bound, with the path of `--base-url`, makes no base URL.
    #[error("the server's own address is no base URL: {0}")]
    BaseUrl(#[from] crate::config::BadBaseUrl),
    /// The site folder cannot be watched for changes.
    #[error("cannot watch {}: {source}", root.display())]
    Watch {
        /// The site folder.
        root: PathBuf,
        /// Why it cannot be watched.
        source: notify::Error,
    },
    /// The server's runtime or socket could not be set up.
    #[error("the server could not start: {0}")]
    Runtime(std::io::Error),
    /// The server's thread panicked.
    #[error("the server stopped: this is a bug in outages; please report it")]
    Stopped,
}

/// A usage error: the command cannot be carried out as given (a port, a folder).
impl crate::diagnostics::Failure for Error {}

/// Runs until Ctrl-C. Content and template errors never stop it.
pub fn run(options: ServeOptions) -> Result<(), Error> {
    let listener = bind(options.bind, options.port)?;
    let address = listener.local_addr().map_err(Error::Address)?;
    let base_path = options
        .base_url
        .as_ref()
        .map_or("/", |b| b.root_path())
        .to_string();
    let base_url = BaseUrl::parse(&format!("http://{address}{base_path}"))?;
    let build_options = Options {
        root: options.root.clone(),
        output: None,
        base_url: Some(base_url.clone()),
        drafts: options.drafts,
        hash_assets: false,
        precompress: false,
        cache_dir: None,
    };
    let (reload, _) = broadcast::channel(16);
    let shared = Arc::new(Shared {
        store: RwLock::new(Store::default()),
        reload,
        base_path,
    });

    let indexer = indexer::Indexer::start(Arc::clone(&shared));
    let start = Instant::now();
    let mut site = full_build(&build_options, &shared);
    if let Some(site) = &site {
        indexer.refresh(site);
        println!(
            "built {} from {}: {} in {} ms",
            count(site.archive.incidents.len(), "incident"),
            count(site.archive.providers.len(), "provider"),
            count(site.pages.len(), "file"),
            start.elapsed().as_millis()
        );
    }

    let url = base_url.url("");
    println!(
        "serving {} at {url} (Ctrl-C to stop)",
        options.root.display()
    );
    if options.open {
        let _ = open::that_detached(&url);
    }

    let (changes_tx, changes) = mpsc::channel::<Vec<PathBuf>>();
    let mut watch =
        watch::watch(&options.root, options.poll, changes_tx).map_err(|source| Error::Watch {
            root: options.root.clone(),
            source,
        })?;
    let mut watched: BTreeSet<&str> = SOURCE_DIRS
        .into_iter()
        .filter(|d| options.root.join(d).is_dir())
        .collect();

    let server = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || http::serve(listener, shared))
    };

    loop {
        let paths = match changes.recv_timeout(std::time::Duration::from_millis(200)) {
            Ok(paths) => paths,
            Err(mpsc::RecvTimeoutError::Timeout) if !server.is_finished() => continue,
            Err(_) => break,
        };
        // A source folder created after the start (a first template), or moved away and
        // back (the native watch stayed on the folder that went), is watched afresh.
        for dir in SOURCE_DIRS {
            let path = options.root.join(dir);
            let replaced = paths.contains(&path);
            if replaced {
                watched.remove(dir);
            }
            if path.is_dir() && !watched.contains(dir) && watch.rewatch(dir).is_ok() {
                watched.insert(dir);
            }
        }
        let unbuilt = site.is_none();
        rebuild(&mut site, &build_options, &shared, &paths, &options.root);
        // The index follows, on its own thread, once the pages are served.
        if let Some(site) = &site
            && (unbuilt || touches_content(&options.root, &paths))
        {
            indexer.refresh(site);
        }
    }
    server.join().map_err(|_| Error::Stopped)?
}

/// Applies one batch of changes and tells the browsers.
fn rebuild(
    site: &mut Option<Site>,
    options: &Options,
    shared: &Shared,
    paths: &[PathBuf],
    root: &Path,
) {
    let start = Instant::now();
    let what = describe(root, paths);
    let Some(current) = site else {
        // Nothing built yet: every change is a chance to build it all.
        *site = full_build(options, shared);
        if site.is_some() {
            println!(
                "{what}: built the whole site in {} ms",
                start.elapsed().as_millis()
            );
            let _ = shared.reload.send(Reload::Page);
        }
        return;
    };
    let result = match catch_unwind(AssertUnwindSafe(|| current.update(paths))) {
        Ok(result) => result,
        Err(panic) => {
            // The site may be half-updated: the next change builds it whole again, and the
            // last good pages stay served meanwhile.
            *site = None;
            println!("{what}: not rebuilt, the last good site is still served");
            show_error(shared, &panicked(root, paths, panic.as_ref()));
            return;
        }
    };
    match result {
        Ok(update) => {
            let rebuilt = update.rendered.len();
            let (changed, had_error) = {
                let mut store = shared.store.write().unwrap_or_else(PoisonError::into_inner);
                for path in &update.removed {
                    store.files.remove(path);
                }
                let mut changed = Vec::new();
                for (path, bytes) in update.rendered {
                    if store.files.get(&path).is_none_or(|old| **old != *bytes) {
                        store.files.insert(path.clone(), Arc::from(bytes));
                        changed.push(path);
                    }
                }
                (changed, store.error.take().is_some())
            };
            let removed = match update.removed.len() {
                0 => String::new(),
                n => format!(", {} removed", thousands(n)),
            };
            println!(
                "{what}: rebuilt {}, {} changed{removed}, in {} ms{}",
                count(rebuilt, "file"),
                thousands(changed.len()),
                start.elapsed().as_millis(),
                if had_error { " (error fixed)" } else { "" }
            );
            // The warnings of the files just read, as `build` would print them.
            let warnings = Diagnostics::sorted(
                current
                    .warnings()
                    .0
                    .into_iter()
                    .filter(|w| {
                        paths
                            .iter()
                            .any(|p| p.ends_with(&w.path) || w.path.ends_with(p))
                    })
                    .collect(),
            );
            if !warnings.0.is_empty() {
                warnings.eprint();
            }
            let css_only =
                update.removed.is_empty() && changed.iter().all(|path| path.ends_with(".css"));
            if had_error || !css_only {
                let _ = shared.reload.send(Reload::Page);
            } else if !changed.is_empty() {
                let _ = shared.reload.send(Reload::Css);
            }
        }
        Err(errors) => {
            println!("{what}: not rebuilt, the last good site is still served");
            show_error(shared, &errors);
        }
    }
}

/// Loads and renders the whole site into the store, or shows why it cannot. A site is
/// kept only once every page rendered, so a later change never updates a partial store.
fn full_build(options: &Options, shared: &Shared) -> Option<Site> {
    let built = catch_unwind(|| {
        Site::load(options).and_then(|site| {
            let pages: Vec<&Page> = site.pages.iter().collect();
            let files = render_pages(&site.renderer(), &pages, |page, bytes| {
                (page.path.clone(), Arc::<[u8]>::from(bytes))
            })?;
            Ok((site, files))
        })
    })
    .unwrap_or_else(|panic| Err(panicked(&options.root, &[], panic.as_ref())));
    match built {
        Ok((site, files)) => {
            let warnings = site.warnings();
            if !warnings.0.is_empty() {
                warnings.eprint();
            }
            let mut store = shared.store.write().unwrap_or_else(PoisonError::into_inner);
            // The search index is the indexer's: it stays served until the new one is in.
            store
                .files
                .retain(|path, _| path.starts_with(crate::routes::SEARCH_INDEX_DIR));
            store.files.extend(files);
            store.error = None;
            Some(site)
        }
        Err(errors) => {
            show_error(shared, &errors);
            None
        }
    }
}

/// A panic while building, as an error to show like any other: a bug, never a reason to
/// stop serving.
fn panicked(root: &Path, paths: &[PathBuf], panic: &(dyn Any + Send)) -> Diagnostics {
    let cause = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    let file = match paths {
        [one] => one.clone(),
        _ => root.to_path_buf(),
    };
    Diagnostics(vec![
        Diagnostic::file(
            file,
            format!("outages failed on this change ({cause}); this is a bug in outages"),
        )
        .with_hint(
            "undo the change, or report it with the file; the last good site is still served",
        ),
    ])
}

/// Prints the diagnostics and shows them on every served page.
fn show_error(shared: &Shared, errors: &Diagnostics) {
    errors.eprint();
    shared
        .store
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .error = Some(errors.render(&annotate_snippets::Renderer::plain()));
    let _ = shared.reload.send(Reload::Page);
}

/// Whether a change can change what is indexed: content or `site.yaml` (not the theme).
fn touches_content(root: &Path, paths: &[PathBuf]) -> bool {
    let content = root.join(CONTENT_DIR);
    let config = root.join(CONFIG_FILE);
    paths
        .iter()
        .any(|path| path.starts_with(&content) || *path == config || *path == root)
}

/// `content/acme/a.md changed` or `3 files changed`. Editors' temporary files, gone by
/// now, are not worth a mention; a source folder that went is.
fn describe(root: &Path, paths: &[PathBuf]) -> String {
    let shown: Vec<&PathBuf> = paths
        .iter()
        .filter(|p| {
            p.exists()
                || p.extension().is_some()
                || SOURCE_DIRS.iter().any(|dir| **p == root.join(dir))
        })
        .collect();
    match shown.as_slice() {
        [one] => format!(
            "{} changed",
            one.strip_prefix(root).unwrap_or(one).display()
        ),
        many => format!("{} files changed", many.len()),
    }
}

/// Binds `port`, or the next free one when it is taken (port 0: any free port).
fn bind(address: IpAddr, port: u16) -> Result<TcpListener, Error> {
    let tries = if port == 0 { 1 } else { 20 };
    let mut last = std::io::Error::other("no port tried");
    for offset in 0..tries {
        match TcpListener::bind(SocketAddr::new(address, port.saturating_add(offset))) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = e,
        }
    }
    Err(Error::Listen {
        address,
        first: port,
        last: port.saturating_add(tries - 1),
        source: last,
    })
}
