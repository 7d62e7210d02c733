//! The parts of one event told apart: AWS's feed holds only its latest posts, so an event
//! whose first posts fell out of it is first seen from a later one, and named by it. Such
//! an incident [continues](super::Imported::continues) a series (a service and region): it
//! is the incident of its series it overlaps, in the payload or the archive.

use std::collections::BTreeMap;

use super::Imported;
use super::files::Known;
use crate::model::{Impact, Incident, Source, Timestamp};
use crate::numbers::severity;

/// How long an incident of a series may go without an update and still be the one a later
/// post of its series continues, when nothing says it ended.
pub(super) const SERIES_GAP: chrono::TimeDelta = chrono::TimeDelta::days(30);

/// When an incident began, ended and was last updated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub started: Timestamp,
    pub resolved: Option<Timestamp>,
    pub updated: Timestamp,
}

impl Span {
    pub(crate) fn of(incident: &Imported) -> Span {
        let updated = incident.updates.iter().map(|u| u.at);
        Span {
            started: incident.started,
            resolved: incident.resolved,
            updated: updated.fold(incident.started, Timestamp::max),
        }
    }

    /// An incident of the archive.
    pub(crate) fn of_file(incident: &Incident) -> Span {
        Span {
            started: incident.started,
            resolved: incident.resolved,
            updated: incident.updated(),
        }
    }

    /// Whether the incident was open at `at`: resolved then or later, or unresolved and
    /// updated within `gap` before.
    pub(crate) fn open_at(self, at: Timestamp, gap: chrono::TimeDelta) -> bool {
        match self.resolved {
            Some(end) => end >= at,
            None => self
                .updated
                .checked_add_signed(gap)
                .is_some_and(|t| t >= at),
        }
    }
}

/// The worse of two impacts told of parts of one event: it was as bad as its worst part.
pub(super) fn worse(a: Impact, b: Impact) -> Impact {
    std::cmp::max_by_key(a, b, |i| severity(*i))
}

/// Gives each incident that continues a series, and is new to the archive, the identity of
/// the incident of its series it is part of, and the earlier start of the two. When the
/// payload holds an earlier incident of the series, the payload alone says: it is that one
/// if that one was not resolved before it began. Else it is the archive's incident that
/// overlaps it (one with no resolution counts as open until [`SERIES_GAP`] after its last
/// update), if any.
pub(super) fn join(index: &Known, incidents: &mut [Imported]) {
    let mut order: Vec<usize> = (0..incidents.len())
        .filter(|&i| incidents[i].continues.is_some())
        .collect();
    order.sort_by_key(|&i| incidents[i].started);
    // Each series' latest incident in the payload: who it is, when it began and ended.
    let mut latest: BTreeMap<(String, String), (Source, Timestamp, Option<Timestamp>)> =
        BTreeMap::new();
    for i in order {
        let incident = &incidents[i];
        let Some(series) = incident.continues.clone() else {
            continue;
        };
        let key = (incident.source.kind.clone(), series);
        let span = Span::of(incident);
        let part_of = match (index.holds_source(&incident.source), latest.get(&key)) {
            (true, _) => None,
            (false, Some((source, started, end))) => end
                .is_none_or(|end| end >= span.started)
                .then(|| (source.clone(), *started)),
            (false, None) => index.in_series(&key.0, &key.1, span, SERIES_GAP),
        };
        if let Some((source, started)) = part_of {
            incidents[i].source = source;
            incidents[i].started = started.min(span.started);
        }
        let incident = &incidents[i];
        let entry = (incident.source.clone(), incident.started, incident.resolved);
        latest.insert(key, entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::identity;
    use crate::model::Update;

    fn aws(id: &str, started: &str, resolved: Option<&str>) -> Imported {
        Imported {
            source: identity("aws", id),
            legacy: None,
            title: id.to_string(),
            started: started.parse().unwrap(),
            resolved: resolved.map(|r| r.parse().unwrap()),
            impact: None,
            components: Vec::new(),
            regions: Vec::new(),
            official_url: None,
            extra: None,
            updates: vec![Update::of(started, "update", id)],
            approximate: false,
            continues: Some("ec2-us-east-1".into()),
        }
    }

    #[test]
    fn a_later_part_of_an_open_event_takes_its_identity_and_an_ended_one_does_not() {
        let mut incidents = vec![
            aws("ec2-us-east-1_3", "2026-03-01T03:00:00Z", None),
            aws("ec2-us-east-1_1", "2026-03-01T01:00:00Z", None),
            aws(
                "ec2-us-east-1_5",
                "2026-03-02T00:00:00Z",
                Some("2026-03-02T01:00:00Z"),
            ),
            aws("ec2-us-east-1_9", "2026-03-03T00:00:00Z", None),
        ];
        join(&Known::default(), &mut incidents);
        let ids: Vec<&str> = incidents.iter().map(|i| i.source.id.as_str()).collect();
        // The part begun at 3:00 is the event begun at 1:00, which the one begun at 5 is
        // too (the event was not over); it ends at 01:00 the next day, so 9 is another.
        assert_eq!(
            ids,
            [
                "ec2-us-east-1_1",
                "ec2-us-east-1_1",
                "ec2-us-east-1_1",
                "ec2-us-east-1_9"
            ]
        );
        let first: Timestamp = "2026-03-01T01:00:00Z".parse().unwrap();
        assert_eq!(incidents[0].started, first);
    }
}
