//! How each provider told of its outages, against an independent count: the incidents of a
//! site of hand-written records and real Statuspage ones, read back from the API, must give
//! the numbers `stats.json` holds and the provider's page shows, bin by bin.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::common::status_page::payload;
use crate::common::{Site, length, select, stderr, text};

/// The bins' lower edges, in seconds, as the docs give them.
const EDGES: [i64; 8] = [0, 300, 900, 1_800, 3_600, 10_800, 43_200, 86_400];

/// A provider's numbers, counted here from the API's incidents.
#[derive(Debug, Default, PartialEq)]
struct Told {
    outages: u64,
    waits: Vec<i64>,
    start_is_first_update: u64,
    gaps: Vec<i64>,
    after_the_fact: u64,
    postmortems: u64,
}

fn at(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

/// The lower middle and the upper middle's midpoint, rounded down.
fn median(mut list: Vec<i64>) -> Option<i64> {
    list.sort();
    let n = list.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(list[n / 2]),
        _ => Some((list[n / 2 - 1] + list[n / 2]).div_euclid(2)),
    }
}

fn bins(list: &[i64]) -> Vec<u64> {
    let mut bins = vec![0; EDGES.len()];
    for &d in list {
        bins[EDGES.iter().rposition(|&e| e <= d).unwrap()] += 1;
    }
    bins
}

fn count(site: &Site, provider: &str) -> Told {
    let mut told = Told::default();
    let dir = site.path(&format!("public/api/v1/{provider}"));
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap();
        if matches!(name, "stats.json" | "components.json") {
            continue;
        }
        let json: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if json["impact"] == "maintenance" {
            continue;
        }
        told.outages += 1;
        let updates = json["updates"].as_array().unwrap();
        told.postmortems += u64::from(updates.iter().any(|u| u["status"] == "postmortem"));
        let started = at(&json["started"]);
        let resolved = (!json["resolved"].is_null()).then(|| at(&json["resolved"]));
        if resolved == Some(started) {
            told.after_the_fact += 1;
            continue;
        }
        let open: Vec<DateTime<Utc>> = (updates.iter())
            .filter(|u| u["status"] != "postmortem")
            .map(|u| at(&u["at"]))
            .filter(|&t| resolved.is_none_or(|end| t <= end))
            .collect();
        match open.first() {
            Some(&first) if (first - started).num_seconds() > 0 => {
                told.waits.push((first - started).num_seconds())
            }
            Some(_) => told.start_is_first_update += 1,
            None => {}
        }
        let gaps = open.windows(2).map(|w| (w[1] - w[0]).num_seconds());
        told.gaps.extend(median(gaps.collect()));
    }
    told
}

fn percent(part: u64, whole: u64) -> String {
    match (part * 100 + whole / 2) / whole {
        0 if part > 0 => "under 1 %".to_string(),
        p => format!("{p} %"),
    }
}

/// An incident of `acme` starting at `start`, with updates at these times (`HH:MM` on
/// 2024-03-05, the last `resolved` when `end` is given).
fn acme(
    slug: &str,
    impact: &str,
    start: &str,
    end: Option<&str>,
    updates: &[&str],
) -> (String, String) {
    let mut text =
        format!("---\ntitle: {slug}\nstarted: 2024-03-05T{start}:00Z\nimpact: {impact}\n");
    if let Some(end) = end {
        text.push_str(&format!("resolved: 2024-03-05T{end}:00Z\n"));
    }
    text.push_str("---\n");
    for (i, time) in updates.iter().enumerate() {
        let status = match time.strip_prefix("pm ") {
            Some(_) => "postmortem",
            None if i + 1 == updates.len() && end.is_some() => "resolved",
            None => "update",
        };
        let time = time.trim_start_matches("pm ");
        text.push_str(&format!("### 2024-03-05 {time} UTC: {status}\nNews.\n"));
    }
    (format!("content/acme/{slug}.md"), text)
}

