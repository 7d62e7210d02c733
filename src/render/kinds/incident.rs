//! An incident's page, and the pages that send its old URLs to it.

use super::*;

pub(crate) struct IncidentPage;

impl Kind for IncidentPage {
    type Key = IncidentIx;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, IncidentIx)) {
        for (index, incident) in archive.incidents() {
            let dir = routes::incident_dir(incident.provider.as_str(), incident.slug.as_str());
            add(routes::page(&dir), index);
        }
    }

    const IN_SITEMAP: bool = true;

    fn lastmod(&self, dates: &Dates, i: IncidentIx) -> Option<NaiveDate> {
        dates.of(&[i])
    }

    fn reads(&self, archive: &Archive, index: IncidentIx) -> Reads {
        let (provider, position) = archive.places[index];
        Reads {
            incident: Some(index),
            // Its neighbours in its provider's list, and whatever overlapped it.
            provider_list: Some((provider, position.saturating_sub(1), position + 2)),
            days: Some(numbers::days(&archive.incidents[index])),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page, i: IncidentIx) -> Result<Vec<u8>, Diagnostic> {
        let incident = &r.views.incidents[i];
        let summary = &incident.summary;
        let description = format!(
            "{} of {}: {}, {}.",
            summary.impact.label,
            summary.provider.name,
            summary.started.text,
            match &summary.duration {
                Some(d) => format!("lasted {d}"),
                None => views::duration_text(summary).to_string(),
            }
        );
        let source = &r.archive.incidents[i];
        let mut ctx = r.html_context(
            "incident",
            &summary.title,
            description,
            &routes::incident_dir(source.provider.as_str(), source.slug.as_str()),
            &FeedLinks::new(
                &r.config.base_url,
                &routes::provider_dir(&summary.provider.slug),
            ),
            &format!("{} incidents", summary.provider.name),
        );
        // The incident, its neighbours and what overlapped it: what `reads` declares.
        ctx.insert("incident", incident);
        let (provider, slug) = (source.provider.as_str(), source.slug.as_str());
        let path = |route: String| r.config.base_url.path(&route);
        let twin = r
            .config
            .markdown
            .then(|| path(routes::incident_twin(provider, slug)));
        ctx.insert("markdown", &twin);
        ctx.insert("api", &path(routes::api_incident(provider, slug)));
        let (newer, older) = r.archive.neighbours(i);
        let summary_of =
            |x: Option<IncidentIx>| x.map(|x| insights::Brief::of(&r.views.incidents[x].summary));
        ctx.insert("newer", &summary_of(newer));
        ctx.insert("older", &summary_of(older));
        let (same_time, overlap_total) = insights::same_time(r.archive, r.views, i);
        ctx.insert("same_time", &same_time);
        ctx.insert("same_time_total", &overlap_total);
        ctx.insert(
            "day_path",
            &r.config
                .base_url
                .path(&routes::day_dir(source.started.date_naive())),
        );
        r.template("incident.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, _: &Page, i: IncidentIx) -> Owner {
        incident_owner(archive, i)
    }
}

pub(crate) struct AliasPage;

/// One alias of an incident: the incident, and the alias's place in its list of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct AliasOf {
    pub(crate) incident: IncidentIx,
    pub(crate) number: usize,
}

impl Kind for AliasPage {
    type Key = AliasOf;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, AliasOf)) {
        for (incident, source) in archive.incidents() {
            for (number, alias) in source.aliases.iter().enumerate() {
                add(routes::alias(&alias.path), AliasOf { incident, number });
            }
        }
    }

    fn reads(&self, _: &Archive, key: AliasOf) -> Reads {
        Reads {
            incident: Some(key.incident),
            ..TEMPLATED
        }
    }

    fn render(&self, r: &Renderer, page: &Page, key: AliasOf) -> Result<Vec<u8>, Diagnostic> {
        let i = key.incident;
        let mut ctx = Context::new();
        ctx.insert("target", &r.views.incidents[i].summary.url);
        ctx.insert("title", &r.views.incidents[i].summary.title);
        r.template("alias.html", page, &ctx)
    }

    fn owner(&self, archive: &Archive, _: &Theme, _: &Page, key: AliasOf) -> Owner {
        let incident = &archive.incidents[key.incident];
        let alias = &incident.aliases[key.number];
        Owner {
            what: format!("the alias `/{}`", alias.path),
            place: Some((incident.file.clone(), alias.line, alias.col)),
        }
    }
}
