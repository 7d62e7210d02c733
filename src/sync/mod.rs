//! `outages sync`: keeps the archive current from the providers' live status pages.
//!
//! For each provider to follow ([`providers`]), the Statuspage endpoints are fetched
//! ([`fetch`]: conditional, polite, bounded), a host at a time per host and `jobs` hosts at
//! once, on tokio; the answers come back here, to one thread, which merges each provider's
//! incidents with exactly the import's rules (idempotent, lossless, hand edits kept), all of
//! a provider's files or none. A provider that fails is reported and the others go on. The
//! servers' validators are kept in the cache folder ([`state`]) only once what they vouch
//! for is written.

pub mod fetch;
pub mod providers;
pub mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use indicatif::ProgressBar;
use reqwest::Url;

use crate::content::source::decode_text;
use crate::diagnostics::{Diagnostic, Diagnostics, count};
use crate::import::{self, Change, Mode, Outcome, statuspage};
use fetch::{Client, Failure, Fetched, Limits, Validators};
use providers::Followed;
use state::State;

/// The Statuspage v2 endpoints a sync reads, under the status page's address.
pub const ENDPOINTS: [&str; 2] = [
    "api/v2/incidents.json",
    "api/v2/scheduled-maintenances.json",
];

/// A sync to run.
pub struct Options {
    pub root: PathBuf,
    /// Slugs of the providers to sync; empty for all that have a status page.
    pub providers: Vec<String>,
    pub mode: Mode,
    /// Hosts fetched from at once.
    pub jobs: usize,
    pub limits: Limits,
    /// Where the validators are kept (the build cache's folder).
    pub state_dir: PathBuf,
}

/// Why a sync did nothing at all.
#[derive(Debug)]
pub enum Error {
    /// The command was wrong (exit 2).
    Usage(String),
}

/// What a sync did to one provider.
#[derive(Debug)]
pub struct Synced {
    /// The provider's slug (its folder's name, if its `_index.md` does not load).
    pub provider: String,
    pub result: Result<Done, Failed>,
    pub mode: Mode,
}

#[derive(Debug)]
pub enum Done {
    /// Every endpoint answered 304.
    NotModified,
    Merged {
        outcomes: Vec<Outcome>,
        /// The name the status page gives, written into an `_index.md` that had none (or
        /// why it was not: the incidents are in, so that is a warning only).
        named: Option<Result<(String, PathBuf), String>>,
    },
}

#[derive(Debug)]
pub enum Failed {
    /// The server could not be reached, or said no.
    Fetch(Failure),
    /// The answer, or what it would make of the archive, is wrong.
    Content(Vec<Diagnostic>),
}

/// What a sync did.
#[derive(Debug, Default)]
pub struct Summary {
    pub synced: Vec<Synced>,
    /// Problems that cost no provider anything (the state could not be read or written).
    pub warnings: Vec<String>,
}

impl Summary {
    pub fn failed(&self) -> usize {
        self.synced.iter().filter(|s| s.result.is_err()).count()
    }

    /// Incidents a provider's page gave that another provider holds (not written).
    pub fn conflicts(&self) -> usize {
        self.synced.iter().map(|s| s.tally(conflict)).sum()
    }
}

/// A provider and what its endpoints said last time, in [`ENDPOINTS`] order.
type Asked = (Followed, Vec<Option<Validators>>);

/// What one provider's endpoints answered: `(url, answer)` in [`ENDPOINTS`] order.
type Answers = Result<Vec<(Url, Fetched)>, Failure>;

