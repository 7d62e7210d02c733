//! The numbers of an archive, defined once: how much an incident counts as
//! downtime, how overlapping incidents merge, uptime and time to resolve over a period,
//! and which UTC days an incident touches. Pure arithmetic on the model, with no notion
//! of pages.

use chrono::{Datelike, NaiveDate, TimeZone, Utc};

use crate::model::{Duration, Impact, Incident, Timestamp};

mod communication;

pub use communication::{BIN_EDGES, Communication, Distribution};

/// How much of an incident's time counts as downtime, in thousandths: a major outage
/// (`critical`) all of it, a partial outage (`major`) 30 %, the rule Atlassian Statuspage
/// and Instatus use; degraded performance, no impact and maintenance none.
pub fn weight(impact: Impact) -> i64 {
    match impact {
        Impact::Critical => 1000,
        Impact::Major => 300,
        Impact::Minor | Impact::None | Impact::Maintenance => 0,
    }
}

/// How bad an impact is to look at, for "the worst impact of a day": maintenance, planned,
/// below everything else.
pub fn severity(impact: Impact) -> u8 {
    match impact {
        Impact::Maintenance => 0,
        Impact::None => 1,
        Impact::Minor => 2,
        Impact::Major => 3,
        Impact::Critical => 4,
    }
}

/// Where an incident ends for counting: when it was resolved, or, while it is ongoing, its
/// latest update (never the clock, so the same input gives the same numbers).
pub fn end(incident: &Incident) -> Timestamp {
    incident.resolved.unwrap_or_else(|| incident.updated())
}

/// The downtime of one incident on its own: its duration weighted by its impact.
pub fn downtime(incident: &Incident) -> Duration {
    weighted(
        Duration::between(incident.started, end(incident)).seconds(),
        weight(incident.impact),
    )
}

fn weighted(seconds: i64, weight: i64) -> Duration {
    // At most ten thousand years of seconds times 1000: far inside an i64.
    Duration::from_seconds(seconds.saturating_mul(weight) / 1000)
}

/// The most days an incident is shown on: ten years, as [`Duration::LONGEST`]. A longer
/// one (`resolved` may be centuries on) still counts in full in the numbers, but lists
/// itself on no more days, so the work per file stays bounded.
pub const MAX_DAYS: u64 = 3650;

/// The UTC days an incident touches, first and last included (at most [`MAX_DAYS`]). One
/// that ends at midnight sharp does not touch the day that begins then.
pub fn days(incident: &Incident) -> (NaiveDate, NaiveDate) {
    let first = incident.started.date_naive();
    let end = end(incident);
    let last = if end > incident.started && end.time() == chrono::NaiveTime::MIN {
        end.date_naive().pred_opt().unwrap_or(first)
    } else {
        end.date_naive()
    };
    let cap = first
        .checked_add_days(chrono::Days::new(MAX_DAYS - 1))
        .unwrap_or(first);
    (first, last.clamp(first, cap))
}

/// A stretch of time with one weight: the result of merging overlapping incidents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub start: Timestamp,
    pub end: Timestamp,
    /// The share of the time that counts as down, in millionths: for a whole, 1,000,000
    /// or 300,000 as [`weight`] says; for the parts of a provider, their mean.
    pub weight: i64,
}

/// A weight of [`weight`] (thousandths) as a [`Segment`]'s (millionths).
const PER_THOUSANDTH: i64 = 1000;

/// How many incidents of each weight are active at an instant.
#[derive(Debug, Clone, Copy, Default)]
struct Active {
    critical: i32,
    major: i32,
}

impl Active {
    fn add(&mut self, impact: Impact, by: i32) {
        match impact {
            Impact::Critical => self.critical += by,
            Impact::Major => self.major += by,
            _ => {}
        }
    }

    /// The worst impact active, as [`weight`] weighs it.
    fn weight(self) -> i64 {
        if self.critical > 0 {
            weight(Impact::Critical)
        } else if self.major > 0 {
            weight(Impact::Major)
        } else {
            0
        }
    }
}

/// Whether an incident can count as downtime at all: an outage that lasted.
fn counts(incident: &Incident) -> bool {
    weight(incident.impact) > 0 && end(incident) > incident.started
}

