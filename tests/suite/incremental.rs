//! A site kept alive and updated file by file gives, after any sequence of edits, exactly
//! the bytes a fresh full build of the same files gives.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common::{SEED, Site, incident, tree};
use outages::build;
use outages::site::Options;
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

    // An edit that gives an incident the id another one goes by is the error a full build
    // gives (an edit is amended into the archive, which must still check ids); undoing it
    // goes through.
    let new = incident("Newest", "2024-03-05T15:00:00Z");
    fixture.write(
        "content/acme/new.md",
        &new.replacen("---\n", "---\nid: a\n", 1),
    );
    let error = served
        .site
        .update(&[path("content/acme/new.md")])
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`a` is already the id of an incident of `acme`"),
        "{error}"
    );
    fixture.write("content/acme/new.md", &new);
    served.change(&[path("content/acme/new.md")]);

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

/// The randomized oracle: random sequences of edits of every kind a user makes (incidents
/// created, edited field by field, moved, renamed, deleted, broken and fixed; providers'
/// `_index.md`; templates; static files; site.yaml), and after every step that builds,
/// what `serve` holds equals a fresh full build, byte for byte, over every page kind.
/// A fixed seed and a bounded number of cases in `cargo test`; `scripts/oracle [CASES]`
/// for more.
mod oracle {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    const PROVIDERS: [&str; 3] = ["acme", "beta", "gamma"];
    const INCIDENTS: usize = 6;

    /// One edit, as a user (or their editor) makes it.
    #[derive(Debug, Clone)]
    enum Edit {
        /// Writes incident `k` in a provider's folder (moving it when it lived elsewhere).
        Write {
            k: usize,
            provider: usize,
            title: usize,
            day: u32,
            /// 2023 or 2024: years, and what "the last 12 months" hold.
            year: usize,
            /// How many years before that it started (a typo such as `started: 1923`): past
            /// ten, it counts in more years than it lists itself on days.
            back: i32,
            /// Ongoing, resolved the same day, or the next day (two day pages).
            resolved: usize,
            impact: usize,
            alias: bool,
            id: bool,
            /// None, `API`, `Web UI`, or `api` (the slug of `API`: one component).
            component: usize,
            /// Its updates: one at its start; a second at 11:15; or the first at 10:20 and
            /// the second at 11:15 (how it was told changes, the latest update does not).
            told: usize,
        },
        Delete(usize),
        /// Adds a line to the text of incident `k`'s last update: nothing a list shows.
        Text(usize),
        /// Moves incident `k`'s first update between 10:00 and 10:20: how it was told.
        Retime(usize),
        /// Renames incident `k`'s file in its folder (a new slug).
        Rename(usize),
        /// A file that does not build; a later write of it fixes it.
        Break(usize),
        ProviderIndex(usize, Option<usize>),
        Template(Option<usize>),
        Static(usize, Option<usize>),
        SiteYaml(Option<usize>),
        /// Changes one byte of the `n`th file of the cached build's output (by path, as many
        /// as there are), keeping its size, and puts its mtime back: a hand edit, or another
        /// build's write in the same second. No content changes.
        Tamper(usize),
    }

    /// Edits of incidents that start in the year they are updated in.
    fn edit() -> impl Strategy<Value = Edit> {
        edit_starting(Just(0))
    }

    /// Edits of incidents of any length: some started decades before their updates.
    fn edit_spanning() -> impl Strategy<Value = Edit> {
        edit_starting(prop_oneof![2 => Just(0), 1 => 0..120i32])
    }