/// Runs a sync; `each` hears of every provider as it is done.
pub fn run(
    options: &Options,
    progress: &ProgressBar,
    mut each: impl FnMut(&Synced),
) -> Result<Summary, Error> {
    let selection = providers::followed(&options.root, &options.providers).map_err(Error::Usage)?;
    // Before anything is fetched, so a sync that waited merges into what the other wrote.
    let writer = import::Writer::take(&options.root, import::waiting)
        .map_err(|e| Error::Usage(e.to_string()))?;
    let mut summary = Summary::default();
    summary.warnings.extend(writer.recovered.iter().cloned());
    let (mut state, warning) = State::load(&options.state_dir);
    summary.warnings.extend(warning);
    for (provider, problems) in selection.broken {
        let synced = Synced {
            provider,
            result: Err(Failed::Content(problems)),
            mode: options.mode,
        };
        each(&synced);
        summary.synced.push(synced);
    }
    let followed = selection.followed;
    if followed.is_empty() {
        return Ok(summary);
    }
    progress.set_length(followed.len() as u64);
    let mut pending: BTreeSet<String> = followed.iter().map(|f| f.slug.to_string()).collect();
    let client = Arc::new(Client::new(options.limits.clone()).map_err(Error::Usage)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the network runtime: {e}")))?;
    let mut hosts: BTreeMap<String, Vec<Asked>> = BTreeMap::new();
    for provider in followed {
        let known = ENDPOINTS
            .iter()
            .map(|path| state.get(provider.endpoint(path).as_str()).cloned())
            .collect();
        hosts
            .entry(provider.host())
            .or_default()
            .push((provider, known));
    }
    let (sender, mut receiver) = tokio::sync::mpsc::channel::<(Followed, Answers)>(options.jobs);
    let permits = Arc::new(tokio::sync::Semaphore::new(options.jobs.max(1)));
    for (_, group) in hosts {
        let (client, sender, permits) = (client.clone(), sender.clone(), permits.clone());
        runtime.spawn(async move {
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            // One request at a time to a host, whichever provider it is for.
            for (provider, known) in group {
                let answers = fetch_all(&client, &provider, &known).await;
                if sender.send((provider, answers)).await.is_err() {
                    return;
                }
            }
        });
    }
    drop(sender);
    // The archive is read once, when the first provider has something new.
    let mut archive = Archive {
        writer: &writer,
        index: None,
    };
    while let Some((provider, answers)) = receiver.blocking_recv() {
        pending.remove(provider.slug.as_str());
        let synced = merge(options, &mut archive, &mut state, provider, answers);
        each(&synced);
        progress.inc(1);
        summary.synced.push(synced);
    }
    // A fetch that stopped without an answer (it cannot, short of a bug) still counts.
    for provider in pending {
        let synced = Synced {
            provider,
            result: Err(Failed::Fetch(Failure {
                url: String::new(),
                reason: "the fetch stopped without an answer".into(),
                hint: None,
            })),
            mode: options.mode,
        };
        each(&synced);
        summary.synced.push(synced);
    }
    if options.mode == Mode::Write
        && let Err(e) = state.save(&options.state_dir)
    {
        summary.warnings.push(format!(
            "cannot keep what the servers said in {}: {e}; the next sync fetches every page whole",
            options.state_dir.display()
        ));
    }
    Ok(summary)
}

async fn fetch_all(client: &Client, provider: &Followed, known: &[Option<Validators>]) -> Answers {
    let mut answers = Vec::with_capacity(ENDPOINTS.len());
    for (path, known) in ENDPOINTS.iter().zip(known) {
        let url = provider.endpoint(path);
        let fetched = client.get(&url, known.as_ref()).await?;
        answers.push((url, fetched));
    }
    Ok(answers)
}

/// Merges what one provider's endpoints gave into the archive.
fn merge(
    options: &Options,
    archive: &mut Archive,
    state: &mut State,
    provider: Followed,
    answers: Answers,
) -> Synced {
    let result = answers
        .map_err(Failed::Fetch)
        .and_then(|answers| merge_answers(options, archive, state, &provider, answers));
    Synced {
        provider: provider.slug.to_string(),
        result,
        mode: options.mode,
    }
}

fn merge_answers(
    options: &Options,
    archive: &mut Archive,
    state: &mut State,
    provider: &Followed,
    answers: Vec<(Url, Fetched)>,
) -> Result<Done, Failed> {
    let mut incidents = Vec::new();
    let mut page_name = None;
    let mut fresh = Vec::new();
    let mut problems = Vec::new();
    for (url, fetched) in answers {
        let Fetched::Body { bytes, validators } = fetched else {
            continue;
        };
        let origin = PathBuf::from(url.as_str());
        let parsed = decode_text(bytes)
            .map_err(|e| e.into_diagnostic(&origin))
            .and_then(|text| statuspage::parse(&origin, &text));
        match parsed {
            Ok(parsed) => {
                incidents.extend(parsed.incidents);
                page_name = page_name.or(parsed.page);
                fresh.push((url, validators));
            }
            Err(problem) => problems.push(problem.with_hint(format!(
                "is {} an Atlassian Statuspage? If not, set `sync: false` in {}",
                provider.status_page,
                provider.file.display()
            ))),
        }
    }
    if !problems.is_empty() {
        return Err(Failed::Content(problems));
    }
    let Some((first, _)) = fresh.first() else {
        return Ok(Done::NotModified);
    };
    let origin = PathBuf::from(first.as_str());
    let writer = archive.writer;
    let index = archive.index().map_err(Failed::Content)?;
    let outcomes = import::merge(
        writer,
        index,
        &provider.slug,
        &origin,
        incidents,
        options.mode,
    )
    .map_err(Failed::Content)?;
    let named = page_name
        .filter(|_| provider.unnamed)
        .and_then(|name| name_provider(options, archive.writer, provider, &name));
    if options.mode == Mode::Write {
        for (url, validators) in fresh {
            state.set(url.as_str(), validators);
        }
    }
    Ok(Done::Merged { outcomes, named })
}

/// The archive's incidents, read when first needed, under the lock.
struct Archive<'a> {
    writer: &'a import::Writer,
    index: Option<import::Index>,
}