/// Turns weights that change at instants, in time order, into stretches of one weight.
#[derive(Default)]
struct Stretches(Vec<Segment>);

impl Stretches {
    /// From `at` on, `weight` (millionths) counts.
    fn set(&mut self, at: Timestamp, weight: i64) {
        // Close the open stretch if the weight changes here.
        if let Some(last) = self.0.last_mut()
            && last.end == Timestamp::MAX_UTC
        {
            if last.weight == weight {
                return;
            }
            last.end = at;
        }
        if weight > 0 {
            self.0.push(Segment {
                start: at,
                end: Timestamp::MAX_UTC,
                weight,
            });
        }
    }
}

/// The downtime of a set of incidents as stretches that do not overlap, in time order:
/// at every instant the worst impact active then wins, so nothing counts twice.
pub fn merge<'a>(incidents: impl IntoIterator<Item = &'a Incident>) -> Vec<Segment> {
    let mut events: Vec<(Timestamp, i32, Impact)> = Vec::new();
    for incident in incidents.into_iter().filter(|i| counts(i)) {
        events.push((incident.started, 1, incident.impact));
        events.push((end(incident), -1, incident.impact));
    }
    events.sort_unstable_by_key(|e| e.0);
    let mut active = Active::default();
    let mut stretches = Stretches::default();
    for run in events.chunk_by(|a, b| a.0 == b.0) {
        for &(_, by, impact) in run {
            active.add(impact, by);
        }
        stretches.set(run[0].0, active.weight() * PER_THOUSANDTH);
    }
    stretches.0
}

/// The downtime of a provider's `parts` (its components) as stretches that do not
/// overlap: at every instant, the mean over the parts of the worst impact active on each.
/// Each incident comes with the parts it names (positions below `parts`); one that names
/// none affects them all. With no parts, the whole is one part. Linear in the incidents
/// and the parts they name (after a sort), whatever the number of parts.
pub fn merge_parts<'a>(
    incidents: impl IntoIterator<Item = (&'a Incident, &'a [usize])>,
    parts: usize,
) -> Vec<Segment> {
    // Events: (time, change, impact, the part or `None` for every part).
    let mut events: Vec<(Timestamp, i32, Impact, Option<usize>)> = Vec::new();
    for (incident, named) in incidents.into_iter().filter(|(i, _)| counts(i)) {
        let at = [(incident.started, 1), (end(incident), -1)];
        if named.is_empty() || parts == 0 {
            events.extend(at.map(|(t, by)| (t, by, incident.impact, None)));
        } else {
            for &part in named.iter().filter(|&&p| p < parts) {
                events.extend(at.map(|(t, by)| (t, by, incident.impact, Some(part))));
            }
        }
    }
    events.sort_unstable_by_key(|e| e.0);
    let mut own = vec![Active::default(); parts];
    let mut all = Active::default();
    // How many parts are at each of their own weights: critical, major.
    let (mut at_critical, mut at_major) = (0i64, 0i64);
    let level = |a: Active| {
        (
            i64::from(a.critical > 0),
            i64::from(a.critical <= 0 && a.major > 0),
        )
    };
    let whole = i64::try_from(parts.max(1)).unwrap_or(i64::MAX);
    let mut stretches = Stretches::default();
    for run in events.chunk_by(|a, b| a.0 == b.0) {
        for &(_, by, impact, part) in run {
            match part.and_then(|p| own.get_mut(p)) {
                Some(active) => {
                    let (c, m) = level(*active);
                    active.add(impact, by);
                    let (c2, m2) = level(*active);
                    at_critical += c2 - c;
                    at_major += m2 - m;
                }
                None => all.add(impact, by),
            }
        }
        // Each part counts its own worst impact or, if worse, the one on every part.
        let shared = all.weight();
        let rest = whole - at_critical - at_major;
        let sum = at_critical * weight(Impact::Critical)
            + at_major * weight(Impact::Major).max(shared)
            + rest.max(0) * shared;
        stretches.set(run[0].0, sum.saturating_mul(PER_THOUSANDTH) / whole);
    }
    stretches.0
}

