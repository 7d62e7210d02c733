//! Site settings: `site.yaml` and the command line's `--base-url`, and the one type that
//! makes every URL of the site.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::content::yaml;
use crate::diagnostics::Diagnostic;
use crate::model::Duration;

/// Where the site lives: `https://user.github.io/repo/`. Every URL of the site goes through
/// this, so a project site under a sub-path never gets a broken link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// Scheme and host, no trailing slash: `https://user.github.io`.
    origin: String,
    /// Starts and ends with `/`: `/repo/`.
    path: String,
}

/// Why a text is no base URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadBaseUrl {
    /// Not an absolute `http` or `https` URL with a host.
    #[error("`{0}` is not an absolute http(s) URL")]
    NotAbsolute(String),
    /// It has a query, a fragment or a user.
    #[error("`{0}` is not a usable base URL: give it without `?`, `#` or a user")]
    Decorated(String),
    /// Its path has `.` or `..` segments, which the parser would resolve silently.
    #[error("`{0}` may not hold `.` or `..` segments")]
    DotSegments(String),
}

impl BaseUrl {
    /// Accepts an absolute http(s) URL; a missing trailing slash is added.
    pub fn parse(text: &str) -> Result<BaseUrl, BadBaseUrl> {
        let text = text.trim();
        let url = url::Url::parse(text)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.has_host())
            // WHATWG would read `https:///x` as the host `x`: a typo, not a site.
            .filter(|_| {
                text.split_once("://")
                    .is_some_and(|(_, rest)| !rest.starts_with(['/', '\\']))
            })
            .ok_or_else(|| BadBaseUrl::NotAbsolute(text.to_string()))?;
        if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
            return Err(BadBaseUrl::Decorated(text.to_string()));
        }
        // The parser would resolve them silently, to a path the writer did not mean.
        let written_path = text.splitn(4, '/').nth(3).unwrap_or("");
        if written_path
            .split(['/', '\\'])
            .any(|segment| segment == ".." || segment == ".")
        {
            return Err(BadBaseUrl::DotSegments(text.to_string()));
        }
        let mut path = format!("/{}", url.path().trim_matches('/'));
        if !path.ends_with('/') {
            path.push('/');
        }
        Ok(BaseUrl {
            origin: url.origin().ascii_serialization(),
            path,
        })
    }

    /// The root-relative path of a site path: `a/b/` → `/repo/a/b/`. Used for links inside
    /// pages, so they work on any host that serves the site under this path.
    pub fn path(&self, site_path: &str) -> String {
        format!("{}{}", self.path, site_path.trim_start_matches('/'))
    }

    /// The absolute URL of a site path, for feeds, sitemaps and canonical links.
    pub fn url(&self, site_path: &str) -> String {
        format!("{}{}", self.origin, self.path(site_path))
    }

    pub(crate) fn root_path(&self) -> &str {
        &self.path
    }
}

impl Default for BaseUrl {
    fn default() -> BaseUrl {
        BaseUrl::parse(DEFAULT_BASE_URL).expect("the default base URL is valid")
    }
}

/// The base URL of a site that sets none: the local preview's.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:1111/";

/// The base URL `init` writes into a new archive's `site.yaml`, for its owner to replace.
pub const PLACEHOLDER_BASE_URL: &str = "https://example.github.io/outages/";

/// A base URL that only stands in for the site's own: worth a warning before a deploy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StandIn {
    /// None was given, so absolute links point at the local preview.
    Unset,
    /// `init`'s example is still in `site.yaml`.
    Placeholder,
}

impl BaseUrl {
    /// Whether this base URL stands in for the site's own, and how.
    pub fn stand_in(&self) -> Option<StandIn> {
        if *self == BaseUrl::default() {
            Some(StandIn::Unset)
        } else if BaseUrl::parse(PLACEHOLDER_BASE_URL).is_ok_and(|placeholder| placeholder == *self)
        {
            Some(StandIn::Placeholder)
        } else {
            None
        }
    }
}

/// `site.yaml` as written.
#[derive(Debug, Deserialize, Default)]
struct RawConfig {
    title: Option<String>,
    // Spanned: an error points at the value.
    base_url: Option<Spanned<String>>,
    description: Option<String>,
    feed_limit: Option<Spanned<usize>>,
    cname: Option<Spanned<String>>,
    language: Option<String>,
    search: Option<bool>,
    markdown: Option<bool>,
    stale_after: Option<Spanned<String>>,
}

impl crate::content::source::Scrub for RawConfig {
    fn scrub(&mut self) {
        let RawConfig {
            title,
            base_url,
            description,
            feed_limit: _,
            cname,
            language,
            search: _,
            markdown: _,
            stale_after,
        } = self;
        for text in [title, description, language] {
            text.scrub();
        }
        base_url.scrub();
        cname.scrub();
        stale_after.scrub();
    }
}

const CONFIG_FIELDS: &[&str] = &[
    "title",
    "base_url",
    "description",
    "feed_limit",
    "cname",
    "language",
    "search",
    "markdown",
    "stale_after",
];

