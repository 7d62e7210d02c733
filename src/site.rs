//! A loaded site: settings, theme, every content file, the archive, its views and the
//! page plan. `build` loads one and renders every page; `serve` keeps one alive and, on a
//! change, updates it and renders only the pages the change touches. Both go through the
//! same functions, so a partial rebuild cannot drift from a full one.

use foldhash::{HashMap, HashSet};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::mem::{Discriminant, discriminant};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::archive::Archive;
use crate::cache::Hash;
use crate::config::{BaseUrl, CONFIG_FILE, Config};
use crate::content::{self, CONTENT_DIR, Files, Loaded};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{Incident, Slug};
use crate::render::deps::{self, ChangeSet, Snapshot};
use crate::render::kinds::What;
use crate::render::theme::{STATIC_DIR, TEMPLATES_DIR, Theme};
use crate::render::views::Views;
use crate::render::{self, Page, Renderer};

/// `--root` as given on the command line: a folder that exists, so a typo is named as one
/// instead of as a site without `content/`.
pub fn site_folder(text: &str) -> Result<std::path::PathBuf, NoFolder> {
    let path = std::path::PathBuf::from(text);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(path),
        Ok(_) => Err(NoFolder::File),
        Err(_) => Err(NoFolder::Missing),
    }
}

/// Why `--root` names no folder (the command line says which value it was).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoFolder {
    /// It names a file.
    #[error("this is a file; give the site folder, the one holding `content/`")]
    File,
    /// Nothing is there (or it cannot be looked at).
    #[error("there is no such folder")]
    Missing,
}

/// What to build, from the command line.
#[derive(Debug, Clone)]
pub struct Options {
    /// The site folder, holding `content/` (and optionally site.yaml, templates/, static/).
    pub root: PathBuf,
    /// Default: `public/` under the root.
    pub output: Option<PathBuf>,
    /// Overrides `site.yaml`'s `base_url`.
    pub base_url: Option<BaseUrl>,
    /// Include incidents marked `draft: true`.
    pub drafts: bool,
    /// Write the theme's assets under names that carry a hash of their bytes. `build` does;
    /// `serve` does not, so a stylesheet edit can be swapped in without reloading pages.
    pub hash_assets: bool,
    /// Also write `.gz` and `.br` siblings of text files over a kilobyte.
    pub precompress: bool,
    /// Where `build` keeps its cache (`.outages-cache/` from the command line); `None`
    /// builds from scratch and keeps nothing.
    pub cache_dir: Option<PathBuf>,
}

impl Options {
    /// The defaults for the site at `root`: output in `public/`, hashed asset names, no
    /// drafts, no precompression and no cache.
    pub fn new(root: impl Into<PathBuf>) -> Options {
        Options {
            root: root.into(),
            output: None,
            base_url: None,
            drafts: false,
            hash_assets: true,
            precompress: false,
            cache_dir: None,
        }
    }

    /// What of the options shapes the pages, as the build cache keys its output: every
    /// field is named, so that a new one does not compile until it is placed on one side
    /// (a stale output would be reused) or the other. The root and the output folder are
    /// keyed by the cache itself, resolved.
    pub fn shaping(&self) -> String {
        let Options {
            root: _,
            output: _,
            cache_dir: _,
            base_url,
            drafts,
            hash_assets,
            precompress,
        } = self;
        format!("{base_url:?}\n{drafts}\n{hash_assets}\n{precompress}\n")
    }

    /// The output folder: `output` if given, else `public/` under the root.
    pub fn output_dir(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| self.root.join("public"))
    }
}

/// Content files as a build read them, by path (`None`: gone).
pub type Changes = Vec<(PathBuf, Option<Result<Loaded, Vec<Diagnostic>>>)>;

