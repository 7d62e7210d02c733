//! The route table: every path the site writes and every name that identifies it, in one
//! place. The plan, the views (URLs), the feeds, the host files and `serve` all ask here;
//! nothing else spells a path of the output.
//!
//! Paths are `/`-separated and relative to the output folder; a folder path ends in `/`
//! and stands for its `index.html`. They are made only of fixed names and checked slugs,
//! so none can leave the output folder.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::model::Impact;

/// The home page.
pub const HOME: &str = "index.html";
/// The page hosts serve for a path the site does not have.
pub const NOT_FOUND: &str = "404.html";
pub const SITEMAP: &str = "sitemap.xml";

/// One part of a sitemap split in parts (from 1), which `sitemap.xml` then lists.
pub fn sitemap_part(n: usize) -> String {
    format!("sitemap-{n}.xml")
}

pub const ROBOTS: &str = "robots.txt";
/// What the archive is, and where its data is, for agents (llmstxt.org).
pub const LLMS_TXT: &str = "llms.txt";
/// Tells GitHub Pages not to run Jekyll.
pub const NOJEKYLL: &str = ".nojekyll";
/// GitHub Pages' custom domain.
pub const CNAME: &str = "CNAME";
/// Response headers for Netlify and Cloudflare Pages.
pub const HEADERS: &str = "_headers";
/// Redirects for Netlify and Cloudflare Pages.
pub const REDIRECTS: &str = "_redirects";

/// The suffixes of `--precompress`'s copies of a file, gzip's then brotli's:
/// `style.css.gz`, `style.css.br`. No page of the site ends in one but the data files
/// (`incidents-2024.jsonl.gz`), gzip files of their own with no uncompressed twin.
pub const PRECOMPRESSED: [&str; 2] = [".gz", ".br"];

/// The paths of `path`'s precompressed copies.
pub fn precompressed(path: &str) -> [String; 2] {
    PRECOMPRESSED.map(|suffix| format!("{path}{suffix}"))
}

/// Whether `path` is named like a precompressed copy.
pub fn is_precompressed(path: &str) -> bool {
    PRECOMPRESSED.iter().any(|suffix| path.ends_with(suffix))
}

/// Where the JSON API lives.
pub const API_DIR: &str = "api/v1/";
/// The API's list of providers.
pub const API_PROVIDERS: &str = "api/v1/providers.json";
/// The list of the API's files.
pub const API_INDEX: &str = "api/v1/index.json";
/// The folder of the page that says what the API holds, for people.
pub const API_PAGE_DIR: &str = "api/";

/// The whole archive as files to download, and the page that says what they hold.
pub const DATA_DIR: &str = "data/";

/// The JSON Schemas of a row of the data files.
pub const DATA_INCIDENT_SCHEMA: &str = "data/incident.schema.json";
pub const DATA_UPDATE_SCHEMA: &str = "data/update.schema.json";

/// The files of the archive as data, one of each per year the incidents started in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataFile {
    /// An incident a line, as JSON, gzipped.
    IncidentsJsonl,
    /// An incident a row.
    IncidentsCsv,
    /// An update a line, as JSON, gzipped.
    UpdatesJsonl,
}

impl DataFile {
    pub const ALL: [DataFile; 3] = [
        DataFile::IncidentsJsonl,
        DataFile::IncidentsCsv,
        DataFile::UpdatesJsonl,
    ];
}

/// One year's data file: `data/incidents-2024.jsonl.gz`, `data/incidents-2024.csv`,
/// `data/updates-2024.jsonl.gz`.
pub fn data_file(year: i32, file: DataFile) -> String {
    match file {
        DataFile::IncidentsJsonl => format!("{DATA_DIR}incidents-{year}.jsonl.gz"),
        DataFile::IncidentsCsv => format!("{DATA_DIR}incidents-{year}.csv"),
        DataFile::UpdatesJsonl => format!("{DATA_DIR}updates-{year}.jsonl.gz"),
    }
}

/// The badges, and the page that lists them.
pub const BADGES_DIR: &str = "badges/";

/// A provider's badge: `badges/github.svg`.
pub fn badge_provider(provider: &str) -> String {
    format!("{BADGES_DIR}{provider}.svg")
}

