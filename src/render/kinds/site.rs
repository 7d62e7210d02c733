//! The files of the site as a whole: the hosting files, the 404 page, CNAME, the
//! theme's assets, the search page and the sitemap's parts.

use super::*;

/// One file of the site as a whole, made by a function from what it declares it reads:
/// the simplest kinds, written as data.
pub(crate) struct SiteFile {
    pub(super) path: &'static str,
    pub(super) reads: Reads,
    pub(super) make: fn(&Renderer) -> Vec<u8>,
}

impl Kind for SiteFile {
    type Key = ();

    fn plan(&self, _: &Planning, add: &mut dyn FnMut(String, ())) {
        add(self.path.to_string(), ());
    }

    fn reads(&self, _: &Archive, _: ()) -> Reads {
        self.reads
    }

    fn render(&self, r: &Renderer, _: &Page, _: ()) -> Result<Vec<u8>, Diagnostic> {
        Ok((self.make)(r))
    }

    fn site_file(&self, _: ()) -> bool {
        true
    }
}

/// The theme's asset that is not written: its search script, when there is no search page
/// to load it (a site's own `static/search.js` is written all the same).
pub(super) fn unused_asset<'t>(theme: &'t Theme, config: &Config) -> Option<&'t str> {
    let path = theme.asset_paths.get(routes::SEARCH_SCRIPT)?;
    let theirs = theme
        .assets
        .iter()
        .any(|asset| asset.path == *path && matches!(asset.source, AssetSource::Embedded(_)));
    (!config.search && theirs).then_some(path.as_str())
}

pub(super) fn headers(r: &Renderer) -> Vec<u8> {
    let unused = unused_asset(r.theme, r.config);
    let hashed: Vec<&str> = r
        .theme
        .asset_paths
        .iter()
        .filter(|(name, path)| name != path && unused != Some(path.as_str()))
        .map(|(_, path)| path.as_str())
        .collect();
    hosting::headers(&r.config.base_url, &hashed, r.config.search)
}

pub(super) fn redirects(r: &Renderer) -> Vec<u8> {
    let base = &r.config.base_url;
    // From the archive, not the views: few incidents have aliases.
    let aliases = r
        .archive
        .incidents
        .iter()
        .filter(|incident| !incident.aliases.is_empty())
        .flat_map(|incident| {
            let path = base.path(&routes::incident_dir(
                incident.provider.as_str(),
                incident.slug.as_str(),
            ));
            incident
                .aliases
                .iter()
                .map(move |alias| (alias.path.as_str(), path.clone()))
        });
    hosting::redirects(&r.config.base_url, aliases)
}

pub(crate) struct NotFound;

impl Kind for NotFound {
    type Key = ();

    fn plan(&self, _: &Planning, add: &mut dyn FnMut(String, ())) {
        add(routes::NOT_FOUND.into(), ());
    }

    fn reads(&self, _: &Archive, _: ()) -> Reads {
        TEMPLATED
    }

    fn render(&self, r: &Renderer, page: &Page, _: ()) -> Result<Vec<u8>, Diagnostic> {
        let ctx = r.html_context(
            "404",
            "Page not found",
            r.config.description.clone(),
            routes::NOT_FOUND,
            &FeedLinks::new(&r.config.base_url, ""),
            "All incidents",
        );
        r.template("404.html", page, &ctx)
    }

    fn site_file(&self, _: ()) -> bool {
        true
    }
}

pub(crate) struct Cname;

impl Kind for Cname {
    type Key = ();

    fn plan(&self, &Planning { config, .. }: &Planning, add: &mut dyn FnMut(String, ())) {
        if config.cname.is_some() {
            add(routes::CNAME.into(), ());
        }
    }

    fn reads(&self, _: &Archive, _: ()) -> Reads {
        NOTHING
    }

    fn render(&self, r: &Renderer, _: &Page, _: ()) -> Result<Vec<u8>, Diagnostic> {
        Ok(format!("{}\n", r.config.cname.as_deref().unwrap_or_default()).into_bytes())
    }

    fn site_file(&self, _: ()) -> bool {
        true
    }
}

pub(crate) struct Asset;

impl Kind for Asset {
    type Key = AssetIx;

    fn plan(
        &self,
        &Planning { theme, config, .. }: &Planning,
        add: &mut dyn FnMut(String, AssetIx),
    ) {
        let unused = unused_asset(theme, config);
        for (index, asset) in AssetIx::all(theme.assets.len()).zip(&theme.assets) {
            if unused != Some(asset.path.as_str()) {
                add(asset.path.clone(), index);
            }
        }
    }

    fn reads(&self, _: &Archive, _: AssetIx) -> Reads {
        Reads {
            assets: true,
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, _: &Page, i: AssetIx) -> Result<Vec<u8>, Diagnostic> {
        match &r.theme.assets[i].source {
            AssetSource::Embedded(bytes) => Ok(bytes.to_vec()),
            AssetSource::File(path) => {
                std::fs::read(path).map_err(|e| Diagnostic::file(path, format!("cannot read: {e}")))
            }
        }
    }

    fn owner(&self, _: &Archive, theme: &Theme, page: &Page, i: AssetIx) -> Owner {
        match &theme.assets[i].source {
            AssetSource::File(path) => Owner {
                what: format!("the static file `{}`", path.display()),
                place: Some((path.clone(), 0, 0)),
            },
            _ => Owner {
                what: format!("the theme's `{}`", page.path),
                place: None,
            },
        }
    }
}

/// `search/`: the search box, facets and results, drawn by the theme's script from the
/// index; without JavaScript, where else to look.
pub(crate) struct SearchPage;

impl Kind for SearchPage {
    type Key = ();

