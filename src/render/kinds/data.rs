//! The archive as data: the feeds, and the JSON API of incidents, days and providers.

use super::*;

pub(super) struct FeedFile;

impl Kind for FeedFile {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for format in FeedFormat::ALL {
            add(routes::feed("", format), Key::Feed(None, format));
        }
        for (index, provider) in archive.providers() {
            let dir = routes::provider_dir(provider.slug.as_str());
            for format in FeedFormat::ALL {
                add(routes::feed(&dir, format), Key::Feed(Some(index), format));
            }
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        match key.provider() {
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

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Feed(scope, format) = page.key else {
            return Err(wrong_key(page));
        };
        let spec = r.feed_spec(scope);
        Ok(match format {
            FeedFormat::Atom => feeds::atom(&spec),
            FeedFormat::Rss => feeds::rss(&spec),
            FeedFormat::Json => feeds::json(&spec),
        })
    }

    fn site_file(&self, key: Key) -> bool {
        // The site's own feeds only; a provider's are the provider's.
        matches!(key, Key::Feed(None, _))
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        match page.key {
            Key::Feed(Some(_), _) => provider_owner(archive, page),
            _ => Owner {
                what: format!("the generated `{}`", page.path),
                place: None,
            },
        }
    }
}

pub(super) struct ApiIncident;

impl Kind for ApiIncident {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, incident) in archive.incidents() {
            let (provider, slug) = (incident.provider.as_str(), incident.slug.as_str());
            add(routes::api_incident(provider, slug), Key::Incident(index));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            incident: key.incident(),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let Key::Incident(i) = page.key else {
            return Err(wrong_key(page));
        };
        Ok(api::incident(&r.views.incidents[i], &r.config.base_url))
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        incident_owner(archive, page)
    }
}

/// One UTC day as data.
pub(super) struct ApiDay;

impl Kind for ApiDay {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for day in &archive.days {
            add(routes::api_day(day.date), Key::Day(day.date));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            days: match key {
                Key::Day(date) => Some((date, date)),
                _ => None,
            },
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        let day = day_of(r, page)?;
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
pub(super) struct ProviderFile {
    pub(super) path: fn(&str) -> String,
    pub(super) make: fn(&Renderer, ProviderIx) -> Vec<u8>,
}

impl Kind for ProviderFile {
    fn plan(&self, archive: &Archive, _: &Theme, _: &Config, add: &mut dyn FnMut(String, Key)) {
        for (index, provider) in archive.providers() {
            add((self.path)(provider.slug.as_str()), Key::Provider(index));
        }
    }

    fn reads(&self, _: &Archive, key: Key) -> Reads {
        Reads {
            provider_part: key.part(),
            ..NOTHING
        }
    }

    fn render(&self, r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
        match page.key {
            Key::Provider(i) => Ok((self.make)(r, i)),
            _ => Err(wrong_key(page)),
        }
    }

    fn owner(&self, archive: &Archive, _: &Theme, page: &Page) -> Owner {
        provider_owner(archive, page)
    }
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
    api::stats(&r.views.providers[i], &months, through.as_deref())
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
