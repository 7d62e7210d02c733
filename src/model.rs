//! The incident model: what an archive is made of, with no notion of HTML or files.
//!
//! Every type here is validated once, where it is made, so the rest of the pipeline can
//! trust it: a [`Slug`] is always a safe path segment, a [`Timestamp`] is always UTC.

use std::fmt;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// An instant in UTC. Offsets in the source are applied once, at parse time.
pub type Timestamp = DateTime<Utc>;

/// How bad an incident was, as status pages grade it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    None,
    Minor,
    Major,
    Critical,
    Maintenance,
}

impl Impact {
    pub const ALL: [Impact; 5] = [
        Impact::None,
        Impact::Minor,
        Impact::Major,
        Impact::Critical,
        Impact::Maintenance,
    ];

    /// Reads the keyword (`major`) or the label a status page shows (`Partial outage`),
    /// case-insensitively.
    pub fn parse(text: &str) -> Option<Impact> {
        let wanted = text.trim();
        Impact::ALL.into_iter().find(|impact| {
            wanted.eq_ignore_ascii_case(impact.keyword())
                || wanted.eq_ignore_ascii_case(impact.label())
        })
    }

    pub fn keyword(self) -> &'static str {
        match self {
            Impact::None => "none",
            Impact::Minor => "minor",
            Impact::Major => "major",
            Impact::Critical => "critical",
            Impact::Maintenance => "maintenance",
        }
    }

    /// The words a status page shows for this impact.
    pub fn label(self) -> &'static str {
        match self {
            Impact::None => "No impact",
            Impact::Minor => "Degraded performance",
            Impact::Major => "Partial outage",
            Impact::Critical => "Major outage",
            Impact::Maintenance => "Under maintenance",
        }
    }
}

/// Whether the incident was confirmed by the provider or only suspected from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Confirmed,
    Suspected,
}

impl Level {
    pub fn parse(text: &str) -> Option<Level> {
        match text.trim().to_ascii_lowercase().as_str() {
            "confirmed" => Some(Level::Confirmed),
            "suspected" => Some(Level::Suspected),
            _ => None,
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            Level::Confirmed => "confirmed",
            Level::Suspected => "suspected",
        }
    }
}

/// A single, safe URL path segment: `[a-z0-9-]`, not empty, never `.` or `..`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Slug(String);

/// Why a text cannot be a slug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlugError {
    Empty,
    /// Holds `/`, `\` or is `.`/`..`: it would name another folder.
    PathLike,
    /// Has characters outside `[a-z0-9-]`; carries the slugified suggestion.
    NotCanonical(String),
}

impl Slug {
    /// Accepts only text that already is a slug; this is what `slug:` fields must be.
    pub fn parse(text: &str) -> Result<Slug, SlugError> {
        check_segment(text)?;
        let canonical = slug::slugify(text);
        if canonical.is_empty() {
            Err(SlugError::Empty)
        } else if canonical == text {
            Ok(Slug(canonical))
        } else {
            Err(SlugError::NotCanonical(canonical))
        }
    }

    /// Turns a name (`Greenmesh Cloud`) or a file stem into a slug (`greenmesh-cloud`),
    /// refusing anything that looks like a path.
    pub fn from_name(text: &str) -> Result<Slug, SlugError> {
        check_segment(text)?;
        let canonical = slug::slugify(text);
        if canonical.is_empty() {
            Err(SlugError::Empty)
        } else {
            Ok(Slug(canonical))
        }
    }

    /// A slug made from free text (a title, an id) for a new file's name: `/` and the like
    /// are only characters here, and at most [`Slug::MAX_FROM_TITLE`] bytes are kept, cut
    /// at a word.
    pub fn from_title(text: &str) -> Result<Slug, SlugError> {
        let slug = slug::slugify(text);
        let cut = if slug.len() <= Slug::MAX_FROM_TITLE {
            slug.len()
        } else {
            slug[..Slug::MAX_FROM_TITLE]
                .rfind('-')
                .unwrap_or(Slug::MAX_FROM_TITLE)
        };
        let slug = slug[..cut].trim_end_matches('-');
        if slug.is_empty() {
            Err(SlugError::Empty)
        } else {
            Ok(Slug(slug.to_string()))
        }
    }

    /// The longest slug a new file name takes from a title or an id.
    pub const MAX_FROM_TITLE: usize = 60;