    /// Edits of every kind, incidents starting `back` years before their updates.
    fn edit_starting(back: impl Strategy<Value = i32> + 'static) -> impl Strategy<Value = Edit> {
        prop_oneof![
            4 => (0..INCIDENTS, 0..PROVIDERS.len(), 0..3usize, 1..28u32, 0..2usize, back, 0..3usize, 0..5usize, any::<bool>(), any::<bool>(), 0..4usize, 0..3usize)
                .prop_map(|(k, provider, title, day, year, back, resolved, impact, alias, id, component, told)| Edit::Write {
                    k, provider, title, day, year, back, resolved, impact, alias, id, component, told,
                }),
            1 => (0..INCIDENTS).prop_map(Edit::Delete),
            1 => (0..INCIDENTS).prop_map(Edit::Text),
            1 => (0..INCIDENTS).prop_map(Edit::Retime),
            1 => (0..INCIDENTS).prop_map(Edit::Rename),
            1 => (0..INCIDENTS).prop_map(Edit::Break),
            1 => (0..PROVIDERS.len(), proptest::option::of(0..2usize))
                .prop_map(|(p, name)| Edit::ProviderIndex(p, name)),
            1 => proptest::option::of(0..2usize).prop_map(Edit::Template),
            1 => (0..3usize, proptest::option::of(0..2usize)).prop_map(|(f, v)| Edit::Static(f, v)),
            1 => proptest::option::of(0..2usize).prop_map(Edit::SiteYaml),
            1 => any::<usize>().prop_map(Edit::Tamper),
        ]
    }

    /// The site on disk and where each incident's file is.
    struct World {
        fixture: Site,
        files: Vec<Option<String>>,
        renames: usize,
    }

    impl World {
        /// A site of one incident, where every case starts.
        fn start() -> World {
            let fixture = Site::new(&[(
                "content/acme/i0.md",
                &incident("Start", "2024-03-01T10:00:00Z"),
            )]);
            let mut files = vec![None; INCIDENTS];
            files[0] = Some("content/acme/i0.md".to_string());
            World {
                fixture,
                files,
                renames: 0,
            }
        }

        fn path(&self, relative: &str) -> PathBuf {
            self.fixture.root().join(relative)
        }

        /// Writes `text` as incident `k` in `provider`; the paths that changed.
        fn put(&mut self, k: usize, provider: usize, text: &str) -> Vec<PathBuf> {
            let mut changed = Vec::new();
            let stem = match &self.files[k] {
                Some(old) => old.rsplit('/').next().unwrap().to_string(),
                None => format!("i{k}.md"),
            };
            let new = format!("content/{}/{stem}", PROVIDERS[provider]);
            if let Some(old) = self.files[k].take()
                && old != new
            {
                std::fs::remove_file(self.path(&old)).unwrap();
                changed.push(self.path(&old));
            }
            self.fixture.write(&new, text);
            changed.push(self.path(&new));
            self.files[k] = Some(new);
            changed
        }

