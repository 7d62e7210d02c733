//! Every incident, newest first, a page at a time, with a pager.

use super::*;

/// Every incident of the archive, newest first, [`PER_PAGE`](crate::render::paging::PER_PAGE) a page, with the years
/// linked to where they start: the whole archive within reach without a page of
/// thousands of rows.
pub(crate) struct IncidentIndex;

#[derive(serde::Serialize)]
pub(super) struct PageLink {
    number: usize,
    path: String,
}

/// The links between the pages of a list split in pages: previous, next, and the page
/// numbers around the current one, the first and the last (`1 2 … 9 10 11 … 99 100`), so a
/// pager stays a few links long whatever the number of pages.
#[derive(serde::Serialize)]
pub(super) struct Pager {
    current: usize,
    total: usize,
    /// `None`: a gap (`…`).
    pages: Vec<Option<PageLink>>,
    previous: Option<PageLink>,
    next: Option<PageLink>,
}

impl Pager {
    /// Around page `current` of the list's pages, each page's path from `path`.
    pub(super) fn new(current: usize, paged: Paged, path: impl Fn(usize) -> String) -> Pager {
        let total = paged.pages();
        let link = |number: usize| PageLink {
            number,
            path: path(number),
        };
        let near = |n: usize| n <= 2 || n + 1 >= total || n.abs_diff(current) <= 2;
        let mut pages = Vec::new();
        for n in 1..=total {
            if near(n) {
                pages.push(Some(link(n)));
            } else if pages.last().is_some_and(Option::is_some) {
                pages.push(None);
            }
        }
        Pager {
            current,
            total,
            pages,
            previous: (current > 1).then(|| link(current - 1)),
            next: (current < total).then(|| link(current + 1)),
        }
    }
}

#[derive(serde::Serialize)]
pub(super) struct YearLink {
    year: i32,
    path: String,
}

impl Kind for IncidentIndex {
    /// The page's number, from 1.
    type Key = usize;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, usize)) {
        for n in Paged::new(archive.incidents.len()).numbers() {
            add(routes::page(&routes::incidents_dir(n)), n);
        }
    }

    const IN_SITEMAP: bool = true;

    fn lastmod(&self, dates: &Dates, _: usize) -> Option<NaiveDate> {
        dates.newest
    }

    fn reads(&self, _: &Archive, n: usize) -> Reads {
        let window = Paged::window(n);
        Reads {
            list: Some((window.start, window.end)),
            templates: true,
            ..chips_read(Listed::Every)
        }
    }

    fn render(&self, r: &Renderer, page: &Page, n: usize) -> Result<Vec<u8>, Diagnostic> {
        let base = &r.config.base_url;
        // The years from the archive: only the views shown are made.
        let all = &r.archive.incidents;
        let paged = Paged::new(all.len());
        // Newest first, so each year's first incident is found by a binary search: no
        // page scans the archive.
        let year_of = |i: usize| all[i].started.year();
        let years: Vec<YearLink> = match (all.first(), all.last()) {
            (Some(newest), Some(oldest)) => (r.archive.years.iter().copied())
                .filter(|year| (oldest.started.year()..=newest.started.year()).contains(year))
                .filter_map(|year| {
                    let first = all.partition_point(|i| i.started.year() > year);
                    (first < all.len() && year_of(first) == year).then(|| YearLink {
                        year,
                        path: format!(
                            "{}#y{year}",
                            base.path(&routes::incidents_dir(Paged::page_of(first)))
                        ),
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let shown = paged.items_of(n);
        let shown = by_year(
            IncidentIx::all(shown.end)
                .skip(shown.start)
                .map(|i| &r.views.incidents[i].summary),
        );
        let title = match n {
            1 => "Every incident".to_string(),
            n => format!("Every incident, page {n} of {}", paged.pages()),
        };
        let mut ctx = r.html_context(
            "incidents",
            &title,
            format!("Every incident in the {}, newest first.", r.config.title),
            &routes::incidents_dir(n),
            &FeedLinks::new(base, ""),
            "All incidents",
        );
        ctx.insert("groups", &shown);
        ctx.insert("years", &years);
        ctx.insert("filters", &chips(r, Listed::Every, None));
        ctx.insert(
            "pager",
            &Pager::new(n, paged, |n| base.path(&routes::incidents_dir(n))),
        );
        ctx.insert("incident_total", &all.len());
        r.template("incidents.html", page, &ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::Pager;
    use crate::render::paging::{PER_PAGE, Paged};

    /// A list of `total` pages.
    fn pages(total: usize) -> Paged {
        Paged::new(total * PER_PAGE)
    }

    fn shown(current: usize, total: usize) -> String {
        Pager::new(current, pages(total), |n| n.to_string())
            .pages
            .iter()
            .map(|p| p.as_ref().map_or("…".to_string(), |p| p.number.to_string()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_pager_shows_the_ends_and_the_pages_near_the_current_one() {
        assert_eq!(shown(1, 1), "1");
        assert_eq!(shown(2, 5), "1 2 3 4 5");
        assert_eq!(shown(1, 100), "1 2 3 … 99 100");
        assert_eq!(shown(50, 100), "1 2 … 48 49 50 51 52 … 99 100");
        assert_eq!(shown(100, 100), "1 2 … 98 99 100");
        // A thousand pages, a dozen links: the pager does not grow with the archive.
        assert!(shown(500, 1000).split(' ').count() <= 11);
        let pager = Pager::new(1, pages(3), |n| n.to_string());
        assert!(pager.previous.is_none() && pager.next.is_some_and(|p| p.number == 2));
    }
}
