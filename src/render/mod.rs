//! From the archive to bytes: the page plan (every file of the site and what it is made
//! from), then rendering each page. Nothing here touches the output folder.

pub(crate) mod api;
pub(crate) mod badges;
pub(crate) mod balance;
pub(crate) mod charts;
pub(crate) mod deps;
pub(crate) mod exports;
pub(crate) mod feeds;
pub(crate) mod hosting;
pub(crate) mod ics;
mod insights;
pub(crate) mod kinds;
mod llms;
pub mod markdown;
pub(crate) mod paging;
mod sitemap;
pub(crate) mod theme;
pub(crate) mod views;
pub(crate) mod words;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::NaiveDate;
use foldhash::HashSet;
use rayon::prelude::*;
use serde::Serialize;
use tera::Context;
use unicode_normalization::UnicodeNormalization;

use crate::archive::{Archive, ComponentIx, IncidentIx, ProviderIx};
use crate::config::Config;
use crate::content::CONTENT_DIR;
use crate::diagnostics::Diagnostic;
use crate::model::Impact;
use crate::render::deps::Reads;
use crate::render::feeds::FeedSpec;
use crate::render::kinds::{Dates, Planning, What};
use crate::render::theme::Theme;
use crate::render::views::{FeedLinks, SummaryView, Views};
use crate::routes::{self, FeedSet};

/// One file of the site: its path under the output folder and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Page {
    /// `/`-separated, relative, made only of checked slugs and fixed names.
    pub path: String,
    /// Its kind, and the key it is rendered from.
    pub(crate) what: What,
}

impl Page {
    /// What the page reads in `archive`, as its kind declares.
    pub fn reads(&self, archive: &Archive) -> Reads {
        self.what.reads(archive)
    }
}

/// Every file of the site, sorted by path, or every path conflict: two things written to
/// one path (or to paths that differ only in case), or a file where another needs a
/// folder (`aliases: [/feed.xml/x/]`). Each is found here, before anything is written.
pub fn plan(
    archive: &Archive,
    config: &Config,
    theme: &Theme,
) -> Result<Vec<Page>, Vec<Diagnostic>> {
    let mut pages = kinds::plan_every_kind(&Planning {
        archive,
        theme,
        config,
    });
    // A site's own static file replaces a generated file of the site of the same name (a
    // custom robots.txt, say); one where an incident or a provider writes is a conflict.
    let assets: HashSet<&str> = theme.assets.iter().map(|a| a.path.as_str()).collect();
    let replaced = |page: &Page| page.what.site_file() && assets.contains(page.path.as_str());
    pages.retain(|page| !replaced(page));
    // Then the pages made from the plan: the sitemap's parts, from how many it lists.
    let listed = pages.iter().filter(|page| page.what.in_sitemap()).count();
    let mut after = kinds::plan_after_every_kind(listed);
    after.retain(|page| !replaced(page));
    pages.extend(after);
    let pages = sorted_by_path(pages);
    let mut errors = conflicts(archive, theme, &pages);
    if config.search {
        errors.extend(in_search_index(archive, theme, &pages));
    }
    if errors.is_empty() {
        Ok(pages)
    } else {
        Err(errors)
    }
}

/// A fingerprint of a plan: equal for equal plans (made by one program), so a build can
/// tell whether its plan is the last build's without making that one again.
pub fn fingerprint(pages: &[Page]) -> crate::cache::Hash {
    use std::hash::{Hash, Hasher};
    /// Feeds what `Hash` writes to BLAKE3, in blocks: a page writes a few bytes at a time.
    struct Blake3 {
        hasher: blake3::Hasher,
        block: Vec<u8>,
    }
    impl Hasher for Blake3 {
        fn write(&mut self, bytes: &[u8]) {
            if self.block.len() + bytes.len() > self.block.capacity() {
                self.hasher.update(&self.block);
                self.block.clear();
            }
            self.block.extend_from_slice(bytes);
        }
        fn finish(&self) -> u64 {
            let mut hasher = self.hasher.clone();
            hasher.update(&self.block);
            let mut first = [0; 8];
            first.copy_from_slice(&hasher.finalize().as_bytes()[..8]);
            u64::from_le_bytes(first)
        }
    }
    let mut state = Blake3 {
        hasher: blake3::Hasher::new(),
        block: Vec::with_capacity(64 * 1024),
    };
    pages.hash(&mut state);
    state.hasher.update(&state.block);
    *state.hasher.finalize().as_bytes()
}

