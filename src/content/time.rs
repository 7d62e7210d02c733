//! The time formats content may use. Every one is read into UTC, and every time the content
//! gives, written or computed, lies in the years 0001–9999: feeds, sitemaps and browsers
//! know no others, and the pages' own date arithmetic stays far from chrono's limits.

use std::sync::LazyLock;

use chrono::format::{Item, Parsed, StrftimeItems};
use chrono::{DateTime, Datelike, TimeDelta, Utc};

use crate::model::{Duration, Timestamp};

/// Shown when a time cannot be read.
pub const ACCEPTED_FORMATS: &str = "write RFC 3339 like `2022-01-20T17:58:00Z` or `2022-01-20T09:58:00-08:00`, or `2022-01-20 17:58 UTC`";

/// Shown when a time is outside the years content may use.
pub const YEARS: &str = "times must fall in the years 0001 to 9999 (in UTC)";

/// Why a time cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeError {
    /// In none of the accepted formats.
    Unreadable,
    /// Read, but outside the years 0001–9999 once in UTC.
    OutOfRange,
    /// Second 60: a minute with a leap second, which no page, feed or browser can show.
    LeapSecond,
}

impl TimeError {
    /// What would be right.
    pub fn hint(self) -> &'static str {
        match self {
            TimeError::Unreadable => ACCEPTED_FORMATS,
            TimeError::OutOfRange => YEARS,
            TimeError::LeapSecond => {
                "write second 59 or the next minute: a minute has seconds 00 to 59 here"
            }
        }
    }
}

/// Reads RFC 3339 (any offset), or `YYYY-MM-DD HH:MM[:SS] UTC`.
pub fn parse_timestamp(text: &str) -> Result<Timestamp, TimeError> {
    let time = read(text).ok_or(TimeError::Unreadable)?;
    // chrono reads second 60 of any minute as a leap second, kept as a fraction past 1.
    if time.timestamp_subsec_nanos() >= 1_000_000_000 {
        return Err(TimeError::LeapSecond);
    }
    in_range(time)
}

/// The end of something that started at `start` and lasted `duration`.
pub fn end_of(start: Timestamp, duration: Duration) -> Result<Timestamp, TimeError> {
    TimeDelta::try_seconds(duration.seconds())
        .and_then(|delta| start.checked_add_signed(delta))
        .ok_or(TimeError::OutOfRange)
        .and_then(in_range)
}

fn in_range(time: Timestamp) -> Result<Timestamp, TimeError> {
    if (1..=9999).contains(&time.year()) {
        Ok(time)
    } else {
        Err(TimeError::OutOfRange)
    }
}