    fn plan(&self, &Planning { config, .. }: &Planning, add: &mut dyn FnMut(String, ())) {
        if config.search {
            add(routes::SEARCH_PAGE.into(), ());
        }
    }

    fn reads(&self, _: &Archive, _: ()) -> Reads {
        TEMPLATED
    }

    fn render(&self, r: &Renderer, page: &Page, _: ()) -> Result<Vec<u8>, Diagnostic> {
        let base = &r.config.base_url;
        let mut ctx = r.html_context(
            "search",
            "Search",
            format!(
                "Search every incident of the {}: by words, provider, impact, year, component and region.",
                r.config.title
            ),
            routes::SEARCH_DIR,
            &FeedLinks::new(base, ""),
            "All incidents",
        );
        // The search script offers impacts in the order pages list them.
        ctx.insert("impacts", &IMPACT_ORDER.map(Impact::label));
        r.template("search.html", page, &ctx)
    }
}

/// `sitemap-N.xml`: one part of a sitemap too long for one file.
pub(crate) struct SitemapPart;

impl Kind for SitemapPart {
    /// The part's number, from 1.
    type Key = usize;

    /// Planned with the rest of the plan, in [`Kind::plan_after`].
    fn plan(&self, _: &Planning, _: &mut dyn FnMut(String, usize)) {}

    fn plan_after(&self, listed: usize, add: &mut dyn FnMut(String, usize)) {
        for n in 1..=sitemap::parts(listed) {
            add(routes::sitemap_part(n), n);
        }
    }

    fn reads(&self, _: &Archive, _: usize) -> Reads {
        SITEMAP
    }

    fn render(&self, r: &Renderer, _: &Page, n: usize) -> Result<Vec<u8>, Diagnostic> {
        Ok(r.sitemap_part(n))
    }

    fn site_file(&self, _: usize) -> bool {
        true
    }
}

pub(super) fn llms_txt(r: &Renderer) -> Vec<u8> {
    let through = r.archive.through.map(|t| t.date_naive().to_string());
    let about = llms::About {
        title: &r.config.title,
        description: &r.config.description,
        base: &r.config.base_url,
        incidents: r.archive.incidents.len(),
        through: through.as_deref(),
        markdown: r.config.markdown,
    };
    llms::llms_txt(&about, &r.views.providers)
}

/// The API's endpoints, each with an example from this archive.
fn api_endpoints(r: &Renderer) -> Vec<api::Endpoint> {
    let provider = r.archive.providers.first();
    let incident = provider.and_then(|p| {
        let &newest = p.incidents.first()?;
        Some((p.slug.as_str(), r.archive.incidents[newest].slug.as_str()))
    });
    let examples = api::Examples {
        provider: provider.map(|p| p.slug.as_str()),
        incident,
        day: r.archive.days.last().map(|day| day.date),
    };
    api::endpoints(&r.config.base_url, &examples)
}

pub(super) fn api_index(r: &Renderer) -> Vec<u8> {
    api::index(&r.config.base_url, &api_endpoints(r))
}

/// A page that shows the archive as a whole, the only one of its kind (the days' calendar,
/// the API page, the badges): in the sitemap, dated by the archive's newest update, and
/// reading all of it. Written as data, like [`SiteFile`].
pub(crate) struct ArchivePage {
    /// Its folder: `days/`.
    pub(super) dir: &'static str,
    pub(super) make: fn(&Renderer, &Page) -> Result<Vec<u8>, Diagnostic>,
}

impl Kind for ArchivePage {
    type Key = ();

    fn plan(&self, _: &Planning, add: &mut dyn FnMut(String, ())) {
        add(routes::page(self.dir), ());
    }

    const IN_SITEMAP: bool = true;

    fn lastmod(&self, dates: &Dates, _: ()) -> Option<NaiveDate> {
        dates.newest
    }

    fn reads(&self, _: &Archive, _: ()) -> Reads {
        TEMPLATED_ARCHIVE
    }

    fn render(&self, r: &Renderer, page: &Page, _: ()) -> Result<Vec<u8>, Diagnostic> {
        (self.make)(r, page)
    }
}

/// `api/`: the JSON API for people, each file with an example from the newest of the
/// archive.
pub(super) fn api_page(r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
    let mut ctx = r.html_context(
        "api",
        "JSON API",
        format!(
            "The {} as data: every file of its static JSON API, with an example of each.",
            r.config.title
        ),
        routes::API_PAGE_DIR,
        &FeedLinks::new(&r.config.base_url, ""),
        "All incidents",
    );
    ctx.insert("endpoints", &api_endpoints(r));
    ctx.insert("index_url", &r.config.base_url.url(routes::API_INDEX));
    r.template("api.html", page, &ctx)
}
