//! A distribution as horizontal bars, one per bin: its label on the left, its count at the
//! bar's end, its share in the tooltip. Rows rather than columns, so the labels read whole
//! on a phone.

use std::fmt::Write;

use super::*;

/// One bin of a histogram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bin {
    /// "5–15 min"
    pub label: String,
    pub count: usize,
}

/// Where the bars begin, after the labels ("30–60 min" at 12 units a character's 0.6 em).
const LABEL_W: f64 = 72.0;
/// Room after the longest bar for its count ("12,345").
const COUNT_W: f64 = 46.0;
const ROW: f64 = 20.0;
const BAR: f64 = 14.0;

/// The bins as bars scaled to the largest, each with a `<title>` ("5–15 min: 34 of 412
/// incidents, 8 %"); `of` names what is counted ("incidents"). No bin, or none counted: an
/// empty string.
pub fn histogram(id: &str, title: &str, of: &str, bins: &[Bin]) -> String {
    let total: usize = bins.iter().map(|b| b.count).sum();
    let Some(most) = bins.iter().max_by_key(|b| b.count).filter(|_| total > 0) else {
        return String::new();
    };
    let desc = format!(
        "{} {of} by bin, the most ({}) in {}: {}.",
        thousands(total),
        thousands(most.count),
        most.label,
        (bins.iter())
            .map(|b| format!("{} {}", b.label, thousands(b.count)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let span = WIDTH - LABEL_W - COUNT_W;
    let mut body = String::new();
    for (row, bin) in bins.iter().enumerate() {
        let y = ROW * row as f64;
        let w = span * bin.count as f64 / most.count as f64;
        let share = (bin.count * 100 + total / 2) / total;
        let _ = write!(
            body,
            r#"<g class="bar"><title>{}: {} of {} {of}, {share}{}%</title><rect class="track" x="{}" y="{}" width="{}" height="{}"/>"#,
            esc(&bin.label),
            thousands(bin.count),
            thousands(total),
            '\u{a0}',
            num(LABEL_W),
            num(y + 3.0),
            num(span),
            num(BAR),
        );
        if bin.count > 0 {
            // At least a sliver, so a count of one among thousands still shows.
            let _ = write!(
                body,
                r#"<rect class="hist" x="{}" y="{}" width="{}" height="{}"/>"#,
                num(LABEL_W),
                num(y + 3.0),
                num(w.max(1.5)),
                num(BAR),
            );
        }
        let _ = write!(
            body,
            r#"<text class="label" x="{}" y="{}" text-anchor="end">{}</text><text class="label" x="{}" y="{}">{}</text></g>"#,
            num(LABEL_W - 6.0),
            num(y + 14.5),
            esc(&bin.label),
            num(LABEL_W + w.max(1.5) + 4.0),
            num(y + 14.5),
            thousands(bin.count),
        );
    }
    let height = ROW * bins.len() as f64 + 4.0;
    svg(
        id,
        "histogram",
        title,
        &desc,
        WIDTH,
        height,
        FONT,
        "",
        &body,
    )
}
