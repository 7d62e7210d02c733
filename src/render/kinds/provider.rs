//! A provider's pages: its own, a page per year, and one per component.

use super::*;

pub(crate) struct ProviderPage;

impl Kind for ProviderPage {
    type Key = ProviderIx;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, ProviderIx)) {
        for (index, provider) in archive.providers() {
            let dir = routes::provider_dir(provider.slug.as_str());
            add(routes::page(&dir), index);
        }
    }

    const IN_SITEMAP: bool = true;

    fn lastmod(&self, dates: &Dates, i: ProviderIx) -> Option<NaiveDate> {
        dates.of(&dates.archive.providers[i].incidents)
    }

    fn reads(&self, _: &Archive, i: ProviderIx) -> Reads {
        Reads {
            provider_part: Some((i, Part::All)),
            communication: Some(i),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page, i: ProviderIx) -> Result<Vec<u8>, Diagnostic> {
        let provider = &r.views.providers[i];
        let source = &r.archive.providers[i];
        let name = &provider.reference.name;
        let latest: Vec<&SummaryView> = source
            .incidents
            .iter()
            .take(PROVIDER_LATEST)
            .map(|&x| &r.views.incidents[x].summary)
            .collect();
        let description = format!(
            "Every incident of {name} in the {}, with its uptime and downtime.",
            r.config.title
        );
        let mut ctx = r.html_context(
            "provider",
            name,
            description,
            &routes::provider_dir(&provider.reference.slug),
            &provider.feeds,
            &format!("{name} incidents"),
        );
        let calendar_years = &source.years[..source.years.len().min(PROVIDER_CALENDARS)];
        let views = |list: &[IncidentIx]| -> Vec<&IncidentView> {
            list.iter().map(|&x| &*r.views.incidents[x]).collect()
        };
        ctx.insert("provider", provider);
        ctx.insert("latest", &latest);
        ctx.insert("ongoing", &views(&source.stats.ongoing));
        ctx.insert("stale", &views(&source.stats.stale));
        ctx.insert("stale_after", &r.config.stale_after.to_string());
        ctx.insert("unrecorded", &provider.stats.all_time.after_the_fact);
        ctx.insert("part", &false);
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        ctx.insert("years", &year_links(r, i));
        ctx.insert("filters", &chips(r, Listed::Provider(i), None));
        ctx.insert("components", &component_links(r, i));
        ctx.insert(
            "recent",
            &insights::recent(r.archive, &r.config.base_url, source),
        );
        insert_charts(&mut ctx, r, i, None, calendar_years);
        ctx.insert("telling", &insights::telling(source, "told"));
        r.template("provider.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, _: &Page, i: ProviderIx) -> Owner {
        provider_owner(archive, i)
    }
}

/// A provider's incidents of one year, with that year's numbers, charts and calendar, and
/// its incidents 100 a page.
pub(crate) struct ProviderYear;

/// The items of a list (newest first) that started in `year`: one run of it, found by two
/// binary searches.
pub(super) fn year_run<T>(list: &[T], year: i32, started: impl Fn(&T) -> i32) -> &[T] {
    &list[year_positions(list, year, started)]
}

/// Where [`year_run`] is in the list.
pub(super) fn year_positions<T>(
    list: &[T],
    year: i32,
    started: impl Fn(&T) -> i32,
) -> std::ops::Range<usize> {
    let from = list.partition_point(|x| started(x) > year);
    let to = list.partition_point(|x| started(x) >= year);
    from..to.max(from)
}

/// A page of a provider's year: the provider, the year, and the page's number, from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct YearPage {
    pub(crate) provider: ProviderIx,
    pub(crate) year: i32,
    pub(crate) number: usize,
}

impl Kind for ProviderYear {
    type Key = YearPage;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, YearPage)) {
        for (index, provider) in archive.providers() {
            for &year in &provider.years {
                let started = |x: &IncidentIx| archive.incidents[*x].started.year();
                let count = year_run(&provider.incidents, year, started).len();
                for n in Paged::new(count).numbers() {
                    let dir = routes::provider_year_page_dir(provider.slug.as_str(), year, n);
                    let key = YearPage {
                        provider: index,
                        year,
                        number: n,
                    };
                    add(routes::page(&dir), key);
                }
            }
        }
    }

    const IN_SITEMAP: bool = true;

    /// Its incidents' newest update: a page of a list shows only its own.
    fn lastmod(&self, dates: &Dates, key: YearPage) -> Option<NaiveDate> {
        let archive = dates.archive;
        let started = |&i: &IncidentIx| archive.incidents[i].started.year();
        let run = year_run(
            &archive.providers[key.provider].incidents,
            key.year,
            started,
        );
        dates.of(run.get(Paged::new(run.len()).items_of(key.number))?)
    }

    fn reads(&self, _: &Archive, key: YearPage) -> Reads {
        Reads {
            provider_part: Some((key.provider, Part::Year(key.year))),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page, key: YearPage) -> Result<Vec<u8>, Diagnostic> {
        let YearPage {
            provider: i,
            year,
            number: n,
        } = key;
        let provider = &r.views.providers[i];
        let source = &r.archive.providers[i];
        let name = &provider.reference.name;
        let all = year_run(&source.incidents, year, |&x| {
            r.views.incidents[x].summary.started.year
        });
        let paged = Paged::new(all.len());
        let incidents: Vec<&SummaryView> = all[paged.items_of(n)]
            .iter()
            .map(|&x| &r.views.incidents[x].summary)
            .collect();
        let period = source
            .stats
            .years
            .iter()
            .find(|(y, _)| *y == year)
            .map(|(_, period)| PeriodView::new(year.to_string(), period, None));
        let years = year_links(r, i);
        let mut ctx = r.html_context(
            "provider-year",
            &format!("{name} in {year}"),
            format!("Every incident of {name} in {year}, with its uptime and downtime."),
            &routes::provider_year_page_dir(&provider.reference.slug, year, n),
            &provider.feeds,
            &format!("{name} incidents"),
        );
        ctx.insert("provider", &provider.reference);
        ctx.insert("year", &year);
        ctx.insert("incident_total", &all.len());
        ctx.insert(
            "pager",
            &Pager::new(n, paged, |n| {
                let dir = routes::provider_year_page_dir(&provider.reference.slug, year, n);
                r.config.base_url.path(&dir)
            }),
        );
        ctx.insert("year_text", &year.to_string());
        ctx.insert("stats", &provider.stats);
        ctx.insert(
            "unrecorded",
            &period.as_ref().map_or(0, |period| period.after_the_fact),
        );
        ctx.insert("part", &false);
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        ctx.insert("period", &period);
        ctx.insert("incidents", &incidents);
        ctx.insert("years", &years);
        ctx.insert("filters", &chips(r, Listed::Year(i, year), None));
        // The year's charts and calendar are on its first page.
        if n == 1 {
            insert_charts(&mut ctx, r, i, Some(year), &[year]);
        }
        r.template("provider_year.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, _: &Page, key: YearPage) -> Owner {
        provider_owner(archive, key.provider)
    }
}

/// One component of a provider: its incidents, numbers and calendar.
pub(crate) struct ComponentPage;

/// A page of a component's list: its provider, the component, and the page's number,
/// from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ComponentListPage {
    pub(crate) provider: ProviderIx,
    pub(crate) component: ComponentIx,
    pub(crate) number: usize,
}

