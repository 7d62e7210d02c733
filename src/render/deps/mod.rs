//! The one place that decides incremental work: what a page reads ([`Reads`], declared
//! by its kind), what changed between two states of a site ([`changed`], a pure function
//! of two [`Snapshot`]s), and whether a page meets the change ([`ChangeSet::meets`]).
//! `serve` and a build from the cache both go through it: the cache gives back the site it
//! saw, as `serve` keeps the one it built, and the same function compares it with the
//! files as they are now.

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{Datelike, NaiveDate};
use foldhash::{HashMap, HashSet};

use crate::archive::{
    Archive, ByImpact, ComponentIx, IncidentIx, ListOf, Provider, ProviderIx, Split,
};
use crate::model::{Impact, Incident, ProviderInfo, Slug, Timestamp};
use crate::numbers;
use crate::render::views::{IncidentViews, Views};

/// What a page is made from, besides `site.yaml`, which any page may read (a change to it
/// rebuilds the whole site). Declared once per kind, in [`Kind::reads`](super::kinds::Kind::reads): a
/// build from the cache and `serve` render a page again when, and only when, one of its
/// inputs is in the [`ChangeSet`], and the randomized oracle test holds every kind to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    /// The theme's templates, and the names of its assets, which pages link.
    pub templates: bool,
    /// The bytes of the theme's and the site's static files.
    pub assets: bool,
    /// One incident: its facts, its text and its provider's name.
    pub incident: Option<IncidentIx>,
    /// One provider: its `_index.md`, its incidents and components, and the archive's
    /// latest update, where its statistics end.
    pub provider: Option<ProviderIx>,
    /// A part of one provider as its lists and numbers show it: the incidents of the part
    /// as a list shows them (with their components and latest update), the provider's name,
    /// `_index.md` and count of incidents by year, and the archive's latest update. Not the
    /// text of their updates: an edit of that leaves these pages alone.
    pub provider_part: Option<(ProviderIx, Part)>,
    /// The incidents at these positions (`start..end`) of one provider's list, as a list
    /// shows them: an incident's neighbours.
    pub provider_list: Option<(ProviderIx, usize, usize)>,
    /// Every incident active on these UTC days (first and last included), as a list shows
    /// them, with its components.
    pub days: Option<(NaiveDate, NaiveDate)>,
    /// The whole archive: every incident and provider, and their order.
    pub archive: bool,
    /// The incidents at these positions (`start..end`) of the list of every incident, as a
    /// list shows them (title, times, impact, provider, duration; not the text of their
    /// updates), and the list's length and years.
    pub list: Option<(usize, usize)>,
    /// The incidents at these positions (`start..end`) of the list of every incident, in
    /// full: the text of their updates too.
    pub texts: Option<(usize, usize)>,
    /// The incidents at these positions (`start..end`) of the list of those of one impact,
    /// every incident's or a provider's, as a list shows them.
    pub impact_list: Option<(ListOf, Impact, usize, usize)>,
    /// How many incidents of each impact a list has, every incident's or a provider's.
    pub impact_counts: Option<ListOf>,
    /// How one provider told of its outages (the times of their updates, which have a
    /// postmortem): its [`Communication`](numbers::Communication).
    pub communication: Option<ProviderIx>,
    /// Which pages the site has: the path of every one.
    pub pages: bool,
}

impl Reads {
    /// Nothing but `site.yaml`: what each kind adds its inputs to.
    pub(crate) const NOTHING: Reads = Reads {
        templates: false,
        assets: false,
        incident: None,
        provider: None,
        provider_part: None,
        provider_list: None,
        days: None,
        archive: false,
        list: None,
        texts: None,
        impact_list: None,
        impact_counts: None,
        communication: None,
        pages: false,
    };
}

/// Which incidents of a provider a page of its lists and numbers shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Any of them (its page, its numbers).
    All,
    /// Those that touch a year.
    Year(i32),
    /// Those of a component.
    Component(ComponentIx),
}

/// A site's content at one moment, as pages show it: what [`changed`] compares.
#[derive(Clone, Copy)]
pub(crate) struct Snapshot<'a> {
    pub(crate) archive: &'a Archive,
    pub(crate) views: &'a Views,
}