/// The pages by path, those of one path in the order they came (by kind, then as each
/// kind gave them): an unstable sort of each path with its position, which makes it stable,
/// moving pairs rather than pages.
fn sorted_by_path(pages: Vec<Page>) -> Vec<Page> {
    let mut order: Vec<(&str, usize)> = pages
        .iter()
        .enumerate()
        .map(|(i, page)| (page.path.as_str(), i))
        .collect();
    order.par_sort_unstable();
    let order: Vec<usize> = order.into_iter().map(|(_, i)| i).collect();
    let mut slots: Vec<Option<Page>> = pages.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Every pair of pages that cannot both be written, once. Paths are compared lowercased:
/// a build on macOS or Windows, or a host that ignores case, would make `Old/` and `old/`
/// one file. Linear in the paths' length (times a logarithm): an alias may be long.
fn conflicts(archive: &Archive, theme: &Theme, pages: &[Page]) -> Vec<Diagnostic> {
    // Paths are compared as a file system that folds case and Unicode normalization (macOS,
    // some CDNs) would: `/café/` written as one character or as `e` and an accent is one
    // folder. Slugs are lowercase ASCII already: only the odd alias or static file is
    // copied to compare.
    let mut keys: Vec<(Cow<str>, usize)> = pages
        .iter()
        .enumerate()
        .map(|(i, page)| {
            let path = page.path.as_str();
            let key = match path.is_ascii() {
                true if path.bytes().any(|b| b.is_ascii_uppercase()) => {
                    Cow::Owned(path.to_ascii_lowercase())
                }
                true => Cow::Borrowed(path),
                false => Cow::Owned(path.nfc().collect::<String>().to_lowercase()),
            };
            (key, i)
        })
        .collect();
    // Sorted already unless a path has capitals or other letters than ASCII.
    if !keys.is_sorted() {
        keys.par_sort_unstable();
    }
    let mut errors = Vec::new();
    // A name a filesystem cannot hold (255 bytes on most; `--precompress` adds 3) fails
    // only when written: found here instead, with `check`.
    for page in pages.iter().filter(|page| page.path.len() > MAX_NAME) {
        if let Some(long) = page.path.split('/').find(|name| name.len() > MAX_NAME) {
            let diagnostic = at_owner(archive, theme, page, |what| {
                format!(
                    "{what} would be written under a name of {} bytes, longer than a file system allows",
                    long.len()
                )
            })
            .with_hint(format!("shorten the file name, `slug:` or alias to at most {MAX_NAME} bytes"));
            errors.push(diagnostic);
        }
    }
    for pair in keys.windows(2) {
        if pair[0].0 == pair[1].0 {
            let (first, second) = (&pages[pair[0].1], &pages[pair[1].1]);
            let message = if first.path == second.path {
                format!("would be written to `{}`", first.path)
            } else {
                format!(
                    "would be written to `{}`, which differs only in case or Unicode normalization from `{}`",
                    second.path, first.path
                )
            };
            errors.push(
                clash(archive, theme, first, second, message)
                    .with_hint("give one of them another path: another `slug:`, or another alias"),
            );
        }
    }
    // A file at a path another page needs as a folder.
    for (file, inside) in files_and_folders(&keys) {
        let (file, inside) = (&pages[file], &pages[inside]);
        let message = format!(
            "`{}` would be a file, and also a folder holding `{}`",
            file.path, inside.path
        );
        errors.push(clash(archive, theme, file, inside, message).with_hint(
            "a path cannot be a file and a folder at once: choose an alias outside every file",
        ));
    }
    errors
}

/// Of `keys` (sorted paths, each with its page), each path that some other path needs as
/// a folder, once, with the first page under it: `(file, inside)`. The keys that begin
/// with a path come right after it: first those that go on with a byte before `/` (`a-2`,
/// `a.gz`), then those under `path/`. A few steps forward find the first of those, as a
/// rule; a search, past many (so that no list of keys makes this quadratic).
fn files_and_folders<K: AsRef<str>>(keys: &[(K, usize)]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut previous = None;
    for (i, (key, file)) in keys.iter().enumerate() {
        let key = key.as_ref();
        // One report per path, even when two pages share it.
        if previous.replace(key) == Some(key) {
            continue;
        }
        let mut at = i + 1;
        // The keys after it are no smaller: one before `key/` goes on from it.
        while keys
            .get(at)
            .is_some_and(|(other, _)| before_folder(other.as_ref(), key))
        {
            at += 1;
            if at - i > FORWARD_STEPS {
                at = keys.partition_point(|(other, _)| before_folder(other.as_ref(), key));
                break;
            }
        }
        if let Some((under, inside)) = keys.get(at)
            && under
                .as_ref()
                .strip_prefix(key)
                .is_some_and(|rest| rest.starts_with('/'))
        {
            found.push((*file, *inside));
        }
    }
    found
}

/// An error about a page, at the place of whoever writes it (its file, or its alias's line).
fn at_owner(
    archive: &Archive,
    theme: &Theme,
    page: &Page,
    message: impl FnOnce(&str) -> String,
) -> Diagnostic {
    let owner = owner(archive, theme, page);
    let (path, line, col) = owner
        .place
        .unwrap_or_else(|| (PathBuf::from(CONTENT_DIR), 0, 0));
    let mut diagnostic = Diagnostic::file(path, message(&owner.what));
    (diagnostic.line, diagnostic.col) = (line, col);
    diagnostic
}

/// Pages planned inside `pagefind/`, which the search index owns as a whole (its files
/// are named by Pagefind, so they cannot be checked one by one against the plan).
fn in_search_index(archive: &Archive, theme: &Theme, pages: &[Page]) -> Vec<Diagnostic> {
    let first = pages.partition_point(|p| p.path.as_str() < routes::SEARCH_INDEX_DIR);
    pages[first..]
        .iter()
        .take_while(|page| page.path.starts_with(routes::SEARCH_INDEX_DIR))
        .map(|page| {
            at_owner(archive, theme, page, |what| {
                format!(
                    "{what} would be written to `{}`, inside `{}`, where the search index goes",
                    page.path,
                    routes::SEARCH_INDEX_DIR
                )
            })
            .with_hint("give it another path (another slug, alias or file name), or set `search: false` in site.yaml")
        })
        .collect()
}

/// The longest name of a file or folder of the output: 255 bytes, less the 3 of `.gz`.
const MAX_NAME: usize = 252;
/// Steps forward from a path to the paths under it, before a search instead.
const FORWARD_STEPS: usize = 8;

/// Whether `other` sorts before `folder` + `/`, without making that string.
fn before_folder(other: &str, folder: &str) -> bool {
    match other.strip_prefix(folder) {
        Some(rest) => rest.as_bytes().first().is_none_or(|&b| b < b'/'),
        None => other < folder,
    }
}

/// The error for two pages that cannot both be written, at the alias's line when one of
/// them is an alias, else in the file one of them comes from.
fn clash(
    archive: &Archive,
    theme: &Theme,
    first: &Page,
    second: &Page,
    message: String,
) -> Diagnostic {
    let (a, b) = (owner(archive, theme, first), owner(archive, theme, second));
    let (here, other) = match (&a.place, &b.place) {
        (Some((_, line, _)), _) if *line > 0 => (a, b),
        (_, Some((_, line, _))) if *line > 0 => (b, a),
        (Some(_), _) => (a, b),
        (_, Some(_)) => (b, a),
        (None, None) => (a, b),
    };
    let (path, line, col) = here
        .place
        .unwrap_or_else(|| (PathBuf::from(CONTENT_DIR), 0, 0));
    let other = match other.place {
        Some((file, line, col)) if line > 0 => {
            format!("{} ({}:{line}:{col})", other.what, file.display())
        }
        _ => other.what,
    };
    let mut diagnostic = Diagnostic::file(
        path,
        format!("{message}: {} and {other} cannot both be there", here.what),
    );
    (diagnostic.line, diagnostic.col) = (line, col);
    diagnostic
}

/// Who writes a page: a description, and where to point an error at, if anywhere.
pub(crate) struct Owner {
    pub(crate) what: String,
    /// The file, and the line and column (0 for the file as a whole).
    pub(crate) place: Option<(PathBuf, usize, usize)>,
}

fn owner(archive: &Archive, theme: &Theme, page: &Page) -> Owner {
    page.what.owner(archive, theme, page)
}

/// Renders pages from an archive and its views (each made when a page first asks for it).
pub struct Renderer<'a> {
    pub(crate) archive: &'a Archive,
    /// Every page of the site, sorted by path: what the sitemap lists.
    pub(crate) pages: &'a [Page],
    pub(crate) config: &'a Config,
    pub(crate) theme: &'a Theme,
    pub(crate) views: &'a Views,
}

