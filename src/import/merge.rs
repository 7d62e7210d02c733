//! Deciding what an import writes into a file that already holds the incident: field by
//! field, a value the import wrote last time (its fingerprint still matches) takes the
//! provider's news, a value a person changed is kept; the provider's updates the file never
//! had are added, those it had are never put back. One update told by a feed and by the
//! API (the same minute, the same words) is one update, and the API's time and status win.

use std::collections::{BTreeSet, HashSet};

use super::record::{Field, Fingerprint, Record, value_fingerprint};
use super::series::worse;
use super::text::words;
use super::{Imported, Kept, quoted, time};
use crate::content::twin::whole_minute;
use crate::model::{Impact, Incident, Timestamp, Update};

/// The values of the fields an import writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    pub title: String,
    pub started: Timestamp,
    pub resolved: Option<Timestamp>,
    pub impact: Impact,
    pub components: Vec<String>,
    pub regions: Vec<String>,
    pub id: Option<String>,
    pub official_url: Option<String>,
    pub extra: Option<serde_json::Value>,
}

impl Facts {
    pub fn of_incident(incident: &Incident) -> Facts {
        Facts {
            title: incident.title.clone(),
            started: incident.started,
            resolved: incident.resolved,
            impact: incident.impact,
            components: incident.components.clone(),
            regions: incident.regions.clone(),
            id: incident.id.clone(),
            official_url: incident
                .official_url
                .as_ref()
                .map(|u| u.as_str().to_string()),
            extra: incident.extra.clone(),
        }
    }

    fn of_imported(incident: &Imported) -> Facts {
        Facts {
            title: incident.title.clone(),
            started: incident.started,
            resolved: incident.resolved,
            impact: incident.impact.unwrap_or(Impact::None),
            components: incident.components.clone(),
            regions: incident.regions.clone(),
            id: Some(incident.source.id.clone()),
            official_url: incident.official_url.clone(),
            extra: incident.extra.clone(),
        }
    }

    /// The YAML text of a field after its key, `None` when the field is left out: what is
    /// written, and what a fingerprint is taken of.
    pub fn line(&self, field: Field) -> Option<String> {
        match field {
            Field::Title => Some(quoted(&self.title)),
            Field::Started => Some(time(self.started)),
            Field::Resolved => self.resolved.map(time),
            Field::Impact => Some(self.impact.keyword().to_string()),
            Field::Components => list(&self.components),
            Field::Regions => list(&self.regions),
            Field::Id => self.id.as_deref().map(quoted),
            Field::OfficialUrl => self.official_url.as_deref().map(quoted),
            Field::Extra => self.extra.as_ref().map(|extra| extra.to_string()),
        }
    }

    fn take(&mut self, field: Field, from: &Facts) {
        match field {
            Field::Title => self.title.clone_from(&from.title),
            Field::Started => self.started = from.started,
            Field::Resolved => self.resolved = from.resolved,
            Field::Impact => self.impact = from.impact,
            Field::Components => self.components.clone_from(&from.components),
            Field::Regions => self.regions.clone_from(&from.regions),
            Field::Id => self.id.clone_from(&from.id),
            Field::OfficialUrl => self.official_url.clone_from(&from.official_url),
            Field::Extra => self.extra.clone_from(&from.extra),
        }
    }
}

/// A list as one line of YAML, `None` when empty.
fn list(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| crate::content::twin::list(items))
}

/// What to write for one incident.
#[derive(Debug)]
pub struct Plan {
    pub facts: Facts,
    pub record: Record,
    /// The provider's updates the file lacks, bodies as the provider wrote them.
    pub new_updates: Vec<Update>,
    /// Updates of the file as a feed gave them (to the minute, its status label), each
    /// with the provider's own version to write in its place (to the second, its status).
    pub refined: Vec<(Update, Update)>,
    pub kept: Vec<Kept>,
}

/// A new file: everything the provider gave.
pub fn fresh(incoming: &Imported) -> Plan {
    let facts = Facts::of_imported(incoming);
    let record = Record {
        // A field left out is not recorded; an empty field with no record is the import's.
        fields: Field::ALL
            .into_iter()
            .filter_map(|field| Some((field, value_fingerprint(Some(&facts.line(field)?)))))
            .collect(),
        updates: incoming
            .updates
            .iter()
            .map(Fingerprint::of_update)
            .collect(),
        guessed: guesses(incoming),
    };
    Plan {
        facts,
        record,
        new_updates: incoming.updates.clone(),
        refined: Vec::new(),
        kept: Vec::new(),
    }
}

