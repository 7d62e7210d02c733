//! Where an import reads and writes. Every file is planned, written beside its target as a
//! hidden temporary file and read back with the real loader before anything is put in
//! place; then a new file is linked in under a name nothing holds (never replacing one) and
//! a changed file is renamed over the old one (whole, never truncated). Nothing is written
//! through a symbolic link.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::lock::{Move, Purpose, Writer, staging_path};
use super::merge::{self, Facts, Plan};
use super::record::Field;
use super::series::Span;
use super::text::escape_body;
use super::{Change, Imported, Mode, Outcome, identity, quoted, time};
use crate::content::fields::{FileCtx, display_path};
use crate::content::source::{MAX_FILE_BYTES, clean_text, trim_blank_lines};
use crate::content::updates::written_updates;
use crate::content::{self, CONTENT_DIR, Loaded, frontmatter};
use crate::diagnostics::Diagnostic;
use crate::model::{Incident, Slug, Source, Timestamp, Update, WebUrl};

/// Writes every incident, or nothing when any of them cannot be written safely; `index`
/// learns what was written. An incident that another provider's file holds is a
/// [conflict](Change::Conflict): nothing is written for it.
pub fn write(
    writer: &Writer,
    index: &mut Known,
    provider: &Slug,
    incidents: &[Imported],
    mode: Mode,
) -> Result<Vec<Outcome>, Vec<Diagnostic>> {
    let root = writer.root();
    let folder = Path::new(CONTENT_DIR).join(provider.as_str());
    refuse_links(root, &folder).map_err(|e| vec![e])?;
    let mut staged = Staged::default();
    staged.dry_run = mode == Mode::DryRun;
    let mut outcomes = Vec::new();
    let mut errors = Vec::new();
    let mut taken = BTreeSet::new();
    // The ids of the files this run creates, and where.
    let mut new_ids: BTreeMap<String, PathBuf> = BTreeMap::new();
    let kin = index.kin(provider);
    for incident in incidents {
        let yours = index
            .taken_over
            .get(&(provider.to_string(), incident.source.id.clone()));
        let planned = match (index.find(root, incident, &kin), yours) {
            (Ok(Found::Here((path, file))), _) => {
                let unwritten = index.unwritten.get(&path).map(String::as_str);
                update(root, &path, incident, &file, unwritten, &mut staged)
            }
            (Ok(Found::Elsewhere((path, file))), _) => Ok(Outcome {
                path,
                change: Change::Conflict {
                    holder: file.provider.clone(),
                },
                kept: Vec::new(),
            }),
            (Ok(Found::Nowhere), Some(path)) => Ok(Outcome {
                path: path.clone(),
                change: Change::Yours,
                kept: Vec::new(),
            }),
            (Ok(Found::Nowhere), None) => free_id(root, provider, incident, index, &new_ids)
                .and_then(|()| new_path(root, &folder, provider, incident, index, &taken))
                .and_then(|path| {
                    taken.insert(path.clone());
                    new_ids.insert(incident.source.id.clone(), path.clone());
                    create(root, &path, incident, &mut staged)
                }),
            (Err(error), _) => Err(error),
        };
        match planned {
            Ok(outcome) => outcomes.push(outcome),
            Err(error) => errors.push(error),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // What the files will hold, as they were read when staged (a dry run's too, so the next
    // provider of a dry run is planned against this one's plan, as a real run would be).
    let planned = std::mem::take(&mut staged.planned);
    staged.commit(root, writer)?;
    index.refresh(root, planned, mode);
    Ok(outcomes)
}

/// Where the file that holds an incident is.
enum Found {
    /// In a folder of the provider imported for (or of one the user made the same).
    Here(Held),
    /// Only in another provider's folder: not this source's to change.
    Elsewhere(Held),
    Nowhere,
}

/// A file of the archive and the incident it holds.
type Held = (PathBuf, Arc<Incident>);

/// The incidents already in `content/`, by source identity: read once (a sync of many
/// providers does not read the archive again for each), kept current by [`write`].
#[derive(Default)]
pub struct Known {
    by_source: BTreeMap<(String, String), Vec<Held>>,
    /// Files that do not load, with their text, in case one holds an incident imported now.
    broken: Vec<(PathBuf, String, String)>,
    /// `(provider, slug)` of every incident: a new file must not take one's URL.
    slugs: BTreeSet<(String, String)>,
    /// Files with an `id` and no `source`: taken over by hand, by `(provider, id)`.
    taken_over: BTreeMap<(String, String), PathBuf>,
    /// Every file with an `id`, by `(provider, id)`: a new file must not take one's id.
    ids: BTreeMap<(String, String), PathBuf>,
    /// The text a dry run planned for files it did not write.
    unwritten: BTreeMap<PathBuf, String>,
    /// Each provider's status page, as [`page_key`] compares them.
    pages: BTreeMap<Slug, String>,
}

impl Known {
    /// Reads every file under `content/`, while `writer` keeps other writers out.
    pub fn load(writer: &Writer) -> Result<Known, Vec<Diagnostic>> {
        let root = writer.root();
        let mut index = Known::default();
        if std::fs::symlink_metadata(root.join(CONTENT_DIR)).is_err() {
            return Ok(index);
        }
        for (path, loaded) in content::load_all(root)? {
            index.add(root, path, loaded);
        }
        Ok(index)
    }

    fn add(&mut self, root: &Path, path: PathBuf, loaded: Result<Loaded, Vec<Diagnostic>>) {
        match loaded {
            Ok(Loaded::Incident(incident)) => {
                self.slugs
                    .insert((incident.provider.to_string(), incident.slug.to_string()));
                if let Some(id) = &incident.id {
                    let key = (incident.provider.to_string(), id.clone());
                    self.ids.entry(key).or_insert_with(|| path.clone());
                }
                match (&incident.source, &incident.id) {
                    (Some(source), _) => self
                        .by_source
                        .entry((source.kind.clone(), source.id.clone()))
                        .or_default()
                        .push((path, incident)),
                    (None, Some(id)) => {
                        let key = (incident.provider.to_string(), id.clone());
                        self.taken_over.entry(key).or_insert(path);
                    }
                    (None, None) => {}
                }
            }
            Ok(Loaded::Provider(slug, info)) => {
                if let Some(page) = info.status_page.as_ref().and_then(page_key) {
                    self.pages.insert(slug, page);
                }
            }
            Err(problems) => {
                let text = std::fs::read(root.join(&path))
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                let why = problems
                    .first()
                    .map(|d| d.message.clone())
                    .unwrap_or_default();
                self.broken.push((path, text, why));
            }
        }
    }

    /// Takes in the files just written (or, in a dry run, planned), forgetting what they
    /// held before.
    fn refresh(&mut self, root: &Path, written: Vec<Planned>, mode: Mode) {
        if written.is_empty() {
            return;
        }
        let paths: BTreeSet<&Path> = written.iter().map(|p| p.path.as_path()).collect();
        // One pass over what is known, whatever the number of files written.
        self.by_source.retain(|_, held| {
            held.retain(|(p, _)| !paths.contains(p.as_path()));
            !held.is_empty()
        });
        self.broken.retain(|(p, ..)| !paths.contains(p.as_path()));
        self.ids.retain(|_, p| !paths.contains(p.as_path()));
        for Planned {
            path,
            incident,
            text,
        } in written
        {
            if mode == Mode::DryRun {
                self.unwritten.insert(path.clone(), text);
            }
            self.add(root, path, Ok(Loaded::Incident(incident)));
        }
    }

    /// Whether the archive holds the incident `source` names, as a file of any provider or
    /// as one `provider`'s user took over: what an import would find, so need not fetch.
    pub fn holds(&self, provider: &Slug, source: &Source) -> bool {
        self.holds_source(source)
            || self
                .taken_over
                .contains_key(&(provider.to_string(), source.id.clone()))
    }

    /// Whether a file of any provider holds the incident `source` names.
    pub(crate) fn holds_source(&self, source: &Source) -> bool {
        self.by_source
            .contains_key(&(source.kind.clone(), source.id.clone()))
    }

    /// The incident of `kind` whose id is `<series>_…` that `span` is part of, with its
    /// start: one open when `span` begins, or begun while `span` is open (resolved at or
    /// after, or unresolved and updated within `gap` before); the nearest in start.
    pub(crate) fn in_series(
        &self,
        kind: &str,
        series: &str,
        span: Span,
        gap: chrono::TimeDelta,
    ) -> Option<(Source, Timestamp)> {
        let prefix = format!("{series}_");
        let from = (kind.to_string(), prefix.clone());
        self.by_source
            .range(from..)
            .take_while(|((k, id), _)| k == kind && id.starts_with(&prefix))
            // `<series>_<time>`, not a longer series that begins the same.
            .filter(|((_, id), _)| id[prefix.len()..].bytes().all(|b| b.is_ascii_digit()))
            .flat_map(|((k, id), held)| held.iter().map(move |(_, i)| (k, id, i)))
            .filter(|(.., i)| {
                let theirs = Span::of_file(i);
                match i.started <= span.started {
                    true => theirs.open_at(span.started, gap),
                    false => span.open_at(i.started, gap),
                }
            })
            .min_by_key(|(.., i)| (i.started - span.started).abs())
            .map(|(k, id, i)| (identity(k, id), i.started))
    }

    /// The providers whose files `provider`'s sources may write: itself, and those whose
    /// `_index.md` names the same status page.
    fn kin(&self, provider: &Slug) -> BTreeSet<Slug> {
        let mut kin = BTreeSet::from([provider.clone()]);
        if let Some(page) = self.pages.get(provider) {
            kin.extend(
                self.pages
                    .iter()
                    .filter(|(_, p)| *p == page)
                    .map(|(slug, _)| slug.clone()),
            );
        }
        kin
    }

    /// The one file of `kin` that holds `incident`, else another provider's that does.
    fn find(
        &self,
        root: &Path,
        incident: &Imported,
        kin: &BTreeSet<Slug>,
    ) -> Result<Found, Diagnostic> {
        let mut found: Vec<&Held> = Vec::new();
        let mut elsewhere: Option<&Held> = None;
        for source in std::iter::once(&incident.source).chain(&incident.legacy) {
            for hit in self
                .by_source
                .get(&(source.kind.clone(), source.id.clone()))
                .into_iter()
                .flatten()
            {
                if !kin.contains(&hit.1.provider) {
                    elsewhere = elsewhere.or(Some(hit));
                } else if !found.iter().any(|f| f.0 == hit.0) {
                    found.push(hit);
                }
            }
        }
        match found.as_slice() {
            [] => {}
            [one] => return Ok(Found::Here((one.0.clone(), Arc::clone(&one.1)))),
            [first, second, ..] => {
                return Err(Diagnostic::file(
                    display_path(root, &second.0),
                    format!(
                        "the incident {} is also in {}: an import cannot tell which file to update",
                        incident.source.id,
                        display_path(root, &first.0).display()
                    ),
                )
                .with_hint("keep one of the two files (merge their updates by hand)"));
            }
        }
        let broken = self.broken.iter().find(|(path, text, _)| {
            folder_of(path).is_some_and(|folder| kin.iter().any(|k| k.as_str() == folder))
                && text.contains(incident.source.id.as_str())
        });
        match (broken, elsewhere) {
            (Some((path, _, why)), _) => Err(Diagnostic::file(
                display_path(root, path),
                format!(
                    "this file names the incident {} but does not load ({why}): the import cannot tell whether it holds it",
                    incident.source.id
                ),
            )
            .with_hint("fix the file (`outages check` shows every problem), then import again")),
            (None, Some(held)) => Ok(Found::Elsewhere((held.0.clone(), Arc::clone(&held.1)))),
            (None, None) => Ok(Found::Nowhere),
        }
    }
}

/// Refuses a new file whose `id` (the source's) another file of the provider has already,
/// on disk or new in this run: an id names one incident, and two sources that give the same
/// one cannot both be the provider's.
fn free_id(
    root: &Path,
    provider: &Slug,
    incident: &Imported,
    index: &Known,
    new_ids: &BTreeMap<String, PathBuf>,
) -> Result<(), Diagnostic> {
    let id = &incident.source.id;
    let holder = new_ids
        .get(id)
        .or_else(|| index.ids.get(&(provider.to_string(), id.clone())));
    match holder {
        None => Ok(()),
        Some(path) => Err(Diagnostic::file(
            display_path(root, path),
            format!(
                "holds the id `{id}`, which the payload also gives the incident `{}` of another source ({}): an id names one incident",
                incident.title, incident.source.kind
            ),
        )
        .with_hint("if they are one incident, give this file the other's `source:`; else give one of them another `id`")),
    }
}

/// The provider folder a file of `content/` is in.
fn folder_of(path: &Path) -> Option<&str> {
    let mut parts = path.strip_prefix(CONTENT_DIR).ok()?.components();
    parts.next()?.as_os_str().to_str()
}

/// A status page as two `_index.md` name the same one: host (lower case), port and path,
/// whatever the scheme, query or a final `/`.
fn page_key(page: &WebUrl) -> Option<String> {
    let url = url::Url::parse(page.as_str()).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    Some(format!("{host}{port}{}", url.path().trim_end_matches('/')))
}

/// Refuses when `content/` or any folder or file on the way to `relative` is a link.
fn refuse_links(root: &Path, relative: &Path) -> Result<(), Diagnostic> {
    let mut prefix = PathBuf::new();
    for part in relative.components() {
        prefix.push(part);
        match std::fs::symlink_metadata(root.join(&prefix)) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Diagnostic::file(
                    display_path(root, &prefix),
                    "is a symbolic link: an import never writes through one",
                )
                .with_hint(
                    "replace the link with the folder or file it points to, or import with --root where it points",
                ));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// `content/github/2026-08-17-incident-with-github-com.md`; with the source id added, then
/// a number, while another file (on disk, or new in this run) or URL has the name.
fn new_path(
    root: &Path,
    folder: &Path,
    provider: &Slug,
    incident: &Imported,
    index: &Known,
    taken: &BTreeSet<PathBuf>,
) -> Result<PathBuf, Diagnostic> {
    let date = incident.started.format("%Y-%m-%d");
    let title = capped_slug(&incident.title);
    let id = capped_slug(&incident.source.id);
    let base = match (title.is_empty(), id.is_empty()) {
        (false, _) => format!("{date}-{title}"),
        (true, false) => format!("{date}-{id}"),
        (true, true) => format!("{date}-incident"),
    };
    let with_id = if id.is_empty() || base.ends_with(&id) {
        base.clone()
    } else {
        format!("{base}-{id}")
    };
    let candidates = std::iter::once(base.clone())
        .chain(std::iter::once(with_id.clone()))
        .chain((2..1000).map(|n| format!("{with_id}-{n}")));
    for stem in candidates {
        let path = folder.join(format!("{stem}.md"));
        let free = !taken.contains(&path)
            && std::fs::symlink_metadata(root.join(&path)).is_err()
            && !index.slugs.contains(&(provider.to_string(), stem.clone()));
        if free {
            return Ok(path);
        }
    }
    Err(Diagnostic::file(
        display_path(root, folder),
        format!("no free file name for the incident {}", incident.source.id),
    ))
}

fn capped_slug(text: &str) -> String {
    Slug::from_title(text).map_or_else(|_| String::new(), |slug| slug.as_str().to_string())
}

/// Plans a new file for `incident` at `path`.
fn create(
    root: &Path,
    path: &Path,
    incident: &Imported,
    staged: &mut Staged,
) -> Result<Outcome, Diagnostic> {
    refuse_links(root, path)?;
    let plan = merge::fresh(incident);
    let source = recorded_source(incident, &plan);
    let mut yaml = String::new();
    for field in Field::ALL {
        if let Some(value) = plan.facts.line(field) {
            yaml.push_str(&format!("{}: {value}\n", field.key()));
        }
    }
    yaml.push_str(&source_lines(&source).join("\n"));
    let text = format!(
        "---\n{yaml}\n---\n## Updates\n{}",
        updates_text(&plan.new_updates)
    );
    let expected = Expected {
        facts: &plan.facts,
        source: &source,
        updates: escaped(&plan.new_updates),
        before: None,
    };
    staged.stage(root, path, &text, &expected, None, incident)?;
    Ok(Outcome {
        path: path.to_path_buf(),
        change: Change::Created {
            updates: plan.new_updates.len(),
        },
        kept: Vec::new(),
    })
}

/// Plans the merge of `incident` into the file at `path`, which holds `file` (and the text
/// `unwritten`, when a dry run planned it without writing it).
fn update(
    root: &Path,
    path: &Path,
    incident: &Imported,
    file: &Incident,
    unwritten: Option<&str>,
    staged: &mut Staged,
) -> Result<Outcome, Diagnostic> {
    refuse_links(root, path)?;
    let shown = display_path(root, path);
    let bytes = match unwritten {
        Some(text) => text.as_bytes().to_vec(),
        None => std::fs::read(root.join(path))
            .map_err(|e| Diagnostic::file(&shown, format!("cannot read: {e}")))?,
    };
    let text = clean_text(bytes.clone()).map_err(|e| e.into_diagnostic(&shown))?;
    let plan = merge::merge(incident, file);
    let source = recorded_source(incident, &plan);
    let patched = patch(&shown, &text, file, &plan, &source)?;
    let change = if patched == text {
        Change::Unchanged
    } else {
        let expected = Expected {
            facts: &plan.facts,
            source: &source,
            updates: merged_updates(file, &plan),
            before: Some(file),
        };
        staged.stage(root, path, &patched, &expected, Some(bytes), incident)?;
        Change::Updated {
            new_updates: plan.new_updates.len(),
            refined: plan.refined.len(),
        }
    };
    Ok(Outcome {
        path: path.to_path_buf(),
        change,
        kept: plan.kept,
    })
}

fn recorded_source(incident: &Imported, plan: &Plan) -> Source {
    Source {
        imported: Some(plan.record.to_string()),
        ..incident.source.clone()
    }
}

fn source_lines(source: &Source) -> Vec<String> {
    let mut lines = vec![
        "source:".to_string(),
        format!("  kind: {}", quoted(&source.kind)),
        format!("  id: {}", quoted(&source.id)),
    ];
    if let Some(imported) = &source.imported {
        lines.push(format!("  imported: {}", quoted(imported)));
    }
    lines
}

/// Updates as written: `### <time>: <status>`, the escaped body, a blank line between two.
fn updates_text(updates: &[Update]) -> String {
    let blocks: Vec<String> = updates
        .iter()
        .map(|update| {
            let heading = format!("### {}: {}", time(update.at), update.status.as_str());
            let body = escape_body(&update.body);
            if body.is_empty() {
                heading
            } else {
                format!("{heading}\n{body}")
            }
        })
        .collect();
    if blocks.is_empty() {
        String::new()
    } else {
        blocks.join("\n\n") + "\n"
    }
}

/// The updates the file holding `file` holds once `plan` is written, as the loader reads
/// them back.
fn merged_updates(file: &Incident, plan: &Plan) -> Vec<(Timestamp, String, String)> {
    let mut updates: Vec<Update> = file.updates.clone();
    for (held, _) in &plan.refined {
        if let Some(at) = updates.iter().position(|u| u == held) {
            updates.remove(at);
        }
    }
    let mut read: Vec<(Timestamp, String, String)> = updates
        .iter()
        .map(|u| (u.at, u.status.as_str().to_string(), u.body.clone()))
        .collect();
    let told: Vec<Update> = plan.refined.iter().map(|(_, told)| told.clone()).collect();
    read.extend(escaped(&told));
    read.extend(escaped(&plan.new_updates));
    read
}

/// `body` with each update the plan refines written as the provider tells it, where the
/// feed's version of it stood; `None` when one is not in `body` as the loader read it.
fn refine(body: &str, refined: &[(Update, Update)]) -> Option<String> {
    if refined.is_empty() {
        return Some(body.to_string());
    }
    let written = written_updates(body);
    let mut taken = vec![false; written.len()];
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (held, told) in refined {
        let at = (0..written.len()).find(|&i| !taken[i] && written[i].0 == *held)?;
        taken[at] = true;
        let range = &written[at].1;
        // The blank lines before the next update stay.
        let end = range.start + body[range.clone()].trim_end().len();
        let block = updates_text(std::slice::from_ref(told));
        edits.push((range.start..end, block.trim_end().to_string()));
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(body.len());
    let mut from = 0;
    for (range, block) in edits {
        out.push_str(&body[from..range.start]);
        out.push_str(&block);
        from = range.end;
    }
    out.push_str(&body[from..]);
    Some(out)
}

/// Updates as the loader reads them back from [`updates_text`].
fn escaped(updates: &[Update]) -> Vec<(Timestamp, String, String)> {
    updates
        .iter()
        .map(|u| {
            let body = trim_blank_lines(&escape_body(&u.body)).to_string();
            (u.at, u.status.as_str().to_string(), body)
        })
        .collect()
}

/// The keys an import writes, in the order it writes them: where a missing one goes.
const ORDER: [&str; 10] = [
    "title",
    "started",
    "resolved",
    "impact",
    "components",
    "regions",
    "id",
    "official_url",
    "extra",
    "source",
];

/// `text` (the file holding `file`) with the fields the plan changes rewritten, every other
/// line as it was, and the new updates after everything.
fn patch(
    shown: &Path,
    text: &str,
    file: &Incident,
    plan: &Plan,
    source: &Source,
) -> Result<String, Diagnostic> {
    let ctx = FileCtx::new(shown, text);
    let (true, Some(Ok(split))) = (text.starts_with("---\n"), frontmatter::split(&ctx)) else {
        return Err(Diagnostic::file(
            shown,
            "this file has no front matter to update",
        ));
    };
    let yaml_end = "---\n".len() + split.yaml.len();
    let body_start = text.len() - split.body.len();
    let mut lines: Vec<String> = split.yaml.lines().map(str::to_string).collect();
    let current = Facts::of_incident(file);
    for field in Field::ALL {
        let value = plan.facts.line(field);
        if value != current.line(field) {
            if field == Field::Resolved {
                set_key(&mut lines, "duration", None);
            }
            let line = value.map(|v| vec![format!("{}: {v}", field.key())]);
            set_key(&mut lines, field.key(), line);
        }
    }
    if file.source.as_ref() != Some(source) {
        set_key(&mut lines, "source", Some(source_lines(source)));
    }
    let mut out = String::from("---\n");
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&text[yaml_end..body_start]);
    let body = refine(&text[body_start..], &plan.refined).ok_or_else(|| {
        Diagnostic::file(
            shown,
            "the file changed while it was read; nothing was written",
        )
        .with_hint("run it again")
    })?;
    let body = body.as_str();
    if plan.new_updates.is_empty() {
        out.push_str(body);
    } else {
        let body = body.trim_end();
        out.push_str(body);
        if !body.is_empty() {
            out.push_str("\n\n");
        }
        if file.updates.is_empty() && !body.lines().any(|l| l.starts_with("## Updates")) {
            out.push_str("## Updates\n");
        }
        out.push_str(&updates_text(&plan.new_updates));
    }
    Ok(out)
}

/// Replaces the top-level `key` (its line and the lines that continue it) with `value`,
/// removes it when `value` is `None`, or inserts it after the keys [`ORDER`] puts before it.
fn set_key(lines: &mut Vec<String>, key: &str, value: Option<Vec<String>>) {
    let is_key = |line: &str, key: &str| {
        line.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start_matches(' ').starts_with(':'))
    };
    let starts_entry =
        |line: &str| line.starts_with(|c: char| c.is_alphanumeric() || "_#\"'".contains(c));
    let range = |lines: &[String], key: &str| {
        let start = lines.iter().position(|l| is_key(l, key))?;
        let mut end = start + 1;
        while end < lines.len() && !starts_entry(&lines[end]) {
            end += 1;
        }
        while end > start + 1 && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        Some(start..end)
    };
    match (range(lines, key), value) {
        (Some(found), value) => {
            lines.splice(found, value.unwrap_or_default());
        }
        (None, Some(value)) => {
            let before = ORDER.iter().take_while(|k| **k != key);
            let at = before
                .filter_map(|k| range(lines, k))
                .map(|r| r.end)
                .max()
                .unwrap_or(0);
            lines.splice(at..at, value);
        }
        (None, None) => {}
    }
}

/// What a written file must read back to.
struct Expected<'a> {
    facts: &'a Facts,
    source: &'a Source,
    /// `(time, status, body)` of every update.
    updates: Vec<(Timestamp, String, String)>,
    /// The incident the file held before, whose other fields must not change.
    before: Option<&'a Incident>,
}

impl Expected<'_> {
    /// What differs in `loaded`, if anything.
    fn mismatch(&self, loaded: &Incident) -> Option<&'static str> {
        let mut want = self.updates.clone();
        let mut got: Vec<(Timestamp, String, String)> = loaded
            .updates
            .iter()
            .map(|u| (u.at, u.status.as_str().to_string(), u.body.clone()))
            .collect();
        want.sort();
        got.sort();
        let rest = |i: &Incident| {
            (
                i.summary.clone(),
                i.level,
                i.aliases.clone(),
                i.draft,
                i.attribution.clone(),
                i.unnamed_components,
            )
        };
        if Facts::of_incident(loaded) != *self.facts {
            Some("its fields")
        } else if loaded.source.as_ref() != Some(self.source) {
            Some("its source")
        } else if want != got {
            Some("its updates")
        } else if self.before.is_some_and(|before| {
            rest(before) != rest(loaded) || before.provider != loaded.provider
        }) || self.before.is_none() && !loaded.summary.is_empty()
        {
            Some("what it held besides the import")
        } else {
            None
        }
    }
}