/// A component's badge: `badges/github/actions.svg`.
pub fn badge_component(provider: &str, component: &str) -> String {
    format!("{BADGES_DIR}{provider}/{component}.svg")
}

/// The scheme, authority and date of every tag URI (RFC 4151) the site mints: ids that
/// never change, whatever the domain.
const TAG_PREFIX: &str = "tag:outages,2026:";

/// The feed formats, each written in the site's root and in every provider's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FeedFormat {
    Atom,
    Rss,
    Json,
}

impl FeedFormat {
    pub const ALL: [FeedFormat; 3] = [FeedFormat::Atom, FeedFormat::Rss, FeedFormat::Json];

    pub fn file_name(self) -> &'static str {
        match self {
            FeedFormat::Atom => "feed.xml",
            FeedFormat::Rss => "rss.xml",
            FeedFormat::Json => "feed.json",
        }
    }

    /// The media type hosts should send it with.
    pub fn media_type(self) -> &'static str {
        match self {
            FeedFormat::Atom => "application/atom+xml; charset=utf-8",
            FeedFormat::Rss => "application/rss+xml; charset=utf-8",
            FeedFormat::Json => "application/feed+json; charset=utf-8",
        }
    }
}

/// A provider's folder: `lightstep/`.
pub fn provider_dir(provider: &str) -> String {
    format!("{provider}/")
}

/// An incident's folder: `lightstep/webapp-down/`.
pub fn incident_dir(provider: &str, slug: &str) -> String {
    format!("{provider}/{slug}/")
}

/// An incident's markdown twin, beside its page: `lightstep/webapp-down/index.md`.
pub fn incident_twin(provider: &str, slug: &str) -> String {
    format!("{}{TWIN}", incident_dir(provider, slug))
}

/// The name of an incident's markdown twin in its folder.
pub const TWIN: &str = "index.md";

/// The page of a folder path (`lightstep/` → `lightstep/index.html`).
pub fn page(dir: &str) -> String {
    format!("{dir}{HOME}")
}

/// The folder of a page made by [`page`], as its URL names it: `acme/` of
/// `acme/index.html`.
pub fn page_dir(path: &str) -> &str {
    path.strip_suffix(HOME).unwrap_or(path)
}

/// Page `n` (from 1) of the index of every incident: `incidents/`, `incidents/page/2/`.
pub fn incidents_dir(n: usize) -> String {
    match n {
        0 | 1 => "incidents/".to_string(),
        n => format!("incidents/page/{n}/"),
    }
}

/// The orders of the table that compares every provider, each its own page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderOrder {
    Name,
    /// Lowest uptime over the last 12 months first.
    Uptime,
    /// Most incidents over the last 12 months first.
    Incidents,
}

impl ProviderOrder {
    pub const ALL: [ProviderOrder; 3] = [
        ProviderOrder::Name,
        ProviderOrder::Uptime,
        ProviderOrder::Incidents,
    ];
}

/// The table of every provider in `order`: `providers/`, `providers/by-uptime/`.
pub fn providers_dir(order: ProviderOrder) -> &'static str {
    match order {
        ProviderOrder::Name => "providers/",
        ProviderOrder::Uptime => "providers/by-uptime/",
        ProviderOrder::Incidents => "providers/by-incidents/",
    }
}

/// The calendar of every day with an incident.
pub const DAYS_DIR: &str = "days/";

/// The search page, and its folder.
pub const SEARCH_DIR: &str = "search/";
pub const SEARCH_PAGE: &str = "search/index.html";

/// The theme's script of the search page.
pub const SEARCH_SCRIPT: &str = "search.js";

/// The search index, as Pagefind names its files inside.
pub const SEARCH_INDEX_DIR: &str = "pagefind/";

/// The index's shards, newest first, which the search page merges.
pub const SEARCH_SHARDS: &str = "pagefind/shards.json";

/// The bundle of the search index's words, which says which shards a search needs, with
/// Pagefind's script.
pub const SEARCH_WORDS_DIR: &str = "pagefind/words/";

/// One shard of the search index: `pagefind/2024/`.
pub fn search_shard_dir(name: &str) -> String {
    format!("{SEARCH_INDEX_DIR}{name}/")
}

