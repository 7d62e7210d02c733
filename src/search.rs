//! The search index: every incident as one Pagefind record (its words, what a result shows,
//! the facets it can be filtered by), and the chunked index files the browser loads piece
//! by piece from `pagefind/`. Built from the model and its views, never from HTML pages.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::Datelike;
use rayon::prelude::*;

use crate::model::Incident;
use crate::render::markdown;
use crate::render::views::{IncidentView, month_name};
use crate::routes;

/// One incident as Pagefind indexes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The incident page's path from the site's root: `/acme/2024-03-01-api/`. Pagefind's
    /// script puts the folder the index is served from in front (`/repo/`), so the index
    /// is the same under any base URL.
    pub url: String,
    /// The words of its summary, updates and postmortem, escaped as HTML text: Pagefind
    /// returns excerpts of it with `<mark>` around the matches, and no other tag.
    pub content: String,
    /// What a result shows (each also searchable): `title`, `provider`, `impact`,
    /// `impact_key`, `date`, `month`, `duration`, `components`, `regions`. Escaped as
    /// HTML text, as Pagefind's own UIs expect of an index.
    pub meta: BTreeMap<String, String>,
    /// The facets: `provider`, `impact`, `year`, `component`, `region`. Escaped alike.
    pub filters: BTreeMap<String, Vec<String>>,
    /// `start`: the start time as RFC 3339 UTC, which sorts as text.
    pub sort: BTreeMap<String, String>,
}

/// Pagefind's files that the search page does not load: its own UIs (the theme has one
/// of its own, over the JS API).
const UNUSED: [&str; 4] = [
    "pagefind-ui.",
    "pagefind-component-ui.",
    "pagefind-modular-ui.",
    "pagefind-highlight.",
];

/// Every incident's record, in archive order (so the index is the same whatever the
/// threads).
pub fn records(incidents: &[Arc<Incident>], views: &[Arc<IncidentView>]) -> Vec<Record> {
    incidents
        .par_iter()
        .zip(views.par_iter())
        .map(|(incident, view)| record(incident, view))
        .collect()
}

fn record(incident: &Incident, view: &IncidentView) -> Record {
    let summary = &view.summary;
    let mut text = String::with_capacity(incident.summary.len() + 64 * incident.updates.len());
    markdown::push_text(&mut text, &incident.summary);
    for update in &incident.updates {
        markdown::push_text(&mut text, &update.body);
    }
    let started = summary.started.at;
    let meta = [
        ("title", summary.title.clone()),
        ("provider", summary.provider.name.clone()),
        ("impact", summary.impact.label.to_string()),
        ("impact_key", summary.impact.keyword.to_string()),
        ("date", summary.started.date.clone()),
        // A visitor may look for the month by name: `March 2024`.
        (
            "month",
            format!("{} {}", month_name(started.month()), started.year()),
        ),
        (
            "duration",
            match &summary.duration {
                Some(duration) if !summary.ongoing => duration.clone(),
                _ => "Ongoing".to_string(),
            },
        ),
        ("components", view.components.join(", ")),
        ("regions", view.regions.join(", ")),
    ];
    let filters = [
        ("provider", vec![summary.provider.name.clone()]),
        ("impact", vec![summary.impact.label.to_string()]),
        ("year", vec![summary.started.year.to_string()]),
        ("component", view.components.clone()),
        ("region", view.regions.clone()),
    ];
    Record {
        url: format!(
            "/{}",
            routes::incident_dir(incident.provider.as_str(), incident.slug.as_str())
        ),
        content: escape(&text),
        meta: meta
            .into_iter()
            .filter(|(_, value)| !value.is_empty())
            .map(|(key, value)| (key.to_string(), escape(&value)))
            .collect(),
        filters: filters
            .into_iter()
            .filter(|(_, values)| !values.is_empty())
            .map(|(key, values)| (key.to_string(), values.iter().map(|v| escape(v)).collect()))
            .collect(),
        sort: BTreeMap::from([("start".to_string(), summary.started.iso.clone())]),
    }
}

/// Text as HTML text: `<`, `>` and `&` as references.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// The index files of `records`, by site path under `pagefind/`, sorted. Pagefind names
/// its files by a hash of their bytes, and the same records in the same order give the
/// same bytes.
pub fn index(records: Vec<Record>, language: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    use pagefind::api::PagefindIndex;
    use pagefind::options::PagefindServiceConfig;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    let options = PagefindServiceConfig::builder()
        .force_language(language.to_string())
        .build();
    runtime.block_on(async {
        let mut index = PagefindIndex::new(Some(options)).map_err(failed)?;
        for record in records {
            index
                .add_custom_record(
                    record.url,
                    record.content,
                    language.to_string(),
                    Some(record.meta),
                    Some(record.filters),
                    Some(record.sort),
                )
                .await
                .map_err(failed)?;
        }
        let files = index.get_files().await.map_err(failed)?;
        let mut files: Vec<(String, Vec<u8>)> = files
            .into_iter()
            .filter_map(|file| {
                let name = file.filename.to_str()?.replace('\\', "/");
                (!UNUSED.iter().any(|unused| name.starts_with(unused)))
                    .then(|| (format!("{}{name}", routes::SEARCH_INDEX_DIR), file.contents))
            })
            .collect();
        files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(files)
    })
}

fn failed(error: impl std::fmt::Display) -> String {
    format!("the search index could not be built: {error}")
}
