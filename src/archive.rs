//! The whole archive: incidents sorted newest first, grouped by provider, with each
//! provider's statistics. Built once per build; pages read it, never the files.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::content::Content;
use crate::model::{Duration, Impact, Incident, ProviderInfo, Slug};

/// A typed position in one of the archive's lists, so an incident's index cannot be used
/// for a provider, nor a bare number for either. Only the archive makes them.
macro_rules! index_type {
    ($name:ident, $what:literal) => {
        #[doc = concat!("The position of ", $what, " in the archive.")]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(usize);

        impl $name {
            /// Every position of a list of `len`, in order.
            pub fn all(len: usize) -> impl Iterator<Item = $name> {
                (0..len).map($name)
            }

            /// The item at this position of `list`, if it has one.
            pub fn get<T>(self, list: &[T]) -> Option<&T> {
                list.get(self.0)
            }
        }

        impl<T> std::ops::Index<$name> for Vec<T> {
            type Output = T;
            fn index(&self, index: $name) -> &T {
                &self[index.0]
            }
        }

        impl<T> std::ops::Index<$name> for [T] {
            type Output = T;
            fn index(&self, index: $name) -> &T {
                &self[index.0]
            }
        }
    };
}

index_type!(IncidentIx, "an incident");
index_type!(ProviderIx, "a provider");

/// Everything a site shows, in the order it shows it.
#[derive(Debug, Default)]
pub struct Archive {
    /// Newest first; ties broken by provider and slug so the order never depends on threads.
    pub incidents: Vec<Arc<Incident>>,
    /// By slug.
    pub providers: Vec<Provider>,
}

#[derive(Debug)]
pub struct Provider {
    pub slug: Slug,
    pub name: String,
    pub info: ProviderInfo,
    /// Its incidents, newest first.
    pub incidents: Vec<IncidentIx>,
    pub stats: Stats,
}

/// A provider's record. Maintenance is planned, so it counts apart and adds no downtime.
#[derive(Debug, Default, PartialEq)]
pub struct Stats {
    /// Incidents other than maintenance.
    pub outages: usize,
    pub maintenance: usize,
    pub ongoing: usize,
    /// Sum of the durations of resolved outages.
    pub total: Duration,
    pub median: Option<Duration>,
    /// The longest resolved outage.
    pub longest: Option<IncidentIx>,
    /// The newest outage.
    pub last: Option<IncidentIx>,
}

impl Archive {
    pub fn assemble(content: Content) -> Archive {
        let mut incidents = content.incidents;
        incidents.sort_by(|a, b| {
            b.started
                .cmp(&a.started)
                .then_with(|| a.provider.cmp(&b.provider))
                .then_with(|| a.slug.cmp(&b.slug))
                .then_with(|| a.file.cmp(&b.file))
        });
        let mut infos: BTreeMap<Slug, ProviderInfo> = content.providers.into_iter().collect();
        let mut members: BTreeMap<Slug, Vec<IncidentIx>> = infos
            .keys()
            .map(|slug| (slug.clone(), Vec::new()))
            .collect();
        for (index, incident) in IncidentIx::all(incidents.len()).zip(&incidents) {
            members
                .entry(incident.provider.clone())
                .or_default()
                .push(index);
        }
        let providers = members
            .into_iter()
            .map(|(slug, list)| {
                let info = infos.remove(&slug).unwrap_or_default();
                let name = info
                    .name
                    .clone()
                    .or_else(|| {
                        list.iter()
                            .find_map(|&i| incidents[i].provider_name.clone())
                    })
                    .unwrap_or_else(|| slug.to_string());
                let stats = Stats::of(&incidents, &list);
                Provider {
                    slug,
                    name,
                    info,
                    incidents: list,
                    stats,
                }
            })
            .collect();
        Archive {
            incidents,
            providers,
        }
    }

    pub fn provider(&self, slug: &Slug) -> Option<&Provider> {
        self.providers
            .binary_search_by(|p| p.slug.cmp(slug))
            .ok()
            .map(|i| &self.providers[i])
    }

    /// Every incident with its position.
    pub fn incidents(&self) -> impl Iterator<Item = (IncidentIx, &Arc<Incident>)> {
        IncidentIx::all(self.incidents.len()).zip(&self.incidents)
    }

    /// Every provider with its position.
    pub fn providers(&self) -> impl Iterator<Item = (ProviderIx, &Provider)> {
        ProviderIx::all(self.providers.len()).zip(&self.providers)
    }
}

impl Stats {
    fn of(incidents: &[Arc<Incident>], list: &[IncidentIx]) -> Stats {
        let mut stats = Stats::default();
        let mut durations = Vec::new();
        for &index in list {
            let incident = &incidents[index];
            if incident.impact == Impact::Maintenance {
                stats.maintenance += 1;
                continue;
            }
            stats.outages += 1;
            stats.last.get_or_insert(index);
            if incident.is_ongoing() {
                stats.ongoing += 1;
            }
            if let Some(duration) = incident.duration() {
                durations.push(duration);
                stats.total = stats.total.saturating_add(duration);
                let longer = stats
                    .longest
                    .is_none_or(|best| incidents[best].duration().is_some_and(|d| duration > d));
                if longer {
                    stats.longest = Some(index);
                }
            }
        }
        durations.sort_unstable();
        stats.median = match durations.len() {
            0 => None,
            n if n % 2 == 1 => Some(durations[n / 2]),
            n => Some(durations[n / 2 - 1].midpoint(durations[n / 2])),
        };
        stats
    }
}
