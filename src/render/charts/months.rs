//! The two month charts: incidents per month as stacked bars by impact, and downtime per
//! month, each with its axis, labels and legend.

use std::fmt::Write;

use super::*;

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
pub(super) fn ticks(max: f64, bases: &[f64]) -> (f64, u32) {
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
