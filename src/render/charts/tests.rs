//! The charts read back as SVG: what each draws, its words and tooltips, and that no
//! text from a status page escapes.

use std::collections::BTreeSet;

use roxmltree::{Document, Node};

use super::months::ticks;
use super::timeline::MIN_BAR;
use super::*;

const EVIL: &str = r#"<script>alert(1)</script>" onload="x"#;

fn month(label: &str, short: &str, year: i32, counts: [u32; 5]) -> MonthCount {
    MonthCount {
        label: label.to_owned(),
        short: short.to_owned(),
        year,
        counts,
    }
}

/// 15 months from November 2023, the busiest March 2024.
fn months() -> Vec<MonthCount> {
    const NAMES: [&str; 12] = MONTHS;
    // [none, minor, major, critical, maintenance]
    let counts = [
        [0, 0, 0, 0, 0],
        [0, 1, 2, 0, 0],
        [1, 0, 0, 0, 0],
        [0, 0, 0, 1, 0],
        [1, 1, 1, 2, 1],
        [0, 2, 1, 0, 0],
        [0, 0, 0, 0, 1],
        [1, 0, 1, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0],
        [0, 0, 2, 0, 0],
        [0, 0, 0, 1, 0],
        [2, 0, 0, 0, 0],
        [0, 0, 1, 0, 0],
        [0, 1, 0, 0, 0],
    ];
    counts
        .into_iter()
        .enumerate()
        .map(|(i, counts)| {
            let (year, m) = (2023 + (10 + i as i32) / 12, (10 + i) % 12);
            month(
                &format!("{} {year}", NAMES[m]),
                &MONTHS[m][..3],
                year,
                counts,
            )
        })
        .collect()
}

fn downtimes() -> Vec<MonthDowntime> {
    [0, 90 * 60, 7 * 3600 + 600, 60]
        .into_iter()
        .enumerate()
        .map(|(i, seconds)| MonthDowntime {
            label: format!("{} 2024", ["January", "February", "March", "April"][i]),
            short: MONTHS[i][..3].to_owned(),
            year: 2024,
            seconds,
            text: Duration::from_seconds(seconds).to_string(),
        })
        .collect()
}

fn day(date: (i32, u32, u32), shade: Shade, title: &str) -> DayCell {
    let date = NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap();
    DayCell {
        date,
        shade,
        href: format!("/days/{date}/?a=1&b=2"),
        title: format!("{date}: {title}"),
    }
}

fn bar(label: &str, impact: Impact, start: u32, end: u32) -> TimelineBar {
    TimelineBar {
        label: label.to_owned(),
        href: format!("/incidents/{}/", label.len()),
        impact,
        start_minute: start,
        end_minute: end,
        from_before: start == 0,
        goes_on: end == 1440,
        when: format!("{start}–{end}"),
    }
}

fn bars() -> Vec<TimelineBar> {
    vec![
        bar("GitHub — API errors", Impact::Critical, 1078, 1282),
        bar("Fastly — One minute", Impact::Major, 600, 601),
        bar(
            "Slack — All day long, and far longer than a row can show on a phone screen",
            Impact::Minor,
            0,
            1440,
        ),
        bar("Stripe — Last minute", Impact::Maintenance, 1440, 1440),
        bar("Heroku — Early", Impact::None, 0, 250),
    ]
}

fn one_of_each(id: &str, title: &str) -> Vec<String> {
    vec![
        incidents_per_month(&format!("{id}-m"), title, &months()),
        downtime_per_month(&format!("{id}-d"), title, &downtimes()),
        calendar(
            &format!("{id}-c"),
            title,
            2024,
            &[day((2024, 3, 5), Shade::Impact(Impact::Critical), title)],
            &[(Shade::Impact(Impact::Critical), "Major outage")],
        ),
        day_timeline(&format!("{id}-t"), title, &bars()),
    ]
}

fn class<'a>(node: Node<'a, 'a>) -> &'a str {
    node.attribute("class").unwrap_or("")
}

