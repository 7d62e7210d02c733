//! The incident model: what an archive is made of, with no notion of HTML or files.
//!
//! Every type here is validated once, where it is made, so the rest of the pipeline can
//! trust it: a [`Slug`] is always a safe path segment, a [`Timestamp`] is always UTC.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// An instant in UTC. Offsets in the source are applied once, at parse time.
pub type Timestamp = DateTime<Utc>;

mod duration;
mod forms;
mod grades;
mod names;

pub use duration::{Duration, DurationError};
use forms::{compact_time, json_text};
pub use grades::{Impact, Level, Status};
pub use names::{BadProvider, NotAsWritten, Slug, SlugError, WebUrl};

/// One entry of an incident's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Update {
    /// When it was posted: the time of its heading.
    #[serde(with = "compact_time")]
    pub at: Timestamp,
    /// The status word of its heading.
    pub status: Status,
    /// Markdown, as the provider wrote it.
    pub body: String,
}

/// Where an incident was imported from; kept so a re-import finds it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// What it was imported from: mostly a platform's keyword (`statuspage`, `aws`).
    pub kind: String,
    pub(crate) id: String,
    /// What the import last wrote, as fingerprints (see `import::record`): how the next
    /// import tells a hand edit.
    #[serde(default)]
    pub imported: Option<String>,
}

/// An old URL of an incident, and where its file gives it: a path it would share with
/// another file is only found while planning the site, and is reported at this line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    /// Site-relative, without the leading slash: `old/url/`, `old/page.html`.
    pub path: String,
    /// 1-based line and column in the incident's file.
    pub line: usize,
    pub(crate) col: usize,
}

/// Where something is written in its file: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePos {
    pub(crate) line: usize,
    pub(crate) col: usize,
}

/// One incident, fully validated. (Serialized only into the build cache.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Incident {
    /// The file it came from, relative to the site root (for messages only).
    pub file: PathBuf,
    /// The headline, as written.
    pub title: String,
    /// `provider:` (a slug or a name), or else the first folder under `content/`.
    pub provider: Slug,
    /// The provider's name as the incident gives it, if it does.
    pub provider_name: Option<String>,
    /// The incident's own segment of its URL: `slug:`, or else the file name.
    pub slug: Slug,
    /// When the incident began.
    #[serde(with = "compact_time")]
    pub started: Timestamp,
    /// `None` while the incident is ongoing.
    #[serde(with = "compact_time::option")]
    pub resolved: Option<Timestamp>,
    /// How bad it was.
    pub impact: Impact,
    pub(crate) level: Option<Level>,
    /// The components it touched, as the provider names them.
    pub components: Vec<String>,
    /// Components counted but not named (down.guide's `+1`).
    pub unnamed_components: u32,
    /// The regions it touched, as the provider names them.
    pub regions: Vec<String>,
    /// A stable id, unique within its provider (`DWN-c972089f00`): the feed entry id, in
    /// place of the slug.
    pub id: Option<String>,
    /// Where `id` is written, to point at it when two incidents share it.
    pub id_at: Option<SourcePos>,
    /// The provider's own page about the incident.
    pub official_url: Option<WebUrl>,
    /// Old URLs that must keep working.
    pub aliases: Vec<Alias>,
    pub(crate) draft: bool,
    /// Where it was imported from, if it was.
    pub source: Option<Source>,
    /// (As JSON text in the build cache, whose format cannot hold an untyped value.)
    #[serde(with = "json_text")]
    pub extra: Option<serde_json::Value>,
    /// Markdown before the first update.
    pub summary: String,
    /// In time order, the postmortem included.
    pub updates: Vec<Update>,
    /// down.guide's attribution line, markdown.
    pub attribution: Option<String>,
    /// The format its file is in, which its markdown twin is written in again.
    pub(crate) dialect: Dialect,
    /// What looked wrong in the file but builds as written, to tell the writer.
    pub warnings: Vec<crate::diagnostics::Diagnostic>,
}

