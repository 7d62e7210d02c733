//! Importing incidents from status pages into canonical content files (SPEC §2a), and the
//! `new` and `init` scaffolds. An import is idempotent and never loses an update: an
//! incident already in the archive (found by its `source` id) gets the updates it lacks;
//! a file edited by hand since it was imported is left alone and reported.

pub mod atom;
pub mod scaffold;
pub mod statuspage;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use chrono::SecondsFormat;

use crate::content::{self, CONTENT_DIR, Loaded, source::clean_text};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Incident, Slug, Source, Timestamp, Update};

/// An incident as a status page gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub source: Source,
    pub title: String,
    pub started: Timestamp,
    pub resolved: Option<Timestamp>,
    pub impact: Impact,
    pub components: Vec<String>,
    pub official_url: Option<String>,
    /// Free-form facts the format has no field for (a maintenance's scheduled window).
    pub extra: Option<serde_json::Value>,
    /// In time order.
    pub updates: Vec<Update>,
}

/// A string as YAML reads it back exactly: JSON's double-quoted strings are YAML too.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

fn time(at: Timestamp) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

impl Imported {
    /// Trims what the loader trims, so that a file reads back to exactly this value.
    pub fn tidy(mut self) -> Imported {
        self.title = self.title.trim().to_string();
        let mut components: Vec<String> = Vec::new();
        for component in self
            .components
            .iter()
            .map(|c| c.trim())
            .filter(|c| !c.is_empty())
        {
            if !components.iter().any(|c| c == component) {
                components.push(component.to_string());
            }
        }
        self.components = components;
        for update in &mut self.updates {
            update.body = clean_text(update.body.trim().as_bytes().to_vec())
                .unwrap_or_default()
                .trim()
                .to_string();
        }
        self.updates.sort_by_key(|u| u.at);
        self
    }

    /// The canonical file for this incident. Times keep every digit the source gave.
    pub fn render(&self) -> String {
        let mut out = String::from("---\n");
        let _ = writeln!(out, "title: {}", quoted(&self.title));
        let _ = writeln!(out, "started: {}", time(self.started));
        if let Some(resolved) = self.resolved {
            let _ = writeln!(out, "resolved: {}", time(resolved));
        }
        let _ = writeln!(out, "impact: {}", self.impact.keyword());
        if !self.components.is_empty() {
            let list: Vec<String> = self.components.iter().map(|c| quoted(c)).collect();
            let _ = writeln!(out, "components: [{}]", list.join(", "));
        }
        let _ = writeln!(out, "id: {}", quoted(&self.source.id));
        if let Some(url) = &self.official_url {
            let _ = writeln!(out, "official_url: {}", quoted(url));
        }
        let _ = writeln!(
            out,
            "source: {{kind: {}, id: {}}}",
            quoted(&self.source.kind),
            quoted(&self.source.id)
        );
        if let Some(extra) = &self.extra {
            let _ = writeln!(out, "extra: {extra}");
        }
        out.push_str("---\n## Updates\n");
        for update in &self.updates {
            let _ = writeln!(out, "### {}: {}", time(update.at), update.status.as_str());
            let body = update.body.trim();
            if !body.is_empty() {
                out.push_str(body);
                out.push('\n');
            }
        }
        out
    }

    /// Reads back a file this importer wrote; `None` when it holds what an import never
    /// writes (a summary, regions...), which means it was edited by hand.
    fn from_incident(incident: &Incident) -> Option<Imported> {
        let plain = incident.summary.is_empty()
            && incident.regions.is_empty()
            && incident.level.is_none()
            && incident.aliases.is_empty()
            && incident.attribution.is_none()
            && !incident.draft;
        if !plain {
            return None;
        }
        Some(Imported {
            source: incident.source.clone()?,
            title: incident.title.clone(),
            started: incident.started,
            resolved: incident.resolved,
            impact: incident.impact,
            components: incident.components.clone(),
            official_url: incident
                .official_url
                .as_ref()
                .map(|u| u.as_str().to_string()),
            extra: incident.extra.clone(),
            updates: incident.updates.clone(),
        })
    }

