//! What the insight pages show, made from the archive: month series, calendars, a day's
//! timeline, the busiest days and the incidents that overlapped one. Each is plain data for
//! the templates plus, for a chart, its SVG from [`charts`]; the numbers themselves come
//! from [`crate::numbers`], defined once.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};
use serde::Serialize;

use crate::archive::{Archive, Component, Day, IncidentIx, Provider, Stats};
use crate::config::BaseUrl;
use crate::diagnostics::count;
use crate::model::{Duration, Impact, Incident};
use crate::numbers;
use crate::render::charts::{self, DayCell, MonthCount, MonthDowntime, Shade, TimelineBar};
use crate::render::views::{self, IMPACT_ORDER, SummaryView, Views};
use crate::render::words;
use crate::routes;

/// The most months a provider's page charts.
pub const CHART_MONTHS: usize = 36;

/// How many incidents a calendar cell's tooltip names before "and N more".
const TITLE_NAMES: usize = 4;

/// One month of a chart, as its table beside the chart lists it.
#[derive(Serialize)]
pub struct MonthRow {
    pub label: String,
    /// Counts in [`IMPACT_ORDER`].
    pub counts: Vec<usize>,
    pub incidents: usize,
    pub downtime: String,
    pub uptime: Option<String>,
}

/// The two month charts of a page and the table of their numbers.
#[derive(Serialize)]
pub struct MonthCharts {
    pub incidents_svg: String,
    pub downtime_svg: String,
    pub rows: Vec<MonthRow>,
    /// The impacts, in the table's column order.
    pub impacts: Vec<&'static str>,
}

/// The months of `stats` (at most the last [`CHART_MONTHS`], or those of one `year`) as
/// charts with ids starting `id`.
pub fn month_charts(stats: &Stats, year: Option<i32>, id: &str, subject: &str) -> MonthCharts {
    let months: Vec<&((i32, u32), numbers::Period)> = match year {
        Some(year) => stats.months.iter().filter(|(m, _)| m.0 == year).collect(),
        None => {
            let skip = stats.months.len().saturating_sub(CHART_MONTHS);
            stats.months[skip..].iter().collect()
        }
    };
    let label = words::month_label;
    let short = |m: u32| words::month_name(m)[..3].to_string();
    let (counts, downtime): (Vec<MonthCount>, Vec<MonthDowntime>) = months
        .iter()
        .map(|&&(month, ref period)| {
            let (label, short, year) = (label(month), short(month.1), month.0);
            let downtime = MonthDowntime {
                label: label.clone(),
                short: short.clone(),
                year,
                seconds: period.downtime.seconds(),
                text: words::length(period.downtime),
            };
            let counts = Impact::ALL.map(|impact| period.tally(impact).count as u32);
            (
                MonthCount {
                    label,
                    short,
                    year,
                    counts,
                },
                downtime,
            )
        })
        .unzip();
    MonthCharts {
        incidents_svg: charts::incidents_per_month(
            &format!("{id}-incidents"),
            &format!("Incidents per month, {subject}"),
            &counts,
        ),
        downtime_svg: charts::downtime_per_month(
            &format!("{id}-downtime"),
            &format!("Downtime of any part per month, {subject}"),
            &downtime,
        ),
        rows: months
            .iter()
            .rev()
            .map(|&&(month, ref period)| MonthRow {
                label: label(month),
                counts: IMPACT_ORDER
                    .iter()
                    .map(|&impact| period.tally(impact).count)
                    .collect(),
                incidents: period.incidents,
                downtime: words::length(period.downtime),
                uptime: period.uptime.map(words::uptime_text),
            })
            .collect(),
        impacts: IMPACT_ORDER.iter().map(|i| i.label()).collect(),
    }
}

/// The legend of a calendar coloured by impact.
const IMPACT_LEGEND: [(Shade, &str); 5] = [
    (Shade::Impact(Impact::Critical), "Major outage"),
    (Shade::Impact(Impact::Major), "Partial outage"),
    (Shade::Impact(Impact::Minor), "Degraded performance"),
    (Shade::Impact(Impact::None), "No impact"),
    (Shade::Impact(Impact::Maintenance), "Maintenance"),
];

/// One calendar of a page.
#[derive(Serialize)]
pub struct Calendar {
    pub year: i32,
    pub svg: String,
    /// How many days of the year had something.
    pub days: usize,
}

