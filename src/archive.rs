//! The whole archive: incidents sorted newest first, grouped by provider, with each
//! provider's statistics. Built once per build; pages read it, never the files.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{Datelike, NaiveDate};
use foldhash::HashSet;

use crate::content::Content;
use crate::model::{Duration, Impact, Incident, ProviderInfo, Slug, Timestamp};
use crate::numbers::{self, Period, Scope};

mod lists;
mod span;
pub use lists::{ByImpact, ListOf, Lists, Split};
use span::{Reach, shown, span};

/// A typed position in one list, so an incident's index cannot be used for a provider,
/// nor a bare number for either. Only the module that declares one makes them.
macro_rules! index_type {
    ($name:ident, $what:literal) => {
        #[doc = concat!("The position of ", $what, ".")]
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

pub(crate) use index_type;

index_type!(IncidentIx, "an incident in the archive");
index_type!(ProviderIx, "a provider in the archive");
index_type!(ComponentIx, "a component in its provider's list");

/// Everything a site shows, in the order it shows it.
#[derive(Debug, Default, PartialEq)]
pub struct Archive {
    /// Newest first; ties broken by provider, slug and file, so the order never depends on
    /// threads.
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
    /// The years that pages spanning years show (statistics, calendars, year links),
    /// newest first: see [`span`].
    pub years: Vec<i32>,
    /// The settings the archive was counted by.
    pub rules: Rules,
    /// The incidents of each impact.
    pub lists: Lists,
}

/// What the site's settings say about counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rules {
    /// How long an unresolved incident may go without an update, before the archive's
    /// latest update, and still be ongoing; after that it is stale.
    pub stale_after: Duration,
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

#[derive(Debug, PartialEq)]
pub struct Provider {
    pub slug: Slug,
    pub name: String,
    pub info: ProviderInfo,
    /// Its incidents, newest first.
    pub incidents: Vec<IncidentIx>,
    pub stats: Stats,
    /// How it told of its outages, over all of them.
    pub communication: numbers::Communication,
    /// The years in which an incident started, newest first.
    pub years: Vec<i32>,
    /// By slug.
    pub components: Vec<Component>,
}

/// A component of a provider, as its incidents name it.
#[derive(Debug, PartialEq)]
pub struct Component {
    pub slug: Slug,
    /// The first name seen (oldest incident first) among those with this slug.
    pub name: String,
    /// Newest first.
    pub incidents: Vec<IncidentIx>,
    pub stats: Stats,
}

/// The record of a provider or a component. Maintenance counts apart and adds no downtime.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// The time the archive has records for: from the first incident (or the provider's
    /// `since:`) to the archive's latest update for a provider `outages sync` follows,
    /// else to its own last record (or `until:`). `None` with no incident.
    pub coverage: Option<(Timestamp, Timestamp)>,
    pub all_time: Period,
    pub last_12_months: Period,
    /// From the midnight that begins the first of the [`numbers::recent_days`] to the
    /// archive's end: what the recent bars say.
    pub last_90_days: Period,
    /// Every year of the archive's [`span`] from the first incident's to the archive's
    /// last, newest first.
    pub years: Vec<(i32, Period)>,
    /// Every month of those years from the first incident's to the archive's last, oldest
    /// first (for a provider; a component has none).
    pub months: Vec<((i32, u32), Period)>,
    /// Unresolved outages updated within [`Rules::stale_after`], newest first.
    pub ongoing: Vec<IncidentIx>,
    /// Unresolved outages with no update for longer: not shown as ongoing.
    pub stale: Vec<IncidentIx>,
    /// The longest outage (a major or partial one) with a recorded duration.
    pub longest: Option<IncidentIx>,
    /// The same, of those that started in the last 12 months.
    pub longest_12_months: Option<IncidentIx>,
    /// The newest incident other than maintenance.
    pub last: Option<IncidentIx>,
}

impl Archive {
    pub fn assemble(content: Content, rules: Rules) -> Archive {
        use rayon::prelude::*;
        let mut incidents = content.incidents;
        incidents.par_sort_by(|a, b| newest_first(a, b));
        let through = incidents.par_iter().map(|i| numbers::end(i)).max();
        let years = span(&incidents);
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
                Provider::of(
                    &incidents,
                    slug,
                    list,
                    info,
                    Reach::new(through, &years, rules),
                )
            })
            .collect();
        let places = places(&providers, incidents.len());
        let days = days(&incidents, &years);
        let lists = Lists::new(&incidents, &providers);
        Archive {
            lists,
            incidents,
            providers,
            places,
            days,
            updated,
            through,
            years,
            rules,
        }
    }

    /// Whether an incident is unresolved with no update for longer than
    /// [`Rules::stale_after`] before the archive's latest update.
    pub fn is_stale(&self, incident: &Incident) -> bool {
        Reach::new(self.through, &self.years, self.rules).is_stale(incident)
    }

    /// The archive [`Archive::assemble`] makes of this one's incidents with those of
    /// `gone` (the same `Arc`s) taken out and `added` put in, made from this one: a
    /// provider the change does not touch keeps its numbers, only moved to the new
    /// positions, unless the archive's latest update moved. After an edit, this is a
    /// fraction of assembling the archive again (the merge, the days and the places are
    /// still the whole archive's). `None` when a provider would appear, or lose its last
    /// incident (it may have a file of its own): then assemble the archive.
    pub fn amend(&self, gone: &[Arc<Incident>], mut added: Vec<Arc<Incident>>) -> Option<Archive> {
        use rayon::prelude::*;
        let gone: HashSet<*const Incident> = gone.iter().map(Arc::as_ptr).collect();
        added.sort_by(|a, b| newest_first(a, b));
        let owners_added: Vec<ProviderIx> = added
            .iter()
            .map(|incident| self.provider_ix(&incident.provider))
            .collect::<Option<_>>()?;
        let mut touched = vec![false; self.providers.len()];
        for &p in &owners_added {
            touched[p.0] = true;
        }
        // The incidents kept, in their order, with those added merged in theirs; `moved`
        // says where each kept one went.
        let len = self.incidents.len() + added.len();
        let (mut incidents, mut owners, mut updated) = (
            Vec::with_capacity(len),
            Vec::with_capacity(len),
            Vec::with_capacity(len),
        );
        let mut moved = vec![None; self.incidents.len()];
        let mut added = added.into_iter().zip(owners_added).peekable();
        for (old, incident) in self.incidents() {
            let owner = self.places[old.0].0;
            if gone.contains(&Arc::as_ptr(incident)) {
                touched[owner.0] = true;
                continue;
            }
            while let Some((new, p)) = added.next_if(|(new, _)| newest_first(new, incident).is_lt())
            {
                updated.push(new.updated());
                owners.push(p);
                incidents.push(new);
            }
            moved[old.0] = Some(IncidentIx(incidents.len()));
            updated.push(self.updated[old.0]);
            owners.push(owner);
            incidents.push(Arc::clone(incident));
        }
        for (new, p) in added {
            updated.push(new.updated());
            owners.push(p);
            incidents.push(new);
        }
        let through = incidents.par_iter().map(|i| numbers::end(i)).max();
        let years = span(&incidents);
        if through != self.through || years != self.years {
            touched.fill(true);
        }
        let mut lists = vec![Vec::new(); self.providers.len()];
        for (index, owner) in IncidentIx::all(incidents.len()).zip(&owners) {
            lists[owner.0].push(index);
        }
        if lists
            .iter()
            .zip(&self.providers)
            .any(|(list, old)| list.is_empty() && !old.incidents.is_empty())
        {
            return None;
        }
        let to = |i: IncidentIx| moved[i.0];
        let providers: Vec<Provider> = self
            .providers
            .par_iter()
            .zip(lists)
            .zip(touched)
            .map(|((old, list), touched)| match touched {
                true => Some(Provider::of(
                    &incidents,
                    old.slug.clone(),
                    list,
                    old.info.clone(),
                    Reach::new(through, &years, self.rules),
                )),
                // It lost none of its incidents, so each has a new position.
                false => old.moved(&to, list),
            })
            .collect::<Option<_>>()?;
        Some(Archive {
            places: places(&providers, incidents.len()),
            days: days(&incidents, &years),
            lists: Lists::new(&incidents, &providers),
            incidents,
            providers,
            updated,
            through,
            years,
            rules: self.rules,
        })
    }

    /// A warning for each unresolved outage with no update for longer than
    /// [`Rules::stale_after`]: the pages no longer show it as ongoing.
    pub fn stale(&self) -> Vec<crate::diagnostics::Diagnostic> {
        self.providers
            .iter()
            .flat_map(|p| &p.stats.stale)
            .map(|&i| {
                let incident = &self.incidents[i];
                crate::diagnostics::Diagnostic::file(
                    &incident.file,
                    format!(
                        "unresolved, with no update since {}: shown as unresolved, not as ongoing",
                        incident.updated().format("%Y-%m-%d")
                    ),
                )
                .with_hint("add `resolved:` if it is over, or an update if it is not")
                .warning()
            })
            .collect()
    }

    fn provider_ix(&self, slug: &Slug) -> Option<ProviderIx> {
        self.providers
            .binary_search_by(|p| p.slug.cmp(slug))
            .ok()
            .map(ProviderIx)
    }

    pub fn provider(&self, slug: &Slug) -> Option<&Provider> {
        self.provider_ix(slug).map(|p| &self.providers[p])
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

/// The archive's order: newest first; ties broken by provider, slug and file, so the order
/// never depends on threads.
fn newest_first(a: &Incident, b: &Incident) -> std::cmp::Ordering {
    b.started
        .cmp(&a.started)
        .then_with(|| a.provider.cmp(&b.provider))
        .then_with(|| a.slug.cmp(&b.slug))
        .then_with(|| a.file.cmp(&b.file))
}

/// By incident: its provider, and its position in the provider's list.
fn places(providers: &[Provider], len: usize) -> Vec<(ProviderIx, usize)> {
    let mut places = vec![(ProviderIx(0), 0); len];
    for (p, provider) in ProviderIx::all(providers.len()).zip(providers) {
        for (position, &i) in provider.incidents.iter().enumerate() {
            places[i.0] = (p, position);
        }
    }
    places
}

impl Provider {
    /// The provider `slug` with its incidents `list` (newest first), counted as `reach` says.
    fn of(
        incidents: &[Arc<Incident>],
        slug: Slug,
        list: Vec<IncidentIx>,
        info: ProviderInfo,
        reach: Reach,
    ) -> Provider {
        let name = info
            .name
            .clone()
            .or_else(|| {
                list.iter()
                    .find_map(|&i| incidents[i].provider_name.clone())
            })
            .unwrap_or_else(|| slug.to_string());
        let mut years: Vec<i32> = list.iter().map(|&i| incidents[i].started.year()).collect();
        years.dedup();
        let coverage = coverage(incidents, &list, &info, reach);
        let (components, parts) = components(incidents, &list, reach, coverage);
        let parts = Parts {
            named: &parts,
            count: components.len(),
        };
        Provider {
            stats: Stats::of(incidents, &list, reach, coverage, Some(parts)),
            communication: numbers::Communication::of(list.iter().map(|&i| &*incidents[i])),
            components,
            slug,
            name,
            info,
            incidents: list,
            years,
        }
    }

    /// This provider with the same incidents, now at the positions `to` gives and listed in
    /// `list`; `None` if one has no position.
    fn moved(
        &self,
        to: &(impl Fn(IncidentIx) -> Option<IncidentIx> + Sync),
        list: Vec<IncidentIx>,
    ) -> Option<Provider> {
        let components = self
            .components
            .iter()
            .map(|c| {
                Some(Component {
                    slug: c.slug.clone(),
                    name: c.name.clone(),
                    incidents: c.incidents.iter().map(|&i| to(i)).collect::<Option<_>>()?,
                    stats: c.stats.moved(to)?,
                })
            })
            .collect::<Option<_>>()?;
        Some(Provider {
            slug: self.slug.clone(),
            name: self.name.clone(),
            info: self.info.clone(),
            incidents: list,
            stats: self.stats.moved(to)?,
            communication: self.communication.clone(),
            years: self.years.clone(),
            components,
        })
    }
}

/// Every day of the years `span` shows that some incident touches, with its incidents by
/// start time. Work is the sum of the incidents' lengths in days (ten years at most each),
/// never the archive squared.
fn days(incidents: &[Arc<Incident>], span: &[i32]) -> Vec<Day> {
    use rayon::prelude::*;
    let mut touched: Vec<(NaiveDate, IncidentIx)> = IncidentIx::all(incidents.len())
        .zip(incidents)
        .flat_map(|(index, incident)| {
            let (first, last) = numbers::days(incident);
            first
                .iter_days()
                .take_while(move |d| *d <= last)
                .filter(|d| shown(span, d.year()))
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

/// The time the archive has records of a provider for, as [`Stats::coverage`] says.
fn coverage(
    incidents: &[Arc<Incident>],
    list: &[IncidentIx],
    info: &ProviderInfo,
    reach: Reach,
) -> Option<(Timestamp, Timestamp)> {
    let first = list.last().map(|&i| incidents[i].started)?;
    let last = list.iter().map(|&i| numbers::end(&incidents[i])).max()?;
    let from = info.since.map_or(first, |since| since.min(first));
    let to = match (info.is_synced(), info.until) {
        (_, Some(until)) => until.max(last),
        (true, None) => reach.through.unwrap_or(last).max(last),
        (false, None) => last,
    };
    Some((from, to))
}

/// The components each incident of a provider names, for [`numbers::merge_parts`].
#[derive(Clone, Copy)]
struct Parts<'a> {
    /// By position in the provider's list: the components it names, by position.
    named: &'a [Vec<usize>],
    count: usize,
}

/// A provider's components, by slug (names that make one slug are one component), and
/// by position in `list` the components each incident names.
fn components(
    incidents: &[Arc<Incident>],
    list: &[IncidentIx],
    reach: Reach,
    coverage: Option<(Timestamp, Timestamp)>,
) -> (Vec<Component>, Vec<Vec<usize>>) {
    let mut by_slug: BTreeMap<Slug, (String, Vec<IncidentIx>)> = BTreeMap::new();
    let slugs: Vec<Vec<(Slug, &String)>> = list
        .iter()
        .map(|&index| {
            // Each slug once, under its first name: linear however many it names.
            let mut seen: HashSet<Slug> = HashSet::default();
            incidents[index]
                .components
                .iter()
                .map(|name| (Slug::of_component(name), name))
                .filter(|(slug, _)| seen.insert(slug.clone()))
                .collect()
        })
        .collect();
    // Oldest first, so the first name seen is the oldest incident's.
    for (&index, slugs) in list.iter().zip(&slugs).rev() {
        for (slug, name) in slugs {
            by_slug
                .entry(slug.clone())
                .or_insert_with(|| (name.to_string(), Vec::new()))
                .1
                .push(index);
        }
    }
    let positions: BTreeMap<&Slug, usize> = by_slug.keys().zip(0..).collect();
    let named = slugs
        .iter()
        .map(|slugs| {
            slugs
                .iter()
                .filter_map(|(slug, _)| positions.get(slug).copied())
                .collect()
        })
        .collect();
    let components = by_slug
        .iter()
        .map(|(slug, (name, members))| {
            let members: Vec<IncidentIx> = members.iter().rev().copied().collect();
            Component {
                stats: Stats::of(incidents, &members, reach, coverage, None),
                slug: slug.clone(),
                name: name.clone(),
                incidents: members,
            }
        })
        .collect();
    (components, named)
}

impl Stats {
    /// These numbers, with the incidents they name at the positions `to` gives.
    fn moved(&self, to: &impl Fn(IncidentIx) -> Option<IncidentIx>) -> Option<Stats> {
        let at = |index: Option<IncidentIx>| match index {
            Some(i) => to(i).map(Some),
            None => Some(None),
        };
        let all = |list: &[IncidentIx]| list.iter().map(|&i| to(i)).collect::<Option<_>>();
        Some(Stats {
            longest: at(self.longest)?,
            longest_12_months: at(self.longest_12_months)?,
            last: at(self.last)?,
            ongoing: all(&self.ongoing)?,
            stale: all(&self.stale)?,
            ..self.clone()
        })
    }

    /// The record of `list` (newest first) as `reach` says, over `coverage`. A provider
    /// gives its `parts` (its uptime is theirs, and it is counted month by month too); a
    /// component gives none, and is its own one part.
    fn of(
        incidents: &[Arc<Incident>],
        list: &[IncidentIx],
        reach: Reach,
        coverage: Option<(Timestamp, Timestamp)>,
        parts: Option<Parts>,
    ) -> Stats {
        let all = || list.iter().map(|&i| &*incidents[i]);
        let any = numbers::merge(all());
        let by_parts = parts.map(|parts| {
            let named = list
                .iter()
                .zip(parts.named)
                .map(|(&i, named)| (&*incidents[i], named.as_slice()));
            numbers::merge_parts(named, parts.count)
        });
        let scope = Scope {
            coverage,
            any: &any,
            parts: by_parts.as_deref().unwrap_or(&any),
        };
        let end = reach.through.unwrap_or(Timestamp::UNIX_EPOCH);
        let first_year = list
            .last()
            .map_or(end.year(), |&i| incidents[i].started.year());
        let year_start = |y: i32| numbers::month_start(y, 1).unwrap_or(end).min(end);
        let started_in = |from: Timestamp, to: Timestamp| {
            // Newest first: those started in [from, to) are one run of the list; a period
            // that ends at the archive's end holds what started at that very instant too.
            let newer = if to >= end {
                list.partition_point(|&i| incidents[i].started > to)
            } else {
                list.partition_point(|&i| incidents[i].started >= to)
            };
            let older = list.partition_point(|&i| incidents[i].started >= from);
            &list[newer..older.max(newer)]
        };
        let period = |from: Timestamp, to: Timestamp| {
            let started = started_in(from, to).iter().map(|&i| &*incidents[i]);
            Period::of(from, to, started, &scope)
        };
        // The span's years from this list's first to the archive's last, newest first.
        let shown: Vec<i32> = reach
            .years
            .iter()
            .copied()
            .filter(|y| (first_year..=end.year()).contains(y))
            .collect();
        let years = shown
            .iter()
            .map(|&y| (y, period(year_start(y), year_start(y.saturating_add(1)))))
            .collect();
        let mut month_list = Vec::new();
        if parts.is_some() && !list.is_empty() {
            let last = numbers::month_of(end);
            let start = |(y, m): (i32, u32)| numbers::month_start(y, m).unwrap_or(end).min(end);
            let each = shown
                .iter()
                .rev()
                .flat_map(|&y| (1..=12).map(move |m| (y, m)));
            for month in each.take_while(|&month| month <= last) {
                let period = period(start(month), start(numbers::next_month(month.0, month.1)));
                // Months before the first incident are left out.
                if !month_list.is_empty() || period.incidents > 0 {
                    month_list.push((month, period));
                }
            }
        }
        let twelve = end
            .checked_sub_months(chrono::Months::new(12))
            .unwrap_or(end);
        let outage = |i: &IncidentIx| incidents[*i].impact != Impact::Maintenance;
        let longest = |among: &[IncidentIx]| {
            among
                .iter()
                .filter(|&&i| matches!(incidents[i].impact, Impact::Critical | Impact::Major))
                .filter_map(|&i| numbers::recorded_duration(&incidents[i]).map(|d| (d, i)))
                // The longest; among equals, the newest.
                .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
                .map(|(_, i)| i)
        };
        let (stale, ongoing): (Vec<IncidentIx>, Vec<IncidentIx>) = list
            .iter()
            .copied()
            .filter(|&i| incidents[i].is_ongoing() && outage(&i))
            .partition(|&i| reach.is_stale(&incidents[i]));
        Stats {
            coverage,
            all_time: period(year_start(first_year), end),
            last_12_months: period(twelve, end),
            last_90_days: period(numbers::midnight(numbers::recent_days(end).0).min(end), end),
            years,
            months: month_list,
            ongoing,
            stale,
            longest: longest(list),
            longest_12_months: longest(started_in(twelve, end)),
            last: list.iter().copied().find(outage),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Impact;

    /// An incident of provider `p{provider}` from file `n`: day, hour, hours long (or
    /// ongoing), impact, components (bits) and slug.
    type Spec = (usize, u32, u32, Option<u32>, usize, u8, u8);

    fn incident(
        file: usize,
        (provider, day, hour, hours, impact, parts, slug): Spec,
    ) -> Arc<Incident> {
        let started = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap()
            + chrono::TimeDelta::days(day.into())
            + chrono::TimeDelta::hours(hour.into());
        let names = ["API", "Web", "Database"];
        Arc::new(Incident {
            file: format!("content/p{provider}/{file}.md").into(),
            title: format!("incident {file}"),
            provider_name: file.is_multiple_of(3).then(|| format!("Provider {file}")),
            resolved: hours.map(|h| started + chrono::TimeDelta::hours(h.into())),
            impact: Impact::ALL[impact],
            components: (0..3)
                .filter(|bit| parts & (1 << bit) != 0)
                .map(|bit| names[bit].to_string())
                .collect(),
            ..Incident::bare(&format!("p{provider}"), &format!("s{slug}"), started)
        })
    }

    fn spec() -> impl proptest::strategy::Strategy<Value = Spec> {
        (
            0usize..4,
            0u32..800,
            0u32..24,
            proptest::option::weighted(0.9, 0u32..200),
            0usize..Impact::ALL.len(),
            0u8..8,
            0u8..6,
        )
    }

    fn assembled(incidents: &[Arc<Incident>], described: &[bool]) -> Archive {
        let providers = (0..4)
            .filter(|&p| described[p])
            .map(|p| {
                (
                    Slug::parse(&format!("p{p}")).unwrap(),
                    ProviderInfo::default(),
                )
            })
            .collect();
        Archive::assemble(
            Content {
                incidents: incidents.to_vec(),
                providers,
            },
            Rules {
                stale_after: Duration::from_days(30),
            },
        )
    }

    proptest::proptest! {
        /// Amending an archive gives what assembling the changed files does, the same
        /// incidents by pointer (what the views compare), and declines only when its
        /// providers would change. With an anchor (a latest incident no change reaches), the
        /// archive's latest update holds, and the providers a change misses keep their
        /// numbers, moved; without, a change often moves it and everything is counted again.
        #[test]
        fn an_amended_archive_is_the_assembled_one(
            before in proptest::collection::vec(spec(), 0..40),
            described in proptest::collection::vec(proptest::bool::ANY, 4),
            fates in proptest::collection::vec(0u8..8, 0..40),
            edits in proptest::collection::vec(spec(), 40),
            added in proptest::collection::vec(spec(), 0..4),
            anchored in proptest::bool::ANY,
        ) {
            let mut old: Vec<Arc<Incident>> =
                before.iter().enumerate().map(|(n, &s)| incident(n, s)).collect();
            if anchored {
                old.push(incident(1000, (0, 5000, 0, Some(1), 0, 1, 0)));
            }
            let archive = assembled(&old, &described);
            // Each file deleted (fate 0), edited (1) or kept, then new files.
            let mut gone = Vec::new();
            let mut now = Vec::new();
            let mut new = Vec::new();
            for (n, incident) in old.iter().enumerate() {
                match fates.get(n).filter(|_| n < before.len()) {
                    Some(0) => gone.push(Arc::clone(incident)),
                    Some(1) => {
                        gone.push(Arc::clone(incident));
                        new.push(self::incident(n, edits[n]));
                    }
                    _ => now.push(Arc::clone(incident)),
                }
            }
            new.extend(added.iter().enumerate().map(|(n, &s)| incident(2000 + n, s)));
            now.extend(new.iter().cloned());
            let expected = assembled(&now, &described);
            let slugs = |a: &Archive| a.providers.iter().map(|p| p.slug.clone()).collect::<Vec<_>>();
            let emptied = archive.providers.iter().any(|p| {
                !p.incidents.is_empty()
                    && expected.provider(&p.slug).is_none_or(|q| q.incidents.is_empty())
            });
            let amended = archive.amend(&gone, new);
            proptest::prop_assert_eq!(amended.is_some(), slugs(&archive) == slugs(&expected) && !emptied);
            if let Some(amended) = amended {
                let shared: HashSet<*const Incident> = now.iter().map(Arc::as_ptr).collect();
                proptest::prop_assert!(amended.incidents.iter().all(|i| shared.contains(&Arc::as_ptr(i))));
                proptest::prop_assert_eq!(amended, expected);
            }
        }
    }
}
