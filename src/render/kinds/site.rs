//! The files of the site as a whole: the hosting files, the 404 page, CNAME, the
//! theme's assets, the search page and the sitemap's parts.

use super::*;

/// One file of the site as a whole, made by a function from what it declares it reads:
/// the simplest kinds, written as data.
pub(super) struct SiteFile {
    pub(super) path: &'static str,
    pub(super) reads: Reads,
    pub(super) make: fn(&Renderer) -> Vec<u8>,
}

impl Kind for SiteFile {
    fn plan(&self, _: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        add(self.path.to_string(), Key::Site);
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        self.reads
    }

    fn render(&self, r: &Renderer, _: &Page) -> Result<Vec<u8>, Diagnostic> {
        Ok((self.make)(r))
    }

    fn site_file(&self, _: Key) -> bool {
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

pub(super) struct NotFound;

impl Kind for NotFound {
    fn plan(&self, _: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        add(routes::NOT_FOUND.into(), Key::Site);
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        TEMPLATED
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
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

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

pub(super) struct Cname;

impl Kind for Cname {
    fn plan(&self, _: &Archive, _: &Theme, config: &Config, add: &mut dyn FnMut(String, Key)) {
        if config.cname.is_some() {
            add(routes::CNAME.into(), Key::Site);
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        NOTHING
    }

    fn render(&self, r: &Renderer, _: &Page) -> Result<Vec<u8>, Diagnostic> {
        Ok(format!("{}\n", r.config.cname.as_deref().unwrap_or_default()).into_bytes())
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}

pub(super) struct Asset;

impl Kind for Asset {
    fn plan(&self, _: &Archive, theme: &Theme, config: &Config, add: &mut dyn FnMut(String, Key)) {
        let unused = unused_asset(theme, config);
        for (index, asset) in theme.assets.iter().enumerate() {
            if unused != Some(asset.path.as_str()) {
                add(asset.path.clone(), Key::Asset(index));
            }
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        Reads {
            assets: true,
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Asset(i) = page.key else {
            return Err(wrong_key(page));
        };
        match &r.theme.assets[i].source {
            AssetSource::Embedded(bytes) => Ok(bytes.to_vec()),
            AssetSource::File(path) => {
                std::fs::read(path).map_err(|e| Diagnostic::file(path, format!("cannot read: {e}")))
            }
        }
    }

    fn owner(&self, _: &Archive, theme: &Theme, page: &Page) -> Owner {
        let source = match page.key {
            Key::Asset(i) => theme.assets.get(i).map(|asset| &asset.source),
            _ => None,
        };
        match source {
            Some(AssetSource::File(path)) => Owner {
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
pub(super) struct SearchPage;

impl Kind for SearchPage {
    fn plan(&self, _: &Archive, _: &Theme, config: &Config, add: &mut dyn FnMut(String, Key)) {
        if config.search {
            add(routes::SEARCH_PAGE.into(), Key::Site);
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        TEMPLATED
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
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
pub(super) struct SitemapPart;

impl Kind for SitemapPart {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for n in 1..=sitemap::parts(crate::render::sitemap_len(archive)) {
            add(routes::sitemap_part(n), Key::Number(n));
        }
    }

    fn reads(&self, _: &Archive, _: Key) -> Reads {
        SITEMAP
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Number(n) = page.key else {
            return Err(wrong_key(page));
        };
        Ok(r.sitemap_part(n))
    }

    fn site_file(&self, _: Key) -> bool {
        true
    }
}
