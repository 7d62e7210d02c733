//! A site kept alive and updated file by file gives, after any sequence of edits, exactly
//! the bytes a fresh full build of the same files gives.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common::{SEED, Site, incident};
use outages::build::Options;
use outages::site::{self, Site as Loaded};

fn full_render(options: &Options) -> BTreeMap<String, Vec<u8>> {
    let site = Loaded::load(options).expect("a full build succeeds");
    let pages: Vec<_> = site.pages.iter().collect();
    site::render_pages(&site.renderer(), &pages, |page, bytes| {
        (page.path.clone(), bytes)
    })
    .expect("every page renders")
    .into_iter()
    .collect()
}

/// The served site, as `serve` keeps it.
struct Served {
    site: Loaded,
    files: BTreeMap<String, Vec<u8>>,
    options: Options,
}

impl Served {
    fn start(options: Options) -> Served {
        let files = full_render(&options);
        Served {
            site: Loaded::load(&options).unwrap(),
            files,
            options,
        }
    }

    /// Applies a change; returns the pages rendered again.
    fn change(&mut self, paths: &[PathBuf]) -> Vec<String> {
        let update = self
            .site
            .update(paths)
            .unwrap_or_else(|e| panic!("update failed:\n{e}"));
        for path in &update.removed {
            self.files.remove(path);
        }
        let rendered = update
            .rendered
            .iter()
            .map(|(path, _)| path.clone())
            .collect();
        self.files.extend(update.rendered);
        let full = full_render(&self.options);
        let differing: Vec<&String> = full
            .keys()
            .chain(self.files.keys())
            .filter(|path| full.get(*path) != self.files.get(*path))
            .collect();
        assert!(
            differing.is_empty(),
            "served pages differ from a full build: {differing:?}"
        );
        rendered
    }
}

#[test]
fn every_sequence_of_edits_serves_what_a_full_build_gives() {
    edit_sequence(false);
}

/// With hashed asset names (as `build` writes them) a stylesheet renames itself, and every
/// page that links it follows.
#[test]
fn the_same_holds_with_hashed_asset_names() {
    edit_sequence(true);
}