        fn apply(&mut self, edit: &Edit) -> Vec<PathBuf> {
            match *edit {
                Edit::Write {
                    k,
                    provider,
                    title,
                    day,
                    year,
                    back,
                    resolved,
                    impact,
                    alias,
                    id,
                    component,
                    told,
                } => {
                    let title = ["Outage", "API errors", "Slow \"builds\" <b>"][title];
                    let impact = ["none", "minor", "major", "critical", "maintenance"][impact];
                    let year = [2023, 2024][year];
                    let mut front = format!(
                        "---\ntitle: '{title} {k}'\nstarted: {}-03-{day:02}T10:00:00Z\nimpact: {impact}\n",
                        year - back
                    );
                    match resolved {
                        1 => front.push_str(&format!("resolved: {year}-03-{day:02}T12:30:00Z\n")),
                        2 => front
                            .push_str(&format!("resolved: {year}-03-{:02}T03:00:00Z\n", day + 1)),
                        _ => {}
                    }
                    if component > 0 {
                        let name = ["", "API", "Web UI", "api"][component];
                        front.push_str(&format!("components: [{name}]\n"));
                    }
                    if alias {
                        front.push_str(&format!("aliases: [/old/i{k}/]\n"));
                    }
                    if id {
                        front.push_str(&format!("id: ID-{k}\n"));
                    }
                    let first = ["10:00", "10:00", "10:20"][told];
                    let mut text = format!(
                        "{front}---\nSummary of {k}.\n\n### {year}-03-{day:02} {first} UTC: investigating\nLooking.\n"
                    );
                    if told > 0 {
                        text.push_str(&format!(
                            "### {year}-03-{day:02} 11:15 UTC: identified\nFound it.\n"
                        ));
                    }
                    self.put(k, provider, &text)
                }
                Edit::Delete(k) => match self.files[k].take() {
                    Some(old) => {
                        std::fs::remove_file(self.path(&old)).unwrap();
                        vec![self.path(&old)]
                    }
                    None => Vec::new(),
                },
                Edit::Text(k) => match self.files[k].clone() {
                    Some(file) => {
                        let text = std::fs::read_to_string(self.path(&file)).unwrap();
                        self.fixture.write(&file, &format!("{text}More news.\n"));
                        vec![self.path(&file)]
                    }
                    None => Vec::new(),
                },
                Edit::Retime(k) => match self.files[k].clone() {
                    Some(file) => {
                        let text = std::fs::read_to_string(self.path(&file)).unwrap();
                        let (early, late) = (" 10:00 UTC: inv", " 10:20 UTC: inv");
                        let text = match text.contains(early) {
                            true => text.replacen(early, late, 1),
                            false => text.replacen(late, early, 1),
                        };
                        self.fixture.write(&file, &text);
                        vec![self.path(&file)]
                    }
                    None => Vec::new(),
                },
                Edit::Rename(k) => match self.files[k].take() {
                    Some(old) => {
                        self.renames += 1;
                        let folder = old.rsplit_once('/').unwrap().0;
                        let new = format!("{folder}/i{k}-r{}.md", self.renames);
                        std::fs::rename(self.path(&old), self.path(&new)).unwrap();
                        self.files[k] = Some(new.clone());
                        vec![self.path(&old), self.path(&new)]
                    }
                    None => Vec::new(),
                },
                Edit::Break(k) => match self.files[k].clone() {
                    Some(file) => {
                        self.fixture.write(&file, "---\ntitle: Broken\nstarted: 2024-13-01T00:00:00Z\nimpact: minor\n---\n");
                        vec![self.path(&file)]
                    }
                    None => Vec::new(),
                },
                Edit::ProviderIndex(p, name) => {
                    let file = format!("content/{}/_index.md", PROVIDERS[p]);
                    match name {
                        Some(n) => {
                            let name = ["Acme Cloud", "Other & Co"][n];
                            self.fixture
                                .write(&file, &format!("---\nname: {name} {p}\n---\nAbout {p}.\n"));
                        }
                        None => {
                            let _ = std::fs::remove_file(self.path(&file));
                        }
                    }
                    vec![self.path(&file)]
                }
                Edit::Template(version) => {
                    let file = "templates/partials/impact.html";
                    match version {
                        Some(v) => self.fixture.write(
                            file,
                            &format!("<span class=\"impact-{v}\">{{{{ impact.label }}}}</span>"),
                        ),
                        None => {
                            let _ = std::fs::remove_file(self.path(file));
                        }
                    }
                    vec![self.path(file)]
                }
                Edit::Static(f, version) => {
                    let file = [
                        "static/style.css",
                        "static/robots.txt",
                        "static/img/logo.txt",
                    ][f];
                    match version {
                        Some(v) => self.fixture.write(file, &format!("version {v}\n")),
                        None => {
                            let _ = std::fs::remove_file(self.path(file));
                        }
                    }
                    vec![self.path(file)]
                }
                Edit::SiteYaml(version) => {
                    match version {
                        Some(v) => self.fixture.write(
                            "site.yaml",
                            &format!("title: Archive {v}\nfeed_limit: {}\n", v + 2),
                        ),
                        None => {
                            let _ = std::fs::remove_file(self.path("site.yaml"));
                        }
                    }
                    vec![self.path("site.yaml")]
                }
                Edit::Tamper(_) => Vec::new(),
            }
        }
    }