/// A loaded site, kept whole so that an update can render only what a change touches.
pub struct Site {
    pub(crate) options: Options,
    /// The settings of `site.yaml`, with `--base-url` (if given) in place of its `base_url`.
    pub config: Config,
    /// The templates and assets: the built-in theme's, or the site's own where it has them.
    pub theme: Theme,
    /// Every content file and what it gave, kept so a rebuild re-reads only what changed.
    files: Files,
    /// The incidents and providers, assembled and sorted.
    pub archive: Archive,
    /// What the templates show of the archive, made from it.
    pub views: Views,
    /// Every file of the site, sorted by path (empty while `unplanned`).
    pub pages: Vec<Page>,
    /// For a site as the build cache holds it: the plan is not made, and this is its
    /// fingerprint. An update makes it only if the new plan's differs.
    unplanned: Option<Hash>,
    /// Changes read since the last successful update, not yet in the pages.
    pending_content: Pending,
    pending_templates: bool,
    pending_static: bool,
    pending_config: bool,
}

/// What one update did.
#[derive(Debug, Default)]
pub struct Rerendered<T = (String, Vec<u8>)> {
    /// Pages rendered again, as the caller took them (by default their paths and bytes).
    pub rendered: Vec<T>,
    /// Paths that no longer belong to the site.
    pub removed: Vec<String>,
}

impl Site {
    /// How many HTML pages it has, for a build's summary.
    pub fn html_pages(&self) -> usize {
        self.pages
            .iter()
            .filter(|p| p.path.ends_with(".html"))
            .count()
    }

    /// Reads site.yaml, content and theme, reporting the problems of all three at once.
    pub fn load(options: &Options) -> Result<Site, Diagnostics> {
        Site::load_with(options, || content::load_all(&options.root))
    }

    /// As [`Site::load`], with the content files as `content` gives them (parsed, or
    /// taken from the build cache).
    pub fn load_with(
        options: &Options,
        content: impl FnOnce() -> Result<Files, Vec<Diagnostic>> + Send,
    ) -> Result<Site, Diagnostics> {
        Site::load_inner(options, content, None)
    }

    /// As [`Site::load_with`], but without making the plan, which had this fingerprint:
    /// the site a build after an edit starts from, which needs its plan only if it changed.
    /// Its `pages` stay empty until [`Site::update_content`] makes or takes the plan: that
    /// is the one thing to do with such a site.
    pub fn load_unplanned(
        options: &Options,
        content: impl FnOnce() -> Result<Files, Vec<Diagnostic>> + Send,
        fingerprint: Hash,
    ) -> Result<Site, Diagnostics> {
        Site::load_inner(options, content, Some(fingerprint))
    }

    fn load_inner(
        options: &Options,
        content: impl FnOnce() -> Result<Files, Vec<Diagnostic>> + Send,
        unplanned: Option<Hash>,
    ) -> Result<Site, Diagnostics> {
        let root = &options.root;
        let (config, (files, theme)) = rayon::join(
            || Config::load(root),
            || rayon::join(content, || Theme::load(root, options.hash_assets)),
        );
        let (mut config, files, mut theme) = match (config, files, theme) {
            (Ok(config), Ok(files), Ok(theme)) => (config, files, theme),
            (config, files, theme) => {
                let mut errors: Vec<Diagnostic> = [config.err(), theme.err()]
                    .into_iter()
                    .flatten()
                    .flatten()
                    .collect();
                match files {
                    Ok(files) => errors.extend(
                        content::collect(&files, options.drafts)
                            .err()
                            .unwrap_or_default(),
                    ),
                    Err(problems) => errors.extend(problems),
                }
                return Err(Diagnostics::sorted(errors));
            }
        };
        if let Some(base_url) = &options.base_url {
            config.base_url = base_url.clone();
        }
        render::set_site(&mut theme, &config);
        let archive = assemble(&files, options.drafts, &config, &theme)?;
        // The plan is mostly one thread's work: made beside the views, which take the rest.
        let (views, pages) = rayon::join(
            || Views::new(&archive, &config.base_url, None),
            || match unplanned {
                Some(_) => Ok(Vec::new()),
                None => render::plan(&archive, &config, &theme),
            },
        );
        let pages = pages.map_err(Diagnostics::sorted)?;
        Ok(Site {
            options: options.clone(),
            config,
            theme,
            files,
            archive,
            views,
            pages,
            unplanned,
            pending_content: Pending::default(),
            pending_templates: false,
            pending_static: false,
            pending_config: false,
        })
    }

