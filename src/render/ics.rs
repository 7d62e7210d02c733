//! iCalendar files (RFC 5545): a provider's maintenance windows, past and scheduled, for a
//! calendar app to subscribe to. Text from status pages is escaped as the format wants, so
//! a title can end no line and start no property of its own.

use crate::render::views::{IncidentView, TimeView};

/// How often a calendar app should fetch the file again (RFC 7986).
const REFRESH: &str = "PT1H";

/// The calendar of `name`'s maintenance windows (`events`, newest first).
pub fn maintenances(name: &str, events: &[&IncidentView]) -> Vec<u8> {
    let mut out = String::new();
    let mut line = |text: &str| fold(&mut out, text);
    line("BEGIN:VCALENDAR");
    line("VERSION:2.0");
    line("PRODID:-//outages//maintenance calendar//EN");
    line("CALSCALE:GREGORIAN");
    line("METHOD:PUBLISH");
    let title = text(&format!("{name}: maintenance"));
    line(&format!("NAME:{title}"));
    line(&format!("X-WR-CALNAME:{title}"));
    line(&format!("REFRESH-INTERVAL;VALUE=DURATION:{REFRESH}"));
    line(&format!("X-PUBLISHED-TTL:{REFRESH}"));
    for event in events {
        let s = &event.summary;
        line("BEGIN:VEVENT");
        line(&format!("UID:{}", text(&event.tag)));
        // The record's own latest change, not the build's time: the same file for the
        // same archive.
        line(&format!("DTSTAMP:{}", basic(&event.updated)));
        line(&format!("DTSTART:{}", basic(&s.started)));
        // Without an end, a calendar shows the start alone.
        if let Some(resolved) = s.resolved.as_ref().filter(|r| r.at > s.started.at) {
            line(&format!("DTEND:{}", basic(resolved)));
        }
        line(&format!("SUMMARY:{}", text(&s.title)));
        line(&format!(
            "DESCRIPTION:{}",
            text(&format!(
                "{}: {}. {}",
                s.provider.name, s.impact.label, s.url
            ))
        ));
        line(&format!("URL:{}", text(&s.url)));
        line("TRANSP:TRANSPARENT");
        line("END:VEVENT");
    }
    line("END:VCALENDAR");
    out.into_bytes()
}

/// A UTC time in iCalendar's basic form: `20240305T140000Z`.
fn basic(time: &TimeView) -> String {
    time.at.format("%Y%m%dT%H%M%SZ").to_string()
}

/// TEXT as RFC 5545 writes it: `\`, `;` and `,` escaped, a line break as `\n`, other
/// control characters dropped.
fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Adds a content line, folded at 75 octets (a CRLF and a space before the rest, never
/// inside a character), ending in CRLF.
fn fold(out: &mut String, line: &str) {
    let mut width = 0;
    for c in line.chars() {
        if width + c.len_utf8() > 75 {
            out.push_str("\r\n ");
            // The space counts in the next line's 75.
            width = 1;
        }
        out.push(c);
        width += c.len_utf8();
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cannot_start_a_property_and_long_lines_fold_between_characters() {
        assert_eq!(
            text("a;b,c\\d\nEND:VEVENT\u{7}"),
            "a\\;b\\,c\\\\d\\nEND:VEVENT"
        );
        let mut out = String::new();
        fold(&mut out, &format!("SUMMARY:{}", "é".repeat(60)));
        let lines: Vec<&str> = out.split("\r\n").collect();
        assert!(lines.iter().all(|l| l.len() <= 75), "{lines:?}");
        assert!(lines[1].starts_with(' '));
        assert_eq!(
            out.replace("\r\n ", ""),
            format!("SUMMARY:{}\r\n", "é".repeat(60))
        );
    }
}