    /// This import merged into what the archive already holds: every update of both (the
    /// same time and status is one update), and the facts of whichever is more recent.
    fn merged_with(&self, existing: &Imported) -> Imported {
        let newest = |i: &Imported| i.updates.iter().map(|u| u.at).max();
        let (mut merged, other) = if newest(self) >= newest(existing) {
            (self.clone(), existing)
        } else {
            (existing.clone(), self)
        };
        // Every update of the newer side, then those of the other it lacks. Two updates in
        // the same minute with the same status are both kept unless their text is the same.
        let key = |u: &Update| (u.at, u.status.as_str().to_string(), u.body.clone());
        let mut present: BTreeMap<(Timestamp, String, String), usize> = BTreeMap::new();
        for update in &merged.updates {
            *present.entry(key(update)).or_default() += 1;
        }
        for update in &other.updates {
            match present.get_mut(&key(update)) {
                Some(count) if *count > 0 => *count -= 1,
                _ => merged.updates.push(update.clone()),
            }
        }
        merged.updates.sort_by_key(|u| u.at);
        merged.resolved = merged.resolved.or(other.resolved);
        for component in &other.components {
            if !merged.components.contains(component) {
                merged.components.push(component.clone());
            }
        }
        merged
    }
}

/// What happened to one incident of an import.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Created {
        path: PathBuf,
        updates: usize,
    },
    Updated {
        path: PathBuf,
        new_updates: usize,
    },
    Unchanged {
        path: PathBuf,
    },
    /// Edited by hand since it was imported: left alone.
    Skipped {
        path: PathBuf,
        new_updates: usize,
    },
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Created { path, updates } => {
                write!(f, "created   {} ({updates} updates)", path.display())
            }
            Outcome::Updated { path, new_updates } => {
                write!(f, "updated   {} (+{new_updates} updates)", path.display())
            }
            Outcome::Unchanged { path } => write!(f, "unchanged {}", path.display()),
            Outcome::Skipped { path, new_updates } => write!(
                f,
                "skipped   {}: edited by hand since it was imported; {new_updates} new update(s) not written \
                 (move your edits into a copy, or delete `source:` to keep the file as yours)",
                path.display()
            ),
        }
    }
}

/// Writes `incidents` under `root/content/<provider>/`, merging into files already
/// imported from the same source. Every file is planned before any is written.
pub fn write(
    root: &Path,
    provider: &Slug,
    incidents: &[Imported],
) -> Result<Vec<Outcome>, Vec<Diagnostic>> {
    let folder = Path::new(CONTENT_DIR).join(provider.as_str());
    let existing = imported_files(root, &folder)?;
    let mut plans: Vec<(Outcome, Option<String>)> = Vec::new();
    let mut taken: Vec<PathBuf> = Vec::new();
    for incident in incidents {
        let key = (incident.source.kind.clone(), incident.source.id.clone());
        let plan = match existing.get(&key) {
            Some((path, Some(previous), text)) => {
                let merged = incident.merged_with(previous);
                let rendered = merged.render();
                let new_updates = merged.updates.len().saturating_sub(previous.updates.len());
                if rendered == *text {
                    (Outcome::Unchanged { path: path.clone() }, None)
                } else {
                    (
                        Outcome::Updated {
                            path: path.clone(),
                            new_updates,
                        },
                        Some(rendered),
                    )
                }
            }
            Some((path, None, _)) => {
                let known = existing_update_count(root, path);
                let new_updates = incident.updates.len().saturating_sub(known);
                (
                    Outcome::Skipped {
                        path: path.clone(),
                        new_updates,
                    },
                    None,
                )
            }
            None => {
                let path = new_path(root, &folder, incident, &taken);
                taken.push(path.clone());
                (
                    Outcome::Created {
                        path,
                        updates: incident.updates.len(),
                    },
                    Some(incident.render()),
                )
            }
        };
        plans.push(plan);
    }
    for (outcome, text) in &plans {
        if let (Outcome::Created { path, .. } | Outcome::Updated { path, .. }, Some(text)) =
            (outcome, text)
        {
            write_file(&root.join(path), text)
                .map_err(|e| vec![Diagnostic::file(path, format!("cannot write: {e}"))])?;
        }
    }
    Ok(plans.into_iter().map(|(outcome, _)| outcome).collect())
}

