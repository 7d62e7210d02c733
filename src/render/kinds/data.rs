//! The archive as data: the feeds, and the JSON API of incidents, days and providers.

use super::*;

pub(crate) struct FeedFile;

/// A feed: of a provider or (`None`) of the site, in one format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FeedOf {
    pub(crate) scope: Option<ProviderIx>,
    pub(crate) set: FeedSet,
    pub(crate) format: FeedFormat,
}

impl Kind for FeedFile {
    type Key = FeedOf;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, FeedOf)) {
        let scopes =
            std::iter::once((None, String::new())).chain(archive.providers().map(
                |(index, provider)| (Some(index), routes::provider_dir(provider.slug.as_str())),
            ));
        for (scope, dir) in scopes {
            for set in FeedSet::ALL {
                for format in FeedFormat::ALL {
                    let path = routes::feed_of(&dir, set, format);
                    add(path, FeedOf { scope, set, format });
                }
            }
        }
    }

    fn reads(&self, _: &Archive, key: FeedOf) -> Reads {
        match key.scope {
            Some(provider) => Reads {
                provider: Some(provider),
                ..NOTHING
            },
            None => Reads {
                archive: true,
                ..NOTHING
            },
        }
    }

    fn render(&self, r: &Renderer, _: &Page, key: FeedOf) -> Result<Vec<u8>, Diagnostic> {
        let spec = r.feed_spec(key.scope, key.set);
        Ok(match key.format {
            FeedFormat::Atom => feeds::atom(&spec),
            FeedFormat::Rss => feeds::rss(&spec),
            FeedFormat::Json => feeds::json(&spec),
        })
    }

    fn site_file(&self, key: FeedOf) -> bool {
        // The site's own feeds only; a provider's are the provider's.
        key.scope.is_none()
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page, key: FeedOf) -> Owner {
        match key.scope {
            Some(p) => provider_owner(archive, p),
            None => generated(page),
        }
    }
}

/// A file of its own for each incident, a function of the incident alone: its data in the
/// API, its markdown twin.
pub(crate) struct IncidentFile {
    pub(super) path: fn(&str, &str) -> String,
    pub(super) make: fn(&Renderer, IncidentIx) -> Vec<u8>,
    /// Whether the site has them.
    pub(super) wanted: fn(&Config) -> bool,
}

impl Kind for IncidentFile {
    type Key = IncidentIx;

    fn plan(&self, planning: &Planning, add: &mut dyn FnMut(String, IncidentIx)) {
        if !(self.wanted)(planning.config) {
            return;
        }
        for (index, incident) in planning.archive.incidents() {
            let (provider, slug) = (incident.provider.as_str(), incident.slug.as_str());
            add((self.path)(provider, slug), index);
        }
    }

    fn reads(&self, _: &Archive, i: IncidentIx) -> Reads {
        Reads {
            incident: Some(i),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, _: &Page, i: IncidentIx) -> Result<Vec<u8>, Diagnostic> {
        Ok((self.make)(r, i))
    }

    fn owner(&self, archive: &Archive, _: &Theme, _: &Page, i: IncidentIx) -> Owner {
        incident_owner(archive, i)
    }
}

/// `api/v1/<provider>/<slug>.json`: the incident as data.
pub(super) fn api_incident(r: &Renderer, i: IncidentIx) -> Vec<u8> {
    api::incident(&r.views.incidents[i], &r.config.base_url)
}

/// `<provider>/<slug>/index.md`: the incident as the file it was read from.
pub(super) fn incident_twin(r: &Renderer, i: IncidentIx) -> Vec<u8> {
    crate::content::twin::write(&r.archive.incidents[i]).into_bytes()
}

/// A file of its own for each component of each provider, a function of what the
/// component's list shows: its badge, its feed.
pub(crate) struct ComponentFile {
    pub(super) path: fn(&str, &str) -> String,
    pub(super) make: fn(&Renderer, ProviderIx, ComponentIx) -> Vec<u8>,
}

impl Kind for ComponentFile {
    type Key = (ProviderIx, ComponentIx);

    fn plan(
        &self,
        &Planning { archive, .. }: &Planning,
        add: &mut dyn FnMut(String, (ProviderIx, ComponentIx)),
    ) {
        for (index, provider) in archive.providers() {
            let components = ComponentIx::all(provider.components.len()).zip(&provider.components);
            for (c, component) in components {
                add(
                    (self.path)(provider.slug.as_str(), component.slug.as_str()),
                    (index, c),
                );
            }
        }
    }

    fn reads(&self, _: &Archive, (i, c): (ProviderIx, ComponentIx)) -> Reads {
        Reads {
            provider_part: Some((i, Part::Component(c))),
            ..NOTHING
        }
    }

    fn render(
        &self,
        r: &Renderer,
        _: &Page,
        (i, c): (ProviderIx, ComponentIx),
    ) -> Result<Vec<u8>, Diagnostic> {
        Ok((self.make)(r, i, c))
    }

