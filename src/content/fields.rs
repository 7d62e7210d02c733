//! What both incident formats read into, and the one place that validates it into an
//! [`Incident`]: the front matter and the down.guide export can never disagree on a rule.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use crate::content::time::{self, ACCEPTED_FORMATS, TimeError};
use crate::content::updates::Body;
use crate::diagnostics::Diagnostic;
use crate::model::{
    Alias, Dialect, Duration, DurationError, Impact, Incident, Level, Slug, SlugError, Source,
    SourcePos, Status, Timestamp, WebUrl,
};
use crate::routes;

/// The file being read: where it is and its text, to point errors at it.
pub struct FileCtx<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    /// Where each line starts, found at the first error: a file with a problem on every
    /// line must not be scanned once per problem.
    line_starts: OnceCell<Vec<usize>>,
}

impl<'a> FileCtx<'a> {
    pub fn new(path: &'a Path, text: &'a str) -> FileCtx<'a> {
        FileCtx {
            path,
            text,
            line_starts: OnceCell::new(),
        }
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        })
    }

    /// Where byte `offset` of the file is, one character wide.
    pub fn pos_at(&self, offset: usize) -> Pos {
        let starts = self.line_starts();
        let line = starts.partition_point(|&start| start <= offset).max(1);
        let start = starts.get(line - 1).copied().unwrap_or(0);
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        Pos::new(line, col + 1, 1)
    }

    pub fn error(&self, pos: Pos, message: impl Into<String>) -> Diagnostic {
        let starts = self.line_starts();
        let line = pos
            .line
            .checked_sub(1)
            .and_then(|i| starts.get(i))
            .map_or("", |&start| {
                let rest = &self.text[start..];
                rest.split_once('\n').map_or(rest, |(line, _)| line)
            });
        let mut diagnostic = Diagnostic::at(self.path, line, 1, pos.col, pos.width, message);
        diagnostic.line = pos.line;
        diagnostic
    }
}

/// Where a value sits in its file (1-based line and column, width in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
    pub width: usize,
}

impl Pos {
    pub fn new(line: usize, col: usize, width: usize) -> Pos {
        Pos { line, col, width }
    }

    /// The start of the file, for what is missing rather than wrong.
    pub const START: Pos = Pos {
        line: 1,
        col: 1,
        width: 3,
    };
}

/// A value with where it was written.
#[derive(Debug, Clone)]
pub struct Field<T> {
    pub value: T,
    pub pos: Pos,
}

/// An incident as written, before any check.
#[derive(Debug, Default)]
pub struct RawIncident {
    /// The format it was read from.
    pub dialect: Dialect,
    pub title: Option<Field<String>>,
    /// A slug or a name: `lightstep`, `Greenmesh Cloud`.
    pub provider: Option<Field<String>>,
    /// The provider's name, when the file gives it apart from the slug (down.guide).
    pub provider_name: Option<String>,
    pub started: Option<Field<String>>,
    pub resolved: Option<Field<String>>,
    pub duration: Option<Field<String>>,
    pub impact: Option<Field<String>>,
    pub level: Option<Field<String>>,
    pub components: Vec<String>,
    pub unnamed_components: u32,
    pub regions: Vec<String>,
    pub id: Option<Field<String>>,
    pub official_url: Option<Field<String>>,
    pub slug: Option<Field<String>>,
    pub aliases: Vec<Field<String>>,
    pub draft: bool,
    pub source: Option<Source>,
    pub extra: Option<serde_json::Value>,
    pub body: Body,
    pub attribution: Option<String>,
    /// Fields an unknown key probably meant: not reported missing too.
    pub meant: Vec<&'static str>,
}

const IMPACT_HINT: &str = "use one of none, minor, major, critical, maintenance, or a status page label: \
     No impact, Degraded performance, Partial outage, Major outage, Under maintenance";

impl RawIncident {
    /// Reports a required field as missing, unless a misspelt key already stands for it.
    fn missing(
        &self,
        ctx: &FileCtx,
        field: &str,
        hint: Option<&str>,
        errors: &mut Vec<Diagnostic>,
    ) {
        if self.meant.contains(&field) {
            return;
        }
        let error = ctx.error(Pos::START, format!("missing `{field}`"));
        errors.push(match hint {
            Some(hint) => error.with_hint(hint),
            None => error,
        });
    }