impl Archive<'_> {
    fn index(&mut self) -> Result<&mut import::Index, Vec<Diagnostic>> {
        let index = match self.index.take() {
            Some(index) => index,
            None => import::Index::load(self.writer)?,
        };
        Ok(self.index.insert(index))
    }
}

/// Gives an unnamed provider the name its status page goes by.
fn name_provider(
    options: &Options,
    writer: &import::Writer,
    provider: &Followed,
    name: &str,
) -> Option<Result<(String, PathBuf), String>> {
    let name = import::text::one_line(name);
    if name.is_empty() {
        return None;
    }
    if options.mode == Mode::Write
        && let Err(why) = providers::set_name(writer, &provider.file, &name)
    {
        return Some(Err(why));
    }
    Some(Ok((name, provider.file.clone())))
}

impl Synced {
    fn tally(&self, wanted: fn(&Change) -> bool) -> usize {
        match &self.result {
            Ok(Done::Merged { outcomes, .. }) => {
                outcomes.iter().filter(|o| wanted(&o.change)).count()
            }
            _ => 0,
        }
    }
}

fn created(c: &Change) -> bool {
    matches!(c, Change::Created { .. })
}
fn updated(c: &Change) -> bool {
    matches!(c, Change::Updated { .. })
}
fn unchanged(c: &Change) -> bool {
    matches!(c, Change::Unchanged)
}
fn conflict(c: &Change) -> bool {
    matches!(c, Change::Conflict { .. })
}

impl fmt::Display for Synced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let provider = &self.provider;
        match &self.result {
            Ok(Done::NotModified) => write!(f, "{provider}: unchanged (304)"),
            Ok(Done::Merged { outcomes, named }) => {
                let would = match self.mode {
                    Mode::DryRun => " would be",
                    Mode::Write => "",
                };
                write!(
                    f,
                    "{provider}: {} new, {} updated, {} unchanged",
                    self.tally(created),
                    self.tally(updated),
                    self.tally(unchanged)
                )?;
                if self.mode == Mode::DryRun {
                    f.write_str(" (dry run)")?;
                }
                for outcome in outcomes.iter().filter(|o| o.change != Change::Unchanged) {
                    let shown = outcome.to_string().replace('\n', "\n  ");
                    write!(f, "\n  {shown}")?;
                }
                if let Some(Err(why)) = named {
                    write!(f, "\n  warning: {why}")?;
                }
                if let Some(Ok((name, file))) = named {
                    let name = import::quoted(name);
                    let file = file.display();
                    write!(
                        f,
                        "\n  name: {name}{would} written into {file}, as the status page names it"
                    )?;
                }
                Ok(())
            }
            Err(Failed::Fetch(failure)) if failure.url.is_empty() => {
                write!(f, "{provider}: failed: {}", failure.reason)
            }
            Err(Failed::Fetch(failure)) => {
                write!(f, "{provider}: failed: {}: {}", failure.url, failure.reason)?;
                match &failure.hint {
                    Some(hint) => write!(f, "\n  = help: {hint}"),
                    None => Ok(()),
                }
            }
            Err(Failed::Content(problems)) => {
                let shown = Diagnostics(problems.clone()).to_string();
                write!(
                    f,
                    "{provider}: failed, nothing written for it:\n{}",
                    shown.trim_end()
                )
            }
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.synced.len();
        let failed = self.failed();
        let sum = |wanted: fn(&Change) -> bool| -> usize {
            self.synced.iter().map(|s| s.tally(wanted)).sum()
        };
        let dry = self.synced.first().is_some_and(|s| s.mode == Mode::DryRun);
        write!(
            f,
            "{} {} of {}: {} new, {} updated, {} unchanged",
            if dry { "dry run: would sync" } else { "synced" },
            total - failed,
            count(total, "provider"),
            sum(created),
            sum(updated),
            sum(unchanged),
        )?;
        let not_modified = self
            .synced
            .iter()
            .filter(|s| matches!(s.result, Ok(Done::NotModified)))
            .count();
        if not_modified > 0 {
            write!(f, ", {not_modified} not modified")?;
        }
        match sum(conflict) {
            0 => {}
            n => write!(f, "; {n} held by another provider, not written")?,
        }
        if failed > 0 {
            write!(f, "; {failed} failed")?;
        }
        if dry {
            f.write_str("; nothing was written")?;
        }
        Ok(())
    }
}