    /// The slug of a component's page, for any name a provider gives it: a component name
    /// is free text (`CARRIER NETWORK / SMS, Middle East & Africa`), so `/` and the like
    /// are only characters here. A name with no letter or digit, or one longer than
    /// [`Slug::MAX_COMPONENT`], is told apart from others by a hash of the whole name, so
    /// two names share a page only when they make the same slug whole.
    pub fn of_component(name: &str) -> Slug {
        let slug = slug::slugify(name);
        if !slug.is_empty() && slug.len() <= Slug::MAX_COMPONENT {
            return Slug(slug);
        }
        let hash = blake3::hash(name.trim().as_bytes()).to_hex();
        let tag = &hash.as_str()[..8];
        // Room for `-` and the tag, cut at a word.
        let room = Slug::MAX_COMPONENT - tag.len() - 1;
        let kept = if slug.len() <= room {
            &slug
        } else {
            slug[..room]
                .rfind('-')
                .map_or(&slug[..room], |at| &slug[..at])
        };
        match kept.trim_end_matches('-') {
            "" => Slug(format!("component-{tag}")),
            kept => Slug(format!("{kept}-{tag}")),
        }
    }

    /// The longest slug a component's page takes from its name.
    pub const MAX_COMPONENT: usize = 80;

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn check_segment(text: &str) -> Result<(), SlugError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        Err(SlugError::Empty)
    } else if trimmed.contains(['/', '\\']) || trimmed.split('.').all(str::is_empty) {
        Err(SlugError::PathLike)
    } else {
        Ok(())
    }
}

/// A text read back (from the build cache) that no longer is what it was written as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAsWritten {
    #[error("not a slug: {0:?}")]
    Slug(String),
    #[error("not a web URL: {0:?}")]
    WebUrl(String),
}

/// Read back (from the build cache) only if it still is a slug.
impl TryFrom<String> for Slug {
    type Error = NotAsWritten;

    fn try_from(text: String) -> Result<Slug, NotAsWritten> {
        Slug::parse(&text).map_err(|_| NotAsWritten::Slug(text))
    }
}

/// Read back (from the build cache) only if it still is a safe URL.
impl TryFrom<String> for WebUrl {
    type Error = NotAsWritten;

    fn try_from(text: String) -> Result<WebUrl, NotAsWritten> {
        match WebUrl::parse(&text) {
            Some(url) if url.0 == text => Ok(url),
            _ => Err(NotAsWritten::WebUrl(text)),
        }
    }
}

