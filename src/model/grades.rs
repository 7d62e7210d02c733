//! How bad an incident was ([`Impact`]), how sure its provider was ([`Level`]), and
//! the status word of each update ([`Status`]).

use serde::{Deserialize, Serialize};

/// How bad an incident was, as status pages grade it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// No impact on the service.
    None,
    /// Degraded performance.
    Minor,
    /// A partial outage.
    Major,
    /// What status pages label a major outage: the service is down.
    Critical,
    /// Planned maintenance.
    Maintenance,
}

impl Impact {
    pub(crate) const ALL: [Impact; 5] = [
        Impact::None,
        Impact::Minor,
        Impact::Major,
        Impact::Critical,
        Impact::Maintenance,
    ];

    /// Reads the keyword (`major`) or the label a status page shows (`Partial outage`),
    /// case-insensitively.
    pub fn parse(text: &str) -> Option<Impact> {
        let wanted = text.trim();
        Impact::ALL.into_iter().find(|impact| {
            wanted.eq_ignore_ascii_case(impact.keyword())
                || wanted.eq_ignore_ascii_case(impact.label())
        })
    }

    pub(crate) fn keyword(self) -> &'static str {
        match self {
            Impact::None => "none",
            Impact::Minor => "minor",
            Impact::Major => "major",
            Impact::Critical => "critical",
            Impact::Maintenance => "maintenance",
        }
    }

    /// The words a status page shows for this impact.
    pub fn label(self) -> &'static str {
        match self {
            Impact::None => "No impact",
            Impact::Minor => "Degraded performance",
            Impact::Major => "Partial outage",
            Impact::Critical => "Major outage",
            Impact::Maintenance => "Under maintenance",
        }
    }
}

/// Whether the incident was confirmed by the provider or only suspected from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Confirmed by the provider.
    Confirmed,
    /// Only suspected from outside.
    Suspected,
}

impl Level {
    pub(crate) fn parse(text: &str) -> Option<Level> {
        match text.trim().to_ascii_lowercase().as_str() {
            "confirmed" => Some(Level::Confirmed),
            "suspected" => Some(Level::Suspected),
            _ => None,
        }
    }

    pub(crate) fn keyword(self) -> &'static str {
        match self {
            Level::Confirmed => "confirmed",
            Level::Suspected => "suspected",
        }
    }
}

/// A status word of an update; the common ones are known, any other is kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// The cause is being looked for.
    Investigating,
    /// The cause is found.
    Identified,
    /// A fix is in, and being watched.
    Monitoring,
    /// News, with no change of state.
    Update,
    /// The incident is over.
    Resolved,
    /// The write-up after the incident, shown apart from the timeline.
    Postmortem,
    /// A maintenance, announced ahead.
    Scheduled,
    /// A maintenance under way.
    InProgress,
    /// A maintenance done, being checked.
    Verifying,
    /// A maintenance finished.
    Completed,
    /// Any other word, as written.
    Other(String),
}

impl Status {
    /// The statuses with a meaning of their own, as written in content.
    pub const KNOWN: &[&str] = &[
        "investigating",
        "identified",
        "monitoring",
        "update",
        "resolved",
        "postmortem",
        "scheduled",
        "in progress",
        "verifying",
        "completed",
    ];

    pub(crate) fn parse(text: &str) -> Status {
        let text = text.trim();
        match text.to_ascii_lowercase().replace('_', " ").as_str() {
            "investigating" => Status::Investigating,
            "identified" => Status::Identified,
            "monitoring" => Status::Monitoring,
            "update" => Status::Update,
            "resolved" => Status::Resolved,
            "postmortem" | "post-mortem" => Status::Postmortem,
            "scheduled" => Status::Scheduled,
            "in progress" => Status::InProgress,
            "verifying" => Status::Verifying,
            "completed" => Status::Completed,
            _ => Status::Other(text.to_string()),
        }
    }

    /// The status as written in content, lowercase for known words.
    pub fn as_str(&self) -> &str {
        match self {
            Status::Investigating => "investigating",
            Status::Identified => "identified",
            Status::Monitoring => "monitoring",
            Status::Update => "update",
            Status::Resolved => "resolved",
            Status::Postmortem => "postmortem",
            Status::Scheduled => "scheduled",
            Status::InProgress => "in progress",
            Status::Verifying => "verifying",
            Status::Completed => "completed",
            Status::Other(text) => text,
        }
    }
}