impl Kind for ComponentPage {
    type Key = ComponentListPage;

    fn plan(
        &self,
        &Planning { archive, .. }: &Planning,
        add: &mut dyn FnMut(String, ComponentListPage),
    ) {
        for (index, provider) in archive.providers() {
            let components = ComponentIx::all(provider.components.len()).zip(&provider.components);
            for (c, component) in components {
                for n in Paged::new(component.incidents.len()).numbers() {
                    let dir = routes::component_page_dir(
                        provider.slug.as_str(),
                        component.slug.as_str(),
                        n,
                    );
                    let key = ComponentListPage {
                        provider: index,
                        component: c,
                        number: n,
                    };
                    add(routes::page(&dir), key);
                }
            }
        }
    }

    const IN_SITEMAP: bool = true;

    /// Its incidents' newest update: a page of a list shows only its own.
    fn lastmod(&self, dates: &Dates, key: ComponentListPage) -> Option<NaiveDate> {
        let provider = &dates.archive.providers[key.provider];
        let list = &provider.components[key.component].incidents;
        dates.of(list.get(Paged::new(list.len()).items_of(key.number))?)
    }

    fn reads(&self, _: &Archive, key: ComponentListPage) -> Reads {
        Reads {
            provider_part: Some((key.provider, Part::Component(key.component))),
            ..TEMPLATED
        }
    }

    fn render(
        &self,
        r: &Renderer,
        page: &Page,
        key: ComponentListPage,
    ) -> Result<Vec<u8>, Diagnostic> {
        let ComponentListPage {
            provider: i,
            component: c,
            number: n,
        } = key;
        let provider = &r.views.providers[i];
        let component = &r.archive.providers[i].components[c];
        let name = &provider.reference.name;
        let paged = Paged::new(component.incidents.len());
        let title = match n {
            1 => format!("{} · {name}", component.name),
            n => format!("{} · {name}, page {n} of {}", component.name, paged.pages()),
        };
        let stats = StatsView::new(&component.stats, &r.views.incidents, |_| None);
        let mut years: Vec<i32> = component
            .incidents
            .iter()
            .map(|&x| r.views.incidents[x].summary.started.year)
            .collect();
        years.dedup();
        // The latest year: a component's history is in its list and its table.
        years.truncate(1);
        let mut ctx = r.html_context(
            "component",
            &title,
            format!(
                "Every incident of {name} that affected {}, with its uptime and downtime.",
                component.name
            ),
            &routes::component_page_dir(&provider.reference.slug, component.slug.as_str(), n),
            &provider.feeds,
            &format!("{name} incidents"),
        );
        ctx.insert("provider", &provider.reference);
        ctx.insert("component", &component.name);
        let feed = routes::component_feed(&provider.reference.slug, component.slug.as_str());
        ctx.insert("component_feed", &r.config.base_url.path(&feed));
        ctx.insert(
            "pager",
            &Pager::new(n, paged, |n| {
                let dir = routes::component_page_dir(
                    &provider.reference.slug,
                    component.slug.as_str(),
                    n,
                );
                r.config.base_url.path(&dir)
            }),
        );
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        ctx.insert("unrecorded", &stats.all_time.after_the_fact);
        ctx.insert("part", &true);
        ctx.insert("stats", &stats);
        // Newest first, a page of them at a time: no page lists thousands.
        ctx.insert(
            "groups",
            &by_year(
                component.incidents[paged.items_of(n)]
                    .iter()
                    .map(|&x| &r.views.incidents[x].summary),
            ),
        );
        ctx.insert("incident_total", &component.incidents.len());
        ctx.insert(
            "recent",
            &insights::recent_component(r.archive, &r.config.base_url, component),
        );
        ctx.insert(
            "calendars",
            &insights::impact_calendars(
                r.archive,
                &r.config.base_url,
                &component.incidents,
                &years,
                "calendar",
                &component.name,
            ),
        );
        r.template("component.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, _: &Page, key: ComponentListPage) -> Owner {
        provider_owner(archive, key.provider)
    }
}