impl Calendar {
    /// The calendar of `year` with these cells, as chart `{id}-{year}`.
    fn new(
        id: &str,
        title: &str,
        year: i32,
        cells: &[DayCell],
        legend: &[(Shade, &str)],
    ) -> Calendar {
        Calendar {
            year,
            days: cells.len(),
            svg: charts::calendar(&format!("{id}-{year}"), title, year, cells, legend),
        }
    }
}

/// Calendars of `years` for the incidents `list` (a provider's or a component's): each
/// day coloured by the worst impact active then, linking that day's page.
pub fn impact_calendars(
    archive: &Archive,
    base: &BaseUrl,
    list: &[IncidentIx],
    years: &[i32],
    id: &str,
    subject: &str,
) -> Vec<Calendar> {
    let (Some(&first_year), Some(&last_year)) = (years.iter().min(), years.iter().max()) else {
        return Vec::new();
    };
    let (from, to) = (
        *year_range(first_year).start(),
        *year_range(last_year).end(),
    );
    let days = impact_days(archive, list, (from, to), |d| years.contains(&d.year()));
    years
        .iter()
        .map(|&year| {
            let cells: Vec<DayCell> = days
                .range(year_range(year))
                .map(|(&date, incidents)| impact_cell(base, date, incidents, true))
                .collect();
            Calendar::new(
                id,
                &format!("{subject}: incidents by day in {year}"),
                year,
                &cells,
                &IMPACT_LEGEND,
            )
        })
        .collect()
}

/// The incidents of `list` (newest first) active on each day from `from` to `to` that
/// `wanted` keeps, by day.
fn impact_days<'a>(
    archive: &'a Archive,
    list: &[IncidentIx],
    (from, to): (NaiveDate, NaiveDate),
    wanted: impl Fn(NaiveDate) -> bool,
) -> BTreeMap<NaiveDate, Vec<&'a Incident>> {
    let mut days: BTreeMap<NaiveDate, Vec<&Incident>> = BTreeMap::new();
    // Newest first: only those that started by `to`, and at most the most days an
    // incident touches before `from`, can touch a day between.
    let earliest = from
        .checked_sub_days(chrono::Days::new(numbers::MAX_DAYS))
        .unwrap_or(NaiveDate::MIN);
    let started = |&index: &IncidentIx| archive.incidents[index].started.date_naive();
    let newer = list.partition_point(|i| started(i) > to);
    let older = list.partition_point(|i| started(i) >= earliest);
    for &index in &list[newer..older.max(newer)] {
        let incident = &archive.incidents[index];
        let (first, last) = numbers::days(incident);
        let last = last.min(to);
        for date in first.max(from).iter_days().take_while(|d| *d <= last) {
            if wanted(date) {
                days.entry(date).or_default().push(incident);
            }
        }
    }
    days
}

/// A day of some incidents, coloured by the worst of them, linking the day's page; its
/// tooltip names them, or with `named` false says only how bad and how many.
fn impact_cell(base: &BaseUrl, date: NaiveDate, incidents: &[&Incident], named: bool) -> DayCell {
    let worst = incidents
        .iter()
        .map(|i| i.impact)
        .max_by_key(|&i| numbers::severity(i))
        .unwrap_or(Impact::None);
    let title = match named {
        true => day_title(date, incidents.iter().map(|i| (i.impact, &*i.title))),
        false => format!(
            "{date}: {}, {}",
            charts::words(worst),
            count(incidents.len(), "incident")
        ),
    };
    DayCell {
        date,
        shade: Shade::Impact(worst),
        href: base.path(&routes::day_dir(date)),
        title,
    }
}

/// The bars of the last [`numbers::RECENT_DAYS`] of the archive, a row each for a
/// provider or a component.
#[derive(Serialize)]
pub struct Recent {
    pub from: String,
    pub to: String,
    pub rows: Vec<RecentRow>,
    /// Components with no incident in those days, whose rows would say nothing.
    pub quiet: Vec<views::ComponentLink>,
}

#[derive(Serialize)]
pub struct RecentRow {
    pub name: String,
    /// Its page, for a component's row on its provider's page.
    pub path: Option<String>,
    /// Over those days, as the statistics count it; `None` with no records then.
    pub uptime: Option<String>,
    /// How much of those days the records cover, when not all of them.
    pub covered: Option<String>,
    pub svg: String,
}