/// The downtime of merged stretches within `[from, to)`, in whole seconds rounded down.
pub fn downtime_in(segments: &[Segment], from: Timestamp, to: Timestamp) -> Duration {
    Duration::from_seconds(millionths_in(segments, from, to) / MILLION)
}

/// The same, rounded up: a mean over many parts can come to less than a second, and any
/// downtime at all must keep an uptime below 100 %.
fn downtime_in_up(segments: &[Segment], from: Timestamp, to: Timestamp) -> Duration {
    let millionths = millionths_in(segments, from, to);
    Duration::from_seconds(millionths / MILLION + i64::from(millionths % MILLION > 0))
}

const MILLION: i64 = PER_THOUSANDTH * 1000;

/// Seconds down within `[from, to)`, in millionths.
fn millionths_in(segments: &[Segment], from: Timestamp, to: Timestamp) -> i64 {
    let first = segments.partition_point(|s| s.end <= from);
    let mut millionths: i64 = 0;
    for segment in segments[first..].iter().take_while(|s| s.start < to) {
        let seconds = (segment.end.min(to) - segment.start.max(from)).num_seconds();
        millionths = millionths.saturating_add(seconds.max(0).saturating_mul(segment.weight));
    }
    millionths
}

/// Uptime as hundredths of a percent (9995 is 99.95 %), rounded down so that any downtime
/// shows below 100 %; `None` for an empty period.
pub fn uptime(downtime: Duration, from: Timestamp, to: Timestamp) -> Option<u32> {
    let length = i128::from((to - from).num_seconds());
    if length <= 0 {
        return None;
    }
    let up = (length - i128::from(downtime.seconds()).min(length)).max(0);
    u32::try_from(up * 10_000 / length).ok()
}

/// The median of some durations (the lower middle one's midpoint with the upper for an
/// even count), `None` for none.
pub fn median(mut durations: Vec<Duration>) -> Option<Duration> {
    durations.sort_unstable();
    match durations.len() {
        0 => None,
        n if n % 2 == 1 => Some(durations[n / 2]),
        n => Some(durations[n / 2 - 1].midpoint(durations[n / 2])),
    }
}

/// How long an incident lasted, if the record says: not while it is ongoing, and not
/// when it was posted already resolved (resolved the instant it started), which says
/// nothing of how long it lasted.
pub fn recorded_duration(incident: &Incident) -> Option<Duration> {
    incident.duration().filter(|d| d.seconds() > 0)
}

/// Whether the provider posted an incident already resolved: its duration is unknown,
/// not zero.
pub fn after_the_fact(incident: &Incident) -> bool {
    incident.resolved == Some(incident.started)
}

/// The length of the union of some stretches of time: overlaps count once.
fn union_length(mut spans: Vec<(Timestamp, Timestamp)>) -> Duration {
    spans.sort_unstable();
    let mut total: i64 = 0;
    let mut open: Option<(Timestamp, Timestamp)> = None;
    for (start, end) in spans {
        match &mut open {
            Some((_, until)) if start <= *until => *until = (*until).max(end),
            _ => {
                if let Some((a, b)) = open.replace((start, end)) {
                    total = total.saturating_add((b - a).num_seconds());
                }
            }
        }
    }
    if let Some((a, b)) = open {
        total = total.saturating_add((b - a).num_seconds());
    }
    Duration::from_seconds(total)
}

/// The incidents of one impact in a period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: usize,
    /// The time they covered, overlaps counted once: resolved ones with a recorded
    /// duration only.
    pub duration: Duration,
}

/// What the numbers of a provider or a component are counted against.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'s> {
    /// The time the archive has records for: uptime counts only this time, and a period
    /// outside it has none.
    pub coverage: Option<(Timestamp, Timestamp)>,
    /// The merged downtime of any part ([`merge`]).
    pub any: &'s [Segment],
    /// The merged downtime of the parts, as a mean over them ([`merge_parts`]); for a
    /// component, the same as `any`.
    pub parts: &'s [Segment],
}