    /// The warnings of every incident of the archive, in file order.
    pub fn warnings(&self) -> Diagnostics {
        Diagnostics::sorted(
            self.archive
                .incidents
                .iter()
                .flat_map(|incident| incident.warnings.iter().cloned())
                .chain(self.archive.far_apart())
                .chain(self.archive.stale())
                .collect(),
        )
    }

    /// Every content file and what it gave.
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// What renders the site's pages, as [`render_pages`] takes it.
    pub fn renderer(&self) -> Renderer<'_> {
        Renderer {
            archive: &self.archive,
            pages: &self.pages,
            config: &self.config,
            theme: &self.theme,
            views: &self.views,
        }
    }

    /// Applies changed paths (files or folders, created, edited or deleted) and renders the
    /// pages they touch. On an error the site stays as it was, but remembers what it read,
    /// so fixing the file is enough for a later update to succeed.
    pub fn update(&mut self, changed: &[PathBuf]) -> Result<Rerendered, Diagnostics> {
        self.update_with(changed, |page, bytes| (page.path.clone(), bytes))
    }

    /// As [`Site::update_with`], with content files the caller has read and parsed
    /// already (`None`: gone), as a build's look at its cache gives them: nothing is read
    /// again.
    pub fn update_content<T: Send>(
        &mut self,
        files: Changes,
        each: impl Fn(&Page, Vec<u8>) -> T + Sync,
    ) -> Result<Rerendered<T>, Diagnostics> {
        for (path, loaded) in files {
            self.set_file(path, loaded);
        }
        self.update_with(&[], each)
    }

    /// As [`Site::update`], handing each page rendered again to `each` as it is made.
    pub fn update_with<T: Send>(
        &mut self,
        changed: &[PathBuf],
        each: impl Fn(&Page, Vec<u8>) -> T + Sync,
    ) -> Result<Rerendered<T>, Diagnostics> {
        let root = self.options.root.clone();
        let relative: Vec<PathBuf> = changed
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap_or(p).to_path_buf())
            .collect();
        let touches = |dir: &str| relative.iter().any(|p| p.starts_with(dir));
        // A broken site.yaml stays pending until it is fixed, whatever changes meanwhile.
        self.pending_config |= relative.iter().any(|p| p == Path::new(CONFIG_FILE));
        if self.pending_config {
            self.make_plan()?;
            return self.reload_all(each);
        }
        if touches(CONTENT_DIR) {
            self.reread_content(&relative)
                .map_err(Diagnostics::sorted)?;
        }
        self.pending_templates |= touches(TEMPLATES_DIR);
        self.pending_static |= touches(STATIC_DIR);

        // Everything new is made aside and kept only if every page renders.
        let next = self.make_next()?;
        let (archive, views) = next.content(self);
        let renderer = Renderer {
            archive,
            pages: next.pages.as_deref().unwrap_or(&self.pages),
            config: &self.config,
            theme: next.theme.as_ref().unwrap_or(&self.theme),
            views,
        };
        let rendered = render_pages(&renderer, &self.to_render(&next), each)?;
        let removed = self.removed(&next);
        self.adopt(next);
        Ok(Rerendered { rendered, removed })
    }

    /// The theme, archive, views and plan after what is pending, each made only if it
    /// changed.
    fn make_next(&mut self) -> Result<Next, Diagnostics> {
        let theme = if self.pending_templates || self.pending_static {
            let mut theme = Theme::load(&self.options.root, self.options.hash_assets)
                .map_err(Diagnostics::sorted)?;
            render::set_site(&mut theme, &self.config);
            Some(theme)
        } else {
            None
        };
        let theme_ref = theme.as_ref().unwrap_or(&self.theme);
        let new_archive = match self.pending_content.paths.is_empty() {
            false => Some(self.assemble_pending(theme_ref)?),
            true => None,
        };
        // The plan is made again from what changed, and kept only if it differs: whatever a
        // page's path depends on, a changed path is seen. Made beside the views.
        let (new_views, plan) = rayon::join(
            || {
                let previous = Some(&self.views);
                new_archive
                    .as_ref()
                    .map(|archive| Views::new(archive, &self.config.base_url, previous))
            },
            || {
                let archive = new_archive.as_ref().unwrap_or(&self.archive);
                (new_archive.is_some() || theme.is_some() || self.unplanned.is_some())
                    .then(|| render::plan(archive, &self.config, theme_ref))
            },
        );
        let pages = match plan.transpose().map_err(Diagnostics::sorted)? {
            // The plan the site had, unmade: it is the new one.
            Some(plan)
                if self
                    .unplanned
                    .is_some_and(|f| f == render::fingerprint(&plan)) =>
            {
                self.unplanned = None;
                self.pages = plan;
                None
            }
            Some(plan) => {
                self.make_plan()?;
                (plan != self.pages).then_some(plan)
            }
            None => None,
        };
        Ok(Next {
            theme,
            content: new_archive.zip(new_views),
            pages,
        })
    }

    /// The pages an update renders again: those one of whose declared inputs changed, and
    /// those at a path that is new or that another kind of page now makes (a static
    /// robots.txt deleted: the generated one is back).
    fn to_render<'a>(&'a self, next: &'a Next) -> Vec<&'a Page> {
        let (archive, views) = next.content(self);
        let content = match self.pending_content.paths.is_empty() {
            false => deps::changed(
                Snapshot {
                    archive: &self.archive,
                    views: &self.views,
                },
                Snapshot { archive, views },
            ),
            true => ChangeSet::default(),
        };
        // A renamed asset (its hash changed) is linked from every page.
        let assets_renamed =
            (next.theme.as_ref()).is_some_and(|t| t.asset_paths != self.theme.asset_paths);
        let changes = content
            .with_theme(
                self.pending_templates || assets_renamed,
                self.pending_static,
            )
            .with_plan(next.pages.is_some());
        // Only when the plan changed: which kind made each path before.
        let old_kinds: Option<HashMap<&str, Discriminant<What>>> = next.pages.as_ref().map(|_| {
            (self.pages.iter())
                .map(|p| (p.path.as_str(), discriminant(&p.what)))
                .collect()
        });
        let made_elsewhere = |page: &Page| {
            old_kinds.as_ref().is_some_and(|kinds| {
                kinds.get(page.path.as_str()) != Some(&discriminant(&page.what))
            })
        };
        (next.pages.as_deref().unwrap_or(&self.pages))
            .iter()
            .filter(|page| changes.meets(archive, page.reads(archive)) || made_elsewhere(page))
            .collect()
    }

    /// The paths of the site that the next plan no longer has, sorted (as the plan is).
    fn removed(&self, next: &Next) -> Vec<String> {
        let Some(pages) = &next.pages else {
            return Vec::new();
        };
        let new_paths: HashSet<&str> = pages.iter().map(|p| p.path.as_str()).collect();
        (self.pages.iter())
            .filter(|p| !new_paths.contains(p.path.as_str()))
            .map(|p| p.path.clone())
            .collect()
    }

    /// Keeps what an update made, once every page rendered.
    fn adopt(&mut self, next: Next) {
        if let Some(theme) = next.theme {
            self.theme = theme;
        }
        if let Some((archive, views)) = next.content {
            self.archive = archive;
            self.views = views;
        }
        if let Some(pages) = next.pages {
            self.pages = pages;
        }
        self.pending_content = Pending::default();
        (self.pending_templates, self.pending_static) = (false, false);
    }

    /// Sets what a content file gives (`None`: it is gone), remembering what it gave.
    fn set_file(&mut self, path: PathBuf, loaded: Option<Result<Loaded, Vec<Diagnostic>>>) {
        let before = match loaded {
            Some(loaded) => self.files.insert(path.clone(), loaded),
            None => self.files.remove(&path),
        };
        if let Some(Ok(Loaded::Incident(incident))) = before {
            self.pending_content.replaced.push(incident);
        }
        self.pending_content.paths.insert(path);
    }

    /// The archive of the files with what is pending: amended from the last one when
    /// that can be, else assembled anew (which also says what is wrong).
    fn assemble_pending(&self, theme: &Theme) -> Result<Archive, Diagnostics> {
        match self.amended() {
            Some(archive) => Ok(archive),
            None => assemble(&self.files, self.options.drafts, &self.config, theme),
        }
    }

    /// The last archive with the pending files in, when each is an incident that parsed
    /// (or is gone), and none shares its id (or slug, standing in for one) with another of
    /// its provider: what [`assemble`] would make of the files, without most of its work.
    fn amended(&self) -> Option<Archive> {
        let mut added = Vec::new();
        for path in &self.pending_content.paths {
            // A provider's file (its description is read with the archive's) or a file
            // with problems: assembling says what they give.
            if path.file_name() == Some(content::PROVIDER_FILE.as_ref()) {
                return None;
            }
            match self.files.get(path) {
                Some(Ok(Loaded::Incident(incident)))
                    if !content::shown(incident, self.options.drafts) => {}
                Some(Ok(Loaded::Incident(incident))) => added.push(Arc::clone(incident)),
                Some(_) => return None,
                None => {}
            }
        }
        let archive = self
            .archive
            .amend(&self.pending_content.replaced, added.clone())?;
        // Each key of the providers that gained incidents, counted once: linear in their
        // incidents however many files changed.
        let gaining: BTreeSet<&Slug> = added.iter().map(|new| &new.provider).collect();
        let mut keys: HashMap<(&Slug, &str), usize> = HashMap::default();
        for provider in gaining
            .into_iter()
            .filter_map(|slug| archive.provider(slug))
        {
            for &i in &provider.incidents {
                *keys
                    .entry(content::id_key(&archive.incidents[i]))
                    .or_default() += 1;
            }
        }
        let shares_its_key =
            |new: &Arc<Incident>| keys.get(&content::id_key(new)).is_some_and(|&n| n > 1);
        (!added.iter().any(shares_its_key)).then_some(archive)
    }

    /// The plan of a site loaded without one, made now. It planned when it was built, from
    /// these inputs; if it no longer does (a static file changed after the build looked at
    /// it), that is the update's error, and the output stays as it is.
    fn make_plan(&mut self) -> Result<(), Diagnostics> {
        if self.unplanned.is_some() {
            self.pages = render::plan(&self.archive, &self.config, &self.theme)
                .map_err(Diagnostics::sorted)?;
            self.unplanned = None;
        }
        Ok(())
    }

    /// site.yaml changed: everything may have.
    fn reload_all<T: Send>(
        &mut self,
        each: impl Fn(&Page, Vec<u8>) -> T + Sync,
    ) -> Result<Rerendered<T>, Diagnostics> {
        let fresh = Site::load(&self.options)?;
        let pages: Vec<&Page> = fresh.pages.iter().collect();
        let rendered = render_pages(&fresh.renderer(), &pages, each)?;
        let new: BTreeSet<&String> = fresh.pages.iter().map(|p| &p.path).collect();
        let removed = self
            .pages
            .iter()
            .map(|p| &p.path)
            .filter(|p| !new.contains(p))
            .cloned()
            .collect();
        *self = fresh;
        Ok(Rerendered { rendered, removed })
    }

    /// Reads again the changed content files, and the files of folders that appeared; drops
    /// the files of what went (a folder renamed or deleted gives one event for many files).
    /// Only the changed paths are looked at: no walk of the whole archive.
    fn reread_content(&mut self, relative: &[PathBuf]) -> Result<(), Vec<Diagnostic>> {
        let root = self.options.root.clone();
        let mut to_load = BTreeSet::new();
        let mut gone = Vec::new();
        for path in relative.iter().filter(|p| p.starts_with(CONTENT_DIR)) {
            match std::fs::symlink_metadata(root.join(path)) {
                Ok(meta) if meta.is_dir() => to_load.extend(content::files_under(&root, path)?),
                Ok(meta) if meta.is_file() => {
                    if content::is_listed(path) {
                        to_load.insert(path.clone());
                    }
                }
                // Gone (or a link, which a build does not follow): a file, or a folder
                // with every file in it.
                _ => gone.extend(
                    self.files
                        .range(path.clone()..)
                        .map(|(known, _)| known)
                        .take_while(|k| k.starts_with(path))
                        .cloned(),
                ),
            }
        }
        for path in gone {
            self.set_file(path, None);
        }
        let loaded: Vec<(PathBuf, Result<Loaded, Vec<Diagnostic>>)> = to_load
            .into_par_iter()
            .map(|p| {
                let loaded = content::load_file(&root, &p);
                (p, loaded)
            })
            .collect();
        for (path, loaded) in loaded {
            self.set_file(path, Some(loaded));
        }
        Ok(())
    }
}

