//! Importing incidents from status pages into canonical content files, and the
//! `new` and `init` scaffolds.
//!
//! Each [`Platform`] has its reader ([`parse`]): [`statuspage`] (and incident.io, which
//! answers the same API), [`google_cloud`], [`aws`], [`slack`], [`better_stack`], and
//! [`feed`] for any Atom or RSS feed.
//!
//! An import is idempotent, lossless and faithful: an incident is found again by its
//! `source` identity anywhere under `content/` (a Statuspage incident code, whichever of
//! the JSON API or the Atom feed it came from); what a person changed in a file is kept,
//! field by field ([`record`] remembers what the import last wrote); the provider's new
//! updates are always added; provider text never becomes structure ([`text`]); and a file
//! is only ever created without replacing anything, or replaced whole ([`files`]).

pub(crate) mod aws;
pub(crate) mod better_stack;
pub(crate) mod feed;
mod files;
pub(crate) mod google_cloud;
pub(crate) mod lock;
mod merge;
mod payload;
pub(crate) mod record;
pub mod scaffold;
mod series;
pub(crate) mod slack;
pub(crate) mod statuspage;
pub mod text;
mod timeline;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use chrono::Datelike;
use url::Url;

use crate::content::{CONTENT_DIR, PROVIDER_FILE};
use crate::diagnostics::{Diagnostic, count};
use crate::model::{Impact, Platform, Slug, Source, Timestamp, Update, WebUrl};

pub(crate) use files::write_new;
pub use files::{Known, create_file};
pub use lock::Writer;
pub use payload::{MAX_PAYLOAD_BYTES, payload_text, under};
pub(crate) use payload::{id_text, read_json};

/// An incident as a status page gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// Who the incident is: the same for every source that tells of it.
    pub source: Source,
    /// Another identity an earlier version gave the same incident (an Atom entry's tag id),
    /// so files it wrote are found too.
    pub legacy: Option<Source>,
    pub(crate) title: String,
    pub(crate) started: Timestamp,
    pub(crate) resolved: Option<Timestamp>,
    /// `None` when the source does not say (a feed).
    pub impact: Option<Impact>,
    pub(crate) components: Vec<String>,
    pub(crate) regions: Vec<String>,
    pub(crate) official_url: Option<String>,
    /// Free-form facts the format has no field for (a maintenance's scheduled window).
    pub extra: Option<serde_json::Value>,
    /// In time order; bodies as the provider wrote them, cleaned.
    pub updates: Vec<Update>,
    /// Times to the minute only (a feed): they fill what a file lacks, never replace it.
    pub approximate: bool,
    /// The series the incident may be the rest of (AWS's service and region, the start of
    /// its source id): a feed that shows only an event's later posts names it by the first
    /// it shows, so it joins the open incident of its series begun before it, in the
    /// payload or the archive.
    pub continues: Option<String>,
}

/// What a payload holds: its page's name and address, when it says them, and its incidents.
pub struct Parsed {
    pub(crate) page: Option<String>,
    pub(crate) page_url: Option<WebUrl>,
    pub(crate) incidents: Vec<Imported>,
}

/// Reads a payload of `platform` read from `origin` (a file or URL, for messages). `page` is
/// the status page it came from, when known: where the incidents' own pages are. A platform
/// that answers both JSON and a feed is read as whichever the payload is.
pub fn parse(
    platform: Platform,
    origin: &Path,
    text: &str,
    page: Option<&Url>,
) -> Result<Parsed, Diagnostic> {
    let xml = text.trim_start().starts_with('<');
    match platform {
        Platform::Statuspage | Platform::IncidentIo | Platform::Feed if xml => {
            feed::parse(origin, text, platform)
        }
        Platform::Statuspage | Platform::IncidentIo => {
            statuspage::parse(origin, text, platform, page)
        }
        Platform::GoogleCloud => google_cloud::parse(origin, text, page),
        Platform::Aws if xml => aws::parse_feed(origin, text),
        Platform::Aws => aws::parse_events(origin, text),
        Platform::Slack => slack::parse(origin, text),
        Platform::BetterStack => better_stack::parse(origin, text),
        Platform::Feed => Err(Diagnostic::file(origin, "this is not a feed")
            .with_hint("expected an Atom or RSS feed (XML)")),
    }
}

