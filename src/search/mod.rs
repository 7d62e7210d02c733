//! The search index: every incident as one Pagefind record (its words, what a result shows,
//! the facets it can be filtered by), indexed in shards (`shards`) that the search page
//! merges in the browser, each a Pagefind bundle of chunked files under `pagefind/`
//! (`bundle`), written here in Pagefind's format (`format`), every word read as Pagefind
//! reads it (`lexicon`). Built from the model, never from HTML pages.

mod bundle;
mod format;
mod lexicon;
mod shards;
mod state;

use lexicon::Lexicon;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::Datelike;

use crate::model::Incident;
use crate::render::markdown;
use crate::render::views::TimeView;
use crate::render::words::month_name;
use crate::routes;

/// One incident as Pagefind indexes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The incident page's path from the site's root: `/acme/2024-03-01-api/`. Pagefind's
    /// script puts the folder the index is served from in front (`/repo/`), so the index
    /// is the same under any base URL.
    pub url: String,
    /// The words of its summary, updates and postmortem, as plain text (as Pagefind keeps
    /// the text of an HTML page): `AT&T` is indexed as the word it is. Pagefind returns
    /// excerpts of it with `<mark>` around the matches; the search page sets them as text.
    pub content: String,
    /// What a result shows (each also searchable): `title`, `provider`, `impact`,
    /// `impact_key`, `date`, `month`, `duration`, `components`, `regions`. Plain text too.
    pub meta: BTreeMap<String, String>,
    /// The facets: `provider`, `impact`, `year`, `component`, `region`.
    pub filters: BTreeMap<String, Vec<String>>,
    /// `start`: the start time as RFC 3339 UTC, which sorts as text.
    pub sort: BTreeMap<String, String>,
}

/// An incident to index, with its provider's name as the pages show it
/// ([`crate::render::views::IncidentViews::provider_names`]). Its record is made from the
/// model alone (no view is made for it), when its shard is indexed: the records in memory
/// are those of the shards in flight, not the archive's.
#[derive(Clone, Copy)]
struct Indexed<'a> {
    incident: &'a Arc<Incident>,
    provider: &'a Arc<str>,
}

impl Indexed<'_> {
    fn year(&self) -> i32 {
        self.incident.started.year()
    }

    /// In time order, then by page, so that the same incidents give the same index.
    fn order(&self, other: &Self) -> std::cmp::Ordering {
        let key = |indexed: &Self| {
            let incident = indexed.incident;
            (
                incident.started,
                incident.provider.as_str(),
                incident.slug.as_str(),
            )
        };
        key(self).cmp(&key(other))
    }
}

impl shards::Member for Indexed<'_> {
    fn record(&self) -> Record {
        record(self.incident, self.provider)
    }

    fn filters(&self) -> shards::Filters {
        filters(self.incident, self.provider)
    }

    /// The incident as the build cache stores it (every field, so none that its record
    /// reads can be missed), and its provider's name.
    fn identify(&self, out: &mut Vec<u8>) {
        // Serialized whole (postcard's encoding says where each field ends). Every field
        // serializes; were one not to, a mark still makes a fingerprint of its own.
        let at = out.len();
        if postcard::to_io(self.incident.as_ref(), &mut *out).is_err() {
            out.truncate(at);
            out.extend_from_slice(b"\0unserializable");
        }
        shards::field(out, self.provider);
    }
}

/// A record's facets: `provider`, `impact`, `year`, `component`, `region`, those it has.
fn filters(incident: &Incident, provider: &str) -> shards::Filters {
    let impact = incident.impact;
    let filters = [
        ("provider", vec![provider.to_string()]),
        ("impact", vec![impact.label().to_string()]),
        ("year", vec![incident.started.year().to_string()]),
        ("component", incident.components.clone()),
        ("region", incident.regions.clone()),
    ];
    filters
        .into_iter()
        .filter(|(_, values)| !values.is_empty())
        .map(|(key, values)| (key.to_string(), values))
        .collect()
}