    fn owner(
        &self,
        archive: &Archive,
        _: &Theme,
        _: &Page,
        (i, _): (ProviderIx, ComponentIx),
    ) -> Owner {
        provider_owner(archive, i)
    }
}

/// A component's Atom feed: its incidents, newest first, each by its facts and a link (no
/// update's text, so an edit of one re-renders no component feed).
pub(super) fn component_feed(r: &Renderer, i: ProviderIx, c: ComponentIx) -> Vec<u8> {
    feeds::atom(&r.component_feed_spec(i, c))
}

/// One UTC day as data.
pub(crate) struct ApiDay;

impl Kind for ApiDay {
    type Key = NaiveDate;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, NaiveDate)) {
        for day in &archive.days {
            add(routes::api_day(day.date), day.date);
        }
    }

    fn reads(&self, _: &Archive, date: NaiveDate) -> Reads {
        Reads {
            days: Some((date, date)),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page, date: NaiveDate) -> Result<Vec<u8>, Diagnostic> {
        let day = day_of(r, page, date)?;
        let incidents: Vec<&IncidentView> = day
            .incidents
            .iter()
            .map(|&x| &*r.views.incidents[x])
            .collect();
        let base = &r.config.base_url;
        Ok(api::day(
            &day.date.to_string(),
            &base.url(&routes::day_dir(day.date)),
            day.providers,
            &incidents,
            base,
        ))
    }
}

/// One JSON file per provider (its API file, its numbers, its components), made by a
/// function of the provider: written as data, like [`SiteFile`]. Each reads only what
/// lists and numbers show of the provider (see `Reads::provider_part`): no text of an
/// update.
pub(crate) struct ProviderFile {
    pub(super) path: fn(&str) -> String,
    pub(super) make: fn(&Renderer, ProviderIx) -> Vec<u8>,
    /// Whether it also says how the provider told of its outages.
    pub(super) told: bool,
}

impl Kind for ProviderFile {
    type Key = ProviderIx;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, ProviderIx)) {
        for (index, provider) in archive.providers() {
            add((self.path)(provider.slug.as_str()), index);
        }
    }

    fn reads(&self, _: &Archive, i: ProviderIx) -> Reads {
        Reads {
            provider_part: Some((i, Part::All)),
            communication: self.told.then_some(i),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, _: &Page, i: ProviderIx) -> Result<Vec<u8>, Diagnostic> {
        Ok((self.make)(r, i))
    }

    fn owner(&self, archive: &Archive, _: &Theme, _: &Page, i: ProviderIx) -> Owner {
        provider_owner(archive, i)
    }
}

/// `<provider>/maintenance.ics`: its maintenance windows, newest first.
pub(super) fn maintenance_calendar(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let windows = (r.archive.lists.of(crate::archive::ListOf::Provider(i)))
        .map_or(&[][..], |split| split.get(Impact::Maintenance));
    let events: Vec<&IncidentView> = windows.iter().map(|&x| &*r.views.incidents[x]).collect();
    crate::render::ics::maintenances(&r.views.providers[i].reference.name, &events)
}

/// `api/v1/<provider>.json`: the provider and its incidents.
pub(super) fn api_provider(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let incidents: Vec<&IncidentView> = r.archive.providers[i]
        .incidents
        .iter()
        .map(|&x| &*r.views.incidents[x])
        .collect();
    api::provider(&r.views.providers[i], &incidents, &r.config.base_url)
}

/// `api/v1/<provider>/stats.json`: its numbers, month by month too.
pub(super) fn api_stats(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let months: Vec<((i32, u32), PeriodView)> = r.archive.providers[i]
        .stats
        .months
        .iter()
        .map(|(month, period)| (*month, PeriodView::new(month_label(*month), period, None)))
        .collect();
    let through = r.archive.through.map(|t| TimeView::new(t).iso);
    api::stats(
        &r.views.providers[i],
        &months,
        through.as_deref(),
        &r.archive.providers[i].communication,
    )
}

/// `api/v1/<provider>/components.json`: its components, each with its page.
pub(super) fn api_components(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let provider = &r.archive.providers[i];
    let entries: Vec<api::ComponentEntry> = provider
        .components
        .iter()
        .filter_map(|c| {
            let newest = &r.views.incidents[*c.incidents.first()?];
            Some(api::ComponentEntry {
                slug: c.slug.as_str(),
                name: &c.name,
                url: r.config.base_url.url(&routes::component_dir(
                    provider.slug.as_str(),
                    c.slug.as_str(),
                )),
                incident_count: c.incidents.len(),
                last_started: &newest.summary.started.iso,
                stats: StatsView::new(&c.stats, &r.views.incidents, |_| None),
            })
        })
        .collect();
    api::components(&r.views.providers[i], &entries)
}
