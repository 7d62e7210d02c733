//! The search index: every incident as one Pagefind record (its words, what a result shows,
//! the facets it can be filtered by), indexed in shards (`shards`) that the search page
//! merges in the browser, each a Pagefind bundle of chunked files under `pagefind/`
//! (`bundle`). Built from the model, never from HTML pages.

mod bundle;
mod shards;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::Datelike;
use rayon::prelude::*;

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
    /// The year it started, which picks its shard.
    pub year: i32,
}

/// Every incident's record, in archive order (so the index is the same whatever the
/// threads), each with its provider's name as the pages show it
/// ([`crate::render::views::IncidentViews::provider_names`]). Made from the model alone:
/// no view is made for it.
pub fn records(incidents: &[Arc<Incident>], provider_names: &[Arc<str>]) -> Vec<Record> {
    incidents
        .par_iter()
        .zip(provider_names.par_iter())
        .map(|(incident, name)| record(incident, name))
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
            match crate::insight::recorded_duration(incident) {
                Some(duration) => duration.to_string(),
                None if incident.is_ongoing() => "Unresolved".to_string(),
                None => "Duration not recorded".to_string(),
            },
        ),
        ("components", incident.components.join(", ")),
        ("regions", incident.regions.join(", ")),
    ];
    let filters = [
        ("provider", vec![provider.to_string()]),
        ("impact", vec![impact.label().to_string()]),
        ("year", vec![started.year.to_string()]),
        ("component", incident.components.clone()),
        ("region", incident.regions.clone()),
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
        filters: filters
            .into_iter()
            .filter(|(_, values)| !values.is_empty())
            .map(|(key, values)| (key.to_string(), values))
            .collect(),
        sort: BTreeMap::from([("start".to_string(), started.iso)]),
        year: incident.started.year(),
    }
}

/// Why the index could not be built. The output is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "the search index could not be built: the current folder cannot be read ({0}); `cd` into an existing folder and build again"
    )]
    NoWorkingFolder(std::io::Error),
    #[error("the search index could not be built: {0}")]
    Pagefind(String),
    #[error("the search index could not be built (a bug in outages)")]
    Bug,
}

/// The index of `records`: each shard's files (taken again from the last index, read with
/// `read`, where its records are the same), the script and WebAssembly that search them,
/// the list of shards the search page merges, and the state file that says what was
/// indexed. Every file by its site path under `pagefind/`, sorted; the same records give
/// the same bytes, whatever the threads.
pub fn index(
    records: Vec<Record>,
    language: &str,
    read: impl Fn(&str) -> Option<Vec<u8>> + Sync,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    // Pagefind reads the working folder, and panics if it is gone (a shell left in a
    // folder deleted since): the build's error instead.
    std::env::current_dir().map_err(Error::NoWorkingFolder)?;
    let facets = facets(&records);
    let shards = shards::split(records);
    let last = read(routes::SEARCH_INDEX_STATE);
    let last = last.as_deref().and_then(shards::State::parse);
    let made = shards::build(shards, language, last.as_ref(), &read)?;
    let mut files = shards::files(made, facets, language, last.as_ref(), &read)?;
    files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// Every value of every facet with the number of records that have it: what the search
/// page offers before a search, without loading every shard's filters.
fn facets(records: &[Record]) -> serde_json::Value {
    let mut facets: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for record in records {
        for (name, values) in &record.filters {
            let counts = facets.entry(name).or_default();
            for value in values {
                *counts.entry(value).or_default() += 1;
            }
        }
    }
    serde_json::json!(facets)
}
