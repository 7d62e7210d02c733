//! The properties the fuzz targets check, one function per target. Each takes the raw
//! input and panics when the property fails. `tests/suite/fuzz_regressions.rs` includes this file
//! too, so every saved finding is replayed through exactly what found it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use annotate_snippets::Renderer;
use outages::build;
use outages::cache;
use outages::content::source::clean_text;
use outages::content::time::parse_timestamp;
use outages::content::{self, Loaded};
use outages::diagnostics::{Diagnostic, Diagnostics};
use outages::import::{self, Change, Request};
use outages::model::Platform;
use outages::render::markdown;
use outages::site::Options;
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag};
use scraper::Html;

/// What a target checks of one input: it panics if the property fails.
pub type Property = fn(&[u8]);

/// Every target, by the name of its folder under `fuzz/corpus/` and `tests/fixtures/fuzz/`.
pub const TARGETS: &[(&str, Property)] = &[
    ("load_incident", load_incident),
    ("split_updates", split_updates),
    ("render_markdown", render_markdown),
    ("import_statuspage", import_statuspage),
    ("import_atom", import_atom),
    ("import_platforms", import_platforms),
    ("read_cache", read_cache),
];

/// Any bytes, as a build cache made by hand with its index's checksum right (the first four
/// bytes, little-endian, say where the index starts): reading it never panics, what it
/// reads back names only files under `content/`, in order, and its parsed forms come whole
/// or not at all.
pub fn read_cache(data: &[u8]) {
    let Some((split, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let split = usize::try_from(u32::from_le_bytes(*split))
        .unwrap_or(usize::MAX)
        .min(rest.len());
    let (stored, index) = rest.split_at(split);
    let key = [7; 32];
    let dir = scratch_dir();
    std::fs::write(dir.path().join("build"), cache::sealed(&key, stored, index)).unwrap();
    let cache = cache::read(dir.path(), &key);
    let content = &cache.index.content;
    assert!(
        content
            .iter()
            .all(|seen| seen.path.starts_with(content::CONTENT_DIR)),
        "a path outside content/ read back"
    );
    assert!(
        content.is_sorted_by(|a, b| a.path < b.path),
        "paths read back out of order"
    );
    if let Some(loaded) = cache.loaded() {
        assert_eq!(loaded.len(), content.len());
    }
}

/// The provider folder every fuzzed file lives in.
const PROVIDER: &str = "fuzz";

/// Any bytes, as an incident file (front matter or down.guide export) and as a provider's
/// `_index.md`: a value or diagnostics, never a panic, and every diagnostic renders.
pub fn load_incident(data: &[u8]) {
    for name in ["incident.md", content::PROVIDER_FILE] {
        let relative = Path::new(content::CONTENT_DIR).join(PROVIDER).join(name);
        match content::load_bytes(Path::new("."), &relative, data.to_vec()) {
            Ok(Loaded::Incident(incident)) => {
                let _ = incident.duration();
            }
            Ok(Loaded::Provider(..)) => {}
            Err(problems) => render_diagnostics(problems),
        }
    }
}

fn render_diagnostics(problems: Vec<Diagnostic>) {
    assert!(!problems.is_empty(), "a failed load says why");
    let report = Diagnostics::sorted(problems).render(&Renderer::plain());
    assert!(!report.is_empty());
}

/// Front matter the body of [`split_updates`] is put under.
const FRONT_MATTER: &str = "---\ntitle: Fuzz\nstarted: 2022-01-20T17:58:00Z\n---\n";

/// Any text, as an incident's body: the loader's updates are exactly the top-level
/// `### <time>: <status>` headings pulldown-cmark (the renderer's parser) sees, so what a
/// page shows as an update heading is an update, and nothing else is.
pub fn split_updates(data: &[u8]) {
    let mut file = FRONT_MATTER.as_bytes().to_vec();
    file.extend_from_slice(data);
    // The loader cleans the text first (line ends, control characters): compare with that.
    let Ok(text) = clean_text(file.clone()) else {
        return;
    };
    let body = &text[FRONT_MATTER.len()..];
    let relative = Path::new(content::CONTENT_DIR)
        .join(PROVIDER)
        .join("incident.md");
    let incident = match content::load_bytes(Path::new("."), &relative, file) {
        Ok(Loaded::Incident(incident)) => incident,
        // A heading that looks like an update but does not read as one is an error.
        Ok(Loaded::Provider(..)) | Err(_) => return,
    };
    let mut loaded: Vec<_> = incident.updates.iter().map(|u| u.at).collect();
    loaded.sort();
    let mut rendered: Vec<_> = update_headings(body)
        .into_iter()
        .map(|(at, _)| at)
        .collect();
    rendered.sort();
    assert_eq!(
        loaded,
        rendered,
        "the loader found {} updates where the renderer shows {:?}",
        loaded.len(),
        update_headings(body)
    );
}

/// The top-level level-3 headings of `body` whose source reads `<time>: <status>`, with
/// their time and source line.
fn update_headings(body: &str) -> Vec<(outages::model::Timestamp, String)> {
    let mut depth = 0usize;
    let mut found = Vec::new();
    for (event, range) in
        Parser::new_ext(body, outages::content::updates::MARKDOWN_OPTIONS).into_offset_iter()
    {
        match event {
            Event::Start(tag) => {
                if depth == 0
                    && let Tag::Heading {
                        level: HeadingLevel::H3,
                        ..
                    } = tag
                {
                    let line = body[range].lines().next().unwrap_or_default().trim();
                    let rest = line.trim_start_matches('#').trim();
                    let rest = rest.trim_end_matches('#').trim_end();
                    if let Some((time, status)) = rest.split_once(": ")
                        && let Ok(at) = parse_timestamp(time)
                        && !status.trim().is_empty()
                    {
                        found.push((at, line.to_string()));
                    }
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    found
}

/// The page the rendered markdown is relative to.
const PAGE: &str = "https://example.com/archive/fuzz/incident/";

/// Elements that run code, load other documents or restyle the page.
const BANNED_ELEMENTS: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "svg", "math",
    "base", "meta", "link", "form", "textarea", "button", "select", "img", "video", "audio",
    "source", "template",
];

/// Any text, as markdown from a status page: the HTML it becomes holds no element that
/// runs code, no `on…` event handler attribute, and no link but http, https and mailto.
pub fn render_markdown(data: &[u8]) {
    let markdown = String::from_utf8_lossy(data);
    let html = markdown::to_html(&markdown, PAGE);
    let fragment = Html::parse_fragment(&html);
    for node in fragment.tree.nodes() {
        let Some(element) = node.value().as_element() else {
            continue;
        };
        let name = element.name();
        assert!(
            !BANNED_ELEMENTS.contains(&name),
            "<{name}> survived sanitising: {html}"
        );
        for (attribute, value) in element.attrs() {
            let attribute = attribute.to_ascii_lowercase();
            assert!(
                !attribute.starts_with("on"),
                "the event handler `{attribute}` survived sanitising: {html}"
            );
            assert!(
                !attribute.contains("src") && attribute != "style",
                "`{attribute}` survived sanitising: {html}"
            );
            if matches!(
                attribute.as_str(),
                "href" | "action" | "formaction" | "xlink:href" | "cite" | "background"
            ) {
                let url = ammonia::Url::parse(value).unwrap_or_else(|e| {
                    panic!("`{attribute}=\"{value}\"` is not an absolute URL ({e}): {html}")
                });
                assert!(
                    matches!(url.scheme(), "http" | "https" | "mailto"),
                    "`{attribute}=\"{value}\"` survived sanitising: {html}"
                );
            }
        }
    }
}

/// Any bytes, as a Statuspage payload: see [`import_round_trip`].
pub fn import_statuspage(data: &[u8]) {
    import_round_trip(data, Platform::Statuspage);
}

/// Any bytes, as a `history.atom` (or any Atom or RSS) feed: see [`import_round_trip`].
pub fn import_atom(data: &[u8]) {
    import_round_trip(data, Platform::Feed);
}

/// Any bytes after the first, as a payload of the platform the first byte picks (every one
/// but Statuspage, which has its own target): see [`import_round_trip`].
pub fn import_platforms(data: &[u8]) {
    let Some((pick, payload)) = data.split_first() else {
        return;
    };
    let others = &Platform::ALL[1..];
    import_round_trip(payload, others[usize::from(*pick) % others.len()]);
}

/// `outages import` of a payload either refuses it with diagnostics, or writes files that
/// each load, one per incident it created, that a site check accepts, and that a second
/// import of the same payload leaves byte for byte as they are.
fn import_round_trip(data: &[u8], platform: Platform) {
    let site = scratch_dir();
    let root = site.path();
    let file = root.join("payload");
    std::fs::write(&file, data).expect("a temporary file");
    let request = Request {
        platform,
        file: &file,
        provider: Some(PROVIDER),
        root,
    };
    let (outcomes, described) = match import::run(&request) {
        Ok(report) => {
            let described = matches!(report.described, import::Described::Written(_));
            (report.outcomes, described)
        }
        Err(import::Error::Invalid(problems)) => return render_diagnostics(problems),
        Err(import::Error::Usage(message)) => panic!("a usage error for a payload: {message}"),
    };
    let folder = root.join(content::CONTENT_DIR);
    let files = snapshot(&folder);
    let created = outcomes
        .iter()
        .filter(|o| matches!(o.change, Change::Created { .. }))
        .count();
    // Besides the incidents, the new provider's `_index.md`, when the payload names its page.
    assert_eq!(
        files.len(),
        created + usize::from(described),
        "{created} files created, {} on disk: {outcomes:?}",
        files.len()
    );
    for outcome in &outcomes {
        if let Err(problems) = content::load_file(root, &outcome.path) {
            panic!(
                "an imported file does not load:\n{}\n{}",
                files
                    .get(&root.join(&outcome.path))
                    .map_or("", String::as_str),
                Diagnostics::sorted(problems).render(&Renderer::plain())
            );
        }
    }
    if !files.is_empty()
        && let Err(error) = build::check(&Options::new(root))
    {
        panic!("the imported site does not pass check: {error}");
    }
    let again = import::run(&request)
        .unwrap_or_else(|e| panic!("a second import fails: {e:?}"))
        .outcomes;
    assert!(
        again
            .iter()
            .all(|o| o.change == Change::Unchanged && o.kept.is_empty()),
        "a second import changed something: {again:?}"
    );
    assert_eq!(snapshot(&folder), files, "a second import rewrote files");
}

/// A temporary site root, in memory when the system has a RAM disk.
fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::tempdir_in(shm)
    {
        return dir;
    }
    tempfile::tempdir().expect("a temporary folder")
}

/// Every file under `folder`, with its bytes.
fn snapshot(folder: &Path) -> BTreeMap<PathBuf, String> {
    let mut files = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            let text = std::fs::read_to_string(&path).expect("an imported file is UTF-8");
            files.insert(path, text);
        }
    }
    files
}