/// One row of [`Recent`] over `window`: the incidents `list` of `stats`, named
/// `subject`, as chart `id`; and how many of its days had an incident.
fn recent_row(
    archive: &Archive,
    base: &BaseUrl,
    window: (NaiveDate, NaiveDate),
    (list, stats): (&[IncidentIx], &Stats),
    (id, subject): (&str, &str),
) -> (RecentRow, usize) {
    let days = impact_days(archive, list, window, |_| true);
    // A strip has a row per component: its days say how bad and how many, and the
    // day's page which incidents.
    let cells: Vec<DayCell> = days
        .iter()
        .map(|(&date, incidents)| impact_cell(base, date, incidents, false))
        .collect();
    let covered = stats
        .coverage
        .map(|(from, to)| (from.date_naive(), to.date_naive()));
    let title = format!(
        "{subject}: incidents by day, the last {} days",
        numbers::RECENT_DAYS
    );
    let period = views::PeriodView::new(String::new(), &stats.last_90_days, None);
    let row = RecentRow {
        name: subject.to_owned(),
        path: None,
        uptime: period.uptime,
        covered: period.covered_part,
        svg: charts::day_strip(id, &title, window, covered, &cells),
    };
    (row, cells.len())
}

impl Recent {
    fn new(
        window: (NaiveDate, NaiveDate),
        rows: Vec<RecentRow>,
        quiet: Vec<views::ComponentLink>,
    ) -> Recent {
        Recent {
            from: routes::iso_date(window.0),
            to: routes::iso_date(window.1),
            rows,
            quiet,
        }
    }
}

/// A component page's row.
pub fn recent_component(
    archive: &Archive,
    base: &BaseUrl,
    component: &Component,
) -> Option<Recent> {
    let window = numbers::recent_days(archive.through?);
    let part = (&component.incidents[..], &component.stats);
    let (row, _) = recent_row(archive, base, window, part, ("recent", &component.name));
    Some(Recent::new(window, vec![row], Vec::new()))
}

/// The rows of a provider's page: the provider, then each component that had an incident
/// in those days (the others listed apart).
pub fn recent(archive: &Archive, base: &BaseUrl, provider: &Provider) -> Option<Recent> {
    let window = numbers::recent_days(archive.through?);
    let whole = (&provider.incidents[..], &provider.stats);
    let (head, _) = recent_row(archive, base, window, whole, ("recent", &provider.name));
    let mut rows = vec![head];
    let mut quiet = Vec::new();
    let covers = provider.stats.last_90_days.uptime.is_some();
    for (n, component) in provider.components.iter().enumerate() {
        let path = base.path(&routes::component_dir(
            provider.slug.as_str(),
            component.slug.as_str(),
        ));
        let part = (&component.incidents[..], &component.stats);
        let id = format!("recent-{n}");
        match recent_row(archive, base, window, part, (&id, &component.name)) {
            (row, days) if days > 0 => rows.push(RecentRow {
                path: Some(path),
                ..row
            }),
            // With no records then, a component says no more than its provider.
            _ if covers => quiet.push(views::ComponentLink {
                name: component.name.clone(),
                path,
            }),
            _ => {}
        }
    }
    Some(Recent::new(window, rows, quiet))
}

fn year_range(year: i32) -> std::ops::RangeInclusive<NaiveDate> {
    let first = NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or(NaiveDate::MIN);
    let last = NaiveDate::from_ymd_opt(year, 12, 31).unwrap_or(NaiveDate::MAX);
    first..=last
}

/// `2024-03-05: Major outage — API errors; …` with at most [`TITLE_NAMES`] names.
fn day_title<'a>(
    date: NaiveDate,
    incidents: impl ExactSizeIterator<Item = (Impact, &'a str)>,
) -> String {
    let total = incidents.len();
    let mut title = format!("{date}: ");
    for (n, (impact, name)) in incidents.take(TITLE_NAMES).enumerate() {
        if n > 0 {
            title.push_str("; ");
        }
        title.push_str(impact.label());
        title.push_str(" — ");
        title.push_str(name);
    }
    if total > TITLE_NAMES {
        title.push_str(&format!("; and {} more", total - TITLE_NAMES));
    }
    title
}

