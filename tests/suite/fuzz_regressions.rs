//! Replays every input the fuzzers found (`tests/fixtures/fuzz/<target>/`) through the
//! property of the target that found it (`fuzz/src/lib.rs`, included here): no panic, the
//! property holds, and it finishes in bounded time.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod properties;

use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Generous for a debug build; the inputs that once stalled took minutes.
const BOUND: Duration = Duration::from_secs(20);

#[test]
fn every_saved_fuzz_finding_holds_its_property() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for folder in std::fs::read_dir(&root).expect("tests/fixtures/fuzz exists") {
        let folder = folder.unwrap().path();
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let Some(&(_, property)) = properties::TARGETS.iter().find(|(t, _)| *t == name) else {
            panic!("{} is not named after a fuzz target", folder.display());
        };
        let mut inputs: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        inputs.sort();
        for input in inputs {
            let data = std::fs::read(&input).unwrap();
            let (done, finished) = mpsc::channel();
            let start = Instant::now();
            thread::spawn(move || {
                property(&data);
                let _ = done.send(());
            });
            let shown = input.strip_prefix(&root).unwrap().display().to_string();
            match finished.recv_timeout(BOUND) {
                Ok(()) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    failures.push(format!("{shown}: still running after {BOUND:?}"))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => failures.push(format!(
                    "{shown}: the property failed after {:?} (its panic is above)",
                    start.elapsed()
                )),
            }
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no saved finding under {}", root.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
