//! Inline SVG charts for the default theme, hand-rolled, no JavaScript: incidents and
//! downtime per month, a year's calendar of days and one day's 24-hour timeline.
//!
//! Each function returns one `<svg>` element as a string, ready to go into a page as is;
//! the day's timeline, whose labels wrap to the card's width, is HTML rows around small
//! SVGs. Colours come from CSS classes only (`.chart .i-major` … in `static/style.css`,
//! which switch for dark mode), never colour alone: impacts also get a pattern, every chart
//! has a legend with words, a title and a description, and every element a tooltip. All text
//! is escaped (titles come from third-party status pages), every id is prefixed by the
//! chart's `id`, and the output only depends on the input.

use std::fmt::Write;

use chrono::{Datelike, NaiveDate};

use crate::model::{Duration, Impact};

/// One month of the incidents chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonthCount {
    /// Long label, for titles and the desc: "March 2024".
    pub label: String,
    /// Axis label: "Mar"; the chart adds the year under each January and under the first month.
    pub short: String,
    pub year: i32,
    /// Incidents that started this month, by impact, in the order of `Impact::ALL`
    /// (none, minor, major, critical, maintenance).
    pub counts: [u32; 5],
}

/// One month of the downtime chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonthDowntime {
    /// Long label, for titles and the desc: "March 2024".
    pub label: String,
    /// Axis label: "Mar".
    pub short: String,
    pub year: i32,
    pub seconds: i64,
    /// "2h 10m" or "0m"
    pub text: String,
}

/// What a calendar cell shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shade {
    Impact(Impact),
    /// 1..=4 (values above 4 draw as 4).
    Level(u8),
}

/// One day with something on it. Days not given are drawn as empty cells (class lvl-0), not links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayCell {
    pub date: NaiveDate,
    pub shade: Shade,
    /// Link to the day's page.
    pub href: String,
    /// Tooltip: the date and what happened, e.g. "2024-03-05: Major outage — API errors; Partial outage — Slow pushes"
    pub title: String,
}

/// One incident on the 24-hour timeline of a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineBar {
    /// "Provider — Incident title"
    pub label: String,
    /// Link to the incident page.
    pub href: String,
    pub impact: Impact,
    /// Minutes since 00:00 UTC of the day, 0..=1440, start <= end (the caller clips).
    pub start_minute: u32,
    pub end_minute: u32,
    /// The incident began before this day / goes on after it (draw an arrow or a fade at that edge).
    pub from_before: bool,
    pub goes_on: bool,
    /// "17:58–21:22 UTC" or "from the day before – 04:10 UTC", for the title.
    pub when: String,
}

/// Font size of all text, in viewBox units (the `font-size` of the `<svg>`).
const FONT: f64 = 12.0;
/// The calendar's smaller text, to fit its 11-unit rows.
const CAL_FONT: f64 = 11.0;
/// viewBox width of the month charts and the timeline: at 12-unit text, about 11 px text
/// on a 390 px phone (CSS caps the width on large screens).
const WIDTH: f64 = 380.0;
/// Bottom to top in a stacked bar: the worst first, so it is never hidden.
use crate::render::views::IMPACT_ORDER as STACK;
use crate::render::words::{MONTHS, thousands};

/// Incidents per month as stacked bars by impact (critical at the bottom, then major, minor, none, maintenance on top), a y axis with 3–5 integer ticks, and a legend with words. Each bar has a `<title>` like "March 2024: 3 incidents — 1 major outage, 2 partial outage" (list only non-zero impacts, by label in lowercase). Empty input: return an SVG saying "No incidents" is NOT needed — return an empty String.
pub fn incidents_per_month(id: &str, title: &str, months: &[MonthCount]) -> String {
    let (Some(first), Some(last)) = (months.first(), months.last()) else {
        return String::new();
    };
    let totals: Vec<u32> = months.iter().map(|m| m.counts.iter().sum()).collect();
    let total: u64 = totals.iter().map(|&t| u64::from(t)).sum();
    let desc = if total == 0 {
        format!("Incidents {}: none.", span(&first.label, &last.label))
    } else if months.len() == 1 {
        format!("Incidents in {}: {}.", first.label, thousands(total))
    } else {
        let (most, top) = busiest(&totals);
        format!(
            "Incidents per month from {} to {}: {} in total, most in {} ({}).",
            first.label,
            last.label,
            thousands(total),
            months[most].label,
            thousands(top)
        )
    };
    let max = totals.iter().copied().max().unwrap_or(0);
    let (step, steps) = ticks(f64::from(max), &[1.0, 2.0, 5.0]);
    let y_ticks: Vec<String> = (0..=steps)
        .map(|k| thousands((step * f64::from(k)) as i64))
        .collect();
    let present: Vec<Impact> = STACK
        .into_iter()
        .filter(|&impact| months.iter().any(|m| m.counts[slot(impact)] > 0))
        .collect();
    let legend: Vec<(Swatch, String)> = present
        .iter()
        .map(|&impact| (Swatch::Pattern(impact), words(impact).to_owned()))
        .collect();
    let axis: Vec<(&str, i32)> = months.iter().map(|m| (m.short.as_str(), m.year)).collect();
    let chart = MonthChart {
        id,
        kind: "months",
        title,
        desc: &desc,
        axis: &axis,
        y_ticks: &y_ticks,
        defs: patterns(id, &present),
        legend: &legend,
    };
    chart.render(|frame, i, out| {
        let month = &months[i];
        let _ = write!(
            out,
            "<g class=\"bar\"><title>{}</title>",
            esc(&month_tip(month))
        );
        frame.hit(i, out);
        let mut base = frame.bottom();
        for impact in STACK {
            let count = month.counts[slot(impact)];
            if count == 0 {
                continue;
            }
            let h = f64::from(count) / (step * f64::from(steps)) * frame.ph;
            // A hairline between segments, when there is room for it.
            let gap = if h > 3.0 { 1.0 } else { 0.0 };
            impact_shape(
                out,
                id,
                impact,
                frame.bar_x(i),
                base - h + gap,
                frame.bar_w(),
                h - gap,
            );
            base -= h;
        }
        out.push_str("</g>");
    })
}

