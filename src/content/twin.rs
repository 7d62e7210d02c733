//! An incident written back as a file of the format it was read from: front matter for one
//! read from front matter, a down.guide export for one read from an export. Read again,
//! the text gives the same incident, fact for fact and update for update: the site
//! publishes it as the incident's markdown twin, for agents and for anyone who wants the
//! file behind a page. Each format keeps what only it can hold: front matter a component
//! named with a comma, an export its `+1` unnamed components and its attribution.

use std::fmt::Write as _;

use chrono::{SecondsFormat, Timelike};

use crate::content::updates::escape_once;
use crate::model::{Dialect, Duration, Incident, Status, Timestamp, Update};

/// The incident as a file that reads back as it.
pub(crate) fn write(incident: &Incident) -> String {
    match incident.dialect {
        Dialect::FrontMatter => front_matter(incident),
        Dialect::DownGuide => down_guide(incident),
    }
}

/// A string as YAML reads it back exactly: JSON's double-quoted strings are YAML too.
pub(crate) fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A time as RFC 3339 in UTC, to the fraction of a second it has.
pub(crate) fn rfc3339(at: Timestamp) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Whether a time is on a whole minute, as every time a feed or a heading of minutes gives.
pub(crate) fn whole_minute(at: Timestamp) -> bool {
    at.second() == 0 && at.nanosecond() == 0
}

/// Whether a duration reads back from its text as itself: whole minutes, some, and no
/// longer than content may write.
fn lasted(d: Duration) -> bool {
    d.seconds() > 0 && d.seconds() % 60 == 0 && d <= Duration::LONGEST
}

/// `2024-03-05 14:02 UTC` for a time on a whole minute, else RFC 3339 to the fraction.
fn heading_time(at: Timestamp) -> String {
    if whole_minute(at) {
        at.format("%Y-%m-%d %H:%M UTC").to_string()
    } else {
        rfc3339(at)
    }
}

/// A list as one line of YAML, each item quoted: `["API", "Web UI"]`.
pub(crate) fn list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let items: Vec<String> = items
        .into_iter()
        .map(|item| quoted(item.as_ref()))
        .collect();
    format!("[{}]", items.join(", "))
}

fn front_matter(incident: &Incident) -> String {
    let mut out = String::from("---\n");
    let mut field = |key: &str, value: String| {
        let _ = writeln!(out, "{key}: {value}");
    };
    field("title", quoted(&incident.title));
    // The name it gave, which makes the same slug, or the slug.
    let provider = incident.provider_name.as_deref();
    field(
        "provider",
        quoted(provider.unwrap_or(incident.provider.as_str())),
    );
    field("slug", quoted(incident.slug.as_str()));
    field("started", rfc3339(incident.started));
    if let Some(resolved) = incident.resolved {
        field("resolved", rfc3339(resolved));
    }
    field("impact", incident.impact.keyword().to_string());
    if let Some(level) = incident.level {
        field("level", level.keyword().to_string());
    }
    for (key, items) in [
        ("components", &incident.components),
        ("regions", &incident.regions),
    ] {
        if !items.is_empty() {
            field(key, list(items));
        }
    }
    if let Some(id) = &incident.id {
        field("id", quoted(id));
    }
    if let Some(url) = &incident.official_url {
        field("official_url", quoted(url.as_str()));
    }
    if !incident.aliases.is_empty() {
        let paths = incident.aliases.iter().map(|a| format!("/{}", a.path));
        field("aliases", list(paths));
    }
    if incident.draft {
        field("draft", "true".to_string());
    }
    if let Some(source) = &incident.source {
        // Where an import found it, so that the next one finds it again.
        field("source", serde_json::to_string(source).unwrap_or_default());
    }
    if let Some(extra) = &incident.extra {
        // JSON is YAML's flow style.
        field("extra", extra.to_string());
    }
    out.push_str("---\n");
    body(&mut out, incident, "## Updates", |u| u.body.clone());
    out
}

fn down_guide(incident: &Incident) -> String {
    let name = incident
        .provider_name
        .as_deref()
        .unwrap_or(incident.provider.as_str());
    let mut out = format!("# {}\n\n", incident.title);
    let mut fact = |text: String| {
        let _ = writeln!(out, "- {text}");
    };
    fact(format!(
        "Provider: [{name}](https://down.guide/{})",
        incident.provider
    ));
    if let Some(level) = incident.level {
        fact(format!("Level: {}", level.keyword()));
    }
    fact(format!("Impact: {}", incident.impact.label()));
    // `lasted 3h 24m` as down.guide writes it, where that is exact.
    match (incident.resolved, incident.duration()) {
        (Some(_), Some(d)) if whole_minute(incident.started) && lasted(d) => {
            fact(format!("lasted {d}"));
        }
        (Some(resolved), _) => fact(format!("resolved {}", heading_time(resolved))),
        (None, _) => {}
    }
    fact(format!("started {}", heading_time(incident.started)));
    // Components, then regions: the unlabelled lines, told apart by their order.
    let unnamed = incident.unnamed_components;
    if !incident.components.is_empty() || unnamed > 0 || !incident.regions.is_empty() {
        let mut line = incident.components.join(", ");
        if unnamed > 0 {
            let _ = write!(line, " +{unnamed}");
        }
        fact(line.trim_start().to_string());
    }
    if !incident.regions.is_empty() {
        fact(incident.regions.join(", "));
    }
    if let Some(id) = &incident.id {
        fact(format!("id: {id}"));
    }
    if let Some(url) = &incident.official_url {
        fact(format!("Official page: {}", url.as_str()));
    }
    out.push('\n');
    // down.guide escapes its postmortems once more than it should; reading undoes that.
    let heading = format!("## Updates from {name}");
    body(&mut out, incident, &heading, |u| match u.status {
        Status::Postmortem => escape_once(&u.body),
        _ => u.body.clone(),
    });
    if let Some(attribution) = &incident.attribution {
        let _ = write!(out, "---\n{attribution}\n");
    }
    out
}

/// The summary, then the heading and every update, postmortem included, in time order.
fn body(out: &mut String, incident: &Incident, heading: &str, text: impl Fn(&Update) -> String) {
    if !incident.summary.is_empty() {
        let _ = write!(out, "{}\n\n", incident.summary);
    }
    if incident.updates.is_empty() {
        return;
    }
    let _ = writeln!(out, "{heading}");
    for update in &incident.updates {
        let _ = write!(
            out,
            "### {}: {}\n{}\n\n",
            heading_time(update.at),
            update.status.as_str(),
            text(update)
        );
    }
}
