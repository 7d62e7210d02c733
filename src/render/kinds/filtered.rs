//! The lists of one impact: every incident's, a provider's and a provider's year's, each
//! under the list's folder (`incidents/major/`, `github/2024/partial/`), and the chips that
//! link them from the list and from each other.

use super::*;
use crate::archive::ListOf;

/// The incidents of one impact in a list, newest first, 100 a page.
pub(crate) struct ImpactList;

/// Which list a page of one impact filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Listed {
    Every,
    Provider(ProviderIx),
    Year(ProviderIx, i32),
}

/// A page of the incidents of one impact in a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FilterPage {
    pub(crate) list: Listed,
    pub(crate) impact: Impact,
    /// From 1.
    pub(crate) number: usize,
}

impl Listed {
    /// The folder of the whole list.
    fn dir(self, archive: &Archive) -> String {
        match self {
            Listed::Every => routes::incidents_dir(1),
            Listed::Provider(p) => routes::provider_dir(archive.providers[p].slug.as_str()),
            Listed::Year(p, year) => {
                routes::provider_year_dir(archive.providers[p].slug.as_str(), year)
            }
        }
    }

    /// The list the archive splits by impact that holds this one's incidents.
    fn split(self) -> ListOf {
        match self {
            Listed::Every => ListOf::Every,
            Listed::Provider(p) | Listed::Year(p, _) => ListOf::Provider(p),
        }
    }

    /// The list's incidents of `impact`, newest first.
    fn incidents(self, archive: &Archive, impact: Impact) -> &[IncidentIx] {
        let list = archive
            .lists
            .of(self.split())
            .map_or(&[][..], |split| split.get(impact));
        match self {
            Listed::Year(_, year) => year_run(list, year, |&i| archive.incidents[i].started.year()),
            _ => list,
        }
    }

    /// How many incidents the whole list has.
    fn len(self, archive: &Archive) -> usize {
        match self {
            Listed::Every => archive.incidents.len(),
            Listed::Provider(p) => archive.providers[p].incidents.len(),
            Listed::Year(p, year) => year_run(&archive.providers[p].incidents, year, |&i| {
                archive.incidents[i].started.year()
            })
            .len(),
        }
    }

    /// The impacts a page of their own filters the list by: those it has, when it has
    /// more than one (the one impact of a list would give the list again), each with its
    /// count, by severity.
    fn filters(self, archive: &Archive) -> Vec<(Impact, usize)> {
        let whole = self.len(archive);
        IMPACT_ORDER
            .iter()
            .map(|&impact| (impact, self.incidents(archive, impact).len()))
            .filter(|&(_, count)| count > 0 && count < whole)
            .collect()
    }
}

/// A link to a list, whole or of one impact, with its count.
#[derive(serde::Serialize)]
pub(super) struct Chip {
    label: &'static str,
    /// The impact's keyword; `None` for the whole list.
    keyword: Option<&'static str>,
    count: usize,
    path: String,
    current: bool,
}

/// The chips of `list`, the one of `current` (`None`: the whole list) marked: none when
/// the list has a single impact.
pub(super) fn chips(r: &Renderer, list: Listed, current: Option<Impact>) -> Vec<Chip> {
    let filters = list.filters(r.archive);
    if filters.is_empty() {
        return Vec::new();
    }
    let dir = list.dir(r.archive);
    let base = &r.config.base_url;
    let whole = Chip {
        label: "All",
        keyword: None,
        count: list.len(r.archive),
        path: base.path(&dir),
        current: current.is_none(),
    };
    let filtered = filters.into_iter().map(|(impact, count)| Chip {
        label: impact.label(),
        keyword: Some(impact.keyword()),
        count,
        path: base.path(&routes::filtered_dir(&dir, impact, 1)),
        current: current == Some(impact),
    });
    std::iter::once(whole).chain(filtered).collect()
}

