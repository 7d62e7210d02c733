//! Gives the program an identity of what it is built from (its sources, embedded theme,
//! locked dependencies, compiler and target): `OUTAGES_BUILD_ID`. The build cache and the
//! search index are kept only for the same identity, and, unlike a hash of the binary, it
//! is known at no cost and the same for every build of the same sources (a CI runner
//! building again what it built yesterday keeps its cache).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let mut files = Vec::new();
    for dir in ["src", "templates", "static"] {
        println!("cargo:rerun-if-changed={dir}");
        collect(Path::new(dir), &mut files);
    }
    for file in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        println!("cargo:rerun-if-changed={file}");
        files.push(PathBuf::from(file));
    }
    files.sort();
    // SipHash with fixed keys, twice with different prefixes: 128 bits, the same on every
    // machine for the same compiler (whose version is hashed too).
    let mut halves = [DefaultHasher::new(), DefaultHasher::new()];
    for (n, hasher) in halves.iter_mut().enumerate() {
        n.hash(hasher);
        for file in &files {
            file.hash(hasher);
            std::fs::read(file).unwrap_or_default().hash(hasher);
        }
        for var in ["TARGET", "PROFILE", "CARGO_ENCODED_RUSTFLAGS"] {
            std::env::var(var).unwrap_or_default().hash(hasher);
        }
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
        let version = std::process::Command::new(rustc)
            .arg("-vV")
            .output()
            .map(|o| o.stdout)
            .unwrap_or_default();
        version.hash(hasher);
    }
    let [a, b] = halves.map(|h| h.finish());
    println!("cargo:rustc-env=OUTAGES_BUILD_ID={a:016x}{b:016x}");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
