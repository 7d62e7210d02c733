//! Every output path conflict is found while planning, by `check` and `build` alike, before
//! anything is written, and reported at the alias that causes it.

use crate::common::{Site, stderr};

fn incident(title: &str, extra: &str) -> String {
    format!(
        "---\ntitle: {title}\nstarted: 2024-03-05T14:00:00Z\nimpact: major\n{extra}---\nText.\n"
    )
}

/// Runs `check` then `build`: both fail with every wanted message, and nothing is written.
fn both_refuse(site: &Site, wanted: &[&str]) -> String {
    let mut last = String::new();
    for command in ["check", "build"] {
        let output = site.run(&[command]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{command}:\n{err}");
        for want in wanted {
            assert!(err.contains(want), "{command}: `{want}` missing:\n{err}");
        }
        assert!(!err.contains("Is a directory"), "{err}");
        assert!(!site.path("public").exists(), "{command} wrote public/");
        last = err;
    }
    last
}

#[test]
fn an_alias_inside_another_file_is_an_error_at_its_line() {
    let site = Site::new(&[
        (
            "content/acme/a.md",
            &incident(
                "A",
                "aliases:\n  - /feed.xml/x/\n  - /_headers/\n  - /acme/ok/index.html/x\n  - /api/v1/acme.json/old/\n",
            ),
        ),
        ("content/acme/ok.md", &incident("Ok", "")),
    ]);
    let err = both_refuse(
        &site,
        &[
            "a.md:6:5: error: `feed.xml` would be a file, and also a folder",
            "a.md:7:5: error: `_headers` would be a file, and also a folder",
            "a.md:8:5: error: `acme/ok/index.html` would be a file, and also a folder",
            "a.md:9:5: error: `api/v1/acme.json` would be a file, and also a folder",
        ],
    );
    assert_eq!(err.matches("error:").count(), 4, "{err}");
}

#[test]
fn an_alias_deep_inside_another_file_or_beside_it_is_told_apart() {
    // Deeper than the site's own paths, each path is searched instead of a set of folders:
    // both ways, `b.json` and `b.json-x/`, `b.json.d/` share a start but not a folder.
    for inside in ["/feed.xml/x/", "/feed.xml/1/2/3/4/5/6/7/8/9/"] {
        let site = Site::new(&[
            (
                "content/acme/a.md",
                &incident(
                    "A",
                    &format!("aliases:\n  - {inside}\n  - /api/v1/acme/b.json-x/\n"),
                ),
            ),
            (
                "content/acme/b.md",
                &incident("B", "aliases: [/api/v1/acme/b.json.d/]\n"),
            ),
        ]);
        let err = both_refuse(
            &site,
            &["a.md:6:5: error: `feed.xml` would be a file, and also a folder"],
        );
        assert_eq!(err.matches("error:").count(), 1, "{inside}: {err}");
    }
}

#[test]
fn an_alias_on_any_generated_or_static_file_is_an_error_at_its_line() {
    let site = Site::new(&[
        (
            "content/acme/a.md",
            &incident(
                "A",
                "aliases: [/acme/feed.json, /api/v1/acme/b.json, /notes.txt, /b/]\n",
            ),
        ),
        ("content/acme/b.md", &incident("B", "aliases: [/B/]\n")),
        ("static/notes.txt", "mine"),
    ]);
    both_refuse(
        &site,
        &[
            "a.md:5:11: error: would be written to `acme/feed.json`",
            "a.md:5:28: error: would be written to `api/v1/acme/b.json`",
            "a.md:5:49: error: would be written to `notes.txt`: the alias `/notes.txt` and the static file",
            "b.md:5:11: error: would be written to `b/index.html`, which differs only in case \
             or Unicode normalization from `B/index.html`: the alias `/B/` and the alias `/b/`",
            "a.md:5:61)",
        ],
    );
}

#[test]
fn a_static_file_still_replaces_a_generated_file_of_the_site() {
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "")),
        ("static/robots.txt", "User-agent: *\nDisallow: /\n"),
    ]);
    site.build(&[]);
    assert_eq!(site.read("robots.txt"), "User-agent: *\nDisallow: /\n");
}

#[test]
fn a_provider_named_index_conflicts_with_the_api_index_and_a_static_llms_txt_replaces_it() {
    let site = Site::new(&[("content/index/a.md", &incident("A", ""))]);
    both_refuse(
        &site,
        &[
            "would be written to `api/v1/index.json`",
            "provider `index`",
            "the generated `api/v1/index.json`",
        ],
    );
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "")),
        ("static/llms.txt", "# Ours\n"),
    ]);
    site.build(&[]);
    assert_eq!(site.read("llms.txt"), "# Ours\n");
}

#[test]
fn a_provider_named_providers_conflicts_with_the_table_of_providers() {
    let site = Site::new(&[("content/providers/a.md", &incident("A", ""))]);
    both_refuse(
        &site,
        &[
            "would be written to `providers/index.html`",
            "provider `providers`",
            "the generated `providers/index.html`",
        ],
    );
}

#[test]
fn conflicts_are_reported_with_the_other_errors_each_pair_once() {
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "aliases: [/old/]\n")),
        ("content/acme/b.md", &incident("B", "aliases: [/old/]\n")),
        ("content/acme/c.md", &incident("C", "slug: a\n")),
        ("content/acme/broken.md", "---\ntitle: Broken\n---\n"),
    ]);
    let err = both_refuse(
        &site,
        &[
            "broken.md:1:1: error: missing `started`",
            "would be written to `old/index.html`",
            "would be written to `acme/a/index.html`",
        ],
    );
    assert_eq!(err.matches("`old/index.html`").count(), 1, "{err}");
    assert_eq!(err.matches("`acme/a/index.html`").count(), 1, "{err}");
}

#[test]
fn a_name_too_long_for_a_file_system_is_an_error_at_check() {
    let long = "a".repeat(260);
    let site = Site::new(&[(
        "content/acme/ok.md",
        &incident("Ok", &format!("aliases: [/{long}/]\n")),
    )]);
    let err = both_refuse(
        &site,
        &["longer than a file system allows", "content/acme/ok.md:"],
    );
    assert!(!err.contains("staging"), "{err}");
}

#[test]
fn aliases_that_differ_only_in_unicode_normalization_are_one_path() {
    // `café` as one character (NFC) and as `e` with a combining accent (NFD): macOS and
    // some CDNs store both as one folder, so two incidents cannot have them.
    let site = Site::new(&[
        (
            "content/acme/a.md",
            &incident("A", "aliases: [/caf\u{e9}/]\n"),
        ),
        (
            "content/acme/b.md",
            &incident("B", "aliases: [/CAFE\u{301}/]\n"),
        ),
    ]);
    let err = both_refuse(&site, &["differs only in case or Unicode normalization"]);
    assert_eq!(err.matches("error:").count(), 1, "{err}");
}

#[test]
fn a_duplicate_id_hides_no_path_conflict() {
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "id: same\n")),
        ("content/acme/b.md", &incident("B", "id: same\n")),
        ("content/acme/base.md", &incident("Base", "")),
        ("content/acme/c.md", &incident("C", "slug: base\n")),
    ]);
    both_refuse(
        &site,
        &[
            "`same` is already the id of an incident of `acme`",
            "would be written to `acme/base/index.html`",
        ],
    );
}
