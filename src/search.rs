//! The search index: every incident as one Pagefind record (its words, what a result shows,
//! the facets it can be filtered by), and the chunked index files the browser loads piece
//! by piece from `pagefind/`. Built from the model, never from HTML pages.

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
    }
}

/// What an index is made from: the records, the language, and this very program (its
/// Pagefind and its way of filtering Pagefind's files). Two builds with one fingerprint
/// make the same index.
pub fn fingerprint(records: &[Record], language: &str) -> String {
    let program = crate::cache::program();
    let mut hasher = blake3::Hasher::new();
    hasher.update(program);
    fn field(hasher: &mut blake3::Hasher, text: &str) {
        hasher.update(&(text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    // Every field and every count, so that no two sets of records read the same.
    fn count(n: usize, hasher: &mut blake3::Hasher) {
        hasher.update(&(n as u64).to_le_bytes());
    }
    count(records.len(), &mut hasher);
    field(&mut hasher, language);
    for record in records {
        field(&mut hasher, &record.url);
        field(&mut hasher, &record.content);
        for map in [&record.meta, &record.sort] {
            count(map.len(), &mut hasher);
            for (key, value) in map {
                field(&mut hasher, key);
                field(&mut hasher, value);
            }
        }
        count(record.filters.len(), &mut hasher);
        for (key, values) in &record.filters {
            field(&mut hasher, key);
            count(values.len(), &mut hasher);
            for value in values {
                field(&mut hasher, value);
            }
        }
    }
    hasher.finalize().to_hex().to_string()
}

const STATE_HEADER: &str = "outages search index 1";

/// The state file of an index: its fingerprint, then each file's hash and path.
pub fn state(fingerprint: &str, files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = format!("{STATE_HEADER}\n{fingerprint}\n");
    for (path, bytes) in files {
        out.push_str(&format!("{} {path}\n", blake3::hash(bytes).to_hex()));
    }
    out.into_bytes()
}

/// The files of the last build's index, read with `read`, if its state says it was made
/// from the same fingerprint and every file is there with the bytes it had. Anything else
/// (no state, another fingerprint, a file missing, changed or outside `pagefind/`) is `None`:
/// the index is built again, never trusted.
pub fn reusable(
    state: &[u8],
    fingerprint: &str,
    read: impl Fn(&str) -> Option<Vec<u8>> + Sync,
) -> Option<Vec<(String, Vec<u8>)>> {
    let text = std::str::from_utf8(state).ok()?;
    let mut lines = text.lines();
    if lines.next() != Some(STATE_HEADER) || lines.next() != Some(fingerprint) {
        return None;
    }
    let listed: Vec<(&str, &str)> = lines
        .map(|line| line.split_once(' '))
        .collect::<Option<_>>()?;
    // As `state` writes it: sorted, each path once.
    if !listed.windows(2).all(|pair| pair[0].1 < pair[1].1) {
        return None;
    }
    let files: Vec<(String, Vec<u8>)> = listed
        .par_iter()
        .map(|&(hash, path)| {
            let inside =
                path.starts_with(routes::SEARCH_INDEX_DIR) && path != routes::SEARCH_INDEX_STATE;
            let bytes = read(path)
                .filter(|bytes| inside && blake3::hash(bytes).to_hex().as_str() == hash)?;
            Some((path.to_string(), bytes))
        })
        .collect::<Option<_>>()?;
    (!files.is_empty()).then_some(files)
}

/// The index files of `records`, by site path under `pagefind/`, sorted. Pagefind names
/// its files by a hash of their bytes, and the same records in the same order give the
/// same bytes.
pub fn index(records: Vec<Record>, language: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    use pagefind::api::PagefindIndex;
    use pagefind::options::PagefindServiceConfig;

    // Pagefind reads the working folder, and panics if it is gone (a shell left in a
    // folder deleted since): the build's error instead.
    std::env::current_dir().map_err(|e| {
        failed(format!(
            "the current folder cannot be read ({e}); `cd` into an existing folder and build again"
        ))
    })?;
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn files() -> Vec<(String, Vec<u8>)> {
        // Sorted by path, as `index` gives them.
        vec![
            (
                "pagefind/fragment/en_1.pf_fragment".to_string(),
                b"one".to_vec(),
            ),
            ("pagefind/pagefind.js".to_string(), b"js".to_vec()),
        ]
    }

    fn reader(files: &[(String, Vec<u8>)]) -> impl Fn(&str) -> Option<Vec<u8>> + Sync {
        let map: BTreeMap<String, Vec<u8>> = files.iter().cloned().collect();
        move |path: &str| map.get(path).cloned()
    }

    #[test]
    fn an_index_is_reused_only_when_all_of_it_is_as_it_was() {
        let files = files();
        let written = state("abc", &files);
        assert_eq!(
            reusable(&written, "abc", reader(&files)),
            Some(files.clone())
        );
        assert_eq!(
            reusable(&written, "abd", reader(&files)),
            None,
            "other records"
        );
        let mut changed = files.clone();
        changed[0].1 = b"tampered".to_vec();
        assert_eq!(
            reusable(&written, "abc", reader(&changed)),
            None,
            "a file changed"
        );
        assert_eq!(
            reusable(&written, "abc", reader(&files[..1])),
            None,
            "a file gone"
        );
        assert_eq!(reusable(b"garbage\nabc\n", "abc", reader(&files)), None);
        assert_eq!(reusable(b"", "abc", reader(&files)), None);
        let mut twice = files.clone();
        twice.push(files[1].clone());
        assert_eq!(
            reusable(&state("abc", &twice), "abc", reader(&files)),
            None,
            "a path twice"
        );
        // A state that names a file outside the index is not followed.
        let outside = vec![("index.html".to_string(), b"page".to_vec())];
        let forged = state("abc", &outside);
        assert_eq!(reusable(&forged, "abc", reader(&outside)), None);
    }

    #[test]
    fn the_fingerprint_follows_every_field_of_every_record() {
        let record = Record {
            url: "/a/b/".to_string(),
            content: "words".to_string(),
            meta: BTreeMap::from([("title".to_string(), "T".to_string())]),
            filters: BTreeMap::from([("year".to_string(), vec!["2024".to_string()])]),
            sort: BTreeMap::from([("start".to_string(), "2024-01-01T00:00:00Z".to_string())]),
        };
        let base = fingerprint(std::slice::from_ref(&record), "en");
        assert_eq!(base, fingerprint(std::slice::from_ref(&record), "en"));
        assert_ne!(base, fingerprint(std::slice::from_ref(&record), "de"));
        // A meta entry moved to the sort keys: the same words, another record.
        let mut moved = record.clone();
        moved.meta.clear();
        moved.sort.insert("title".into(), "T".into());
        assert_ne!(base, fingerprint(&[moved], "en"));
        let edits: [fn(&mut Record); 5] = [
            |r| r.url.push('x'),
            |r| r.content.push('x'),
            |r| {
                r.meta
                    .insert("title".into(), "U".into())
                    .map(drop)
                    .unwrap_or(())
            },
            |r| {
                r.filters
                    .insert("year".into(), vec!["2025".into()])
                    .map(drop)
                    .unwrap_or(())
            },
            |r| {
                r.sort
                    .insert("start".into(), "2025".into())
                    .map(drop)
                    .unwrap_or(())
            },
        ];
        for edit in edits {
            let mut other = record.clone();
            edit(&mut other);
            assert_ne!(base, fingerprint(&[other], "en"));
        }
    }
}