type Existing = BTreeMap<(String, String), (PathBuf, Option<Imported>, String)>;

/// The files of `folder` that came from an import, by source: their path, their content
/// as imported (`None` when edited by hand since) and their text.
fn imported_files(root: &Path, folder: &Path) -> Result<Existing, Vec<Diagnostic>> {
    let mut found = Existing::new();
    if !root.join(folder).is_dir() {
        return Ok(found);
    }
    for path in content::files_under(root, folder)? {
        let Ok(Loaded::Incident(incident)) = content::load_file(root, &path) else {
            continue;
        };
        let Some(source) = &incident.source else {
            continue;
        };
        let text = std::fs::read(root.join(&path))
            .ok()
            .and_then(|b| clean_text(b).ok())
            .unwrap_or_default();
        let pristine =
            Imported::from_incident(&incident).filter(|imported| imported.render() == text);
        found.insert(
            (source.kind.clone(), source.id.clone()),
            (path, pristine, text),
        );
    }
    Ok(found)
}

fn existing_update_count(root: &Path, path: &Path) -> usize {
    match content::load_file(root, path) {
        Ok(Loaded::Incident(incident)) => incident.updates.len(),
        _ => 0,
    }
}

/// `content/github/2026-08-17-incident-with-github-com.md`, or with the source id added
/// when another file has that name.
fn new_path(root: &Path, folder: &Path, incident: &Imported, taken: &[PathBuf]) -> PathBuf {
    let stem = format!(
        "{}-{}",
        incident.started.format("%Y-%m-%d"),
        slug::slugify(&incident.title)
    );
    let plain = folder.join(format!("{stem}.md"));
    if !root.join(&plain).exists() && !taken.contains(&plain) {
        return plain;
    }
    folder.join(format!("{stem}-{}.md", slug::slugify(&incident.source.id)))
}

/// Writes through a temporary file and a rename, so an editor or `serve` never reads half.
pub fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Status;

    fn update(at: &str, status: &str, body: &str) -> Update {
        Update {
            at: at.parse().unwrap(),
            status: Status::parse(status),
            body: body.into(),
        }
    }

    fn sample() -> Imported {
        Imported {
            source: Source {
                kind: "statuspage".into(),
                id: "abc".into(),
            },
            title: "API \"degraded\": 50% errors".into(),
            started: "2026-08-17T13:40:03.620Z".parse().unwrap(),
            resolved: None,
            impact: Impact::Major,
            components: vec!["API: v3".into()],
            official_url: Some("https://stspg.io/abc".into()),
            extra: None,
            updates: vec![update(
                "2026-08-17T13:40:03.629Z",
                "investigating",
                "Looking.\n\n### not an update",
            )],
        }
    }

    #[test]
    fn a_rendered_file_reads_back_to_the_same_incident() {
        let dir = tempfile::tempdir().unwrap();
        let path = Path::new("content/github/a.md");
        write_file(&dir.path().join(path), &sample().render()).unwrap();
        let Ok(Loaded::Incident(incident)) = content::load_file(dir.path(), path) else {
            panic!("loads")
        };
        assert_eq!(Imported::from_incident(&incident), Some(sample()));
    }

    #[test]
    fn updates_in_the_same_minute_are_all_kept_and_merging_again_changes_nothing() {
        let mut twice = sample();
        twice.updates.push(update(
            "2026-08-17T13:40:03.629Z",
            "investigating",
            "EU is also affected.",
        ));
        let merged = twice.merged_with(&twice);
        assert_eq!(merged.updates.len(), 2);
        assert_eq!(merged.render(), twice.render());
        assert_eq!(merged.merged_with(&twice).render(), twice.render());
    }

    #[test]
    fn merging_keeps_every_update_and_the_newest_facts() {
        let old = sample();
        let mut new = sample();
        new.resolved = Some("2026-08-17T15:00:00Z".parse().unwrap());
        new.updates
            .push(update("2026-08-17T15:00:00Z", "resolved", "Fixed."));
        let merged = old.merged_with(&new);
        assert_eq!(merged.updates.len(), 2);
        assert_eq!(merged.resolved, new.resolved);
        assert_eq!(
            new.merged_with(&old),
            merged,
            "the order of imports does not matter"
        );
    }
}
