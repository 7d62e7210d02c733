//! The down.guide export: `# Title`, a `- ` list of facts, `## Updates from <Name>`, the
//! updates, and after the last `---` line the source's attribution.

use crate::content::fields::{Field, FileCtx, Pos, RawIncident};
use crate::content::updates::{parse_body, unescape_once};
use crate::diagnostics::Diagnostic;
use crate::model::{Dialect, Status};

/// Reads an export; `None` when the file does not start with `# Title`.
pub fn parse_incident(ctx: &FileCtx, errors: &mut Vec<Diagnostic>) -> Option<RawIncident> {
    let mut lines = ctx
        .text
        .lines()
        .enumerate()
        .skip_while(|(_, line)| line.trim().is_empty());
    let (title_index, title_line) = lines.next()?;
    let title = title_line.strip_prefix("# ")?;
    let mut raw = RawIncident {
        dialect: Dialect::DownGuide,
        title: Some(Field {
            value: title.trim().to_string(),
            pos: Pos::new(title_index + 1, 3, title.chars().count()),
        }),
        ..RawIncident::default()
    };
    let mut unlabelled = 0;
    let mut body_start = ctx.text.lines().count();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let Some(item) = line.strip_prefix("- ") else {
            body_start = i;
            break;
        };
        let field = |prefix: &str| -> Option<Field<String>> {
            let value = strip_prefix_ignore_case(item, prefix)?.trim_start();
            let col = line.chars().count() - value.chars().count() + 1;
            Some(Field {
                value: value.trim_end().to_string(),
                pos: Pos::new(i + 1, col, value.trim_end().chars().count()),
            })
        };
        if let Some(provider) = field("Provider:") {
            let (name, url) = markdown_link(&provider.value);
            raw.provider_name = Some(name.to_string());
            let slug = url.and_then(down_guide_slug).unwrap_or(name);
            raw.provider = Some(Field {
                value: slug.to_string(),
                pos: provider.pos,
            });
        } else if let Some(level) = field("Level:") {
            raw.level = Some(level);
        } else if let Some(impact) = field("Impact:") {
            raw.impact = Some(impact);
        } else if let Some(duration) = field("lasted ") {
            raw.duration = Some(duration);
        } else if let Some(started) = field("started ") {
            raw.started = Some(started);
        } else if let Some(resolved) = field("resolved ") {
            raw.resolved = Some(resolved);
        } else if let Some(id) = field("id:") {
            raw.id = Some(id);
        } else if let Some(url) = field("Official page:") {
            raw.official_url = Some(url);
        } else {
            unlabelled += 1;
            match unlabelled {
                1 => (raw.components, raw.unnamed_components) = components(item),
                2 => raw.regions = item.split(',').map(|s| s.trim().to_string()).collect(),
                _ => errors.push(
                    ctx.error(Pos::new(i + 1, 3, item.chars().count()), "unexpected line in the export's facts")
                        .with_hint("after the components and regions lines, only labelled lines (`id:`, `Official page:`) may follow"),
                ),
            }
        }
    }
    let (body, attribution) = split_attribution(ctx.text, body_start);
    raw.body = parse_body(ctx, body, body_start + 1, errors);
    raw.attribution = attribution;
    for update in &mut raw.body.updates {
        if update.status == Status::Postmortem {
            update.body = unescape_once(&update.body);
        }
    }
    Some(raw)
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// `[Name](url)` → (`Name`, `Some(url)`); plain text → (text, None).
fn markdown_link(text: &str) -> (&str, Option<&str>) {
    text.strip_prefix('[')
        .and_then(|rest| rest.split_once("]("))
        .and_then(|(name, rest)| Some((name, rest.strip_suffix(')')?)))
        .map_or((text, None), |(name, url)| (name.trim(), Some(url.trim())))
}

/// `https://down.guide/lightstep` → `lightstep`.
fn down_guide_slug(url: &str) -> Option<&str> {
    let path = url
        .strip_prefix("https://down.guide/")
        .or_else(|| url.strip_prefix("http://down.guide/"))?;
    let slug = path.trim_end_matches('/');
    (!slug.is_empty() && !slug.contains('/')).then_some(slug)
}

