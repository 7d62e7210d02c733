//! The JSON API (`api/v1/`) and the data in JSON feeds, as a script reads them: real
//! values, the API's naming (`*_count` for numbers, plurals for lists), and every API
//! file of a build valid against its JSON Schema in `schemas/` (the `jsonschema` crate, draft
//! 2020-12, formats checked), so a field renamed without its schema fails here.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{SEED, Site, select, stderr, tree};

const BASE: &str = "https://api.example/archive/";

/// Acme: a 100-minute partial outage, a 100-minute major outage, an ongoing degradation and
/// a maintenance; Lightstep: the seed export.
fn site() -> Site {
    let site = Site::new(&[
        (
            "site.yaml",
            "title: API Test\nbase_url: https://api.example/archive/\n",
        ),
        ("content/lightstep/seed.md", SEED),
        (
            "content/acme/_index.md",
            "---\nname: Acme Cloud\nurl: https://acme.example\nstatus_page: https://status.acme.example\n---\n",
        ),
        (
            "content/acme/partial-outage.md",
            "---\ntitle: API errors\nstarted: 2024-03-05T10:00:00Z\nresolved: 2024-03-05T11:40:00Z\n\
             impact: major\nid: ACME-1\ncomponents: [API, Dashboard]\nregions: [us, eu]\n---\n\
             ### 2024-03-05 10:00 UTC: investigating\nLooking.\n### 2024-03-05 11:40 UTC: resolved\nFixed.\n",
        ),
        (
            "content/acme/down.md",
            "---\ntitle: Everything down\nstarted: 2024-03-06T10:00:00Z\nduration: 1h 40m\n\
             impact: critical\ncomponents: [API]\nregions: [eu]\n---\n\
             ### 2024-03-06 10:00 UTC: investigating\nDown.\n",
        ),
        (
            "content/acme/burning.md",
            "---\ntitle: Slow dashboard\nstarted: 2024-03-07T09:00:00Z\nimpact: minor\n\
             components: [Dashboard]\n---\n\
             ### 2024-03-07 09:00 UTC: investigating\nSlow.\n### 2024-03-07 09:30 UTC: identified\nFound it.\n",
        ),
        (
            "content/acme/window.md",
            "---\ntitle: Database upgrade\nstarted: 2024-03-01T02:00:00Z\nduration: 2h\nimpact: maintenance\n---\n",
        ),
    ]);
    site.build(&[]);
    site
}

fn json(site: &Site, path: &str) -> Value {
    serde_json::from_str(&site.read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn item<'a>(list: &'a Value, slug: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|i| i["slug"] == slug)
        .unwrap_or_else(|| panic!("no {slug} in {list}"))
}