/// The site's calendar of `year`: each day coloured by how many providers had an incident
/// (maintenance aside).
pub fn site_calendar(
    archive: &Archive,
    views: &Views,
    base: &BaseUrl,
    year: i32,
    id: &str,
) -> Calendar {
    let range = year_range(year);
    let cells: Vec<DayCell> = archive
        .days_between(*range.start(), *range.end())
        .iter()
        .filter(|day| day.providers > 0)
        .map(|day| DayCell {
            date: day.date,
            shade: Shade::Level(day.providers.min(4) as u8),
            href: base.path(&routes::day_dir(day.date)),
            title: format!(
                "{}: {} provider{} affected — {}",
                day.date,
                day.providers,
                if day.providers == 1 { "" } else { "s" },
                provider_names(day, archive, views, TITLE_NAMES)
            ),
        })
        .collect();
    Calendar::new(
        id,
        &format!("Providers with incidents by day in {year}"),
        year,
        &cells,
        &[
            (Shade::Level(1), "1 provider"),
            (Shade::Level(2), "2"),
            (Shade::Level(3), "3"),
            (Shade::Level(4), "4 or more"),
        ],
    )
}

/// The names of the providers with an incident (not maintenance) on a day, the worst hit
/// first, at most `n`: a reader looks for who was down, not for the alphabet.
fn provider_names(day: &Day, archive: &Archive, views: &Views, n: usize) -> String {
    let mut hits = day_hits(day, archive, views);
    hits.sort_by(|a, b| {
        (b.worst, b.downtime, b.incidents)
            .cmp(&(a.worst, a.downtime, a.incidents))
            .then_with(|| words::by_name(a.name, b.name))
    });
    let names: Vec<&str> = hits.iter().map(|hit| hit.name).collect();
    let more = names.len().saturating_sub(n);
    let mut text = names[..names.len().min(n)].join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// How hard a day hit one provider.
struct Hit<'a> {
    name: &'a str,
    /// The worst impact of its incidents that day, as [`numbers::severity`].
    worst: u8,
    /// Its downtime within the day, overlapping incidents counted once.
    downtime: crate::model::Duration,
    incidents: usize,
}

/// Each provider with an incident other than maintenance on `day`, and how hard it was hit.
fn day_hits<'a>(day: &Day, archive: &Archive, views: &'a Views) -> Vec<Hit<'a>> {
    let mut by_provider: BTreeMap<&str, (&'a str, Vec<&Incident>)> = BTreeMap::new();
    for &i in &day.incidents {
        let incident = &*archive.incidents[i];
        if incident.impact == Impact::Maintenance {
            continue;
        }
        let (_, list) = by_provider
            .entry(incident.provider.as_str())
            .or_insert_with(|| (views.incidents.provider_name(i), Vec::new()));
        list.push(incident);
    }
    let from = numbers::midnight(day.date);
    let to = from + chrono::TimeDelta::days(1);
    by_provider
        .into_values()
        .map(|(name, incidents)| Hit {
            name,
            worst: (incidents.iter())
                .map(|i| numbers::severity(i.impact))
                .max()
                .unwrap_or_default(),
            downtime: numbers::downtime_in(&numbers::merge(incidents.iter().copied()), from, to),
            incidents: incidents.len(),
        })
        .collect()
}

/// A day of many providers' incidents, for "busiest days".
#[derive(Serialize)]
pub struct BusyDay {
    pub date: String,
    pub path: String,
    pub providers: usize,
    pub incidents: usize,
    /// The providers, the worst hit first.
    pub names: String,
}

/// The `n` days with the most providers affected (maintenance aside), most first; among
/// equals, the most incidents, then the newest.
pub fn busiest_days(archive: &Archive, views: &Views, base: &BaseUrl, n: usize) -> Vec<BusyDay> {
    let mut days: Vec<&Day> = archive.days.iter().filter(|d| d.providers > 1).collect();
    days.sort_unstable_by_key(|d| std::cmp::Reverse((d.providers, d.incidents.len(), d.date)));
    days.truncate(n);
    days.into_iter()
        .map(|day| BusyDay {
            date: day.date.to_string(),
            path: base.path(&routes::day_dir(day.date)),
            providers: day.providers,
            incidents: day.incidents.len(),
            names: provider_names(day, archive, views, 6),
        })
        .collect()
}

/// An incident of a day, with when it was active that day.
#[derive(Serialize)]
pub struct DayEntry<'a> {
    pub item: &'a SummaryView,
    /// `17:58–21:22 UTC`, `from the day before – 04:10 UTC`.
    pub when: String,
}