fn edit_sequence(hash_assets: bool) {
    let fixture = Site::new(&[
        ("content/lightstep/seed.md", SEED),
        ("content/acme/_index.md", "---\nname: Acme\n---\nWe host.\n"),
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        ("content/acme/b.md", &incident("B", "2024-02-05T14:00:00Z")),
        (
            "content/globex/c.md",
            &incident("C", "2024-01-05T14:00:00Z"),
        ),
    ]);
    for i in 0..30 {
        fixture.write(
            &format!("content/initech/i{i}.md"),
            &incident(
                &format!("I{i}"),
                &format!("2023-01-{:02}T10:00:00Z", i % 28 + 1),
            ),
        );
    }
    let root = fixture.root().to_path_buf();
    let path = |p: &str| root.join(p);
    let mut served = Served::start(Options {
        hash_assets,
        ..Options::new(&root)
    });
    let total = served.files.len();

    // Edit one incident: only the pages that read it are rendered again.
    fixture.write(
        "content/acme/a.md",
        &incident("A, edited", "2024-03-05T14:00:00Z"),
    );
    let rendered = served.change(&[path("content/acme/a.md")]).len();
    assert!(
        rendered < total / 3,
        "{rendered} of {total} pages rendered for one edit"
    );

    // A new incident appears on its provider page and in the feeds.
    fixture.write(
        "content/acme/new.md",
        &incident("Newest", "2024-03-05T15:00:00Z"),
    );
    served.change(&[path("content/acme/new.md")]);
    assert!(String::from_utf8_lossy(&served.files["acme/index.html"]).contains("Newest"));

    // Rename and delete.
    std::fs::rename(path("content/acme/b.md"), path("content/acme/b2.md")).unwrap();
    served.change(&[path("content/acme/b.md"), path("content/acme/b2.md")]);
    assert!(
        !served.files.contains_key("acme/b/index.html")
            && served.files.contains_key("acme/b2/index.html")
    );
    std::fs::remove_file(path("content/globex/c.md")).unwrap();
    served.change(&[path("content/globex/c.md")]);
    assert!(
        !served.files.keys().any(|p| p.starts_with("globex/")),
        "an emptied provider goes"
    );

    // A provider renamed in its _index.md renames it on every incident page.
    fixture.write("content/acme/_index.md", "---\nname: Acme Cloud\n---\n");
    served.change(&[path("content/acme/_index.md")]);
    assert!(String::from_utf8_lossy(&served.files["acme/a/index.html"]).contains("Acme Cloud"));

    // A whole folder moved at once (one event for the folder).
    std::fs::rename(path("content/initech"), path("content/initrode")).unwrap();
    served.change(&[path("content/initech"), path("content/initrode")]);
    assert!(served.files.contains_key("initrode/i3/index.html"));

    // A broken file leaves the site as it was; fixing it applies both edits.
    fixture.write("content/acme/a.md", "---\ntitle: A\nimpact: sever\n---\n");
    assert!(served.site.update(&[path("content/acme/a.md")]).is_err());
    fixture.write(
        "content/acme/new.md",
        &incident("Newest, edited while a was broken", "2024-03-05T15:00:00Z"),
    );
    assert!(
        served.site.update(&[path("content/acme/new.md")]).is_err(),
        "a.md is still broken"
    );
    fixture.write(
        "content/acme/a.md",
        &incident("A, fixed", "2024-03-05T14:00:00Z"),
    );
    served.change(&[path("content/acme/a.md")]);
    assert!(
        String::from_utf8_lossy(&served.files["acme/new/index.html"])
            .contains("edited while a was broken")
    );

    // Templates and static files.
    fixture.write(
        "templates/incident.html",
        "<!doctype html><title>{{ incident.title }}</title><h1>{{ incident.title }}</h1>",
    );
    served.change(&[path("templates/incident.html")]);
    assert!(
        String::from_utf8_lossy(&served.files["acme/a/index.html"])
            .starts_with("<!doctype html><title>")
    );
    fixture.write("static/style.css", "body { color: red }");
    let rendered = served.change(&[path("static/style.css")]);
    assert!(
        hash_assets || rendered.iter().all(|p| !p.ends_with(".html")),
        "a stylesheet renders no page: {rendered:?}"
    );
    let css = served.site.theme.asset_paths["style.css"].clone();
    assert_eq!(served.files[&css], b"body { color: red }");
    std::fs::remove_file(path("templates/incident.html")).unwrap();
    served.change(&[path("templates/incident.html")]);

    // A broken template is an error and changes nothing; its fix goes through.
    fixture.write("templates/index.html", "{% if %}");
    assert!(served.site.update(&[path("templates/index.html")]).is_err());
    std::fs::remove_file(path("templates/index.html")).unwrap();
    served.change(&[path("templates/index.html")]);

    // A static file that replaces a generated one, then goes: the generated one is back.
    fixture.write("static/robots.txt", "User-agent: *\nDisallow: /\n");
    served.change(&[path("static/robots.txt")]);
    std::fs::remove_file(path("static/robots.txt")).unwrap();
    served.change(&[path("static/robots.txt")]);
    assert!(String::from_utf8_lossy(&served.files["robots.txt"]).contains("Sitemap:"));

    // A broken site.yaml stays an error while other files change, until it is fixed.
    fixture.write("site.yaml", "title: [unclosed\n");
    assert!(served.site.update(&[path("site.yaml")]).is_err());
    fixture.write(
        "content/acme/a.md",
        &incident("A, while site.yaml is broken", "2024-03-05T14:00:00Z"),
    );
    assert!(
        served.site.update(&[path("content/acme/a.md")]).is_err(),
        "site.yaml is still broken"
    );

    // site.yaml changes everything.
    fixture.write(
        "site.yaml",
        "title: Renamed Archive\nbase_url: https://example.org/sub/\n",
    );
    served.change(&[path("site.yaml")]);
    assert!(String::from_utf8_lossy(&served.files["index.html"]).contains("Renamed Archive"));
}