    /// Each burst of edits made at once, as `serve` sees them after its debounce (the
    /// paths of all of them, some twice), then one update.
    fn run_case(bursts: &[Vec<Edit>], hash_assets: bool) -> Result<(), TestCaseError> {
        let mut world = World::start();
        let options = Options {
            hash_assets,
            ..Options::new(world.fixture.root())
        };
        let mut served = Served::start(options.clone());
        for edit in bursts {
            let changed: Vec<PathBuf> = edit.iter().flat_map(|e| world.apply(e)).collect();
            if changed.is_empty() {
                continue;
            }
            // A step that does not build leaves the served site as it was; the oracle
            // compares again at the next step that builds.
            if served
                .site
                .update(&changed)
                .map(|update| {
                    for path in &update.removed {
                        served.files.remove(path);
                    }
                    served.files.extend(update.rendered);
                })
                .is_err()
            {
                continue;
            }
            let Ok(fresh) = Loaded::load(&options) else {
                return Err(TestCaseError::fail(format!(
                    "{edit:?}: serve built what a full build refuses"
                )));
            };
            let pages: Vec<_> = fresh.pages.iter().collect();
            let full: BTreeMap<String, Vec<u8>> =
                site::render_pages(&fresh.renderer(), &pages, |page, bytes| {
                    (page.path.clone(), bytes)
                })
                .map_err(|e| TestCaseError::fail(e.to_string()))?
                .into_iter()
                .collect();
            let differing: Vec<&String> = full
                .keys()
                .chain(served.files.keys())
                .filter(|path| full.get(*path) != served.files.get(*path))
                .collect();
            prop_assert!(
                differing.is_empty(),
                "after {edit:?}, served pages differ from a full build: {differing:?}"
            );
        }
        Ok(())
    }

    /// The same edits, each followed by a `build` that uses the build cache and by a build
    /// from scratch into a fresh folder: both fail, or both give the same files, byte for
    /// byte (the manifest included). Edits come faster than file times can tell them apart,
    /// so this holds the cache to its hashes; `cache::tests` hold it to its file times.
    fn run_cached_case(edits: &[Edit]) -> Result<(), TestCaseError> {
        let mut world = World::start();
        let outputs = tempfile::tempdir().unwrap();
        let cached = Options {
            output: Some(outputs.path().join("cached")),
            cache_dir: Some(outputs.path().join("cache")),
            ..Options::new(world.fixture.root())
        };
        let progress = indicatif::ProgressBar::hidden();
        build::build(&cached, &progress).unwrap();
        for (step, edit) in edits.iter().enumerate() {
            if let Edit::Tamper(n) = *edit {
                tamper(&cached.output_dir(), n);
            } else if world.apply(edit).is_empty() {
                continue;
            }
            let fresh = Options {
                output: Some(outputs.path().join(format!("fresh-{step}"))),
                ..Options::new(world.fixture.root())
            };
            let expected = build::build(&fresh, &progress);
            let got = build::build(&cached, &progress);
            prop_assert_eq!(
                expected.is_ok(),
                got.is_ok(),
                "after {:?}: a build from scratch gives {:?}, a cached one {:?}",
                edit,
                expected.as_ref().err().map(ToString::to_string),
                got.as_ref().err().map(ToString::to_string)
            );
            if expected.is_err() {
                continue;
            }
            let want = tree(&fresh.output_dir());
            let have = tree(&cached.output_dir());
            let differing: Vec<&String> = want
                .keys()
                .chain(have.keys())
                .filter(|path| want.get(*path) != have.get(*path))
                .collect();
            prop_assert!(
                differing.is_empty(),
                "after {edit:?}, a cached build differs from one from scratch: {differing:?}"
            );
        }
        Ok(())
    }

    /// Changes one byte of the `n`th non-empty file under `out`, keeping its size and mtime.
    fn tamper(out: &std::path::Path, n: usize) {
        let files: Vec<(String, Vec<u8>)> = tree(out)
            .into_iter()
            .filter(|(_, bytes)| !bytes.is_empty())
            .collect();
        let Some((path, bytes)) = files.get(n % files.len().max(1)) else {
            return;
        };
        let path = out.join(path);
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut bytes = bytes.clone();
        let at = n % bytes.len();
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }

    #[test]
    fn random_edits_build_with_the_cache_what_a_build_from_scratch_gives() {
        crate::common::seeded_runner("OUTAGES_ORACLE_CASES", 20, 11)
            .run(&proptest::collection::vec(edit(), 1..16), |edits| {
                run_cached_case(&edits)
            })
            .unwrap();
    }

    /// Incidents of any length, each edit its own build, in a few cases: past ten years
    /// an incident's days are thousands of pages.
    #[test]
    fn random_edits_of_incidents_of_any_length_build_with_the_cache_what_scratch_gives() {
        crate::common::seeded_runner("OUTAGES_ORACLE_CASES", 4, 12)
            .run(&proptest::collection::vec(edit_spanning(), 1..8), |edits| {
                run_cached_case(&edits)
            })
            .unwrap();
    }