/// `A, B, C +1` → ([A, B, C], 1).
fn components(item: &str) -> (Vec<String>, u32) {
    let mut named = Vec::new();
    let mut unnamed: u32 = 0;
    for part in item.split(',') {
        let part = part.trim();
        let (name, more) = match part.rsplit_once(" +") {
            Some((name, n)) if n.parse::<u32>().is_ok() => (name, n.parse().unwrap_or(0)),
            _ => match part.strip_prefix('+').and_then(|n| n.parse::<u32>().ok()) {
                Some(n) => ("", n),
                None => (part, 0),
            },
        };
        if !name.trim().is_empty() {
            named.push(name.trim().to_string());
        }
        // `+4294967295` is a count no one means; it never wraps to a small one.
        unnamed = unnamed.saturating_add(more);
    }
    (named, unnamed)
}

/// The body runs from `start` to the last `---` line; what follows is the attribution.
fn split_attribution(text: &str, start: usize) -> (&str, Option<String>) {
    let body_offset: usize = text.split_inclusive('\n').take(start).map(str::len).sum();
    let body = &text[body_offset.min(text.len())..];
    let mut offset = 0;
    let mut cut = None;
    for line in body.split_inclusive('\n') {
        if line.trim_end() == "---" {
            cut = Some((offset, offset + line.len()));
        }
        offset += line.len();
    }
    match cut {
        Some((end, after)) => {
            let attribution = body[after..].trim();
            (
                &body[..end],
                (!attribution.is_empty()).then(|| attribution.to_string()),
            )
        }
        None => (body, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const SEED: &str = include_str!("../../tests/fixtures/seed.md");

    #[test]
    fn a_huge_component_count_never_wraps() {
        assert_eq!(components("A +4294967295, B +2").1, u32::MAX);
    }

    #[test]
    fn the_seed_export_reads_every_fact() {
        let ctx = FileCtx::new(Path::new("seed.md"), SEED);
        let mut errors = Vec::new();
        let raw = parse_incident(&ctx, &mut errors).unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(raw.title.unwrap().value, "Lightstep Webapp Down");
        assert_eq!(raw.provider.unwrap().value, "lightstep");
        assert_eq!(
            raw.provider_name.as_deref(),
            Some("ServiceNow Cloud Observability")
        );
        assert_eq!(raw.impact.unwrap().value, "Major outage");
        assert_eq!(raw.duration.unwrap().value, "3h 24m");
        assert_eq!(raw.started.unwrap().value, "2022-01-20 17:58 UTC");
        assert_eq!(
            raw.components,
            [
                "US - Service Directory",
                "US - Dashboards",
                "US - Change Intelligence"
            ]
        );
        assert_eq!(raw.unnamed_components, 1);
        assert_eq!(raw.regions, ["us"]);
        let id = raw.id.unwrap();
        assert_eq!(id.value, "DWN-c972089f00");
        assert_eq!(id.pos, Pos::new(10, 7, 14));
        assert_eq!(
            raw.official_url.unwrap().value,
            "https://stspg.io/0ywk8cvcqg82"
        );
        assert_eq!(raw.body.updates.len(), 6);
        let postmortem = &raw.body.updates[5];
        assert_eq!(postmortem.status, Status::Postmortem);
        assert!(
            postmortem.body.starts_with("## **Summary**"),
            "{}",
            postmortem.body
        );
        assert!(postmortem.body.contains(r"\(9:49am - 10:37am\)"));
        assert!(
            raw.attribution
                .unwrap()
                .starts_with("down.guide reads providers")
        );
        assert_eq!(raw.body.summary, "");
    }

    #[test]
    fn component_counts() {
        assert_eq!(components("A, B +2"), (vec!["A".into(), "B".into()], 2));
        assert_eq!(components("A, +3"), (vec!["A".into()], 3));
    }
}