/// What the last build indexed, and the files it made of it: a build of the same records
/// takes those files again instead of indexing anew.
pub const SEARCH_INDEX_STATE: &str = "pagefind/.outages-index";

/// One UTC day: `days/2024-03-05/`.
pub fn day_dir(date: chrono::NaiveDate) -> String {
    format!("{DAYS_DIR}{}/", iso_date(date))
}

/// `2024-03-05`, written by hand: chrono's `format` parses its pattern on every call, and a
/// build names days by the hundred thousand (every cell of every calendar links one).
pub fn iso_date(date: chrono::NaiveDate) -> String {
    use chrono::Datelike;
    format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day())
}

/// A provider's year: `lightstep/2024/`.
pub fn provider_year_dir(provider: &str, year: i32) -> String {
    format!("{provider}/{year}/")
}

/// Page `n` (from 1) of a provider's year: the year's page, then `…/page/2/`.
pub fn provider_year_page_dir(provider: &str, year: i32, n: usize) -> String {
    match n {
        0 | 1 => provider_year_dir(provider, year),
        n => format!("{}page/{n}/", provider_year_dir(provider, year)),
    }
}

/// A provider's maintenance windows as an iCalendar file: `lightstep/maintenance.ics`.
pub fn maintenance_calendar(provider: &str) -> String {
    format!("{provider}/{MAINTENANCE_CALENDAR}")
}

/// The name of a provider's maintenance calendar in its folder.
pub const MAINTENANCE_CALENDAR: &str = "maintenance.ics";

/// A provider's component: `lightstep/components/us-dashboards/`.
pub fn component_dir(provider: &str, component: &str) -> String {
    format!("{provider}/components/{component}/")
}

/// A component's feed, Atom only: `lightstep/components/us-dashboards/feed.xml`.
pub fn component_feed(provider: &str, component: &str) -> String {
    feed(&component_dir(provider, component), FeedFormat::Atom)
}

/// Page `n` (from 1) of a component's incidents: its page, then `…/page/2/`.
pub fn component_page_dir(provider: &str, component: &str, n: usize) -> String {
    match n {
        0 | 1 => component_dir(provider, component),
        n => format!("{}page/{n}/", component_dir(provider, component)),
    }
}

/// The folder of a list's incidents of one impact, named by the words status pages show
/// for it: `major/` (major outages: `critical`), `partial/`, `degraded/`, `no-impact/`,
/// `maintenance/`.
pub fn impact_dir(impact: Impact) -> &'static str {
    match impact {
        Impact::Critical => "major/",
        Impact::Major => "partial/",
        Impact::Minor => "degraded/",
        Impact::None => "no-impact/",
        Impact::Maintenance => "maintenance/",
    }
}

/// Page `n` (from 1) of the incidents of `impact` in the list whose folder is `dir`
/// (`incidents/`, `github/`, `github/2024/`): `incidents/major/`, `github/major/page/2/`.
pub fn filtered_dir(dir: &str, impact: Impact, n: usize) -> String {
    let filtered = format!("{dir}{}", impact_dir(impact));
    match n {
        0 | 1 => filtered,
        n => format!("{filtered}page/{n}/"),
    }
}

/// Which incidents a feed carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedSet {
    All,
    /// Major outages only (impact `critical`).
    Major,
}

impl FeedSet {
    pub const ALL: [FeedSet; 2] = [FeedSet::All, FeedSet::Major];
}

/// A feed in `dir` (`""` for the site's, a provider's folder for its own): `feed.xml`, and
/// the major outages' `major/feed.xml`.
pub fn feed(dir: &str, format: FeedFormat) -> String {
    format!("{dir}{}", format.file_name())
}

/// The folder of the feeds of `set` for `dir`: `dir` itself, or its `major/`.
pub fn feed_dir(dir: &str, set: FeedSet) -> String {
    match set {
        FeedSet::All => dir.to_string(),
        FeedSet::Major => format!("{dir}{}", impact_dir(Impact::Critical)),
    }
}

/// A feed of `set` in `dir`.
pub fn feed_of(dir: &str, set: FeedSet, format: FeedFormat) -> String {
    feed(&feed_dir(dir, set), format)
}

