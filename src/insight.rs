//! The numbers of an archive, defined once (SPEC §6): how much an incident counts as
//! downtime, how overlapping incidents merge, uptime over a period. Pure arithmetic on the
//! model, with no notion of pages.

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

/// Where an incident ends for counting: when it was resolved, or, while it is ongoing, its
/// latest update (never the clock, so the same input gives the same numbers).
pub fn end(incident: &Incident) -> Timestamp {
    incident.resolved.unwrap_or_else(|| incident.updated())
}

/// The downtime of one incident on its own: its duration weighted by its impact.
pub fn downtime(incident: &Incident) -> Duration {
    weighted(Duration::between(incident.started, end(incident)), incident.impact)
}

fn weighted(duration: Duration, impact: Impact) -> Duration {
    // At most ten years of seconds times 1000: far inside an i64.
    Duration::from_seconds(duration.seconds().saturating_mul(weight(impact)) / 1000)
}