/// Files written beside their targets, not yet in place; removed unless committed.
#[derive(Default)]
struct Staged {
    /// Plan every file, write none.
    dry_run: bool,
    files: Vec<StagedFile>,
    /// Every file planned, as the loader reads its new text.
    planned: Vec<Planned>,
    /// Folders made for new files, removed again if nothing is committed.
    folders: Vec<PathBuf>,
    committed: bool,
}

/// A file planned: its path, what it will hold, and its text.
struct Planned {
    path: PathBuf,
    incident: Arc<Incident>,
    text: String,
}

struct StagedFile {
    /// Absolute, so that dropping can remove it.
    temp: PathBuf,
    target: PathBuf,
    /// The bytes the target held when planned; `None` for a new file.
    original: Option<Vec<u8>>,
}

impl Staged {
    /// Reads `text` with the loader as if it were `target` (every field and update as
    /// planned), then writes it beside `target`.
    fn stage(
        &mut self,
        root: &Path,
        target: &Path,
        text: &str,
        expected: &Expected,
        original: Option<Vec<u8>>,
        incident: &Imported,
    ) -> Result<(), Diagnostic> {
        let shown = display_path(root, target);
        let refuse = |why: String| {
            Diagnostic::file(
                &shown,
                format!(
                    "the incident {} cannot be written: {why}",
                    incident.source.id
                ),
            )
        };
        if text.len() > MAX_FILE_BYTES {
            return Err(refuse(format!(
                "it would take {} bytes, over the limit of {MAX_FILE_BYTES} a file may hold",
                text.len()
            ))
            .with_hint("split the incident by hand, or leave it out of the payload"));
        }
        // Checked in memory, so a dry run refuses what a real one would.
        match content::load_bytes(root, target, text.as_bytes().to_vec()) {
            Ok(Loaded::Incident(loaded)) => match expected.mismatch(&loaded) {
                None => self.planned.push(Planned {
                    path: target.to_path_buf(),
                    incident: loaded,
                    text: text.to_string(),
                }),
                Some(what) => {
                    return Err(refuse(format!(
                        "written, it would not read back to the same {what}"
                    ))
                    .with_hint(
                        "the text around the import's fields or updates was edited in a way an import cannot merge into; merge by hand",
                    ));
                }
            },
            Ok(Loaded::Provider(..)) => {
                return Err(refuse("it would not read as an incident".into()));
            }
            Err(problems) => {
                return Err(refuse(format!(
                    "written, it would not load: {}",
                    problems.first().map(|d| d.message.as_str()).unwrap_or("")
                )));
            }
        }
        if self.dry_run {
            return Ok(());
        }
        let temp = staging_path(target, Purpose::Import);
        if let Some(dir) = target.parent() {
            self.make_folder(root, dir)
                .map_err(|e| refuse(format!("cannot make its folder: {e}")))?;
        }
        let _ = std::fs::remove_file(root.join(&temp));
        let written = write_new(&root.join(&temp), text);
        self.files.push(StagedFile {
            temp: root.join(&temp),
            target: target.to_path_buf(),
            original,
        });
        written.map_err(|e| refuse(format!("cannot write beside it: {e}")))
    }

