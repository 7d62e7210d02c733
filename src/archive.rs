//! The whole archive: incidents sorted newest first, grouped by provider, with each
//! provider's statistics. Built once per build; pages read it, never the files.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};
use std::sync::Arc;

use crate::content::Content;
use crate::insight::{self, Period};
use crate::model::{Impact, Incident, ProviderInfo, Slug, Timestamp};

/// A typed position in one of the archive's lists, so an incident's index cannot be used
/// for a provider, nor a bare number for either. Only the archive makes them.
macro_rules! index_type {
    ($name:ident, $what:literal) => {
        #[doc = concat!("The position of ", $what, " in the archive.")]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(usize);

        impl $name {
            /// Every position of a list of `len`, in order.
            pub fn all(len: usize) -> impl ExactSizeIterator<Item = $name> {
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
    /// By incident: its provider, and its position in the provider's list.
    pub places: Vec<(ProviderIx, usize)>,
    /// Every UTC day some incident touches, oldest first.
    pub days: Vec<Day>,
    /// By incident: the time of its latest update (for a sitemap's `lastmod`), worked out
    /// once and kept side by side, so a sitemap does not walk every incident's updates.
    pub updated: Vec<Timestamp>,
    /// The archive's latest update: where every period of the statistics ends, so the
    /// same files give the same numbers whenever they are built.
    pub through: Option<Timestamp>,
}

/// One UTC day of the archive.
#[derive(Debug, PartialEq)]
pub struct Day {
    pub date: NaiveDate,
    /// The incidents active that day, by start time.
    pub incidents: Vec<IncidentIx>,
    /// How many providers had an incident other than maintenance that day.
    pub providers: usize,
}

#[derive(Debug)]
pub struct Provider {
    pub slug: Slug,
    pub name: String,
    pub info: ProviderInfo,
    /// Its incidents, newest first.
    pub incidents: Vec<IncidentIx>,
    pub stats: Stats,
    /// The years in which an incident started, newest first.
    pub years: Vec<i32>,
    /// By slug.
    pub components: Vec<Component>,
}

/// A component of a provider, as its incidents name it.
#[derive(Debug)]
pub struct Component {
    pub slug: Slug,
    /// The first name seen (oldest incident first) among those with this slug.
    pub name: String,
    /// Newest first.
    pub incidents: Vec<IncidentIx>,
    pub stats: Stats,
}

/// The record of a provider or a component (SPEC §6). Maintenance counts apart and adds no
/// downtime.
#[derive(Debug, PartialEq)]
pub struct Stats {
    pub all_time: Period,
    pub last_12_months: Period,
    /// Every year from the first incident's to the archive's last, newest first.
    pub years: Vec<(i32, Period)>,
    /// Every month from the first incident's to the archive's last, oldest first (for a
    /// provider; a component has none).
    pub months: Vec<((i32, u32), Period)>,
    pub ongoing: usize,
    /// The longest resolved outage (a major or partial outage).
    pub longest: Option<IncidentIx>,
    /// The newest incident other than maintenance.
    pub last: Option<IncidentIx>,
}

impl Archive {
    pub fn assemble(content: Content) -> Archive {
        use rayon::prelude::*;
        let mut incidents = content.incidents;
        incidents.par_sort_by(|a, b| {
            b.started
                .cmp(&a.started)
                .then_with(|| a.provider.cmp(&b.provider))
                .then_with(|| a.slug.cmp(&b.slug))
                .then_with(|| a.file.cmp(&b.file))
        });
        let through = incidents.par_iter().map(|i| insight::end(i)).max();
        let updated = incidents.par_iter().map(|i| i.updated()).collect();
        let mut infos: BTreeMap<Slug, ProviderInfo> = content.providers.into_iter().collect();
        let mut members: BTreeMap<Slug, Vec<IncidentIx>> = infos
            .keys()
            .map(|slug| (slug.clone(), Vec::new()))
            .collect();
        for (index, incident) in IncidentIx::all(incidents.len()).zip(&incidents) {
            // The slug is copied only for a provider with no file of its own.
            match members.get_mut(&incident.provider) {
                Some(list) => list.push(index),
                None => {
                    members.insert(incident.provider.clone(), vec![index]);
                }
            }
        }
        let members: Vec<(Slug, Vec<IncidentIx>, ProviderInfo)> = members
            .into_iter()
            .map(|(slug, list)| {
                let info = infos.remove(&slug).unwrap_or_default();
                (slug, list, info)
            })
            .collect();
        let providers: Vec<Provider> = members
            .into_par_iter()
            .map(|(slug, list, info)| {
                let name = info
                    .name
                    .clone()
                    .or_else(|| {
                        list.iter()
                            .find_map(|&i| incidents[i].provider_name.clone())
                    })
                    .unwrap_or_else(|| slug.to_string());
                let mut years: Vec<i32> =
                    list.iter().map(|&i| incidents[i].started.year()).collect();
                years.dedup();
                Provider {
                    stats: Stats::of(&incidents, &list, through, true),
                    components: components(&incidents, &list, through),
                    slug,
                    name,
                    info,
                    incidents: list,
                    years,
                }
            })
            .collect();
        let mut places = vec![(ProviderIx(0), 0); incidents.len()];
        for (p, provider) in ProviderIx::all(providers.len()).zip(&providers) {
            for (position, &i) in provider.incidents.iter().enumerate() {
                places[i.0] = (p, position);
            }
        }
        let days = days(&incidents);
        Archive {
            incidents,
            providers,
            places,
            days,
            updated,
            through,
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

    /// The day of `date`, if an incident touches it.
    pub fn day(&self, date: NaiveDate) -> Option<&Day> {
        self.days
            .binary_search_by(|d| d.date.cmp(&date))
            .ok()
            .map(|i| &self.days[i])
    }

    /// The days from `first` to `last`, both included, that have incidents.
    pub fn days_between(&self, first: NaiveDate, last: NaiveDate) -> &[Day] {
        let from = self.days.partition_point(|d| d.date < first);
        let to = self.days.partition_point(|d| d.date <= last);
        &self.days[from..to.max(from)]
    }

    /// The incidents just newer and just older than `index` in its provider's list.
    pub fn neighbours(&self, index: IncidentIx) -> (Option<IncidentIx>, Option<IncidentIx>) {
        let (provider, position) = self.places[index.0];
        let list = &self.providers[provider].incidents;
        let newer = position.checked_sub(1).and_then(|p| list.get(p)).copied();
        (newer, list.get(position + 1).copied())
    }
}

/// Every day some incident touches, with its incidents by start time. Work is the sum of
/// the incidents' lengths in days (ten years at most each), never the archive squared.
fn days(incidents: &[Arc<Incident>]) -> Vec<Day> {
    use rayon::prelude::*;
    let mut touched: Vec<(NaiveDate, IncidentIx)> = IncidentIx::all(incidents.len())
        .zip(incidents)
        .flat_map(|(index, incident)| {
            let (first, last) = insight::days(incident);
            first
                .iter_days()
                .take_while(move |d| *d <= last)
                .map(move |d| (d, index))
        })
        .collect();
    // Newest first in the archive, so a larger index started no later: by start time is
    // by index, reversed.
    touched.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut days: Vec<Day> = Vec::new();
    for (date, index) in touched {
        match days.last_mut() {
            Some(day) if day.date == date => day.incidents.push(index),
            _ => days.push(Day {
                date,
                incidents: vec![index],
                providers: 0,
            }),
        }
    }
    for day in &mut days {
        let mut providers: Vec<&Slug> = day
            .incidents
            .iter()
            .map(|&i| &incidents[i])
            .filter(|i| i.impact != Impact::Maintenance)
            .map(|i| &i.provider)
            .collect();
        providers.sort_unstable();
        providers.dedup();
        day.providers = providers.len();
    }
    days
}

/// A provider's components, by slug: names that make one slug are one component.
fn components(
    incidents: &[Arc<Incident>],
    list: &[IncidentIx],
    through: Option<Timestamp>,
) -> Vec<Component> {
    let mut by_slug: BTreeMap<Slug, (String, Vec<IncidentIx>)> = BTreeMap::new();
    // Oldest first, so the first name seen is the oldest incident's.
    for &index in list.iter().rev() {
        let mut seen: Vec<&Slug> = Vec::new();
        let slugs: Vec<(Slug, &String)> = incidents[index]
            .components
            .iter()
            .filter_map(|name| Slug::from_name(name).ok().map(|slug| (slug, name)))
            .collect();
        for (slug, name) in &slugs {
            if seen.contains(&slug) {
                continue;
            }
            seen.push(slug);
            by_slug
                .entry(slug.clone())
                .or_insert_with(|| (name.to_string(), Vec::new()))
                .1
                .push(index);
        }
    }
    by_slug
        .into_iter()
        .map(|(slug, (name, mut members))| {
            members.reverse();
            Component {
                stats: Stats::of(incidents, &members, through, false),
                slug,
                name,
                incidents: members,
            }
        })
        .collect()
}

impl Stats {
    /// The record of `list` (newest first) up to `through`; with `months`, month by month
    /// too.
    fn of(
        incidents: &[Arc<Incident>],
        list: &[IncidentIx],
        through: Option<Timestamp>,
        months: bool,
    ) -> Stats {
        let all = || list.iter().map(|&i| &*incidents[i]);
        let segments = insight::merge(all());
        let end = through.unwrap_or(Timestamp::UNIX_EPOCH);
        let first_year = list
            .last()
            .map_or(end.year(), |&i| incidents[i].started.year());
        let year_start = |y: i32| insight::month_start(y, 1).unwrap_or(end).min(end);
        let started_in = |from: Timestamp, to: Timestamp| {
            // Newest first: those started in [from, to) are one run of the list.
            let newer = list.partition_point(|&i| incidents[i].started >= to);
            let older = list.partition_point(|&i| incidents[i].started >= from);
            list[newer..older.max(newer)]
                .iter()
                .map(|&i| &*incidents[i])
        };
        let period =
            |from: Timestamp, to: Timestamp| Period::of(from, to, started_in(from, to), &segments);
        let years = (first_year..=end.year())
            .rev()
            .map(|y| (y, period(year_start(y), year_start(y.saturating_add(1)))))
            .collect();
        let mut month_list = Vec::new();
        if months && !list.is_empty() {
            let mut month = (first_year, 1);
            let last = insight::month_of(end);
            let start = |(y, m): (i32, u32)| insight::month_start(y, m).unwrap_or(end).min(end);
            while month <= last {
                let next = insight::next_month(month.0, month.1);
                let period = period(start(month), start(next));
                // Months before the first incident are left out.
                if !month_list.is_empty() || period.incidents > 0 {
                    month_list.push((month, period));
                }
                month = next;
            }
        }
        let twelve = end
            .checked_sub_months(chrono::Months::new(12))
            .unwrap_or(end);
        let outage = |i: &&IncidentIx| incidents[**i].impact != Impact::Maintenance;
        let longest = list
            .iter()
            .filter(|&&i| matches!(incidents[i].impact, Impact::Critical | Impact::Major))
            .filter_map(|&i| incidents[i].duration().map(|d| (d, i)))
            // The longest; among equals, the newest.
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
            .map(|(_, i)| i);
        Stats {
            all_time: period(year_start(first_year), end),
            last_12_months: period(twelve, end),
            years,
            months: month_list,
            ongoing: all()
                .filter(|i| i.is_ongoing() && i.impact != Impact::Maintenance)
                .count(),
            longest,
            last: list.iter().find(outage).copied(),
        }
    }
}
