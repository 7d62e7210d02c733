//! How a provider told of its outages, as distributions rather than one mean: how long
//! after an outage's start its first update came, how long it went between updates while
//! the outage was open, how many it posted only after the fact and how many got a
//! postmortem. Only what the records say: a start that is the first update's own time says
//! nothing of the wait, and is counted apart.

use super::{after_the_fact, median};
use crate::model::{Duration, Impact, Incident};

/// The bins of a distribution: each from its edge (included) to the next one's, the last
/// open-ended. Status pages update in minutes and resolve in hours, so the bins widen.
pub const BIN_EDGES: [Duration; 8] = [
    Duration::from_minutes(0),
    Duration::from_minutes(5),
    Duration::from_minutes(15),
    Duration::from_minutes(30),
    Duration::from_minutes(60),
    Duration::from_minutes(3 * 60),
    Duration::from_minutes(12 * 60),
    Duration::from_minutes(24 * 60),
];

/// Some durations, as counts per bin of [`BIN_EDGES`] and their median.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Distribution {
    pub bins: [usize; BIN_EDGES.len()],
    pub median: Option<Duration>,
}

impl Distribution {
    fn of(durations: Vec<Duration>) -> Distribution {
        let mut bins = [0; BIN_EDGES.len()];
        for &d in &durations {
            let bin = BIN_EDGES.partition_point(|&edge| edge <= d);
            bins[bin.saturating_sub(1)] += 1;
        }
        Distribution {
            bins,
            median: median(durations),
        }
    }

    /// How many durations it holds.
    pub fn count(&self) -> usize {
        self.bins.iter().sum()
    }
}

/// How a provider told of its outages (maintenance, announced ahead, is left out).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Communication {
    /// Every outage: what the shares are of.
    pub outages: usize,
    /// From the start to the first update, of the outages whose record starts before it
    /// (not those posted after the fact).
    pub first_update: Distribution,
    /// Outages whose first update is at (or before) their start, to the second: the record
    /// has no earlier start, so how long the provider took to post is not recorded.
    pub start_is_first_update: usize,
    /// Each outage's median gap between consecutive updates while it was open (up to its
    /// resolution), of those with two updates or more, not posted after the fact.
    pub update_gap: Distribution,
    /// Outages posted already resolved.
    pub after_the_fact: usize,
    /// Outages with a postmortem.
    pub postmortems: usize,
}

impl Communication {
    pub fn of<'a>(incidents: impl IntoIterator<Item = &'a Incident>) -> Communication {
        let mut out = Communication::default();
        let (mut waits, mut gaps) = (Vec::new(), Vec::new());
        for incident in incidents {
            if incident.impact == Impact::Maintenance {
                continue;
            }
            out.outages += 1;
            out.postmortems += usize::from(incident.postmortem().is_some());
            if after_the_fact(incident) {
                out.after_the_fact += 1;
                continue;
            }
            let open: Vec<_> = incident
                .timeline()
                .map(|u| u.at)
                .take_while(|&at| incident.resolved.is_none_or(|end| at <= end))
                .collect();
            // A platform opens an incident with its first update, some milliseconds
            // apart: under a second is the same moment.
            match open
                .first()
                .map(|&first| Duration::between(incident.started, first))
            {
                Some(wait) if wait.seconds() > 0 => waits.push(wait),
                Some(_) => out.start_is_first_update += 1,
                None => {}
            }
            let between = open
                .windows(2)
                .map(|pair| Duration::between(pair[0], pair[1]));
            gaps.extend(median(between.collect()));
        }
        out.first_update = Distribution::of(waits);
        out.update_gap = Distribution::of(gaps);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Status, Timestamp, Update};

    fn at(minute: i64) -> Timestamp {
        chrono::DateTime::UNIX_EPOCH + chrono::Duration::minutes(minute)
    }

    /// An outage starting at minute `start`, with updates at these minutes (the last
    /// `resolved`), resolved at `end`.
    fn outage(start: i64, updates: &[i64], end: Option<i64>) -> Incident {
        let n = updates.len();
        Incident {
            resolved: end.map(at),
            impact: Impact::Major,
            updates: (updates.iter().enumerate())
                .map(|(i, &m)| Update {
                    at: at(m),
                    status: if i + 1 == n {
                        Status::Resolved
                    } else {
                        Status::Investigating
                    },
                    body: String::new(),
                })
                .collect(),
            ..Incident::bare("p", "x", at(start))
        }
    }

    #[test]
    fn bins_hold_their_lower_edge_and_the_last_is_open() {
        let d = Distribution::of(
            [0, 299, 300, 3_599, 3_600, 86_399, 86_400, 10_000_000]
                .map(Duration::from_seconds)
                .to_vec(),
        );
        assert_eq!(d.bins, [2, 1, 0, 1, 1, 0, 1, 2]);
        assert_eq!(d.count(), 8);
        // The midpoint of 3,599 and 3,600, rounded down.
        assert_eq!(d.median, Some(Duration::from_seconds(3_599)));
    }

    #[test]
    fn counts_what_the_records_say_and_no_more() {
        let mut postmortem = outage(0, &[20, 30, 90], Some(90));
        postmortem.updates.push(Update {
            at: at(5000),
            status: Status::Postmortem,
            body: String::new(),
        });
        let mut maintenance = outage(0, &[1], Some(600));
        maintenance.impact = Impact::Maintenance;
        let list = [
            // 20 min to the first word; gaps 10 and 60: median 35.
            postmortem,
            // Starts with its first update: the wait is unknown. One gap of 5; the update
            // after the resolution is not "while it was open".
            outage(100, &[100, 105, 400], Some(110)),
            // Posted resolved: neither a wait nor gaps.
            outage(200, &[200, 200], Some(200)),
            // Still open: its updates so far count.
            outage(300, &[302, 303, 305, 309], None),
            maintenance,
        ];
        let c = Communication::of(&list);
        assert_eq!(c.outages, 4);
        assert_eq!(c.postmortems, 1);
        assert_eq!(c.after_the_fact, 1);
        assert_eq!(c.start_is_first_update, 1);
        // Waits of 20 and 2 minutes.
        assert_eq!(c.first_update.bins[0], 1);
        assert_eq!(c.first_update.bins[2], 1);
        assert_eq!(c.first_update.median, Some(Duration::from_minutes(11)));
        // Each outage's median gap: 35, 5 and 2 minutes.
        assert_eq!(c.update_gap.count(), 3);
        assert_eq!(c.update_gap.median, Some(Duration::from_minutes(5)));
        assert_eq!(c.update_gap.bins[..4], [1, 1, 0, 1]);
    }
}