    fn make_folder(&mut self, root: &Path, dir: &Path) -> std::io::Result<()> {
        let mut missing = Vec::new();
        let mut at = dir.to_path_buf();
        while std::fs::symlink_metadata(root.join(&at)).is_err() {
            missing.push(at.clone());
            if !at.pop() || at.as_os_str().is_empty() {
                break;
            }
        }
        std::fs::create_dir_all(root.join(dir))?;
        self.folders
            .extend(missing.into_iter().map(|m| root.join(m)));
        Ok(())
    }

    /// Puts every staged file in place: a new one only under a name nothing holds, a
    /// changed one only if nobody changed it since it was read. Every file is checked
    /// before the first is put in place, and those put in place are undone if a later one
    /// fails, so the archive gets all of them or none; a kill part way is completed by the
    /// next writer ([`Writer::commit`]).
    fn commit(mut self, root: &Path, writer: &Writer) -> Result<(), Vec<Diagnostic>> {
        self.committed = true;
        let refuse = |file: &StagedFile, why: String| {
            vec![Diagnostic::file(display_path(root, &file.target), why).with_hint("run it again")]
        };
        for file in &self.files {
            if let Err(why) = file.still_as_planned(root) {
                self.committed = false;
                return Err(refuse(file, why.to_string()));
            }
        }
        let moves: Vec<Move> = self
            .files
            .iter()
            .map(|file| Move {
                staged: file
                    .temp
                    .strip_prefix(root)
                    .unwrap_or(&file.temp)
                    .to_path_buf(),
                target: file.target.clone(),
                new: file.original.is_none(),
            })
            .collect();
        let files = &self.files;
        match writer.commit(&moves, |done| files[done].undo(root)) {
            Ok(()) => Ok(()),
            Err((at, e)) => {
                self.committed = false;
                Err(refuse(
                    &self.files[at],
                    format!("cannot write: {e}; nothing was written"),
                ))
            }
        }
    }
}

