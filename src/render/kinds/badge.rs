//! The badges: an SVG per provider and per component, and the page that lists them with
//! the markdown to embed each.

use super::*;

/// `badges/<provider>.svg`.
pub(super) fn provider_badge(r: &Renderer, i: ProviderIx) -> Vec<u8> {
    let provider = &r.archive.providers[i];
    let reading = badges::Reading::of(&provider.stats, r.archive);
    badges::badge(&provider.name, &reading).into_bytes()
}

/// A component's badge: `badges/<provider>/<component>.svg`.
pub(super) fn component_badge(r: &Renderer, i: ProviderIx, c: ComponentIx) -> Vec<u8> {
    let component = &r.archive.providers[i].components[c];
    let reading = badges::Reading::of(&component.stats, r.archive);
    badges::badge(&component.name, &reading).into_bytes()
}

/// One provider's badge on the page.
#[derive(serde::Serialize)]
struct BadgeEntry<'a> {
    provider: &'a ProviderView,
    /// The badge's URL, what the badge reads, and the markdown that embeds it.
    badge: String,
    reading: String,
    markdown: String,
}

/// `badges/`: every provider's badge, with what to paste to embed it.
pub(super) fn badges_page(r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
    let base = &r.config.base_url;
    let mut entries: Vec<BadgeEntry> = ProviderIx::all(r.archive.providers.len())
        .zip(&r.views.providers)
        .map(|(i, provider)| {
            let slug = r.archive.providers[i].slug.as_str();
            let badge = base.url(&routes::badge_provider(slug));
            let alt = format!("{} status", provider.reference.name);
            BadgeEntry {
                provider,
                reading: badges::Reading::of(&r.archive.providers[i].stats, r.archive).text(),
                markdown: format!(
                    "[![{}]({badge})]({})",
                    llms::plain(&alt),
                    provider.reference.url
                ),
                badge: base.path(&routes::badge_provider(slug)),
            }
        })
        .collect();
    entries.sort_by(|a, b| by_name(&a.provider.reference.name, &b.provider.reference.name));
    let example = r.archive.providers.iter().find_map(|p| {
        let component = p.components.first()?;
        Some(base.url(&routes::badge_component(
            p.slug.as_str(),
            component.slug.as_str(),
        )))
    });
    let mut ctx = r.html_context(
        "badges",
        "Badges",
        format!(
            "Status badges of every provider in the {}, to embed in a README: 90-day uptime, or an ongoing incident.",
            r.config.title
        ),
        routes::BADGES_DIR,
        &FeedLinks::new(base, ""),
        "All incidents",
    );
    ctx.insert("entries", &entries);
    ctx.insert("component_example", &example);
    r.template("badges.html", page, &ctx)
}
