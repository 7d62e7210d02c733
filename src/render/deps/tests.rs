//! `changed` over small archives: each kind of edit meets the inputs it should, and no
//! other.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, TimeDelta};

use super::*;
use crate::archive::Rules;
use crate::config::BaseUrl;
use crate::content::Content;
use crate::model::{Duration, Impact, Update};

/// Incident `n` of provider `provider`, started `day` days after a fixed date, an hour
/// long, naming `component`.
fn incident(provider: &str, n: u32, day: i64, component: &str) -> Arc<Incident> {
    let started = DateTime::from_timestamp(1_700_000_000, 0).unwrap() + TimeDelta::days(day);
    Arc::new(Incident {
        resolved: Some(started + TimeDelta::hours(1)),
        components: vec![component.to_string()],
        updates: vec![Update::of("2023-11-14T22:13:20Z", "resolved", "Fixed.")],
        ..Incident::bare(provider, &format!("i{n}"), started)
    })
}

/// The archive of `incidents` and its views, made from the `previous` views as a rebuild
/// makes them (an unchanged incident keeps its view).
fn site(incidents: &[Arc<Incident>], previous: Option<&Views>) -> (Archive, Views) {
    let content = Content {
        incidents: incidents.to_vec(),
        providers: Vec::new(),
    };
    let rules = Rules {
        stale_after: Duration::from_days(30),
    };
    let archive = Archive::assemble(content, rules);
    let base = BaseUrl::parse("https://example.com/").unwrap();
    let views = Views::new(&archive, &base, previous);
    (archive, views)
}

/// Four incidents: `a` on days 0, 400 (the next year) and 800, `b` on day 401.
fn before() -> Vec<Arc<Incident>> {
    vec![
        incident("a", 1, 0, "API"),
        incident("a", 2, 400, "Web"),
        incident("a", 3, 800, "API"),
        incident("b", 4, 401, "API"),
    ]
}

/// The change set of going from `old` to `new` incidents, with what meets it in the new
/// archive.
fn change(old: &[Arc<Incident>], new: &[Arc<Incident>]) -> (ChangeSet, Archive) {
    let (old_archive, old_views) = site(old, None);
    let (archive, views) = site(new, Some(&old_views));
    let set = changed(
        Snapshot {
            archive: &old_archive,
            views: &old_views,
        },
        Snapshot {
            archive: &archive,
            views: &views,
        },
    );
    (set, archive)
}

/// What a page reading only `reads` (a field or two over nothing) says of the change.
fn meets(set: &ChangeSet, archive: &Archive, reads: Reads) -> bool {
    set.meets(archive, reads)
}

fn provider(archive: &Archive, slug: &str) -> ProviderIx {
    let p = archive.provider(&Slug::parse(slug).unwrap()).unwrap();
    ProviderIx::all(archive.providers.len())
        .find(|&i| std::ptr::eq(&archive.providers[i], p))
        .unwrap()
}

fn incident_ix(archive: &Archive, slug: &str) -> IncidentIx {
    archive
        .incidents()
        .find(|(_, i)| i.slug.as_str() == slug)
        .map(|(ix, _)| ix)
        .unwrap()
}

fn component(archive: &Archive, p: ProviderIx, name: &str) -> Part {
    let components = &archive.providers[p].components;
    let c = ComponentIx::all(components.len())
        .find(|&c| components[c].name == name)
        .unwrap();
    Part::Component(c)
}

fn day(archive: &Archive, slug: &str) -> (NaiveDate, NaiveDate) {
    numbers::days(&archive.incidents[incident_ix(archive, slug)])
}

/// A page that reads only what is given, besides `site.yaml`.
macro_rules! reads {
    ($($field:ident: $value:expr),*) => {
        Reads { $($field: $value,)* ..Reads::NOTHING }
    };
}

#[test]
fn nothing_changed_meets_only_the_pages_of_the_whole_archive() {
    let old = before();
    let (set, archive) = change(&old, &old);
    let a = provider(&archive, "a");
    let i = incident_ix(&archive, "i2");
    for reads in [
        reads!(incident: Some(i)),
        reads!(provider: Some(a)),
        reads!(provider_part: Some((a, Part::All))),
        reads!(provider_list: Some((a, 0, 3))),
        reads!(days: Some((NaiveDate::MIN, NaiveDate::MAX))),
        reads!(list: Some((0, 100))),
        reads!(templates: true, assets: true, pages: true),
    ] {
        assert!(!meets(&set, &archive, reads), "{reads:?}");
    }
    // Content came in: what reads the whole archive is made again.
    assert!(meets(&set, &archive, reads!(archive: true)));
}