/// What an update makes aside, kept only if every page renders: a new theme, archive and
/// views, and plan, each only where it changed.
struct Next {
    theme: Option<Theme>,
    content: Option<(Archive, Views)>,
    pages: Option<Vec<Page>>,
}

impl Next {
    /// The archive and views after the update: the new ones, or the site's.
    fn content<'a>(&'a self, site: &'a Site) -> (&'a Archive, &'a Views) {
        match &self.content {
            Some((archive, views)) => (archive, views),
            None => (&site.archive, &site.views),
        }
    }
}

/// Content files read since the last successful update.
#[derive(Default)]
struct Pending {
    paths: BTreeSet<PathBuf>,
    /// The incidents they gave before, which the archive may show (held, so that no new
    /// incident takes the address of one: the archive finds them by pointer).
    replaced: Vec<Arc<Incident>>,
}

/// Renders pages in parallel, calling `each` with every page's bytes; a broken template
/// is reported once, not once per page.
pub fn render_pages<T: Send>(
    renderer: &Renderer,
    pages: &[&Page],
    each: impl Fn(&Page, Vec<u8>) -> T + Sync,
) -> Result<Vec<T>, Diagnostics> {
    let results: Vec<Result<T, Diagnostic>> = pages
        .par_iter()
        .map(|page| renderer.render(page).map(|bytes| each(page, bytes)))
        .collect();
    let mut done = Vec::with_capacity(results.len());
    let mut errors: Vec<Diagnostic> = Vec::new();
    for result in results {
        match result {
            Ok(value) => done.push(value),
            Err(error) if errors.iter().any(|e| e.path == error.path) => {}
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Ok(done)
    } else {
        Err(Diagnostics::sorted(errors))
    }
}

/// The archive of the files, or every problem of the archive in one report: those of the
/// files, and the path conflicts among the files that did parse (planned here, since the
/// plan proper waits for a whole archive).
fn assemble(
    files: &Files,
    drafts: bool,
    config: &Config,
    theme: &Theme,
) -> Result<Archive, Diagnostics> {
    let (content, mut errors) = content::gather(files, drafts);
    let archive = Archive::assemble(content, config.rules());
    if errors.is_empty() {
        return Ok(archive);
    }
    // The files that parsed are planned too, so their path conflicts come in the same
    // report as every other problem.
    let plan = render::plan(&archive, config, theme);
    errors.extend(plan.err().unwrap_or_default());
    Err(Diagnostics::sorted(errors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_that_shapes_pages_changes_the_caches_key_and_no_other_does() {
        let base = Options::new("site");
        let shaping = base.shaping();
        let url = BaseUrl::parse("https://example.com/x/").expect("a base URL");
        let shaped = [
            Options {
                base_url: Some(url),
                ..base.clone()
            },
            Options {
                drafts: true,
                ..base.clone()
            },
            Options {
                hash_assets: false,
                ..base.clone()
            },
            Options {
                precompress: true,
                ..base.clone()
            },
        ];
        for options in shaped {
            assert_ne!(options.shaping(), shaping, "{options:?}");
        }
        // Keyed apart, resolved: the root and the output folder; the cache's own folder
        // shapes nothing.
        let apart = Options {
            root: "elsewhere".into(),
            output: Some("out".into()),
            cache_dir: Some("cache".into()),
            ..base.clone()
        };
        assert_eq!(apart.shaping(), shaping);
    }
}
