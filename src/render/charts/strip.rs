//! A strip of recent days, one bar each, as status pages show a component's last 90 days.

use std::fmt::Write;

use super::*;
use crate::diagnostics::count;

/// What one run of days without an incident is: inside the records, or outside them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quiet {
    Clear,
    Unrecorded,
}

impl Quiet {
    fn class(self) -> &'static str {
        match self {
            Quiet::Clear => "up",
            Quiet::Unrecorded => "unrecorded",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Quiet::Clear => "no incident recorded",
            Quiet::Unrecorded => "no records",
        }
    }
}

/// One bar per UTC day from `first` to `last`: a day of `cells` is a link to its page in
/// its impact's colour with its title; the other days inside `covered` (the days the
/// archive has records for) are "no incident", those outside it "no records". Each run of
/// quiet days is one dashed path with its own title, so a quiet strip costs a few hundred
/// bytes whatever its length. Drawn to its box's width and height (`.chart-strip`).
pub fn day_strip(
    id: &str,
    title: &str,
    (first, last): (NaiveDate, NaiveDate),
    covered: Option<(NaiveDate, NaiveDate)>,
    cells: &[DayCell],
) -> String {
    const PITCH: i64 = 5;
    const BAR: i64 = 3;
    const HEIGHT: i64 = 30;
    let Ok(days) = usize::try_from((last - first).num_days() + 1) else {
        return String::new();
    };
    let mut by_day: Vec<Option<&DayCell>> = vec![None; days];
    for cell in cells {
        let at = (cell.date - first).num_days();
        if let Some(slot) = usize::try_from(at).ok().and_then(|at| by_day.get_mut(at)) {
            slot.get_or_insert(cell);
        }
    }
    let quiet = |date: NaiveDate| match covered {
        Some((from, to)) if from <= date && date <= to => Quiet::Clear,
        _ => Quiet::Unrecorded,
    };
    let marked = by_day.iter().flatten().count();
    let unrecorded = first
        .iter_days()
        .take(days)
        .filter(|&d| quiet(d) == Quiet::Unrecorded)
        .count();
    let mut desc = format!(
        "{} with incidents of the {} from {first} to {last}",
        count(marked, "day"),
        count(days, "day"),
    );
    if unrecorded > 0 {
        let _ = write!(desc, "; no records for {}", count(unrecorded, "day"));
    }
    desc.push('.');

    let mut body = String::new();
    // A run of quiet days: its first day's position, its kind, how many days.
    let flush = |body: &mut String, (start, kind, len): (usize, Quiet, usize)| {
        let x = start as i64 * PITCH;
        let from = first + chrono::Days::new(start as u64);
        let to = first + chrono::Days::new((start + len - 1) as u64);
        let when = if len == 1 {
            from.to_string()
        } else {
            format!("{from} to {to}")
        };
        let _ = write!(
            body,
            r#"<path class="{}" d="M{x} {}h{}" stroke-width="{HEIGHT}" stroke-dasharray="{BAR} {}"><title>{when}: {}</title></path>"#,
            kind.class(),
            HEIGHT / 2,
            len as i64 * PITCH - (PITCH - BAR),
            PITCH - BAR,
            kind.words()
        );
    };
    let mut run: Option<(usize, Quiet, usize)> = None;
    for (day, cell) in by_day.iter().enumerate() {
        match cell {
            Some(cell) => {
                if let Some(done) = run.take() {
                    flush(&mut body, done);
                }
                let _ = write!(
                    body,
                    r#"<a href="{}"><rect class="{}" x="{}" width="{BAR}" height="{HEIGHT}"><title>{}</title></rect></a>"#,
                    esc(&cell.href),
                    shade_class(cell.shade),
                    day as i64 * PITCH,
                    esc(&cell.title)
                );
            }
            None => {
                let kind = quiet(first + chrono::Days::new(day as u64));
                match &mut run {
                    Some((_, k, len)) if *k == kind => *len += 1,
                    _ => {
                        if let Some(done) = run.replace((day, kind, 1)) {
                            flush(&mut body, done);
                        }
                    }
                }
            }
        }
    }
    if let Some(done) = run {
        flush(&mut body, done);
    }
    let width = days as f64 * PITCH as f64 - (PITCH - BAR) as f64;
    svg(
        id,
        "strip",
        title,
        &desc,
        width,
        HEIGHT as f64,
        FONT,
        "",
        &body,
    )
}
