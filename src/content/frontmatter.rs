//! The canonical format: YAML front matter between `---` lines, then the markdown body.

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::content::fields::{Field, FileCtx, Pos, RawIncident};
use crate::content::source::Scrub;
use crate::content::updates::parse_body;
use crate::content::yaml;
use crate::diagnostics::Diagnostic;
use crate::model::{Dialect, Source};

/// A file split at its front matter.
pub struct Split<'a> {
    pub yaml: &'a str,
    /// How many lines come before the YAML (the opening `---`).
    pub yaml_offset: usize,
    pub body: &'a str,
    /// The file line of the body's first line.
    pub body_line: usize,
}

/// Splits `text` if it opens with `---`; `Err` when the front matter is never closed.
pub fn split<'a>(ctx: &FileCtx<'a>) -> Option<Result<Split<'a>, Diagnostic>> {
    let text = ctx.text;
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| (text.trim_end() == "---").then_some(""))?;
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        if line.trim_end() == "---" || line.trim_end() == "..." {
            return Some(Ok(Split {
                yaml: &rest[..offset],
                yaml_offset: 1,
                body: &rest[offset + line.len()..],
                body_line: i + 3,
            }));
        }
        offset += line.len();
    }
    Some(Err(ctx
        .error(Pos::START, "the front matter is never closed")
        .with_hint("end it with a line holding only `---`")))
}

type S = Option<Spanned<String>>;

/// Unknown keys are found by [`yaml::from_str_checked`], which reports all of them.
#[derive(Deserialize)]
struct IncidentYaml {
    title: S,
    provider: S,
    started: S,
    resolved: S,
    duration: S,
    impact: S,
    level: S,
    #[serde(default, deserialize_with = "yaml::one_or_many")]
    components: Vec<String>,
    #[serde(default, deserialize_with = "yaml::one_or_many")]
    regions: Vec<String>,
    id: S,
    official_url: S,
    slug: S,
    #[serde(default)]
    aliases: Vec<Spanned<String>>,
    #[serde(default)]
    draft: bool,
    source: Option<Source>,
    extra: Option<serde_json::Value>,
}

impl Scrub for IncidentYaml {
    fn scrub(&mut self) {
        // Named one by one, so a new field cannot be forgotten.
        let IncidentYaml {
            title,
            provider,
            started,
            resolved,
            duration,
            impact,
            level,
            components,
            regions,
            id,
            official_url,
            slug,
            aliases,
            draft: _,
            source,
            extra,
        } = self;
        for field in [
            title,
            provider,
            started,
            resolved,
            duration,
            impact,
            level,
            id,
            official_url,
            slug,
        ] {
            field.scrub();
        }
        components.scrub();
        regions.scrub();
        aliases.scrub();
        source.scrub();
        extra.scrub();
    }
}

impl Scrub for Source {
    fn scrub(&mut self) {
        let Source { kind, id, imported } = self;
        kind.scrub();
        id.scrub();
        imported.scrub();
    }
}

pub const INCIDENT_FIELDS: &[&str] = &[
    "title",
    "provider",
    "started",
    "resolved",
    "duration",
    "impact",
    "level",
    "components",
    "regions",
    "id",
    "official_url",
    "slug",
    "aliases",
    "draft",
    "source",
    "extra",
];

/// Reads a canonical incident file.
pub fn parse_incident(
    ctx: &FileCtx,
    split: &Split,
    errors: &mut Vec<Diagnostic>,
) -> Option<RawIncident> {
    let yaml::Checked {
        value: raw,
        errors: mut problems,
        meant,
    } = yaml::from_str_checked::<IncidentYaml>(
        split.yaml,
        split.yaml_offset,
        INCIDENT_FIELDS,
        ctx.path,
        ctx.text,
    );
    errors.append(&mut problems);
    // The body is read even when the front matter is not, so its problems show too.
    let body = parse_body(ctx, split.body, split.body_line, errors);
    let raw = raw?;
    let field = |value: S| value.map(|v| spanned(v, split.yaml_offset));
    Some(RawIncident {
        dialect: Dialect::FrontMatter,
        title: field(raw.title),
        provider: field(raw.provider),
        provider_name: None,
        started: field(raw.started),
        resolved: field(raw.resolved),
        duration: field(raw.duration),
        impact: field(raw.impact),
        level: field(raw.level),
        components: raw.components,
        unnamed_components: 0,
        regions: raw.regions,
        id: field(raw.id),
        official_url: field(raw.official_url),
        slug: field(raw.slug),
        aliases: raw
            .aliases
            .into_iter()
            .map(|v| spanned(v, split.yaml_offset))
            .collect(),
        draft: raw.draft,
        source: raw.source,
        extra: raw.extra,
        body,
        attribution: None,
        meant,
    })
}

pub fn spanned(value: Spanned<String>, line_offset: usize) -> Field<String> {
    let at = value.referenced;
    let width = value.value.chars().count().max(1);
    Field {
        pos: Pos::new(
            at.line() as usize + line_offset,
            at.column().max(1) as usize,
            width,
        ),
        value: value.value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn read(text: &str) -> (Option<RawIncident>, Vec<Diagnostic>) {
        let ctx = FileCtx::new(Path::new("a.md"), text);
        let mut errors = Vec::new();
        let split = split(&ctx).unwrap().unwrap();
        let raw = parse_incident(&ctx, &split, &mut errors);
        (raw, errors)
    }

    #[test]
    fn fields_keep_their_file_position() {
        let (raw, errors) = read(
            "---\ntitle: Down\nimpact:   major\n---\n### 2022-01-20 17:58 UTC: investigating\nx\n",
        );
        assert!(errors.is_empty());
        let raw = raw.unwrap();
        assert_eq!(raw.impact.unwrap().pos, Pos::new(3, 11, 5));
        assert_eq!(raw.body.updates.len(), 1);
    }

    #[test]
    fn unknown_keys_are_errors_with_a_suggestion() {
        let (raw, errors) = read("---\ntitle: Down\nimpcat: major\n---\n");
        assert!(
            raw.is_some(),
            "the known fields are still read, to be checked too"
        );
        assert_eq!((errors[0].line, errors[0].col), (3, 1));
        assert!(errors[0].hint.as_deref().unwrap().contains("`impact`"));
    }

    #[test]
    fn unclosed_front_matter_is_an_error() {
        let ctx = FileCtx::new(Path::new("a.md"), "---\ntitle: x\n");
        assert!(split(&ctx).unwrap().is_err());
    }

    #[test]
    fn body_line_numbers_follow_the_front_matter() {
        let (_, errors) =
            read("---\ntitle: x\n---\nintro\n### 2022-99-01 10:00 UTC: investigating\n");
        assert_eq!(errors[0].line, 5);
    }
}