#[test]
fn how_each_provider_told_matches_an_independent_count() {
    let files = [
        // 20 minutes to the first word, then gaps of 10 and 60 minutes, and a postmortem.
        acme(
            "slow-word",
            "major",
            "10:00",
            Some("11:30"),
            &["10:20", "10:30", "11:30", "pm 15:00"],
        ),
        // Its record starts at its first update; the update after the resolution is not
        // "while open".
        acme(
            "at-once",
            "critical",
            "12:00",
            Some("12:10"),
            &["12:00", "12:05", "12:10", "13:00"],
        ),
        // Posted already resolved.
        acme("after", "minor", "14:00", Some("14:00"), &["14:00"]),
        // Still open, a wait of two days' hours.
        acme("open", "minor", "00:00", None, &["13:00", "13:01", "13:03"]),
        // Announced ahead: not an outage.
        acme(
            "planned",
            "maintenance",
            "20:00",
            Some("22:00"),
            &["18:00", "22:00"],
        ),
        (
            "content/acme/_index.md".to_string(),
            "---\nname: Acme\n---\n".to_string(),
        ),
        (
            "statuspage.json".to_string(),
            payload("github-incidents-2026-08-18.json"),
        ),
    ];
    let site = Site::from_owned(&files);
    let payload = site.path("statuspage.json");
    let payload = payload.to_str().unwrap();
    let import = site.run(&["import", "statuspage", payload, "--provider", "github"]);
    assert!(import.status.success(), "{}", stderr(&import));
    site.build(&[]);
    let mut seen = Told::default();
    for provider in ["acme", "github"] {
        let told = count(&site, provider);
        let stats: Value =
            serde_json::from_str(&site.read(&format!("api/v1/{provider}/stats.json"))).unwrap();
        let c = &stats["communication"];
        let bins_of = |d: &Value| -> Vec<u64> {
            d["bins"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["count"].as_u64().unwrap())
                .collect()
        };
        assert_eq!(c["outage_count"], told.outages, "{provider}");
        assert_eq!(c["after_the_fact_count"], told.after_the_fact, "{provider}");
        assert_eq!(c["postmortem_count"], told.postmortems, "{provider}");
        assert_eq!(
            c["start_is_first_update_count"], told.start_is_first_update,
            "{provider}"
        );
        assert_eq!(bins_of(&c["first_update"]), bins(&told.waits), "{provider}");
        assert_eq!(bins_of(&c["update_gap"]), bins(&told.gaps), "{provider}");
        assert_eq!(
            c["first_update"]["median_seconds"].as_i64(),
            median(told.waits.clone())
        );
        assert_eq!(
            c["update_gap"]["median_seconds"].as_i64(),
            median(told.gaps.clone())
        );
        let edges: Vec<i64> = (c["update_gap"]["bins"].as_array().unwrap().iter())
            .map(|b| b["from_seconds"].as_i64().unwrap())
            .collect();
        assert_eq!(edges, EDGES);

        // The page says the same, in words.
        let page = site.html(&format!("{provider}/index.html"));
        let figures: BTreeMap<String, String> = select(&page, "#telling-heading ~ .stats > div")
            .iter()
            .map(|div| {
                let term = text(&select_in(div, "dt")).to_lowercase();
                (term, text(&select_in(div, "dd")).replace('\u{a0}', " "))
            })
            .collect();
        let first = median(told.waits.clone()).map_or("not recorded".into(), |m| {
            format!("{} after the start", length(m))
        });
        assert_eq!(figures["first update, median"], first, "{provider}");
        let gap = median(told.gaps.clone()).map_or("not recorded".into(), length);
        assert_eq!(figures["between updates, median"], gap, "{provider}");
        let share = |n: u64| format!("{} ({n} of {})", percent(n, told.outages), told.outages);
        assert_eq!(figures["posted after the fact"], share(told.after_the_fact));
        assert_eq!(figures["with a postmortem"], share(told.postmortems));
        // Each bar's tooltip gives its bin's count.
        for (chart, list) in [("told-first", &told.waits), ("told-gap", &told.gaps)] {
            let shown: Vec<u64> = select(
                &page,
                &format!("svg[aria-labelledby^='{chart}-'] g.bar > title"),
            )
            .iter()
            .map(|t| {
                let tip = text(t);
                let count = tip.split(": ").nth(1).unwrap().split(' ').next().unwrap();
                count.parse().unwrap()
            })
            .collect();
            let expected = if list.is_empty() { vec![] } else { bins(list) };
            assert_eq!(shown, expected, "{provider} {chart}");
        }
        seen.outages += told.outages;
        seen.waits.extend(told.waits);
        seen.gaps.extend(told.gaps);
        seen.start_is_first_update += told.start_is_first_update;
        seen.after_the_fact += told.after_the_fact;
        seen.postmortems += told.postmortems;
    }
    // Every case is met, so no part of the count can pass on nothing.
    assert_eq!(seen.waits.len(), 2, "{seen:?}");
    assert!(
        seen.gaps.len() >= 3 && seen.start_is_first_update >= 2,
        "{seen:?}"
    );
    assert!(
        seen.after_the_fact >= 1 && seen.postmortems >= 1,
        "{seen:?}"
    );
    // By hand, for acme: waits of 20 minutes and 13 hours; gaps 35m, 5m and 1m 30s.
    let acme: Value = serde_json::from_str(&site.read("api/v1/acme/stats.json")).unwrap();
    assert_eq!(
        acme["communication"]["first_update"]["median_seconds"],
        (20 * 60 + 13 * 3600) / 2
    );
    assert_eq!(
        acme["communication"]["update_gap"]["median_seconds"],
        5 * 60
    );
}

fn select_in<'a>(element: &scraper::ElementRef<'a>, css: &str) -> scraper::ElementRef<'a> {
    let selector = scraper::Selector::parse(css).unwrap();
    element.select(&selector).next().unwrap()
}
