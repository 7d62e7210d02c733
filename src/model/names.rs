//! Names that end up in paths and links, checked where they are made: a [`Slug`] is a
//! safe path segment, a [`WebUrl`] an absolute http or https URL.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A single, safe URL path segment: `[a-z0-9-]`, not empty, never `.` or `..`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Slug(String);

/// Why a text cannot be a slug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlugError {
    /// Blank, or with no letter or digit to make a slug of.
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

    /// The slug as text.
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
    /// Text that no longer is a slug.
    #[error("not a slug: {0:?}")]
    Slug(String),
    /// Text that no longer is a safe web URL.
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

    /// The URL as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}