impl Incident {
    /// How long it lasted, from `started` to `resolved`; `None` while it is ongoing.
    pub fn duration(&self) -> Option<Duration> {
        self.resolved
            .map(|end| Duration::between(self.started, end))
    }

    pub(crate) fn is_ongoing(&self) -> bool {
        self.resolved.is_none()
    }

    /// The time of the latest thing that happened to this incident: what feeds call `updated`.
    pub fn updated(&self) -> Timestamp {
        self.updates
            .iter()
            .map(|update| update.at)
            .chain(self.resolved)
            .fold(self.started, Timestamp::max)
    }

    /// The postmortem, if one was written.
    pub fn postmortem(&self) -> Option<&Update> {
        self.numbered_postmortem().map(|(_, u)| u)
    }

    pub(crate) fn timeline(&self) -> impl Iterator<Item = &Update> {
        self.numbered_timeline().map(|(_, u)| u)
    }

    /// The postmortem, with its index in `updates`.
    pub fn numbered_postmortem(&self) -> Option<(u32, &Update)> {
        (0..)
            .zip(&self.updates)
            .find(|(_, u)| u.status == Status::Postmortem)
    }

    /// The updates but the postmortem, each with its index in `updates` (a file holds far
    /// fewer than 2^32).
    pub fn numbered_timeline(&self) -> impl Iterator<Item = (u32, &Update)> {
        (0..)
            .zip(&self.updates)
            .filter(|(_, u)| u.status != Status::Postmortem)
    }

    pub(crate) fn component_count(&self) -> usize {
        self.components.len() + self.unnamed_components as usize
    }
}

/// The two formats an incident's file may be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Dialect {
    /// YAML front matter, then the body: the canonical format.
    #[default]
    FrontMatter,
    /// A down.guide export: `# Title`, a list of facts, the updates, an attribution.
    DownGuide,
}

/// A provider as described by its `_index.md`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProviderInfo {
    pub(crate) file: PathBuf,
    pub(crate) name: Option<String>,
    pub(crate) url: Option<WebUrl>,
    pub(crate) status_page: Option<WebUrl>,
    /// Markdown: the `description` field or the file's body.
    pub description: Option<String>,
    /// Whether `outages sync` follows the status page.
    pub sync: SyncKind,
    /// `since:`: when the records begin, if before the first incident (a page that had
    /// none for months).
    pub since: Option<Timestamp>,
    /// `until:`: when the records end, for a provider no longer followed.
    pub until: Option<Timestamp>,
}

impl ProviderInfo {
    /// Whether `outages sync` keeps this provider's records current: then they run to the
    /// archive's latest update, not only to the provider's own last record.
    pub fn is_synced(&self) -> bool {
        self.status_page.is_some() && self.sync != SyncKind::Off
    }
}

/// How `outages sync` reads a provider's status page: `sync:` in its `_index.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SyncKind {
    /// `sync: {kind: …}`; `sync: true`, or no `sync:` at all, is a Statuspage.
    Follow(Platform),
    /// `sync: false`: the provider is left out of `outages sync`.
    Off,
}

impl Default for SyncKind {
    fn default() -> SyncKind {
        SyncKind::Follow(Platform::Statuspage)
    }
}

/// A status platform `outages sync` and `outages import` read, by the name `sync: {kind: …}`
/// gives it; also the `kind` of the sources its incidents carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Platform {
    /// An Atlassian Statuspage.
    Statuspage,
    /// An incident.io status page.
    IncidentIo,
    /// Google Cloud Service Health.
    GoogleCloud,
    /// The AWS Health Dashboard.
    Aws,
    /// Slack's own status page.
    Slack,
    /// A Better Stack status page.
    BetterStack,
    /// An Atom or RSS feed of incidents.
    Feed,
}

impl Platform {
    /// Every platform, in the order messages list them.
    pub const ALL: [Platform; 7] = [
        Platform::Statuspage,
        Platform::IncidentIo,
        Platform::GoogleCloud,
        Platform::Aws,
        Platform::Slack,
        Platform::BetterStack,
        Platform::Feed,
    ];