/// What a change touched, so that only the pages reading it are rendered again: the
/// content's share from [`changed`], the theme's and the plan's added by whoever saw them
/// change.
#[derive(Default)]
pub(crate) struct ChangeSet {
    content: bool,
    /// By position in the list of every incident: whether what a list shows there changed.
    list: Vec<bool>,
    /// The list's length, or the year at some position, changed.
    list_shape: bool,
    templates: bool,
    assets: bool,
    /// The plan changed: a page came or went.
    pages: bool,
    fresh: Vec<bool>,
    /// By provider index in the new archive: its list, its description or one of its
    /// incidents changed, or the archive's latest update moved.
    providers: Vec<bool>,
    /// By provider index in the new archive, by position in its list: whether what the
    /// list shows there changed.
    provider_lists: Vec<Vec<bool>>,
    /// By provider index in the new archive: which parts of what its lists and numbers show
    /// changed.
    provider_parts: Vec<Parts>,
    /// The UTC days on which an incident was added, removed or changed.
    days: BTreeSet<NaiveDate>,
    /// The lists of one impact: every incident's.
    impact_lists: ImpactChanges,
    /// By provider index in the new archive: its lists of one impact.
    provider_impact_lists: Vec<ImpactChanges>,
    /// By provider index in the new archive: whether how it told of its outages changed.
    communication: Vec<bool>,
}

/// What changed in a list split by impact.
#[derive(Default)]
struct ImpactChanges {
    /// By impact, by position in its list: whether what the list shows there changed.
    positions: ByImpact<Vec<bool>>,
    /// How many incidents an impact has.
    counts: bool,
}

impl ImpactChanges {
    fn of(before: (&IncidentViews, &Split), after: (&IncidentViews, &Split)) -> ImpactChanges {
        let ((old_views, old), (views, new)) = (before, after);
        ImpactChanges {
            positions: ByImpact::from_fn(|impact| {
                let (old, new) = (old.get(impact), new.get(impact));
                changed_positions(
                    (old_views, old.iter().copied()),
                    (views, new.iter().copied()),
                )
            }),
            counts: old.counts() != new.counts(),
        }
    }
}

/// What a content change touched, from the site before it and after it: a pure function
/// of the two snapshots.
pub(crate) fn changed(before: Snapshot, after: Snapshot) -> ChangeSet {
    let (old, new) = (before.archive, after.archive);
    // The archive's latest update, or its years, moved: every period ends elsewhere.
    let moved = old.through != new.through || old.years != new.years;
    let (days, parts) = touched(before, after);
    ChangeSet {
        content: true,
        // A list changes where an incident is added, removed, moved or shows differently;
        // an edit of an update's text leaves it as it is.
        list: changed_positions(
            (
                &before.views.incidents,
                IncidentIx::all(old.incidents.len()),
            ),
            (&after.views.incidents, IncidentIx::all(new.incidents.len())),
        ),
        list_shape: old.incidents.len() != new.incidents.len()
            || (old.incidents.iter().zip(&new.incidents))
                .any(|(old, new)| old.started.year() != new.started.year()),
        templates: false,
        assets: false,
        pages: false,
        fresh: after.views.fresh.clone(),
        providers: providers_changed(before, after, moved),
        provider_lists: provider_lists(before, after),
        provider_parts: provider_parts(old, new, moved, parts),
        days,
        impact_lists: ImpactChanges::of(
            (&before.views.incidents, &old.lists.all),
            (&after.views.incidents, &new.lists.all),
        ),
        provider_impact_lists: provider_impact_lists(before, after),
        communication: communication_changed(old, new),
    }
}

/// By provider of the new archive: whether its [`numbers::Communication`] changed.
fn communication_changed(old: &Archive, new: &Archive) -> Vec<bool> {
    let before: HashMap<&str, &numbers::Communication> = (old.providers.iter())
        .map(|p| (p.slug.as_str(), &p.communication))
        .collect();
    (new.providers.iter())
        .map(|p| before.get(p.slug.as_str()) != Some(&&p.communication))
        .collect()
}

/// By provider of the new archive: what changed in its lists of one impact.
fn provider_impact_lists(before: Snapshot, after: Snapshot) -> Vec<ImpactChanges> {
    let empty = Split::default();
    let old: HashMap<&str, &Split> = (before.archive.providers.iter())
        .zip(&before.archive.lists.providers)
        .map(|(p, split)| (p.slug.as_str(), split))
        .collect();
    (after.archive.providers.iter())
        .zip(&after.archive.lists.providers)
        .map(|(p, split)| {
            let old = old.get(p.slug.as_str()).copied().unwrap_or(&empty);
            ImpactChanges::of(
                (&before.views.incidents, old),
                (&after.views.incidents, split),
            )
        })
        .collect()
}

/// By provider of the new archive: whether its list, its description, its name or one of
/// its incidents changed, or every period moved.
fn providers_changed(before: Snapshot, after: Snapshot, moved: bool) -> Vec<bool> {
    let list = |archive: &Archive, indices: &[IncidentIx]| -> Vec<*const Incident> {
        indices
            .iter()
            .map(|&i| Arc::as_ptr(&archive.incidents[i]))
            .collect()
    };
    let old: HashMap<&str, (&ProviderInfo, &str, Vec<*const Incident>)> = (before.archive)
        .providers
        .iter()
        .map(|p| {
            let incidents = list(before.archive, &p.incidents);
            (p.slug.as_str(), (&p.info, p.name.as_str(), incidents))
        })
        .collect();
    (after.archive.providers.iter())
        .map(|p| {
            moved
                || p.incidents.iter().any(|&i| after.views.fresh[i])
                || old
                    .get(p.slug.as_str())
                    .is_none_or(|(info, name, incidents)| {
                        **info != p.info
                            || *name != p.name
                            || *incidents != list(after.archive, &p.incidents)
                    })
        })
        .collect()
}