    /// Checks every field, reporting every problem at once. `folder` is the first folder
    /// under `content/`, the provider when the file names none.
    pub fn finish(
        self,
        ctx: &FileCtx,
        folder: Option<&str>,
        errors: &mut Vec<Diagnostic>,
    ) -> Option<Incident> {
        let before = errors.len();
        let title = self.read_title(ctx, errors);
        let (provider, provider_name) = self.read_provider(ctx, folder, errors);
        let started = match &self.started {
            Some(field) => read_time(ctx, field, errors),
            None => {
                self.missing(ctx, "started", Some(ACCEPTED_FORMATS), errors);
                None
            }
        };
        let resolved = self.read_resolved(ctx, started, errors);
        let impact = self.read_impact(ctx, errors);
        let level = self.level.as_ref().and_then(|field| {
            let level = Level::parse(&field.value);
            if level.is_none() {
                errors.push(
                    ctx.error(field.pos, format!("unknown level `{}`", field.value))
                        .with_hint("use `confirmed` or `suspected`"),
                );
            }
            level
        });
        let official_url = self
            .official_url
            .as_ref()
            .and_then(|field| read_url(ctx, field, errors));
        let slug = match &self.slug {
            Some(field) => Slug::parse(field.value.trim())
                .map_err(|e| errors.push(slug_error(ctx, field.pos, "slug", &e)))
                .ok(),
            None => stem_slug(ctx, errors),
        };
        let aliases = self.read_aliases(ctx, errors);
        if errors[before..].iter().any(Diagnostic::is_error) {
            return None;
        }
        self.warn(ctx, started, resolved, impact, errors);
        let id = self
            .id
            .map(|field| Field {
                value: field.value.trim().to_string(),
                ..field
            })
            .filter(|field| !field.value.is_empty());
        Some(Incident {
            file: ctx.path.to_path_buf(),
            title: title?,
            provider: provider?,
            provider_name,
            slug: slug?,
            started: started?,
            resolved: resolved?,
            impact: impact?,
            level,
            components: clean_list(self.components),
            unnamed_components: self.unnamed_components,
            regions: clean_list(self.regions),
            id_at: id.as_ref().map(|field| SourcePos {
                line: field.pos.line,
                col: field.pos.col,
            }),
            id: id.map(|field| field.value),
            official_url,
            aliases,
            draft: self.draft,
            source: self.source,
            extra: self.extra,
            summary: self.body.summary,
            updates: self.body.updates,
            attribution: self.attribution,
            dialect: self.dialect,
            // The loader hands it every warning of the file.
            warnings: Vec::new(),
        })
    }

    /// The title, trimmed; an error when it is missing or empty.
    fn read_title(&self, ctx: &FileCtx, errors: &mut Vec<Diagnostic>) -> Option<String> {
        match &self.title {
            Some(title) if !title.value.trim().is_empty() => Some(title.value.trim().to_string()),
            Some(title) => {
                errors.push(ctx.error(title.pos, "the title is empty"));
                None
            }
            None => {
                self.missing(ctx, "title", None, errors);
                None
            }
        }
    }

    /// When it ended, from `resolved` or from `started` plus `duration` (`Some(None)`:
    /// not resolved); `None` when that cannot be told.
    fn read_resolved(
        &self,
        ctx: &FileCtx,
        started: Option<Timestamp>,
        errors: &mut Vec<Diagnostic>,
    ) -> Option<Option<Timestamp>> {
        let resolved = match (&self.resolved, &self.duration) {
            (Some(_), Some(duration)) => {
                errors.push(
                    ctx.error(duration.pos, "give `resolved` or `duration`, not both")
                        .with_hint("keep `resolved`: it is the more precise"),
                );
                None
            }
            (Some(field), None) => read_time(ctx, field, errors).map(Some),
            (None, Some(field)) => {
                read_duration(ctx, field, errors)
                    .zip(started)
                    .and_then(|(duration, start)| match time::end_of(start, duration) {
                        Ok(end) => Some(Some(end)),
                        Err(_) => {
                            errors.push(
                                ctx.error(
                                    field.pos,
                                    "`started` plus this duration falls after the year 9999",
                                )
                                .with_hint(time::YEARS),
                            );
                            None
                        }
                    })
            }
            (None, None) => Some(None),
        };
        if let (Some(start), Some(Some(end)), Some(field)) = (started, resolved, &self.resolved)
            && end < start
        {
            errors.push(ctx.error(field.pos, "`resolved` is before `started`"));
        }
        resolved
    }

    /// The impact; an error when it is missing or unknown.
    fn read_impact(&self, ctx: &FileCtx, errors: &mut Vec<Diagnostic>) -> Option<Impact> {
        match &self.impact {
            Some(field) => Impact::parse(&field.value).or_else(|| {
                errors.push(
                    ctx.error(field.pos, format!("unknown impact `{}`", field.value))
                        .with_hint(IMPACT_HINT),
                );
                None
            }),
            None => {
                self.missing(ctx, "impact", Some(IMPACT_HINT), errors);
                None
            }
        }
    }

