//! The lists of one impact: every incident's, and each provider's, made once per archive
//! so that a page of major outages takes its slice instead of filtering the archive.

use std::sync::Arc;

use crate::model::{Impact, Incident};
use crate::numbers::impact_index;

use super::{IncidentIx, Provider, ProviderIx};

/// One value per impact.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ByImpact<T>([T; 5]);

impl<T> ByImpact<T> {
    /// The value of each impact.
    pub fn from_fn(mut of: impl FnMut(Impact) -> T) -> ByImpact<T> {
        ByImpact(Impact::ALL.map(&mut of))
    }

    pub fn get(&self, impact: Impact) -> &T {
        &self.0[impact_index(impact)]
    }

    /// Each impact with its value, in the order of [`Impact::ALL`].
    pub fn iter(&self) -> impl Iterator<Item = (Impact, &T)> {
        Impact::ALL.into_iter().zip(&self.0)
    }
}

/// Incidents, newest first, split by impact.
pub type Split = ByImpact<Vec<IncidentIx>>;

impl Split {
    /// `list` (newest first) split by the impact `impact_of` gives each incident, keeping
    /// its order.
    fn of(
        list: impl Iterator<Item = IncidentIx>,
        impact_of: impl Fn(IncidentIx) -> Impact,
    ) -> Split {
        let mut split = Split::default();
        for i in list {
            split.0[impact_index(impact_of(i))].push(i);
        }
        split
    }

    /// How many incidents each impact has.
    pub fn counts(&self) -> ByImpact<usize> {
        ByImpact(self.0.each_ref().map(Vec::len))
    }
}

/// The archive's incidents by impact: every incident's, and each provider's.
#[derive(Debug, Default, PartialEq)]
pub struct Lists {
    pub all: Split,
    /// By provider.
    pub providers: Vec<Split>,
}

impl Lists {
    pub(super) fn new(incidents: &[Arc<Incident>], providers: &[Provider]) -> Lists {
        let impact_of = |i: IncidentIx| incidents[i].impact;
        Lists {
            all: Split::of(IncidentIx::all(incidents.len()), impact_of),
            providers: (providers.iter())
                .map(|p| Split::of(p.incidents.iter().copied(), impact_of))
                .collect(),
        }
    }

    /// `of` split by impact.
    pub fn of(&self, of: ListOf) -> Option<&Split> {
        match of {
            ListOf::Every => Some(&self.all),
            ListOf::Provider(p) => p.get(&self.providers),
        }
    }
}

/// A list of incidents the archive splits by impact: every incident's, or a provider's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListOf {
    Every,
    Provider(ProviderIx),
}