    fn check(hash_assets: bool, seed: u8) {
        crate::common::seeded_runner("OUTAGES_ORACLE_CASES", 32, seed)
            .run(&proptest::collection::vec(edit(), 1..16), |edits| {
                let one_by_one: Vec<Vec<Edit>> = edits.into_iter().map(|e| vec![e]).collect();
                run_case(&one_by_one, hash_assets)
            })
            .unwrap();
    }

    /// Bursts of edits of incidents of any length, each burst one update.
    #[test]
    fn random_bursts_of_edits_of_incidents_of_any_length_serve_what_a_full_build_gives() {
        let bursts = proptest::collection::vec(edit_spanning(), 1..6);
        crate::common::seeded_runner("OUTAGES_ORACLE_CASES", 6, 13)
            .run(&proptest::collection::vec(bursts, 1..5), |bursts| {
                run_case(&bursts, false)
            })
            .unwrap();
    }

    #[test]
    fn random_edits_serve_what_a_full_build_gives() {
        check(false, 9);
    }

    #[test]
    fn random_edits_serve_what_a_full_build_gives_with_hashed_assets() {
        check(true, 10);
    }
}

/// The index of every incident: an edit renders again only the page that lists the
/// incident; a new incident shifts every page, and all of them follow.
#[test]
fn the_index_of_every_incident_follows_edits_page_by_page() {
    let fixture = Site::new(&[]);
    for i in 0..250 {
        fixture.write(
            &format!("content/acme/i{i:03}.md"),
            &incident(
                &format!("I{i}"),
                &format!("2023-{:02}-01T10:00:00Z", i % 12 + 1),
            ),
        );
    }
    let root = fixture.root().to_path_buf();
    let mut served = Served::start(Options::new(&root));
    let index_pages = |rendered: &[String]| {
        rendered
            .iter()
            .filter(|p| p.starts_with("incidents/"))
            .count()
    };
    fixture.write(
        "content/acme/i007.md",
        &incident("I7, renamed", "2023-08-01T10:00:00Z"),
    );
    let rendered = served.change(&[root.join("content/acme/i007.md")]);
    assert_eq!(index_pages(&rendered), 1, "{rendered:?}");
    fixture.write(
        "content/acme/new.md",
        &incident("Newest", "2024-01-01T10:00:00Z"),
    );
    let rendered = served.change(&[root.join("content/acme/new.md")]);
    assert_eq!(index_pages(&rendered), 3, "{rendered:?}");
}

