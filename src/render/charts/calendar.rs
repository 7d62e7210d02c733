//! A year's calendar of days, GitHub-contribution style.

use std::fmt::Write;

use super::*;

/// A GitHub-contribution-style calendar of one UTC year: 7 rows (Monday first, label Mon/Wed/Fri), one column per week, month labels on top. Each given day is `<a href=…><rect class=…><title>…</title></rect></a>` (title inside the rect or the a — it must be what a screen reader/tooltip shows); other days of the year are squares of one `<path class="lvl-0">` (a dashed line down each run of them in a column), without a link or title; cells for days outside the year are not drawn. `legend` is the list of (Shade, words) to draw as a legend below (e.g. [(Impact(Critical),"Major outage"), …] or [(Level(1),"1 provider"), …, (Level(4),"4+ providers")]). `cells` may be unsorted and may contain dates of other years (ignore those).
///
/// When two cells share a date, the first one given is drawn. The day rects are the
/// children of `<g class="days">`, in date order.
pub fn calendar(
    id: &str,
    title: &str,
    year: i32,
    cells: &[DayCell],
    legend: &[(Shade, &str)],
) -> String {
    const CELL: f64 = 11.0;
    const PITCH: f64 = 13.0;
    const LEFT: f64 = 30.0;
    const TOP: f64 = 18.0;
    let (Some(jan1), Some(next)) = (
        NaiveDate::from_ymd_opt(year, 1, 1),
        NaiveDate::from_ymd_opt(year + 1, 1, 1),
    ) else {
        return String::new();
    };
    let days = (next - jan1).num_days() as usize;
    let offset = jan1.weekday().num_days_from_monday() as usize;
    let place = |day: usize| {
        let at = day + offset;
        (
            LEFT + (at / 7) as f64 * PITCH,
            TOP + (at % 7) as f64 * PITCH,
        )
    };
    let columns = (days - 1 + offset) / 7 + 1;
    let mut by_day: Vec<Option<&DayCell>> = vec![None; days];
    for cell in cells.iter().filter(|cell| cell.date.year() == year) {
        by_day[cell.date.ordinal0() as usize].get_or_insert(cell);
    }
    let marked = by_day.iter().flatten().count();
    let desc = format!(
        "{marked} {} with incidents in {year}.",
        if marked == 1 { "day" } else { "days" }
    );

    let mut body = String::new();
    for (month, name) in MONTHS.iter().map(|name| &name[..3]).enumerate() {
        let Some(first) = NaiveDate::from_ymd_opt(year, month as u32 + 1, 1) else {
            continue;
        };
        let (x, _) = place(first.ordinal0() as usize);
        let _ = write!(
            body,
            r#"<text class="label" x="{}" y="12">{name}</text>"#,
            num(x)
        );
    }
    for (row, name) in [(0, "Mon"), (2, "Wed"), (4, "Fri")] {
        let y = TOP + f64::from(row) * PITCH + 9.0;
        let _ = write!(
            body,
            r#"<text class="label" x="{}" y="{}" text-anchor="end">{name}</text>"#,
            num(LEFT - 4.0),
            num(y)
        );
    }
    body.push_str(r#"<g class="days">"#);
    // Empty days are one path: each run of them down a week's column is one dashed line,
    // 11 units wide, dashes of 11 and gaps of 2, which draws the same squares as a rect
    // each. A year is 365 cells, a site draws thousands of calendars, and a square each
    // was 5 % of a real archive's bytes. Cells sit on whole units.
    const _: () = assert!(
        CELL == 11.0 && PITCH == 13.0,
        "the dashes draw 11-unit squares"
    );
    let mut empty = String::with_capacity(columns * 16);
    // A run of empty days down one column: its left edge, its top, how many days.
    let dash = |empty: &mut String, (x, y, days): (i64, i64, i64)| {
        let _ = write!(empty, "M{}.5 {y}v{}", x + 5, days * 13 - 2);
    };
    let mut run: Option<(i64, i64, i64)> = None;
    for (day, cell) in by_day.iter().enumerate() {
        let (x, y) = place(day);
        let (x, y) = (x as i64, y as i64);
        match cell {
            Some(cell) => {
                if let Some(done) = run.take() {
                    dash(&mut empty, done);
                }
                let _ = write!(
                    body,
                    r#"<a href="{}"><rect class="{}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" rx="2"><title>{}</title></rect></a>"#,
                    esc(&cell.href),
                    shade_class(cell.shade),
                    esc(&cell.title)
                );
            }
            // The next day down the same column.
            None => match &mut run {
                Some((column, _, days)) if *column == x => *days += 1,
                _ => {
                    if let Some(done) = run.replace((x, y, 1)) {
                        dash(&mut empty, done);
                    }
                }
            },
        }
    }
    if let Some(done) = run {
        dash(&mut empty, done);
    }
    if !empty.is_empty() {
        let _ = write!(
            body,
            r#"<path class="lvl-0" d="{empty}" fill="none" stroke-width="11" stroke-dasharray="11 2"/>"#
        );
    }
    body.push_str("</g>");
    let width = LEFT + columns as f64 * PITCH - 2.0 + 4.0;
    let legend: Vec<(Swatch, String)> = legend
        .iter()
        .map(|&(shade, words)| (Swatch::Class(shade_class(shade)), words.to_owned()))
        .collect();
    let legend_top = TOP + 7.0 * PITCH + 8.0;
    // Wrapped to the first 320 units, so it shows whole on a phone before any scrolling:
    // the calendar is at least 46rem wide there, and its card shows some 330 px of it.
    let (keys, keys_height) = legend_keys(id, &legend, LEFT, legend_top, LEFT + 290.0, CAL_FONT);
    body.push_str(&keys);
    let height = legend_top + keys_height + 2.0;
    svg(
        id, "calendar", title, &desc, width, height, CAL_FONT, "", &body,
    )
}