/// The settings of one site, defaults applied.
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) base_url: BaseUrl,
    pub(crate) feed_limit: usize,
    pub(crate) cname: Option<String>,
    /// The site's language (`en`): the pages' `lang`, the feeds', and the search index's
    /// stemming.
    pub language: String,
    /// A search page, the box in every page's header, and the index they read.
    pub search: bool,
    /// Each incident's markdown twin beside its page.
    pub(crate) markdown: bool,
    /// How long an unresolved incident may go without an update before it no longer
    /// shows as ongoing.
    pub stale_after: Duration,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            title: "Outage Archive".to_string(),
            description: "Every outage of the services we depend on.".to_string(),
            base_url: BaseUrl::default(),
            feed_limit: 50,
            cname: None,
            language: "en".to_string(),
            search: true,
            markdown: true,
            stale_after: STALE_AFTER,
        }
    }
}

pub(crate) const CONFIG_FILE: &str = "site.yaml";

/// `stale_after` unless `site.yaml` says otherwise: thirty days.
pub const STALE_AFTER: Duration = Duration::from_days(30);

impl Config {
    /// What the archive is counted by.
    pub fn rules(&self) -> crate::archive::Rules {
        crate::archive::Rules {
            stale_after: self.stale_after,
        }
    }

    /// Reads `site.yaml` from the site root; a site without one gets the defaults.
    pub fn load(root: &Path) -> Result<Config, Vec<Diagnostic>> {
        let path = root.join(CONFIG_FILE);
        let display = Path::new(CONFIG_FILE);
        if matches!(path.symlink_metadata(), Err(e) if e.kind() == std::io::ErrorKind::NotFound) {
            return Ok(Config::default());
        }
        // Read as content files are: a FIFO or a device named site.yaml never blocks a build.
        let text = crate::content::source::read_text(&path)
            .map_err(|error| vec![error.into_diagnostic(display)])?;
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let yaml::Checked {
            value: raw,
            mut errors,
            ..
        } = yaml::from_str_checked::<RawConfig>(&text, 0, CONFIG_FIELDS, display, &text);
        let raw = raw.unwrap_or_default();
        let mut config = Config::default();
        let value_error = |at: Location, written: &str, message: String| {
            let (line, col) = (at.line() as usize, at.column() as usize);
            let width = written.chars().count();
            Diagnostic::at(display, &text, line, col, width, message)
        };
        if let Some(title) = raw.title {
            config.title = title;
        }
        if let Some(description) = raw.description {
            config.description = description;
        }
        if let Some(base_url) = raw.base_url {
            match BaseUrl::parse(&base_url.value) {
                Ok(url) => config.base_url = url,
                Err(bad) => errors.push(
                    value_error(base_url.referenced, &base_url.value, bad.to_string())
                        .with_hint("write it like `https://user.github.io/repo/`"),
                ),
            }
        }
        if let Some(limit) = raw.feed_limit {
            if limit.value == 0 {
                errors.push(value_error(
                    limit.referenced,
                    "0",
                    "`feed_limit` must be at least 1".to_string(),
                ));
            } else {
                config.feed_limit = limit.value;
            }
        }
        if let Some(written) = raw.cname {
            let cname = written.value.trim().to_string();
            let valid = !cname.is_empty()
                && cname
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
            if valid {
                config.cname = Some(cname);
            } else {
                errors.push(
                    value_error(
                        written.referenced,
                        &written.value,
                        format!("`{cname}` is not a domain name"),
                    )
                    .with_hint("write only the host, like `status.example.com`"),
                );
            }
        }
        if let Some(language) = raw.language {
            config.language = language;
        }
        if let Some(markdown) = raw.markdown {
            config.markdown = markdown;
        }
        if let Some(search) = raw.search {
            config.search = search;
        }
        if let Some(written) = raw.stale_after {
            match Duration::parse(&written.value) {
                Ok(after) if after.seconds() > 0 => config.stale_after = after,
                _ => errors.push(
                    value_error(
                        written.referenced,
                        &written.value,
                        format!(
                            "`{}` is not a duration of at least one second",
                            written.value
                        ),
                    )
                    .with_hint("write it like `30d` or `36h`"),
                ),
            }
        }
        if errors.is_empty() {
            Ok(config)
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_keeps_the_sub_path() {
        let base = BaseUrl::parse("https://user.github.io/repo").unwrap();
        assert_eq!(base.path("lightstep/"), "/repo/lightstep/");
        assert_eq!(base.url("feed.xml"), "https://user.github.io/repo/feed.xml");
        assert_eq!(base.path(""), "/repo/");
        let root = BaseUrl::parse("https://status.example.com").unwrap();
        assert_eq!(root.path("a/"), "/a/");
        assert_eq!(root.url(""), "https://status.example.com/");
    }

    #[test]
    fn base_url_rejects_what_is_not_a_site() {
        assert!(BaseUrl::parse("example.com").is_err());
        assert!(BaseUrl::parse("javascript://x").is_err());
        assert!(BaseUrl::parse("https://x.com/../y").is_err());
        assert!(BaseUrl::parse("https:///x").is_err());
        assert!(BaseUrl::parse("https://x.com/?a").is_err());
        assert!(BaseUrl::parse("https://user@x.com/").is_err());
    }

    #[test]
    fn base_url_origin_is_the_browsers() {
        let base = BaseUrl::parse("HTTPS://Example.COM:443/Repo").unwrap();
        assert_eq!(base.url("a/"), "https://example.com/Repo/a/");
        let base = BaseUrl::parse("http://127.0.0.1:1111").unwrap();
        assert_eq!(base.url(""), "http://127.0.0.1:1111/");
    }
}