/// A format, parsed once: chrono's `parse_from_str` parses its pattern on every call, and
/// an archive has a time in every update heading.
struct Format(Vec<Item<'static>>);

impl Format {
    fn new(pattern: &'static str) -> Format {
        Format(
            StrftimeItems::new(pattern)
                .parse()
                .expect("the accepted formats are valid patterns"),
        )
    }

    fn read(&self, text: &str) -> Option<Parsed> {
        let mut parsed = Parsed::new();
        chrono::format::parse(&mut parsed, text, self.0.iter()).ok()?;
        Some(parsed)
    }
}

/// RFC 3339 without seconds, which people write by hand (`2022-01-20T17:58+01:00`).
static WITH_OFFSET: LazyLock<[Format; 4]> = LazyLock::new(|| {
    [
        Format::new("%Y-%m-%dT%H:%M%#z"),
        Format::new("%Y-%m-%d %H:%M%#z"),
        Format::new("%Y-%m-%d %H:%M %#z"),
        Format::new("%Y-%m-%d %H:%M:%S %#z"),
    ]
});

/// A time in UTC once its `UTC`, `GMT` or `Z` is taken off (`2022-01-20 17:58`).
static IN_UTC: LazyLock<[Format; 4]> = LazyLock::new(|| {
    [
        Format::new("%Y-%m-%d %H:%M"),
        Format::new("%Y-%m-%d %H:%M:%S"),
        Format::new("%Y-%m-%dT%H:%M"),
        Format::new("%Y-%m-%dT%H:%M:%S"),
    ]
});

fn read(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Some(time.with_timezone(&Utc));
    }
    // `… UTC` first: the form of update headings, and so the most common. A text ending in
    // `Z` reads the same either way.
    let naive = text
        .strip_suffix("UTC")
        .or_else(|| text.strip_suffix("GMT"))
        .or_else(|| text.strip_suffix('Z'))
        .map(str::trim_end);
    if let Some(time) = naive.and_then(|naive| {
        IN_UTC
            .iter()
            .find_map(|format| format.read(naive)?.to_naive_datetime_with_offset(0).ok())
    }) {
        return Some(time.and_utc());
    }
    WITH_OFFSET
        .iter()
        .find_map(|format| format.read(text)?.to_datetime().ok())
        .map(|time| time.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> String {
        parse_timestamp(text)
            .map(|t| t.to_rfc3339())
            .unwrap_or_default()
    }

    #[test]
    fn years_outside_0001_to_9999_are_refused() {
        for text in [
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:30:00+01:00",
            "9999-12-31T23:00:00-05:00",
        ] {
            assert_eq!(parse_timestamp(text), Err(TimeError::OutOfRange), "{text}");
        }
        for text in [
            "10000-01-01 00:00 UTC",
            "+12345-01-01T00:00Z",
            "-0001-01-01 00:00 UTC",
        ] {
            assert!(parse_timestamp(text).is_err(), "{text}");
        }
        assert!(parse_timestamp("0001-01-01T00:00:00Z").is_ok());
        assert!(parse_timestamp("9999-12-31T23:59:59Z").is_ok());
    }

    #[test]
    fn an_end_past_9999_is_refused() {
        let start = parse_timestamp("9999-12-31 12:00 UTC").unwrap();
        assert!(end_of(start, Duration::parse("11h").unwrap()).is_ok());
        assert_eq!(
            end_of(start, Duration::parse("1d").unwrap()),
            Err(TimeError::OutOfRange)
        );
    }

    #[test]
    fn every_accepted_format_reads_to_utc() {
        let want = "2022-01-20T17:58:00+00:00";
        assert_eq!(utc("2022-01-20T17:58:00Z"), want);
        assert_eq!(utc("2022-01-20T09:58:00-08:00"), want);
        assert_eq!(utc("2022-01-20T19:58:00+02:00"), want);
        assert_eq!(utc("2022-01-20 17:58 UTC"), want);
        assert_eq!(utc("2022-01-20 17:58:00 UTC"), want);
        assert_eq!(utc("2022-01-20T17:58Z"), want);
        assert_eq!(utc("2022-01-20 17:58:00Z"), want);
        assert_eq!(utc("2022-01-20 09:58 -08:00"), want);
    }

    #[test]
    fn second_60_is_refused_even_where_a_leap_second_was() {
        for text in [
            "2024-03-05T22:59:60Z",
            "2016-12-31T23:59:60Z",
            "2016-12-31 23:59:60 UTC",
            "2017-01-01T00:59:60+01:00",
            "2016-12-31T23:59:60.5Z",
        ] {
            assert_eq!(parse_timestamp(text), Err(TimeError::LeapSecond), "{text}");
        }
        assert!(parse_timestamp("2016-12-31T23:59:59.999Z").is_ok());
    }

    #[test]
    fn unreadable_times_are_refused() {
        for text in [
            "yesterday",
            "2022-01-20",
            "2022-13-20 17:58 UTC",
            "17:58 UTC",
            "2022-01-20 17:58",
        ] {
            assert_eq!(parse_timestamp(text), Err(TimeError::Unreadable), "{text}");
        }
    }
}
