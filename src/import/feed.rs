//! Atom and RSS feeds: a status page's `history.atom` or `history.rss` (Statuspage's shape,
//! which incident.io's pages serve too), or any feed a provider publishes.
//!
//! In Statuspage's shape an entry is an incident and its content the update trail, newest
//! first, each update a `<small>` date and time, then `<strong>Status</strong> - text`. The
//! year, which the trail leaves out, comes from the entry's own dates; the zone is the one
//! the trail names, else the one its newest time puts it in against the entry's own time.
//! Any other entry is one update of an incident: entries that link to the same page are
//! updates of one incident, the others an incident each. A title that starts with a state
//! in brackets (`[Resolved] …`) gives the update's status. A feed never says how bad an
//! incident was.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::path::Path;
use std::sync::LazyLock;

use chrono::{
    DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc,
};
use quick_xml::Reader;
use quick_xml::events::Event;
use scraper::{Html, Selector};

use super::{Imported, Parsed, identity};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Platform, Source, Status, Timestamp, Update, WebUrl};

/// One entry of an Atom feed or item of an RSS feed, as both say it.
pub(super) struct Item {
    /// The Atom `id` or RSS `guid` (else the link, else the title and date).
    pub id: String,
    pub link: Option<String>,
    pub title: String,
    /// When it was first published, in the zone the feed wrote it in.
    pub published: DateTime<FixedOffset>,
    /// When it was last updated.
    pub updated: DateTime<FixedOffset>,
    /// The content (or summary, or description), HTML.
    pub html: String,
}

/// What a feed holds: its items, its title, and the address of the site it is the feed of.
pub(super) struct Read {
    pub items: Vec<Item>,
    title: Option<String>,
    home: Option<String>,
}

/// The name of the page a feed's title tells of: Statuspage titles its feed
/// `GitHub Status - Incident History`, which names `GitHub`.
fn page_name(title: &str) -> Option<String> {
    let title = super::text::one_line(title);
    let mut name = title.as_str();
    for suffix in [" - incident history", " status"] {
        let cut = name.len().checked_sub(suffix.len());
        if let Some(at) = cut.filter(|at| name.is_char_boundary(*at))
            && name[at..].eq_ignore_ascii_case(suffix)
        {
            name = name[..at].trim_end();
        }
    }
    (!name.is_empty()).then(|| name.to_string())
}

/// The elements of a Statuspage trail, parsed once.
static PARAGRAPH: LazyLock<Selector> = LazyLock::new(|| selector("p"));
static SMALL: LazyLock<Selector> = LazyLock::new(|| selector("small"));
static STRONG: LazyLock<Selector> = LazyLock::new(|| selector("strong"));

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("a valid selector")
}

/// The most a time zone is away from UTC.
const MAX_OFFSET: i32 = 14 * 3600;

/// Reads a feed of `platform`: a Statuspage's or incident.io's entries are their
/// incidents (by the code in their link), any other's are found again by their links or ids.
pub fn parse(path: &Path, text: &str, platform: Platform) -> Result<Parsed, Diagnostic> {
    let Read { items, title, home } = read(path, text)?;
    let page_url = home.as_deref().and_then(WebUrl::parse);
    let home = home.as_deref();
    // An entry's own page; many feeds link every entry to the site.
    let page = |item: &Item| {
        item.link
            .clone()
            .filter(|link| Some(link.trim_end_matches('/')) != home)
    };
    let mut groups: Vec<(Option<String>, Vec<Item>)> = Vec::new();
    let mut by_page: BTreeMap<String, usize> = BTreeMap::new();
    for item in items {
        match page(&item).map(|page| (by_page.entry(page.clone()), page)) {
            Some((Entry::Occupied(at), _)) => groups[*at.get()].1.push(item),
            Some((Entry::Vacant(slot), page)) => {
                slot.insert(groups.len());
                groups.push((Some(page), vec![item]));
            }
            None => groups.push((None, vec![item])),
        }
    }
    // A Statuspage's feed is read strictly: a trail it cannot read is an error. Any other
    // feed's entry (incident.io's own shape included) that is not a readable trail is one
    // update.
    let strict = platform == Platform::Statuspage;
    let mut told = Vec::with_capacity(groups.len());
    for (page, mut items) in groups {
        items.sort_by_key(|e| (e.published, e.updated));
        let trails = items
            .iter()
            .map(|item| statuspage_trail(path, item, strict))
            .collect::<Result<Vec<_>, Diagnostic>>()?;
        told.push((page, items, trails));
    }
    // Whether the feed is in Statuspage's shape is the feed's, not each entry's: an entry
    // keeps its identity whatever its content says next time.
    let shaped = told
        .iter()
        .any(|(_, _, trails)| trails.iter().any(Option::is_some));
    let incidents = told
        .into_iter()
        .map(|(page, items, trails)| incident(page, items, trails, platform, shaped))
        .collect();
    Ok(Parsed {
        page: title.as_deref().and_then(page_name),
        page_url,
        incidents,
    })
}

