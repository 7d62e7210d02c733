//! Statuspage's old timelines: before 2019 an incident's whole timeline was one update
//! whose body is an HTML list, `<ul><li><strong>TIME</strong> - text</li>…</ul>`. Split into
//! one update per entry, each at its own time and status, such an incident reads like the
//! others. A body that is not exactly such a list is left as it is.

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

use crate::model::{Status, Timestamp, Update};

/// The entries one list may hold: a timeline, not a document.
const MAX_ENTRIES: usize = 1000;

/// The updates `body`'s list tells of, in its order: `None` unless every entry reads.
/// `near` is a time of the incident: an entry's time without a year takes the year that puts
/// it nearest the entry before (so a timeline may cross New Year). When `resolved`, the last
/// entry is the resolution.
pub fn split(body: &str, near: Timestamp, resolved: bool) -> Option<Vec<Update>> {
    let inner = body.trim().strip_prefix("<ul>")?.strip_suffix("</ul>")?;
    let mut updates: Vec<Update> = Vec::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let item = rest.strip_prefix("<li>")?;
        let end = item.find("</li>")?;
        let reference = updates.last().map_or(near, |u| u.at);
        updates.push(entry(&item[..end], reference)?);
        if updates.len() > MAX_ENTRIES {
            return None;
        }
        rest = item[end + "</li>".len()..].trim_start();
    }
    if resolved && let Some(last) = updates.last_mut() {
        last.status = Status::Resolved;
    }
    (!updates.is_empty()).then_some(updates)
}

/// One `<strong>TIME</strong> - text`.
fn entry(item: &str, reference: Timestamp) -> Option<Update> {
    let item = item.trim().strip_prefix("<strong>")?;
    let (when, text) = item.split_once("</strong>")?;
    let text = text.trim_start().strip_prefix('-')?.trim();
    Some(Update {
        at: moment(when.trim(), reference)?,
        status: status_of(text),
        body: text.to_string(),
    })
}

/// The status a text names when its first word is a known status (`Investigating - …`),
/// else `update`.
fn status_of(text: &str) -> Status {
    let word: String = text
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    match Status::parse(&word) {
        Status::Other(_) => Status::Update,
        known => known,
    }
}

/// `2016-01-28 00:32:02` (UTC, as the page's zone is), or `Mar 5, 14:02 UTC` in the year
/// that puts it nearest `reference`.
fn moment(text: &str, reference: Timestamp) -> Option<Timestamp> {
    if let Ok(full) = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S") {
        return Some(Utc.from_utc_datetime(&full));
    }
    let text = text.strip_suffix("UTC")?.trim_end();
    let (day, clock) = text.split_once(',')?;
    let time = NaiveTime::parse_from_str(clock.trim(), "%H:%M").ok()?;
    let year = reference.year();
    [year.checked_sub(1)?, year, year.checked_add(1)?]
        .into_iter()
        .filter_map(|y| NaiveDate::parse_from_str(&format!("{} {y}", day.trim()), "%b %e %Y").ok())
        .map(|date| Utc.from_utc_datetime(&date.and_time(time)))
        .min_by_key(|at| (*at - reference).num_seconds().unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn a_list_becomes_one_update_per_entry_across_new_year() {
        let body = "<ul><li><strong>Dec 31, 23:50 UTC</strong> - Investigating - Pushes fail.</li>\
                    <li><strong>Jan 1, 00:10 UTC</strong> - We fixed it.</li></ul>";
        let updates = split(body, at("2017-12-31T23:50:00Z"), true).unwrap();
        assert_eq!(updates.len(), 2);
        assert_eq!(updates[0].at, at("2017-12-31T23:50:00Z"));
        assert_eq!(updates[0].status, Status::Investigating);
        assert_eq!(updates[0].body, "Investigating - Pushes fail.");
        assert_eq!(updates[1].at, at("2018-01-01T00:10:00Z"));
        assert_eq!(updates[1].status, Status::Resolved);
        let open = split(body, at("2017-12-31T23:50:00Z"), false).unwrap();
        assert_eq!(open[1].status, Status::Update);
    }

    #[test]
    fn full_times_are_read_and_anything_else_is_left_whole() {
        let body = "<ul><li><strong>2016-01-28 00:32:02</strong> - Down.</li></ul>";
        let updates = split(body, at("2019-05-01T00:00:00Z"), false).unwrap();
        assert_eq!(updates[0].at, at("2016-01-28T00:32:02Z"));
        let near = at("2016-01-28T00:00:00Z");
        for body in [
            "Plain text.",
            "<ul></ul>",
            "<ul><li>no time</li></ul>",
            "<ul><li><strong>Feb 30, 10:00 UTC</strong> - x</li></ul>",
            "<ul><li><strong>Mar 5, 14:02 PST</strong> - x</li></ul>",
            "<ul><li><strong>Mar 5, 14:02 UTC</strong> - x</li>",
            "<ul><li><strong>Mar 5, 14:02 UTC</strong> - x</li> tail</ul>",
        ] {
            assert_eq!(split(body, near, true), None, "{body}");
        }
    }
}