/// Downtime per month as bars (class i-critical), a y axis in hours or minutes (pick the unit from the max: < 2h → minutes, else hours; ticks at round values), each bar with a `<title>` "March 2024: 2h 10m of downtime". Empty input → empty String.
pub fn downtime_per_month(id: &str, title: &str, months: &[MonthDowntime]) -> String {
    let (Some(first), Some(last)) = (months.first(), months.last()) else {
        return String::new();
    };
    let seconds: Vec<i64> = months.iter().map(|m| m.seconds.max(0)).collect();
    let total = seconds.iter().fold(0i64, |sum, &s| sum.saturating_add(s));
    let desc = if total == 0 {
        format!("Downtime {}: none.", span(&first.label, &last.label))
    } else if months.len() == 1 {
        format!("Downtime in {}: {}.", first.label, first.text)
    } else {
        let (most, _) = busiest(&seconds);
        format!(
            "Downtime per month from {} to {}: {} in total, most in {} ({}).",
            first.label,
            last.label,
            Duration::from_seconds(total),
            months[most].label,
            months[most].text
        )
    };
    let max = seconds.iter().copied().max().unwrap_or(0);
    let (unit, suffix, bases): (f64, &str, &[f64]) = if max < 2 * 3600 {
        (60.0, "m", &[1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0])
    } else {
        (3600.0, "h", &[1.0, 2.0, 3.0, 6.0, 12.0, 24.0])
    };
    let (step, steps) = ticks(max as f64 / unit, bases);
    let top = step * f64::from(steps) * unit;
    let y_ticks: Vec<String> = (0..=steps)
        .map(|k| match k {
            0 => "0".to_owned(),
            k => format!("{}{suffix}", num(step * f64::from(k))),
        })
        .collect();
    let legend = [(Swatch::Class("i-critical"), "Downtime".to_owned())];
    let axis: Vec<(&str, i32)> = months.iter().map(|m| (m.short.as_str(), m.year)).collect();
    let chart = MonthChart {
        id,
        kind: "downtime",
        title,
        desc: &desc,
        axis: &axis,
        y_ticks: &y_ticks,
        defs: String::new(),
        legend: &legend,
    };
    chart.render(|frame, i, out| {
        let month = &months[i];
        let tip = format!("{}: {} of downtime", month.label, month.text);
        let _ = write!(out, "<g class=\"bar\"><title>{}</title>", esc(&tip));
        frame.hit(i, out);
        if seconds[i] > 0 {
            // At least a sliver, so a minute of downtime is not read as none.
            let h = (seconds[i] as f64 / top * frame.ph).max(1.5);
            let _ = write!(
                out,
                r#"<rect class="i-critical" x="{}" y="{}" width="{}" height="{}"/>"#,
                num(frame.bar_x(i)),
                num(frame.bottom() - h),
                num(frame.bar_w()),
                num(h)
            );
        }
        out.push_str("</g>");
    })
}

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
    let mut run: Option<((i64, i64), i64)> = None;
    let flush = |empty: &mut String, run: Option<((i64, i64), i64)>| {
        if let Some(((x, y), cells)) = run {
            let _ = write!(empty, "M{x}.5 {y}v{}", cells * 13 - 2);
        }
    };
    for (day, cell) in by_day.iter().enumerate() {
        let (x, y) = place(day);
        let (x, y) = (x as i64, y as i64);
        match cell {
            Some(cell) => {
                flush(&mut empty, run.take());
                let _ = write!(
                    body,
                    r#"<a href="{}"><rect class="{}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" rx="2"><title>{}</title></rect></a>"#,
                    esc(&cell.href),
                    shade_class(cell.shade),
                    esc(&cell.title)
                );
            }
            None => match &mut run {
                // The next day down the same column.
                Some(((column, _), cells)) if *column == x + 5 => *cells += 1,
                _ => {
                    flush(&mut empty, run.take());
                    run = Some(((x + 5, y), 1));
                }
            },
        }
    }
    flush(&mut empty, run);
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

