//! Each kind's keys: what a page of each kind reads names what its key names.

use std::collections::BTreeSet;

use super::*;
use crate::archive::ListOf;
use crate::site::{Options, Site};

/// Every page of the sample site, matched by a `match` that names every kind: a new kind
/// does not compile until it says here what its pages read.
#[test]
fn each_kinds_pages_read_what_their_keys_name() {
    let mut options = Options::new(env!("CARGO_MANIFEST_DIR"));
    options.hash_assets = false;
    let site = Site::load(&options).expect("the sample site loads");
    let archive = &site.archive;
    let mut seen = BTreeSet::new();
    for page in &site.pages {
        let reads = page.reads(archive);
        let name = format!("{:?}", page.what);
        seen.insert(name.split('(').next().unwrap_or_default().to_string());
        let provider_part = |p, part| {
            Reads {
                provider_part: Some((p, part)),
                ..reads
            } == reads
        };
        let fine = match page.what {
            What::Home(())
            | What::DaysIndex(())
            | What::ApiPage(())
            | What::Compare(_)
            | What::Badges(())
            | What::DataPage(()) => reads == TEMPLATED_ARCHIVE,
            What::NotFound(()) | What::Search(()) => reads == TEMPLATED,
            What::Cname(())
            | What::Robots(())
            | What::NoJekyll(())
            | What::DataIncidentSchema(())
            | What::DataUpdateSchema(()) => reads == NOTHING,
            What::Data(key) => {
                // The year's run of the list of every incident; the updates' text too.
                let run = year_of(archive, key.year);
                let list = Some((run.start, run.end));
                let texts =
                    (key.file == routes::DataFile::UpdatesJsonl).then_some((run.start, run.end));
                !run.is_empty()
                    && reads
                        == Reads {
                            list,
                            texts,
                            ..NOTHING
                        }
            }
            What::ApiProviders(())
            | What::Redirects(())
            | What::LlmsTxt(())
            | What::ApiIndex(()) => reads == ARCHIVE,
            What::Sitemap(()) | What::SitemapPart(_) => reads == SITEMAP,
            What::Headers(()) => {
                reads
                    == Reads {
                        assets: true,
                        ..TEMPLATED
                    }
            }
            What::Asset(_) => {
                reads
                    == Reads {
                        assets: true,
                        ..NOTHING
                    }
            }
            What::Provider(p) => {
                reads.templates
                    && provider_part(p, Part::All)
                    && reads.provider.is_none()
                    && reads.communication == Some(p)
            }
            What::ComponentFeed((p, c)) => {
                reads
                    == Reads {
                        provider_part: Some((p, Part::Component(c))),
                        ..NOTHING
                    }
            }
            What::ComponentBadge((p, c)) => {
                reads
                    == Reads {
                        provider_part: Some((p, Part::Component(c))),
                        ..NOTHING
                    }
            }
            What::ApiStats(p) => {
                reads
                    == Reads {
                        provider_part: Some((p, Part::All)),
                        communication: Some(p),
                        ..NOTHING
                    }
            }
            What::ApiProvider(p)
            | What::ApiComponents(p)
            | What::Badge(p)
            | What::MaintenanceCalendar(p) => {
                reads
                    == Reads {
                        provider_part: Some((p, Part::All)),
                        ..NOTHING
                    }
            }
            What::ProviderYear(key) => {
                reads.templates && provider_part(key.provider, Part::Year(key.year))
            }
            What::Component(key) => {
                reads.templates && provider_part(key.provider, Part::Component(key.component))
            }
            What::Incident(i) => {
                // Itself, its neighbours in its provider's list, and its days.
                let (p, position) = archive.places[i];
                reads.incident == Some(i)
                    && reads.provider_list.is_some_and(|(q, start, end)| {
                        q == p && start <= position.saturating_sub(1) && position + 1 < end
                    })
                    && reads.days == Some(numbers::days(&archive.incidents[i]))
                    && reads.templates
            }
            What::Alias(key) => {
                reads
                    == Reads {
                        incident: Some(key.incident),
                        ..TEMPLATED
                    }
            }
            What::ApiIncident(i) | What::Twin(i) => {
                reads
                    == Reads {
                        incident: Some(i),
                        ..NOTHING
                    }
            }
            What::Feed(key) => match key.scope {
                Some(p) => {
                    reads
                        == Reads {
                            provider: Some(p),
                            ..NOTHING
                        }
                }
                None => reads == ARCHIVE,
            },
            What::IncidentIndex(n) => {
                let window = Paged::window(n);
                reads
                    == Reads {
                        list: Some((window.start, window.end)),
                        impact_counts: Some(ListOf::Every),
                        ..TEMPLATED
                    }
            }
            What::ImpactList(key) => {
                let window = Paged::window(key.number);
                let list = |of| {
                    reads
                        == Reads {
                            impact_list: Some((of, key.impact, window.start, window.end)),
                            impact_counts: Some(of),
                            ..TEMPLATED
                        }
                };
                match key.list {
                    Listed::Every => list(ListOf::Every),
                    Listed::Provider(p) => list(ListOf::Provider(p)),
                    Listed::Year(p, year) => {
                        reads
                            == Reads {
                                provider_part: Some((p, Part::Year(year))),
                                ..TEMPLATED
                            }
                    }
                }
            }
            What::Day(date) => {
                reads.templates
                    && reads
                        .days
                        .is_some_and(|(first, last)| first < date && date < last)
            }
            What::ApiDay(date) => {
                reads
                    == Reads {
                        days: Some((date, date)),
                        ..NOTHING
                    }
            }
        };
        assert!(fine, "`{}` ({:?}) reads {reads:?}", page.path, page.what);
    }
    // The sample site has a page of nearly every kind (no CNAME, nor a sitemap in parts).
    assert!(seen.len() >= 29, "{seen:?}");
}