#[derive(Serialize)]
struct SiteView<'a> {
    title: &'a str,
    description: &'a str,
    language: &'a str,
    url: String,
    path: &'a str,
    /// Each theme asset's URL path, by name: `{{ site.assets["style.css"] }}`.
    assets: BTreeMap<&'a str, String>,
    feeds: FeedLinks,
    /// The search page's path, where the header's box sends its query; none without search.
    search: Option<String>,
}

#[derive(Serialize)]
struct PageMeta<'a> {
    kind: &'static str,
    title: &'a str,
    description: String,
    canonical: String,
    feeds: &'a FeedLinks,
    feed_title: String,
}

#[derive(Serialize)]
pub(crate) struct Year<'a> {
    pub year: i32,
    pub incidents: Vec<&'a SummaryView>,
}

/// Gives every template the site's settings, serialised once for all pages.
pub fn set_site(theme: &mut Theme, config: &Config) {
    let base = &config.base_url;
    let site = SiteView {
        title: &config.title,
        description: &config.description,
        language: &config.language,
        url: base.url(""),
        path: base.root_path(),
        assets: theme
            .asset_paths
            .iter()
            .map(|(name, path)| (name.as_str(), base.path(path)))
            .collect(),
        feeds: FeedLinks::new(base, ""),
        search: config.search.then(|| base.path(routes::SEARCH_DIR)),
    };
    theme.tera.global_context().insert("site", &site);
}