pub fn api_provider(provider: &str) -> String {
    format!("{API_DIR}{provider}.json")
}

pub fn api_incident(provider: &str, slug: &str) -> String {
    format!("{API_DIR}{provider}/{slug}.json")
}

/// One UTC day as data: `api/v1/days/2024-03-05.json`.
pub fn api_day(date: chrono::NaiveDate) -> String {
    format!("{API_DIR}days/{}.json", iso_date(date))
}

/// A provider's numbers as data.
pub fn api_stats(provider: &str) -> String {
    format!("{API_DIR}{provider}/stats.json")
}

/// A provider's components as data.
pub fn api_components(provider: &str) -> String {
    format!("{API_DIR}{provider}/components.json")
}

/// The file of an alias (already a checked site path, `old/url/` or `old/page.html`).
pub fn alias(alias: &str) -> String {
    if alias.ends_with('/') {
        page(alias)
    } else {
        alias.to_string()
    }
}

/// What a tag URI keeps as it is (RFC 3986 unreserved); the rest is percent-encoded.
const TAG_KEEP: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The feed entry id of an incident, from its provider and its own id (or slug), never
/// from the base URL: `tag:outages,2026:lightstep/DWN-c972089f00`.
pub fn incident_tag(provider: &str, key: &str) -> String {
    format!(
        "{TAG_PREFIX}{provider}/{}",
        utf8_percent_encode(key, TAG_KEEP)
    )
}

/// The id of a feed: the site's (`None`) or a provider's.
/// The id of a component's feed: `tag:outages,2026:feed/lightstep/components/api`.
pub fn component_feed_tag(provider: &str, component: &str) -> String {
    format!("{TAG_PREFIX}feed/{provider}/components/{component}")
}

pub fn feed_tag(provider: Option<&str>, set: FeedSet) -> String {
    let name = match set {
        FeedSet::All => "feed",
        FeedSet::Major => "feed-major",
    };
    match provider {
        None => format!("{TAG_PREFIX}{name}"),
        Some(provider) => format!("{TAG_PREFIX}{name}/{provider}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_encode_what_a_uri_may_not_hold() {
        assert_eq!(
            incident_tag("lightstep", "DWN-c972089f00"),
            "tag:outages,2026:lightstep/DWN-c972089f00"
        );
        assert_eq!(
            incident_tag("acme", "a b/é"),
            "tag:outages,2026:acme/a%20b%2F%C3%A9"
        );
        assert_eq!(feed_tag(None, FeedSet::All), "tag:outages,2026:feed");
        assert_eq!(
            feed_tag(Some("acme"), FeedSet::All),
            "tag:outages,2026:feed/acme"
        );
        // Apart from a provider named `major`'s.
        assert_eq!(
            feed_tag(None, FeedSet::Major),
            "tag:outages,2026:feed-major"
        );
    }

    #[test]
    fn api_files_are_under_the_api_folder() {
        assert!(API_PROVIDERS.starts_with(API_DIR));
        assert!(api_provider("a").starts_with(API_DIR));
    }

    #[test]
    fn the_first_page_of_a_list_is_its_folder() {
        assert_eq!(incidents_dir(1), "incidents/");
        assert_eq!(incidents_dir(3), "incidents/page/3/");
    }

    #[test]
    fn a_list_of_one_impact_is_a_folder_of_the_list() {
        assert_eq!(
            filtered_dir("incidents/", Impact::Critical, 1),
            "incidents/major/"
        );
        assert_eq!(
            filtered_dir("github/2024/", Impact::Minor, 2),
            "github/2024/degraded/page/2/"
        );
        // The major outages' feeds live beside their list.
        assert_eq!(feed_dir("github/", FeedSet::Major), "github/major/");
    }

    #[test]
    fn folders_stand_for_their_index_page() {
        assert_eq!(page(&incident_dir("a", "b")), "a/b/index.html");
        assert_eq!(alias("old/url/"), "old/url/index.html");
        assert_eq!(alias("old/page.html"), "old/page.html");
        assert_eq!(feed(&provider_dir("a"), FeedFormat::Rss), "a/rss.xml");
    }
}