fn number(node: Node, attribute: &str) -> f64 {
    node.attribute(attribute).unwrap().parse().unwrap()
}

fn title_of<'a>(node: Node<'a, 'a>) -> Option<&'a str> {
    node.children()
        .find(|child| child.has_tag_name("title"))
        .and_then(|title| title.text())
}

/// Parses the chart and checks what every chart must have: the root, its title and
/// desc found through aria-labelledby, and ids unique and prefixed.
fn check<'a>(svg: &'a str, id: &str, kind: &str) -> Document<'a> {
    let doc = Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let role = if matches!(kind, "calendar" | "timeline") {
        "group"
    } else {
        "img"
    };
    assert_eq!(root.attribute("role"), Some(role), "{kind}");
    assert_eq!(root.attribute("width"), Some("100%"));
    assert_eq!(class(root), format!("chart chart-{kind}"));
    let view_box: Vec<f64> = root
        .attribute("viewBox")
        .unwrap()
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(view_box.len(), 4);
    assert!((300.0..=760.0).contains(&view_box[2]), "{view_box:?}");
    let labelled: Vec<&str> = root
        .attribute("aria-labelledby")
        .unwrap()
        .split(' ')
        .collect();
    assert_eq!(labelled, [format!("{id}-title"), format!("{id}-desc")]);
    let by_id = |wanted: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(wanted))
            .unwrap_or_else(|| panic!("no #{wanted}"))
    };
    let title = by_id(labelled[0]);
    assert!(title.has_tag_name("title"));
    assert_eq!(title.parent(), Some(root));
    let desc = by_id(labelled[1]);
    assert!(desc.has_tag_name("desc"));
    assert_eq!(desc.parent(), Some(root));
    assert!(desc.text().unwrap().ends_with('.'));
    let mut ids = BTreeSet::new();
    for node in doc.descendants() {
        if let Some(node_id) = node.attribute("id") {
            assert!(node_id.starts_with(&format!("{id}-")), "{node_id}");
            assert!(ids.insert(node_id), "{node_id} twice");
        }
        // Colours come from classes only.
        for attribute in ["fill", "stroke", "style"] {
            if let Some(value) = node.attribute(attribute) {
                assert!(value == "none" || value.starts_with("url(#"), "{value}");
            }
        }
        if let Some(url) = node.attribute("fill").and_then(|f| f.strip_prefix("url(#")) {
            assert!(ids.contains(url.trim_end_matches(')')), "{url}");
        }
    }
    doc
}

#[test]
fn num_trims_trailing_zeros() {
    assert_eq!(num(12.0).to_string(), "12");
    assert_eq!(num(12.5).to_string(), "12.5");
    assert_eq!(num(1.0 / 3.0).to_string(), "0.33");
    assert_eq!(num(0.999).to_string(), "1");
    assert_eq!(num(100.0).to_string(), "100");
    assert_eq!(num(-0.001).to_string(), "0");
    assert_eq!(num(-2.25).to_string(), "-2.25");
    assert_eq!(num(f64::NAN).to_string(), "0");
}

#[test]
fn ticks_are_round_and_three_to_five() {
    assert_eq!(ticks(0.0, &[1.0, 2.0, 5.0]), (1.0, 2));
    assert_eq!(ticks(1.0, &[1.0, 2.0, 5.0]), (1.0, 2));
    assert_eq!(ticks(4.0, &[1.0, 2.0, 5.0]), (1.0, 4));
    assert_eq!(ticks(5.0, &[1.0, 2.0, 5.0]), (2.0, 3));
    assert_eq!(ticks(9.0, &[1.0, 2.0, 5.0]), (5.0, 2));
    assert_eq!(ticks(41.0, &[1.0, 2.0, 5.0]), (20.0, 3));
    assert_eq!(ticks(1234.0, &[1.0, 2.0, 5.0]), (500.0, 3));
    assert_eq!(
        ticks(100.0, &[1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0]),
        (30.0, 4)
    );
}

