//! The home page: what is ongoing, the latest incidents, every provider.

use super::*;

pub(crate) struct Home;

/// How many ongoing incidents the home page shows as cards.
pub(super) const HOME_ONGOING: usize = 10;

impl Kind for Home {
    type Key = ();

    fn plan(&self, _: &Planning, add: &mut dyn FnMut(String, ())) {
        add(routes::HOME.into(), ());
    }

    fn reads(&self, _: &Archive, _: ()) -> Reads {
        TEMPLATED_ARCHIVE
    }

    fn render(&self, r: &Renderer, page: &Page, _: ()) -> Result<Vec<u8>, Diagnostic> {
        // Chosen from the archive: only the views shown are made.
        // Ongoing: unresolved and updated lately; a stale one is listed with the others.
        let shown = |ongoing: bool| {
            r.archive
                .incidents()
                .filter(move |(_, incident)| {
                    (incident.is_ongoing() && !r.archive.is_stale(incident)) == ongoing
                })
                .map(|(i, _)| &r.views.incidents[i].summary)
        };
        let ongoing: Vec<&SummaryView> = shown(true).collect();
        let latest: Vec<&SummaryView> = shown(false).take(HOME_LATEST).collect();
        let mut ctx = r.html_context(
            "home",
            &r.config.title,
            r.config.description.clone(),
            "",
            &FeedLinks::new(&r.config.base_url, ""),
            "All incidents",
        );
        let base = &r.config.base_url;
        ctx.insert(
            "calendar",
            &r.archive.days.last().map(|day| {
                insights::site_calendar(r.archive, r.views, base, day.date.year(), "calendar")
            }),
        );
        ctx.insert(
            "busiest",
            &insights::busiest_days(r.archive, r.views, base, BUSIEST),
        );
        // At most this many cards; the rest as a list below them.
        let (cards, more) = ongoing.split_at(ongoing.len().min(HOME_ONGOING));
        ctx.insert("ongoing", cards);
        ctx.insert("ongoing_more", more);
        ctx.insert("ongoing_count", &ongoing.len());
        ctx.insert("latest", &latest);
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        // The grid by name, as a reader looks a provider up (the archive keeps them by slug).
        let mut providers: Vec<&ProviderView> = r.views.providers.iter().collect();
        providers.sort_by(|a, b| by_name(&a.reference.name, &b.reference.name));
        ctx.insert("providers", &providers);
        ctx.insert("incident_total", &r.views.incidents.len());
        r.template("index.html", page, &ctx)
    }

    const IN_SITEMAP: bool = true;

    fn lastmod(&self, dates: &Dates, _: ()) -> Option<NaiveDate> {
        dates.newest
    }

    fn site_file(&self, _: ()) -> bool {
        true
    }
}