/// What the chips of a list read: how many incidents of each impact it has. A year's page
/// reads its every incident as a list shows them, impacts and all.
pub(super) fn chips_read(list: Listed) -> Reads {
    match list {
        Listed::Every | Listed::Provider(_) => Reads {
            impact_counts: Some(list.split()),
            ..NOTHING
        },
        Listed::Year(p, year) => Reads {
            provider_part: Some((p, Part::Year(year))),
            ..NOTHING
        },
    }
}

impl Kind for ImpactList {
    type Key = FilterPage;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, FilterPage)) {
        let lists =
            std::iter::once(Listed::Every).chain(archive.providers().flat_map(|(p, provider)| {
                std::iter::once(Listed::Provider(p)).chain(
                    provider
                        .years
                        .iter()
                        .map(move |&year| Listed::Year(p, year)),
                )
            }));
        for list in lists {
            let dir = list.dir(archive);
            for (impact, count) in list.filters(archive) {
                for number in Paged::new(count).numbers() {
                    let key = FilterPage {
                        list,
                        impact,
                        number,
                    };
                    add(
                        routes::page(&routes::filtered_dir(&dir, impact, number)),
                        key,
                    );
                }
            }
        }
    }

    const IN_SITEMAP: bool = true;

    /// Its incidents' newest update: a page of a list shows only its own.
    fn lastmod(&self, dates: &Dates, key: FilterPage) -> Option<NaiveDate> {
        let list = key.list.incidents(dates.archive, key.impact);
        dates.of(list.get(Paged::new(list.len()).items_of(key.number))?)
    }

    fn reads(&self, _: &Archive, key: FilterPage) -> Reads {
        let window = Paged::window(key.number);
        // A year's incidents are its page's, which its chips read already.
        let impact_list = match key.list {
            Listed::Year(..) => None,
            list => Some((list.split(), key.impact, window.start, window.end)),
        };
        Reads {
            templates: true,
            impact_list,
            ..chips_read(key.list)
        }
    }

    fn render(&self, r: &Renderer, page: &Page, key: FilterPage) -> Result<Vec<u8>, Diagnostic> {
        let FilterPage {
            list,
            impact,
            number: n,
        } = key;
        let base = &r.config.base_url;
        let all = list.incidents(r.archive, impact);
        let paged = Paged::new(all.len());
        let groups = by_year(
            all[paged.items_of(n)]
                .iter()
                .map(|&i| &r.views.incidents[i].summary),
        );
        let what = impact_heading(impact);
        let (title, provider, year, feeds) = match list {
            Listed::Every => (what.to_string(), None, None, FeedLinks::new(base, "")),
            Listed::Provider(p) | Listed::Year(p, _) => {
                let provider = &r.views.providers[p];
                let year = match list {
                    Listed::Year(_, year) => Some(year),
                    _ => None,
                };
                let title = match year {
                    Some(year) => format!("{what} of {} in {year}", provider.reference.name),
                    None => format!("{what} of {}", provider.reference.name),
                };
                (
                    title,
                    Some(&provider.reference),
                    year,
                    provider.feeds.clone(),
                )
            }
        };
        let dir = list.dir(r.archive);
        let heading = match n {
            1 => title.clone(),
            n => format!("{title}, page {n} of {}", paged.pages()),
        };
        let mut ctx = r.html_context(
            "filtered",
            &heading,
            format!("{title}, newest first, in the {}.", r.config.title),
            &routes::filtered_dir(&dir, impact, n),
            &feeds,
            &title,
        );
        ctx.insert("what", what);
        ctx.insert("provider", &provider);
        ctx.insert("year", &year);
        ctx.insert("list_path", &base.path(&dir));
        ctx.insert("groups", &groups);
        ctx.insert("incident_total", &all.len());
        ctx.insert("filters", &chips(r, list, Some(impact)));
        ctx.insert(
            "pager",
            &Pager::new(n, paged, |n| {
                base.path(&routes::filtered_dir(&dir, impact, n))
            }),
        );
        r.template("filtered.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page, key: FilterPage) -> Owner {
        match key.list {
            Listed::Every => generated(page),
            Listed::Provider(p) | Listed::Year(p, _) => provider_owner(archive, p),
        }
    }
}