/// A day's incidents, by start time, and their 24-hour timeline.
pub fn day<'a>(archive: &Archive, views: &'a Views, day: &Day) -> (Vec<DayEntry<'a>>, String) {
    let midnight = numbers::midnight(day.date);
    let minute = |t: crate::model::Timestamp| -> u32 {
        ((t - midnight).num_minutes()).clamp(0, 1440) as u32
    };
    let clock = |t: crate::model::Timestamp| {
        use chrono::Timelike;
        format!("{:02}:{:02}", t.hour(), t.minute())
    };
    let mut entries = Vec::with_capacity(day.incidents.len());
    let mut bars = Vec::with_capacity(day.incidents.len());
    for &index in &day.incidents {
        let incident = &archive.incidents[index];
        let summary = &views.incidents[index].summary;
        let end = numbers::end(incident);
        let from_before = incident.started < midnight;
        let goes_on = minute(end) >= 1440 && end > midnight + chrono::TimeDelta::days(1);
        let start_text = if from_before {
            "from the day before".to_string()
        } else {
            clock(incident.started)
        };
        let end_text = match (goes_on, incident.is_ongoing()) {
            (true, _) => "into the next day".to_string(),
            (false, true) => format!("{} UTC, ongoing", clock(end)),
            (false, false) => format!("{} UTC", clock(end)),
        };
        let when = format!("{start_text} – {end_text}");
        bars.push(TimelineBar {
            label: format!("{} — {}", summary.provider.name, summary.title),
            href: summary.path.clone(),
            impact: incident.impact,
            start_minute: minute(incident.started),
            end_minute: minute(end),
            from_before,
            goes_on,
            when: when.clone(),
        });
        entries.push(DayEntry {
            item: summary,
            when,
        });
    }
    let svg = charts::day_timeline(
        "day",
        &format!("Incidents on {}, hour by hour (UTC)", day.date),
        &bars,
    );
    (entries, svg)
}

/// Another provider's incident that overlapped one.
#[derive(Serialize)]
pub struct Overlap<'a> {
    pub item: Brief<'a>,
    /// How long the two overlapped: `1h 10m`.
    pub overlap: String,
}

/// An incident named on another's page (a neighbour, an overlap): the few facts a link to
/// it shows, so a page that names ten does not carry ten whole summaries.
#[derive(Serialize)]
pub struct Brief<'a> {
    pub title: &'a str,
    pub path: &'a str,
    pub provider: &'a views::ProviderRef,
    pub impact: &'a views::ImpactView,
    pub started: Started<'a>,
}

/// When a [`Brief`] started: the date and the instant.
#[derive(Serialize)]
pub struct Started<'a> {
    pub iso: &'a str,
    pub date: &'a str,
}

impl<'a> Brief<'a> {
    pub fn of(summary: &'a SummaryView) -> Brief<'a> {
        Brief {
            title: &summary.title,
            path: &summary.path,
            provider: &summary.provider,
            impact: &summary.impact,
            started: Started {
                iso: &summary.started.iso,
                date: &summary.started.date,
            },
        }
    }
}

/// How many overlapping incidents an incident page names: the day page lists them all. At
/// ten, this list was a third of an incident page's bytes on a real archive.
pub const SAME_TIME: usize = 5;

/// Other providers' incidents that overlapped `index`, at most [`SAME_TIME`], and how
/// many there were in all. Those that began closest to this one's start come first (a
/// likely common cause), then those that cover more of it: a weeks-long incident that
/// began a day before overlaps longest but explains least. Only the days the incident
/// touched are looked at.
pub fn same_time<'a>(
    archive: &Archive,
    views: &'a Views,
    index: IncidentIx,
) -> (Vec<Overlap<'a>>, usize) {
    let incident = &archive.incidents[index];
    let (first, last) = numbers::days(incident);
    let (start, end) = (incident.started, numbers::end(incident));
    let mut candidates: Vec<IncidentIx> = archive
        .days_between(first, last)
        .iter()
        .flat_map(|day| day.incidents.iter().copied())
        .filter(|&other| archive.incidents[other].provider != incident.provider)
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut overlaps: Vec<(i64, i64, IncidentIx)> = candidates
        .into_iter()
        .filter_map(|other| {
            let o = &archive.incidents[other];
            let (o_start, o_end) = (o.started, numbers::end(o));
            let shared = (end.min(o_end) - start.max(o_start)).num_seconds();
            // Overlapping time, or an instant inside the other's span.
            let instant = (start == end || o_start == o_end) && shared == 0;
            let apart = (o_start - start).num_seconds().saturating_abs();
            (shared > 0 || instant).then_some((apart, shared, other))
        })
        .collect();
    let total = overlaps.len();
    // Closest start first; then the larger share of this incident, which for one
    // incident is the longer overlap; then archive order.
    overlaps.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    overlaps.truncate(SAME_TIME);
    let list = overlaps
        .into_iter()
        .map(|(_, seconds, other)| Overlap {
            item: Brief::of(&views.incidents[other].summary),
            overlap: words::length(crate::model::Duration::from_seconds(seconds)),
        })
        .collect();
    (list, total)
}

