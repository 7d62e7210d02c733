//! The `outages` command line: parses arguments, runs a command, prints the result and
//! maps it to an exit code (0 done, 1 content errors, 2 usage errors).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use outages::build::{self, Error, Summary};
use outages::config::{BaseUrl, DEFAULT_BASE_URL, PLACEHOLDER_BASE_URL, StandIn};
use outages::diagnostics::{Diagnostics, EXIT_INVALID, Failure, count, thousands};
use outages::import::{self, scaffold};
use outages::model::Platform;
use outages::serve::{self, ServeOptions};
use outages::site::{self, Options};
use outages::sync;

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
enum ProviderCommand {
    /// Write content/<slug>/_index.md for a provider with a status page that `sync` follows.
    Add {
        /// The provider's folder under content/, like github (a name is made into one).
        slug: String,
        /// The status page, like https://www.githubstatus.com
        status_page: String,
        /// The platform the status page runs on (default: found from the address and what it answers): statuspage, incident-io, google-cloud, aws, slack, better-stack or feed.
        #[arg(long, value_parser = parse_platform)]
        kind: Option<Platform>,
        /// The provider's name (default: the name its status page gives, on the first sync).
        #[arg(long)]
        name: Option<String>,
        /// The provider's own web site.
        #[arg(long)]
        url: Option<String>,
        #[command(flatten)]
        site: SiteArgs,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Import incidents from a status page's payload you saved into content/<provider>/; run it again to add new updates.
    Import {
        /// What the payload is from: statuspage, incident-io, google-cloud, aws, slack, better-stack or feed (an Atom or RSS feed; `atom` is the same).
        #[arg(value_parser = parse_platform)]
        kind: Platform,
        /// The payload: an answer of the platform's API, or its feed.
        file: PathBuf,
        /// The provider's folder under content/ (default: a slug of the name the payload gives its page).
        #[arg(long)]
        provider: Option<String>,
        #[command(flatten)]
        site: SiteArgs,
    },
    /// Fetch the providers' status pages and merge new incidents and updates into content/.
    Sync {
        /// The providers to sync (default: every provider with a status_page, but those with `sync: false`).
        providers: Vec<String>,
        /// Say what would change, and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Status page hosts fetched from at once (each host gets one request at a time).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
        jobs: u16,
        /// Seconds a request may take, answer included.
        #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=600))]
        timeout: u64,
        /// Milliseconds to wait between two requests to one host.
        #[arg(long, value_name = "MS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(0..=60_000))]
        delay: u64,
        /// Walk each provider's whole history again, fetching every incident it lists anew (the first sync of a provider walks it anyway).
        #[arg(long)]
        history: bool,
        /// Where to keep what the servers said (ETag, Last-Modified) for conditional requests (default: .outages-cache/).
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        #[command(flatten)]
        site: SiteArgs,
    },
    /// Add a provider to the archive.
    Provider {
        #[command(subcommand)]
        command: ProviderCommand,
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
        #[arg(long, value_parser = BaseUrl::parse)]
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

/// A platform named on the command line that is none of the kinds.
#[derive(Debug, thiserror::Error)]
#[error("no platform `{0}`; the kinds are {kinds}", kinds = Platform::keywords())]
struct NoPlatform(String);

fn parse_platform(text: &str) -> Result<Platform, NoPlatform> {
    match text {
        // The name of the feed kind before feeds other than Atom were read.
        "atom" => Ok(Platform::Feed),
        _ => Platform::parse(text).ok_or_else(|| NoPlatform(text.to_string())),
    }
}

fn main() -> ExitCode {
    // Transparent huge pages cost more than they give a build: the kernel zeroes two
    // megabytes at a time where mimalloc asks for a page (at 10,000 incidents, a sixth of
    // a cold build's memory and a third of its system time, and 40% of a no-op's memory).
    // On failure the build only uses more.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    let cli = Cli::parse();
    let (result, done) = match cli.command {
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
                false => Some(cache_dir.unwrap_or_else(|| outages::cache::default_dir(&site.root))),
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
            let built = build::build_and_keep(&options, &progress).map(|(summary, made)| {
                // The process ends next and its memory with it. Freeing the site first only
                // adds time: the allocator hands what is freed back to the system as the
                // process ends (at 10,000 incidents, a twentieth of a build after one edit).
                std::mem::forget(made);
                summary
            });
            (built, Done::Built)
        }
        Command::Check { site } => (build::check(&Options::new(site.root)), Done::Checked),
        Command::Import {
            kind,
            file,
            provider,
            site,
        } => {
            let request = import::Request {
                platform: kind,
                file: &file,
                provider: provider.as_deref(),
                root: &site.root,
            };
            return import(&request);
        }
        Command::Sync {
            providers,
            dry_run,
            jobs,
            timeout,
            delay,
            history,
            cache_dir,
            site,
        } => {
            let options = sync::Options {
                state_dir: cache_dir.unwrap_or_else(|| outages::cache::default_dir(&site.root)),
                root: site.root,
                providers,
                mode: match dry_run {
                    true => import::Mode::DryRun,
                    false => import::Mode::Write,
                },
                jobs: usize::from(jobs),
                limits: sync::fetch::Limits {
                    timeout: Duration::from_secs(timeout),
                    ..Default::default()
                },
                delay: Duration::from_millis(delay),
                history,
            };
            return sync(&options);
        }
        Command::Provider {
            command:
                ProviderCommand::Add {
                    slug,
                    status_page,
                    kind,
                    name,
                    url,
                    site,
                },
        } => {
            let provider = sync::providers::NewProvider {
                slug: &slug,
                status_page: &status_page,
                kind,
                name: name.as_deref(),
                url: url.as_deref(),
            };
            return match sync::providers::add(&site.root, &provider) {
                Ok(added) => {
                    let how = match &added.found {
                        Some(how) => format!(", found because {how}"),
                        None => String::new(),
                    };
                    println!(
                        "created {}: {} (sync: {{kind: {}}}{how})",
                        added.file.display(),
                        added.platform.label(),
                        added.platform.keyword()
                    );
                    println!("now: outages sync {}", added.slug);
                    ExitCode::SUCCESS
                }
                Err(error) => failed(&error),
            };
        }
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
                Err(error) => failed(&error),
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
                Err(error) => failed(&error),
            };
        }
        Command::Serve(options) => {
            return match serve::run(options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => failed(&error),
            };
        }
    };
    finish(result, done)
}