/// Each name as one clean line, once, in order; blanks dropped.
fn distinct_lines(names: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .map(|name| text::one_line(name))
        .filter(|name| !name.is_empty() && seen.insert(name.clone()))
        .collect()
}

/// Marks the last of a closed incident's updates (in time order) as its resolution, or its
/// completion for a maintenance; its time, when it has updates.
pub(crate) fn close_with_last(updates: &mut [Update], maintenance: bool) -> Option<Timestamp> {
    let last = updates.last_mut()?;
    last.status = match maintenance {
        true => crate::model::Status::Completed,
        false => crate::model::Status::Resolved,
    };
    Some(last.at)
}

/// Values as the canonical format writes them, the same as an incident's markdown twin.
pub(crate) use crate::content::twin::{quoted, rfc3339 as time};

/// A source identity with nothing recorded.
pub fn identity(kind: &str, id: &str) -> Source {
    Source {
        kind: kind.to_string(),
        id: id.to_string(),
        imported: None,
    }
}

impl Imported {
    /// Cleans what a provider sent into what a file can hold and read back as it is: one-line
    /// title (the id when blank), components and statuses; bodies without forbidden
    /// characters; updates in time order, an exact repeat dropped.
    pub fn tidy(mut self) -> Imported {
        self.source.id = text::one_line(&self.source.id);
        self.title = text::one_line(&self.title);
        if self.title.is_empty() {
            self.title = format!("Incident {}", self.source.id);
        }
        self.components = distinct_lines(&self.components);
        self.regions = distinct_lines(&self.regions);
        self.official_url = self
            .official_url
            .filter(|url| crate::model::WebUrl::parse(url).is_some_and(|u| u.as_str() == url));
        for update in &mut self.updates {
            update.status = text::status(update.status.as_str());
            update.body = text::clean_body(&update.body);
        }
        // In time order, and by text within one time so an exact repeat is dropped wherever
        // the payload had it.
        self.updates.sort_by(|a, b| {
            (a.at, a.status.as_str(), &a.body).cmp(&(b.at, b.status.as_str(), &b.body))
        });
        self.updates.dedup();
        self.resolved = self.resolved.filter(|end| *end >= self.started);
        self
    }

    /// What in it no file could hold, said in the user's words.
    fn problem(&self) -> Option<String> {
        if self.source.id.is_empty() {
            return Some(format!("the incident `{}` has no id", self.title));
        }
        let times = [self.started]
            .into_iter()
            .chain(self.resolved)
            .chain(self.updates.iter().map(|u| u.at));
        times
            .into_iter()
            .find(|t| !(1..=9999).contains(&t.year()))
            .map(|t| {
                format!(
                    "the incident `{}` has the time {} outside the years 0001-9999",
                    self.source.id,
                    time(t)
                )
            })
    }

    /// Other reports of the same incident in the same payload, taken in: every update,
    /// component and region of all, the earliest start, the facts of the most recent (and,
    /// for parts of one event, the worst impact).
    fn absorb_all(self, others: Vec<Imported>) -> Imported {
        let newest = |i: &Imported| i.updates.iter().map(|u| u.at).max();
        let mut all = vec![self];
        all.extend(others);
        // The most recent; on a tie, the one that came last in the payload.
        let at = (0..all.len()).max_by_key(|&i| newest(&all[i])).unwrap_or(0);
        let mut merged = all.swap_remove(at);
        for older in all {
            merged.updates.extend(older.updates);
            merged.components.extend(older.components);
            merged.regions.extend(older.regions);
            merged.started = merged.started.min(older.started);
            merged.resolved = merged.resolved.or(older.resolved);
            if merged.continues.is_some() {
                merged.impact = match (merged.impact, older.impact) {
                    (Some(a), Some(b)) => Some(series::worse(a, b)),
                    (a, b) => a.or(b),
                };
            }
        }
        merged.tidy()
    }
}

/// An import to run.
pub struct Request<'a> {
    /// What wrote the payload: it chooses the reader.
    pub platform: Platform,
    /// The payload, as saved from the status page.
    pub file: &'a Path,
    /// The provider's folder under content/; `None` to take the page's name.
    pub provider: Option<&'a str>,
    /// The site root, which holds `content/`.
    pub root: &'a Path,
}

/// Why an import did nothing.
#[derive(Debug)]
pub enum Error {
    /// The command was wrong (exit 2).
    Usage(Misuse),
    /// The payload or the archive is (exit 1).
    Invalid(Vec<Diagnostic>),
}