    /// Every usable alias, each with where it was written; an error for each other.
    fn read_aliases(&self, ctx: &FileCtx, errors: &mut Vec<Diagnostic>) -> Vec<Alias> {
        self.aliases
            .iter()
            .filter_map(|field| {
                let alias = read_alias(&field.value).map(|path| Alias {
                    path,
                    line: field.pos.line,
                    col: field.pos.col,
                });
                if alias.is_none() {
                    errors.push(
                        ctx.error(
                            field.pos,
                            format!("`{}` is not a usable alias", field.value),
                        )
                        .with_hint(
                            "write a path of the site, like `/old/url/`: no `..`, `?` or `#`, no name starting with `.`, not ending `.gz` or `.br`",
                        ),
                    );
                }
                alias
            })
            .collect()
    }

    /// What builds but looks wrong: an outage's update before it started, a component
    /// named without a letter or digit, a last update that says resolved without a time.
    fn warn(
        &self,
        ctx: &FileCtx,
        started: Option<Timestamp>,
        resolved: Option<Option<Timestamp>>,
        impact: Option<Impact>,
        errors: &mut Vec<Diagnostic>,
    ) {
        // A maintenance is announced before it starts: only an outage's clock is suspect.
        let early = self
            .body
            .updates
            .iter()
            .find(|u| u.status != Status::Scheduled && u.status != Status::Postmortem);
        if let (Some(first), Some(start), Some(false)) =
            (early, started, impact.map(|i| i == Impact::Maintenance))
            && first.at < start
        {
            errors.push(
                ctx.error(
                    self.started.as_ref().map_or(Pos::START, |field| field.pos),
                    format!(
                        "an update is dated {}, before `started`",
                        first.at.format("%Y-%m-%d %H:%M UTC")
                    ),
                )
                .with_hint(
                    "check the update's time and `started`: one has the wrong clock or a typo",
                )
                .warning(),
            );
        }
        for name in &self.components {
            if !name.chars().any(char::is_alphanumeric) {
                errors.push(
                    ctx.error(
                        Pos::START,
                        format!("the component `{name}` has no letter or digit, so its page is named by a hash"),
                    )
                    .with_hint("give the component a name with words")
                    .warning(),
                );
            }
        }
        if let (Some(last), Some(None)) = (self.body.updates.last(), resolved)
            && last.status == Status::Resolved
        {
            let at = last.at.format("%Y-%m-%dT%H:%M:%SZ");
            errors.push(
                ctx.error(
                    Pos::START,
                    "the last update says `resolved`, but the incident has no `resolved:` time, so it shows as ongoing",
                )
                .with_hint(format!("add `resolved: {at}` to the front matter"))
                .warning(),
            );
        }
    }

    fn read_provider(
        &self,
        ctx: &FileCtx,
        folder: Option<&str>,
        errors: &mut Vec<Diagnostic>,
    ) -> (Option<Slug>, Option<String>) {
        match &self.provider {
            Some(field) => match Slug::from_name(&field.value) {
                Ok(slug) => {
                    let name = self.provider_name.clone().or_else(|| {
                        let written = field.value.trim();
                        (written != slug.as_str()).then(|| written.to_string())
                    });
                    (Some(slug), name)
                }
                Err(e) => {
                    errors.push(slug_error(ctx, field.pos, "provider", &e));
                    (None, None)
                }
            },
            None => match folder.map(Slug::from_name) {
                Some(Ok(slug)) => (Some(slug), self.provider_name.clone()),
                Some(Err(e)) => {
                    errors.push(ctx.error(
                        Pos::START,
                        format!("the folder name cannot be a provider: it {e}"),
                    ));
                    (None, None)
                }
                None => {
                    errors.push(
                        ctx.error(Pos::START, "cannot tell the provider of this incident")
                            .with_hint("put the file in a folder named after the provider (`content/github/`) or set `provider:`"),
                    );
                    (None, None)
                }
            },
        }
    }
}

fn stem_slug(ctx: &FileCtx, errors: &mut Vec<Diagnostic>) -> Option<Slug> {
    let stem = ctx
        .path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    Slug::from_name(stem)
        .map_err(|e| {
            errors.push(
                ctx.error(
                    Pos::START,
                    format!("the file name cannot be a slug: it {e}"),
                )
                .with_hint("rename the file, or set `slug:`"),
            )
        })
        .ok()
}