/// The incident a group of entries (one, or several linking to one page) tells of.
fn incident(
    page: Option<String>,
    items: Vec<Item>,
    trails: Vec<Option<Vec<Update>>>,
    platform: Platform,
    shaped: bool,
) -> Imported {
    let mut updates = Vec::new();
    for (item, trail) in items.iter().zip(trails) {
        match trail {
            Some(told) => updates.extend(told),
            None => updates.push(one_update(item)),
        }
    }
    let newest = items.last().expect("a group holds an entry");
    let (source, legacy) = source(newest, page.as_deref(), platform, shaped);
    let maintenance = updates.iter().any(|u| {
        matches!(
            u.status,
            Status::Scheduled | Status::InProgress | Status::Completed
        )
    });
    let first = items.iter().map(|e| e.published).min();
    let started = updates
        .iter()
        .map(|u| u.at)
        .min()
        .or(first.map(|t| t.with_timezone(&Utc)))
        .unwrap_or_else(|| newest.published.with_timezone(&Utc));
    let resolved = updates
        .iter()
        .filter(|u| matches!(u.status, Status::Resolved | Status::Completed))
        .map(|u| u.at)
        .max();
    Imported {
        source,
        legacy,
        title: strip_state(&newest.title).1.to_string(),
        started,
        resolved,
        impact: maintenance.then_some(Impact::Maintenance),
        components: Vec::new(),
        regions: Vec::new(),
        official_url: newest.link.clone(),
        extra: None,
        updates,
        approximate: true,
        continues: None,
    }
    .tidy()
}

/// Who an entry's incident is. A Statuspage's or incident.io's incident page,
/// `…/incidents/<code>`, names it as its JSON API does, and so does an entry of any feed in
/// Statuspage's shape (incident.io's codes are 26-character ULIDs, Statuspage's shorter).
/// Any other is the feed's, by its own page, else its id.
fn source(
    item: &Item,
    page: Option<&str>,
    platform: Platform,
    shaped: bool,
) -> (Source, Option<Source>) {
    let tag = item.id.rsplit('/').next().unwrap_or(&item.id).to_string();
    // An RSS item's guid is often the same page.
    let code = item
        .link
        .as_deref()
        .and_then(incident_code)
        .or_else(|| incident_code(&item.id));
    let kind = match (platform, code) {
        (Platform::Statuspage | Platform::IncidentIo, _) => Some(platform),
        (_, Some(code)) if shaped && code.len() == 26 => Some(Platform::IncidentIo),
        _ if shaped => Some(Platform::Statuspage),
        _ => None,
    };
    match (kind, code) {
        (Some(Platform::Statuspage), Some(code)) => (
            identity(Platform::Statuspage.keyword(), code),
            Some(identity("statuspage-atom", &tag)),
        ),
        (Some(kind), Some(code)) => (identity(kind.keyword(), code), None),
        (Some(Platform::Statuspage), None) => (identity("statuspage-atom", &tag), None),
        _ => (
            identity(Platform::Feed.keyword(), page.unwrap_or(&item.id)),
            None,
        ),
    }
}

/// An entry that is not a trail, as one update: at its publication, the status its title
/// gives in brackets (else `update`), its content as the text (its title when it has none).
fn one_update(item: &Item) -> Update {
    let (state, title) = strip_state(&item.title);
    let body = match item.html.trim() {
        "" => title.to_string(),
        html => html.to_string(),
    };
    Update {
        // Not its `updated`: an entry edited in place is still the one update.
        at: item.published.with_timezone(&Utc),
        status: state.map_or(Status::Update, Status::parse),
        body,
    }
}