#[test]
fn incidents_per_month_stacks_bars_with_titles() {
    let months = months();
    let svg = incidents_per_month("inc", "Incidents per month", &months);
    let doc = check(&svg, "inc", "months");
    let bars: Vec<Node> = doc.descendants().filter(|n| class(*n) == "bar").collect();
    assert_eq!(bars.len(), months.len());
    let tips: Vec<&str> = bars.iter().map(|b| title_of(*b).unwrap()).collect();
    assert_eq!(tips[0], "November 2023: no incidents");
    assert_eq!(
        tips[1],
        "December 2023: 3 incidents — 2 partial outage, 1 degraded performance"
    );
    assert_eq!(tips[3], "February 2024: 1 incident — 1 major outage");
    assert_eq!(
        tips[4],
        "March 2024: 6 incidents — 2 major outage, 1 partial outage, 1 degraded performance, 1 no impact, 1 maintenance"
    );
    // One segment per non-zero impact, critical at the bottom.
    let segments: Vec<&str> = bars[4]
        .children()
        .filter(|n| class(*n).starts_with("i-"))
        .map(class)
        .collect();
    assert_eq!(
        segments,
        [
            "i-critical",
            "i-major",
            "i-minor",
            "i-none",
            "i-maintenance"
        ]
    );
    let ys: Vec<f64> = bars[4]
        .children()
        .filter(|n| class(*n).starts_with("i-"))
        .map(|n| number(n, "y"))
        .collect();
    assert!(ys.windows(2).all(|w| w[0] > w[1]), "{ys:?}");
    let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
    let total: u32 = months.iter().flat_map(|m| m.counts).sum();
    assert_eq!(
        desc.text().unwrap(),
        format!(
            "Incidents per month from November 2023 to January 2025: {total} in total, most in March 2024 (6)."
        )
    );
    // Legend: words for every impact shown, worst first.
    let legend = doc.descendants().find(|n| class(*n) == "legend").unwrap();
    let words: Vec<&str> = legend
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        words,
        [
            "Major outage",
            "Partial outage",
            "Degraded performance",
            "No impact",
            "Maintenance"
        ]
    );
    // Patterns carry the classes; 3–5 y ticks; the year under the first label and January.
    for keyword in ["major", "minor", "none", "maintenance"] {
        let pattern = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(&format!("inc-p-{keyword}")))
            .unwrap();
        assert!(pattern.has_tag_name("pattern"));
        assert!(
            pattern
                .children()
                .any(|n| class(n) == format!("i-{keyword}"))
        );
    }
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        texts.iter().filter(|t| **t == "2023").count(),
        1,
        "{texts:?}"
    );
    assert_eq!(
        texts.iter().filter(|t| **t == "2024").count(),
        1,
        "{texts:?}"
    );
    assert!(texts.contains(&"Jan"));
    let grid = doc.descendants().filter(|n| class(*n) == "grid").count();
    assert!((2..=4).contains(&grid), "{grid} grid lines");
}

#[test]
fn month_labels_thin_out_on_long_ranges() {
    let long: Vec<MonthCount> = (0..36)
        .map(|i| {
            month(
                "A month",
                &MONTHS[(3 + i) % 12][..3],
                2023 + (3 + i as i32) / 12,
                [1; 5],
            )
        })
        .collect();
    let svg = incidents_per_month("long", "Long", &long);
    let doc = check(&svg, "long", "months");
    let texts: BTreeSet<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for shown in ["Jan", "Apr", "Jul", "Oct", "2023", "2024", "2025", "2026"] {
        assert!(texts.contains(shown), "{shown} in {texts:?}");
    }
    assert!(!texts.contains("Feb"));
}

