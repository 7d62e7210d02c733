//! The lists of one impact (`incidents/major/`, `<provider>/major/`,
//! `<provider>/<year>/partial/`): each holds exactly the incidents of its impact, newest
//! first, across its pages, and the chips that link them count what they link.

use std::collections::BTreeMap;

use crate::common::{ROW_TITLE, Site, select, text};

const IMPACTS: [&str; 3] = ["critical", "major", "minor"];

/// One incident: provider, title, impact, year, start.
type Fact = (String, String, String, i32, String);

/// Acme: 230 incidents three days apart from 2023-01-01, every other one a major outage
/// (115: two pages), the rest partial outages and degraded performance in turn. Beta: two
/// incidents, both degraded performance. Their facts, newest first.
fn archive() -> (Site, Vec<Fact>) {
    use chrono::Datelike;
    let mut files = Vec::new();
    let mut facts = Vec::new();
    let start = chrono::NaiveDate::from_ymd_opt(2023, 1, 1).unwrap();
    for i in 0..230u32 {
        let impact = match i % 4 {
            0 | 2 => "critical",
            1 => "major",
            _ => "minor",
        };
        let day = start + chrono::Days::new(u64::from(i) * 3);
        let title = format!("Acme incident {i}");
        files.push((
            format!("content/acme/i{i}.md"),
            format!(
                "---\ntitle: {title}\nstarted: {day}T10:00:00Z\nresolved: {day}T11:00:00Z\nimpact: {impact}\n---\n"
            ),
        ));
        let at = format!("{day}T10");
        facts.push(("acme".into(), title, impact.into(), day.year(), at));
    }
    for i in 1..=2 {
        let title = format!("Beta incident {i}");
        files.push((
            format!("content/beta/b{i}.md"),
            format!(
                "---\ntitle: {title}\nstarted: 2024-02-0{i}T12:00:00Z\nduration: 1h\nimpact: minor\n---\n"
            ),
        ));
        let at = format!("2024-02-0{i}T12");
        facts.push(("beta".into(), title, "minor".into(), 2024, at));
    }
    facts.sort_by(|a, b| b.4.cmp(&a.4));
    let site = Site::from_owned(&files);
    site.build(&[]);
    (site, facts)
}

/// The titles a paged list shows, walking its "Older" links from `first`.
fn titles(site: &Site, first: &str) -> (Vec<String>, usize) {
    let mut path = first.to_string();
    let mut titles = Vec::new();
    let mut pages = 0;
    loop {
        let html = site.html(&format!("{path}index.html"));
        pages += 1;
        titles.extend(
            select(&html, &format!(".incident-list {ROW_TITLE}"))
                .iter()
                .map(text),
        );
        match select(&html, ".pagination a[rel=next]").first() {
            Some(next) => {
                path = next
                    .value()
                    .attr("href")
                    .unwrap()
                    .trim_start_matches('/')
                    .to_string()
            }
            None => return (titles, pages),
        }
    }
}

/// The chips of a page: label, count, link (`None` for the current one).
fn chips(site: &Site, page: &str) -> Vec<(String, Option<String>)> {
    let html = site.html(page);
    select(&html, ".impact-filters > *")
        .iter()
        .map(|chip| {
            let current = chip.value().attr("aria-current") == Some("page");
            let href = chip.value().attr("href").map(str::to_string);
            assert_eq!(
                current,
                href.is_none(),
                "{page}: one chip is current and no link"
            );
            (text(chip), href)
        })
        .collect()
}

#[test]
fn lists_of_one_impact_hold_exactly_its_incidents_newest_first() {
    let (site, facts) = archive();
    let count = |keep: &dyn Fn(&Fact) -> bool| facts.iter().filter(|f| keep(f)).count();
    let label = BTreeMap::from([
        ("critical", ("Major outage", "major")),
        ("major", ("Partial outage", "partial")),
        ("minor", ("Degraded performance", "degraded")),
    ]);
    // The list of every incident: a chip per impact it has, by severity, with its count.
    let mut expected = vec![(format!("All {}", facts.len()), None)];
    for impact in IMPACTS {
        let (words, dir) = label[impact];
        let n = count(&|f| f.2 == impact);
        expected.push((format!("{words} {n}"), Some(format!("/incidents/{dir}/"))));
    }
    assert_eq!(chips(&site, "incidents/index.html"), expected);
    assert_eq!(chips(&site, "incidents/page/2/index.html"), expected);

    for (list, keep) in [
        (
            "incidents/",
            Box::new(|_: &Fact| true) as Box<dyn Fn(&Fact) -> bool>,
        ),
        ("acme/", Box::new(|f: &Fact| f.0 == "acme")),
        (
            "acme/2024/",
            Box::new(|f: &Fact| f.0 == "acme" && f.3 == 2024),
        ),
    ] {
        for impact in IMPACTS {
            let (words, dir) = label[impact];
            let wanted: Vec<&String> = facts
                .iter()
                .filter(|f| keep(f) && f.2 == impact)
                .map(|f| &f.1)
                .collect();
            let (shown, pages) = titles(&site, &format!("{list}{dir}/"));
            assert_eq!(shown.iter().collect::<Vec<_>>(), wanted, "{list}{dir}/");
            assert_eq!(pages, wanted.len().div_ceil(100), "{list}{dir}/");
            // The filtered page marks its own chip, and links the others and the whole list.
            let here = chips(&site, &format!("{list}{dir}/index.html"));
            let current: Vec<&String> = here
                .iter()
                .filter(|c| c.1.is_none())
                .map(|c| &c.0)
                .collect();
            assert_eq!(
                current,
                [&format!("{words} {}", wanted.len())],
                "{list}{dir}/"
            );
            assert_eq!(here[0].1.as_deref(), Some(format!("/{list}").as_str()));
        }
    }
    let heading = |page: &str| text(&select(&site.html(page), "h1")[0]);
    assert_eq!(heading("incidents/major/index.html"), "Major outages");
    assert_eq!(
        heading("incidents/major/page/2/index.html"),
        "Major outages, page 2 of 2"
    );
    assert_eq!(
        heading("acme/2024/partial/index.html"),
        "Partial outages of acme in 2024"
    );
    // A list of one impact has no chips and no page of it: it would be the list again.
    assert!(chips(&site, "beta/index.html").is_empty());
    assert!(!site.path("public/beta/degraded").exists());
    // Acme has no maintenance and Beta no major outage: no empty list.
    assert!(!site.path("public/acme/maintenance").exists());
    assert!(!site.path("public/beta/major/index.html").exists());
}
