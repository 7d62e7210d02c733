//! The `outages` command line: parses arguments, runs a command, prints the result and
//! maps it to an exit code (0 done, 1 content errors, 2 usage errors).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use outages::build::{self, Error, Summary};
use outages::config::{BaseUrl, DEFAULT_BASE_URL};
use outages::diagnostics::{Diagnostics, count};
use outages::import::{self, scaffold};
use outages::serve::{self, ServeOptions};
use outages::site::{self, Options};

#[derive(Parser)]
#[command(
    name = "outages",
    version,
    about = "Build a static outage archive from markdown incident write-ups"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct SiteArgs {
    /// The site folder, holding `content/` (and optionally site.yaml, templates/, static/).
    #[arg(long, default_value = ".", value_parser = site::site_folder)]
    root: PathBuf,
}

#[derive(Subcommand)]
enum ImportSource {
    /// Atlassian Statuspage v2 JSON: incidents.json, summary.json, incidents/unresolved.json, scheduled-maintenances.json.
    Statuspage {
        file: PathBuf,
        /// The provider's folder under content/ (default: a slug of the page's name).
        #[arg(long)]
        provider: Option<String>,
        #[command(flatten)]
        site: SiteArgs,
    },
    /// A status page's /history.atom.
    Atom {
        file: PathBuf,
        /// The provider's folder under content/.
        #[arg(long)]
        provider: String,
        #[command(flatten)]
        site: SiteArgs,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Import incidents from a status page into content/<provider>/; run it again to add new updates.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Write a new incident file, content/<provider>/<date>-<title>.md, and print its path.
    New {
        provider: String,
        title: String,
        #[command(flatten)]
        site: SiteArgs,
    },
    /// Write a new archive into DIR (empty or missing) that builds at once.
    Init { dir: PathBuf },
    /// Build the site into public/ (or --output).
    Build {
        #[command(flatten)]
        site: SiteArgs,
        /// Where to write the site. Only files an earlier build wrote are removed from it; a second build of it waits for the first.
        #[arg(long)]
        output: Option<PathBuf>,
        /// The URL the site is published at, e.g. https://user.github.io/repo/ (overrides site.yaml).
        #[arg(long, value_parser = parse_base_url)]
        base_url: Option<BaseUrl>,
        /// Include incidents marked `draft: true`.
        #[arg(long)]
        drafts: bool,
        /// Also write .gz and .br siblings of text files over 1 KB (for nginx gzip_static, Caddy precompressed).
        #[arg(long)]
        precompress: bool,
        /// Where to keep the build cache, which lets the next build redo only what changed (default: .outages-cache/ in the site folder).
        #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
        cache_dir: Option<PathBuf>,
        /// Build from scratch: neither read nor write the build cache.
        #[arg(long)]
        no_cache: bool,
    },
    /// Validate everything a build would, and write nothing.
    Check {
        #[command(flatten)]
        site: SiteArgs,
    },
    /// Build into memory, serve on http://127.0.0.1:1111/, rebuild on every change and reload open pages.
    Serve(ServeOptions),
}

fn parse_base_url(text: &str) -> Result<BaseUrl, String> {
    BaseUrl::parse(text)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (result, verb) = match cli.command {
        Command::Build {
            site,
            output,
            base_url,
            drafts,
            precompress,
            cache_dir,
            no_cache,
        } => {
            let cache_dir = match no_cache {
                true => None,
                false => {
                    Some(cache_dir.unwrap_or_else(|| site.root.join(outages::cache::CACHE_DIR)))
                }
            };
            let options = Options {
                root: site.root,
                output,
                base_url,
                drafts,
                hash_assets: true,
                precompress,
                cache_dir,
            };
            let progress = progress_bar();
            (build::build(&options, &progress), "built")
        }
        Command::Check { site } => (build::check(&Options::new(site.root)), "checked"),
        Command::Import { source } => return import(source),
        Command::New {
            provider,
            title,
            site,
        } => {
            return match scaffold::new_incident(&site.root, &provider, &title) {
                Ok(path) => {
                    println!("{}", path.display());
                    ExitCode::SUCCESS
                }
                Err(message) => usage_error(&message),
            };
        }
        Command::Init { dir } => {
            return match scaffold::init(&dir) {
                Ok(files) => {
                    for file in files {
                        println!("created {}", file.display());
                    }
                    println!("now: outages serve --root {}", dir.display());
                    ExitCode::SUCCESS
                }
                Err(message) => usage_error(&message),
            };
        }
        Command::Serve(options) => {
            return match serve::run(options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => usage_error(&message),
            };
        }
    };
    finish(result, verb)
}

fn finish(result: Result<Summary, Error>, verb: &str) -> ExitCode {
    match result {
        Ok(summary) => {
            if !summary.warnings.0.is_empty() {
                summary.warnings.eprint();
            }
            for leftover in &summary.leftovers {
                eprintln!("warning: {leftover}");
            }
            if let Some(message) = &summary.cache_error {
                eprintln!("warning: {message}");
            }
            if summary.local_base_url && verb == "built" {
                eprintln!(
                    "warning: no base URL is set, so feeds, the sitemap and canonical links point at {DEFAULT_BASE_URL}\n \
                     = help: set `base_url` in site.yaml, or pass `--base-url https://…`"
                );
            }
            println!("{}", summary_line(verb, &summary));
            ExitCode::SUCCESS
        }
        Err(Error::Invalid(diagnostics)) => {
            diagnostics.eprint();
            ExitCode::from(1)
        }
        Err(error @ Error::Usage(_)) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
        Err(error @ (Error::Output(_) | Error::Search(_))) => {
            eprintln!("error: {error}");
            ExitCode::from(1)
        }
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// Runs an import and prints what it did to each incident.
fn import(source: ImportSource) -> ExitCode {
    let request = match &source {
        ImportSource::Statuspage {
            file,
            provider,
            site,
        } => import::Request {
            format: import::Format::Statuspage,
            file,
            provider: provider.as_deref(),
            root: &site.root,
        },
        ImportSource::Atom {
            file,
            provider,
            site,
        } => import::Request {
            format: import::Format::Atom,
            file,
            provider: Some(provider),
            root: &site.root,
        },
    };
    match import::run(&request) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(import::Error::Usage(message)) => usage_error(&message),
        Err(import::Error::Invalid(errors)) => invalid(Diagnostics(errors)),
    }
}

fn invalid(diagnostics: Diagnostics) -> ExitCode {
    diagnostics.eprint();
    ExitCode::from(1)
}

fn summary_line(verb: &str, s: &Summary) -> String {
    let files = if verb == "built" {
        format!(
            ", {} written, {} unchanged, {} removed",
            s.written.written, s.written.unchanged, s.written.removed
        )
    } else {
        String::new()
    };
    format!(
        "{verb} {} from {}: {}, {}{files} in {:.2}s",
        count(s.incidents, "incident"),
        count(s.providers, "provider"),
        count(s.pages, "page"),
        count(s.files, "file"),
        s.elapsed.as_secs_f64()
    )
}

/// A bar on a terminal, drawn only once a build has run for a second; nothing in CI or
/// when the output is piped.
fn progress_bar() -> ProgressBar {
    let interactive = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    if !interactive {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("{spinner} rendering {pos}/{len} files [{bar:30}] {eta}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    let delayed = bar.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        if !delayed.is_finished() {
            delayed.set_draw_target(ProgressDrawTarget::stderr());
        }
    });
    bar
}

// A build makes and frees millions of small strings; mimalloc does that markedly faster
// than the system allocator, across threads.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