/// What an edit renders again follows what the pages declare they read: new text in an
/// update renders the incident, its API file and its provider's feeds, and none of the
/// pages of lists and numbers (the sitemap among them); a new time renders the days it
/// moved between, the year, the component, the provider's numbers and the sitemap too.
#[test]
fn an_edit_renders_the_pages_that_show_what_changed_and_no_others() {
    let with_component = |title: &str, day: u32, hours: u32| {
        format!(
            "---\ntitle: {title}\nstarted: 2024-03-{day:02}T10:00:00Z\nresolved: 2024-03-{day:02}T{:02}:00:00Z\nimpact: critical\ncomponents: [API]\n---\n### 2024-03-{day:02} 10:00 UTC: investigating\nLooking.\n",
            10 + hours
        )
    };
    let fixture = Site::new(&[
        ("content/acme/a.md", &with_component("A", 5, 1)),
        ("content/acme/b.md", &with_component("B", 7, 1)),
        ("content/globex/c.md", &with_component("C", 5, 2)),
        ("content/globex/d.md", &with_component("D", 20, 1)),
        (
            "content/acme/old.md",
            "---\ntitle: Old\nstarted: 2023-05-01T10:00:00Z\nduration: 1h\nimpact: major\ncomponents: [Web]\n---\n",
        ),
    ]);
    let root = fixture.root().to_path_buf();
    let mut served = Served::start(Options::new(&root));
    let file = root.join("content/acme/a.md");

    fixture.write(
        "content/acme/a.md",
        &format!("{}More news.\n", with_component("A", 5, 1)),
    );
    let mut rendered = served.change(std::slice::from_ref(&file));
    rendered.sort();
    assert_eq!(
        rendered,
        [
            // The pages of the archive as a whole, which declare they read all of it.
            "_redirects",
            "acme/a/index.html",
            "acme/a/index.md",
            "acme/feed.json",
            "acme/feed.xml",
            "acme/major/feed.json",
            "acme/major/feed.xml",
            "acme/major/rss.xml",
            "acme/rss.xml",
            "api/index.html",
            "api/v1/acme/a.json",
            "api/v1/index.json",
            "api/v1/providers.json",
            "badges/index.html",
            "data/index.html",
            "data/updates-2024.jsonl.gz",
            "days/index.html",
            "feed.json",
            "feed.xml",
            "index.html",
            "llms.txt",
            "major/feed.json",
            "major/feed.xml",
            "major/rss.xml",
            "providers/by-incidents/index.html",
            "providers/by-uptime/index.html",
            "providers/index.html",
            "rss.xml",
        ],
        "new text: the incident, its markdown twin, its data, its year's updates file, the feeds that carry its text, and no list or number (the provider's API file and the sitemap show none of it)"
    );

    fixture.write("content/acme/a.md", &with_component("A", 6, 3));
    let rendered = served.change(std::slice::from_ref(&file));
    for page in [
        "acme/index.html",
        "acme/2024/index.html",
        "acme/components/api/index.html",
        "api/v1/acme.json",
        "api/v1/acme/stats.json",
        // The incident's update is on another day: its date in the sitemap.
        "sitemap.xml",
        "days/2024-03-05/index.html",
        "days/2024-03-06/index.html",
        // The day after: the day before it is now another.
        "days/2024-03-07/index.html",
        "globex/c/index.html",
        "acme/b/index.html",
    ] {
        assert!(rendered.iter().any(|p| p == page), "{page}: {rendered:?}");
    }
    assert!(
        !rendered.iter().any(|p| p == "days/2024-03-20/index.html"
            || p == "globex/components/api/index.html"
            || p == "globex/index.html"
            || p == "acme/2023/index.html"
            || p == "acme/components/web/index.html"),
        "a day, a year, a component and a provider it never touched: {rendered:?}"
    );

    // Resolved a day later, on a day that has its page already (B's): no page comes or
    // goes, but the sitemap dates the incident and that day anew.
    fixture.write(
        "content/acme/a.md",
        "---\ntitle: A\nstarted: 2024-03-06T10:00:00Z\nresolved: 2024-03-07T09:00:00Z\nimpact: critical\ncomponents: [API]\n---\n### 2024-03-06 10:00 UTC: investigating\nLooking.\n",
    );
    let rendered = served.change(&[file]);
    assert!(rendered.iter().any(|p| p == "sitemap.xml"), "{rendered:?}");
}

#[test]
fn a_retitled_incident_renders_the_page_of_its_impact_that_lists_it_and_no_other() {
    let outage = |k: u32, title: &str, impact: &str| {
        format!(
            "---\ntitle: {title}\nstarted: 2024-01-01T{:02}:{:02}:00Z\nduration: 5m\nimpact: {impact}\n---\n",
            k / 60,
            k % 60
        )
    };
    let mut files: Vec<(String, String)> = (0..120)
        .map(|k| {
            (
                format!("content/acme/c{k}.md"),
                outage(k, &format!("Down {k}"), "critical"),
            )
        })
        .collect();
    files.extend((200..205).map(|k| (format!("content/acme/m{k}.md"), outage(k, "Slow", "minor"))));
    let fixture = Site::from_owned(&files);
    let root = fixture.root().to_path_buf();
    let mut served = Served::start(Options::new(&root));
    // The oldest major outage: the last of the second page of major outages.
    fixture.write(
        "content/acme/c0.md",
        &outage(0, "Down, renamed", "critical"),
    );
    let rendered = served.change(&[root.join("content/acme/c0.md")]);
    for page in [
        "incidents/major/page/2/index.html",
        "acme/major/page/2/index.html",
    ] {
        assert!(rendered.iter().any(|p| p == page), "{page}: {rendered:?}");
    }
    for page in [
        "incidents/major/index.html",
        "acme/major/index.html",
        "incidents/degraded/index.html",
        "acme/degraded/index.html",
    ] {
        assert!(!rendered.iter().any(|p| p == page), "{page}: {rendered:?}");
    }
}
