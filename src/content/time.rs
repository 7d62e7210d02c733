//! The time formats content may use. Every one is read into UTC.

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::model::Timestamp;

/// Shown when a time cannot be read.
pub const ACCEPTED_FORMATS: &str = "write RFC 3339 like `2022-01-20T17:58:00Z` or `2022-01-20T09:58:00-08:00`, or `2022-01-20 17:58 UTC`";

/// Reads RFC 3339 (any offset), or `YYYY-MM-DD HH:MM[:SS] UTC`.
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Some(time.with_timezone(&Utc));
    }
    // RFC 3339 without seconds, which people write by hand: 2022-01-20T17:58Z.
    for format in [
        "%Y-%m-%dT%H:%M%#z",
        "%Y-%m-%d %H:%M%#z",
        "%Y-%m-%d %H:%M %#z",
        "%Y-%m-%d %H:%M:%S %#z",
    ] {
        if let Ok(time) = DateTime::parse_from_str(text, format) {
            return Some(time.with_timezone(&Utc));
        }
    }
    let naive = text
        .strip_suffix("UTC")
        .or_else(|| text.strip_suffix("GMT"))
        .or_else(|| text.strip_suffix('Z'))?
        .trim_end();
    [
        "%Y-%m-%d %H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%dT%H:%M:%S",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(naive, format).ok())
    .map(|time| time.and_utc())
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
    fn unreadable_times_are_refused() {
        for text in [
            "yesterday",
            "2022-01-20",
            "2022-13-20 17:58 UTC",
            "17:58 UTC",
            "2022-01-20 17:58",
        ] {
            assert_eq!(parse_timestamp(text), None, "{text}");
        }
    }
}
