//! Status badges: a small SVG per provider and per component, shields.io's flat style, to
//! embed in a README. The label is the name, the value its uptime over the last 90 days
//! or that an incident is ongoing. Names come from status pages: every text is escaped,
//! and cut to a length a badge can hold.

use std::fmt::Write;

use serde::Serialize;

use crate::archive::{Archive, Stats};
use crate::model::Impact;
use crate::numbers;
use crate::render::charts::esc;
use crate::render::words;

/// What a badge says, and so its colour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Reading {
    /// Uptime over the last 90 days, in hundredths of a percent.
    Uptime(u32),
    /// An incident is ongoing, the worst of them this bad.
    Ongoing(Impact),
    /// The archive has no records of those days.
    NoRecords,
}

impl Reading {
    /// What `stats` say now: an ongoing outage first, else the last 90 days.
    pub fn of(stats: &Stats, archive: &Archive) -> Reading {
        let worst = stats
            .ongoing
            .iter()
            .map(|&i| archive.incidents[i].impact)
            .max_by_key(|&i| numbers::severity(i));
        match (worst, stats.last_90_days.uptime) {
            (Some(impact), _) => Reading::Ongoing(impact),
            (None, Some(uptime)) => Reading::Uptime(uptime),
            (None, None) => Reading::NoRecords,
        }
    }

    /// The value's words.
    pub fn text(&self) -> String {
        match self {
            Reading::Uptime(hundredths) => {
                format!("{} (90 days)", words::uptime_text(*hundredths)).replace('\u{a0}', " ")
            }
            Reading::Ongoing(Impact::Maintenance) => "maintenance".into(),
            Reading::Ongoing(_) => "ongoing incident".into(),
            Reading::NoRecords => "no records".into(),
        }
    }

    /// The value's background: white text on each is at least 4.5:1.
    fn colour(&self) -> &'static str {
        match self {
            Reading::Uptime(u) if *u >= 9990 => "#1a7f37",
            Reading::Uptime(u) if *u >= 9900 => "#9a6700",
            Reading::Uptime(_) => "#cf222e",
            Reading::Ongoing(Impact::Critical | Impact::Major) => "#cf222e",
            Reading::Ongoing(Impact::Maintenance) => "#0969da",
            Reading::Ongoing(_) => "#9a6700",
            Reading::NoRecords => "#6e7781",
        }
    }
}

/// The most characters of a name a badge shows; a longer one ends in `…`.
const LABEL_CHARS: usize = 40;

/// The badge of `label` (a provider's or a component's name) reading `reading`.
pub fn badge(label: &str, reading: &Reading) -> String {
    let label: String = match label.chars().count() > LABEL_CHARS {
        true => label.chars().take(LABEL_CHARS - 1).chain(['…']).collect(),
        false => label.to_string(),
    };
    let value = reading.text();
    const PAD: u32 = 12;
    let (lw, vw) = (width(&label) + PAD, width(&value) + PAD);
    let total = lw + vw;
    let said = esc(&format!("{label}: {value}")).to_string();
    let mut out = String::with_capacity(1024);
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{said}"><title>{said}</title><linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient><clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)"><rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{vw}" height="20" fill="{}"/><rect width="{total}" height="20" fill="url(#s)"/></g><g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11"><text x="{}" y="14" textLength="{}">{}</text><text x="{}" y="14" textLength="{}">{}</text></g></svg>"##,
        reading.colour(),
        f64::from(lw) / 2.0,
        lw - PAD,
        esc(&label),
        f64::from(lw) + f64::from(vw) / 2.0,
        vw - PAD,
        esc(&value),
    );
    out.push('\n');
    out
}

/// The width of `text` in Verdana at 11 px, near enough for a badge: `textLength` then
/// fits the text to it in any font.
fn width(text: &str) -> u32 {
    let tenths: u32 = text
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' | 'I' => 31,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '-' => 43,
            'm' | 'w' => 98,
            'M' | 'W' | '%' | '@' => 105,
            'A'..='Z' => 75,
            '0'..='9' | 'a'..='z' | '#' | '$' | '&' | '+' | '=' | '?' | '_' => 68,
            _ => 80,
        })
        .sum();
    tenths.div_ceil(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(svg: &str) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(svg).expect("well-formed SVG")
    }

    #[test]
    fn a_badge_says_its_name_and_reading_and_sizes_to_them() {
        let svg = badge("GitHub", &Reading::Uptime(9995));
        let doc = parse(&svg);
        let root = doc.root_element();
        assert_eq!(
            root.attribute("aria-label"),
            Some("GitHub: 99.95 % (90 days)")
        );
        let texts: Vec<&str> = root
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        assert_eq!(texts, ["GitHub", "99.95 % (90 days)"]);
        let long = badge("A much longer provider name", &Reading::NoRecords);
        let w = |svg: &str| -> u32 {
            parse(svg)
                .root_element()
                .attribute("width")
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(w(&long) > w(&svg));
        assert!(svg.contains("#1a7f37") && long.contains("#6e7781"));
        assert!(badge("x", &Reading::Uptime(9899)).contains("#cf222e"));
        let ongoing = badge("x", &Reading::Ongoing(Impact::Minor));
        assert!(ongoing.contains(">ongoing incident<") && ongoing.contains("#9a6700"));
    }

    #[test]
    fn hostile_names_stay_text_and_long_ones_are_cut() {
        let name = "<script>alert(1)</script>\"' onload=\"x\u{1}";
        let svg = badge(name, &Reading::NoRecords);
        let doc = parse(&svg);
        assert!(!doc.descendants().any(|n| n.has_tag_name("script")));
        assert!(
            doc.descendants()
                .all(|n| n.attributes().all(|a| a.name() != "onload"))
        );
        let label = doc
            .descendants()
            .find(|n| n.has_tag_name("text"))
            .and_then(|n| n.text())
            .unwrap();
        assert_eq!(label, "<script>alert(1)</script>\"' onload=\"x");
        let cut = badge(&"é".repeat(200), &Reading::NoRecords);
        let doc = parse(&cut);
        let label = doc.descendants().find(|n| n.has_tag_name("text")).unwrap();
        assert_eq!(label.text().unwrap().chars().count(), LABEL_CHARS);
        assert!(label.text().unwrap().ends_with('…'));
    }
}