/// An import that cannot run as asked.
#[derive(Debug, thiserror::Error)]
pub enum Misuse {
    /// The payload's file could not be read.
    #[error("cannot read {}: {source}", file.display())]
    Read {
        /// The payload's file, as given.
        file: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// The payload is over [`MAX_PAYLOAD_BYTES`], more than any status page's history.
    #[error(
        "{} is over {} MiB, more than any status page's history; is it the right file?",
        .0.display(),
        payload::MAX_PAYLOAD_BYTES >> 20
    )]
    TooBig(PathBuf),
    /// No `--provider` was given and the payload does not name its page.
    #[error("the payload does not name its page: pass --provider SLUG")]
    Unnamed,
    /// The provider's name makes no slug.
    #[error(transparent)]
    Provider(#[from] crate::model::BadProvider),
}

/// A usage error.
impl crate::diagnostics::Failure for Misuse {}

/// What an import did, incident by incident.
#[derive(Debug)]
pub struct Report {
    pub(crate) provider: Slug,
    /// What became of each incident of the payload.
    pub outcomes: Vec<Outcome>,
    /// Whether the provider's `_index.md` was written.
    pub described: Described,
    /// What finishing an interrupted writer's work did.
    pub recovered: Vec<String>,
}

impl Report {
    /// How many incidents another provider holds (nothing written for them).
    pub fn conflicts(&self) -> usize {
        conflicts(&self.outcomes)
    }
}

/// How many of `outcomes` are conflicts.
pub fn conflicts(outcomes: &[Outcome]) -> usize {
    outcomes
        .iter()
        .filter(|o| matches!(o.change, Change::Conflict { .. }))
        .count()
}

/// What happened to one incident.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    /// Relative to the site root.
    pub path: PathBuf,
    /// What the import did to the file.
    pub change: Change,
    /// What a person changed that the import left as it was.
    pub kept: Vec<Kept>,
}

/// What an import did to one incident's file (or, in a dry run, would do).
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// A new file.
    Created {
        /// The updates it holds.
        updates: usize,
    },
    /// The file was rewritten with what the provider gives now.
    Updated {
        /// Updates the file did not have.
        new_updates: usize,
        /// Updates the file had from a feed, to the minute, now as the provider's API
        /// gives them.
        refined: usize,
    },
    /// The file already reads as the import would write it.
    Unchanged,
    /// A file holds the incident (its `id`) without a `source:` line: taken over by hand,
    /// left alone.
    Yours,
    /// Another provider's file holds the incident (at the outcome's path): a source writes
    /// only its own provider's incidents, so nothing was written for it.
    Conflict {
        /// The provider whose file it is.
        holder: Slug,
    },
}

/// A hand edit the import kept.
#[derive(Debug, Clone, PartialEq)]
pub enum Kept {
    /// A field: its value in the file and the one the provider gives now.
    Field {
        /// The field's key in the front matter.
        key: &'static str,
        /// Its value as the file writes it, or `(none)`.
        yours: String,
        /// The provider's value, written the same way, or `(none)`.
        theirs: String,
    },
    /// The text of an update the provider published, changed in the file.
    UpdateText(Timestamp),
    /// An update the provider published, removed from the file.
    UpdateRemoved(Timestamp),
}