impl Renderer<'_> {
    /// The bytes of one page, as its kind makes them. A template error names the template
    /// and the page.
    pub fn render(&self, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        page.what.render(self, page)
    }

    pub(crate) fn html_context(
        &self,
        kind: &'static str,
        title: &str,
        description: String,
        site_path: &str,
        feeds: &FeedLinks,
        feed_title: &str,
    ) -> Context {
        let mut ctx = Context::new();
        ctx.insert(
            "page",
            &PageMeta {
                kind,
                title,
                description,
                canonical: self.config.base_url.url(site_path),
                feeds,
                feed_title: feed_title.to_string(),
            },
        );
        ctx
    }

    pub(crate) fn template(
        &self,
        name: &str,
        page: &Page,
        ctx: &Context,
    ) -> Result<Vec<u8>, Diagnostic> {
        let mut out = Vec::with_capacity(16 * 1024);
        self.theme
            .tera
            .render_to(name, ctx, &mut out)
            .map_err(|error| self.theme.template_error(&error, Some(&page.path)))?;
        Ok(out)
    }

    pub(crate) fn feed_spec(&self, scope: Option<ProviderIx>, set: FeedSet) -> FeedSpec<'_> {
        let base = &self.config.base_url;
        let limit = self.config.feed_limit;
        // Chosen from the archive: only the views shown are made.
        let kept = |i: IncidentIx| match set {
            FeedSet::All => true,
            FeedSet::Major => self.archive.incidents[i].impact == Impact::Critical,
        };
        let (what, of) = match set {
            FeedSet::All => ("incidents", "Every incident"),
            FeedSet::Major => ("major outages", "Every major outage"),
        };
        match scope {
            None => FeedSpec {
                title: match set {
                    FeedSet::All => self.config.title.clone(),
                    FeedSet::Major => format!("{}: major outages", self.config.title),
                },
                description: match set {
                    FeedSet::All => self.config.description.clone(),
                    FeedSet::Major => format!("{of} in the {}.", self.config.title),
                },
                language: &self.config.language,
                home_url: base.url(""),
                dir_url: base.url(&routes::feed_dir("", set)),
                tag: routes::feed_tag(None, set),
                entries: IncidentIx::all(self.archive.incidents.len())
                    .filter(|&x| kept(x))
                    .take(limit)
                    .map(|x| &*self.views.incidents[x])
                    .collect(),
                brief: false,
            },
            Some(i) => {
                let provider = &self.views.providers[i];
                FeedSpec {
                    title: format!("{} {what} · {}", provider.reference.name, self.config.title),
                    description: format!("{of} of {}.", provider.reference.name),
                    language: &self.config.language,
                    home_url: provider.reference.url.clone(),
                    dir_url: base.url(&routes::feed_dir(
                        &routes::provider_dir(&provider.reference.slug),
                        set,
                    )),
                    tag: routes::feed_tag(Some(&provider.reference.slug), set),
                    entries: self.archive.providers[i]
                        .incidents
                        .iter()
                        .copied()
                        .filter(|&x| kept(x))
                        .take(limit)
                        .map(|x| &*self.views.incidents[x])
                        .collect(),
                    brief: false,
                }
            }
        }
    }

    /// A component's feed: its incidents, newest first, as many as a feed holds, each by its
    /// facts and a link.
    pub(crate) fn component_feed_spec(&self, i: ProviderIx, c: ComponentIx) -> FeedSpec<'_> {
        let provider = &self.views.providers[i];
        let component = &self.archive.providers[i].components[c];
        let (slug, name) = (&provider.reference.slug, &provider.reference.name);
        // The component's page is the folder of its feed.
        let page =
            (self.config.base_url).url(&routes::component_dir(slug, component.slug.as_str()));
        FeedSpec {
            title: format!("{name}: {} · {}", component.name, self.config.title),
            description: format!("Every incident of {name} that affected {}.", component.name),
            language: &self.config.language,
            dir_url: page.clone(),
            home_url: page,
            tag: routes::component_feed_tag(slug, component.slug.as_str()),
            entries: (component.incidents.iter())
                .take(self.config.feed_limit)
                .map(|&x| &*self.views.incidents[x])
                .collect(),
            brief: true,
        }
    }

    /// `sitemap.xml`: every page a search engine should know, or, past the limit of one
    /// sitemap, the index of the parts that list them.
    pub fn sitemap(&self) -> Vec<u8> {
        self.sitemap_of(sitemap::MAX_URLS)
    }

    /// Part `n` (from 1) of a sitemap split in parts.
    pub fn sitemap_part(&self, n: usize) -> Vec<u8> {
        self.sitemap_part_of(n, sitemap::MAX_URLS)
    }

    /// The sitemap, of parts of at most `per_part` pages each.
    fn sitemap_of(&self, per_part: usize) -> Vec<u8> {
        let dates = Dates::new(self.archive);
        let listed = self.listed().count();
        if listed <= per_part {
            return sitemap::sitemap(self.listed().map(|page| self.sitemap_entry(page, &dates)));
        }
        let base = &self.config.base_url;
        let mut pages = self.listed();
        let newest: Vec<(String, Option<NaiveDate>)> = (1..=listed.div_ceil(per_part))
            .map(|n| {
                let part = pages.by_ref().take(per_part);
                let newest = part.filter_map(|page| page.what.lastmod(&dates)).max();
                (base.url(&routes::sitemap_part(n)), newest)
            })
            .collect();
        sitemap::index(newest.into_iter())
    }

    /// Part `n` (from 1) of a sitemap of parts of at most `per_part` pages each. Finding
    /// where a part starts looks only at each page's kind, never at the archive.
    fn sitemap_part_of(&self, n: usize, per_part: usize) -> Vec<u8> {
        let dates = Dates::new(self.archive);
        let skip = n.saturating_sub(1).saturating_mul(per_part);
        let pages = self.listed().skip(skip).take(per_part);
        sitemap::sitemap(pages.map(|page| self.sitemap_entry(page, &dates)))
    }

    /// The pages a sitemap lists, in the plan's order (by path).
    fn listed(&self) -> impl Iterator<Item = &Page> {
        self.pages.iter().filter(|page| page.what.in_sitemap())
    }

    /// The sitemap entry of a page: its URL, and the day it last changed.
    fn sitemap_entry(&self, page: &Page, dates: &Dates) -> sitemap::Entry {
        sitemap::Entry {
            url: self.config.base_url.url(routes::page_dir(&page.path)),
            lastmod: page.what.lastmod(dates),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn a_file_that_is_also_a_folder_is_found_as_a_search_of_every_path_would(
            paths in proptest::collection::vec("[a/.-]{1,4}", 0..40),
        ) {
            let mut keys: Vec<(&str, usize)> =
                paths.iter().enumerate().map(|(i, p)| (p.as_str(), i)).collect();
            keys.sort_unstable();
            // Each path once, with the first page (in order) under it.
            let mut expected = Vec::new();
            for (n, (key, file)) in keys.iter().enumerate() {
                if n > 0 && keys[n - 1].0 == *key {
                    continue;
                }
                let folder = format!("{key}/");
                if let Some((_, inside)) = keys.iter().find(|(other, _)| other.starts_with(&folder)) {
                    expected.push((*file, *inside));
                }
            }
            proptest::prop_assert_eq!(files_and_folders(&keys), expected);
        }
    }

    #[test]
    fn a_sitemap_in_parts_lists_what_one_sitemap_would_in_the_same_order() {
        let options = crate::site::Options::new(env!("CARGO_MANIFEST_DIR"));
        let site = crate::site::Site::load(&options).expect("the sample site loads");
        let renderer = site.renderer();
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
        let urls = |xml: &str, tag: &str| -> Vec<String> {
            let doc = roxmltree::Document::parse(xml).expect("XML");
            doc.descendants()
                .filter(|n| n.has_tag_name(tag))
                .map(|n| {
                    let loc = n.children().find(|c| c.has_tag_name("loc"));
                    let lastmod = n.children().find(|c| c.has_tag_name("lastmod"));
                    format!(
                        "{:?} {:?}",
                        loc.and_then(|l| l.text()),
                        lastmod.and_then(|l| l.text())
                    )
                })
                .collect()
        };
        let whole = urls(&text(renderer.sitemap()), "url");
        let listed = renderer.listed().count();
        assert_eq!(whole.len(), listed);
        assert!(listed > 20, "{listed}");
        // Parts of 7: an index of as many parts, each dated by its newest page.
        let index = urls(&text(renderer.sitemap_of(7)), "sitemap");
        assert_eq!(index.len(), listed.div_ceil(7));
        let mut joined = Vec::new();
        for n in 1..=index.len() {
            let part = urls(&text(renderer.sitemap_part_of(n, 7)), "url");
            assert!(!part.is_empty() && part.len() <= 7, "part {n}");
            let newest = part
                .iter()
                .filter_map(|u| u.split(' ').nth(1))
                .max()
                .unwrap();
            assert!(index[n - 1].ends_with(newest), "{} {newest}", index[n - 1]);
            joined.extend(part);
        }
        assert_eq!(joined, whole);
    }

    #[test]
    fn pages_of_the_whole_archive_make_only_the_views_they_show() {
        let options = crate::site::Options::new(env!("CARGO_MANIFEST_DIR"));
        let site = crate::site::Site::load(&options).expect("the sample site loads");
        let renderer = site.renderer();
        let render = |path: &str| {
            let page = site.pages.iter().find(|p| p.path == path).expect(path);
            renderer.render(page).expect(path);
        };
        let made = || site.views.incidents.made();
        let incidents = site.archive.incidents.len();
        // The providers' views need their longest and latest incidents', no more.
        let at_load = made();
        assert!(at_load <= 2 * site.archive.providers.len(), "{at_load}");
        // Rendered after every edit: the sitemap, the redirects and the calendar read the
        // archive.
        for path in ["sitemap.xml", "_redirects", "days/index.html"] {
            render(path);
            assert_eq!(made(), at_load, "{path}");
        }
        // The home page shows the ongoing incidents and the latest others.
        let ongoing = site
            .archive
            .incidents
            .iter()
            .filter(|i| i.is_ongoing())
            .count();
        render("index.html");
        let shown = ongoing + kinds::HOME_LATEST.min(incidents - ongoing);
        assert!(made() <= at_load + shown, "{} of {incidents}", made());
        assert!(made() < incidents, "{} of {incidents}", made());
    }

    #[test]
    fn a_plan_fingerprint_changes_with_any_page() {
        let page = |path: &str, what: What| Page {
            path: path.to_string(),
            what,
        };
        let (home, index) = (What::Home(()), What::IncidentIndex(2));
        let plan = vec![page("a", home), page("b", index)];
        assert_eq!(fingerprint(&plan), fingerprint(&plan.clone()));
        let others = [
            vec![page("a", home)],
            vec![page("a", home), page("c", index)],
            vec![page("a", home), page("b", What::SitemapPart(2))],
            vec![page("a", home), page("b", What::IncidentIndex(3))],
            // The same bytes split elsewhere between path and what follows.
            vec![page("ab", home)],
        ];
        for other in others {
            assert_ne!(fingerprint(&plan), fingerprint(&other), "{other:?}");
        }
    }

    #[test]
    fn pages_of_one_path_keep_the_order_they_came_in() {
        let page = |path: &str, n: usize| Page {
            path: path.to_string(),
            what: What::SitemapPart(n),
        };
        let pages = vec![
            page("b", 0),
            page("a", 1),
            page("b", 2),
            page("a", 3),
            page("a/x", 4),
        ];
        let sorted: Vec<(String, usize)> = sorted_by_path(pages)
            .into_iter()
            .map(|p| match p.what {
                What::SitemapPart(n) => (p.path, n),
                other => panic!("{other:?}"),
            })
            .collect();
        let expected = [("a", 1), ("a", 3), ("a/x", 4), ("b", 0), ("b", 2)];
        assert_eq!(sorted, expected.map(|(p, n)| (p.to_string(), n)));
    }
}