/// A share of a provider's outages, as its page writes it.
#[derive(Serialize)]
pub struct Share {
    pub count: usize,
    /// "7 %", "under 1 %" for some but fewer than half a percent.
    pub percent: String,
}

impl Share {
    fn of(count: usize, total: usize) -> Share {
        let percent = match (count * 100 + total / 2).checked_div(total) {
            Some(0) if count > 0 => "under 1\u{a0}%".to_string(),
            Some(p) => format!("{p}\u{a0}%"),
            None => "—".to_string(),
        };
        Share { count, percent }
    }
}

/// One distribution of how a provider told: its median and its bins as a chart.
#[derive(Serialize)]
pub struct Told {
    /// How many outages it counts.
    pub count: usize,
    pub median: Option<String>,
    pub svg: String,
}

/// What a provider's page shows of how it told of its outages.
#[derive(Serialize)]
pub struct Telling {
    pub outages: usize,
    pub first_update: Told,
    /// Outages whose record starts at their first update.
    pub start_is_first_update: usize,
    pub update_gap: Told,
    pub after_the_fact: Share,
    pub postmortems: Share,
}

/// `5–15 min`, `1–3 h`, `1 day +`: the bins of [`numbers::BIN_EDGES`] as their labels,
/// each in the unit of its lower edge (of its upper one for the first).
pub fn bin_labels() -> Vec<String> {
    let scale = |d: Duration| match d.seconds() {
        s if s < 3_600 => (60, "min"),
        s if s < 86_400 => (3_600, "h"),
        _ => (86_400, "day"),
    };
    let edges = numbers::BIN_EDGES;
    (edges
        .iter()
        .zip(edges.iter().skip(1).map(Some).chain([None])))
    .map(|(&from, to)| match to {
        None => {
            let (unit, name) = scale(from);
            format!("{} {name} +", from.seconds() / unit)
        }
        Some(&to) => {
            let (unit, name) = scale(if from.seconds() == 0 { to } else { from });
            format!("{}–{} {name}", from.seconds() / unit, to.seconds() / unit)
        }
    })
    .collect()
}

/// How `provider` told of its outages, charts with ids starting `id`; `None` with no
/// outage.
pub fn telling(provider: &Provider, id: &str) -> Option<Telling> {
    let told = &provider.communication;
    if told.outages == 0 {
        return None;
    }
    let labels = bin_labels();
    let chart = |d: &numbers::Distribution, suffix: &str, title: &str| Told {
        count: d.count(),
        median: d.median.map(words::length),
        svg: charts::histogram(
            &format!("{id}-{suffix}"),
            title,
            "outages",
            &(labels.iter().zip(d.bins))
                .map(|(label, count)| charts::Bin {
                    label: label.clone(),
                    count,
                })
                .collect::<Vec<_>>(),
        ),
    };
    Some(Telling {
        outages: told.outages,
        first_update: chart(
            &told.first_update,
            "first",
            &format!(
                "{}: time from an outage's start to its first update",
                provider.name
            ),
        ),
        start_is_first_update: told.start_is_first_update,
        update_gap: chart(
            &told.update_gap,
            "gap",
            &format!(
                "{}: each outage's median time between updates",
                provider.name
            ),
        ),
        after_the_fact: Share::of(told.after_the_fact, told.outages),
        postmortems: Share::of(told.postmortems, told.outages),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn bins_read_in_the_unit_of_their_edges() {
        assert_eq!(
            super::bin_labels(),
            [
                "0–5 min",
                "5–15 min",
                "15–30 min",
                "30–60 min",
                "1–3 h",
                "3–12 h",
                "12–24 h",
                "1 day +"
            ]
        );
    }
}