#[test]
fn downtime_per_month_picks_its_unit() {
    let months = downtimes();
    let svg = downtime_per_month("down", "Downtime", &months);
    let doc = check(&svg, "down", "downtime");
    let bars: Vec<Node> = doc.descendants().filter(|n| class(*n) == "bar").collect();
    assert_eq!(bars.len(), 4);
    assert_eq!(title_of(bars[2]), Some("March 2024: 7h 10m of downtime"));
    assert_eq!(title_of(bars[0]), Some("January 2024: 0s of downtime"));
    // No bar for no downtime, a visible one for a minute.
    assert_eq!(
        bars[0]
            .children()
            .filter(|n| class(*n) == "i-critical")
            .count(),
        0
    );
    let minute = bars[3]
        .children()
        .find(|n| class(*n) == "i-critical")
        .unwrap();
    assert!(number(minute, "height") >= 1.5);
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert!(texts.contains(&"4h") && texts.contains(&"8h"), "{texts:?}");
    let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
    assert_eq!(
        desc.text(),
        Some(
            "Downtime per month from January 2024 to April 2024: 8h 41m in total, most in March 2024 (7h 10m)."
        )
    );

    let short = downtime_per_month("short", "Downtime", &months[..2]);
    let doc = check(&short, "short", "downtime");
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert!(
        texts.contains(&"30m") && texts.contains(&"90m"),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.ends_with('h')), "{texts:?}");
}

/// A day of a calendar as drawn: where, its class, and its link and tooltip if any.
struct Cell<'a> {
    x: f64,
    y: f64,
    class: &'a str,
    link: Option<Node<'a, 'a>>,
    title: Option<&'a str>,
}

/// Every day cell, in drawing order: marked days are linked rects, empty days squares
/// of one path.
fn day_cells<'a>(doc: &'a Document<'a>) -> Vec<Cell<'a>> {
    let days = doc.descendants().find(|n| class(*n) == "days").unwrap();
    let mut cells: Vec<Cell> = days
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .map(|rect| Cell {
            x: number(rect, "x"),
            y: number(rect, "y"),
            class: class(rect),
            link: rect.parent().filter(|p| p.has_tag_name("a")),
            title: title_of(rect),
        })
        .collect();
    for path in days.descendants().filter(|n| n.has_tag_name("path")) {
        // A line 11 wide through the middle of the column, dashed 11 on and 2 off.
        assert_eq!(path.attribute("stroke-width"), Some("11"));
        assert_eq!(path.attribute("stroke-dasharray"), Some("11 2"));
        let d = path.attribute("d").unwrap();
        for line in d.split('M').filter(|s| !s.is_empty()) {
            let (at, length) = line.split_once('v').unwrap();
            let (x, y) = at.split_once(' ').unwrap();
            let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
            let length: f64 = length.parse().unwrap();
            assert_eq!((length + 2.0) % 13.0, 0.0, "whole squares: {line}");
            for square in 0..((length + 2.0) / 13.0) as usize {
                cells.push(Cell {
                    x: x - 5.5,
                    y: y + 13.0 * square as f64,
                    class: class(path),
                    link: None,
                    title: None,
                });
            }
        }
    }
    // Column by column, top to bottom: the order of the days.
    cells.sort_by(|a, b| (a.x, a.y).partial_cmp(&(b.x, b.y)).unwrap());
    cells
}

