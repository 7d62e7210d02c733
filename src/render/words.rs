//! How pages write numbers and names: durations, percentages, counts with their thousands
//! grouped, months, and names in a reader's order. Pure text, shared by the views, the
//! charts and the templates' filters, so every page writes a figure alike.

use std::cmp::Ordering;

use crate::model::{Duration, Impact};

/// A length of time as pages show it, `0m` for none.
pub fn length(duration: Duration) -> String {
    if duration.seconds() == 0 {
        "0m".to_string()
    } else {
        duration.to_string()
    }
}

/// Counts are written as messages write them, so a page and the terminal group alike.
pub use crate::diagnostics::thousands;

/// Names in the order a reader looks them up: letters without regard to case, and a run of
/// digits by its value (`Zone 9` before `Zone 10`); names that differ only there (`ACME`,
/// `Acme`) by their characters, so the order never depends on the input's.
pub fn by_name(a: &str, b: &str) -> Ordering {
    let (mut left, mut right) = (name_parts(a), name_parts(b));
    loop {
        let order = match (left.next(), right.next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => x.cmp_folded(&y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
}

/// A piece of a name as [`by_name`] compares it.
enum NamePart<'a> {
    /// A run of ASCII digits.
    Digits(&'a str),
    Char(char),
}

impl NamePart<'_> {
    fn cmp_folded(&self, other: &NamePart) -> Ordering {
        match (self, other) {
            (NamePart::Digits(a), NamePart::Digits(b)) => {
                let (x, y) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
                (x.len().cmp(&y.len())).then_with(|| x.cmp(y))
            }
            (a, b) => a.first().to_lowercase().cmp(b.first().to_lowercase()),
        }
    }

    fn first(&self) -> char {
        match self {
            NamePart::Digits(run) => run.chars().next().unwrap_or('0'),
            NamePart::Char(c) => *c,
        }
    }
}

/// A name as runs of digits and single other characters.
fn name_parts(name: &str) -> impl Iterator<Item = NamePart<'_>> {
    let mut rest = name;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        if c.is_ascii_digit() {
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            let (run, tail) = rest.split_at(end);
            rest = tail;
            Some(NamePart::Digits(run))
        } else {
            rest = &rest[c.len_utf8()..];
            Some(NamePart::Char(c))
        }
    })
}

/// `99.95 %` from hundredths of a percent (a no-break space keeps it on one line).
pub fn uptime_text(hundredths: u32) -> String {
    format!("{}.{:02}\u{a0}%", hundredths / 100, hundredths % 100)
}

/// The month names, for labels.
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `March 2024` for `(2024, 3)`.
pub fn month_label((year, month): (i32, u32)) -> String {
    format!("{} {year}", month_name(month))
}

/// `March` for 3 (months outside 1–12 wrap, never panic).
pub fn month_name(month: u32) -> &'static str {
    MONTHS[(month as usize + 11) % 12]
}

/// What a list of one impact holds, as its heading says: `Major outages`.
pub fn impact_heading(impact: Impact) -> &'static str {
    match impact {
        Impact::Critical => "Major outages",
        Impact::Major => "Partial outages",
        Impact::Minor => "Degraded performance",
        Impact::None => "Incidents with no impact",
        Impact::Maintenance => "Maintenance",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_as_a_reader_looks_them_up() {
        let mut names = [
            "Zone 10",
            "reddit",
            "New Relic",
            "Zone 9",
            "1Password",
            "Acme",
            "ACME",
            "Zone 09",
            "Édition",
            "amazon",
        ];
        names.sort_by(|a, b| by_name(a, b));
        assert_eq!(
            names,
            [
                "1Password",
                "ACME",
                "Acme",
                "amazon",
                "New Relic",
                "reddit",
                "Zone 09",
                "Zone 9",
                "Zone 10",
                "Édition"
            ]
        );
    }
}
