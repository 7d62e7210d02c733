//! The preview's search index, kept in step with the site on a thread of its own: a
//! rebuild never waits for it. Until a new index is in, searches answer from the last one,
//! and a page opened on the last one keeps working after the swap.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, PoisonError};
use std::time::Instant;

use crate::model::Incident;
use crate::routes::SEARCH_INDEX_DIR;
use crate::search;
use crate::serve::Shared;
use crate::site::Site;

/// What to index: the site's incidents and their providers' names (shared, not copied), or
/// nothing when the site has no search.
struct Job {
    incidents: Vec<Arc<Incident>>,
    provider_names: Vec<Arc<str>>,
    language: String,
}

pub struct Indexer {
    jobs: Sender<Option<Job>>,
}

impl Indexer {
    /// Starts the thread that builds each index and swaps it into the served files.
    pub fn start(shared: Arc<Shared>) -> Indexer {
        let (jobs, queue) = mpsc::channel();
        std::thread::spawn(move || work(&queue, &shared));
        Indexer { jobs }
    }

    /// Asks for an index of the site as it is now.
    pub fn refresh(&self, site: &Site) {
        let job = site.config.search.then(|| Job {
            incidents: site.archive.incidents.clone(),
            provider_names: site.views.incidents.provider_names(),
            language: site.config.language.clone(),
        });
        let _ = self.jobs.send(job);
    }
}

fn work(queue: &Receiver<Option<Job>>, shared: &Shared) {
    // Pagefind works in parallel where it can, in whatever pool it runs in: a pool of one
    // thread here, so that the rebuild after the next edit always finds a core free.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
    let mut previous = HashSet::new();
    // What the last index made of each shard: after an edit, only the edited incident's
    // shard has its records made again.
    let mut memory = search::Memory::default();
    while let Ok(mut job) = queue.recv() {
        // Edits that came while the last index was built: only the newest site counts.
        while let Ok(newer) = queue.try_recv() {
            job = newer;
        }
        let start = Instant::now();
        let files = match &job {
            None => Vec::new(),
            Some(job) => {
                // The shards whose records are as they were come from the files served.
                let served = |path: &str| {
                    let store = shared.store.read().unwrap_or_else(PoisonError::into_inner);
                    store.files.get(path).map(|bytes| bytes.to_vec())
                };
                let memory = &mut memory;
                let mut index = || {
                    let (incidents, names) = (&job.incidents, &job.provider_names);
                    search::index(incidents, names, &job.language, served, memory)
                };
                // A panic (a bug) ends this index, not the thread: the next edit tries again.
                let built = catch_unwind(AssertUnwindSafe(|| match &pool {
                    Some(pool) => pool.install(index),
                    None => index(),
                }))
                .unwrap_or(Err(search::Error::Bug));
                match built {
                    Ok(files) => files,
                    Err(error) => {
                        eprintln!("error: {error}; searches use the previous index");
                        continue;
                    }
                }
            }
        };
        if job.is_none() {
            // Search turned off: nothing of an index stays.
            previous.clear();
            memory = search::Memory::default();
        }
        let paths: HashSet<String> = files.iter().map(|(path, _)| path.clone()).collect();
        let mut store = shared.store.write().unwrap_or_else(PoisonError::into_inner);
        // The previous index's files stay too: a search page opened before this swap has
        // its entry file, and goes on fetching the chunks and records it names.
        store.files.retain(|path, _| {
            !path.starts_with(SEARCH_INDEX_DIR) || paths.contains(path) || previous.contains(path)
        });
        store.files.extend(
            files
                .into_iter()
                .map(|(path, bytes)| (path, Arc::from(bytes))),
        );
        drop(store);
        previous = paths;
        if let Some(job) = job {
            println!(
                "search index: {} indexed in {} ms",
                crate::diagnostics::count(job.incidents.len(), "incident"),
                start.elapsed().as_millis()
            );
        }
    }
}