/// `incoming` merged into the file that holds `file`.
pub fn merge(incoming: &Imported, file: &Incident) -> Plan {
    let current = Facts::of_incident(file);
    let recorded = file.source.as_ref().and_then(|s| s.imported.as_deref());
    let record = Record::parse(recorded.unwrap_or_default());
    // A file from before imports kept a record counts as the import's own when it holds
    // nothing an import never writes (as imports then judged); else a field counts as the
    // import's where it is empty or holds what the provider says, as edited by hand elsewhere.
    // (`recorded` is `None` only for such files: every import since writes a record.)
    let legacy_pristine = recorded.is_none() && holds_only_imported_fields(file);
    let told = Facts::of_imported(incoming);
    let offered = offer(incoming, file, &current, &record.guessed);
    let mut facts = current.clone();
    let mut next = Record::default();
    let mut kept = Vec::new();
    for field in Field::ALL {
        let yours = current.line(field);
        let pristine = match record.fields.get(&field) {
            Some(fp) => value_fingerprint(yours.as_deref()) == *fp,
            None => {
                legacy_pristine
                    || yours.is_none()
                    || yours == told.line(field)
                    // Imports always wrote the source's id as the `id`.
                    || field == Field::Id && yours == file.source.as_ref().map(|s| quoted(&s.id))
            }
        };
        if pristine {
            let guessed = record.guessed.contains(&field);
            facts.take(field, &offered);
            if guessed && facts.line(field) == yours {
                next.guessed.insert(field);
            }
            let value = facts.line(field);
            // A field left out and never recorded stays unrecorded, so a file written before
            // the field was imported is not rewritten for it.
            if value.is_some() || record.fields.contains_key(&field) {
                next.fields
                    .insert(field, value_fingerprint(value.as_deref()));
            }
            continue;
        }
        if let Some(fp) = record.fields.get(&field) {
            next.fields.insert(field, *fp);
        }
        let theirs = offered.line(field);
        if theirs != yours {
            let shown = |value: Option<String>| value.unwrap_or_else(|| "(none)".into());
            kept.push(Kept::Field {
                key: field.key(),
                yours: shown(yours),
                theirs: shown(theirs),
            });
        }
    }
    let known: BTreeSet<Fingerprint> = if recorded.is_none() {
        file.updates.iter().map(Fingerprint::of_update).collect()
    } else {
        record.updates
    };
    next.updates = known.clone();
    let mut ours = FileUpdates::new(&file.updates);
    let mut new_updates = Vec::new();
    let mut refined = Vec::new();
    for update in &incoming.updates {
        let fp = Fingerprint::of_update(update);
        match ours.claim(update) {
            Some(held) if refines(incoming, held, update, &known) => {
                refined.push((held.clone(), update.clone()));
            }
            Some(_) => {}
            None if known.contains(&fp) => kept.push(
                if file.updates.iter().any(|u| same_moment(u.at, update.at)) {
                    Kept::UpdateText(update.at)
                } else {
                    Kept::UpdateRemoved(update.at)
                },
            ),
            None => new_updates.push(update.clone()),
        }
        next.updates.insert(fp);
    }
    Plan {
        facts,
        record: next,
        new_updates,
        refined,
        kept,
    }
}

/// The facts to write where the file still holds what an import wrote: the provider's if
/// this payload is at least as recent as the file's trail, else the file's; a feed's
/// approximate times and unknown impact only fill what the file lacks.
fn offer(
    incoming: &Imported,
    file: &Incident,
    current: &Facts,
    guessed: &BTreeSet<Field>,
) -> Facts {
    let newest_in = incoming
        .updates
        .iter()
        .map(|u| u.at)
        .max()
        .unwrap_or(incoming.started);
    let newest_file = file
        .updates
        .iter()
        .map(|u| u.at)
        .max()
        .unwrap_or(file.started);
    let newer = if incoming.approximate {
        newest_in > newest_file
    } else {
        newest_in >= newest_file
    };
    let theirs = Facts::of_imported(incoming);
    let prefer = |ours: Option<String>, their: Option<String>| {
        if newer {
            their.or(ours)
        } else {
            ours.or(their)
        }
    };
    let union = |ours: &[String], theirs: &[String]| {
        let known: HashSet<&String> = ours.iter().collect();
        let mut all = ours.to_vec();
        all.extend(theirs.iter().filter(|t| !known.contains(t)).cloned());
        all
    };
    Facts {
        title: if newer {
            theirs.title.clone()
        } else {
            current.title.clone()
        },
        started: if incoming.continues.is_some() {
            // Parts of one event told apart: it began with the earlier.
            current.started.min(theirs.started)
        } else if (newer || guessed.contains(&Field::Started)) && !incoming.approximate {
            theirs.started
        } else {
            current.started
        },
        resolved: if newer && !incoming.approximate {
            theirs.resolved.or(current.resolved)
        } else {
            current.resolved.or(theirs.resolved)
        },
        impact: match incoming.impact {
            // Parts of one event: it was as bad as the worse.
            Some(impact) if incoming.continues.is_some() => worse(current.impact, impact),
            Some(impact) if newer || guessed.contains(&Field::Impact) => impact,
            _ => current.impact,
        },
        components: union(&current.components, &theirs.components),
        regions: union(&current.regions, &theirs.regions),
        id: theirs.id,
        official_url: prefer(current.official_url.clone(), theirs.official_url),
        extra: if newer {
            theirs.extra.or(current.extra.clone())
        } else {
            current.extra.clone().or(theirs.extra)
        },
    }
}