/// `[Resolved] Title` → (`Some("Resolved")`, `Title`).
fn strip_state(title: &str) -> (Option<&str>, &str) {
    let trimmed = title.trim();
    let Some(rest) = trimmed.strip_prefix('[') else {
        return (None, trimmed);
    };
    match rest.split_once(']') {
        Some((state, title)) if !state.trim().is_empty() && state.len() <= 40 => {
            (Some(state.trim()), title.trim())
        }
        _ => (None, trimmed),
    }
}

/// The updates of an entry in Statuspage's shape, `None` when the entry is not one. A time
/// that cannot be read is an error when `strict`, else the entry is taken as no trail.
fn statuspage_trail(
    path: &Path,
    item: &Item,
    strict: bool,
) -> Result<Option<Vec<Update>>, Diagnostic> {
    let html = Html::parse_fragment(&item.html);
    let stamped: Vec<_> = html
        .select(&PARAGRAPH)
        .filter_map(|p| Some((p, p.select(&SMALL).next()?.text().collect::<String>())))
        .collect();
    let Some((_, newest)) = stamped.first() else {
        return Ok(None);
    };
    let zone = trail_zone(newest, item);
    let mut updates = Vec::with_capacity(stamped.len());
    for (paragraph, when) in &stamped {
        let Some(at) = read_time(when, item, zone) else {
            if !strict {
                return Ok(None);
            }
            return Err(Diagnostic::file(
                path,
                format!(
                    "cannot read the update time `{}` in entry `{}`",
                    when.trim(),
                    item.id
                ),
            )
            .with_hint("expected Statuspage's `Aug 17, 20:45 UTC`"));
        };
        let status = paragraph
            .select(&STRONG)
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
    Ok(Some(updates))
}

/// The Statuspage incident code in an incident page's address.
fn incident_code(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("/incidents/")?;
    let code = rest.split(['/', '?', '#']).next()?;
    (!code.is_empty() && code.chars().all(|c| c.is_ascii_alphanumeric())).then_some(code)
}

/// The offset of a zone a status page writes its times in, in seconds east of UTC: only the
/// abbreviations that name one zone (`CST` and `IST` name several, and are found from the
/// times instead).
fn zone_offset(abbreviation: &str) -> Option<i32> {
    let hours = match abbreviation {
        "UTC" | "GMT" | "UT" | "Z" => 0,
        "CET" | "WEST" => 1,
        "CEST" | "EET" => 2,
        "EEST" => 3,
        "JST" | "KST" => 9,
        "AEST" => 10,
        "AEDT" => 11,
        "NZST" => 12,
        "NZDT" => 13,
        "EST" | "CDT" => -5,
        "EDT" => -4,
        "MDT" => -6,
        "MST" | "PDT" => -7,
        "PST" | "AKDT" => -8,
        "AKST" => -9,
        "HST" => -10,
        _ => return None,
    };
    Some(hours * 3600)
}

/// One time of a trail, in words: `Aug 17, 20:45 UTC`, `Aug 17, 2025 - 20:45 PDT`.
struct Written {
    month: u32,
    day: u32,
    year: Option<i32>,
    clock: NaiveTime,
    /// The zone's abbreviation, when it names one.
    zone: Option<String>,
}

fn written(text: &str) -> Option<Written> {
    let cleaned: String = text
        .replace(['\n', '\t'], " ")
        .replace(" - ", " ")
        .replace(',', " ");
    let mut words: Vec<&str> = cleaned.split_whitespace().collect();
    let zone = words
        .last()
        .filter(|w| w.len() <= 6 && w.chars().all(|c| c.is_ascii_uppercase()))
        .map(|w| w.to_string());
    if zone.is_some() {
        words.pop();
    }
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
        [year, clock] => (Some(year.parse::<i32>().ok()?), *clock),
        [clock] => (None, *clock),
        _ => return None,
    };
    Some(Written {
        month,
        day,
        year,
        clock: NaiveTime::parse_from_str(clock, "%H:%M").ok()?,
        zone,
    })
}