/// The numbers of one period: incidents count where they started, downtime where it fell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    pub from: Timestamp,
    pub to: Timestamp,
    /// How much of the period the archive has records for.
    pub covered: Duration,
    /// Every incident, maintenance included.
    pub incidents: usize,
    /// By impact, in the order of [`Impact::ALL`].
    pub by_impact: [Tally; 5],
    /// The downtime of any part: the time some part was down, weighted by impact.
    pub downtime: Duration,
    /// The uptime of the parts (the mean of its components'), over the covered time;
    /// `None` when none of the period is covered.
    pub uptime: Option<u32>,
    /// 1 − [`Period::downtime`] over the covered time: the share with no part down.
    pub any_uptime: Option<u32>,
    /// The median time to resolve of the outages (not maintenance) with a recorded
    /// duration.
    pub mttr: Option<Duration>,
    /// Outages posted already resolved: in the count, not in the median.
    pub after_the_fact: usize,
}

impl Period {
    /// The numbers of `[from, to)` for `started` (the incidents that started in it),
    /// counted against `scope`.
    pub fn of<'a>(
        from: Timestamp,
        to: Timestamp,
        started: impl IntoIterator<Item = &'a Incident>,
        scope: &Scope,
    ) -> Period {
        let mut by_impact = [Tally::default(); 5];
        let mut spans: [Vec<(Timestamp, Timestamp)>; 5] = Default::default();
        let mut incidents = 0;
        let mut resolved = Vec::new();
        let mut after = 0;
        for incident in started {
            incidents += 1;
            let at = impact_index(incident.impact);
            by_impact[at].count += 1;
            let outage = incident.impact != Impact::Maintenance;
            match (recorded_duration(incident), incident.resolved) {
                (Some(duration), Some(end)) => {
                    // The time it covered within the period: never more than the period.
                    spans[at].push((incident.started.max(from), end.min(to).max(from)));
                    if outage {
                        resolved.push(duration);
                    }
                }
                _ if outage && after_the_fact(incident) => after += 1,
                _ => {}
            }
        }
        for (tally, spans) in by_impact.iter_mut().zip(spans) {
            tally.duration = union_length(spans);
        }
        let (from_covered, to_covered) = match scope.coverage {
            Some((start, end)) => (from.max(start), to.min(end)),
            None => (from, from),
        };
        let covered = Duration::between(from_covered, to_covered.max(from_covered));
        let downtime = downtime_in(scope.any, from_covered, to_covered);
        let parts = downtime_in_up(scope.parts, from_covered, to_covered);
        Period {
            from,
            to,
            covered,
            incidents,
            by_impact,
            downtime,
            uptime: uptime(parts, from_covered, to_covered),
            any_uptime: uptime(downtime, from_covered, to_covered),
            mttr: median(resolved),
            after_the_fact: after,
        }
    }

    pub fn maintenance(&self) -> usize {
        self.by_impact[impact_index(Impact::Maintenance)].count
    }

    /// Incidents other than maintenance.
    pub fn outages(&self) -> usize {
        self.incidents - self.maintenance()
    }

    pub fn tally(&self, impact: Impact) -> Tally {
        self.by_impact[impact_index(impact)]
    }
}

/// The position of `impact` in [`Impact::ALL`].
pub fn impact_index(impact: Impact) -> usize {
    Impact::ALL
        .iter()
        .position(|&i| i == impact)
        .unwrap_or_default()
}

/// Midnight UTC at the start of a day.
pub fn midnight(date: NaiveDate) -> Timestamp {
    Utc.from_utc_datetime(&date.and_time(chrono::NaiveTime::MIN))
}

/// The first instant of a month (`month` 1–12) in UTC; `None` past chrono's calendar.
pub fn month_start(year: i32, month: u32) -> Option<Timestamp> {
    NaiveDate::from_ymd_opt(year, month, 1).map(midnight)
}

/// The month after `(year, month)`.
pub fn next_month(year: i32, month: u32) -> (i32, u32) {
    if month >= 12 {
        (year.saturating_add(1), 1)
    } else {
        (year, month + 1)
    }
}

/// How many UTC days the recent bars of a provider or a component show.
pub const RECENT_DAYS: u32 = 90;

