//! The markdown twins: each incident's `index.md` is a file that builds again as the same
//! incident. An archive made of nothing but the sample's twins (and its providers' files)
//! builds into the same site, byte for byte.

use std::collections::BTreeMap;

use crate::common::{Site, incident, select, stderr, tree};

const BASE: &str = "https://example.github.io/outages/";

/// Builds `root` into a new folder with the same base URL: its output, by path.
fn build(root: &std::path::Path) -> (tempfile::TempDir, BTreeMap<String, Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(["build", "--base-url", BASE, "--root"])
        .arg(root)
        .arg("--output")
        .arg(dir.path())
        .env_remove("CI")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let files = tree(dir.path());
    (dir, files)
}

#[test]
fn an_archive_of_the_sample_twins_builds_into_the_same_site() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // The sample, and one incident more that holds what the format must keep: a time to the
    // millisecond, a component with a comma, quotes, aliases, an import's source, `extra`.
    let extra = Site::new(&[]);
    for entry in walkdir::WalkDir::new(repo.join("content")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(repo).unwrap();
            let text = std::fs::read_to_string(entry.path()).unwrap();
            extra.write(relative.to_str().unwrap(), &text);
        }
    }
    extra.write(
        "content/edgewise-cdn/odd.md",
        "---\ntitle: 'Edge \"errors\": Paris, London & more'\nstarted: 2024-05-01T10:00:00.250Z\n\
         resolved: 2024-05-01T11:30:07Z\nimpact: Partial outage\nlevel: suspected\n\
         components: ['Europe / Paris, France - (CDG)', \"London\"]\nregions: [eu, 'us, east']\n\
         id: ODD-1\naliases: [/old/odd/]\n\
         source: {kind: statuspage, id: abc123, imported: \"title=08d63d3b\"}\n\
         extra: {team: edge, tags: [a, b], sev: 2}\n---\n\
         Summary with *emphasis* and a \\\\ backslash.\n\n## Updates\n\
         ### 2024-05-01T10:00:03.500Z: investigating\nLooking_into it.\n\n\
         ### 2024-05-01 11:30 UTC: resolved\nDone.\n\n\
         ### 2024-05-09 09:00 UTC: postmortem\n## **Cause**\nA \\\\(typo\\\\).\n",
    );
    let (_first, original) = build(extra.root());
    let twins: Vec<(&String, &Vec<u8>)> = original
        .iter()
        .filter(|(path, _)| path.ends_with("/index.md"))
        .collect();
    let incidents = original
        .keys()
        .filter(|p| p.starts_with("api/v1/") && p.matches('/').count() == 3)
        .filter(|p| !p.starts_with("api/v1/days/") && !p.ends_with("/stats.json"))
        .filter(|p| !p.ends_with("/components.json"))
        .count();
    assert_eq!(twins.len(), incidents, "a twin per incident");
    assert!(incidents > 40);

    // Each twin where its incident's file was, named by its folder; the providers' files
    // and site.yaml as they are.
    let again = Site::new(&[]);
    for entry in std::fs::read_dir(repo.join("content")).unwrap() {
        let provider = entry.unwrap().path();
        let index = provider.join("_index.md");
        if index.exists() {
            let name = provider.file_name().unwrap().to_str().unwrap();
            again.write(
                &format!("content/{name}/_index.md"),
                &std::fs::read_to_string(index).unwrap(),
            );
        }
    }
    for (path, bytes) in &twins {
        let (provider, slug) = path.trim_end_matches("/index.md").split_once('/').unwrap();
        again.write(
            &format!("content/{provider}/{slug}.md"),
            std::str::from_utf8(bytes).unwrap(),
        );
    }
    let (_second, rebuilt) = build(again.root());
    // (The search index's state file notes what its shards were made from, files and all:
    // the build's memory, not the site.)
    let differ: Vec<&String> = (original.keys().chain(rebuilt.keys()))
        .filter(|path| !path.ends_with("/.outages-index"))
        .filter(|path| original.get(*path) != rebuilt.get(*path))
        .collect();
    assert!(
        differ.is_empty(),
        "{} files differ: {differ:?}",
        differ.len()
    );

    // The seed, an export, comes back as an export; the others in front matter.
    let seed =
        String::from_utf8_lossy(&original["lightstep/2022-01-20-lightstep-webapp-down/index.md"]);
    assert!(
        seed.starts_with("# Lightstep Webapp Down\n\n- Provider: [ServiceNow"),
        "{seed}"
    );
    assert!(seed.contains("\n- lasted 3h 24m\n") && seed.contains("## \\*\\*Summary\\*\\*"));
    let odd = String::from_utf8_lossy(&original["edgewise-cdn/odd/index.md"]);
    assert!(odd.starts_with("---\ntitle: "), "{odd}");

    // The page names its twin, for agents and readers.
    let page = scraper::Html::parse_document(&String::from_utf8_lossy(
        &rebuilt["edgewise-cdn/odd/index.html"],
    ));
    let link = select(&page, "link[rel=alternate][type='text/markdown']");
    assert_eq!(
        link[0].value().attr("href"),
        Some("/outages/edgewise-cdn/odd/index.md")
    );
}

#[test]
fn markdown_false_leaves_the_twins_out_and_the_pages_do_not_name_them() {
    let site = Site::new(&[
        ("site.yaml", "markdown: false\n"),
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
    ]);
    site.build(&[]);
    let files = tree(&site.path("public"));
    assert!(files.contains_key("acme/a/index.html"));
    assert!(!files.keys().any(|path| path.ends_with(".md")), "no twin");
    let page = site.html("acme/a/index.html");
    assert!(select(&page, "link[type='text/markdown'], a[type='text/markdown']").is_empty());
    assert!(!site.read("llms.txt").contains("index.md"));
    // On again: each incident gets its twin, and the page and llms.txt name it.
    site.write("site.yaml", "markdown: true\n");
    site.build(&[]);
    assert!(
        site.read("acme/a/index.md")
            .starts_with("---\ntitle: \"A\"\n")
    );
    let page = site.html("acme/a/index.html");
    assert_eq!(select(&page, "a[type='text/markdown']").len(), 1);
    assert!(site.read("llms.txt").contains("index.md"));
}