/// A 24-hour timeline: the hours 00…24 (UTC) above, one row per bar in the given order, and
/// a legend with words. Each row is one link (a big enough target for a thumb) with the
/// bar's label written whole as HTML text, which wraps to the width of the card, and under
/// it the bar on the day's track: a shape of the impact's class and pattern, at least
/// [`MIN_BAR`] wide, with an arrow where it began the day before or goes on after. The
/// link's words and tooltip say the impact and when. Empty input → empty String.
///
/// Unlike the other charts this is HTML around small SVGs: the track is placed in
/// percentages of the row, so the chart takes its card's whole width while its text keeps
/// the page's size. With more than 4 rows the hours are repeated below.
pub fn day_timeline(id: &str, title: &str, bars: &[TimelineBar]) -> String {
    if bars.is_empty() {
        return String::new();
    }
    let present: Vec<Impact> = STACK
        .into_iter()
        .filter(|&impact| bars.iter().any(|bar| bar.impact == impact))
        .collect();
    let desc = format!(
        "{} {} on this day.",
        thousands(bars.len()),
        if bars.len() == 1 {
            "incident"
        } else {
            "incidents"
        }
    );
    let id_text = esc(id);
    let mut out = String::with_capacity(600 * bars.len() + 2048);
    let _ = write!(
        out,
        r#"<div class="chart chart-timeline" role="group" aria-labelledby="{id_text}-title {id_text}-desc"><p class="visually-hidden" id="{id_text}-title">{}</p><p class="visually-hidden" id="{id_text}-desc">{}</p>"#,
        esc(title),
        esc(&desc)
    );
    timeline_hours(&mut out, &patterns(id, &present));
    out.push_str(r#"<ol class="timeline-rows">"#);
    for bar in bars {
        timeline_row(&mut out, id, bar);
    }
    out.push_str("</ol>");
    if bars.len() > 4 {
        timeline_hours(&mut out, "");
    }
    out.push_str(r#"<ul class="chart-legend">"#);
    for &impact in &present {
        out.push_str(r#"<li><svg width="11" height="11" aria-hidden="true">"#);
        impact_shape(&mut out, id, impact, 0.0, 0.0, 11.0, 11.0);
        let _ = write!(out, "</svg>{}</li>", esc(words(impact)));
    }
    out.push_str("</ul></div>");
    out
}

/// The narrowest a timeline's bar is drawn, in percent of the day: a one-minute incident
/// stays visible (some 2 px on a phone).
const MIN_BAR: f64 = 0.6;

/// Where a minute of the day (0..=1440) is on a timeline's track, in percent.
fn day_percent(minute: u32) -> f64 {
    f64::from(minute.min(1440)) / 14.4
}

/// The hours above (or below) a timeline's rows, every 3 from 00 to 24, and `UTC` past the
/// end; `defs` (the patterns of its bars) go in the first.
fn timeline_hours(out: &mut String, defs: &str) {
    out.push_str(r#"<svg class="timeline-hours" width="100%" height="16" font-size="12" aria-hidden="true">"#);
    if !defs.is_empty() {
        let _ = write!(out, "<defs>{defs}</defs>");
    }
    for hour in (0..=24).step_by(3) {
        let _ = write!(
            out,
            r#"<text class="label" x="{}%" y="12" text-anchor="middle">{hour:02}</text>"#,
            num(day_percent(hour * 60))
        );
    }
    out.push_str(r#"<text class="label" x="100%" dx="14" y="12">UTC</text></svg>"#);
}

/// One row of a timeline: the link, its label, and the bar on its track.
fn timeline_row(out: &mut String, id: &str, bar: &TimelineBar) {
    const TOP: f64 = 4.0;
    const BAR: f64 = 12.0;
    let what = format!("{}, {}", words(bar.impact), bar.when);
    let _ = write!(
        out,
        r#"<li><a href="{}" title="{} — {}"><span class="timeline-label">{}</span><span class="visually-hidden"> — {}</span><svg class="timeline-bar" width="100%" height="20" aria-hidden="true"><rect class="track" x="0" y="{TOP}" width="100%" height="{BAR}"/>"#,
        esc(&bar.href),
        esc(&bar.label),
        esc(&what),
        esc(&bar.label),
        esc(&what)
    );
    // The hours' lines across the track: the grid at 03 to 21, the day's two ends.
    for hour in (0..=24).step_by(3) {
        let class = if hour % 24 == 0 { "axis" } else { "grid" };
        let x = num(day_percent(hour * 60));
        let _ = write!(
            out,
            r#"<line class="{class}" x1="{x}%" x2="{x}%" y1="1" y2="19"/>"#
        );
    }
    let start = day_percent(bar.start_minute.min(bar.end_minute));
    let w = (day_percent(bar.end_minute) - start).max(MIN_BAR);
    let x = start.min(100.0 - MIN_BAR);
    let class = impact_class(bar.impact);
    let _ = write!(
        out,
        r#"<rect class="{class}" x="{}%" y="{TOP}" width="{}%" height="{BAR}"/>"#,
        num(x),
        num(w)
    );
    // Its pattern inside, when wide enough to read, the colour framing it above and below.
    if bar.impact != Impact::Critical && w >= 1.5 {
        let _ = write!(
            out,
            r#"<rect fill="url(#{}-p-{})" x="{}%" y="{}" width="{}%" height="{}"/>"#,
            esc(id),
            bar.impact.keyword(),
            num(x),
            num(TOP + 1.5),
            num(w),
            num(BAR - 3.0)
        );
    }
    // An arrow at an edge the incident goes on past, drawn in an SVG placed at that edge.
    let middle = TOP + BAR / 2.0;
    for (edge, tip, shown) in [(x, -7, bar.from_before), (x + w, 7, bar.goes_on)] {
        if shown {
            let _ = write!(
                out,
                r#"<svg x="{}%" y="{}" overflow="visible"><path class="{class}" d="M0 -7L{tip} 0L0 7Z"/></svg>"#,
                num(edge),
                num(middle)
            );
        }
    }
    out.push_str("</svg></a></li>");
}

/// The two month charts: a y axis, a bar per month, month labels (with the year under
/// the first labelled month and each January) and a legend.
struct MonthChart<'a> {
    id: &'a str,
    kind: &'a str,
    title: &'a str,
    desc: &'a str,
    /// Short label and year of each month.
    axis: &'a [(&'a str, i32)],
    /// Tick labels from 0 up, evenly spaced up to the top of the plot.
    y_ticks: &'a [String],
    defs: String,
    legend: &'a [(Swatch, String)],
}

/// Where the bars of a month chart go.
struct Frame {
    left: f64,
    top: f64,
    /// Plot width and height.
    pw: f64,
    ph: f64,
    n: usize,
}

impl Frame {
    fn slot(&self) -> f64 {
        self.pw / self.n as f64
    }

    fn bar_w(&self) -> f64 {
        (self.slot() * 0.7).clamp(1.0, 28.0)
    }

    fn bar_x(&self, i: usize) -> f64 {
        self.left + self.slot() * (i as f64 + 0.5) - self.bar_w() / 2.0
    }

    fn bottom(&self) -> f64 {
        self.top + self.ph
    }

    /// An invisible rect over the month's whole column, so its tooltip shows anywhere in it.
    fn hit(&self, i: usize, out: &mut String) {
        let _ = write!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" pointer-events="all"/>"#,
            num(self.left + self.slot() * i as f64),
            num(self.top),
            num(self.slot()),
            num(self.ph)
        );
    }
}

impl MonthChart<'_> {
    fn render(&self, mut bar: impl FnMut(&Frame, usize, &mut String)) -> String {
        let frame = Frame {
            left: 36.0,
            top: 10.0,
            pw: WIDTH - 36.0 - 14.0,
            ph: 140.0,
            n: self.axis.len(),
        };
        let right = frame.left + frame.pw;
        let mut body = String::new();
        let steps = self.y_ticks.len().saturating_sub(1).max(1);
        for (k, label) in self.y_ticks.iter().enumerate() {
            let y = frame.bottom() - frame.ph * k as f64 / steps as f64;
            let class = if k == 0 { "axis" } else { "grid" };
            let _ = write!(
                body,
                r#"<line class="{class}" x1="{}" x2="{}" y1="{y}" y2="{y}"/><text class="label" x="{}" y="{}" text-anchor="end">{}</text>"#,
                num(frame.left),
                num(right),
                num(frame.left - 5.0),
                num(y + 4.0),
                esc(label),
                y = num(y),
            );
        }
        for i in 0..frame.n {
            bar(&frame, i, &mut body);
        }
        self.month_labels(&frame, &mut body);
        let legend_top = frame.bottom() + 44.0;
        let (keys, keys_height) =
            legend_keys(self.id, self.legend, frame.left, legend_top, WIDTH, FONT);
        body.push_str(&keys);
        let height = legend_top + keys_height + 2.0;
        svg(
            self.id, self.kind, self.title, self.desc, WIDTH, height, FONT, &self.defs, &body,
        )
    }

    /// Every `step`-th month, counted from the first January so labels fall on Jan, Apr,
    /// Jul, Oct when every third fits; the year under the first label and each January.
    fn month_labels(&self, frame: &Frame, body: &mut String) {
        // Room a month's label needs ("Mar" at about 0.6 em a character, and a gap), and
        // a year's ("2024"), under the first label and each January.
        let room = 3.0 * 0.6 * FONT + 5.0;
        let year_room = 4.0 * 0.6 * FONT + 6.0;
        let slot = frame.slot();
        let step = [1, 2, 3, 4, 6, 12]
            .into_iter()
            .find(|&step| step as f64 * slot >= room)
            .unwrap_or_else(|| 12 * (year_room / (12.0 * slot)).ceil() as usize);
        let january = |i: usize| i > 0 && self.axis[i].1 != self.axis[i - 1].1;
        let first_january = (1..frame.n).find(|&i| january(i));
        let anchor = first_january.unwrap_or(0);
        let mut labelled: Vec<usize> = (0..frame.n)
            .filter(|&i| i % step == anchor % step)
            .collect();
        if labelled
            .first()
            .is_some_and(|&i| i > 0 && i as f64 * slot >= room)
        {
            labelled.insert(0, 0);
        }
        // The first label's year, unless it would run into the first January's.
        let first_year = labelled.first().is_some_and(|&first| {
            first_january.is_none_or(|j| j == first || (j - first) as f64 * slot >= year_room)
        });
        let y = frame.bottom() + 16.0;
        for (k, &i) in labelled.iter().enumerate() {
            let (short, year) = self.axis[i];
            let x = (frame.left + slot * (i as f64 + 0.5)).min(WIDTH - year_room / 2.0);
            let _ = write!(
                body,
                r#"<text class="label" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                num(x),
                num(y),
                esc(short)
            );
            if (k == 0 && first_year) || january(i) {
                let _ = write!(
                    body,
                    r#"<text class="label" x="{}" y="{}" text-anchor="middle">{year}</text>"#,
                    num(x),
                    num(y + 15.0)
                );
            }
        }
    }
}