/// The last [`RECENT_DAYS`] UTC days up to `end`'s, first and last included: the days the
/// bars show, and the period their uptime is of (from the first day's midnight to `end`).
pub fn recent_days(end: Timestamp) -> (NaiveDate, NaiveDate) {
    let last = end.date_naive();
    let first = last
        .checked_sub_days(chrono::Days::new(u64::from(RECENT_DAYS - 1)))
        .unwrap_or(last);
    (first, last)
}

/// `(year, month)` of an instant.
pub fn month_of(time: Timestamp) -> (i32, u32) {
    (time.year(), time.month())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn incident(start: &str, end: Option<&str>, impact: Impact) -> Incident {
        Incident {
            resolved: end.map(at),
            impact,
            ..Incident::bare("p", "x", at(start))
        }
    }

    const DAY_START: &str = "2024-03-05T00:00:00Z";
    const DAY_END: &str = "2024-03-06T00:00:00Z";

    fn day_downtime(incidents: &[Incident]) -> i64 {
        downtime_in(&merge(incidents), at(DAY_START), at(DAY_END)).seconds()
    }

    #[test]
    fn each_impact_weighs_as_the_rule_says() {
        let hour = |impact| {
            downtime(&incident(
                "2024-03-05T10:00:00Z",
                Some("2024-03-05T11:40:00Z"),
                impact,
            ))
            .seconds()
        };
        assert_eq!(hour(Impact::Critical), 6000);
        assert_eq!(hour(Impact::Major), 1800);
        for impact in [Impact::Minor, Impact::None, Impact::Maintenance] {
            assert_eq!(hour(impact), 0, "{impact:?}");
        }
    }

    #[test]
    fn overlapping_incidents_count_once_and_the_worst_wins() {
        // Two critical hours overlapping by 30 minutes: 90 minutes, not 120.
        let two = [
            incident(
                "2024-03-05T10:00:00Z",
                Some("2024-03-05T11:00:00Z"),
                Impact::Critical,
            ),
            incident(
                "2024-03-05T10:30:00Z",
                Some("2024-03-05T11:30:00Z"),
                Impact::Critical,
            ),
        ];
        assert_eq!(day_downtime(&two), 90 * 60);
        // A partial outage from 10:00 to 12:00 with a major one from 10:30 to 11:00: 30
        // minutes at 100 % and 90 at 30 %.
        let nested = [
            incident(
                "2024-03-05T10:00:00Z",
                Some("2024-03-05T12:00:00Z"),
                Impact::Major,
            ),
            incident(
                "2024-03-05T10:30:00Z",
                Some("2024-03-05T11:00:00Z"),
                Impact::Critical,
            ),
        ];
        assert_eq!(day_downtime(&nested), 30 * 60 + 90 * 60 * 3 / 10);
        // Back to back: one stretch, counted once.
        let merged = merge(&[
            incident(
                "2024-03-05T10:00:00Z",
                Some("2024-03-05T11:00:00Z"),
                Impact::Critical,
            ),
            incident(
                "2024-03-05T11:00:00Z",
                Some("2024-03-05T12:00:00Z"),
                Impact::Critical,
            ),
        ]);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].end, at("2024-03-05T12:00:00Z"));
    }

    #[test]
    fn maintenance_and_minor_never_count() {
        let planned = [
            incident(
                "2024-03-05T00:00:00Z",
                Some("2024-03-06T00:00:00Z"),
                Impact::Maintenance,
            ),
            incident(
                "2024-03-05T00:00:00Z",
                Some("2024-03-06T00:00:00Z"),
                Impact::Minor,
            ),
        ];
        assert_eq!(day_downtime(&planned), 0);
        assert_eq!(
            uptime(Duration::default(), at(DAY_START), at(DAY_END)),
            Some(10_000)
        );
    }

    #[test]
    fn an_ongoing_incident_counts_up_to_its_latest_update() {
        let mut ongoing = incident("2024-03-05T10:00:00Z", None, Impact::Critical);
        assert_eq!(day_downtime(std::slice::from_ref(&ongoing)), 0);
        ongoing.updates.push(crate::model::Update {
            at: at("2024-03-05T10:45:00Z"),
            status: crate::model::Status::Investigating,
            body: String::new(),
        });
        assert_eq!(day_downtime(&[ongoing]), 45 * 60);
    }

    #[test]
    fn periods_clip_at_utc_boundaries() {
        // 23:00 on 31 December to 01:00 on 1 January: one hour in each year.
        let segments = merge(&[incident(
            "2023-12-31T23:00:00Z",
            Some("2024-01-01T01:00:00Z"),
            Impact::Critical,
        )]);
        let year = |y: i32| {
            downtime_in(
                &segments,
                month_start(y, 1).unwrap(),
                month_start(y + 1, 1).unwrap(),
            )
        };
        assert_eq!(year(2023).seconds(), 3600);
        assert_eq!(year(2024).seconds(), 3600);
        // February of a leap year has 29 days: 1 hour down is 99.85 %, rounded down.
        let (feb, mar) = (month_start(2024, 2).unwrap(), month_start(2024, 3).unwrap());
        assert_eq!(uptime(Duration::from_seconds(3600), feb, mar), Some(9985));
        // Any downtime at all is below 100 %.
        assert_eq!(uptime(Duration::from_seconds(1), feb, mar), Some(9999));
        assert_eq!(uptime(Duration::default(), feb, feb), None);
        assert_eq!(next_month(2024, 12), (2025, 1));
    }

    #[test]
    fn days_end_before_a_midnight_end() {
        let to_midnight = incident(
            "2024-03-05T22:00:00Z",
            Some("2024-03-06T00:00:00Z"),
            Impact::Critical,
        );
        let day = NaiveDate::from_ymd_opt(2024, 3, 5).unwrap();
        assert_eq!(days(&to_midnight), (day, day));
        let across = incident(
            "2024-03-05T22:00:00Z",
            Some("2024-03-07T00:01:00Z"),
            Impact::Critical,
        );
        assert_eq!(
            days(&across).1,
            NaiveDate::from_ymd_opt(2024, 3, 7).unwrap()
        );
        let centuries = incident(
            "2024-03-05T22:00:00Z",
            Some("9999-01-01T00:01:00Z"),
            Impact::Critical,
        );
        assert_eq!((days(&centuries).1 - day).num_days() + 1, MAX_DAYS as i64);
        let instant = incident("2024-03-05T00:00:00Z", Some(DAY_START), Impact::None);
        assert_eq!(days(&instant), (day, day));
    }

    #[test]
    fn a_period_counts_by_start_and_medians_resolved_outages() {
        let list = [
            incident(
                "2024-03-05T10:00:00Z",
                Some("2024-03-05T11:00:00Z"),
                Impact::Critical,
            ),
            incident(
                "2024-03-05T12:00:00Z",
                Some("2024-03-05T15:00:00Z"),
                Impact::Minor,
            ),
            incident(
                "2024-03-05T01:00:00Z",
                Some("2024-03-05T09:00:00Z"),
                Impact::Maintenance,
            ),
            incident("2024-03-05T20:00:00Z", None, Impact::Major),
        ];
        let segments = merge(&list);
        let scope = Scope {
            coverage: Some((at(DAY_START), at(DAY_END))),
            any: &segments,
            parts: &segments,
        };
        let period = Period::of(at(DAY_START), at(DAY_END), &list, &scope);
        assert_eq!(period.incidents, 4);
        assert_eq!(period.outages(), 3);
        assert_eq!(period.maintenance(), 1);
        // 1 h and 3 h resolved outages: the median is 2 h; maintenance is not an outage.
        assert_eq!(period.mttr, Some(Duration::from_seconds(2 * 3600)));
        assert_eq!(period.downtime.seconds(), 3600);
        assert_eq!(period.uptime, Some(9583));
        assert_eq!(period.tally(Impact::Minor).duration.seconds(), 3 * 3600);
    }

    #[test]
    fn one_part_down_counts_as_its_share_of_the_parts() {
        let down = incident(DAY_START, Some(DAY_END), Impact::Critical);
        let everywhere = incident(
            "2024-03-05T00:00:00Z",
            Some("2024-03-05T01:00:00Z"),
            Impact::Major,
        );
        // One of twenty components down all day: a twentieth of the day.
        let named: &[usize] = &[3];
        let parts = merge_parts([(&down, named)], 20);
        assert_eq!(
            downtime_in(&parts, at(DAY_START), at(DAY_END)).seconds(),
            86_400 / 20
        );
        // Plus a partial outage naming no component: every part at 30 % for an hour,
        // but the part already down counts its worse impact only.
        let parts = merge_parts([(&down, named), (&everywhere, &[][..])], 20);
        assert_eq!(
            downtime_in(&parts, at(DAY_START), at(DAY_END)).seconds(),
            (86_400 + 19 * 3600 * 3 / 10) / 20
        );
        // With no parts, the whole is the one part.
        assert_eq!(merge_parts([(&down, &[][..])], 0), merge([&down]));
    }

    #[test]
    fn a_minute_of_one_part_of_thousands_is_still_downtime() {
        let short = incident(
            "2024-03-05T10:00:00Z",
            Some("2024-03-05T10:10:00Z"),
            Impact::Major,
        );
        let named: &[usize] = &[0];
        let parts = merge_parts([(&short, named)], 1000);
        let any = merge([&short]);
        let scope = Scope {
            coverage: Some((at(DAY_START), at(DAY_END))),
            any: &any,
            parts: &parts,
        };
        // 600 s at 30 % over 1,000 parts is 0.18 s: rounded up, not away.
        let period = Period::of(at(DAY_START), at(DAY_END), [&short], &scope);
        assert_eq!(period.uptime, Some(9999));
    }

    #[test]
    fn posted_resolved_has_no_duration_and_overlaps_sum_once() {
        let posted = incident(DAY_START, Some(DAY_START), Impact::Critical);
        assert!(after_the_fact(&posted));
        assert_eq!(recorded_duration(&posted), None);
        let list = [
            posted,
            incident(
                "2024-03-05T10:00:00Z",
                Some("2024-03-05T12:00:00Z"),
                Impact::Minor,
            ),
            incident(
                "2024-03-05T11:00:00Z",
                Some("2024-03-05T13:00:00Z"),
                Impact::Minor,
            ),
        ];
        let segments = merge(&list);
        // Records only from noon: the morning is not counted either way.
        let scope = Scope {
            coverage: Some((at("2024-03-05T12:00:00Z"), at(DAY_END))),
            any: &segments,
            parts: &segments,
        };
        let period = Period::of(at(DAY_START), at(DAY_END), &list, &scope);
        assert_eq!(period.after_the_fact, 1);
        assert_eq!(period.mttr, Some(Duration::from_seconds(2 * 3600)));
        assert_eq!(period.tally(Impact::Minor).duration.seconds(), 3 * 3600);
        assert_eq!(period.covered.seconds(), 12 * 3600);
        let none = Scope {
            coverage: None,
            ..scope
        };
        assert_eq!(
            Period::of(at(DAY_START), at(DAY_END), &list, &none).uptime,
            None
        );
    }

    proptest::proptest! {
        /// The sweep agrees with counting minute by minute, the worst impact winning.
        #[test]
        fn merging_agrees_with_counting_each_minute(
            spans in proptest::collection::vec((0u32..1440, 0u32..600, 0usize..5), 0..12)
        ) {
            let base = at(DAY_START);
            let incidents: Vec<Incident> = spans
                .iter()
                .map(|&(start, length, impact)| {
                    let mut i = incident(DAY_START, Some(DAY_START), Impact::ALL[impact]);
                    i.started = base + chrono::TimeDelta::minutes(i64::from(start));
                    i.resolved = Some(i.started + chrono::TimeDelta::minutes(i64::from(length)));
                    i
                })
                .collect();
            let mut expected = 0;
            for minute in 0..(1440 + 600) {
                let t = base + chrono::TimeDelta::minutes(minute);
                let worst = incidents
                    .iter()
                    .filter(|i| i.started <= t && t < i.resolved.unwrap())
                    .map(|i| weight(i.impact))
                    .max()
                    .unwrap_or(0);
                expected += 60 * worst;
            }
            let segments = merge(&incidents);
            let far = base + chrono::TimeDelta::days(3);
            proptest::prop_assert_eq!(downtime_in(&segments, base, far).seconds(), expected / 1000);
            for pair in segments.windows(2) {
                proptest::prop_assert!(pair[0].end <= pair[1].start);
            }
        }
    }
}
