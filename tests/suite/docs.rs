//! The README and the guide link to each other by relative paths and heading anchors:
//! every such link must reach a file, and a heading of it, as GitHub renders them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The markdown files a reader browses: the README, the changelog, the benchmarks, the
/// guide to contributing and `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = [
        "README.md",
        "CHANGELOG.md",
        "BENCHMARKS.md",
        "CONTRIBUTING.md",
    ]
    .iter()
    .map(|name| Path::new(ROOT).join(name))
    .collect();
    for entry in std::fs::read_dir(Path::new(ROOT).join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// GitHub's anchor of a heading: lowercase, punctuation but `-` and `_` dropped, spaces
/// as `-`.
fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a file's headings, and the destinations of its links.
fn read(path: &Path) -> (BTreeSet<String>, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let (mut anchors, mut links) = (BTreeSet::new(), Vec::new());
    let mut heading: Option<String> = None;
    for event in Parser::new(&text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level <= HeadingLevel::H6 => {
                heading = Some(String::new())
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                anchors.insert(anchor(&heading.take().unwrap_or_default()));
            }
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.to_string()),
            _ => {}
        }
    }
    (anchors, links)
}

#[test]
fn every_relative_link_of_the_docs_reaches_a_file_and_a_heading() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in documents() {
        let (_, links) = read(&file);
        for link in links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = match path {
                "" => file.clone(),
                path => file.parent().unwrap().join(path),
            };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", file.display()));
            } else if !fragment.is_empty()
                && target.extension().is_some_and(|e| e == "md")
                && !read(&target).0.contains(fragment)
            {
                broken.push(format!("{}: {link}: no such heading", file.display()));
            }
        }
    }
    assert!(checked > 10, "the docs link to each other: {checked} links");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_themes_guide_names_every_page_template() {
    let guide = std::fs::read_to_string(Path::new(ROOT).join("docs/themes.md")).unwrap();
    let mut named = 0;
    for entry in std::fs::read_dir(Path::new(ROOT).join("templates")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "html") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                guide.contains(&format!("| `{name}` |")),
                "docs/themes.md does not say which page {name} makes"
            );
            named += 1;
        }
    }
    assert!(named >= 10, "{named} templates");
}