/// How a legend key is drawn.
enum Swatch {
    /// As an impact's bar: its colour and pattern.
    Pattern(Impact),
    /// A plain square of this class.
    Class(&'static str),
}

/// The legend, flowing left to right in rows from (`x0`, `y0`) up to `max_x`; and its height.
fn legend_keys(
    id: &str,
    keys: &[(Swatch, String)],
    x0: f64,
    y0: f64,
    max_x: f64,
    font: f64,
) -> (String, f64) {
    const SWATCH: f64 = 11.0;
    const LINE: f64 = 18.0;
    if keys.is_empty() {
        return (String::new(), 0.0);
    }
    let mut out = String::from(r#"<g class="legend">"#);
    let (mut x, mut y) = (x0, y0);
    for (swatch, words) in keys {
        let width = SWATCH + 5.0 + words.chars().count() as f64 * 0.6 * font;
        if x > x0 && x + width > max_x {
            x = x0;
            y += LINE;
        }
        match swatch {
            Swatch::Pattern(impact) => impact_shape(&mut out, id, *impact, x, y, SWATCH, SWATCH),
            Swatch::Class(class) => {
                let _ = write!(
                    out,
                    r#"<rect class="{class}" x="{}" y="{}" width="{SWATCH}" height="{SWATCH}" rx="2"/>"#,
                    num(x),
                    num(y)
                );
            }
        }
        let _ = write!(
            out,
            r#"<text class="label" x="{}" y="{}">{}</text>"#,
            num(x + SWATCH + 5.0),
            num(y + SWATCH - 1.5),
            esc(words)
        );
        x += width + 14.0;
    }
    out.push_str("</g>");
    (out, y - y0 + LINE)
}

/// The whole `<svg>` element.
#[allow(clippy::too_many_arguments)]
fn svg(
    id: &str,
    kind: &str,
    title: &str,
    desc: &str,
    width: f64,
    height: f64,
    font: f64,
    defs: &str,
    body: &str,
) -> String {
    let id = esc(id);
    // A chart whose days or bars are links is a group of them, named by its title: an
    // image may not hold links (axe's `nested-interactive`).
    let role = match kind {
        "calendar" | "timeline" => "group",
        _ => "img",
    };
    let mut out = String::with_capacity(body.len() + defs.len() + 512);
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-{kind}" viewBox="0 0 {} {}" width="100%" font-size="{}" role="{role}" aria-labelledby="{id}-title {id}-desc"><title id="{id}-title">{}</title><desc id="{id}-desc">{}</desc>"#,
        num(width),
        num(height),
        num(font),
        esc(title),
        esc(desc)
    );
    if !defs.is_empty() {
        let _ = write!(out, "<defs>{defs}</defs>");
    }
    out.push_str(body);
    out.push_str("</svg>");
    out
}

/// The patterns of these impacts (critical is solid and needs none): its colour on its
/// light background, both from classes, so CSS still picks the colours.
fn patterns(id: &str, impacts: &[Impact]) -> String {
    let mut out = String::new();
    for &impact in impacts {
        let key = impact.keyword();
        let (size, transform, mark) = match impact {
            Impact::Critical => continue,
            // Diagonal hatch.
            Impact::Major => (
                6.0,
                r#" patternTransform="rotate(45)""#,
                format!(r#"<rect width="2.5" height="6" class="i-{key}"/>"#),
            ),
            // Dots.
            Impact::Minor => (
                5.0,
                "",
                format!(r#"<circle cx="2.5" cy="2.5" r="1.3" class="i-{key}"/>"#),
            ),
            // Thin horizontal lines.
            Impact::None | Impact::Maintenance => (
                4.0,
                "",
                format!(r#"<rect width="4" height="1.25" class="i-{key}"/>"#),
            ),
        };
        let _ = write!(
            out,
            r#"<pattern id="{}-p-{key}" width="{size}" height="{size}" patternUnits="userSpaceOnUse"{transform}><rect width="{size}" height="{size}" class="bg-{key}"/>{mark}</pattern>"#,
            esc(id)
        );
    }
    out
}

/// An impact's box: a rect of its colour (class `i-…`), and inside it, when there is
/// room, its pattern (see [`patterns`]), so the colour still frames it.
fn impact_shape(out: &mut String, id: &str, impact: Impact, x: f64, y: f64, w: f64, h: f64) {
    let _ = write!(
        out,
        r#"<rect class="{}" x="{}" y="{}" width="{}" height="{}"/>"#,
        impact_class(impact),
        num(x),
        num(y),
        num(w),
        num(h)
    );
    const EDGE: f64 = 1.5;
    if impact != Impact::Critical && w >= 5.0 && h >= 5.0 {
        let _ = write!(
            out,
            r#"<rect fill="url(#{}-p-{})" x="{}" y="{}" width="{}" height="{}"/>"#,
            esc(id),
            impact.keyword(),
            num(x + EDGE),
            num(y + EDGE),
            num(w - 2.0 * EDGE),
            num(h - 2.0 * EDGE)
        );
    }
}

fn impact_class(impact: Impact) -> &'static str {
    match impact {
        Impact::None => "i-none",
        Impact::Minor => "i-minor",
        Impact::Major => "i-major",
        Impact::Critical => "i-critical",
        Impact::Maintenance => "i-maintenance",
    }
}

fn shade_class(shade: Shade) -> &'static str {
    match shade {
        Shade::Impact(impact) => impact_class(impact),
        Shade::Level(0) => "lvl-0",
        Shade::Level(1) => "lvl-1",
        Shade::Level(2) => "lvl-2",
        Shade::Level(3) => "lvl-3",
        Shade::Level(_) => "lvl-4",
    }
}

/// The words of an impact in the charts' legends and tooltips.
fn words(impact: Impact) -> &'static str {
    match impact {
        Impact::Maintenance => "Maintenance",
        other => other.label(),
    }
}

/// Where an impact's count is in [`MonthCount::counts`].
fn slot(impact: Impact) -> usize {
    match impact {
        Impact::None => 0,
        Impact::Minor => 1,
        Impact::Major => 2,
        Impact::Critical => 3,
        Impact::Maintenance => 4,
    }
}

/// "March 2024: 3 incidents — 1 major outage, 2 partial outage".
fn month_tip(month: &MonthCount) -> String {
    let total: u32 = month.counts.iter().sum();
    let parts: Vec<String> = STACK
        .into_iter()
        .filter(|&impact| month.counts[slot(impact)] > 0)
        .map(|impact| {
            let n = month.counts[slot(impact)];
            format!("{} {}", thousands(n), words(impact).to_lowercase())
        })
        .collect();
    match total {
        0 => format!("{}: no incidents", month.label),
        1 => format!("{}: 1 incident — {}", month.label, parts.join(", ")),
        n => format!(
            "{}: {} incidents — {}",
            month.label,
            thousands(n),
            parts.join(", ")
        ),
    }
}

/// "in March 2024" or "per month from March 2024 to May 2024".
fn span(first: &str, last: &str) -> String {
    if first == last {
        format!("in {first}")
    } else {
        format!("per month from {first} to {last}")
    }
}

/// The index and value of the largest, the first one on a tie.
fn busiest<T: Copy + Ord + Default>(values: &[T]) -> (usize, T) {
    let mut best = (0, values.first().copied().unwrap_or_default());
    for (i, &value) in values.iter().enumerate() {
        if value > best.1 {
            best = (i, value);
        }
    }
    best
}

/// An axis from 0 to at least `max` in 2 to 4 equal, round steps: the step (the first of
/// `bases`, then 1-2-5 multiples of ten above them, with at most 4 steps) and the count.
fn ticks(max: f64, bases: &[f64]) -> (f64, u32) {
    let last = bases.last().copied().unwrap_or(1.0);
    let mut steps: Vec<f64> = bases.to_vec();
    let mut magnitude = 1.0;
    while magnitude < 1e15 {
        steps.extend(
            [1.0, 2.0, 5.0]
                .into_iter()
                .map(|m| m * magnitude)
                .filter(|&s| s > last),
        );
        magnitude *= 10.0;
    }
    let step = steps
        .into_iter()
        .find(|&step| max / step <= 4.0)
        .unwrap_or(1e15);
    let count = ((max / step).ceil() as u32).max(2);
    (step, count)
}

/// A number for SVG: at most two decimals, no trailing zeros ("12", "12.5", "0.33").
fn num(x: f64) -> Num {
    Num(x)
}

/// A coordinate as SVG text: at most two decimals, trailing zeros trimmed. Written straight
/// into the chart by integer arithmetic, with no string of its own: `format!("{x:.2}")`
/// takes the slow exact path of float formatting, and a build writes millions of them.
#[derive(Clone, Copy)]
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.0.is_finite() {
            return f.write_str("0");
        }
        let hundredths = (self.0 * 100.0).round() as i64;
        let sign = if hundredths < 0 { "-" } else { "" };
        let (whole, fraction) = (
            hundredths.unsigned_abs() / 100,
            hundredths.unsigned_abs() % 100,
        );
        match fraction {
            0 if whole == 0 => f.write_str("0"),
            0 => write!(f, "{sign}{whole}"),
            d if d % 10 == 0 => write!(f, "{sign}{whole}.{}", d / 10),
            d => write!(f, "{sign}{whole}.{d:02}"),
        }
    }
}