impl Written {
    /// The local time in `year` (its own year when it gives one).
    fn in_year(&self, year: i32) -> Option<NaiveDateTime> {
        let date = NaiveDate::from_ymd_opt(self.year.unwrap_or(year), self.month, self.day)?;
        Some(date.and_time(self.clock))
    }
}

/// The zone an entry's trail is written in, when its newest time names none this reader
/// knows: the offset that puts the newest time at the entry's own update time (the moment
/// of its newest update), to the quarter hour; else the zone the entry's dates are in.
fn trail_zone(newest: &str, item: &Item) -> FixedOffset {
    let own = *item.updated.offset();
    let Some(newest) = written(newest) else {
        return own;
    };
    if let Some(offset) = newest.zone.as_deref().and_then(zone_offset) {
        return FixedOffset::east_opt(offset).unwrap_or(own);
    }
    let updated = item.updated.naive_utc();
    let quarter = 15 * 60;
    let derived = [-1, 0, 1]
        .into_iter()
        .filter_map(|shift| newest.in_year(updated.year().checked_add(shift)?))
        .map(|local| (local - updated).num_seconds())
        .filter(|seconds| seconds.abs() <= i64::from(MAX_OFFSET) + 60)
        .find_map(|seconds| {
            let rounded = (seconds + quarter / 2).div_euclid(quarter) * quarter;
            // Minutes against seconds: the trail's time is at most a minute early.
            ((seconds - rounded).abs() <= 120)
                .then(|| FixedOffset::east_opt(i32::try_from(rounded).ok()?))
                .flatten()
        });
    derived.unwrap_or(own)
}

/// A time of the trail, in `zone` (the one it names, if this reader knows it), in the year
/// that puts it at or before the entry's last update.
fn read_time(text: &str, item: &Item, zone: FixedOffset) -> Option<Timestamp> {
    let written = written(text)?;
    let zone = match written.zone.as_deref().and_then(zone_offset) {
        Some(offset) => FixedOffset::east_opt(offset)?,
        None => zone,
    };
    let at = |year: i32| {
        zone.from_local_datetime(&written.in_year(year)?)
            .single()
            .map(|t| t.with_timezone(&Utc))
    };
    let latest = item.updated.with_timezone(&Utc);
    let reference = item.published.with_timezone(&Utc);
    let day_after = latest.checked_add_signed(TimeDelta::days(1))?;
    if written.year.is_some() {
        return at(latest.year());
    }
    let same = at(latest.year())?;
    // A trail that crossed new year: December updates of a January entry.
    let at = match same > day_after {
        true => at(latest.year().checked_sub(1)?)?,
        false => same,
    };
    (at <= day_after || reference.year() != latest.year()).then_some(at)
}

/// Reads a feed's items, Atom or RSS.
pub(super) fn read(path: &Path, text: &str) -> Result<Read, Diagnostic> {
    match root_element(path, text)?.as_str() {
        "feed" => read_atom(path, text),
        "rss" | "rdf:RDF" => read_rss(path, text),
        other => Err(
            Diagnostic::file(path, format!("`<{other}>` is not a feed")).with_hint(
                "expected an Atom feed (`<feed>`) or an RSS feed (`<rss>`), like a status page's /history.atom",
            ),
        ),
    }
}

fn read_atom(path: &Path, text: &str) -> Result<Read, Diagnostic> {
    let feed: atom_syndication::Feed = text.parse().map_err(|e| {
        Diagnostic::file(path, format!("not an Atom feed: {e}"))
            .with_hint("expected a status page's /history.atom")
    })?;
    let home = feed
        .links()
        .iter()
        .find(|l| l.rel() == "alternate")
        .map(|l| l.href().trim_end_matches('/').to_string());
    let mut items = Vec::with_capacity(feed.entries().len());
    for entry in feed.entries() {
        let updated = *entry.updated();
        let link = entry
            .links()
            .iter()
            .find(|l| l.rel() == "alternate")
            .or(entry.links().first())
            .map(|l| l.href().to_string());
        let html = entry
            .content()
            .and_then(|c| c.value())
            .or(entry.summary().map(|s| s.as_str()))
            .unwrap_or_default();
        let item = Item {
            id: entry.id().to_string(),
            link,
            title: entry.title().as_str().to_string(),
            published: entry.published().copied().unwrap_or(updated),
            updated,
            html: html.to_string(),
        };
        items.push(within_years(path, item)?);
    }
    let title = Some(feed.title().as_str().to_string());
    Ok(Read { items, title, home })
}