/// By provider of the new archive, by position in its list: whether a list shows
/// something else there.
fn provider_lists(before: Snapshot, after: Snapshot) -> Vec<Vec<bool>> {
    let old_lists: HashMap<&str, &[IncidentIx]> = (before.archive.providers.iter())
        .map(|p| (p.slug.as_str(), p.incidents.as_slice()))
        .collect();
    (after.archive.providers.iter())
        .map(|p| {
            let old = old_lists.get(p.slug.as_str()).copied().unwrap_or_default();
            changed_positions(
                (&before.views.incidents, old.iter().copied()),
                (&after.views.incidents, p.incidents.iter().copied()),
            )
        })
        .collect()
}

/// The days, and by provider slug the years and components, of every incident that went,
/// came or shows differently, before and after: new text in an update touches none.
fn touched<'a>(
    before: Snapshot<'a>,
    after: Snapshot<'a>,
) -> (BTreeSet<NaiveDate>, HashMap<&'a str, Parts>) {
    let (old, new) = (before.archive, after.archive);
    let kept: HashSet<*const Incident> = new.incidents.iter().map(Arc::as_ptr).collect();
    let old_by_key: HashMap<(&str, &str), IncidentIx> = old
        .incidents()
        .map(|(n, i)| ((i.provider.as_str(), i.slug.as_str()), n))
        .collect();
    let mut same = HashSet::default();
    let mut days = BTreeSet::new();
    let mut parts: HashMap<&str, Parts> = HashMap::default();
    let mut add = |incident: &'a Incident| {
        let (first, last) = numbers::days(incident);
        days.extend(first.iter_days().take_while(|d| *d <= last));
        let part = parts.entry(incident.provider.as_str()).or_default();
        // Every year it counts in, to its end: it lists itself on ten years of days at
        // most, but its downtime counts in full.
        let end = numbers::end(incident).year();
        let counted = first.year()..=last.year().max(end);
        part.years
            .extend(new.years.iter().filter(|y| counted.contains(y)));
        part.components.extend(
            incident
                .components
                .iter()
                .map(|name| Slug::of_component(name)),
        );
    };
    for ((n, incident), &fresh) in new.incidents().zip(&after.views.fresh) {
        if !fresh {
            continue;
        }
        match old_by_key.get(&(incident.provider.as_str(), incident.slug.as_str())) {
            Some(&o)
                if !(after.views.incidents).shows_differently(n, &before.views.incidents, o)
                    && numbers::days(&old.incidents[o]) == numbers::days(incident) =>
            {
                same.insert(o);
            }
            _ => add(incident),
        }
    }
    for (o, incident) in old.incidents() {
        if !kept.contains(&Arc::as_ptr(incident)) && !same.contains(&o) {
            add(incident);
        }
    }
    (days, parts)
}

/// By provider of the new archive: which parts of what its lists and numbers show
/// changed, from those its touched incidents name (`parts`, by slug), and the whole of it
/// when what every one of its pages counts against changed.
fn provider_parts(
    before: &Archive,
    after: &Archive,
    moved: bool,
    mut parts: HashMap<&str, Parts>,
) -> Vec<Parts> {
    let old: HashMap<&str, Shape> = (before.providers.iter())
        .map(|p| (p.slug.as_str(), Shape::of(p)))
        .collect();
    (after.providers.iter())
        .map(|p| {
            let mut part = parts.remove(p.slug.as_str()).unwrap_or_default();
            part.all = moved || old.get(p.slug.as_str()) != Some(&Shape::of(p));
            part
        })
        .collect()
}

/// What every page of a provider's lists and numbers counts against: its name,
/// `_index.md`, incidents by year, the time its records cover, how many components share
/// its uptime, and the incidents posted already resolved.
#[derive(PartialEq)]
struct Shape<'a> {
    name: &'a str,
    info: &'a ProviderInfo,
    years: Vec<(i32, usize)>,
    coverage: Option<(Timestamp, Timestamp)>,
    components: usize,
    after_the_fact: usize,
}

impl Shape<'_> {
    fn of(p: &Provider) -> Shape<'_> {
        Shape {
            name: &p.name,
            info: &p.info,
            years: (p.stats.years.iter())
                .map(|(y, period)| (*y, period.incidents))
                .collect(),
            coverage: p.stats.coverage,
            components: p.components.len(),
            after_the_fact: p.stats.all_time.after_the_fact,
        }
    }
}

