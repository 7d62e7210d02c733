//! One day's 24-hour timeline: HTML rows around small SVGs.

use std::fmt::Write;

use super::*;

/// A 24-hour timeline: the hours 00…24 (UTC) above, one row per bar in the given order, and
/// a legend with words. Each row is one link (a big enough target for a thumb) with the
/// bar's label written whole as HTML text, which wraps to the width of the card, and under
/// it the bar on the day's track: a shape of the impact's class and pattern, at least
/// [`MIN_BAR`] wide, with an arrow where it began the day before or goes on after. The
/// link's words and tooltip say the impact and when. Empty input → empty String.
///
/// Unlike the other charts this is HTML around small SVGs: the track is placed in
/// percentages of the row, so the chart takes its card's whole width while its text keeps
/// the page's size. With more than 4 rows the hours are repeated below. The track and the
/// hours' lines are the stylesheet's (`.timeline-bar`), drawn once for every row: in each
/// row's SVG they were some 550 bytes, half a day page.
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
pub(super) const MIN_BAR: f64 = 0.6;

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
    // Where the stylesheet draws the track (`.timeline-bar`): the bar covers it.
    const TOP: f64 = 4.0;
    const BAR: f64 = 12.0;
    let what = format!("{}, {}", words(bar.impact), bar.when);
    let _ = write!(
        out,
        r#"<li><a href="{}" title="{} — {}"><span class="timeline-label">{}</span><span class="visually-hidden"> — {}</span><svg class="timeline-bar" width="100%" height="20" aria-hidden="true">"#,
        esc(&bar.href),
        esc(&bar.label),
        esc(&what),
        esc(&bar.label),
        esc(&what)
    );
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