/// A file that is no longer as the writer read it: someone wrote there meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum Meanwhile {
    #[error("a file of this name appeared meanwhile; nothing was written")]
    Appeared,
    #[error("the file changed meanwhile; nothing was written")]
    Changed,
}

impl StagedFile {
    fn still_as_planned(&self, root: &Path) -> Result<(), Meanwhile> {
        let target = root.join(&self.target);
        match &self.original {
            None => match std::fs::symlink_metadata(&target) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(Meanwhile::Appeared),
            },
            Some(original) => match std::fs::read(&target) {
                Ok(now) if now == *original => Ok(()),
                _ => Err(Meanwhile::Changed),
            },
        }
    }

    /// Puts back what the target held before this file was committed.
    fn undo(&self, root: &Path) {
        let target = root.join(&self.target);
        match &self.original {
            None => {
                let _ = std::fs::remove_file(&target);
            }
            Some(original) => {
                let _ = std::fs::write(&self.temp, original)
                    .and_then(|()| std::fs::rename(&self.temp, &target));
            }
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for file in &self.files {
            // A committed replacement was renamed away; a committed new file was linked.
            let _ = std::fs::remove_file(&file.temp);
        }
        if !self.committed {
            for folder in self.folders.iter().rev() {
                let _ = std::fs::remove_dir(folder);
            }
        }
    }
}