impl fmt::Display for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kept::Field { key, yours, theirs } => write!(
                f,
                "kept {key}: {yours} (edited by hand; the provider says {theirs})"
            ),
            Kept::UpdateText(at) => write!(
                f,
                "kept your text of the update of {} (edited by hand)",
                time(*at)
            ),
            Kept::UpdateRemoved(at) => {
                write!(f, "left out the update of {} (removed by hand)", time(*at))
            }
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match self.change {
            Change::Created { updates } => {
                write!(f, "created   {path} ({})", count(updates, "update"))?
            }
            Change::Updated {
                new_updates,
                refined,
            } => {
                write!(f, "updated   {path} (+{}", count(new_updates, "update"))?;
                if refined > 0 {
                    write!(f, ", {refined} timed to the second")?;
                }
                f.write_str(")")?
            }
            Change::Unchanged => write!(f, "unchanged {path}")?,
            Change::Yours => write!(
                f,
                "left      {path}: it holds this incident without a `source:` line, so it is yours"
            )?,
            Change::Conflict { ref holder } => write!(
                f,
                "conflict  {path}: this incident is {holder}'s; nothing was written for it (a status page writes only its own provider's incidents; if the two are one provider, give their _index.md the same status_page)"
            )?,
        }
        self.kept
            .iter()
            .try_for_each(|kept| write!(f, "\n          {kept}"))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.described {
            Described::Kept => {}
            Described::Written(path) => writeln!(
                f,
                "created   {} (the provider's name and status page)",
                path.display()
            )?,
            // Said on stderr, by the caller.
            Described::Failed(_) => {}
        }
        for outcome in &self.outcomes {
            writeln!(f, "{outcome}")?;
        }
        let with = |wanted: fn(&Change) -> bool| {
            self.outcomes.iter().filter(|o| wanted(&o.change)).count()
        };
        write!(
            f,
            "imported {} into content/{}/: {} created, {} updated, {} unchanged",
            count(self.outcomes.len(), "incident"),
            self.provider,
            with(|c| matches!(c, Change::Created { .. })),
            with(|c| matches!(c, Change::Updated { .. })),
            with(|c| matches!(c, Change::Unchanged)),
        )?;
        match with(|c| matches!(c, Change::Yours)) {
            0 => {}
            yours => write!(f, ", {yours} left to you")?,
        }
        match self.conflicts() {
            0 => Ok(()),
            conflicts => write!(f, ", {conflicts} held by another provider (not written)"),
        }
    }
}

/// Reads the payload, converts every incident, plans every file, then writes; bad input,
/// or any file that could not be written safely, writes nothing.
pub fn run(request: &Request) -> Result<Report, Error> {
    let file = request.file;
    let bytes = payload::read_file(file)?;
    let text = payload_text(bytes).map_err(|e| Error::Invalid(vec![e.into_diagnostic(file)]))?;
    let Parsed {
        page,
        page_url,
        incidents,
    } = parse(request.platform, file, &text, None)
        .map_err(|diagnostic| Error::Invalid(vec![diagnostic]))?;
    let Some(name) = request.provider.map(str::to_string).or(page.clone()) else {
        return Err(Error::Usage(Misuse::Unnamed));
    };
    let provider = Slug::of_provider(&name).map_err(|bad| Error::Usage(bad.into()))?;
    let writer = Writer::take(request.root, waiting).map_err(|e| Error::Invalid(vec![e]))?;
    let mut index = Known::load(&writer).map_err(Error::Invalid)?;
    let outcomes = merge(&writer, &mut index, &provider, file, incidents, Mode::Write)
        .map_err(Error::Invalid)?;
    let described = describe(
        request.root,
        &provider,
        request.platform,
        page.as_deref(),
        page_url.as_ref(),
    );
    Ok(Report {
        provider,
        outcomes,
        described,
        recovered: writer.recovered,
    })
}

/// Writes the `_index.md` of a provider that has none, naming it and its status page as the
/// payload does, so its pages show the page's name rather than the folder's. `sync` is left
/// off: an import reads a file, and following the page is the owner's choice.
fn describe(
    root: &Path,
    provider: &Slug,
    platform: Platform,
    name: Option<&str>,
    page: Option<&WebUrl>,
) -> Described {
    let relative = Path::new(CONTENT_DIR)
        .join(provider.as_str())
        .join(PROVIDER_FILE);
    let path = root.join(&relative);
    if std::fs::symlink_metadata(&path).is_ok() {
        return Described::Kept;
    }
    let name = name.map(text::one_line).filter(|name| !name.is_empty());
    if name.is_none() && page.is_none() {
        return Described::Kept;
    }
    let mut written = String::from("---\n");
    if let Some(name) = &name {
        written.push_str(&format!("name: {}\n", quoted(name)));
    }
    if let Some(page) = page {
        written.push_str(&format!("status_page: {}\n", quoted(page.as_str())));
    }
    // How to follow the page: `sync` reads a feed at its own address, and any other page
    // at its status page, which the payload may not have given.
    let kind = platform.keyword();
    written.push_str(&match (platform, page) {
        (Platform::Feed, _) => format!(
            "# Written by `outages import`. To keep this provider current with `outages sync`, set\n\
             # `status_page` to the feed's own address and the next line to `sync: {{kind: {kind}}}`.\n"
        ),
        (_, Some(_)) => format!(
            "# Written by `outages import`. To keep this provider current with `outages sync`,\n\
             # make the next line `sync: {{kind: {kind}}}`.\n"
        ),
        (_, None) => format!(
            "# Written by `outages import`. To keep this provider current with `outages sync`, add\n\
             # `status_page:` (the page's address) and make the next line `sync: {{kind: {kind}}}`.\n"
        ),
    });
    written.push_str("sync: false\n---\n");
    match create_file(&path, &written) {
        Ok(()) => Described::Written(relative),
        Err(error) => Described::Failed(format!("cannot write {}: {error}", relative.display())),
    }
}

