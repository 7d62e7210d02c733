//! The years an archive's pages span: those its incidents start or end in and the years
//! between, without runs of more than [`YEARS_APART`] empty years, so that a date far from
//! the others (a typo of `0201` for `2021`) costs two years of pages, not every year between,
//! and is a warning.

use std::sync::Arc;

use chrono::Datelike;

use super::{Archive, Rules};
use crate::diagnostics::Diagnostic;
use crate::model::{Impact, Incident, Timestamp};
use crate::numbers;

/// Runs of more than this many years without an incident are left out of the pages that
/// span years, so two dates far apart cost two years of pages, not every year between.
pub const YEARS_APART: i32 = 10;

/// Where the numbers of an archive end, the years they are counted in, and from when an
/// unresolved incident's latest update keeps it ongoing.
#[derive(Clone, Copy)]
pub(super) struct Reach<'a> {
    pub(super) through: Option<Timestamp>,
    /// The archive's [`span`].
    pub(super) years: &'a [i32],
    fresh_from: Option<Timestamp>,
}

impl<'a> Reach<'a> {
    pub(super) fn new(through: Option<Timestamp>, years: &'a [i32], rules: Rules) -> Reach<'a> {
        let fresh_from = through.map(|t| {
            chrono::TimeDelta::try_seconds(rules.stale_after.seconds())
                .and_then(|after| t.checked_sub_signed(after))
                .unwrap_or(Timestamp::MIN_UTC)
        });
        Reach {
            through,
            years,
            fresh_from,
        }
    }

    /// Whether `incident` is an outage, unresolved, with no update since before
    /// `fresh_from`. (A maintenance window left open is not an outage gone quiet.)
    pub(super) fn is_stale(&self, incident: &Incident) -> bool {
        incident.is_ongoing()
            && incident.impact != Impact::Maintenance
            && self
                .fresh_from
                .is_some_and(|from| incident.updated() < from)
    }
}

/// The years that pages spanning years show, newest first: every year an incident starts
/// or ends in, with the years between them, except runs of more than [`YEARS_APART`] years
/// without any (those are left out, and [`Archive::far_apart`] warns of them). Linear in
/// the incidents, whatever their dates.
pub(super) fn span(incidents: &[Arc<Incident>]) -> Vec<i32> {
    let held: std::collections::BTreeSet<i32> = incidents
        .iter()
        .flat_map(|i| [i.started.year(), numbers::end(i).year()])
        .collect();
    let mut years: Vec<i32> = Vec::new();
    for year in held {
        if let Some(&before) = years.last()
            && year.saturating_sub(before) <= YEARS_APART.saturating_add(1)
        {
            years.extend(before.saturating_add(1)..year);
        }
        years.push(year);
    }
    years.reverse();
    years
}

/// Whether `year` is one of the `span`'s (newest first).
pub(super) fn shown(span: &[i32], year: i32) -> bool {
    span.binary_search_by(|y| year.cmp(y)).is_ok()
}

impl Archive {
    /// A warning for each incident dated more than [`YEARS_APART`] years from most of the
    /// archive (a year 9999 for 2025, say): the pages leave the years between out, and the
    /// date is likely a typo.
    pub fn far_apart(&self) -> Vec<Diagnostic> {
        // The runs of the span, oldest first, as (first, last) years.
        let mut runs: Vec<(i32, i32)> = Vec::new();
        for &year in self.years.iter().rev() {
            match runs.last_mut() {
                Some(run) if run.1.saturating_add(1) == year => run.1 = year,
                _ => runs.push((year, year)),
            }
        }
        if runs.len() < 2 {
            return Vec::new();
        }
        let run_of = |year: i32| runs.partition_point(|run| run.1 < year);
        let mut started = vec![0usize; runs.len()];
        for incident in &self.incidents {
            if let Some(count) = started.get_mut(run_of(incident.started.year())) {
                *count += 1;
            }
        }
        // The run where most incidents start; among equals, the newest.
        let Some((main, _)) = started
            .iter()
            .enumerate()
            .max_by_key(|&(run, count)| (count, run))
        else {
            return Vec::new();
        };
        let around = match runs[main] {
            (first, last) if first == last => first.to_string(),
            (first, last) => format!("{first}–{last}"),
        };
        let far = |time: Timestamp| run_of(time.year()) != main;
        self.incidents
            .iter()
            .filter_map(|incident| {
                let end = numbers::end(incident);
                let (what, time) = if far(incident.started) {
                    ("starts", incident.started)
                } else if far(end) {
                    match incident.resolved {
                        Some(_) => ("is resolved", end),
                        None => ("has its latest update", end),
                    }
                } else {
                    return None;
                };
                let message = format!(
                    "this incident {what} on {}, more than {YEARS_APART} years away from the archive's other incidents ({around}); pages that span years leave out the years between",
                    time.format("%Y-%m-%d")
                );
                Some(
                    Diagnostic::file(&incident.file, message)
                        .with_hint("check the year of that date")
                        .warning(),
                )
            })
            .collect()
    }
}