fn read_rss(path: &Path, text: &str) -> Result<Read, Diagnostic> {
    let channel = rss::Channel::read_from(text.as_bytes()).map_err(|e| {
        Diagnostic::file(path, format!("not an RSS feed: {e}"))
            .with_hint("expected a status page's /history.rss")
    })?;
    let home = Some(channel.link().trim_end_matches('/').to_string()).filter(|h| !h.is_empty());
    // An item may leave its date out (RSS 2.0 allows it): it has the channel's.
    let channel_date = channel
        .pub_date()
        .or(channel.last_build_date())
        .and_then(rss_date);
    let mut items = Vec::with_capacity(channel.items().len());
    for item in channel.items() {
        let title = item.title().unwrap_or_default().to_string();
        let dublin_core = item.dublin_core_ext().and_then(|dc| dc.dates().first());
        let date = item.pub_date().or(dublin_core.map(String::as_str));
        let Some(published) = date.and_then(rss_date).or(channel_date) else {
            return Err(Diagnostic::file(
                path,
                format!(
                    "cannot read the date `{}` of the item `{title}`",
                    date.unwrap_or_default()
                ),
            )
            .with_hint("expected an RFC 822 date, like `Mon, 17 Aug 2026 21:01:19 -0700`"));
        };
        let link = item.link().map(str::trim).filter(|l| !l.is_empty());
        let guid = item
            .guid()
            .map(|g| g.value().trim())
            .filter(|g| !g.is_empty());
        let id = guid
            .or(link)
            .map(str::to_string)
            .unwrap_or_else(|| format!("{title} {}", published.to_rfc3339()));
        let html = item.content().or(item.description()).unwrap_or_default();
        let item = Item {
            id,
            link: link.map(str::to_string),
            title,
            published,
            updated: published,
            html: html.to_string(),
        };
        items.push(within_years(path, item)?);
    }
    let title = Some(channel.title().to_string());
    Ok(Read { items, title, home })
}

/// An RSS date: RFC 822 (`pubDate`), or RFC 3339 (Dublin Core's `dc:date`).
fn rss_date(text: &str) -> Option<DateTime<FixedOffset>> {
    let text = text.trim();
    DateTime::parse_from_rfc2822(text)
        .or_else(|_| DateTime::parse_from_rfc3339(text))
        .ok()
}

/// The item, if its dates are in the years 0001-9999 that a content file can hold.
fn within_years(path: &Path, item: Item) -> Result<Item, Diagnostic> {
    let year = |t: &DateTime<FixedOffset>| t.with_timezone(&Utc).year();
    if [&item.published, &item.updated]
        .iter()
        .all(|t| (1..=9999).contains(&year(t)))
    {
        return Ok(item);
    }
    Err(Diagnostic::file(
        path,
        format!(
            "the item `{}` is dated {}, outside the years 0001-9999",
            item.title,
            item.updated.to_rfc3339()
        ),
    ))
}