#[test]
fn new_text_in_an_update_meets_its_incident_and_its_providers_feeds_only() {
    let old = before();
    let mut new = old.clone();
    let mut edited = (*new[1]).clone();
    edited.updates[0].body = "Fixed, and here is why.".into();
    new[1] = Arc::new(edited);
    let (set, archive) = change(&old, &new);
    let (a, b) = (provider(&archive, "a"), provider(&archive, "b"));
    let i = incident_ix(&archive, "i2");
    assert!(meets(&set, &archive, reads!(incident: Some(i))));
    assert!(!meets(
        &set,
        &archive,
        reads!(incident: Some(incident_ix(&archive, "i1")))
    ));
    // A provider's feeds carry the text; its pages, lists and numbers do not.
    assert!(meets(&set, &archive, reads!(provider: Some(a))));
    assert!(!meets(&set, &archive, reads!(provider: Some(b))));
    for reads in [
        reads!(provider_part: Some((a, Part::All))),
        reads!(provider_list: Some((a, 0, 3))),
        reads!(days: Some(day(&archive, "i2"))),
        reads!(list: Some((0, 100))),
    ] {
        assert!(!meets(&set, &archive, reads), "{reads:?}");
    }
}

#[test]
fn a_new_impact_meets_the_lists_days_year_and_component_that_show_it() {
    let old = before();
    let mut new = old.clone();
    new[1] = Arc::new(Incident {
        impact: Impact::Major,
        ..(*new[1]).clone()
    });
    let (set, archive) = change(&old, &new);
    let (a, b) = (provider(&archive, "a"), provider(&archive, "b"));
    let i = incident_ix(&archive, "i2");
    let year = archive.incidents[i].started.year();
    let position = |i: IncidentIx| archive.incidents().position(|(x, _)| x == i).unwrap();
    let at = position(i);
    let shown = [
        reads!(incident: Some(i)),
        reads!(provider_part: Some((a, Part::All))),
        reads!(provider_part: Some((a, Part::Year(year)))),
        reads!(provider_part: Some((a, component(&archive, a, "Web")))),
        reads!(provider_list: Some((a, 1, 2))),
        reads!(days: Some(day(&archive, "i2"))),
        reads!(list: Some((at, at + 1))),
    ];
    for reads in shown {
        assert!(meets(&set, &archive, reads), "{reads:?}");
    }
    let elsewhere = [
        reads!(provider_part: Some((a, Part::Year(year - 1)))),
        reads!(provider_part: Some((a, component(&archive, a, "API")))),
        reads!(provider_part: Some((b, Part::All))),
        reads!(provider_list: Some((a, 0, 1))),
        reads!(days: Some(day(&archive, "i1"))),
        reads!(list: Some((at + 1, 100))),
    ];
    for reads in elsewhere {
        assert!(!meets(&set, &archive, reads), "{reads:?}");
    }
}

#[test]
fn a_new_incident_meets_every_list_and_its_providers_whole() {
    let old = before();
    let mut new = old.clone();
    new.push(incident("b", 5, 100, "Web"));
    let (set, archive) = change(&old, &new);
    let (a, b) = (provider(&archive, "a"), provider(&archive, "b"));
    // The list of every incident is longer: each of its pages counts it.
    assert!(meets(&set, &archive, reads!(list: Some((0, 1)))));
    assert!(meets(
        &set,
        &archive,
        reads!(provider_part: Some((b, Part::All)))
    ));
    assert!(meets(
        &set,
        &archive,
        reads!(days: Some(day(&archive, "i5")))
    ));
    // Another provider's pages stay as they are.
    assert!(!meets(
        &set,
        &archive,
        reads!(provider_part: Some((a, Part::All)))
    ));
    assert!(!meets(&set, &archive, reads!(provider: Some(a))));
}

#[test]
fn the_theme_and_the_plan_meet_the_pages_that_read_them() {
    let old = before();
    let (_, archive) = change(&old, &old);
    let templates = ChangeSet::default().with_theme(true, false);
    let assets = ChangeSet::default().with_theme(false, true);
    let plan = ChangeSet::default().with_plan(true);
    let reads =
        |templates, assets, pages| reads!(templates: templates, assets: assets, pages: pages);
    assert!(templates.meets(&archive, reads(true, false, false)));
    assert!(!templates.meets(&archive, reads(false, true, true)));
    assert!(assets.meets(&archive, reads(false, true, false)));
    assert!(!assets.meets(&archive, reads(true, false, true)));
    assert!(plan.meets(&archive, reads(false, false, true)));
    assert!(!plan.meets(&archive, reads(true, true, false)));
    // No content came in: nothing that reads it is met.
    assert!(!plan.meets(&archive, reads!(archive: true)));
}