    /// As `sync: {kind: …}` and `outages import KIND` name it, and as the sources of its
    /// incidents are kinded in content files.
    pub fn keyword(self) -> &'static str {
        match self {
            Platform::Statuspage => "statuspage",
            Platform::IncidentIo => "incident-io",
            Platform::GoogleCloud => "google-cloud",
            Platform::Aws => "aws",
            Platform::Slack => "slack",
            Platform::BetterStack => "better-stack",
            Platform::Feed => "feed",
        }
    }

    /// As a person names it.
    pub fn label(self) -> &'static str {
        match self {
            Platform::Statuspage => "Atlassian Statuspage",
            Platform::IncidentIo => "incident.io status page",
            Platform::GoogleCloud => "Google Cloud Service Health",
            Platform::Aws => "AWS Health Dashboard",
            Platform::Slack => "Slack status page",
            Platform::BetterStack => "Better Stack status page",
            Platform::Feed => "Atom or RSS feed",
        }
    }

    /// The platform of a [keyword](Platform::keyword), if any.
    pub fn parse(keyword: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.keyword() == keyword)
    }

    /// Every keyword, for messages: `statuspage, incident-io, …`.
    pub fn keywords() -> String {
        Platform::ALL.map(Platform::keyword).join(", ")
    }
}

#[cfg(test)]
impl Update {
    /// An update at an RFC 3339 time, for tests.
    pub fn of(at: &str, status: &str, body: &str) -> Update {
        Update {
            at: at.parse().expect("a test's time is RFC 3339"),
            status: Status::parse(status),
            body: body.into(),
        }
    }
}