#[test]
fn calendar_draws_every_day_of_the_year_once() {
    let cells = [
        day(
            (2024, 3, 5),
            Shade::Impact(Impact::Critical),
            "Major outage — API errors",
        ),
        day(
            (2024, 1, 1),
            Shade::Impact(Impact::Minor),
            "Degraded performance — Slow",
        ),
        day((2023, 12, 31), Shade::Impact(Impact::Major), "Another year"),
        day((2024, 12, 31), Shade::Level(7), "Many"),
        day(
            (2024, 3, 5),
            Shade::Impact(Impact::None),
            "Second of a date: ignored",
        ),
    ];
    let legend = [
        (Shade::Impact(Impact::Critical), "Major outage"),
        (Shade::Impact(Impact::Minor), "Degraded performance"),
    ];
    let svg = calendar("cal", "2024", 2024, &cells, &legend);
    let doc = check(&svg, "cal", "calendar");
    let drawn = day_cells(&doc);
    assert_eq!(drawn.len(), 366);
    let links: Vec<Node> = doc.descendants().filter(|n| n.has_tag_name("a")).collect();
    assert_eq!(links.len(), 3);
    assert_eq!(
        links[0].attribute("href"),
        Some("/days/2024-01-01/?a=1&b=2")
    );
    assert!(svg.contains("/days/2024-01-01/?a&#61;1&amp;b&#61;2"));
    let linked: Vec<(&str, Option<&str>)> = links
        .iter()
        .map(|a| {
            let rect = a.first_element_child().unwrap();
            (class(rect), title_of(rect))
        })
        .collect();
    assert_eq!(
        linked,
        [
            ("i-minor", Some("2024-01-01: Degraded performance — Slow")),
            ("i-critical", Some("2024-03-05: Major outage — API errors")),
            ("lvl-4", Some("2024-12-31: Many")),
        ]
    );
    // Days without a cell: empty, no link, no title.
    for cell in &drawn {
        if cell.link.is_none() {
            assert_eq!(cell.class, "lvl-0");
            assert!(cell.title.is_none());
        }
    }
    assert_eq!(drawn.iter().filter(|c| c.class == "lvl-0").count(), 363);
    // 2024-01-01 is a Monday: row 0, column 0; 2024-12-31 a Tuesday, in the last column.
    let top = drawn.iter().map(|c| c.y).fold(f64::MAX, f64::min);
    let left = drawn.iter().map(|c| c.x).fold(f64::MAX, f64::min);
    let jan1 = links[0].first_element_child().unwrap();
    assert_eq!((number(jan1, "x"), number(jan1, "y")), (left, top));
    let dec31 = links[2].first_element_child().unwrap();
    assert_eq!(number(dec31, "y"), top + 13.0);
    assert_eq!(number(dec31, "x"), left + 52.0 * 13.0);
    let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
    assert_eq!(desc.text(), Some("3 days with incidents in 2024."));
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for label in [
        "Mon",
        "Wed",
        "Fri",
        "Jan",
        "Dec",
        "Major outage",
        "Degraded performance",
    ] {
        assert!(texts.contains(&label), "{label}");
    }

    let svg = calendar("c23", "2023", 2023, &cells, &legend);
    let doc = check(&svg, "c23", "calendar");
    let drawn = day_cells(&doc);
    assert_eq!(drawn.len(), 365);
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("a")).count(), 1);
    // 2023-01-01 is a Sunday: the last row of the first column.
    let top = drawn.iter().map(|c| c.y).fold(f64::MAX, f64::min);
    assert_eq!(drawn[0].y, top + 6.0 * 13.0);
    assert_eq!(drawn[1].x, drawn[0].x + 13.0);
}

/// A percentage attribute of a timeline's shape, as a number.
fn percent(node: Node, attribute: &str) -> f64 {
    let value = node.attribute(attribute).unwrap();
    value.strip_suffix('%').unwrap().parse().unwrap()
}

#[test]
fn a_calendar_legend_shows_whole_on_a_phone_before_any_scrolling() {
    let legend = [
        (Shade::Impact(Impact::Critical), "Major outage"),
        (Shade::Impact(Impact::Major), "Partial outage"),
        (Shade::Impact(Impact::Minor), "Degraded performance"),
        (Shade::Impact(Impact::None), "No impact"),
        (Shade::Impact(Impact::Maintenance), "Maintenance"),
    ];
    let svg = calendar("cal", "2024", 2024, &[], &legend);
    let doc = check(&svg, "cal", "calendar");
    let keys = doc.descendants().find(|n| class(*n) == "legend").unwrap();
    let texts: Vec<Node> = keys.children().filter(|n| n.has_tag_name("text")).collect();
    assert_eq!(texts.len(), legend.len());
    // A phone's card shows some 330 px of a calendar drawn at least 46rem (736 px)
    // wide: 320 of its 721 units.
    for text in texts {
        let words = text.text().unwrap().chars().count() as f64;
        let right = number(text, "x") + words * 0.6 * CAL_FONT;
        assert!(right <= 320.0, "{:?} ends at {right}", text.text());
    }
}

