//! The numbers of an archive, defined once (SPEC §6): how much an incident counts as
//! downtime, how overlapping incidents merge, uptime and time to resolve over a period,
//! and which UTC days an incident touches. Pure arithmetic on the model, with no notion
//! of pages.

use chrono::{Datelike, NaiveDate, TimeZone, Utc};

use crate::model::{Duration, Impact, Incident, Timestamp};

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
    /// As [`weight`]: 1000 or 300.
    pub weight: i64,
}

/// The downtime of a set of incidents as stretches that do not overlap, in time order:
/// at every instant the worst impact active then wins, so nothing counts twice.
pub fn merge<'a>(incidents: impl IntoIterator<Item = &'a Incident>) -> Vec<Segment> {
    // Events: (time, change in active critical, change in active major).
    let mut events: Vec<(Timestamp, i32, i32)> = Vec::new();
    for incident in incidents {
        let end = end(incident);
        if end <= incident.started {
            continue;
        }
        let (critical, major) = match incident.impact {
            Impact::Critical => (1, 0),
            Impact::Major => (0, 1),
            _ => continue,
        };
        events.push((incident.started, critical, major));
        events.push((end, -critical, -major));
    }
    events.sort_unstable();
    let mut segments: Vec<Segment> = Vec::new();
    let (mut critical, mut major) = (0, 0);
    let mut i = 0;
    while i < events.len() {
        let at = events[i].0;
        while i < events.len() && events[i].0 == at {
            critical += events[i].1;
            major += events[i].2;
            i += 1;
        }
        let weight = if critical > 0 {
            1000
        } else if major > 0 {
            300
        } else {
            0
        };
        // Close the open stretch if the weight changes here.
        if let Some(last) = segments.last_mut()
            && last.end == Timestamp::MAX_UTC
        {
            if last.weight == weight {
                continue;
            }
            last.end = at;
        }
        if weight > 0 {
            segments.push(Segment {
                start: at,
                end: Timestamp::MAX_UTC,
                weight,
            });
        }
    }
    segments
}

/// The downtime of merged stretches within `[from, to)`.
pub fn downtime_in(segments: &[Segment], from: Timestamp, to: Timestamp) -> Duration {
    let first = segments.partition_point(|s| s.end <= from);
    let mut thousandths: i64 = 0;
    for segment in segments[first..].iter().take_while(|s| s.start < to) {
        let seconds = (segment.end.min(to) - segment.start.max(from)).num_seconds();
        thousandths = thousandths.saturating_add(seconds.max(0).saturating_mul(segment.weight));
    }
    Duration::from_seconds(thousandths / 1000)
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

/// The incidents of one impact in a period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: usize,
    /// The sum of their durations, resolved ones only.
    pub duration: Duration,
}

/// The numbers of one period: incidents count where they started, downtime where it fell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    pub from: Timestamp,
    pub to: Timestamp,
    /// Every incident, maintenance included.
    pub incidents: usize,
    /// By impact, in the order of [`Impact::ALL`].
    pub by_impact: [Tally; 5],
    pub downtime: Duration,
    pub uptime: Option<u32>,
    /// The median time to resolve of the outages (not maintenance) resolved.
    pub mttr: Option<Duration>,
}

impl Period {
    /// The numbers of `[from, to)` for `started` (the incidents that started in it) and the
    /// merged downtime of all the incidents they belong with.
    pub fn of<'a>(
        from: Timestamp,
        to: Timestamp,
        started: impl IntoIterator<Item = &'a Incident>,
        segments: &[Segment],
    ) -> Period {
        let mut by_impact = [Tally::default(); 5];
        let mut incidents = 0;
        let mut resolved = Vec::new();
        for incident in started {
            incidents += 1;
            let tally = &mut by_impact[impact_index(incident.impact)];
            tally.count += 1;
            if let Some(duration) = incident.duration() {
                tally.duration = tally.duration.saturating_add(duration);
                if incident.impact != Impact::Maintenance {
                    resolved.push(duration);
                }
            }
        }
        let downtime = downtime_in(segments, from, to);
        Period {
            from,
            to,
            incidents,
            by_impact,
            downtime,
            uptime: uptime(downtime, from, to),
            mttr: median(resolved),
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
        let period = Period::of(at(DAY_START), at(DAY_END), &list, &merge(&list));
        assert_eq!(period.incidents, 4);
        assert_eq!(period.outages(), 3);
        assert_eq!(period.maintenance(), 1);
        // 1 h and 3 h resolved outages: the median is 2 h; maintenance is not an outage.
        assert_eq!(period.mttr, Some(Duration::from_seconds(2 * 3600)));
        assert_eq!(period.downtime.seconds(), 3600);
        assert_eq!(period.uptime, Some(9583));
        assert_eq!(period.tally(Impact::Minor).duration.seconds(), 3 * 3600);
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