impl<'de> Deserialize<'de> for Slug {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Slug, D::Error> {
        Slug::try_from(String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for WebUrl {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<WebUrl, D::Error> {
        WebUrl::try_from(String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// A time as seconds and nanoseconds since the epoch: read back from the build cache many
/// times faster than RFC 3339 text.
mod compact_time {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Timestamp;

    pub fn serialize<S: Serializer>(time: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
        (time.timestamp(), time.timestamp_subsec_nanos()).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
        let (secs, nanos) = <(i64, u32)>::deserialize(deserializer)?;
        Timestamp::from_timestamp(secs, nanos)
            .ok_or_else(|| serde::de::Error::custom("time out of range"))
    }

    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(
            time: &Option<Timestamp>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            time.map(|t| (t.timestamp(), t.timestamp_subsec_nanos()))
                .serialize(serializer)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<Timestamp>, D::Error> {
            Option::<(i64, u32)>::deserialize(deserializer)?
                .map(|(secs, nanos)| {
                    Timestamp::from_timestamp(secs, nanos)
                        .ok_or_else(|| serde::de::Error::custom("time out of range"))
                })
                .transpose()
        }
    }
}

/// An untyped JSON value as its text, for formats that only hold typed data.
mod json_text {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        value: &Option<serde_json::Value>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value
            .as_ref()
            .map(serde_json::Value::to_string)
            .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<serde_json::Value>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|text| serde_json::from_str(&text).map_err(serde::de::Error::custom))
            .transpose()
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A provider named by the user whose name makes no slug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the provider `{name}` {reason}")]
pub struct BadProvider {
    name: String,
    reason: SlugError,
}

impl Slug {
    /// The slug of a provider the user named (by its slug or its name), or why it has none.
    pub fn of_provider(name: &str) -> Result<Slug, BadProvider> {
        Slug::from_name(name).map_err(|reason| BadProvider {
            name: name.to_string(),
            reason,
        })
    }
}

impl fmt::Display for SlugError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlugError::Empty => f.write_str("is empty"),
            SlugError::PathLike => {
                f.write_str("must be a single path segment, without `/`, `\\` or `..`")
            }
            SlugError::NotCanonical(_) => {
                f.write_str("may hold only lowercase letters, digits and `-`")
            }
        }
    }
}

/// A URL from content that is safe to put in an `href`: absolute http or https.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct WebUrl(String);

impl WebUrl {
    /// Accepts an absolute http(s) URL with a host, as a browser reads it (WHATWG), and
    /// keeps it as written; text a browser would have to repair (spaces, quotes, angle
    /// brackets, controls) is refused rather than guessed at.
    pub fn parse(text: &str) -> Option<WebUrl> {
        let text = text.trim();
        let url = url::Url::parse(text).ok()?;
        let clean = !text
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>' | '`'));
        (matches!(url.scheme(), "http" | "https") && url.has_host() && clean)
            .then(|| WebUrl(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A status word of an update; the common ones are known, any other is kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    Investigating,
    Identified,
    Monitoring,
    Update,
    Resolved,
    Postmortem,
    Scheduled,
    InProgress,
    Verifying,
    Completed,
    Other(String),
}

impl Status {
    /// The statuses with a meaning of their own, as written in content.
    pub const KNOWN: &[&str] = &[
        "investigating",
        "identified",
        "monitoring",
        "update",
        "resolved",
        "postmortem",
        "scheduled",
        "in progress",
        "verifying",
        "completed",
    ];

    pub fn parse(text: &str) -> Status {
        let text = text.trim();
        match text.to_ascii_lowercase().replace('_', " ").as_str() {
            "investigating" => Status::Investigating,
            "identified" => Status::Identified,
            "monitoring" => Status::Monitoring,
            "update" => Status::Update,
            "resolved" => Status::Resolved,
            "postmortem" | "post-mortem" => Status::Postmortem,
            "scheduled" => Status::Scheduled,
            "in progress" => Status::InProgress,
            "verifying" => Status::Verifying,
            "completed" => Status::Completed,
            _ => Status::Other(text.to_string()),
        }
    }

    /// The status as written in content, lowercase for known words.
    pub fn as_str(&self) -> &str {
        match self {
            Status::Investigating => "investigating",
            Status::Identified => "identified",
            Status::Monitoring => "monitoring",
            Status::Update => "update",
            Status::Resolved => "resolved",
            Status::Postmortem => "postmortem",
            Status::Scheduled => "scheduled",
            Status::InProgress => "in progress",
            Status::Verifying => "verifying",
            Status::Completed => "completed",
            Status::Other(text) => text,
        }
    }
}

/// A length of time, in whole seconds, never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(i64);

/// Why a written duration cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationError {
    /// Not like `3h 24m`.
    Unreadable,
    /// Longer than [`Duration::LONGEST`].
    TooLong,
}

impl Duration {
    /// The longest duration content may write: ten years. Longer is a typo, not an outage
    /// (and an incident that long can still give `resolved`).
    pub const LONGEST: Duration = Duration(3650 * 86_400);

    /// How `LONGEST` reads in messages.
    pub const LONGEST_TEXT: &str = "3650d (ten years)";

    pub fn between(start: Timestamp, end: Timestamp) -> Duration {
        Duration((end - start).num_seconds().max(0))
    }

    pub fn seconds(self) -> i64 {
        self.0
    }

    /// A duration of `seconds`, never negative.
    pub fn from_seconds(seconds: i64) -> Duration {
        Duration(seconds.max(0))
    }

    /// A duration of whole days (for constants; at most ten years of them).
    pub const fn from_days(days: i64) -> Duration {
        Duration(days.saturating_mul(86_400))
    }

    /// The sum, at most `i64::MAX` seconds.
    pub fn saturating_add(self, other: Duration) -> Duration {
        Duration(self.0.saturating_add(other.0))
    }

    /// Halfway between two durations, rounded down.
    pub fn midpoint(self, other: Duration) -> Duration {
        Duration(self.0.midpoint(other.0))
    }

    /// Reads `3h 24m`, `1d 2h`, `45m`, `90s` or `2h15m`, up to [`Duration::LONGEST`].
    pub fn parse(text: &str) -> Result<Duration, DurationError> {
        let mut total: i64 = 0;
        let mut number: Option<i64> = None;
        let mut seen_unit = false;
        for c in text.trim().chars() {
            match c {
                '0'..='9' => {
                    let digit = i64::from(c as u8 - b'0');
                    // Any overflow is far past the longest duration.
                    number = Some(
                        number
                            .unwrap_or(0)
                            .checked_mul(10)
                            .and_then(|n| n.checked_add(digit))
                            .ok_or(DurationError::TooLong)?,
                    );
                }
                ' ' if number.is_none() => {}
                'd' | 'h' | 'm' | 's' => {
                    let value = number.take().ok_or(DurationError::Unreadable)?;
                    let unit = match c {
                        'd' => 86_400,
                        'h' => 3_600,
                        'm' => 60,
                        _ => 1,
                    };
                    total = value
                        .checked_mul(unit)
                        .and_then(|seconds| total.checked_add(seconds))
                        .filter(|&total| total <= Duration::LONGEST.0)
                        .ok_or(DurationError::TooLong)?;
                    seen_unit = true;
                }
                _ => return Err(DurationError::Unreadable),
            }
        }
        if seen_unit && number.is_none() {
            Ok(Duration(total))
        } else {
            Err(DurationError::Unreadable)
        }
    }
}

impl fmt::Display for Duration {
    /// `3h 24m`, `2d 4h`, `45m`; seconds only when under a minute.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0;
        if secs < 60 {
            return write!(f, "{secs}s");
        }
        let (days, hours, minutes) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
        let parts = [(days, "d"), (hours, "h"), (minutes, "m")];
        let mut first = true;
        for (value, unit) in parts {
            if value > 0 {
                if !first {
                    f.write_str(" ")?;
                }
                write!(f, "{value}{unit}")?;
                first = false;
            }
        }
        Ok(())
    }
}

/// One entry of an incident's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Update {
    #[serde(with = "compact_time")]
    pub at: Timestamp,
    pub status: Status,
    /// Markdown, as the provider wrote it.
    pub body: String,
}

/// Where an incident was imported from; kept so a re-import finds it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub kind: String,
    pub id: String,
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
    pub col: usize,
}

/// Where something is written in its file: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePos {
    pub line: usize,
    pub col: usize,
}

/// One incident, fully validated. (Serialized only into the build cache.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Incident {
    /// The file it came from, relative to the site root (for messages only).
    pub file: PathBuf,
    pub title: String,
    pub provider: Slug,
    /// The provider's name as the incident gives it, if it does.
    pub provider_name: Option<String>,
    pub slug: Slug,
    #[serde(with = "compact_time")]
    pub started: Timestamp,
    /// `None` while the incident is ongoing.
    #[serde(with = "compact_time::option")]
    pub resolved: Option<Timestamp>,
    pub impact: Impact,
    pub level: Option<Level>,
    pub components: Vec<String>,
    /// Components counted but not named (down.guide's `+1`).
    pub unnamed_components: u32,
    pub regions: Vec<String>,
    pub id: Option<String>,
    /// Where `id` is written, to point at it when two incidents share it.
    pub id_at: Option<SourcePos>,
    pub official_url: Option<WebUrl>,
    /// Old URLs that must keep working.
    pub aliases: Vec<Alias>,
    pub draft: bool,
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
    /// What looked wrong in the file but builds as written, to tell the writer.
    pub warnings: Vec<crate::diagnostics::Diagnostic>,
}

impl Incident {
    pub fn duration(&self) -> Option<Duration> {
        self.resolved
            .map(|end| Duration::between(self.started, end))
    }

    pub fn is_ongoing(&self) -> bool {
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

    pub fn postmortem(&self) -> Option<&Update> {
        self.numbered_postmortem().map(|(_, u)| u)
    }

    pub fn timeline(&self) -> impl Iterator<Item = &Update> {
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

    pub fn component_count(&self) -> usize {
        self.components.len() + self.unnamed_components as usize
    }
}

/// A provider as described by its `_index.md`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProviderInfo {
    pub file: PathBuf,
    pub name: Option<String>,
    pub url: Option<WebUrl>,
    pub status_page: Option<WebUrl>,
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
    Statuspage,
    IncidentIo,
    GoogleCloud,
    Aws,
    Slack,
    BetterStack,
    Feed,
}

impl Platform {
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
        assert_eq!(Duration::parse("3h 24m"), Ok(Duration(3 * 3600 + 24 * 60)));
        assert_eq!(Duration::parse("2h15m"), Ok(Duration(2 * 3600 + 15 * 60)));
        assert_eq!(Duration::parse("1d 2h"), Ok(Duration(86_400 + 7_200)));
        assert_eq!(Duration::parse("45m").unwrap().to_string(), "45m");
        assert_eq!(Duration::parse("3h 24m").unwrap().to_string(), "3h 24m");
        assert_eq!(Duration(90_000).to_string(), "1d 1h");
        assert_eq!(Duration(30).to_string(), "30s");
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
            Duration(i64::MAX).saturating_add(Duration(1)),
            Duration(i64::MAX)
        );
        assert_eq!(
            Duration(i64::MAX).midpoint(Duration(i64::MAX - 2)).0,
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