#[test]
fn provider_counts_are_named_count_and_lists_are_plural() {
    let site = site();
    let providers = json(&site, "api/v1/providers.json");
    let list = providers["providers"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    let acme = list.iter().find(|p| p["slug"] == "acme").unwrap();
    let counts = json!({
        "incident_count": 4,
        "outage_count": 3,
        "maintenance_count": 1,
        "ongoing_count": 1,
    });
    let provider = json(&site, "api/v1/acme.json");
    for entry in [acme, &provider] {
        for (name, value) in counts.as_object().unwrap() {
            assert_eq!(&entry[name], value, "{name} in {entry}");
        }
        for old in ["outages", "maintenance", "ongoing"] {
            assert!(entry.get(old).is_none(), "the old name `{old}` is gone");
        }
        assert_eq!(entry["name"], "Acme Cloud");
        assert_eq!(entry["status_page"], "https://status.acme.example");
        assert_eq!(entry["api_url"], format!("{BASE}api/v1/acme.json"));
    }
    assert!(
        acme.get("incidents").is_none(),
        "providers.json has counts only"
    );
    assert_eq!(
        provider["incidents"].as_array().unwrap().len(),
        4,
        "a provider's file lists its incidents"
    );
}

#[test]
fn a_list_item_carries_every_fact_a_consumer_needs() {
    let site = site();
    let provider = json(&site, "api/v1/acme.json");
    let incidents = &provider["incidents"];
    assert_eq!(
        item(incidents, "partial-outage"),
        &json!({
            "slug": "partial-outage",
            "id": "ACME-1",
            "title": "API errors",
            "impact": "major",
            "impact_label": "Partial outage",
            "started": "2024-03-05T10:00:00Z",
            "resolved": "2024-03-05T11:40:00Z",
            "ongoing": false,
            "stale": false,
            "duration_seconds": 6000,
            "downtime_minutes": 30,
            "components": ["API", "Dashboard"],
            "regions": ["us", "eu"],
            "url": format!("{BASE}acme/partial-outage/"),
            "api_url": format!("{BASE}api/v1/acme/partial-outage.json"),
        }),
        "a partial outage counts 30 % of its 100 minutes"
    );
    let down = item(incidents, "down");
    assert_eq!(down["impact_label"], "Major outage");
    assert_eq!(down["downtime_minutes"], 100, "a major outage counts whole");
    assert_eq!(down["id"], Value::Null);
    assert_eq!(down["components"], json!(["API"]));
    assert_eq!(down["regions"], json!(["eu"]));
    let burning = item(incidents, "burning");
    assert_eq!(burning["ongoing"], true);
    assert_eq!(burning["resolved"], Value::Null);
    assert_eq!(
        burning["duration_seconds"],
        Value::Null,
        "null while ongoing"
    );
    assert_eq!(burning["downtime_minutes"], 0, "degraded performance");
    assert_eq!(burning["regions"], json!([]));
    let window = item(incidents, "window");
    assert_eq!(window["impact_label"], "Under maintenance");
    assert_eq!(window["downtime_minutes"], 0, "maintenance never counts");

    let seed = &json(&site, "api/v1/lightstep.json")["incidents"][0];
    assert_eq!(seed["impact_label"], "Major outage");
    assert_eq!(seed["duration_seconds"], 12240);
    assert_eq!(seed["downtime_minutes"], 204, "3h 24m");
    assert_eq!(seed["components"].as_array().unwrap().len(), 3);
    assert_eq!(seed["regions"], json!(["us"]));
}

#[test]
fn a_list_items_api_url_is_its_incident_file_which_begins_with_the_same_fields() {
    let site = site();
    for provider in ["acme", "lightstep"] {
        let list = json(&site, &format!("api/v1/{provider}.json"));
        for entry in list["incidents"].as_array().unwrap() {
            let api_url = entry["api_url"].as_str().unwrap();
            let path = api_url
                .strip_prefix(BASE)
                .unwrap_or_else(|| panic!("{api_url} is under the base URL"));
            assert!(
                site.path("public").join(path).is_file(),
                "{api_url} is a file of the build"
            );
            let file = json(&site, path);
            for (name, value) in entry.as_object().unwrap() {
                assert_eq!(&file[name], value, "{path}: {name} as the list says");
            }
            assert_eq!(file["provider"], provider);
        }
    }
    let partial = json(&site, "api/v1/acme/partial-outage.json");
    assert_eq!(partial["impact_label"], "Partial outage");
    assert_eq!(partial["downtime_minutes"], 30);
    assert_eq!(partial["provider_name"], "Acme Cloud");
}

#[test]
fn every_json_feed_item_carries_the_outages_extension() {
    let site = site();
    let expected = json!({
        "provider": "acme",
        "provider_name": "Acme Cloud",
        "impact": "major",
        "impact_label": "Partial outage",
        "started": "2024-03-05T10:00:00Z",
        "resolved": "2024-03-05T11:40:00Z",
        "duration_seconds": 6000,
        "components": ["API", "Dashboard"],
        "regions": ["us", "eu"],
    });
    for path in ["feed.json", "acme/feed.json"] {
        let feed = json(&site, path);
        let items = feed["items"].as_array().unwrap();
        let partial = items
            .iter()
            .find(|i| i["url"] == format!("{BASE}acme/partial-outage/"))
            .unwrap_or_else(|| panic!("{path}: the partial outage"));
        assert_eq!(partial["_outages"], expected, "{path}");
        let burning = items
            .iter()
            .find(|i| i["url"] == format!("{BASE}acme/burning/"))
            .unwrap();
        assert_eq!(burning["_outages"]["resolved"], Value::Null, "{path}");
        assert_eq!(burning["_outages"]["duration_seconds"], Value::Null);
    }
    let site_feed = json(&site, "feed.json");
    let items = site_feed["items"].as_array().unwrap();
    assert_eq!(items.len(), 5, "every incident, under feed_limit");
    for entry in items {
        let ext = &entry["_outages"];
        assert_eq!(ext["provider"], entry["tags"][1], "{entry}");
        assert_eq!(ext["impact"], entry["tags"][0], "{entry}");
        assert_eq!(ext["started"], entry["date_published"], "{entry}");
    }
    let seed = items
        .iter()
        .find(|i| i["_outages"]["provider"] == "lightstep")
        .unwrap();
    assert_eq!(
        seed["_outages"]["provider_name"],
        "ServiceNow Cloud Observability"
    );
    assert_eq!(seed["_outages"]["duration_seconds"], 12240);
    // feed-rs, a real reader, still reads the feed with the extension in it.
    let bytes = std::fs::read(site.path("public/feed.json")).unwrap();
    let parsed = feed_rs::parser::parse(&bytes[..]).unwrap();
    assert_eq!(parsed.entries.len(), 5);
}

// --- the schemas --------------------------------------------------------------------------

/// The kinds of API file, by the schema of each: which files of `api/v1/` it is for (the
/// mapping `scripts/validate` uses) and whether a build may lack it yet.
const KINDS: &[(&str, bool)] = &[
    ("providers", true),
    ("provider", true),
    ("incident", true),
    ("day", true),
    ("stats", true),
    ("components", true),
    ("index", true),
];

/// `api/v1/…` → the schema it must follow; `None` for anything else.
fn schema_of(path: &str) -> Option<&'static str> {
    let rest = path.strip_prefix("api/v1/")?.strip_suffix(".json")?;
    Some(match rest.split('/').collect::<Vec<_>>()[..] {
        ["providers"] => "providers",
        ["index"] => "index",
        [_] => "provider",
        ["days", _] => "day",
        [_, "stats"] => "stats",
        [_, "components"] => "components",
        [_, _] => "incident",
        _ => return None,
    })
}