impl ChangeSet {
    /// The templates changed (or an asset's name, which every page links), or the bytes of
    /// the static files.
    pub(crate) fn with_theme(self, templates: bool, assets: bool) -> ChangeSet {
        ChangeSet {
            templates: self.templates || templates,
            assets: self.assets || assets,
            ..self
        }
    }

    /// Whether the plan changed: a page came or went.
    pub(crate) fn with_plan(self, pages: bool) -> ChangeSet {
        ChangeSet {
            pages: self.pages || pages,
            ..self
        }
    }

    /// Whether a page that `reads` this (in the new `archive`) must be rendered again:
    /// whether one of its inputs changed.
    pub(crate) fn meets(&self, archive: &Archive, reads: Reads) -> bool {
        // Every input by name: one that a kind may declare but this does not weigh does
        // not compile.
        let Reads {
            templates,
            assets,
            incident,
            provider,
            provider_part,
            provider_list,
            days,
            archive: whole,
            list,
            texts,
            impact_list,
            impact_counts,
            communication,
            pages,
        } = reads;
        let within = |changed: &[bool], start: usize, end: usize| {
            changed
                .get(start..end.min(changed.len()))
                .is_some_and(|range| range.contains(&true))
        };
        (templates && self.templates)
            || (assets && self.assets)
            || (whole && self.content)
            || (pages && self.pages)
            || list.is_some_and(|(start, end)| self.list_shape || within(&self.list, start, end))
            || incident.is_some_and(|i| i.get(&self.fresh).is_some_and(|&fresh| fresh))
            || provider.is_some_and(|p| p.get(&self.providers).is_some_and(|&dirty| dirty))
            || provider_part.is_some_and(|(p, part)| {
                p.get(&self.provider_parts)
                    .is_some_and(|changed| changed.touches(archive, p, part))
            })
            || provider_list.is_some_and(|(p, start, end)| {
                p.get(&self.provider_lists)
                    .is_some_and(|list| within(list, start, end))
            })
            || days.is_some_and(|(first, last)| self.days.range(first..=last).next().is_some())
            || texts.is_some_and(|(start, end)| within(&self.fresh, start, end))
            || impact_list.is_some_and(|(of, impact, start, end)| {
                self.impact_changes(of)
                    .is_some_and(|changes| within(changes.positions.get(impact), start, end))
            })
            || impact_counts.is_some_and(|of| {
                self.impact_changes(of)
                    .is_some_and(|changes| changes.counts)
            })
            || communication.is_some_and(|p| p.get(&self.communication).is_some_and(|&c| c))
    }

    /// What changed in the lists of one impact of `of`.
    fn impact_changes(&self, of: ListOf) -> Option<&ImpactChanges> {
        match of {
            ListOf::Every => Some(&self.impact_lists),
            ListOf::Provider(p) => p.get(&self.provider_impact_lists),
        }
    }
}

/// What changed of a provider, as its lists and numbers show it.
#[derive(Default)]
struct Parts {
    /// All of it: its name, `_index.md`, counts by year, or the archive's end.
    all: bool,
    /// The years that an incident which changed touches (before or after the change).
    years: BTreeSet<i32>,
    /// The components of the incidents that changed, before and after.
    components: HashSet<Slug>,
}

impl Parts {
    /// Whether a page reading `part` of provider `p` (in the new archive) shows a change.
    fn touches(&self, archive: &Archive, p: ProviderIx, part: Part) -> bool {
        self.all
            || match part {
                Part::All => !self.years.is_empty() || !self.components.is_empty(),
                Part::Year(year) => self.years.contains(&year),
                Part::Component(c) => c
                    .get(&archive.providers[p].components)
                    .is_none_or(|component| self.components.contains(&component.slug)),
            }
    }
}

/// By position, whether a list shows something else there: an incident added, removed,
/// moved or shown differently, its components or its latest update changed (an edit of an
/// update's text changes nothing). As long as the longer list, so a position that emptied
/// counts too.
fn changed_positions(
    (old_views, before): (&IncidentViews, impl ExactSizeIterator<Item = IncidentIx>),
    (views, after): (&IncidentViews, impl ExactSizeIterator<Item = IncidentIx>),
) -> Vec<bool> {
    let length = before.len().max(after.len());
    let mut before = before.map(Some).chain(std::iter::repeat(None));
    let mut after = after.map(Some).chain(std::iter::repeat(None));
    (0..length)
        .map(
            |_| match (before.next().flatten(), after.next().flatten()) {
                (Some(o), Some(n)) => views.shows_differently(n, old_views, o),
                _ => true,
            },
        )
        .collect()
}

#[cfg(test)]
mod tests;
