//! The table that compares every provider, once per order it can be read in.

use super::*;

pub(crate) struct ComparePage;

/// One provider's row: its view, and its major outages over the last 12 months.
#[derive(serde::Serialize)]
struct CompareRow<'a> {
    provider: &'a ProviderView,
    major: usize,
}

/// A link to the table in another order, as its column heads and chips show it.
#[derive(serde::Serialize)]
struct OrderLink {
    key: &'static str,
    path: String,
    current: bool,
}

fn order_key(order: ProviderOrder) -> &'static str {
    match order {
        ProviderOrder::Name => "name",
        ProviderOrder::Uptime => "uptime",
        ProviderOrder::Incidents => "incidents",
    }
}

impl Kind for ComparePage {
    type Key = ProviderOrder;

    fn plan(&self, _: &Planning, add: &mut dyn FnMut(String, ProviderOrder)) {
        for order in ProviderOrder::ALL {
            add(routes::page(routes::providers_dir(order)), order);
        }
    }

    const IN_SITEMAP: bool = true;

    fn lastmod(&self, dates: &Dates, _: ProviderOrder) -> Option<NaiveDate> {
        dates.newest
    }

    fn reads(&self, _: &Archive, _: ProviderOrder) -> Reads {
        TEMPLATED_ARCHIVE
    }

    fn render(
        &self,
        r: &Renderer,
        page: &Page,
        order: ProviderOrder,
    ) -> Result<Vec<u8>, Diagnostic> {
        let providers = &r.archive.providers;
        let mut rows: Vec<(ProviderIx, &ProviderView)> = ProviderIx::all(providers.len())
            .zip(&r.views.providers)
            .collect();
        let by_name =
            |a: &ProviderView, b: &ProviderView| by_name(&a.reference.name, &b.reference.name);
        let year = |i: ProviderIx| &providers[i].stats.last_12_months;
        match order {
            ProviderOrder::Name => rows.sort_by(|a, b| by_name(a.1, b.1)),
            // Lowest first; those with no records then last.
            ProviderOrder::Uptime => rows.sort_by(|a, b| {
                let key = |i| year(i).uptime.map_or((1, 0), |u| (0, u));
                key(a.0).cmp(&key(b.0)).then_with(|| by_name(a.1, b.1))
            }),
            ProviderOrder::Incidents => rows.sort_by(|a, b| {
                year(b.0)
                    .outages()
                    .cmp(&year(a.0).outages())
                    .then_with(|| by_name(a.1, b.1))
            }),
        }
        let rows: Vec<CompareRow> = rows
            .into_iter()
            .map(|(i, provider)| CompareRow {
                provider,
                major: year(i).tally(Impact::Critical).count,
            })
            .collect();
        let orders: Vec<OrderLink> = ProviderOrder::ALL
            .into_iter()
            .map(|o| OrderLink {
                key: order_key(o),
                path: r.config.base_url.path(routes::providers_dir(o)),
                current: o == order,
            })
            .collect();
        let title = match order {
            ProviderOrder::Name => "Providers compared".to_string(),
            ProviderOrder::Uptime => "Providers compared, by uptime".to_string(),
            ProviderOrder::Incidents => "Providers compared, by incidents".to_string(),
        };
        let mut ctx = r.html_context(
            "providers",
            &title,
            format!(
                "Every provider of the {} side by side over the last 12 months: uptime, incidents, major outages, time to resolve, longest outage, last incident.",
                r.config.title
            ),
            routes::providers_dir(order),
            &FeedLinks::new(&r.config.base_url, ""),
            "All incidents",
        );
        ctx.insert("rows", &rows);
        ctx.insert("order", order_key(order));
        let paths: std::collections::BTreeMap<&str, &str> =
            orders.iter().map(|o| (o.key, o.path.as_str())).collect();
        ctx.insert("paths", &paths);
        ctx.insert("orders", &orders);
        ctx.insert("through", &r.archive.through.map(TimeView::new));
        r.template("providers.html", page, &ctx)
    }
}