fn record(incident: &Incident, provider: &str) -> Record {
    let mut text = String::with_capacity(incident.summary.len() + 64 * incident.updates.len());
    markdown::push_text(&mut text, &incident.summary);
    for update in &incident.updates {
        markdown::push_text(&mut text, &update.body);
    }
    let started = TimeView::new(incident.started);
    let impact = incident.impact;
    let meta = [
        ("title", incident.title.clone()),
        ("provider", provider.to_string()),
        ("impact", impact.label().to_string()),
        ("impact_key", impact.keyword().to_string()),
        ("date", started.date.clone()),
        // A visitor may look for the month by name: `March 2024`.
        (
            "month",
            format!("{} {}", month_name(started.at.month()), started.year),
        ),
        (
            "duration",
            // Not "ongoing": the index is not made again when an incident goes stale.
            match crate::numbers::recorded_duration(incident) {
                Some(duration) => duration.to_string(),
                None if incident.is_ongoing() => "Unresolved".to_string(),
                None => "Duration not recorded".to_string(),
            },
        ),
        ("components", incident.components.join(", ")),
        ("regions", incident.regions.join(", ")),
    ];
    Record {
        url: format!(
            "/{}",
            routes::incident_dir(incident.provider.as_str(), incident.slug.as_str())
        ),
        content: text,
        meta: meta
            .into_iter()
            .filter(|(_, value)| !value.is_empty())
            .map(|(key, value)| (key.to_string(), value))
            .collect(),
        filters: filters(incident, provider),
        sort: BTreeMap::from([("start".to_string(), started.iso)]),
    }
}

/// Why the index could not be built. The output is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The working folder cannot be read (a shell left in a folder deleted since), and
    /// Pagefind needs it.
    #[error(
        "the search index could not be built: the current folder cannot be read ({0}); `cd` into an existing folder and build again"
    )]
    NoWorkingFolder(std::io::Error),
    /// Pagefind failed (or the index's manifest could not be encoded), in its words.
    #[error("the search index could not be built: {0}")]
    Pagefind(String),
    /// Indexing panicked (caught by `serve`, which keeps the previous index).
    #[error("the search index could not be built (a bug in outages)")]
    Bug,
}

/// What a caller that indexes the same site again and again (`serve`) keeps of the last
/// index: each shard's very incidents (shared, not copied) and what their records came
/// to. A shard of the same incidents, by identity, is known again without a record made.
#[derive(Default)]
pub struct Memory {
    language: String,
    shards: HashMap<shards::ShardKey, Kept>,
    /// The words Pagefind was asked about, in the language of the last index.
    lexicon: Option<Arc<Lexicon>>,
    /// How many words the lexicon held when it was given back ([`Memory::with_words`]).
    words_given: usize,
}

/// One shard as the last index had it.
struct Kept {
    members: Vec<(Arc<Incident>, Arc<str>)>,
    summary: shards::Summary,
}

impl Memory {
    /// A memory of words only, as [`Memory::saved_words`] of an earlier process of this
    /// same program gave them (a build with the cache keeps them there): an edit then asks
    /// Pagefind about its new words, not every word of the archive again. Words saved by
    /// another program, or damaged, are not taken.
    pub(crate) fn with_words(saved: &[u8]) -> Memory {
        let Some(lexicon) = Lexicon::restored(saved) else {
            return Memory::default();
        };
        Memory {
            language: lexicon.language().to_string(),
            words_given: lexicon.count(),
            lexicon: Some(Arc::new(lexicon)),
            ..Memory::default()
        }
    }

    /// The words Pagefind was asked about, for [`Memory::with_words`]; `None` when there
    /// is nothing to add to what was given.
    pub(crate) fn saved_words(&self) -> Option<Vec<u8>> {
        let lexicon = self.lexicon.as_ref()?;
        (lexicon.count() != self.words_given).then(|| lexicon.saved())
    }

    /// The words known in `language`: those of the last index, if it was in it.
    fn lexicon(&mut self, language: &str) -> Arc<Lexicon> {
        match &self.lexicon {
            Some(lexicon) if lexicon.language() == language => lexicon.clone(),
            _ => {
                let lexicon = Arc::new(Lexicon::new(language));
                self.lexicon = Some(lexicon.clone());
                self.words_given = 0;
                lexicon
            }
        }
    }

    fn recall(&self, shard: &shards::Shard<Indexed>, language: &str) -> Option<shards::Summary> {
        let kept = self.shards.get(shard.key())?;
        let members = shard.members();
        let same = self.language == language
            && kept.members.len() == members.len()
            && kept
                .members
                .iter()
                .zip(members)
                .all(|((incident, name), indexed)| {
                    Arc::ptr_eq(incident, indexed.incident) && name == indexed.provider
                });
        same.then(|| kept.summary.clone())
    }

