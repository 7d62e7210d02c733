//! The house's one rule of shape: the modules of `src/` call one way. Data flows from files
//! to the model, the archive, the pages and the disk, and no module reaches another that
//! reaches it back (tests inside a module may look anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The top-level modules each module of `src/` names through `crate::`, outside its tests
/// and comments, with the files that do.
fn calls() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(ROOT).join("src");
    let mut calls: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let module = relative.split('/').next().unwrap().trim_end_matches(".rs");
        // A module's `tests.rs` is its `#[cfg(test)] mod tests`, split off.
        if module == "main" || module == "lib" || relative.ends_with("/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        // Tests inside a module may look anywhere.
        let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let rest = &line[at + "crate::".len()..];
                assert!(
                    !rest.starts_with('{'),
                    "{relative}: name one module per `crate::` path, so this check reads it: {line}"
                );
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    calls
                        .entry(module.to_string())
                        .or_default()
                        .entry(name)
                        .or_default()
                        .insert(relative.clone());
                }
            }
        }
    }
    calls
}

#[test]
fn no_module_reaches_one_that_reaches_it_back() {
    let calls = calls();
    assert!(calls.len() > 10, "the modules were read: {calls:?}");
    // A path from `to` back to `from`, if there is one.
    let back = |from: &str, to: &str| -> Option<Vec<String>> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![vec![to.to_string()]];
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for next in calls.get(last).into_iter().flat_map(|m| m.keys()) {
                if next == from {
                    let mut whole = path.clone();
                    whole.push(next.clone());
                    return Some(whole);
                }
                if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push(longer);
                }
            }
        }
        None
    };
    let mut circles = Vec::new();
    for (from, named) in &calls {
        for (to, files) in named {
            if let Some(path) = back(from, to) {
                circles.push(format!("{from} -> {} (from {files:?})", path.join(" -> ")));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules that call each other:\n{}",
        circles.join("\n")
    );
}