fn slug_error(ctx: &FileCtx, pos: Pos, what: &str, error: &SlugError) -> Diagnostic {
    let diagnostic = ctx.error(pos, format!("`{what}` {error}"));
    match error {
        SlugError::NotCanonical(suggestion) => {
            diagnostic.with_hint(format!("write `{suggestion}`"))
        }
        _ => diagnostic.with_hint("it becomes one folder of the URL, like `webapp-down`"),
    }
}

fn read_time(
    ctx: &FileCtx,
    field: &Field<String>,
    errors: &mut Vec<Diagnostic>,
) -> Option<Timestamp> {
    time::parse_timestamp(&field.value)
        .map_err(|e| errors.push(time_error(ctx, field.pos, &field.value, e)))
        .ok()
}

/// The problem with a time written at `pos`, for fields and update headings alike.
pub fn time_error(ctx: &FileCtx, pos: Pos, text: &str, error: TimeError) -> Diagnostic {
    let message = match error {
        TimeError::Unreadable => format!("cannot read the time `{text}`"),
        TimeError::OutOfRange => format!("the time `{text}` is outside the years 0001 to 9999"),
        TimeError::LeapSecond => format!("the time `{text}` has second 60"),
    };
    ctx.error(pos, message).with_hint(error.hint())
}

fn read_duration(
    ctx: &FileCtx,
    field: &Field<String>,
    errors: &mut Vec<Diagnostic>,
) -> Option<Duration> {
    Duration::parse(&field.value)
        .map_err(|e| {
            let value = &field.value;
            errors.push(match e {
                DurationError::Unreadable => ctx
                    .error(field.pos, format!("cannot read the duration `{value}`"))
                    .with_hint("write it like `3h 24m`, `45m` or `1d 2h`"),
                DurationError::TooLong => ctx
                    .error(field.pos, format!("the duration `{value}` is too long"))
                    .with_hint(format!(
                        "a duration is at most {}; for a longer incident give `resolved`",
                        Duration::LONGEST_TEXT
                    )),
            })
        })
        .ok()
}

pub fn read_url(
    ctx: &FileCtx,
    field: &Field<String>,
    errors: &mut Vec<Diagnostic>,
) -> Option<WebUrl> {
    let url = WebUrl::parse(&field.value);
    if url.is_none() {
        errors.push(
            ctx.error(
                field.pos,
                format!("`{}` is not an http(s) URL", field.value),
            )
            .with_hint("write an absolute https:// or http:// link, without spaces, quotes or angle brackets"),
        );
    }
    url
}

/// An alias as a site path without its leading slash: `/old/url/` → `old/url/`.
fn read_alias(text: &str) -> Option<String> {
    let path = text.trim().strip_prefix('/')?;
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // Hidden names are the build's own (`.outages-manifest`, the lock) or the host's
    // (`.git`, `.well-known`); `.gz` and `.br` are `--precompress`'s copies of pages.
    let last = segments.last()?;
    let safe = !routes::is_precompressed(last)
        && segments.iter().all(|segment| {
            !segment.starts_with('.')
                && !segment
                    .chars()
                    .any(|c| c.is_control() || c.is_whitespace() || "\\?#%\"<>*!^`{|}".contains(c))
        });
    safe.then(|| {
        let mut alias = segments.join("/");
        if !alias
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains('.'))
        {
            alias.push('/');
        }
        alias
    })
}

fn clean_list(list: Vec<String>) -> Vec<String> {
    list.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The display path of a file under a site root: `my-site/content/a.md`, or
/// `content/a.md` when building in the current folder.
pub fn display_path(root: &Path, relative: &Path) -> PathBuf {
    if root == Path::new(".") || root.as_os_str().is_empty() {
        relative.to_path_buf()
    } else {
        root.join(relative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_safe_site_paths() {
        assert_eq!(read_alias("/old/url/").as_deref(), Some("old/url/"));
        assert_eq!(read_alias("/old/url").as_deref(), Some("old/url/"));
        assert_eq!(
            read_alias("/old/page.html").as_deref(),
            Some("old/page.html")
        );
        assert_eq!(read_alias("/../x/"), None);
        assert_eq!(read_alias("old/"), None);
        assert_eq!(read_alias("/"), None);
        // What `_redirects` would read as syntax.
        assert_eq!(read_alias("/old page/"), None);
        assert_eq!(read_alias("/*"), None);
        assert_eq!(read_alias("/a!/"), None);
        // The build's own files and `--precompress`'s copies.
        assert_eq!(read_alias("/.outages-manifest"), None);
        assert_eq!(read_alias("/.git/config"), None);
        assert_eq!(read_alias("/index.html.gz"), None);
        assert_eq!(read_alias("/feed.xml.br"), None);
    }
}