/// What a command that loads a site did: its summary says it, and only a build wrote files.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Done {
    Built,
    Checked,
}

impl Done {
    fn verb(self) -> &'static str {
        match self {
            Done::Built => "built",
            Done::Checked => "checked",
        }
    }
}

fn finish(result: Result<Summary, Error>, done: Done) -> ExitCode {
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
            // A check writes nothing, so nothing it wrote points anywhere.
            match summary.stand_in_base_url.filter(|_| done == Done::Built) {
                Some(StandIn::Unset) => eprintln!(
                    "warning: no base URL is set, so feeds, the sitemap and canonical links point at {DEFAULT_BASE_URL}\n \
                     = help: set `base_url` in site.yaml, or pass `--base-url https://…`"
                ),
                Some(StandIn::Placeholder) => eprintln!(
                    "warning: site.yaml's base_url is still the example {PLACEHOLDER_BASE_URL}, so feeds, the sitemap and canonical links point there\n \
                     = help: set `base_url` to where the site will live, or pass `--base-url https://…`"
                ),
                None => {}
            }
            println!("{}", summary_line(done, &summary));
            ExitCode::SUCCESS
        }
        Err(Error::Invalid(diagnostics)) => invalid(diagnostics),
        Err(error) => failed(&error),
    }
}

/// Says what went wrong, once, and exits with the code that says it.
fn failed(error: &dyn Failure) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(error.exit_code())
}

/// Runs an import and prints what it did to each incident.
fn import(request: &import::Request) -> ExitCode {
    match import::run(request) {
        Ok(report) => {
            for recovered in &report.recovered {
                eprintln!("warning: {recovered}");
            }
            if let import::Described::Failed(why) = &report.described {
                eprintln!("warning: {why}");
            }
            println!("{report}");
            match report.conflicts() {
                0 => ExitCode::SUCCESS,
                _ => ExitCode::from(SOME_FAILED),
            }
        }
        Err(import::Error::Usage(misuse)) => failed(&misuse),
        Err(import::Error::Invalid(errors)) => invalid(Diagnostics(errors)),
    }
}

/// The exit code of a sync in which some providers failed (the others synced), or of an
/// import or sync that left out incidents another provider holds.
const SOME_FAILED: u8 = 3;

/// Runs a sync, printing each provider as it is done, then the summary.
fn sync(options: &sync::Options) -> ExitCode {
    let progress = bar(
        "{spinner} syncing {pos}/{len} providers and incidents of their history [{bar:30}] {eta}",
    );
    let result = sync::run(options, &progress, |synced| {
        progress.suspend(|| match synced.result {
            Ok(_) => println!("{synced}"),
            Err(_) => eprintln!("{synced}"),
        })
    });
    progress.finish_and_clear();
    match result {
        Ok(summary) => {
            for warning in &summary.warnings {
                eprintln!("warning: {warning}");
            }
            if summary.synced.is_empty() {
                println!(
                    "no provider to sync: give one a status page with `outages provider add SLUG STATUS_PAGE_URL`"
                );
                return ExitCode::SUCCESS;
            }
            println!("{summary}");
            match summary.failed() + summary.conflicts() {
                0 => ExitCode::SUCCESS,
                _ => ExitCode::from(SOME_FAILED),
            }
        }
        Err(error) => failed(&error),
    }
}

fn invalid(diagnostics: Diagnostics) -> ExitCode {
    diagnostics.eprint();
    ExitCode::from(EXIT_INVALID)
}

fn summary_line(done: Done, s: &Summary) -> String {
    let verb = done.verb();
    let files = if done == Done::Built {
        let [written, unchanged, removed] =
            [s.written.written, s.written.unchanged, s.written.removed].map(thousands);
        format!(", {written} written, {unchanged} unchanged, {removed} removed")
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
    bar("{spinner} rendering {pos}/{len} files [{bar:30}] {eta}")
}

fn bar(template: &str) -> ProgressBar {
    let interactive = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    if !interactive {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template(template)
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