/// The fields whose value `incoming` only guesses.
fn guesses(incoming: &Imported) -> BTreeSet<Field> {
    let mut guessed = BTreeSet::new();
    if incoming.approximate {
        guessed.insert(Field::Started);
    }
    if incoming.impact.is_none() {
        guessed.insert(Field::Impact);
    }
    guessed
}

/// The updates a file holds, each matched to at most one update of a source.
struct FileUpdates<'a> {
    updates: &'a [Update],
    words: Vec<String>,
    claimed: Vec<bool>,
}

impl<'a> FileUpdates<'a> {
    fn new(updates: &'a [Update]) -> FileUpdates<'a> {
        FileUpdates {
            updates,
            words: updates.iter().map(|u| words(&u.body)).collect(),
            claimed: vec![false; updates.len()],
        }
    }

    /// The file's update that is `update` as another source told it, the very same one
    /// first, not matched yet; matched now, so two updates alike in a minute find one each.
    fn claim(&mut self, update: &Update) -> Option<&'a Update> {
        let said = words(&update.body);
        let free = |i: &usize| !self.claimed[*i];
        let exact = (0..self.updates.len())
            .filter(free)
            .find(|&i| self.updates[i] == *update);
        let at = exact.or_else(|| {
            (0..self.updates.len())
                .filter(free)
                .find(|&i| same_moment(self.updates[i].at, update.at) && self.words[i] == said)
        })?;
        self.claimed[at] = true;
        Some(&self.updates[at])
    }
}

/// Whether two times are one moment told by two sources: the same time, or the same minute
/// when one of them gives only minutes (a feed).
fn same_moment(a: Timestamp, b: Timestamp) -> bool {
    let to_minute = |t: Timestamp| t.timestamp().div_euclid(60);
    a == b || ((whole_minute(a) || whole_minute(b)) && to_minute(a) == to_minute(b))
}

/// Whether the file's update `held`, written by an import from a feed (to the minute) and
/// unchanged since, is to be written as `told` by a source that gives seconds: a feed labels
/// most updates `Update`, its API says what each was.
fn refines(
    incoming: &Imported,
    held: &Update,
    told: &Update,
    known: &BTreeSet<Fingerprint>,
) -> bool {
    !incoming.approximate
        && whole_minute(held.at)
        && held != told
        && known.contains(&Fingerprint::of_update(held))
}

/// Whether a file holds nothing that an import never writes.
fn holds_only_imported_fields(incident: &Incident) -> bool {
    incident.summary.is_empty()
        && incident.regions.is_empty()
        && incident.level.is_none()
        && incident.aliases.is_empty()
        && incident.attribution.is_none()
        && !incident.draft
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(at: &str, status: &str, body: &str) -> Update {
        Update::of(at, status, body)
    }

    #[test]
    fn a_feed_update_is_the_api_update_of_its_minute_and_words_whatever_its_label() {
        let api = [
            update(
                "2026-08-17T14:58:09.061Z",
                "investigating",
                "Actions is experiencing degraded availability.",
            ),
            update(
                "2026-08-17T14:58:12.889Z",
                "investigating",
                "We are experiencing high error rates.\n\nArchive downloads fail.",
            ),
        ];
        let mut file = FileUpdates::new(&api);
        let feed = update(
            "2026-08-17T14:58:00Z",
            "update",
            "We are experiencing <b>high</b> error rates.<br /><br />Archive downloads fail.",
        );
        assert_eq!(file.claim(&feed), Some(&api[1]));
        assert_eq!(
            file.claim(&feed),
            None,
            "each update of the file is matched once"
        );
        let next_minute = update("2026-08-17T14:59:00Z", "update", &api[0].body);
        assert_eq!(file.claim(&next_minute), None);
        let other_words = update("2026-08-17T14:58:00Z", "update", "Actions is recovering.");
        assert_eq!(file.claim(&other_words), None);
        // Two sources to the second: one moment only when the same.
        let near = update("2026-08-17T14:58:09.5Z", "investigating", &api[0].body);
        assert_eq!(file.claim(&near), None);
        assert_eq!(file.claim(&api[0]), Some(&api[0]));
    }
}
