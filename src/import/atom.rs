//! A status page's `history.atom` (Statuspage's shape): one entry per incident, its update
//! trail inside `content type="html"`, newest first, each update a `<small>` date and time
//! then `<strong>Status</strong> - text`. The year, which the trail leaves out, comes from
//! the entry's own dates.

use std::path::Path;

use chrono::{Datelike, NaiveDate, NaiveTime, TimeZone, Utc};
use quick_xml::Reader;
use scraper::{Html, Selector};

use super::{Imported, identity};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Status, Timestamp, Update};

pub fn parse(path: &Path, text: &str) -> Result<Vec<Imported>, Diagnostic> {
    check_xml(path, text)?;
    let feed: atom_syndication::Feed = text.parse().map_err(|e| {
        Diagnostic::file(path, format!("not an Atom feed: {e}"))
            .with_hint("expected a status page's /history.atom")
    })?;
    let paragraphs = Selector::parse("p").expect("a valid selector");
    let small = Selector::parse("small").expect("a valid selector");
    let strong = Selector::parse("strong").expect("a valid selector");
    let mut incidents = Vec::new();
    for entry in feed.entries() {
        let reference: Timestamp = entry
            .published()
            .copied()
            .unwrap_or(*entry.updated())
            .with_timezone(&Utc);
        let latest: Timestamp = entry.updated().with_timezone(&Utc);
        let html =
            Html::parse_fragment(entry.content().and_then(|c| c.value()).unwrap_or_default());
        let mut updates = Vec::new();
        for paragraph in html.select(&paragraphs) {
            let Some(when) = paragraph.select(&small).next() else {
                continue;
            };
            let when: String = when.text().collect::<String>();
            let Some(at) = read_time(&when, reference, latest) else {
                return Err(Diagnostic::file(
                    path,
                    format!(
                        "cannot read the update time `{}` in entry `{}`",
                        when.trim(),
                        entry.id()
                    ),
                )
                .with_hint("expected Statuspage's `Aug 17, 20:45 UTC`"));
            };
            let status = paragraph
                .select(&strong)
                .next()
                .map(|s| s.text().collect::<String>())
                .unwrap_or_default();
            let inner = paragraph.inner_html();
            let body = inner.split_once("</strong>").map_or("", |(_, rest)| rest);
            let body = body.trim_start().strip_prefix('-').unwrap_or(body).trim();
            updates.push(Update {
                at,
                status: Status::parse(&status),
                body: body.to_string(),
            });
        }
        let tag = entry
            .id()
            .rsplit('/')
            .next()
            .unwrap_or(entry.id())
            .to_string();
        let link = entry.links().first().map(|l| l.href().to_string());
        // The incident's page, `…/incidents/<code>`, names it as the JSON API does.
        let code = link.as_deref().and_then(incident_code);
        let (source, legacy) = match code {
            Some(code) => (
                identity("statuspage", code),
                Some(identity("statuspage-atom", &tag)),
            ),
            None => (identity("statuspage-atom", &tag), None),
        };
        let maintenance = updates.iter().any(|u| {
            matches!(
                u.status,
                Status::Scheduled | Status::InProgress | Status::Completed
            )
        });
        let started = updates.iter().map(|u| u.at).min().unwrap_or(reference);
        let resolved = updates
            .iter()
            .filter(|u| matches!(u.status, Status::Resolved | Status::Completed))
            .map(|u| u.at)
            .max();
        incidents.push(
            Imported {
                source,
                legacy,
                title: entry.title().as_str().to_string(),
                started,
                resolved,
                // The feed does not say how bad it was.
                impact: maintenance.then_some(Impact::Maintenance),
                components: Vec::new(),
                official_url: link,
                extra: None,
                updates,
                approximate: true,
            }
            .tidy(),
        );
    }
    Ok(incidents)
}

/// The Statuspage incident code in an incident page's address.
fn incident_code(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("/incidents/")?;
    let code = rest.split(['/', '?', '#']).next()?;
    (!code.is_empty() && code.chars().all(|c| c.is_ascii_alphanumeric())).then_some(code)
}

/// `Aug 17, 20:45 UTC` (or `Aug 17, 2025 - 20:45 UTC`), in the year that puts it at or
/// before the entry's last update.
fn read_time(text: &str, reference: Timestamp, latest: Timestamp) -> Option<Timestamp> {
    let cleaned: String = text
        .replace(['\n', '\t'], " ")
        .replace(" - ", " ")
        .replace(',', " ");
    let words: Vec<&str> = cleaned.split_whitespace().filter(|w| *w != "UTC").collect();
    let (month, day, rest) = match words.as_slice() {
        [month, day, rest @ ..] => (*month, day.parse::<u32>().ok()?, rest),
        _ => return None,
    };
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| month.starts_with(m))? as u32
        + 1;
    let (year, clock) = match rest {
        [year, clock] => (year.parse::<i32>().ok(), *clock),
        [clock] => (None, *clock),
        _ => return None,
    };
    let clock = NaiveTime::parse_from_str(clock, "%H:%M").ok()?;
    let at = |year: i32| {
        NaiveDate::from_ymd_opt(year, month, day).map(|d| Utc.from_utc_datetime(&d.and_time(clock)))
    };
    match year {
        Some(year) => at(year),
        None => {
            let same = at(latest.year())?;
            // A trail that crossed new year: December updates of a January entry.
            Some(if same > latest + chrono::Duration::days(1) {
                at(latest.year() - 1)?
            } else {
                same
            })
            .filter(|t| {
                *t <= latest + chrono::Duration::days(1) || reference.year() != latest.year()
            })
        }
    }
}

/// Reads the XML through once, so that malformed input is reported with its position.
fn check_xml(path: &Path, text: &str) -> Result<(), Diagnostic> {
    let mut reader = Reader::from_str(text);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => return Ok(()),
            Ok(_) => {}
            Err(e) => {
                let offset = (reader.error_position() as usize).min(text.len());
                let before = &text[..text.floor_char_boundary(offset)];
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                return Err(Diagnostic::at(
                    path,
                    text,
                    line,
                    col,
                    1,
                    format!("invalid XML: {e}"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_times_get_their_year_from_the_entry() {
        let latest: Timestamp = "2026-01-02T10:00:00Z".parse().unwrap();
        let read = |text| read_time(text, latest, latest).map(|t| t.to_rfc3339());
        assert_eq!(
            read("Jan  2, 09:30 UTC").unwrap(),
            "2026-01-02T09:30:00+00:00"
        );
        assert_eq!(
            read("Dec 31, 23:10 UTC").unwrap(),
            "2025-12-31T23:10:00+00:00"
        );
        assert_eq!(
            read("Aug 17, 2025 - 20:45 UTC").unwrap(),
            "2025-08-17T20:45:00+00:00"
        );
        assert_eq!(read("yesterday"), None);
    }
}
