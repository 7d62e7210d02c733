//! Inline SVG charts for the default theme, hand-rolled, no JavaScript: incidents and
//! downtime per month, a year's calendar of days, one day's 24-hour timeline, the 90 days'
//! strips and a distribution's bins.
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

mod calendar;
mod histogram;
mod months;
mod strip;
#[cfg(test)]
mod tests;
mod timeline;

pub use calendar::calendar;
pub use histogram::{Bin, histogram};
pub use months::{downtime_per_month, incidents_per_month};
pub use strip::day_strip;
pub use timeline::day_timeline;

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
        "calendar" | "timeline" | "strip" => "group",
        _ => "img",
    };
    // A strip of bars stretches to its box, which the stylesheet sizes.
    let fit = match kind {
        "strip" => r#" preserveAspectRatio="none""#,
        _ => "",
    };
    let mut out = String::with_capacity(body.len() + defs.len() + 512);
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-{kind}" viewBox="0 0 {} {}"{fit} width="100%" font-size="{}" role="{role}" aria-labelledby="{id}-title {id}-desc"><title id="{id}-title">{}</title><desc id="{id}-desc">{}</desc>"#,
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
pub fn words(impact: Impact) -> &'static str {
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
/// dropped. The badges write their text with it too.
pub(crate) fn esc(text: &str) -> Esc<'_> {
    Esc(text)
}

/// Text escaped for XML as it is written into the chart, without a copy of its own.
#[derive(Clone, Copy)]
pub(crate) struct Esc<'a>(&'a str);

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