/// Text for XML content and attributes: `& < > " ' =` escaped, characters XML forbids
/// dropped.
fn esc(text: &str) -> Esc<'_> {
    Esc(text)
}

/// Text escaped for XML as it is written into the chart, without a copy of its own.
#[derive(Clone, Copy)]
struct Esc<'a>(&'a str);

impl std::fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(|c: char| {
            matches!(c, '&' | '<' | '>' | '"' | '\'' | '=')
                || (c < ' ' && !matches!(c, '\t' | '\n' | '\r'))
                || c == '\u{FFFE}'
                || c == '\u{FFFF}'
        }) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            f.write_str(match c {
                '&' => "&amp;",
                '<' => "&lt;",
                '>' => "&gt;",
                '"' => "&quot;",
                '\'' => "&#39;",
                // Not needed by XML, but then no ` onload=` can be found in a chart, even as
                // text.
                '=' => "&#61;",
                // Characters XML forbids are dropped.
                _ => "",
            })?;
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use roxmltree::{Document, Node};

    use super::*;

    const EVIL: &str = r#"<script>alert(1)</script>" onload="x"#;

    fn month(label: &str, short: &str, year: i32, counts: [u32; 5]) -> MonthCount {
        MonthCount {
            label: label.to_owned(),
            short: short.to_owned(),
            year,
            counts,
        }
    }

    /// 15 months from November 2023, the busiest March 2024.
    fn months() -> Vec<MonthCount> {
        const NAMES: [&str; 12] = MONTHS;
        // [none, minor, major, critical, maintenance]
        let counts = [
            [0, 0, 0, 0, 0],
            [0, 1, 2, 0, 0],
            [1, 0, 0, 0, 0],
            [0, 0, 0, 1, 0],
            [1, 1, 1, 2, 1],
            [0, 2, 1, 0, 0],
            [0, 0, 0, 0, 1],
            [1, 0, 1, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 1, 0, 0, 0],
            [0, 0, 2, 0, 0],
            [0, 0, 0, 1, 0],
            [2, 0, 0, 0, 0],
            [0, 0, 1, 0, 0],
            [0, 1, 0, 0, 0],
        ];
        counts
            .into_iter()
            .enumerate()
            .map(|(i, counts)| {
                let (year, m) = (2023 + (10 + i as i32) / 12, (10 + i) % 12);
                month(
                    &format!("{} {year}", NAMES[m]),
                    &MONTHS[m][..3],
                    year,
                    counts,
                )
            })
            .collect()
    }

    fn downtimes() -> Vec<MonthDowntime> {
        [0, 90 * 60, 7 * 3600 + 600, 60]
            .into_iter()
            .enumerate()
            .map(|(i, seconds)| MonthDowntime {
                label: format!("{} 2024", ["January", "February", "March", "April"][i]),
                short: MONTHS[i][..3].to_owned(),
                year: 2024,
                seconds,
                text: Duration::from_seconds(seconds).to_string(),
            })
            .collect()
    }

    fn day(date: (i32, u32, u32), shade: Shade, title: &str) -> DayCell {
        let date = NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap();
        DayCell {
            date,
            shade,
            href: format!("/days/{date}/?a=1&b=2"),
            title: format!("{date}: {title}"),
        }
    }

    fn bar(label: &str, impact: Impact, start: u32, end: u32) -> TimelineBar {
        TimelineBar {
            label: label.to_owned(),
            href: format!("/incidents/{}/", label.len()),
            impact,
            start_minute: start,
            end_minute: end,
            from_before: start == 0,
            goes_on: end == 1440,
            when: format!("{start}–{end}"),
        }
    }

    fn bars() -> Vec<TimelineBar> {
        vec![
            bar("GitHub — API errors", Impact::Critical, 1078, 1282),
            bar("Fastly — One minute", Impact::Major, 600, 601),
            bar(
                "Slack — All day long, and far longer than a row can show on a phone screen",
                Impact::Minor,
                0,
                1440,
            ),
            bar("Stripe — Last minute", Impact::Maintenance, 1440, 1440),
            bar("Heroku — Early", Impact::None, 0, 250),
        ]
    }

    fn one_of_each(id: &str, title: &str) -> Vec<String> {
        vec![
            incidents_per_month(&format!("{id}-m"), title, &months()),
            downtime_per_month(&format!("{id}-d"), title, &downtimes()),
            calendar(
                &format!("{id}-c"),
                title,
                2024,
                &[day((2024, 3, 5), Shade::Impact(Impact::Critical), title)],
                &[(Shade::Impact(Impact::Critical), "Major outage")],
            ),
            day_timeline(&format!("{id}-t"), title, &bars()),
        ]
    }

    fn class<'a>(node: Node<'a, 'a>) -> &'a str {
        node.attribute("class").unwrap_or("")
    }

    fn number(node: Node, attribute: &str) -> f64 {
        node.attribute(attribute).unwrap().parse().unwrap()
    }

    fn title_of<'a>(node: Node<'a, 'a>) -> Option<&'a str> {
        node.children()
            .find(|child| child.has_tag_name("title"))
            .and_then(|title| title.text())
    }

    /// Parses the chart and checks what every chart must have: the root, its title and
    /// desc found through aria-labelledby, and ids unique and prefixed.
    fn check<'a>(svg: &'a str, id: &str, kind: &str) -> Document<'a> {
        let doc = Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        let role = if matches!(kind, "calendar" | "timeline") {
            "group"
        } else {
            "img"
        };
        assert_eq!(root.attribute("role"), Some(role), "{kind}");
        assert_eq!(root.attribute("width"), Some("100%"));
        assert_eq!(class(root), format!("chart chart-{kind}"));
        let view_box: Vec<f64> = root
            .attribute("viewBox")
            .unwrap()
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(view_box.len(), 4);
        assert!((300.0..=760.0).contains(&view_box[2]), "{view_box:?}");
        let labelled: Vec<&str> = root
            .attribute("aria-labelledby")
            .unwrap()
            .split(' ')
            .collect();
        assert_eq!(labelled, [format!("{id}-title"), format!("{id}-desc")]);
        let by_id = |wanted: &str| {
            doc.descendants()
                .find(|n| n.attribute("id") == Some(wanted))
                .unwrap_or_else(|| panic!("no #{wanted}"))
        };
        let title = by_id(labelled[0]);
        assert!(title.has_tag_name("title"));
        assert_eq!(title.parent(), Some(root));
        let desc = by_id(labelled[1]);
        assert!(desc.has_tag_name("desc"));
        assert_eq!(desc.parent(), Some(root));
        assert!(desc.text().unwrap().ends_with('.'));
        let mut ids = BTreeSet::new();
        for node in doc.descendants() {
            if let Some(node_id) = node.attribute("id") {
                assert!(node_id.starts_with(&format!("{id}-")), "{node_id}");
                assert!(ids.insert(node_id), "{node_id} twice");
            }
            // Colours come from classes only.
            for attribute in ["fill", "stroke", "style"] {
                if let Some(value) = node.attribute(attribute) {
                    assert!(value == "none" || value.starts_with("url(#"), "{value}");
                }
            }
            if let Some(url) = node.attribute("fill").and_then(|f| f.strip_prefix("url(#")) {
                assert!(ids.contains(url.trim_end_matches(')')), "{url}");
            }
        }
        doc
    }

    #[test]
    fn num_trims_trailing_zeros() {
        assert_eq!(num(12.0).to_string(), "12");
        assert_eq!(num(12.5).to_string(), "12.5");
        assert_eq!(num(1.0 / 3.0).to_string(), "0.33");
        assert_eq!(num(0.999).to_string(), "1");
        assert_eq!(num(100.0).to_string(), "100");
        assert_eq!(num(-0.001).to_string(), "0");
        assert_eq!(num(-2.25).to_string(), "-2.25");
        assert_eq!(num(f64::NAN).to_string(), "0");
    }

    #[test]
    fn ticks_are_round_and_three_to_five() {
        assert_eq!(ticks(0.0, &[1.0, 2.0, 5.0]), (1.0, 2));
        assert_eq!(ticks(1.0, &[1.0, 2.0, 5.0]), (1.0, 2));
        assert_eq!(ticks(4.0, &[1.0, 2.0, 5.0]), (1.0, 4));
        assert_eq!(ticks(5.0, &[1.0, 2.0, 5.0]), (2.0, 3));
        assert_eq!(ticks(9.0, &[1.0, 2.0, 5.0]), (5.0, 2));
        assert_eq!(ticks(41.0, &[1.0, 2.0, 5.0]), (20.0, 3));
        assert_eq!(ticks(1234.0, &[1.0, 2.0, 5.0]), (500.0, 3));
        assert_eq!(
            ticks(100.0, &[1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0]),
            (30.0, 4)
        );
    }

    #[test]
    fn incidents_per_month_stacks_bars_with_titles() {
        let months = months();
        let svg = incidents_per_month("inc", "Incidents per month", &months);
        let doc = check(&svg, "inc", "months");
        let bars: Vec<Node> = doc.descendants().filter(|n| class(*n) == "bar").collect();
        assert_eq!(bars.len(), months.len());
        let tips: Vec<&str> = bars.iter().map(|b| title_of(*b).unwrap()).collect();
        assert_eq!(tips[0], "November 2023: no incidents");
        assert_eq!(
            tips[1],
            "December 2023: 3 incidents — 2 partial outage, 1 degraded performance"
        );
        assert_eq!(tips[3], "February 2024: 1 incident — 1 major outage");
        assert_eq!(
            tips[4],
            "March 2024: 6 incidents — 2 major outage, 1 partial outage, 1 degraded performance, 1 no impact, 1 maintenance"
        );
        // One segment per non-zero impact, critical at the bottom.
        let segments: Vec<&str> = bars[4]
            .children()
            .filter(|n| class(*n).starts_with("i-"))
            .map(class)
            .collect();
        assert_eq!(
            segments,
            [
                "i-critical",
                "i-major",
                "i-minor",
                "i-none",
                "i-maintenance"
            ]
        );
        let ys: Vec<f64> = bars[4]
            .children()
            .filter(|n| class(*n).starts_with("i-"))
            .map(|n| number(n, "y"))
            .collect();
        assert!(ys.windows(2).all(|w| w[0] > w[1]), "{ys:?}");
        let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
        let total: u32 = months.iter().flat_map(|m| m.counts).sum();
        assert_eq!(
            desc.text().unwrap(),
            format!(
                "Incidents per month from November 2023 to January 2025: {total} in total, most in March 2024 (6)."
            )
        );
        // Legend: words for every impact shown, worst first.
        let legend = doc.descendants().find(|n| class(*n) == "legend").unwrap();
        let words: Vec<&str> = legend
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        assert_eq!(
            words,
            [
                "Major outage",
                "Partial outage",
                "Degraded performance",
                "No impact",
                "Maintenance"
            ]
        );
        // Patterns carry the classes; 3–5 y ticks; the year under the first label and January.
        for keyword in ["major", "minor", "none", "maintenance"] {
            let pattern = doc
                .descendants()
                .find(|n| n.attribute("id") == Some(&format!("inc-p-{keyword}")))
                .unwrap();
            assert!(pattern.has_tag_name("pattern"));
            assert!(
                pattern
                    .children()
                    .any(|n| class(n) == format!("i-{keyword}"))
            );
        }
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        assert_eq!(
            texts.iter().filter(|t| **t == "2023").count(),
            1,
            "{texts:?}"
        );
        assert_eq!(
            texts.iter().filter(|t| **t == "2024").count(),
            1,
            "{texts:?}"
        );
        assert!(texts.contains(&"Jan"));
        let grid = doc.descendants().filter(|n| class(*n) == "grid").count();
        assert!((2..=4).contains(&grid), "{grid} grid lines");
    }

    #[test]
    fn month_labels_thin_out_on_long_ranges() {
        let long: Vec<MonthCount> = (0..36)
            .map(|i| {
                month(
                    "A month",
                    &MONTHS[(3 + i) % 12][..3],
                    2023 + (3 + i as i32) / 12,
                    [1; 5],
                )
            })
            .collect();
        let svg = incidents_per_month("long", "Long", &long);
        let doc = check(&svg, "long", "months");
        let texts: BTreeSet<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        for shown in ["Jan", "Apr", "Jul", "Oct", "2023", "2024", "2025", "2026"] {
            assert!(texts.contains(shown), "{shown} in {texts:?}");
        }
        assert!(!texts.contains("Feb"));
    }

    #[test]
    fn downtime_per_month_picks_its_unit() {
        let months = downtimes();
        let svg = downtime_per_month("down", "Downtime", &months);
        let doc = check(&svg, "down", "downtime");
        let bars: Vec<Node> = doc.descendants().filter(|n| class(*n) == "bar").collect();
        assert_eq!(bars.len(), 4);
        assert_eq!(title_of(bars[2]), Some("March 2024: 7h 10m of downtime"));
        assert_eq!(title_of(bars[0]), Some("January 2024: 0s of downtime"));
        // No bar for no downtime, a visible one for a minute.
        assert_eq!(
            bars[0]
                .children()
                .filter(|n| class(*n) == "i-critical")
                .count(),
            0
        );
        let minute = bars[3]
            .children()
            .find(|n| class(*n) == "i-critical")
            .unwrap();
        assert!(number(minute, "height") >= 1.5);
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        assert!(texts.contains(&"4h") && texts.contains(&"8h"), "{texts:?}");
        let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
        assert_eq!(
            desc.text(),
            Some(
                "Downtime per month from January 2024 to April 2024: 8h 41m in total, most in March 2024 (7h 10m)."
            )
        );

        let short = downtime_per_month("short", "Downtime", &months[..2]);
        let doc = check(&short, "short", "downtime");
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        assert!(
            texts.contains(&"30m") && texts.contains(&"90m"),
            "{texts:?}"
        );
        assert!(!texts.iter().any(|t| t.ends_with('h')), "{texts:?}");
    }

    /// A day of a calendar as drawn: where, its class, and its link and tooltip if any.
    struct Cell<'a> {
        x: f64,
        y: f64,
        class: &'a str,
        link: Option<Node<'a, 'a>>,
        title: Option<&'a str>,
    }

    /// Every day cell, in drawing order: marked days are linked rects, empty days squares
    /// of one path.
    fn day_cells<'a>(doc: &'a Document<'a>) -> Vec<Cell<'a>> {
        let days = doc.descendants().find(|n| class(*n) == "days").unwrap();
        let mut cells: Vec<Cell> = days
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .map(|rect| Cell {
                x: number(rect, "x"),
                y: number(rect, "y"),
                class: class(rect),
                link: rect.parent().filter(|p| p.has_tag_name("a")),
                title: title_of(rect),
            })
            .collect();
        for path in days.descendants().filter(|n| n.has_tag_name("path")) {
            // A line 11 wide through the middle of the column, dashed 11 on and 2 off.
            assert_eq!(path.attribute("stroke-width"), Some("11"));
            assert_eq!(path.attribute("stroke-dasharray"), Some("11 2"));
            let d = path.attribute("d").unwrap();
            for line in d.split('M').filter(|s| !s.is_empty()) {
                let (at, length) = line.split_once('v').unwrap();
                let (x, y) = at.split_once(' ').unwrap();
                let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                let length: f64 = length.parse().unwrap();
                assert_eq!((length + 2.0) % 13.0, 0.0, "whole squares: {line}");
                for square in 0..((length + 2.0) / 13.0) as usize {
                    cells.push(Cell {
                        x: x - 5.5,
                        y: y + 13.0 * square as f64,
                        class: class(path),
                        link: None,
                        title: None,
                    });
                }
            }
        }
        // Column by column, top to bottom: the order of the days.
        cells.sort_by(|a, b| (a.x, a.y).partial_cmp(&(b.x, b.y)).unwrap());
        cells
    }

    #[test]
    fn calendar_draws_every_day_of_the_year_once() {
        let cells = [
            day(
                (2024, 3, 5),
                Shade::Impact(Impact::Critical),
                "Major outage — API errors",
            ),
            day(
                (2024, 1, 1),
                Shade::Impact(Impact::Minor),
                "Degraded performance — Slow",
            ),
            day((2023, 12, 31), Shade::Impact(Impact::Major), "Another year"),
            day((2024, 12, 31), Shade::Level(7), "Many"),
            day(
                (2024, 3, 5),
                Shade::Impact(Impact::None),
                "Second of a date: ignored",
            ),
        ];
        let legend = [
            (Shade::Impact(Impact::Critical), "Major outage"),
            (Shade::Impact(Impact::Minor), "Degraded performance"),
        ];
        let svg = calendar("cal", "2024", 2024, &cells, &legend);
        let doc = check(&svg, "cal", "calendar");
        let drawn = day_cells(&doc);
        assert_eq!(drawn.len(), 366);
        let links: Vec<Node> = doc.descendants().filter(|n| n.has_tag_name("a")).collect();
        assert_eq!(links.len(), 3);
        assert_eq!(
            links[0].attribute("href"),
            Some("/days/2024-01-01/?a=1&b=2")
        );
        assert!(svg.contains("/days/2024-01-01/?a&#61;1&amp;b&#61;2"));
        let linked: Vec<(&str, Option<&str>)> = links
            .iter()
            .map(|a| {
                let rect = a.first_element_child().unwrap();
                (class(rect), title_of(rect))
            })
            .collect();
        assert_eq!(
            linked,
            [
                ("i-minor", Some("2024-01-01: Degraded performance — Slow")),
                ("i-critical", Some("2024-03-05: Major outage — API errors")),
                ("lvl-4", Some("2024-12-31: Many")),
            ]
        );
        // Days without a cell: empty, no link, no title.
        for cell in &drawn {
            if cell.link.is_none() {
                assert_eq!(cell.class, "lvl-0");
                assert!(cell.title.is_none());
            }
        }
        assert_eq!(drawn.iter().filter(|c| c.class == "lvl-0").count(), 363);
        // 2024-01-01 is a Monday: row 0, column 0; 2024-12-31 a Tuesday, in the last column.
        let top = drawn.iter().map(|c| c.y).fold(f64::MAX, f64::min);
        let left = drawn.iter().map(|c| c.x).fold(f64::MAX, f64::min);
        let jan1 = links[0].first_element_child().unwrap();
        assert_eq!((number(jan1, "x"), number(jan1, "y")), (left, top));
        let dec31 = links[2].first_element_child().unwrap();
        assert_eq!(number(dec31, "y"), top + 13.0);
        assert_eq!(number(dec31, "x"), left + 52.0 * 13.0);
        let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
        assert_eq!(desc.text(), Some("3 days with incidents in 2024."));
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        for label in [
            "Mon",
            "Wed",
            "Fri",
            "Jan",
            "Dec",
            "Major outage",
            "Degraded performance",
        ] {
            assert!(texts.contains(&label), "{label}");
        }

        let svg = calendar("c23", "2023", 2023, &cells, &legend);
        let doc = check(&svg, "c23", "calendar");
        let drawn = day_cells(&doc);
        assert_eq!(drawn.len(), 365);
        assert_eq!(doc.descendants().filter(|n| n.has_tag_name("a")).count(), 1);
        // 2023-01-01 is a Sunday: the last row of the first column.
        let top = drawn.iter().map(|c| c.y).fold(f64::MAX, f64::min);
        assert_eq!(drawn[0].y, top + 6.0 * 13.0);
        assert_eq!(drawn[1].x, drawn[0].x + 13.0);
    }

    /// A percentage attribute of a timeline's shape, as a number.
    fn percent(node: Node, attribute: &str) -> f64 {
        let value = node.attribute(attribute).unwrap();
        value.strip_suffix('%').unwrap().parse().unwrap()
    }

    #[test]
    fn a_calendar_legend_shows_whole_on_a_phone_before_any_scrolling() {
        let legend = [
            (Shade::Impact(Impact::Critical), "Major outage"),
            (Shade::Impact(Impact::Major), "Partial outage"),
            (Shade::Impact(Impact::Minor), "Degraded performance"),
            (Shade::Impact(Impact::None), "No impact"),
            (Shade::Impact(Impact::Maintenance), "Maintenance"),
        ];
        let svg = calendar("cal", "2024", 2024, &[], &legend);
        let doc = check(&svg, "cal", "calendar");
        let keys = doc.descendants().find(|n| class(*n) == "legend").unwrap();
        let texts: Vec<Node> = keys.children().filter(|n| n.has_tag_name("text")).collect();
        assert_eq!(texts.len(), legend.len());
        // A phone's card shows some 330 px of a calendar drawn at least 46rem (736 px)
        // wide: 320 of its 721 units.
        for text in texts {
            let words = text.text().unwrap().chars().count() as f64;
            let right = number(text, "x") + words * 0.6 * CAL_FONT;
            assert!(right <= 320.0, "{:?} ends at {right}", text.text());
        }
    }

    #[test]
    fn timeline_links_each_bar_writes_its_label_whole_and_keeps_short_ones_visible() {
        let bars = bars();
        let html = day_timeline("day", "5 March 2024", &bars);
        let doc = Document::parse(&html).unwrap_or_else(|e| panic!("{e}: {html}"));
        let root = doc.root_element();
        assert_eq!(class(root), "chart chart-timeline");
        assert_eq!(root.attribute("role"), Some("group"));
        assert_eq!(
            root.attribute("aria-labelledby"),
            Some("day-title day-desc")
        );
        let by_id = |wanted: &str| {
            let node = doc
                .descendants()
                .find(|n| n.attribute("id") == Some(wanted));
            node.and_then(|n| n.text()).unwrap_or_default()
        };
        assert_eq!(by_id("day-title"), "5 March 2024");
        assert_eq!(by_id("day-desc"), "5 incidents on this day.");
        let links: Vec<Node> = doc.descendants().filter(|n| n.has_tag_name("a")).collect();
        assert_eq!(links.len(), bars.len());
        for (link, bar) in links.iter().zip(&bars) {
            assert_eq!(link.attribute("href"), Some(bar.href.as_str()));
            // The label whole, however long, in words that wrap; the impact and when in
            // the link's words and tooltip.
            let label = link
                .descendants()
                .find(|n| class(*n) == "timeline-label")
                .and_then(|n| n.text());
            assert_eq!(label, Some(bar.label.as_str()));
            let what = format!("{}, {}", words(bar.impact), bar.when);
            let tip = format!("{} — {what}", bar.label);
            assert_eq!(link.attribute("title"), Some(tip.as_str()));
            let hidden = link
                .descendants()
                .find(|n| class(*n) == "visually-hidden")
                .and_then(|n| n.text());
            assert_eq!(hidden, Some(format!(" — {what}").as_str()));
            let rect = link
                .descendants()
                .find(|n| class(*n) == impact_class(bar.impact))
                .unwrap();
            assert!(percent(rect, "width") >= MIN_BAR);
            assert!(percent(rect, "x") + percent(rect, "width") <= 100.0);
        }
        let tip = |link: &Node| link.attribute("title").unwrap().to_owned();
        assert_eq!(
            tip(&links[0]),
            "GitHub — API errors — Major outage, 1078–1282"
        );
        assert_eq!(
            tip(&links[3]),
            "Stripe — Last minute — Maintenance, 1440–1440"
        );
        // From 17:58 to 21:22: its place on the day, in percent.
        let github = links[0]
            .descendants()
            .find(|n| class(*n) == "i-critical")
            .unwrap();
        assert_eq!(percent(github, "x"), 74.86);
        assert_eq!(percent(github, "width"), 14.17);
        // Arrows at the edges of what goes on before and after the day.
        let arrows = |link: &Node| {
            link.descendants()
                .filter(|n| n.has_tag_name("path") && class(*n).starts_with("i-"))
                .count()
        };
        assert_eq!((arrows(&links[2]), arrows(&links[0])), (2, 0));
        // Each row's hour lines: the grid at 03 to 21, the axis at 00 and 24.
        let lines = |kind: &str| {
            links[0]
                .descendants()
                .filter(|n| n.has_tag_name("line") && class(*n) == kind)
                .count()
        };
        assert_eq!((lines("grid"), lines("axis")), (7, 2));
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        for hour in ["00", "03", "12", "21", "24", "UTC"] {
            assert!(texts.contains(&hour), "{hour}");
        }
        let legend: Vec<&str> = doc
            .descendants()
            .filter(|n| {
                n.has_tag_name("li") && n.parent().is_some_and(|p| class(p) == "chart-legend")
            })
            .filter_map(|n| n.children().filter_map(|c| c.text()).next_back())
            .collect();
        assert_eq!(
            legend,
            [
                "Major outage",
                "Partial outage",
                "Degraded performance",
                "No impact",
                "Maintenance"
            ]
        );
        // The hours again below many rows, not below few.
        let hours = |html: &str| html.matches(r#"class="timeline-hours""#).count();
        assert_eq!(hours(&html), 2);
        assert_eq!(hours(&day_timeline("one", "One", &bars[..1])), 1);
    }

    #[test]
    fn untrusted_text_is_escaped() {
        let charts = one_of_each("x", EVIL);
        let mut cells = vec![day((2024, 2, 29), Shade::Level(2), EVIL)];
        cells[0].href = EVIL.to_owned();
        let mut evil_bars = bars();
        evil_bars[0].label = EVIL.to_owned();
        evil_bars[0].href = EVIL.to_owned();
        evil_bars[0].when = EVIL.to_owned();
        let mut evil_months = months();
        evil_months[0].label = EVIL.to_owned();
        evil_months[0].short = EVIL.to_owned();
        let more = [
            calendar("e-c", EVIL, 2024, &cells, &[(Shade::Level(2), EVIL)]),
            day_timeline("e-t", EVIL, &evil_bars),
            incidents_per_month("e-m", EVIL, &evil_months),
        ];
        for svg in charts.iter().chain(&more) {
            assert!(!svg.contains("<script"), "{svg}");
            assert!(!svg.contains(" onload="), "{svg}");
            assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onload&#61;&quot;x"));
            let doc = Document::parse(svg).unwrap();
            let title = doc.root_element().first_element_child().unwrap();
            assert_eq!(title.text(), Some(EVIL));
            assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
            assert!(doc.descendants().all(|n| n.attribute("onload").is_none()));
        }
        for chart in &more[..2] {
            let doc = Document::parse(chart).unwrap();
            let a = doc.descendants().find(|n| n.has_tag_name("a")).unwrap();
            assert_eq!(a.attribute("href"), Some(EVIL));
        }
        let doc = Document::parse(&more[1]).unwrap();
        let label = doc.descendants().find(|n| class(*n) == "timeline-label");
        assert_eq!(label.and_then(|n| n.text()), Some(EVIL));
        assert_eq!(esc("a\u{0}b\u{1b}c").to_string(), "abc");
        assert_eq!(
            esc(r#"&<>"'="#).to_string(),
            "&amp;&lt;&gt;&quot;&#39;&#61;"
        );
        assert_eq!(esc("é<\u{FFFE}ü—\t").to_string(), "é&lt;ü—\t");
    }

    #[test]
    fn several_charts_on_a_page_share_no_id() {
        let page = format!("<div>{}</div>", one_of_each("page", "Same title").concat());
        let doc = Document::parse(&page).unwrap();
        let ids: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.attribute("id"))
            .collect();
        let unique: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(ids.len(), unique.len());
        assert!(ids.len() > 8);
    }

    #[test]
    fn output_is_deterministic_and_empty_for_no_data() {
        assert_eq!(one_of_each("d", "T"), one_of_each("d", "T"));
        assert_eq!(incidents_per_month("e", "E", &[]), "");
        assert_eq!(downtime_per_month("e", "E", &[]), "");
        assert_eq!(day_timeline("e", "E", &[]), "");
        // A calendar is drawn even without incidents: the year's empty days.
        let empty = calendar("e", "E", 2025, &[], &[]);
        let doc = check(&empty, "e", "calendar");
        assert_eq!(day_cells(&doc).len(), 365);
        assert!(doc.descendants().all(|n| !n.has_tag_name("a")));
        let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
        assert_eq!(desc.text(), Some("0 days with incidents in 2025."));
    }

    #[test]
    fn quiet_months_still_make_a_chart() {
        let quiet = [month("March 2024", "Mar", 2024, [0; 5])];
        let svg = incidents_per_month("q", "Quiet", &quiet);
        let doc = check(&svg, "q", "months");
        let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
        assert_eq!(desc.text(), Some("Incidents in March 2024: none."));
        let bar = doc.descendants().find(|n| class(*n) == "bar").unwrap();
        assert_eq!(title_of(bar), Some("March 2024: no incidents"));
    }
}