#[cfg(test)]
impl Incident {
    /// An incident of `provider` with nothing but its slug and start, for tests to fill in
    /// what they look at (`Incident { impact, ..Incident::bare(..) }`).
    pub fn bare(provider: &str, slug: &str, started: Timestamp) -> Incident {
        Incident {
            file: format!("content/{provider}/{slug}.md").into(),
            title: slug.to_string(),
            provider: Slug::parse(provider).expect("a test's provider is a slug"),
            provider_name: None,
            slug: Slug::parse(slug).expect("a test's slug is a slug"),
            started,
            resolved: None,
            impact: Impact::Minor,
            level: None,
            components: vec![],
            unnamed_components: 0,
            regions: vec![],
            id: None,
            id_at: None,
            official_url: None,
            aliases: vec![],
            draft: false,
            source: None,
            extra: None,
            summary: String::new(),
            updates: vec![],
            attribution: None,
            dialect: Dialect::FrontMatter,
            warnings: vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impact_reads_keywords_and_labels() {
        assert_eq!(Impact::parse("critical"), Some(Impact::Critical));
        assert_eq!(Impact::parse("Major outage"), Some(Impact::Critical));
        assert_eq!(Impact::parse("partial OUTAGE"), Some(Impact::Major));
        assert_eq!(Impact::parse("Degraded performance"), Some(Impact::Minor));
        assert_eq!(
            Impact::parse("under maintenance"),
            Some(Impact::Maintenance)
        );
        assert_eq!(Impact::parse("No impact"), Some(Impact::None));
        assert_eq!(Impact::parse("sever"), None);
    }

    #[test]
    fn slugs_are_single_safe_segments() {
        assert_eq!(Slug::parse("webapp-down").unwrap().as_str(), "webapp-down");
        assert_eq!(Slug::parse("../../x"), Err(SlugError::PathLike));
        assert_eq!(Slug::parse("a/b"), Err(SlugError::PathLike));
        assert_eq!(Slug::parse(".."), Err(SlugError::PathLike));
        assert_eq!(Slug::parse(""), Err(SlugError::Empty));
        assert_eq!(
            Slug::parse("My Slug"),
            Err(SlugError::NotCanonical("my-slug".into()))
        );
        assert_eq!(
            Slug::from_name("Greenmesh Cloud").unwrap().as_str(),
            "greenmesh-cloud"
        );
        assert_eq!(
            Slug::from_name("000_8c1ae5358ecda903").unwrap().as_str(),
            "000-8c1ae5358ecda903"
        );
        assert_eq!(Slug::from_name("a\\b"), Err(SlugError::PathLike));
        assert_eq!(Slug::from_name("!!!"), Err(SlugError::Empty));
    }

    #[test]
    fn every_component_name_makes_a_slug() {
        let slug = |name: &str| Slug::of_component(name).as_str().to_string();
        assert_eq!(
            slug("CARRIER NETWORK / SMS, Middle East & Africa"),
            "carrier-network-sms-middle-east-africa"
        );
        assert_eq!(slug("API Requests"), slug("api  requests"));
        for odd in ["!!!", "..", "/", "—"] {
            let made = slug(odd);
            assert!(made.starts_with("component-"), "{odd}: {made}");
            assert!(Slug::parse(&made).is_ok(), "{odd}: {made}");
        }
        assert_ne!(slug("!!!"), slug("///"));
        let long = "word ".repeat(40);
        let (a, b) = (slug(&format!("{long}one")), slug(&format!("{long}two")));
        assert_ne!(a, b);
        for made in [&a, &b] {
            assert!(made.len() <= Slug::MAX_COMPONENT, "{made}");
            assert!(Slug::parse(made).is_ok(), "{made}");
        }
    }

    #[test]
    fn urls_must_be_http_or_https() {
        assert!(WebUrl::parse("https://stspg.io/0ywk8cvcqg82").is_some());
        assert!(WebUrl::parse("HTTP://example.com").is_some());
        assert!(WebUrl::parse("javascript:alert(1)").is_none());
        assert!(WebUrl::parse("https://").is_none());
        assert!(WebUrl::parse("https://x.com/\"onmouseover=alert(1)").is_none());
        assert!(WebUrl::parse("data:text/html,hi").is_none());
    }

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(
            Duration::parse("3h 24m"),
            Ok(Duration::from_seconds(3 * 3600 + 24 * 60))
        );
        assert_eq!(
            Duration::parse("2h15m"),
            Ok(Duration::from_seconds(2 * 3600 + 15 * 60))
        );
        assert_eq!(
            Duration::parse("1d 2h"),
            Ok(Duration::from_seconds(86_400 + 7_200))
        );
        assert_eq!(Duration::parse("45m").unwrap().to_string(), "45m");
        assert_eq!(Duration::parse("3h 24m").unwrap().to_string(), "3h 24m");
        assert_eq!(Duration::from_seconds(90_000).to_string(), "1d 1h");
        assert_eq!(Duration::from_seconds(30).to_string(), "30s");
        for text in ["3 hours", "12", "", "h", "1d 2"] {
            assert_eq!(
                Duration::parse(text),
                Err(DurationError::Unreadable),
                "{text}"
            );
        }
    }

    #[test]
    fn durations_past_ten_years_are_refused_not_overflowed() {
        assert_eq!(Duration::parse("3650d"), Ok(Duration::LONGEST));
        for text in [
            "3650d 1s",
            "9000000000000000s",
            "100000000d",
            "99999999999999999999999d",
            "3000d 3000d",
        ] {
            assert_eq!(Duration::parse(text), Err(DurationError::TooLong), "{text}");
        }
        assert_eq!(
            Duration::from_seconds(i64::MAX).saturating_add(Duration::from_seconds(1)),
            Duration::from_seconds(i64::MAX)
        );
        assert_eq!(
            Duration::from_seconds(i64::MAX)
                .midpoint(Duration::from_seconds(i64::MAX - 2))
                .seconds(),
            i64::MAX - 1
        );
    }

    #[test]
    fn statuses_known_and_other() {
        assert_eq!(Status::parse("In Progress"), Status::InProgress);
        assert_eq!(Status::parse("postmortem"), Status::Postmortem);
        for platform in Platform::ALL {
            assert_eq!(Platform::parse(platform.keyword()), Some(platform));
        }
        assert_eq!(
            Status::parse("Mitigated"),
            Status::Other("Mitigated".into())
        );
    }
}
