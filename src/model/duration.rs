//! Lengths of time, as content writes them (`3h 24m`) and as pages show them.

use std::fmt;

use super::Timestamp;

/// A length of time, in whole seconds, never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(i64);

/// Why a written duration cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationError {
    /// Not like `3h 24m`.
    Unreadable,
    /// Longer than [`Duration::LONGEST`].
    TooLong,
}

impl Duration {
    /// The longest duration content may write: ten years. Longer is a typo, not an outage
    /// (and an incident that long can still give `resolved`).
    pub const LONGEST: Duration = Duration(3650 * 86_400);

    /// How `LONGEST` reads in messages.
    pub const LONGEST_TEXT: &str = "3650d (ten years)";

    pub(crate) fn between(start: Timestamp, end: Timestamp) -> Duration {
        Duration((end - start).num_seconds().max(0))
    }

    pub(crate) fn seconds(self) -> i64 {
        self.0
    }

    /// A duration of `seconds`, never negative.
    pub fn from_seconds(seconds: i64) -> Duration {
        Duration(seconds.max(0))
    }

    /// A duration of whole minutes (for constants).
    pub const fn from_minutes(minutes: i64) -> Duration {
        Duration(minutes.saturating_mul(60))
    }

    /// A duration of whole days (for constants; at most ten years of them).
    pub const fn from_days(days: i64) -> Duration {
        Duration(days.saturating_mul(86_400))
    }

    /// The sum, at most `i64::MAX` seconds.
    pub fn saturating_add(self, other: Duration) -> Duration {
        Duration(self.0.saturating_add(other.0))
    }

    /// Halfway between two durations, rounded down.
    pub fn midpoint(self, other: Duration) -> Duration {
        Duration(self.0.midpoint(other.0))
    }

    /// Reads `3h 24m`, `1d 2h`, `45m`, `90s` or `2h15m`, up to [`Duration::LONGEST`].
    pub fn parse(text: &str) -> Result<Duration, DurationError> {
        let mut total: i64 = 0;
        let mut number: Option<i64> = None;
        let mut seen_unit = false;
        for c in text.trim().chars() {
            match c {
                '0'..='9' => {
                    let digit = i64::from(c as u8 - b'0');
                    // Any overflow is far past the longest duration.
                    number = Some(
                        number
                            .unwrap_or(0)
                            .checked_mul(10)
                            .and_then(|n| n.checked_add(digit))
                            .ok_or(DurationError::TooLong)?,
                    );
                }
                ' ' if number.is_none() => {}
                'd' | 'h' | 'm' | 's' => {
                    let value = number.take().ok_or(DurationError::Unreadable)?;
                    let unit = match c {
                        'd' => 86_400,
                        'h' => 3_600,
                        'm' => 60,
                        _ => 1,
                    };
                    total = value
                        .checked_mul(unit)
                        .and_then(|seconds| total.checked_add(seconds))
                        .filter(|&total| total <= Duration::LONGEST.0)
                        .ok_or(DurationError::TooLong)?;
                    seen_unit = true;
                }
                _ => return Err(DurationError::Unreadable),
            }
        }
        if seen_unit && number.is_none() {
            Ok(Duration(total))
        } else {
            Err(DurationError::Unreadable)
        }
    }
}

impl fmt::Display for Duration {
    /// `3h 24m`, `2d 4h`, `45m`; seconds only when under a minute.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0;
        if secs < 60 {
            return write!(f, "{secs}s");
        }
        let (days, hours, minutes) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
        let parts = [(days, "d"), (hours, "h"), (minutes, "m")];
        let mut first = true;
        for (value, unit) in parts {
            if value > 0 {
                if !first {
                    f.write_str(" ")?;
                }
                write!(f, "{value}{unit}")?;
                first = false;
            }
        }
        Ok(())
    }
}