/// Creates `path` with `text`; fails if anything, even a dangling link, is there.
pub(crate) fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// Writes a new file at `path` (making its folder), never replacing anything there, and
/// never leaving half a file: the text goes to a hidden file beside it first, then is
/// linked in under its name.
pub fn create_file(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temp = staging_path(path, Purpose::New);
    let _ = std::fs::remove_file(&temp);
    write_new(&temp, text)?;
    let linked = std::fs::hard_link(&temp, path);
    let _ = std::fs::remove_file(&temp);
    linked
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A staged file whose temporary copy holds `text`.
    fn staged(root: &Path, target: &str, text: &str, original: Option<&str>) -> StagedFile {
        let temp = root.join(format!("{}.staged", target.replace('/', "_")));
        std::fs::write(&temp, text).unwrap();
        StagedFile {
            temp,
            target: PathBuf::from(target),
            original: original.map(|o| o.as_bytes().to_vec()),
        }
    }

    fn commit(root: &Path, files: Vec<StagedFile>) -> Result<(), Vec<Diagnostic>> {
        let mut staged = Staged::default();
        staged.files = files;
        staged.commit(root, &Writer::take(root, || {}).unwrap())
    }

    #[test]
    fn a_commit_puts_every_file_in_place_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("old.md"), "old").unwrap();
        // A name taken after planning: found before anything is put in place.
        std::fs::write(root.join("taken.md"), "someone's").unwrap();
        let refused = commit(
            root,
            vec![
                staged(root, "old.md", "new", Some("old")),
                staged(root, "taken.md", "ours", None),
            ],
        )
        .unwrap_err();
        assert!(
            refused[0].message.contains("appeared meanwhile"),
            "{refused:?}"
        );
        assert_eq!(std::fs::read_to_string(root.join("old.md")).unwrap(), "old");
        assert_eq!(
            std::fs::read_to_string(root.join("taken.md")).unwrap(),
            "someone's"
        );

        // A write that fails half way: what was put in place is undone.
        let failed = commit(
            root,
            vec![
                staged(root, "old.md", "new", Some("old")),
                staged(root, "fresh.md", "fresh", None),
                staged(root, "gone/x.md", "x", None),
            ],
        )
        .unwrap_err();
        assert!(
            failed[0].message.contains("nothing was written"),
            "{failed:?}"
        );
        assert_eq!(std::fs::read_to_string(root.join("old.md")).unwrap(), "old");
        assert!(!root.join("fresh.md").exists());

        commit(
            root,
            vec![
                staged(root, "old.md", "new", Some("old")),
                staged(root, "fresh.md", "fresh", None),
            ],
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(root.join("old.md")).unwrap(), "new");
        assert_eq!(
            std::fs::read_to_string(root.join("fresh.md")).unwrap(),
            "fresh"
        );
        let left: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".staged"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
