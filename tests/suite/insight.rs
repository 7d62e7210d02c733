//! The insight pages against an independent count: the sample archive's incidents, read
//! back from the API, counted minute by minute by the rules as written, must give the numbers
//! the provider pages show. And the day pages, "at the same time" and the components
//! follow the incidents.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};
use serde_json::Value;

use crate::common::{ROW_TITLE, Site, length, select, stderr, text, tree};

type Time = DateTime<Utc>;

/// One incident as the API gives it.
struct Fact {
    provider: String,
    slug: String,
    title: String,
    impact: String,
    started: Time,
    /// Resolved, or for an ongoing one its latest update.
    end: Time,
    resolved: bool,
    components: Vec<String>,
}

fn time(value: &Value) -> Time {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

fn build_sample() -> (tempfile::TempDir, BTreeMap<String, Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(["build", "--root", env!("CARGO_MANIFEST_DIR"), "--output"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let files = tree(&out);
    (dir, files)
}

fn facts(files: &BTreeMap<String, Vec<u8>>) -> Vec<Fact> {
    files
        .iter()
        .filter(|(path, _)| {
            path.starts_with("api/v1/")
                && path.matches('/').count() == 3
                && !path.starts_with("api/v1/days/")
                && !path.ends_with("/stats.json")
                && !path.ends_with("/components.json")
        })
        .map(|(_, bytes)| {
            let json: Value = serde_json::from_slice(bytes).unwrap();
            let started = time(&json["started"]);
            let resolved = !json["resolved"].is_null();
            Fact {
                provider: json["provider"].as_str().unwrap().to_string(),
                slug: json["slug"].as_str().unwrap().to_string(),
                title: json["title"].as_str().unwrap().to_string(),
                impact: json["impact"].as_str().unwrap().to_string(),
                started,
                end: if resolved {
                    time(&json["resolved"])
                } else {
                    time(&json["updated"])
                },
                resolved,
                components: json["components"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap().to_string())
                    .collect(),
            }
        })
        .collect()
}

/// Thousandths of a minute that count as downtime.
fn weight(impact: &str) -> i64 {
    match impact {
        "critical" => 1000,
        "major" => 300,
        _ => 0,
    }
}

fn uptime(down: i64, from: Time, to: Time) -> String {
    let length = (to - from).num_seconds();
    let hundredths = (length - down) * 10_000 / length;
    format!("{}.{:02} %", hundredths / 100, hundredths % 100)
}

fn median(mut list: Vec<i64>) -> String {
    list.sort();
    match list.len() {
        0 => "—".into(),
        n if n % 2 == 1 => length(list[n / 2]),
        n => length((list[n / 2 - 1] + list[n / 2]) / 2),
    }
}

/// A component name as a page's slug: lower case, runs of anything else one `-`.
fn component_slug(name: &str) -> String {
    name.to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// Whether `outages sync` follows a sample provider: its `_index.md` names a status page
/// and does not say `sync: false`.
fn synced(provider: &str) -> bool {
    let path = format!(
        "{}/content/{provider}/_index.md",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.contains("\nstatus_page:") && !text.contains("\nsync: false")
}

#[test]
fn the_numbers_on_the_sample_pages_match_an_independent_count() {
    let (_dir, files) = build_sample();
    let facts = facts(&files);
    assert!(facts.len() >= 31);
    let through = facts.iter().map(|f| f.end).max().unwrap();
    let providers: BTreeSet<&str> = facts.iter().map(|f| f.provider.as_str()).collect();
    let mut checked = 0;
    let mut with_parts = 0;
    for provider in providers {
        let mine: Vec<&Fact> = facts.iter().filter(|f| f.provider == provider).collect();
        let parts: BTreeSet<String> = mine
            .iter()
            .flat_map(|f| f.components.iter().map(|c| component_slug(c)))
            .collect();
        // Every minute with downtime, at the worst weight active then: for the whole, for
        // each part, and on every part (incidents that name none).
        let mut minutes: BTreeMap<i64, i64> = BTreeMap::new();
        let mut own: BTreeMap<(i64, &str), i64> = BTreeMap::new();
        let mut everywhere: BTreeMap<i64, i64> = BTreeMap::new();
        for fact in &mine {
            assert_eq!(fact.started.timestamp() % 60, 0, "minute-aligned sample");
            assert_eq!(fact.end.timestamp() % 60, 0, "minute-aligned sample");
            let named: BTreeSet<String> =
                fact.components.iter().map(|c| component_slug(c)).collect();
            for minute in fact.started.timestamp() / 60..fact.end.timestamp() / 60 {
                let w = minutes.entry(minute).or_default();
                *w = (*w).max(weight(&fact.impact));
                if named.is_empty() {
                    let w = everywhere.entry(minute).or_default();
                    *w = (*w).max(weight(&fact.impact));
                }
                for part in &named {
                    let part = parts.get(part).unwrap().as_str();
                    let w = own.entry((minute, part)).or_default();
                    *w = (*w).max(weight(&fact.impact));
                }
            }
        }
        let count = parts.len().max(1) as i64;
        // By minute: the mean over the parts, in millionths, as the pages round it.
        let mean = |minute: i64| -> i64 {
            let shared = everywhere.get(&minute).copied().unwrap_or(0);
            let sum: i64 = if parts.is_empty() {
                shared
            } else {
                parts
                    .iter()
                    .map(|p| {
                        own.get(&(minute, p.as_str()))
                            .copied()
                            .unwrap_or(0)
                            .max(shared)
                    })
                    .sum()
            };
            sum * 1000 / count
        };
        let down = |from: Time, to: Time| -> i64 {
            minutes
                .range(from.timestamp() / 60..to.timestamp() / 60)
                .map(|(_, w)| 60 * w)
                .sum::<i64>()
                / 1000
        };
        // Rounded up: any downtime keeps the uptime below 100 %.
        let parts_down = |from: Time, to: Time| -> i64 {
            let millionths: i64 = minutes
                .range(from.timestamp() / 60..to.timestamp() / 60)
                .map(|(&m, _)| 60 * mean(m))
                .sum();
            (millionths + 999_999) / 1_000_000
        };
        // The records: from the first incident to the archive's end for a provider sync
        // follows, else to its own last record.
        let covered_from = mine.iter().map(|f| f.started).min().unwrap();
        let covered_to = if synced(provider) {
            through
        } else {
            mine.iter().map(|f| f.end).max().unwrap()
        };
        let row = |label: String, from: Time, to: Time| {
            let started: Vec<&&Fact> = mine
                .iter()
                .filter(|f| from <= f.started && f.started < to)
                .collect();
            let outages: Vec<&&Fact> = started
                .iter()
                .copied()
                .filter(|f| f.impact != "maintenance")
                .collect();
            let resolved = outages
                .iter()
                .filter(|f| f.resolved && f.end > f.started)
                .map(|f| (f.end - f.started).num_seconds())
                .collect();
            let (a, b) = (from.max(covered_from), to.min(covered_to));
            // Of the covered part only, which the cell names when it is not the whole.
            let uptime_text = if a < b && (a, b) == (from, to) {
                uptime(parts_down(a, b), a, b)
            } else if a < b {
                format!(
                    "{} of {}",
                    uptime(parts_down(a, b), a, b),
                    length((b - a).num_seconds())
                )
            } else {
                "no records".to_string()
            };
            vec![
                label,
                outages.len().to_string(),
                length(down(from, to)),
                uptime_text,
                median(resolved),
                (started.len() - outages.len()).to_string(),
            ]
        };
        let year_start = |y: i32| Utc.with_ymd_and_hms(y, 1, 1, 0, 0, 0).unwrap().min(through);
        let first = mine.iter().map(|f| f.started.year()).min().unwrap();
        let mut expected = vec![row(
            "Last 12 months".into(),
            through - chrono::Months::new(12),
            through,
        )];
        for year in (first..=through.year()).rev() {
            expected.push(row(
                year.to_string(),
                year_start(year),
                year_start(year + 1),
            ));
        }
        expected.push(row("All time".into(), year_start(first), through));

        let page = scraper::Html::parse_document(
            std::str::from_utf8(&files[&format!("{provider}/index.html")]).unwrap(),
        );
        let shown: Vec<Vec<String>> = select(&page, "table.periods tbody tr")
            .iter()
            .map(|tr| {
                tr.child_elements()
                    .map(|cell| text(&cell).replace('\u{a0}', " "))
                    .collect()
            })
            .collect();
        assert_eq!(shown, expected, "{provider}");
        // The last 90 days' uptime, beside the provider's bars: from the midnight that
        // begins the first of the 90 UTC days to the archive's end, of its records.
        let window = midnight(through.date_naive() - chrono::Days::new(89));
        let (a, b) = (window.max(covered_from), through.min(covered_to));
        let recent = match a < b {
            true if (a, b) == (window, through) => {
                format!("{} uptime", uptime(parts_down(a, b), a, b))
            }
            true => format!(
                "{} uptime of {} on record",
                uptime(parts_down(a, b), a, b),
                length((b - a).num_seconds())
            ),
            false => "no records".to_string(),
        };
        let head = select(&page, "#recent .recent-uptime");
        assert_eq!(text(&head[0]).replace('\u{a0}', " "), recent, "{provider}");
        checked += 1;
        with_parts += usize::from(parts.len() > 1);
    }
    assert!(checked >= 6);
    assert!(
        with_parts >= 3,
        "the sample has providers of several components"
    );
}

fn midnight(day: NaiveDate) -> Time {
    Utc.from_utc_datetime(&day.and_hms_opt(0, 0, 0).unwrap())
}

/// The UTC days an incident touches: from its start's to the last that begins before it
/// ends.
fn days_of(fact: &Fact) -> Vec<NaiveDate> {
    let mut days = vec![fact.started.date_naive()];
    while let Some(next) = days.last().unwrap().succ_opt()
        && midnight(next) < fact.end
    {
        days.push(next);
    }
    days
}

/// A strip's bars, one class per day, read back from its SVG: a link's rect is one day
/// at `x`, a dashed path `M{x} 15h{w}` a run of days.
fn strip_days(strip: &scraper::ElementRef) -> Vec<String> {
    let mut days: BTreeMap<i64, String> = BTreeMap::new();
    for node in strip.child_elements() {
        let (shape, x, n) = match node.value().name() {
            "a" => {
                let rect = node.child_elements().next().unwrap();
                let x: i64 = rect.value().attr("x").unwrap().parse().unwrap();
                assert!(node.value().attr("href").unwrap().contains("/days/"));
                (rect, x, 1)
            }
            "path" => {
                let d = node.value().attr("d").unwrap();
                let (x, w) = d[1..].split_once(" 15h").unwrap();
                let (x, w): (i64, i64) = (x.parse().unwrap(), w.parse().unwrap());
                (node, x, (w + 2) / 5)
            }
            _ => continue,
        };
        assert_eq!(x % 5, 0);
        let title = shape.child_elements().next().map(|t| text(&t));
        assert!(
            title.is_some_and(|t| !t.is_empty()),
            "every bar says its day"
        );
        for day in 0..n {
            let class = shape.value().attr("class").unwrap().to_string();
            assert!(days.insert(x / 5 + day, class).is_none(), "each day once");
        }
    }
    assert_eq!(
        days.keys().copied().collect::<Vec<_>>(),
        (0..90).collect::<Vec<_>>()
    );
    days.into_values().collect()
}

#[test]
fn ninety_day_bars_colour_each_day_by_its_worst_incident_and_grey_out_no_records() {
    let (_dir, files) = build_sample();
    let facts = facts(&files);
    let through = facts.iter().map(|f| f.end).max().unwrap();
    let first = through.date_naive() - chrono::Days::new(89);
    let severity = ["maintenance", "none", "minor", "major", "critical"];
    let rank = |impact: &str| severity.iter().position(|s| *s == impact).unwrap();
    let providers: BTreeSet<&str> = facts.iter().map(|f| f.provider.as_str()).collect();
    let (mut marked, mut unrecorded, mut components) = (0, 0, 0);
    for provider in providers {
        let mine: Vec<&Fact> = facts.iter().filter(|f| f.provider == provider).collect();
        let covered_from = mine.iter().map(|f| f.started).min().unwrap().date_naive();
        let covered_to = match synced(provider) {
            true => through,
            false => mine.iter().map(|f| f.end).max().unwrap(),
        }
        .date_naive();
        let expect = |of: &[&&Fact]| -> Vec<String> {
            (0..90)
                .map(|n| first + chrono::Days::new(n))
                .map(|day| {
                    let worst = of
                        .iter()
                        .filter(|f| days_of(f).contains(&day))
                        .map(|f| f.impact.as_str())
                        .max_by_key(|i| rank(i));
                    match worst {
                        Some(impact) => format!("i-{impact}"),
                        None if covered_from <= day && day <= covered_to => "up".into(),
                        None => "unrecorded".into(),
                    }
                })
                .collect()
        };
        let page = scraper::Html::parse_document(
            std::str::from_utf8(&files[&format!("{provider}/index.html")]).unwrap(),
        );
        let strips = select(&page, "#recent svg.chart-strip");
        let whole = strip_days(&strips[0]);
        assert_eq!(
            whole,
            expect(&mine.iter().collect::<Vec<_>>()),
            "{provider}"
        );
        marked += whole.iter().filter(|c| c.starts_with("i-")).count();
        unrecorded += whole.iter().filter(|c| *c == "unrecorded").count();
        // A row per component with an incident in those days, after the provider's; the
        // others listed apart.
        let names: Vec<String> = select(&page, "#recent .recent-name a")
            .iter()
            .map(text)
            .collect();
        assert_eq!(names.len() + 1, strips.len());
        let all: BTreeSet<&str> = mine
            .iter()
            .flat_map(|f| f.components.iter().map(String::as_str))
            .collect();
        for name in all {
            let theirs: Vec<&&Fact> = mine
                .iter()
                .filter(|f| f.components.iter().any(|c| c == name))
                .collect();
            let expected = expect(&theirs);
            let row = names.iter().position(|n| n == name);
            let quiet = select(&page, "#recent .recent-quiet a")
                .iter()
                .any(|a| text(a) == name);
            match row {
                Some(at) => {
                    assert_eq!(strip_days(&strips[at + 1]), expected, "{provider}: {name}");
                    components += 1;
                }
                None => assert!(
                    !expected.iter().any(|c| c.starts_with("i-"))
                        && (quiet || !expected.iter().any(|c| c == "up")),
                    "{provider}: {name} is listed as quiet, or has no records then"
                ),
            }
        }
    }
    assert!(
        marked >= 3 && unrecorded >= 90 && components >= 2,
        "{marked} {unrecorded} {components}"
    );
}

#[test]
fn providers_compared_agree_with_each_providers_page_in_three_orders() {
    let (_dir, files) = build_sample();
    let facts = facts(&files);
    let through = facts.iter().map(|f| f.end).max().unwrap();
    let html =
        |path: &str| scraper::Html::parse_document(std::str::from_utf8(&files[path]).unwrap());
    let home = html("index.html");
    let nav: Vec<String> = select(&home, "header nav a")
        .iter()
        .filter(|a| text(a) == "Providers")
        .map(|a| a.value().attr("href").unwrap().to_string())
        .collect();
    assert_eq!(nav, ["/providers/"]);
    let mut orders = Vec::new();
    for path in [
        "providers/",
        "providers/by-uptime/",
        "providers/by-incidents/",
    ] {
        let page = html(&format!("{path}index.html"));
        let rows: Vec<Vec<String>> = select(&page, "table.compare tbody tr")
            .iter()
            .map(|tr| tr.child_elements().map(|c| text(&c)).collect())
            .collect();
        let providers: BTreeSet<&str> = facts.iter().map(|f| f.provider.as_str()).collect();
        assert_eq!(rows.len(), providers.len(), "{path}: a row per provider");
        for (row, tr) in rows.iter().zip(select(&page, "table.compare tbody tr")) {
            let th_a = scraper::Selector::parse("th a").unwrap();
            let link = tr
                .select(&th_a)
                .next()
                .unwrap()
                .value()
                .attr("href")
                .unwrap()
                .trim_matches('/')
                .to_string();
            let mine: Vec<&Fact> = facts.iter().filter(|f| f.provider == link).collect();
            // What the provider's own page says of the same 12 months.
            let own = html(&format!("{link}/index.html"));
            let stat = |name: &str| {
                select(&own, "dl.stats > div")
                    .iter()
                    .find(|d| text(&d.child_elements().next().unwrap()) == name)
                    .map(|d| text(&d.child_elements().nth(1).unwrap()))
                    .unwrap()
            };
            let uptime = row[1].split(" of ").next().unwrap().to_string();
            assert_eq!(uptime, stat("Uptime"), "{path}: {link}");
            assert_eq!(row[2], stat("Incidents"), "{path}: {link}");
            assert_eq!(row[4], stat("Median time to resolve"), "{path}: {link}");
            assert_eq!(row[5], stat("Longest outage"), "{path}: {link}");
            assert_eq!(row[6], stat("Last incident"), "{path}: {link}");
            // Counted here: the major outages that started in those months, and the first
            // record.
            let year_ago = through - chrono::Months::new(12);
            let major = mine
                .iter()
                .filter(|f| f.impact == "critical" && year_ago <= f.started)
                .count();
            assert_eq!(row[3], major.to_string(), "{path}: {link}");
            let first = mine.iter().map(|f| f.started).min().unwrap();
            assert_eq!(row[7], first.date_naive().to_string(), "{path}: {link}");
        }
        orders.push(rows);
    }
    let names: Vec<&str> = orders[0].iter().map(|r| r[0].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    assert_eq!(names, sorted, "by name");
    let uptime = |r: &Vec<String>| -> Option<f64> { r[1].split(' ').next().unwrap().parse().ok() };
    let uptimes: Vec<Option<f64>> = orders[1].iter().map(uptime).collect();
    assert!(
        uptimes.windows(2).all(|w| match (w[0], w[1]) {
            (Some(a), Some(b)) => a <= b,
            (None, Some(_)) => false,
            _ => true,
        }),
        "lowest uptime first, no records last: {uptimes:?}"
    );
    let counts: Vec<u64> = orders[2]
        .iter()
        .map(|r| r[2].replace(',', "").parse().unwrap())
        .collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "most incidents first"
    );
    assert!(counts[0] > *counts.last().unwrap() && uptimes[0] != uptimes[uptimes.len() - 1]);
}

#[test]
fn day_pages_list_every_incident_active_that_day_and_only_those() {
    let (_dir, files) = build_sample();
    let facts = facts(&files);
    let mut days: BTreeMap<NaiveDate, BTreeSet<String>> = BTreeMap::new();
    for fact in &facts {
        let mut day = fact.started.date_naive();
        loop {
            days.entry(day)
                .or_default()
                .insert(format!("/{}/{}/", fact.provider, fact.slug));
            day = day.succ_opt().unwrap();
            let midnight = Utc.from_utc_datetime(&day.and_hms_opt(0, 0, 0).unwrap());
            if midnight >= fact.end {
                break;
            }
        }
    }
    let pages: BTreeSet<NaiveDate> = files
        .keys()
        .filter_map(|p| p.strip_prefix("days/")?.strip_suffix("/index.html"))
        .map(|d| d.parse().unwrap())
        .collect();
    assert_eq!(
        pages,
        days.keys().copied().collect(),
        "a page for each day with an incident, and no other"
    );
    for (day, expected) in &days {
        let page = scraper::Html::parse_document(
            std::str::from_utf8(&files[&format!("days/{day}/index.html")]).unwrap(),
        );
        let listed: BTreeSet<String> = select(&page, &format!(".incident-list {ROW_TITLE}"))
            .iter()
            .map(|a| a.value().attr("href").unwrap().to_string())
            .collect();
        assert_eq!(&listed, expected, "{day}");
        let bars = select(&page, ".chart-timeline a");
        assert_eq!(bars.len(), expected.len(), "one bar per incident on {day}");
    }
}

#[test]
fn at_the_same_time_names_overlapping_incidents_of_other_providers() {
    let (_dir, files) = build_sample();
    let facts = facts(&files);
    let mut seen = 0;
    for fact in &facts {
        let mut expected: Vec<(i64, i64, String)> = facts
            .iter()
            .filter(|o| o.provider != fact.provider)
            .filter_map(|o| {
                let shared = (fact.end.min(o.end) - fact.started.max(o.started)).num_seconds();
                let apart = (o.started - fact.started).num_seconds().abs();
                (shared > 0).then(|| (apart, -shared, o.title.clone()))
            })
            .collect();
        expected.sort_by_key(|e| (e.0, e.1));
        let page = scraper::Html::parse_document(
            std::str::from_utf8(&files[&format!("{}/{}/index.html", fact.provider, fact.slug)])
                .unwrap(),
        );
        let shown: Vec<String> = select(&page, &format!(".same-time {ROW_TITLE}"))
            .iter()
            .map(text)
            .collect();
        let mut titles: Vec<String> = expected.into_iter().take(5).map(|e| e.2).collect();
        // Equal overlaps may come in either order here; the page's order is checked by the
        // unit tests.
        let mut sorted = shown.clone();
        sorted.sort();
        titles.sort();
        assert_eq!(sorted, titles, "{}/{}", fact.provider, fact.slug);
        seen += shown.len();
    }
    assert!(seen > 0, "the sample has overlapping outages");
}

#[test]
fn at_the_same_time_puts_what_began_with_it_before_what_lasted_long() {
    let at = |provider: &str, slug: &str, started: &str, resolved: &str| {
        (
            format!("content/{provider}/{slug}.md"),
            format!(
                "---\ntitle: {slug}\nstarted: {started}\nresolved: {resolved}\nimpact: major\n---\n"
            ),
        )
    };
    let site = Site::from_owned(&[
        at(
            "github",
            "down",
            "2026-08-17T14:00:00Z",
            "2026-08-17T18:00:00Z",
        ),
        // Weeks long, begun weeks or a day before: the longest overlaps.
        at(
            "twilio",
            "sms-1",
            "2026-07-20T00:00:00Z",
            "2026-09-20T00:00:00Z",
        ),
        at(
            "twilio",
            "sms-2",
            "2026-08-01T00:00:00Z",
            "2026-09-01T00:00:00Z",
        ),
        at(
            "twilio",
            "sms-3",
            "2026-08-16T12:00:00Z",
            "2026-08-30T00:00:00Z",
        ),
        // Within the hour, short.
        at(
            "laravel",
            "github-api-down",
            "2026-08-17T14:20:00Z",
            "2026-08-17T15:00:00Z",
        ),
        at(
            "vercel",
            "builds-slow",
            "2026-08-17T13:50:00Z",
            "2026-08-17T14:10:00Z",
        ),
        // Begun longest before: past the five a page names, on the day page only.
        at(
            "twilio",
            "sms-0",
            "2026-07-01T00:00:00Z",
            "2026-10-01T00:00:00Z",
        ),
    ]);
    site.build(&[]);
    let page = site.html("github/down/index.html");
    let shown: Vec<String> = select(&page, &format!(".same-time {ROW_TITLE}"))
        .iter()
        .map(text)
        .collect();
    assert_eq!(
        shown,
        ["builds-slow", "github-api-down", "sms-3", "sms-2", "sms-1"]
    );
    let note = text(&select(&page, ".same-time .section-note")[0]);
    assert!(
        note.contains("(5 of 6, those that began closest to it first)"),
        "{note}"
    );
    let day = site.html("days/2026-08-17/index.html");
    let listed: Vec<String> = select(&day, &format!(".day-list {ROW_TITLE}"))
        .iter()
        .map(text)
        .collect();
    assert!(listed.contains(&"sms-0".to_string()), "{listed:?}");
}

#[test]
fn a_component_named_with_a_slash_gets_its_page_link_and_api_entry() {
    let name = "CARRIER NETWORK / SMS, Middle East & Africa";
    let odd = "///";
    let site = Site::from_owned(&[(
        "content/twilio/a.md".to_string(),
        format!(
            "---\ntitle: A\nstarted: 2024-05-01T10:00:00Z\nduration: 1h\nimpact: major\ncomponents: [\"{name}\", \"{odd}\"]\n---\n"
        ),
    )]);
    site.build(&[]);
    let incident = site.html("twilio/a/index.html");
    let links: Vec<String> = select(&incident, ".chips a")
        .iter()
        .map(|a| a.value().attr("href").unwrap().to_string())
        .collect();
    assert_eq!(links.len(), 2, "{links:?}");
    assert_eq!(
        links[0],
        "/twilio/components/carrier-network-sms-middle-east-africa/"
    );
    for link in &links {
        let page = site.html(&format!("{}index.html", &link[1..]));
        assert_eq!(select(&page, ROW_TITLE).len(), 1, "{link}");
    }
    let api: Value = serde_json::from_str(&site.read("api/v1/twilio/components.json")).unwrap();
    let names: Vec<&str> = api["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{api}");
    assert!(names.contains(&name) && names.contains(&odd), "{names:?}");
    let provider = site.html("twilio/index.html");
    assert_eq!(select(&provider, ".component-chips a").len(), 2);
}

#[test]
fn components_merge_by_slug_under_the_first_name_and_chips_link_them() {
    let site = Site::new(&[
        (
            "content/acme/a.md",
            "---\ntitle: A\nstarted: 2023-05-01T10:00:00Z\nduration: 1h\nimpact: critical\ncomponents: [US - Service Directory]\n---\n",
        ),
        (
            "content/acme/b.md",
            "---\ntitle: B\nstarted: 2024-05-01T10:00:00Z\nduration: 1h\nimpact: major\ncomponents: [us service-directory, Web]\n---\n",
        ),
    ]);
    site.build(&[]);
    let page = site.html("acme/components/us-service-directory/index.html");
    assert_eq!(text(&select(&page, "h1")[0]), "US - Service Directory");
    let titles: Vec<String> = select(&page, ROW_TITLE).iter().map(text).collect();
    assert_eq!(titles, ["B", "A"]);
    let incident = site.html("acme/b/index.html");
    let chips: Vec<(String, String)> = select(&incident, ".chips a")
        .iter()
        .map(|a| (text(a), a.value().attr("href").unwrap().to_string()))
        .collect();
    assert_eq!(
        chips,
        [
            (
                "us service-directory".to_string(),
                "/acme/components/us-service-directory/".to_string()
            ),
            ("Web".to_string(), "/acme/components/web/".to_string())
        ]
    );
    assert!(site.path("public/acme/components/web/index.html").exists());
}
