//! `outages sync`: keeps the archive current from the providers' live status pages.
//!
//! For each provider to follow ([`providers`]), the endpoints of its [`platform`] are
//! fetched ([`fetch`]: conditional, polite, bounded), a host at a time per host and `jobs`
//! hosts at once, on tokio; the answers come back here, to one thread, which reads them with
//! the import's readers and merges each provider's incidents with exactly the import's rules
//! (idempotent, lossless, hand edits kept), all of a provider's files or none. A provider
//! that fails is reported and the others go on. The servers' validators are kept in the
//! cache folder ([`state`]) only once what they vouch for is written.
//!
//! Where the endpoints hold only the latest incidents, the first sync of a provider also
//! walks its whole [`history`] (a Statuspage's listing, an incident.io page's feed): every
//! incident the archive lacks is fetched, a pause between requests, and written as it comes,
//! [`BATCH`] at a time, each batch all or nothing, so a sync stopped half way loses nothing
//! it wrote and the next one fetches only the rest. Once the walk ends with every incident
//! in, later syncs read only the latest incidents, and go back to the history only when the
//! oldest of those is new to the archive (the sync before was too long ago: some may lie
//! between). `provider add` finds a page's platform ([`detect`]).

pub(crate) mod detect;
pub mod fetch;
pub(crate) mod history;
pub(crate) mod platform;
pub mod providers;
pub(crate) mod state;
mod summary;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::ProgressBar;
use reqwest::Url;

use crate::diagnostics::{Diagnostic, count};
use crate::import::{self, Mode, payload_text, statuspage};
use crate::model::{Platform, Slug};
use fetch::{Client, Failure, Fetched, Limits, Paced, Validators};
use history::Stopped;
use platform::History;
use providers::Followed;
use state::State;
pub use summary::{Done, Failed, Summary, Synced};
use tokio::sync::{mpsc, oneshot};

/// A sync to run.
pub struct Options {
    /// The site root, which holds `content/`.
    pub root: PathBuf,
    /// Slugs of the providers to sync; empty for all that have a status page.
    pub providers: Vec<String>,
    /// Whether to write, or only say what would change (a dry run keeps no validators
    /// either).
    pub mode: Mode,
    /// Hosts fetched from at once.
    pub jobs: usize,
    /// Timeouts, retries and the largest answer, for every request.
    pub limits: Limits,
    /// Where the validators are kept (the build cache's folder).
    pub state_dir: PathBuf,
    /// The pause between two requests to one host.
    pub delay: Duration,
    /// Walk every provider's history again, each incident it lists fetched anew.
    pub history: bool,
}

/// Incidents of a history written at once, all or none.
pub const BATCH: usize = 50;

/// A progress line is told each time so many more incidents of a history are fetched.
const PROGRESS_EVERY: usize = 100;