fn schema_file(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("schemas/{name}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

fn validator(name: &str) -> jsonschema::Validator {
    let schema = schema_file(name);
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{name}"
    );
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("schemas/{name}.schema.json: {e}"))
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Validates every API file under `out` against its schema; returns how many files of each
/// kind there were. Panics listing every file that fails.
fn validate_build(out: &Path) -> BTreeMap<&'static str, usize> {
    let validators: BTreeMap<&str, jsonschema::Validator> = KINDS
        .iter()
        .map(|&(name, _)| (name, validator(name)))
        .collect();
    let mut counts = BTreeMap::new();
    let mut failures = Vec::new();
    for (path, bytes) in tree(out) {
        let Some(kind) = schema_of(&path) else {
            assert!(
                !path.starts_with("api/v1/"),
                "{path}: an API file of no kind"
            );
            continue;
        };
        *counts.entry(kind).or_insert(0) += 1;
        let instance: Value =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        for error in errors(&validators[kind], &instance) {
            failures.push(format!("{path} ({kind}.schema.json) {error}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for &(kind, required) in KINDS {
        assert!(
            !required || counts.contains_key(kind),
            "no {kind} file in the build: {counts:?}"
        );
    }
    counts
}

#[test]
fn every_api_file_of_a_build_follows_its_schema() {
    let site = site();
    let counts = validate_build(&site.path("public"));
    assert_eq!(counts["providers"], 1);
    assert_eq!(counts["provider"], 2);
    assert_eq!(counts["incident"], 5);
}

#[test]
fn every_api_file_of_the_sample_archive_follows_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(["build", "--root", env!("CARGO_MANIFEST_DIR"), "--output"])
        .arg(&out)
        .args(["--base-url", BASE])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let counts = validate_build(&out);
    assert!(counts["incident"] >= 31, "{counts:?}");
}

#[test]
fn a_renamed_missing_or_malformed_field_fails_its_schema() {
    let site = site();
    let provider = validator("provider");
    let good = json(&site, "api/v1/acme.json");
    assert_eq!(errors(&provider, &good), Vec::<String>::new());
    let broken = |change: &dyn Fn(&mut Value)| {
        let mut value = good.clone();
        change(&mut value);
        errors(&provider, &value)
    };
    let renamed = broken(&|v| {
        let count = v.as_object_mut().unwrap().remove("outage_count").unwrap();
        v["outages"] = count;
    });
    assert_eq!(renamed.len(), 2, "missing and unexpected: {renamed:?}");
    assert!(
        !broken(&|v| v["incidents"][0]["owner"] = json!("x")).is_empty(),
        "an unknown field in a list item"
    );
    assert!(
        !broken(&|v| {
            v["incidents"][0].as_object_mut().unwrap().remove("regions");
        })
        .is_empty(),
        "a missing field in a list item"
    );
    assert!(
        !broken(&|v| v["incidents"][0]["api_url"] = json!("not a uri")).is_empty(),
        "the uri format is checked"
    );
    assert!(
        !broken(&|v| v["incidents"][0]["started"] = json!("2024-03-05 10:00 UTC")).is_empty(),
        "the date-time format is checked"
    );
    assert!(
        !broken(&|v| v["incidents"][0]["impact"] = json!("severe")).is_empty(),
        "an impact is a keyword"
    );
    assert!(
        !broken(&|v| v["incidents"][0]["downtime_minutes"] = json!(1.5)).is_empty(),
        "minutes are whole"
    );
}

#[test]
fn the_schemas_describe_the_shared_parts_once() {
    // JSON Schema cannot merge objects, so a list item (and a provider entry) is a `$defs`
    // entry repeated in each schema that uses it; these must never drift apart.
    let item = schema_file("provider")["$defs"]["item"].clone();
    assert!(item.is_object());
    for name in ["incident", "day"] {
        assert_eq!(
            schema_file(name)["$defs"]["item"],
            item,
            "{name}: $defs/item"
        );
    }
    assert_eq!(
        schema_file("providers")["$defs"]["provider"],
        schema_file("provider")["$defs"]["provider"],
        "$defs/provider"
    );
    // Every schema compiles, and every kind of file maps to one.
    for &(name, _) in KINDS {
        validator(name);
    }
    for (path, kind) in [
        ("api/v1/providers.json", Some("providers")),
        ("api/v1/acme.json", Some("provider")),
        ("api/v1/acme/partial-outage.json", Some("incident")),
        ("api/v1/acme/stats.json", Some("stats")),
        ("api/v1/acme/components.json", Some("components")),
        ("api/v1/days/2024-03-05.json", Some("day")),
        ("acme/feed.json", None),
    ] {
        assert_eq!(schema_of(path), kind, "{path}");
    }
}

#[test]
fn the_schemas_of_files_not_yet_built_accept_their_documented_shape() {
    // stats.json, components.json and days/*.json in the shape their schemas document,
    // whether or not a build writes each case (every_api_file_of_a_build_follows_its_schema
    // checks the real ones).
    let period = json!({
        "from": "2024-01-01T00:00:00Z", "to": "2026-03-01T10:00:00Z",
        "incident_count": 3, "outage_count": 2, "maintenance_count": 1,
        "by_impact": {
            "critical": {"incident_count": 1, "duration_seconds": 6000},
            "major": {"incident_count": 1, "duration_seconds": 6000},
            "minor": {"incident_count": 0, "duration_seconds": 0},
            "none": {"incident_count": 0, "duration_seconds": 0},
            "maintenance": {"incident_count": 1, "duration_seconds": 7200},
        },
        "downtime_seconds": 7800, "downtime_minutes": 130, "uptime_percent": 99.97,
        "any_uptime_percent": 99.9, "covered_seconds": 68_349_600,
        "mttr_seconds": 6000, "after_the_fact_count": 0,
    });
    let with = |key: &str, value: Value| {
        let mut p = period.clone();
        p[key] = value;
        p
    };
    let stats = json!({
        "provider": "acme", "name": "Acme Cloud", "url": format!("{BASE}acme/"),
        "through": "2026-03-01T10:00:00Z", "rule": "critical 100 %, major 30 %",
        "all_time": period, "last_12_months": with("mttr_seconds", Value::Null),
        "years": [with("year", json!(2024))], "months": [with("month", json!("2024-03"))],
        "communication": {
            "rule": "medians and bins", "outage_count": 2,
            "first_update": {"count": 0, "median_seconds": null, "bins": [
                {"from_seconds": 0, "to_seconds": 300, "count": 0},
                {"from_seconds": 86_400, "to_seconds": null, "count": 0},
            ]},
            "start_is_first_update_count": 2,
            "update_gap": {"count": 1, "median_seconds": 600, "bins": [
                {"from_seconds": 300, "to_seconds": 900, "count": 1},
            ]},
            "after_the_fact_count": 0, "postmortem_count": 1,
        },
    });
    assert_eq!(errors(&validator("stats"), &stats), Vec::<String>::new());
    let mut bad = stats.clone();
    bad["communication"]["update_gap"]["median_seconds"] = json!(-1);
    assert!(
        !errors(&validator("stats"), &bad).is_empty(),
        "a median is never negative"
    );
    let mut bad = stats.clone();
    bad["months"][0]["month"] = json!("2024-13");
    assert!(!errors(&validator("stats"), &bad).is_empty(), "a month");
    let mut bad = stats.clone();
    bad["all_time"]["year"] = json!(2024);
    assert!(
        !errors(&validator("stats"), &bad).is_empty(),
        "all_time has no year"
    );

    let components = json!({
        "provider": "acme", "name": "Acme Cloud",
        "components": [{
            "slug": "us-service-directory", "name": "US - Service Directory",
            "url": format!("{BASE}acme/components/us-service-directory/"),
            "incident_count": 2, "last_started": "2024-03-06T10:00:00Z",
            "last_12_months": with("uptime_percent", Value::Null),
            "years": [with("year", json!(2024))],
        }],
    });
    assert_eq!(
        errors(&validator("components"), &components),
        Vec::<String>::new()
    );

    let site = site();
    let mut entry = item(
        &json(&site, "api/v1/acme.json")["incidents"],
        "partial-outage",
    )
    .clone();
    entry["provider"] = json!("acme");
    entry["provider_name"] = json!("Acme Cloud");
    let day = json!({
        "date": "2024-03-05", "url": format!("{BASE}days/2024-03-05/"),
        "incident_count": 1, "provider_count": 1, "incidents": [entry],
    });
    assert_eq!(errors(&validator("day"), &day), Vec::<String>::new());
    let mut bad = day.clone();
    bad["incidents"][0]
        .as_object_mut()
        .unwrap()
        .remove("provider");
    assert!(
        !errors(&validator("day"), &bad).is_empty(),
        "a day's item names its provider"
    );
}

#[test]
fn each_update_has_a_permalink_that_the_page_the_api_and_the_feeds_share() {
    let site = site();
    // The seed: two updates in the same minute (21:21), and a postmortem.
    let page = site.html("lightstep/seed/index.html");
    let ids: Vec<String> = select(&page, "li.update")
        .iter()
        .map(|li| li.value().attr("id").unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "update-20220120-1758",
            "update-20220120-1841",
            "update-20220120-2008",
            "update-20220120-2121",
            "update-20220120-2121-2"
        ]
    );
    // Each update's time links to it.
    for li in select(&page, "li.update") {
        let id = li.value().attr("id").unwrap();
        let links: Vec<_> = li
            .select(&scraper::Selector::parse(".update-head a").unwrap())
            .map(|a| a.value().attr("href").unwrap().to_string())
            .collect();
        assert_eq!(links, [format!("#{id}")]);
    }
    let postmortem = select(&page, "section.postmortem#postmortem .postmortem-date a");
    assert_eq!(postmortem[0].value().attr("href"), Some("#postmortem"));
    // The API: every update's URL is the page's, at an id the page has.
    let page_url = "https://api.example/archive/lightstep/seed/";
    let api = json(&site, "api/v1/lightstep/seed.json");
    let urls: Vec<&str> = api["updates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap())
        .collect();
    let mut expected: Vec<String> = ids.iter().map(|id| format!("{page_url}#{id}")).collect();
    expected.push(format!("{page_url}#postmortem"));
    assert_eq!(urls, expected);
    // The feeds link each update the same way.
    let atom = feed_rs::parser::parse(site.read("lightstep/feed.xml").as_bytes()).unwrap();
    let content = atom.entries[0]
        .content
        .as_ref()
        .unwrap()
        .body
        .clone()
        .unwrap();
    for url in &expected {
        assert!(
            content.contains(&format!("href=\"{url}\"")),
            "{url}: {content}"
        );
    }
    // An update added later leaves the earlier ones where they were.
    let seed = SEED.replace(
        "### 2022-02-01 23:14 UTC",
        "### 2022-01-20 21:21 UTC: resolved\nAnd once more.\n\n### 2022-02-01 23:14 UTC",
    );
    assert_ne!(seed, SEED, "the seed's postmortem heading moved");
    site.write("content/lightstep/seed.md", &seed);
    site.build(&[]);
    let page = site.html("lightstep/seed/index.html");
    let after: Vec<String> = select(&page, "li.update")
        .iter()
        .map(|li| li.value().attr("id").unwrap().to_string())
        .collect();
    assert_eq!(after[..ids.len()], ids[..]);
    assert_eq!(after.last().unwrap(), "update-20220120-2121-3");
}

#[test]
fn the_api_index_and_its_page_list_every_kind_of_file_with_an_example_that_exists() {
    let site = site();
    let index = json(&site, "api/v1/index.json");
    assert_eq!(index["url"], BASE);
    let endpoints = index["endpoints"].as_array().unwrap();
    let page = site.html("api/index.html");
    let cards = select(&page, ".endpoints > li");
    assert_eq!(cards.len(), endpoints.len());
    let mut kinds = BTreeMap::new();
    for (endpoint, card) in endpoints.iter().zip(&cards) {
        let path = endpoint["path"].as_str().unwrap();
        let example = endpoint["example"].as_str().unwrap();
        // The example is a file of the build, of the pattern its path gives.
        let file = example.strip_prefix(BASE).unwrap();
        let pattern = regex_lite(path);
        assert!(pattern(file), "{file} is not a {path}");
        assert!(site.path("public").join(file).is_file(), "{example}");
        *kinds.entry(schema_of(file).unwrap()).or_insert(0) += 1;
        // The page says the same, and links the example.
        let card_text = crate::common::text(card);
        assert!(card_text.contains(path), "{card_text}");
        let links: Vec<_> = card
            .select(&scraper::Selector::parse("a").unwrap())
            .map(|a| a.value().attr("href").unwrap().to_string())
            .collect();
        assert_eq!(links, [example]);
    }
    // One endpoint of each kind of file the API has.
    assert_eq!(kinds.len(), KINDS.len(), "{kinds:?}");
    assert!(kinds.values().all(|&n| n == 1), "{kinds:?}");
    // Every page's footer leads to the page.
    let home = site.html("index.html");
    let footer: Vec<_> = select(&home, ".footer-links a")
        .iter()
        .filter_map(|a| a.value().attr("href"))
        .map(str::to_string)
        .collect();
    assert!(footer.contains(&"/archive/api/".to_string()), "{footer:?}");
}

/// Whether a file's path has the shape of an endpoint's (`{…}`: one segment's part).
fn regex_lite(pattern: &str) -> impl Fn(&str) -> bool + '_ {
    move |path: &str| {
        let parts: Vec<&str> = pattern.split('/').collect();
        let segments: Vec<&str> = path.split('/').collect();
        parts.len() == segments.len()
            && parts.iter().zip(&segments).all(|(part, segment)| {
                match (part.find('{'), part.find('}')) {
                    (Some(open), Some(close)) => {
                        segment.starts_with(&part[..open])
                            && segment.ends_with(&part[close + 1..])
                            && segment.len() > open + part.len() - close - 1
                    }
                    _ => part == segment,
                }
            })
    }
}