#[test]
fn timeline_links_each_bar_writes_its_label_whole_and_keeps_short_ones_visible() {
    let bars = bars();
    let html = day_timeline("day", "5 March 2024", &bars);
    let doc = Document::parse(&html).unwrap_or_else(|e| panic!("{e}: {html}"));
    let root = doc.root_element();
    assert_eq!(class(root), "chart chart-timeline");
    assert_eq!(root.attribute("role"), Some("group"));
    assert_eq!(
        root.attribute("aria-labelledby"),
        Some("day-title day-desc")
    );
    let by_id = |wanted: &str| {
        let node = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(wanted));
        node.and_then(|n| n.text()).unwrap_or_default()
    };
    assert_eq!(by_id("day-title"), "5 March 2024");
    assert_eq!(by_id("day-desc"), "5 incidents on this day.");
    let links: Vec<Node> = doc.descendants().filter(|n| n.has_tag_name("a")).collect();
    assert_eq!(links.len(), bars.len());
    for (link, bar) in links.iter().zip(&bars) {
        assert_eq!(link.attribute("href"), Some(bar.href.as_str()));
        // The label whole, however long, in words that wrap; the impact and when in
        // the link's words and tooltip.
        let label = link
            .descendants()
            .find(|n| class(*n) == "timeline-label")
            .and_then(|n| n.text());
        assert_eq!(label, Some(bar.label.as_str()));
        let what = format!("{}, {}", words(bar.impact), bar.when);
        let tip = format!("{} — {what}", bar.label);
        assert_eq!(link.attribute("title"), Some(tip.as_str()));
        let hidden = link
            .descendants()
            .find(|n| class(*n) == "visually-hidden")
            .and_then(|n| n.text());
        assert_eq!(hidden, Some(format!(" — {what}").as_str()));
        let rect = link
            .descendants()
            .find(|n| class(*n) == impact_class(bar.impact))
            .unwrap();
        assert!(percent(rect, "width") >= MIN_BAR);
        assert!(percent(rect, "x") + percent(rect, "width") <= 100.0);
    }
    let tip = |link: &Node| link.attribute("title").unwrap().to_owned();
    assert_eq!(
        tip(&links[0]),
        "GitHub — API errors — Major outage, 1078–1282"
    );
    assert_eq!(
        tip(&links[3]),
        "Stripe — Last minute — Maintenance, 1440–1440"
    );
    // From 17:58 to 21:22: its place on the day, in percent.
    let github = links[0]
        .descendants()
        .find(|n| class(*n) == "i-critical")
        .unwrap();
    assert_eq!(percent(github, "x"), 74.86);
    assert_eq!(percent(github, "width"), 14.17);
    // Arrows at the edges of what goes on before and after the day.
    let arrows = |link: &Node| {
        link.descendants()
            .filter(|n| n.has_tag_name("path") && class(*n).starts_with("i-"))
            .count()
    };
    assert_eq!((arrows(&links[2]), arrows(&links[0])), (2, 0));
    // A row's SVG draws its bar and arrows only: the track and the hours' lines are the
    // stylesheet's, once for every row.
    for link in &links {
        let drawn: Vec<&str> = link
            .descendants()
            .filter(|n| n.is_element())
            .filter(|n| !matches!(n.tag_name().name(), "a" | "span" | "svg" | "path"))
            .map(|n| n.attribute("class").or(n.attribute("fill")).unwrap_or(""))
            .collect();
        assert!(
            drawn
                .iter()
                .all(|c| c.starts_with("i-") || c.starts_with("url(#")),
            "{drawn:?}"
        );
    }
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for hour in ["00", "03", "12", "21", "24", "UTC"] {
        assert!(texts.contains(&hour), "{hour}");
    }
    let legend: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("li") && n.parent().is_some_and(|p| class(p) == "chart-legend"))
        .filter_map(|n| n.children().filter_map(|c| c.text()).next_back())
        .collect();
    assert_eq!(
        legend,
        [
            "Major outage",
            "Partial outage",
            "Degraded performance",
            "No impact",
            "Maintenance"
        ]
    );
    // The hours again below many rows, not below few.
    let hours = |html: &str| html.matches(r#"class="timeline-hours""#).count();
    assert_eq!(hours(&html), 2);
    assert_eq!(hours(&day_timeline("one", "One", &bars[..1])), 1);
}

