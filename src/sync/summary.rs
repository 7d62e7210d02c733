//! What a sync reports: for each provider what it did (or why it failed), and the line
//! that sums them up.

use std::fmt;
use std::path::PathBuf;

use super::fetch::Failure;
use crate::diagnostics::{Diagnostic, Diagnostics, count};
use crate::import::{self, Change, Mode, Outcome};

/// What a sync did to one provider.
#[derive(Debug)]
pub struct Synced {
    /// The provider's slug (its folder's name, if its `_index.md` does not load).
    pub provider: String,
    /// What came of it, or why it failed.
    pub result: Result<Done, Failed>,
    pub(crate) mode: Mode,
}

/// What a sync did to a provider that did not fail.
#[derive(Debug)]
pub enum Done {
    /// Every endpoint answered 304.
    NotModified,
    /// Incidents came, from the endpoints or the history, and were merged into the archive
    /// (in a dry run, only planned).
    Merged {
        /// What became of each incident that came, its history's included.
        outcomes: Vec<Outcome>,
        /// The name the status page gives, written into an `_index.md` that had none (or
        /// why it was not: the incidents are in, so that is a warning only).
        named: Option<Result<(String, PathBuf), super::providers::Unnamed>>,
    },
}

/// Why a sync failed for one provider; the others go on.
#[derive(Debug)]
pub enum Failed {
    /// The server could not be reached, or said no.
    Fetch(Failure),
    /// The answer, or what it would make of the archive, is wrong.
    Content(Vec<Diagnostic>),
}

/// What a sync did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Each provider, in the order it was done.
    pub synced: Vec<Synced>,
    /// Problems that cost no provider anything (the state could not be read or written).
    pub warnings: Vec<String>,
}

impl Summary {
    /// How many providers failed.
    pub fn failed(&self) -> usize {
        self.synced.iter().filter(|s| s.result.is_err()).count()
    }

    /// Incidents a provider's page gave that another provider holds (not written).
    pub fn conflicts(&self) -> usize {
        self.synced.iter().map(|s| s.tally(conflict)).sum()
    }
}

impl Synced {
    pub(super) fn tally(&self, wanted: fn(&Change) -> bool) -> usize {
        match &self.result {
            Ok(Done::Merged { outcomes, .. }) => {
                outcomes.iter().filter(|o| wanted(&o.change)).count()
            }
            _ => 0,
        }
    }
}

fn created(c: &Change) -> bool {
    matches!(c, Change::Created { .. })
}
fn updated(c: &Change) -> bool {
    matches!(c, Change::Updated { .. })
}
fn unchanged(c: &Change) -> bool {
    matches!(c, Change::Unchanged)
}
fn conflict(c: &Change) -> bool {
    matches!(c, Change::Conflict { .. })
}

impl fmt::Display for Synced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let provider = &self.provider;
        match &self.result {
            Ok(Done::NotModified) => write!(f, "{provider}: unchanged (304)"),
            Ok(Done::Merged { outcomes, named }) => {
                let would = match self.mode {
                    Mode::DryRun => " would be",
                    Mode::Write => "",
                };
                write!(
                    f,
                    "{provider}: {} new, {} updated, {} unchanged",
                    self.tally(created),
                    self.tally(updated),
                    self.tally(unchanged)
                )?;
                if self.mode == Mode::DryRun {
                    f.write_str(" (dry run)")?;
                }
                for outcome in outcomes.iter().filter(|o| o.change != Change::Unchanged) {
                    let shown = outcome.to_string().replace('\n', "\n  ");
                    write!(f, "\n  {shown}")?;
                }
                if let Some(Err(why)) = named {
                    write!(f, "\n  warning: {why}")?;
                }
                if let Some(Ok((name, file))) = named {
                    let name = import::quoted(name);
                    let file = file.display();
                    write!(
                        f,
                        "\n  name: {name}{would} written into {file}, as the status page names it"
                    )?;
                }
                Ok(())
            }
            Err(Failed::Fetch(failure)) if failure.url.is_empty() => {
                write!(f, "{provider}: failed: {}", failure.reason)
            }
            Err(Failed::Fetch(failure)) => {
                write!(f, "{provider}: failed: {}: {}", failure.url, failure.reason)?;
                match &failure.hint {
                    Some(hint) => write!(f, "\n  = help: {hint}"),
                    None => Ok(()),
                }
            }
            Err(Failed::Content(problems)) => {
                let shown = Diagnostics(problems.clone()).to_string();
                write!(
                    f,
                    "{provider}: failed, nothing written for it:\n{}",
                    shown.trim_end()
                )
            }
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.synced.len();
        let failed = self.failed();
        let sum = |wanted: fn(&Change) -> bool| -> usize {
            self.synced.iter().map(|s| s.tally(wanted)).sum()
        };
        let dry = self.synced.first().is_some_and(|s| s.mode == Mode::DryRun);
        write!(
            f,
            "{} {} of {}: {} new, {} updated, {} unchanged",
            if dry { "dry run: would sync" } else { "synced" },
            total - failed,
            count(total, "provider"),
            sum(created),
            sum(updated),
            sum(unchanged),
        )?;
        let not_modified = self
            .synced
            .iter()
            .filter(|s| matches!(s.result, Ok(Done::NotModified)))
            .count();
        if not_modified > 0 {
            write!(f, ", {not_modified} not modified")?;
        }
        match sum(conflict) {
            0 => {}
            n => write!(f, "; {n} held by another provider, not written")?,
        }
        if failed > 0 {
            write!(f, "; {failed} failed")?;
        }
        if dry {
            f.write_str("; nothing was written")?;
        }
        Ok(())
    }
}