/// Why a sync did nothing at all: the command, not a provider, is wrong (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Which providers to sync could not be told (a name that is no provider, say).
    #[error(transparent)]
    Providers(#[from] providers::Error),
    /// The archive's lock could not be taken.
    #[error("{0}")]
    Lock(Diagnostic),
    /// No HTTP client could be made.
    #[error(transparent)]
    Client(#[from] fetch::NoClient),
    /// The runtime the fetches run on could not be started.
    #[error("cannot start the network runtime: {0}")]
    Runtime(std::io::Error),
}

/// A usage error.
impl crate::diagnostics::Failure for Error {}

/// A provider and what its endpoints said last time, in [`Followed::endpoints`] order.
type Asked = (Followed, Vec<Option<Validators>>);

/// What one provider's endpoints answered: `(url, answer)` in [`Followed::endpoints`] order.
type Answers = Result<Vec<(Url, Fetched)>, Failure>;

/// What a provider's fetching task tells the merging thread, in this order.
enum Message {
    /// What the endpoints answered; the answer is whether to walk the history.
    Answers(Followed, Answers, oneshot::Sender<bool>),
    /// The codes the history lists; the answer is those to fetch, and a flag raised when
    /// what is fetched can no longer be written (so fetching stops).
    Listed {
        slug: Slug,
        codes: Vec<String>,
        reply: oneshot::Sender<(Vec<String>, Arc<AtomicBool>)>,
    },
    /// An incident of the history, whole.
    Incident {
        slug: Slug,
        url: Url,
        bytes: Vec<u8>,
    },
    /// The walk of the history ended, at its end or not.
    Walked {
        slug: Slug,
        result: Result<(), Stopped>,
    },
}

/// A provider whose history is being read, and what it has come to so far.
struct Walking {
    provider: Followed,
    done: Result<Done, Failed>,
    /// Fetched and not yet written.
    batch: Vec<(Url, Vec<u8>)>,
    fetched: usize,
    wanted: usize,
    /// Raised when the provider has failed: its task fetches no more.
    stop: Arc<AtomicBool>,
}

/// Runs a sync; `each` hears of every provider as it is done.
pub fn run(
    options: &Options,
    progress: &ProgressBar,
    mut each: impl FnMut(&Synced),
) -> Result<Summary, Error> {
    let selection = providers::followed(&options.root, &options.providers)?;
    // Before anything is fetched, so a sync that waited merges into what the other wrote.
    let writer = import::Writer::take(&options.root, import::waiting).map_err(Error::Lock)?;
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
    let client = Arc::new(Client::new(options.limits.clone())?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let mut receiver = spawn_fetches(&runtime, followed, &state, client, options);
    // The archive is read once, when the first provider has something new.
    let mut merging = Merging {
        options,
        archive: Archive {
            writer: &writer,
            index: None,
        },
        state: &mut state,
        walking: BTreeMap::new(),
        progress,
    };
    while let Some(message) = receiver.blocking_recv() {
        if let Some(synced) = merging.take(message) {
            pending.remove(synced.provider.as_str());
            each(&synced);
            progress.inc(1);
            summary.synced.push(synced);
        }
    }
    // A fetch that stopped without an answer (it cannot, short of a bug) still counts.
    for provider in pending {
        let synced = Synced {
            provider,
            result: Err(Failed::Fetch(Failure {
                url: String::new(),
                reason: "the fetch stopped without an answer".into(),
                hint: None,
                silent: true,
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

/// Starts a task per host, which fetches its providers' endpoints (and histories, when
/// told to) one request at a time and sends what it gets, in order; at most `jobs` hosts
/// at once.
fn spawn_fetches(
    runtime: &tokio::runtime::Runtime,
    followed: Vec<Followed>,
    state: &State,
    client: Arc<Client>,
    options: &Options,
) -> mpsc::Receiver<Message> {
    let mut hosts: BTreeMap<String, Vec<Asked>> = BTreeMap::new();
    for provider in followed {
        let known = provider
            .endpoints()
            .iter()
            .map(|url| state.get(url.as_str()).cloned())
            .collect();
        hosts
            .entry(provider.host())
            .or_default()
            .push((provider, known));
    }
    let (sender, receiver) = mpsc::channel::<Message>(options.jobs.max(1));
    let permits = Arc::new(tokio::sync::Semaphore::new(options.jobs.max(1)));
    let delay = options.delay;
    for (_, group) in hosts {
        let (client, sender, permits) = (client.clone(), sender.clone(), permits.clone());
        runtime.spawn(async move {
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            // One request at a time to a host, whichever provider it is for.
            let mut paced = Paced::new(&client, delay);
            for (provider, known) in group {
                let answers = fetch_all(&mut paced, &provider, &known).await;
                let slug = provider.slug.clone();
                let (go, walk) = oneshot::channel();
                if sender
                    .send(Message::Answers(provider.clone(), answers, go))
                    .await
                    .is_err()
                {
                    return;
                }
                if walk.await.unwrap_or(false) {
                    let result = walk_history(&mut paced, &provider, &sender).await;
                    if sender.send(Message::Walked { slug, result }).await.is_err() {
                        return;
                    }
                }
            }
        });
    }
    receiver
}

/// The merging thread: what it holds while the fetching tasks send their messages.
struct Merging<'a> {
    options: &'a Options,
    archive: Archive<'a>,
    state: &'a mut State,
    /// The providers whose history is being read.
    walking: BTreeMap<Slug, Walking>,
    progress: &'a ProgressBar,
}

impl Merging<'_> {
    /// Takes one message of a fetching task; a provider that is done comes back.
    fn take(&mut self, message: Message) -> Option<Synced> {
        match message {
            Message::Answers(provider, answers, go) => self.answers(provider, answers, go),
            Message::Listed { slug, codes, reply } => {
                let (wanted, stop) = match self.walking.get_mut(&slug) {
                    Some(walk) => (
                        wanted(self.options, &mut self.archive, walk, codes),
                        walk.stop.clone(),
                    ),
                    None => (Vec::new(), Arc::default()),
                };
                self.progress.inc_length(wanted.len() as u64);
                // A task that has gone has nothing left to fetch.
                let _ = reply.send((wanted, stop));
                None
            }
            Message::Incident { slug, url, bytes } => {
                self.incident(&slug, url, bytes);
                None
            }
            Message::Walked { slug, result } => self.walked(slug, result),
        }
    }

    /// A provider's endpoints answered: merges what is new, and says whether to walk its
    /// history (then the provider is done only when the walk is).
    fn answers(
        &mut self,
        provider: Followed,
        answers: Answers,
        go: oneshot::Sender<bool>,
    ) -> Option<Synced> {
        let options = self.options;
        let merged = answers.map_err(Failed::Fetch).and_then(|answers| {
            merge_answers(options, &mut self.archive, self.state, &provider, answers)
        });
        let walks = match (&merged, history_key(&provider)) {
            (Ok((_, gap)), Some(key)) => {
                *gap || options.history || !self.state.has_history(key.as_str())
            }
            _ => false,
        };
        let done = merged.map(|(done, _)| done);
        // A task that has gone walks nothing.
        let _ = go.send(walks);
        if !walks {
            return Some(Synced {
                provider: provider.slug.to_string(),
                result: done,
                mode: options.mode,
            });
        }
        let walk = Walking {
            provider,
            done,
            batch: Vec::new(),
            fetched: 0,
            wanted: 0,
            stop: Arc::default(),
        };
        self.walking.insert(walk.provider.slug.clone(), walk);
        None
    }

    /// An incident of a history: kept for the next batch, which is written when full.
    fn incident(&mut self, slug: &Slug, url: Url, bytes: Vec<u8>) {
        let Some(walk) = self.walking.get_mut(slug).filter(|w| w.done.is_ok()) else {
            return;
        };
        walk.batch.push((url, bytes));
        walk.fetched = walk.fetched.saturating_add(1);
        self.progress.inc(1);
        if walk.fetched % PROGRESS_EVERY == 0 {
            let (fetched, wanted) = (walk.fetched, walk.wanted);
            self.progress.suspend(|| {
                eprintln!("{slug}: {fetched} of {wanted} incidents of its history fetched")
            });
        }
        if walk.batch.len() >= BATCH {
            write_batch(self.options, &mut self.archive, walk);
            walk.stop.store(walk.done.is_err(), Ordering::Relaxed);
        }
    }

    /// A walk of a history ended: its last batch is written, and the provider is done.
    fn walked(&mut self, slug: Slug, result: Result<(), Stopped>) -> Option<Synced> {
        let mut walk = self.walking.remove(&slug)?;
        write_batch(self.options, &mut self.archive, &mut walk);
        match (result, walk.done.is_ok()) {
            (Ok(()), true) if self.options.mode == Mode::Write => {
                if let Some(key) = history_key(&walk.provider) {
                    self.state.finish_history(key.as_str());
                }
            }
            (Err(stopped), true) => walk.done = Err(cut_short(stopped, walk.fetched)),
            _ => {}
        }
        Some(Synced {
            provider: slug.to_string(),
            result: walk.done,
            mode: self.options.mode,
        })
    }
}

/// Fetches the provider's endpoints, asking "changed since?" of each.
async fn fetch_all(
    paced: &mut Paced<'_>,
    provider: &Followed,
    known: &[Option<Validators>],
) -> Answers {
    let endpoints = provider.endpoints();
    let mut answers = Vec::with_capacity(endpoints.len());
    for (url, known) in endpoints.into_iter().zip(known) {
        let fetched = paced.get(&url, known.as_ref()).await?;
        answers.push((url, fetched));
    }
    let changed = |f: &Fetched| matches!(f, Fetched::Body { .. });
    if provider.reads_together() && answers.iter().any(|(_, f)| changed(f)) {
        for (url, fetched) in &mut answers {
            if !changed(fetched) {
                *fetched = paced.get(url, None).await?;
            }
        }
    }
    Ok(answers)
}

/// The key under which the state remembers that a provider's history is all in; `None`
/// when its endpoints hold it all.
fn history_key(provider: &Followed) -> Option<Url> {
    match provider.history()? {
        History::Listed => Some(history::page_url(provider, 1)),
        History::Feed(url) => Some(url),
    }
}

/// Reads the provider's history and sends it to the merging thread: a listing's
/// incidents one by one, as the thread asks for them, or the feed of them all.
async fn walk_history(
    paced: &mut Paced<'_>,
    provider: &Followed,
    sender: &mpsc::Sender<Message>,
) -> Result<(), Stopped> {
    let slug = provider.slug.clone();
    let (urls, stop): (Vec<Url>, Arc<AtomicBool>) = match provider.history() {
        Some(History::Listed) => {
            let codes = history::list(paced, provider).await?;
            let (reply, answer) = oneshot::channel();
            let listed = Message::Listed {
                slug: slug.clone(),
                codes,
                reply,
            };
            // When the merging thread has gone, nothing is left to do.
            if sender.send(listed).await.is_err() {
                return Ok(());
            }
            let Ok((wanted, stop)) = answer.await else {
                return Ok(());
            };
            let urls = wanted.iter().map(|c| history::incident_url(provider, c));
            (urls.collect(), stop)
        }
        Some(History::Feed(url)) => (vec![url], Arc::default()),
        None => return Ok(()),
    };
    for url in urls {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Fetched::Body { bytes, .. } = paced.get(&url, None).await.map_err(Stopped::Fetch)?
        else {
            continue;
        };
        let slug = slug.clone();
        if sender
            .send(Message::Incident { slug, url, bytes })
            .await
            .is_err()
        {
            return Ok(());
        }
    }
    Ok(())
}

/// Of the codes a history lists, those to fetch: the ones the archive lacks, or all of them
/// when the whole history is asked for again.
fn wanted(
    options: &Options,
    archive: &mut Archive,
    walk: &mut Walking,
    codes: Vec<String>,
) -> Vec<String> {
    if walk.done.is_err() {
        return Vec::new();
    }
    let slug = &walk.provider.slug;
    let wanted: Vec<String> = match archive.index() {
        Ok(_) if options.history => codes,
        Ok(index) => codes
            .into_iter()
            .filter(|code| {
                let source = statuspage::source_of(walk.provider.platform, code);
                !index.holds(slug, &source)
            })
            .collect(),
        Err(problems) => {
            walk.done = Err(Failed::Content(problems));
            Vec::new()
        }
    };
    walk.wanted = wanted.len();
    wanted
}

/// Writes the incidents of a history fetched so far, all or none; a batch that cannot be
/// written fails the provider, and what it held is fetched again next time.
fn write_batch(options: &Options, archive: &mut Archive, walk: &mut Walking) {
    let batch = std::mem::take(&mut walk.batch);
    let Some((first, _)) = batch.first() else {
        return;
    };
    if walk.done.is_err() {
        return;
    }
    let origin = PathBuf::from(first.as_str());
    let mut incidents = Vec::new();
    let mut problems = Vec::new();
    let platform = walk.provider.platform;
    let page = &walk.provider.status_page;
    for (url, bytes) in batch {
        let origin = PathBuf::from(url.as_str());
        match payload_text(bytes)
            .map_err(|e| e.into_diagnostic(&origin))
            .and_then(|text| import::parse(platform, &origin, &text, Some(page)))
        {
            Ok(parsed) => incidents.extend(parsed.incidents),
            Err(problem) => problems.push(problem),
        }
    }
    let writer = archive.writer;
    let written = match problems.is_empty() {
        true => archive.index().and_then(|index| {
            import::merge(
                writer,
                index,
                &walk.provider.slug,
                &origin,
                incidents,
                options.mode,
            )
        }),
        false => Err(problems),
    };
    walk.done = match (
        std::mem::replace(&mut walk.done, Ok(Done::NotModified)),
        written,
    ) {
        (
            Ok(Done::Merged {
                mut outcomes,
                named,
            }),
            Ok(more),
        ) => {
            outcomes.extend(more);
            Ok(Done::Merged { outcomes, named })
        }
        (Ok(_), Ok(outcomes)) => Ok(Done::Merged {
            outcomes,
            named: None,
        }),
        (_, Err(problems)) => Err(Failed::Content(problems)),
        (Err(failed), _) => Err(failed),
    };
}

/// Why a provider failed when the walk of its history stopped short, and that what was
/// fetched before is in.
fn cut_short(stopped: Stopped, fetched: usize) -> Failed {
    let hint = format!(
        "the {} of its history fetched before are written; the next sync fetches the rest",
        count(fetched, "incident")
    );
    match stopped {
        Stopped::Fetch(failure) => Failed::Fetch(Failure {
            hint: Some(hint),
            ..failure
        }),
        Stopped::Content { url, reason } => Failed::Content(vec![
            Diagnostic::file(PathBuf::from(url.as_str()), reason).with_hint(hint),
        ]),
    }
}

/// Merges what one provider's endpoints gave into the archive; with it, whether the oldest
/// of the latest incidents was new to the archive, so that more may lie between them and
/// what it holds.
fn merge_answers(
    options: &Options,
    archive: &mut Archive,
    state: &mut State,
    provider: &Followed,
    answers: Vec<(Url, Fetched)>,
) -> Result<(Done, bool), Failed> {
    let mut incidents = Vec::new();
    let mut oldest = None;
    let mut page_name = None;
    let mut fresh = Vec::new();
    let mut problems = Vec::new();
    for (endpoint, (url, fetched)) in answers.into_iter().enumerate() {
        let Fetched::Body { bytes, validators } = fetched else {
            continue;
        };
        let origin = PathBuf::from(url.as_str());
        let page = &provider.status_page;
        let parsed = payload_text(bytes)
            .map_err(|e| e.into_diagnostic(&origin))
            .and_then(|text| import::parse(provider.platform, &origin, &text, Some(page)));
        match parsed {
            Ok(parsed) => {
                if endpoint == 0 && provider.history().is_some() {
                    oldest = parsed
                        .incidents
                        .iter()
                        .min_by_key(|i| i.started)
                        .map(|i| i.source.clone());
                }
                incidents.extend(parsed.incidents);
                page_name = page_name.or(parsed.page);
                fresh.push((url, validators));
            }
            Err(problem) => problems.push(problem.with_hint(format!(
                "does {} run on {}? If not, set its platform in {} (`sync: {{kind: …}}`, one of {}), or `sync: false`",
                provider.status_page,
                provider.platform.label(),
                provider.file.display(),
                Platform::keywords()
            ))),
        }
    }
    if !problems.is_empty() {
        return Err(Failed::Content(problems));
    }
    let Some((first, _)) = fresh.first() else {
        return Ok((Done::NotModified, false));
    };
    let origin = PathBuf::from(first.as_str());
    let writer = archive.writer;
    let index = archive.index().map_err(Failed::Content)?;
    let gap = oldest.is_some_and(|source| !index.holds(&provider.slug, &source));
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
    Ok((Done::Merged { outcomes, named }, gap))
}

/// The archive's incidents, read when first needed, under the lock.
struct Archive<'a> {
    writer: &'a import::Writer,
    index: Option<import::Known>,
}

impl Archive<'_> {
    fn index(&mut self) -> Result<&mut import::Known, Vec<Diagnostic>> {
        let index = match self.index.take() {
            Some(index) => index,
            None => import::Known::load(self.writer)?,
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
) -> Option<Result<(String, PathBuf), providers::Unnamed>> {
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
