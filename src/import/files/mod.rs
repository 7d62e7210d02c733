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

mod staged;
mod text;

pub use staged::create_file;
pub(crate) use staged::write_new;
use staged::*;
use text::*;

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
