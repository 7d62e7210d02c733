//! One Pagefind bundle: a shard's records indexed by Pagefind's own indexer, its files by
//! name inside the bundle. Records are grouped a few to a fragment file, so that search
//! does not write a file per incident.

use super::{Error, Record};

/// Pagefind's files that the search page does not load: its own UIs (the theme has one
/// of its own, over the JS API).
const UNUSED: [&str; 4] = [
    "pagefind-ui.",
    "pagefind-component-ui.",
    "pagefind-modular-ui.",
    "pagefind-highlight.",
];

/// The files that search rather than hold records, the same in every bundle: shipped once,
/// with the bundle the search page opens first.
const RUNTIME: [&str; 3] = ["pagefind.js", "pagefind-worker.js", "wasm."];

/// Records to a fragment file: a result list of neighbours in time fetches a few files,
/// not one per result, and an archive writes an eighth of the files.
const RECORDS_PER_FILE: usize = 8;

/// A bundle's files, by name inside it: those of its records, and the runtime.
pub(super) struct Bundle {
    pub records: Vec<(String, Vec<u8>)>,
    pub runtime: Vec<(String, Vec<u8>)>,
}

/// Whether a bundle's file is part of the runtime, not of its records.
fn is_runtime(name: &str) -> bool {
    RUNTIME.iter().any(|runtime| name.starts_with(runtime))
}

/// Indexes `records` in the order given (Pagefind numbers its pages in it, and the same
/// records in the same order give the same bytes).
pub(super) fn bundle(records: Vec<Record>, language: &str) -> Result<Bundle, Error> {
    use pagefind::api::PagefindIndex;
    use pagefind::options::PagefindServiceConfig;

    let files = u32::try_from(records.len().div_ceil(RECORDS_PER_FILE)).unwrap_or(u32::MAX);
    let options = PagefindServiceConfig::builder()
        .force_language(language.to_string())
        .max_fragments(files.max(1))
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(failed)?;
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
        let mut bundle = Bundle {
            records: Vec::new(),
            runtime: Vec::new(),
        };
        for file in files {
            let Some(name) = file.filename.to_str().map(|name| name.replace('\\', "/")) else {
                continue;
            };
            if UNUSED.iter().any(|unused| name.starts_with(unused)) {
                continue;
            }
            let to = if is_runtime(&name) {
                &mut bundle.runtime
            } else {
                &mut bundle.records
            };
            to.push((name, file.contents));
        }
        Ok(bundle)
    })
}

fn failed(error: impl std::fmt::Display) -> Error {
    Error::Pagefind(error.to_string())
}
