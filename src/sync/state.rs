//! What `sync` remembers between runs: each URL's validators (`ETag`, `Last-Modified`), and
//! the status pages whose whole history is in the archive, in `sync.json` of the cache
//! folder, never in `content/`. Losing it costs one full fetch of each page and one walk of
//! each history (which fetches only what the archive lacks), nothing else, so a damaged
//! file is set aside with a warning.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::fetch::Validators;

const FILE: &str = "sync.json";
const VERSION: u32 = 1;

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct State {
    version: u32,
    /// By URL.
    validators: BTreeMap<String, Validators>,
    /// The status pages (their history's first page) whose every listed incident is in.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    histories: BTreeSet<String>,
}

impl State {
    /// Reads the state in `dir`: empty when there is none, and a warning when it is damaged.
    pub fn load(dir: &Path) -> (State, Option<String>) {
        let path = dir.join(FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return (State::default(), None),
            Err(e) => return (State::default(), Some(unusable(&path, &e.to_string()))),
        };
        match serde_json::from_slice::<State>(&bytes) {
            Ok(state) if state.version == VERSION => (state, None),
            Ok(_) => (State::default(), None),
            Err(e) => (State::default(), Some(unusable(&path, &e.to_string()))),
        }
    }

    pub fn get(&self, url: &str) -> Option<&Validators> {
        self.validators.get(url)
    }

    /// Remembers what the server said of `url`, or forgets it (`None`), so the next run
    /// fetches it whole.
    pub fn set(&mut self, url: &str, validators: Option<Validators>) {
        match validators {
            Some(validators) => self.validators.insert(url.to_string(), validators),
            None => self.validators.remove(url),
        };
    }

    /// Whether the history starting at `url` was read to its end, every incident written.
    pub fn has_history(&self, url: &str) -> bool {
        self.histories.contains(url)
    }

    /// Remembers that the history at `url` is all in, so later syncs do not walk it.
    pub fn finish_history(&mut self, url: &str) {
        self.histories.insert(url.to_string());
    }

    /// Writes the state into `dir`, aside first, then renamed over the old one.
    pub fn save(&self, dir: &Path) -> io::Result<()> {
        let state = State {
            version: VERSION,
            validators: self.validators.clone(),
            histories: self.histories.clone(),
        };
        let mut text = serde_json::to_string_pretty(&state).map_err(io::Error::other)?;
        text.push('\n');
        crate::cache::write_aside(dir, FILE, |path| std::fs::write(path, text))
    }
}

fn unusable(path: &Path, why: &str) -> String {
    format!(
        "{} cannot be used ({why}); every status page is fetched whole this time",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_damage_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = State::default();
        let etag = Validators {
            etag: Some("\"abc\"".into()),
            last_modified: None,
        };
        state.set("https://a/x.json", Some(etag.clone()));
        state.set("https://a/y.json", Some(etag.clone()));
        state.set("https://a/y.json", None);
        state.finish_history("https://a/history.json?page=1");
        state.save(dir.path()).unwrap();
        let (read, warning) = State::load(dir.path());
        assert_eq!(warning, None);
        assert_eq!(read.get("https://a/x.json"), Some(&etag));
        assert_eq!(read.get("https://a/y.json"), None);
        assert!(read.has_history("https://a/history.json?page=1"));
        assert!(!read.has_history("https://b/history.json?page=1"));
        assert!(dir.path().join("CACHEDIR.TAG").exists());
        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        let (read, warning) = State::load(dir.path());
        assert_eq!(read.get("https://a/x.json"), None);
        assert!(warning.unwrap().contains("fetched whole"));
    }
}