/// Reads the XML through once, so that malformed input is reported with its position;
/// the name of its root element.
fn root_element(path: &Path, text: &str) -> Result<String, Diagnostic> {
    let mut reader = Reader::from_str(text);
    let mut root = None;
    loop {
        match reader.read_event() {
            Ok(Event::Eof) => {
                return root.ok_or_else(|| {
                    Diagnostic::file(path, "this XML holds no element")
                        .with_hint("expected an Atom or RSS feed")
                });
            }
            Ok(Event::Start(start) | Event::Empty(start)) if root.is_none() => {
                root = Some(start.name().as_ref().to_string());
            }
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

    fn item(published: &str, updated: &str) -> Item {
        Item {
            id: "x".into(),
            link: None,
            title: String::new(),
            published: DateTime::parse_from_rfc3339(published).unwrap(),
            updated: DateTime::parse_from_rfc3339(updated).unwrap(),
            html: String::new(),
        }
    }

    fn utc() -> FixedOffset {
        FixedOffset::east_opt(0).unwrap()
    }

    #[test]
    fn update_times_get_their_year_from_the_entry() {
        let e = item("2026-01-02T10:00:00Z", "2026-01-02T10:00:00Z");
        let read = |text| read_time(text, &e, utc()).map(|t| t.to_rfc3339());
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
        // A date at the end of time is no time, not a panic.
        let last = DateTime::<Utc>::MAX_UTC.fixed_offset();
        let far = Item {
            published: last,
            updated: last,
            ..item("2026-01-02T10:00:00Z", "2026-01-02T10:00:00Z")
        };
        assert_eq!(read_time("Dec 31, 23:00 UTC", &far, utc()), None);
        assert!(within_years(Path::new("f"), far).is_err());
    }

    #[test]
    fn update_times_are_read_in_the_zone_they_name_or_the_one_their_times_say() {
        // Parse's RSS: its dates in the page's zone, its trail in PST.
        let e = item("2014-01-01T09:09:00-08:00", "2014-01-01T09:09:00-08:00");
        let zone = trail_zone("Jan  1, 09:09 PST", &e);
        let read = |text| read_time(text, &e, zone).map(|t| t.to_rfc3339());
        assert_eq!(
            read("Jan  1, 08:17 PST").unwrap(),
            "2014-01-01T16:17:00+00:00"
        );
        assert_eq!(
            read("Dec 31, 23:00 CET").unwrap(),
            "2013-12-31T22:00:00+00:00"
        );
        // An Atom feed dated in UTC whose trail is in China's CST (+8): its newest time
        // against the entry's says which CST.
        let e = item("2026-03-05T06:02:30Z", "2026-03-05T06:02:30Z");
        let zone = trail_zone("Mar  5, 14:02 CST", &e);
        assert_eq!(zone, FixedOffset::east_opt(8 * 3600).unwrap());
        let at = read_time("Mar  5, 13:40 CST", &e, zone).unwrap();
        assert_eq!(at.to_rfc3339(), "2026-03-05T05:40:00+00:00");
        // And in the US's CST (-6).
        let zone = trail_zone("Mar  5, 00:02 CST", &e);
        assert_eq!(zone, FixedOffset::west_opt(6 * 3600).unwrap());
    }

    #[test]
    fn a_state_in_brackets_is_the_update_s_status() {
        assert_eq!(
            strip_state("[Resolved] DB down"),
            (Some("Resolved"), "DB down")
        );
        assert_eq!(strip_state("DB [eu] down"), (None, "DB [eu] down"));
        assert_eq!(strip_state("[] x"), (None, "[] x"));
    }

    #[test]
    fn entries_that_link_to_the_site_are_each_their_own_incident() {
        let feed = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>S</title>
            <link>https://status.example.com/</link><description>d</description>
            <item><title>[Investigating] Slow API</title><link>https://status.example.com/</link>
              <guid>a-1</guid><pubDate>Mon, 17 Aug 2026 10:00:00 +0000</pubDate><description>Slow.</description></item>
            <item><title>Maintenance</title><link>https://status.example.com/</link>
              <guid>b-1</guid><pubDate>Tue, 18 Aug 2026 10:00:00 +0000</pubDate></item>
            <item><title>[Resolved] Slow API</title><link>https://status.example.com/r/9</link>
              <guid>a-2</guid><pubDate>Mon, 17 Aug 2026 11:00:00 +0000</pubDate><description>Fine.</description></item>
            <item><title>[Investigating] Slow API</title><link>https://status.example.com/r/9</link>
              <guid>a-3</guid><pubDate>Mon, 17 Aug 2026 10:30:00 +0000</pubDate><description>Looking.</description></item>
            </channel></rss>"#;
        let parsed = parse(Path::new("f.rss"), feed, Platform::Feed).unwrap();
        let ids: Vec<&str> = parsed
            .incidents
            .iter()
            .map(|i| i.source.id.as_str())
            .collect();
        assert_eq!(ids, ["a-1", "b-1", "https://status.example.com/r/9"]);
        let grouped = &parsed.incidents[2];
        assert_eq!(grouped.updates.len(), 2);
        assert_eq!(grouped.updates[0].status, Status::Investigating);
        assert_eq!(grouped.updates[1].status, Status::Resolved);
        assert_eq!(grouped.title, "Slow API");
        assert!(grouped.resolved.is_some());
        assert_eq!(parsed.incidents[1].updates[0].body, "Maintenance");
    }
}