#[test]
fn untrusted_text_is_escaped() {
    let charts = one_of_each("x", EVIL);
    let mut cells = vec![day((2024, 2, 29), Shade::Level(2), EVIL)];
    cells[0].href = EVIL.to_owned();
    let mut evil_bars = bars();
    evil_bars[0].label = EVIL.to_owned();
    evil_bars[0].href = EVIL.to_owned();
    evil_bars[0].when = EVIL.to_owned();
    let mut evil_months = months();
    evil_months[0].label = EVIL.to_owned();
    evil_months[0].short = EVIL.to_owned();
    let more = [
        calendar("e-c", EVIL, 2024, &cells, &[(Shade::Level(2), EVIL)]),
        day_timeline("e-t", EVIL, &evil_bars),
        incidents_per_month("e-m", EVIL, &evil_months),
    ];
    for svg in charts.iter().chain(&more) {
        assert!(!svg.contains("<script"), "{svg}");
        assert!(!svg.contains(" onload="), "{svg}");
        assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onload&#61;&quot;x"));
        let doc = Document::parse(svg).unwrap();
        let title = doc.root_element().first_element_child().unwrap();
        assert_eq!(title.text(), Some(EVIL));
        assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
        assert!(doc.descendants().all(|n| n.attribute("onload").is_none()));
    }
    for chart in &more[..2] {
        let doc = Document::parse(chart).unwrap();
        let a = doc.descendants().find(|n| n.has_tag_name("a")).unwrap();
        assert_eq!(a.attribute("href"), Some(EVIL));
    }
    let doc = Document::parse(&more[1]).unwrap();
    let label = doc.descendants().find(|n| class(*n) == "timeline-label");
    assert_eq!(label.and_then(|n| n.text()), Some(EVIL));
    assert_eq!(esc("a\u{0}b\u{1b}c").to_string(), "abc");
    assert_eq!(
        esc(r#"&<>"'="#).to_string(),
        "&amp;&lt;&gt;&quot;&#39;&#61;"
    );
    assert_eq!(esc("é<\u{FFFE}ü—\t").to_string(), "é&lt;ü—\t");
}

#[test]
fn several_charts_on_a_page_share_no_id() {
    let page = format!("<div>{}</div>", one_of_each("page", "Same title").concat());
    let doc = Document::parse(&page).unwrap();
    let ids: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    let unique: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), unique.len());
    assert!(ids.len() > 8);
}

#[test]
fn output_is_deterministic_and_empty_for_no_data() {
    assert_eq!(one_of_each("d", "T"), one_of_each("d", "T"));
    assert_eq!(incidents_per_month("e", "E", &[]), "");
    assert_eq!(downtime_per_month("e", "E", &[]), "");
    assert_eq!(day_timeline("e", "E", &[]), "");
    // A calendar is drawn even without incidents: the year's empty days.
    let empty = calendar("e", "E", 2025, &[], &[]);
    let doc = check(&empty, "e", "calendar");
    assert_eq!(day_cells(&doc).len(), 365);
    assert!(doc.descendants().all(|n| !n.has_tag_name("a")));
    let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
    assert_eq!(desc.text(), Some("0 days with incidents in 2025."));
}

#[test]
fn quiet_months_still_make_a_chart() {
    let quiet = [month("March 2024", "Mar", 2024, [0; 5])];
    let svg = incidents_per_month("q", "Quiet", &quiet);
    let doc = check(&svg, "q", "months");
    let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
    assert_eq!(desc.text(), Some("Incidents in March 2024: none."));
    let bar = doc.descendants().find(|n| class(*n) == "bar").unwrap();
    assert_eq!(title_of(bar), Some("March 2024: no incidents"));
}
