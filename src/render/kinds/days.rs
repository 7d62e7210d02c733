//! The days: a page per day with incidents, and the calendar of all years.

use super::*;

/// Every incident of every provider active on one UTC day, on a 24-hour timeline: the
/// view of outages that happened together.
pub(crate) struct DayPage;

impl Kind for DayPage {
    type Key = NaiveDate;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, NaiveDate)) {
        for day in &archive.days {
            add(routes::page(&routes::day_dir(day.date)), day.date);
        }
    }

    const IN_SITEMAP: bool = true;

    fn lastmod(&self, dates: &Dates, date: NaiveDate) -> Option<NaiveDate> {
        dates.of(&dates.archive.day(date)?.incidents)
    }

    fn reads(&self, archive: &Archive, date: NaiveDate) -> Reads {
        // The day, and the days it links as the one before and the one after: any change
        // between them (a day appearing or going) changes those links.
        let position = archive.days.partition_point(|d| d.date < date);
        let before = position.checked_sub(1).and_then(|p| archive.days.get(p));
        let after = archive.days.get(position + 1);
        let days = Some((
            before.map_or(NaiveDate::MIN, |d| d.date),
            after.map_or(NaiveDate::MAX, |d| d.date),
        ));
        Reads { days, ..TEMPLATED }
    }

    fn render(&self, r: &Renderer, page: &Page, date: NaiveDate) -> Result<Vec<u8>, Diagnostic> {
        let day = day_of(r, page, date)?;
        let (entries, timeline) = insights::day(r.archive, r.views, day);
        let date = day.date.format("%A %-d %B %Y").to_string();
        let base = &r.config.base_url;
        // The days before and after that have incidents: found by binary search.
        let position = r.archive.days.partition_point(|d| d.date < day.date);
        let link = |d: Option<&crate::archive::Day>| {
            d.map(|d| CountLink {
                name: d.date.to_string().into(),
                path: base.path(&routes::day_dir(d.date)),
                count: d.incidents.len(),
            })
        };
        let mut ctx = r.html_context(
            "day",
            &format!("Outages on {}", day.date),
            format!(
                "Every incident of every provider on {date} (UTC): {} incident{} at {} provider{}.",
                thousands(day.incidents.len() as i64),
                if day.incidents.len() == 1 { "" } else { "s" },
                thousands(day.providers as i64),
                if day.providers == 1 { "" } else { "s" },
            ),
            &routes::day_dir(day.date),
            &FeedLinks::new(base, ""),
            "All incidents",
        );
        ctx.insert("date", &day.date.to_string());
        ctx.insert("date_text", &date);
        ctx.insert("providers", &day.providers);
        ctx.insert("entries", &entries);
        ctx.insert("timeline", &timeline);
        ctx.insert(
            "previous_day",
            &link(position.checked_sub(1).and_then(|p| r.archive.days.get(p))),
        );
        ctx.insert("next_day", &link(r.archive.days.get(position + 1)));
        r.template("day.html", page, &ctx)
    }
}

/// `days/`: the calendar of every year, and the busiest days.
pub(super) fn days_index(r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
    let base = &r.config.base_url;
    let years: Vec<i32> = match (r.archive.days.first(), r.archive.days.last()) {
        (Some(first), Some(last)) => (r.archive.years.iter().copied())
            .filter(|year| (first.date.year()..=last.date.year()).contains(year))
            .collect(),
        _ => Vec::new(),
    };
    let calendars: Vec<insights::Calendar> = years
        .iter()
        .map(|&year| insights::site_calendar(r.archive, r.views, base, year, "calendar"))
        .collect();
    let mut ctx = r.html_context(
        "days",
        "Every day",
        format!(
            "Every day of the {} with an outage, year by year, and the days when most providers were down at once.",
            r.config.title
        ),
        routes::DAYS_DIR,
        &FeedLinks::new(base, ""),
        "All incidents",
    );
    ctx.insert("calendars", &calendars);
    ctx.insert("day_total", &r.archive.days.len());
    ctx.insert(
        "busiest",
        &insights::busiest_days(r.archive, r.views, base, BUSIEST * 2),
    );
    r.template("days.html", page, &ctx)
}