/// What an import did about its provider's `_index.md`.
#[derive(Debug)]
pub enum Described {
    /// There was one (or the payload names neither page nor address): left as it was.
    Kept,
    /// A new one, at this path under the site root.
    Written(PathBuf),
    /// A new one could not be written: the incidents are in, the provider unnamed.
    Failed(String),
}

/// Tells the user why a command that writes `content/` has not begun.
pub fn waiting() {
    eprintln!("waiting for another import, sync or `new` in this archive to finish…");
}

/// Checks what a payload read from `origin` (a file or URL, for the messages) holds, then
/// [writes](write) it: nothing at all when any incident could not be held by a file.
pub fn merge(
    writer: &Writer,
    index: &mut Known,
    provider: &Slug,
    origin: &Path,
    incidents: Vec<Imported>,
    mode: Mode,
) -> Result<Vec<Outcome>, Vec<Diagnostic>> {
    let problems: Vec<Diagnostic> = incidents
        .iter()
        .filter_map(Imported::problem)
        .map(|problem| Diagnostic::file(origin, problem))
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    write(writer, index, provider, incidents, mode)
}

/// Whether an import writes what it plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write every file planned.
    Write,
    /// Plan every file and say what would change; write nothing.
    DryRun,
}

/// Writes `incidents` into the archive `writer` holds: each into the file of `provider`
/// that already holds it (as `index` knows it), else into a new file under
/// `content/<provider>/`; not into another provider's.
pub fn write(
    writer: &Writer,
    index: &mut Known,
    provider: &Slug,
    incidents: Vec<Imported>,
    mode: Mode,
) -> Result<Vec<Outcome>, Vec<Diagnostic>> {
    let mut incidents = incidents;
    series::join(index, &mut incidents);
    let mut groups: Vec<(Imported, Vec<Imported>)> = Vec::with_capacity(incidents.len());
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for incident in incidents {
        let key = (incident.source.kind.clone(), incident.source.id.clone());
        match seen.get(&key) {
            Some(&at) => groups[at].1.push(incident),
            None => {
                seen.insert(key, groups.len());
                groups.push((incident, Vec::new()));
            }
        }
    }
    let unique: Vec<Imported> = groups
        .into_iter()
        .map(|(first, others)| match others.is_empty() {
            true => first,
            false => first.absorb_all(others),
        })
        .collect();
    files::write(writer, index, provider, &unique, mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Status;

    #[test]
    fn tidy_gives_every_incident_a_title_and_clean_statuses() {
        let incident = Imported {
            source: identity("statuspage", " x\n1 "),
            legacy: None,
            title: " \n ".into(),
            started: "2026-08-17T13:40:03Z".parse().unwrap(),
            resolved: Some("2026-08-17T13:00:00Z".parse().unwrap()),
            impact: None,
            components: vec!["A".into(), " A ".into(), "".into()],
            regions: vec!["eu-west-1".into(), "eu-west-1".into()],
            official_url: Some("javascript:alert(1)".into()),
            extra: None,
            updates: vec![
                Update::of("2026-08-17T13:41:00Z", "", "b\u{1b}"),
                Update::of("2026-08-17T13:41:00Z", "update", "b"),
            ],
            approximate: false,
            continues: None,
        }
        .tidy();
        assert_eq!(incident.title, "Incident x 1");
        assert_eq!(incident.components, ["A"]);
        assert_eq!(incident.regions, ["eu-west-1"]);
        assert_eq!(incident.official_url, None);
        assert_eq!(incident.resolved, None, "a resolution before the start");
        assert_eq!(incident.updates.len(), 1);
        assert_eq!(incident.updates[0].status, Status::Update);
    }
}