    fn keep(&mut self, made: &[shards::Made<Indexed>], language: &str) {
        self.language = language.to_string();
        self.shards = made
            .iter()
            .filter_map(|made| {
                let shard = made.shard();
                let members = shard.members().iter();
                let kept = Kept {
                    members: members
                        .map(|indexed| (indexed.incident.clone(), indexed.provider.clone()))
                        .collect(),
                    summary: made.summary()?,
                };
                Some((shard.key().clone(), kept))
            })
            .collect();
    }
}

/// The index of `incidents`, each with its provider's name as the pages show it: each
/// shard's files (taken again from the last index, read with `read`, where its records
/// are the same), the script and WebAssembly that search them, the list of shards the
/// search page merges, and the state file that says what was indexed. Every file by its
/// site path under `pagefind/`, sorted; the same incidents give the same bytes, whatever
/// the threads. `memory` is what the last index in this process left, and takes what this
/// one leaves.
pub fn index(
    incidents: &[Arc<Incident>],
    provider_names: &[Arc<str>],
    language: &str,
    read: impl Fn(&str) -> Option<Vec<u8>> + Sync,
    memory: &mut Memory,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    // Pagefind reads the working folder, and panics if it is gone (a shell left in a
    // folder deleted since): the build's error instead.
    std::env::current_dir().map_err(Error::NoWorkingFolder)?;
    let indexed = incidents
        .iter()
        .zip(provider_names)
        .map(|(incident, provider)| Indexed { incident, provider })
        .collect();
    let shards = shards::split(indexed, Indexed::year, Indexed::order);
    let last = read(routes::SEARCH_INDEX_STATE);
    let last = last.as_deref().and_then(state::State::parse);
    let lexicon = memory.lexicon(language);
    let recall = |shard: &shards::Shard<Indexed>| memory.recall(shard, language);
    let made = shards::build(shards, recall, &lexicon, last.as_ref(), &read)?;
    memory.keep(&made, language);
    let mut files = shards::files(made, &lexicon, last.as_ref(), &read)?;
    files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::shards::Member;
    use super::*;
    use crate::model::{Impact, Status, Update};

    fn incident() -> Incident {
        let at = |text: &str| {
            chrono::DateTime::parse_from_rfc3339(text)
                .unwrap()
                .with_timezone(&chrono::Utc)
        };
        Incident {
            title: "API errors".into(),
            resolved: Some(at("2024-03-05T11:00:00Z")),
            impact: Impact::Major,
            components: vec!["API".into(), "Edge (AMS)".into()],
            regions: vec!["eu".into()],
            summary: "Some **calls** failed.".into(),
            updates: vec![Update {
                at: at("2024-03-05T10:00:00Z"),
                status: Status::Investigating,
                body: "We are looking.".into(),
            }],
            ..Incident::bare("acme", "api-errors", at("2024-03-05T10:00:00Z"))
        }
    }

    fn identity(incident: &Incident, provider: &str) -> Vec<u8> {
        let incident = Arc::new(incident.clone());
        let provider: Arc<str> = provider.into();
        let mut bytes = Vec::new();
        Indexed {
            incident: &incident,
            provider: &provider,
        }
        .identify(&mut bytes);
        bytes
    }

    #[test]
    fn a_record_has_the_facets_that_are_counted_without_it() {
        let incident = Arc::new(incident());
        let provider: Arc<str> = "Acme".into();
        let indexed = Indexed {
            incident: &incident,
            provider: &provider,
        };
        let filters = indexed.filters();
        assert_eq!(indexed.record().filters, filters);
        assert_eq!(filters["component"], ["API", "Edge (AMS)"]);
        assert_eq!(filters["year"], ["2024"]);
        assert!(!filters.contains_key("level"));
    }

    #[test]
    fn an_incident_is_known_again_until_anything_its_record_reads_changes() {
        let base = incident();
        let known = identity(&base, "Acme");
        assert_eq!(known, identity(&base.clone(), "Acme"));
        assert_ne!(known, identity(&base, "Acme Cloud"), "the provider's name");
        let edits: [fn(&mut Incident); 8] = [
            |i| i.title.push('!'),
            |i| i.summary.push('!'),
            |i| i.updates[0].body.push('!'),
            |i| i.updates[0].status = Status::Resolved,
            |i| i.impact = Impact::Critical,
            |i| i.components.pop().map(drop).unwrap_or_default(),
            |i| i.regions.push("us".into()),
            |i| i.resolved = None,
        ];
        for (n, edit) in edits.into_iter().enumerate() {
            let mut other = base.clone();
            edit(&mut other);
            assert_ne!(known, identity(&other, "Acme"), "edit {n}");
        }
    }
}
