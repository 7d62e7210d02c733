//! What a user reads when something is wrong: every problem at its `path:line:col`, in the
//! words of someone writing the files (no parser or Rust type names), one error per
//! mistake. The full stderr of a broken site is a snapshot, so any change to it is seen in
//! review (`cargo insta review`).

use crate::common::{Site, incident, stderr};

/// stderr with the temp folder's path replaced, so the snapshot holds no machine detail.
fn shown(site: &Site, output: &std::process::Output) -> String {
    stderr(output).replace(&format!("{}/", site.root().display()), "")
}

#[test]
fn a_broken_site_in_the_writers_words() {
    let site = Site::new(&[
        (
            "content/acme/typo.md",
            "---\ntitle: Typo\nstarted: 2024-03-05T14:00:00Z\nimpcat: major\n---\n\
             ### yesterday: investigating\nx\n",
        ),
        (
            "content/acme/twice.md",
            "---\ntitle: A\ntitle: B\nstarted: 2024-03-05T14:00:00Z\nimpact: minor\n---\n",
        ),
        (
            "content/acme/list.md",
            "---\ntitle: [Broken\nstarted: 2024-03-05T14:00:00Z\nimpact: minor\n---\n",
        ),
        ("site.yaml", "feed_limit: -1\n"),
    ]);
    let output = site.run(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(shown(&site, &output));
}

#[test]
fn site_yaml_errors_point_at_the_value() {
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        (
            "site.yaml",
            "feed_limit: 0\nbase_url: ftp://example.com/\ncname: a b\n",
        ),
    ]);
    let output = site.run(&["check"]);
    let err = shown(&site, &output);
    for at in ["site.yaml:1:13:", "site.yaml:2:11:", "site.yaml:3:8:"] {
        assert!(err.contains(at), "{at} missing from:\n{err}");
    }
}

#[test]
fn one_component_may_be_written_without_a_list() {
    let text = incident("A", "2024-03-05T14:00:00Z").replacen(
        "---\n",
        "---\ncomponents: API\nregions: eu\n",
        1,
    );
    let site = Site::new(&[("content/acme/a.md", &text)]);
    site.build(&[]);
    let api = site.read("api/v1/acme/a.json");
    assert!(api.contains(r#""components":["API"]"#), "{api}");
    assert!(api.contains(r#""regions":["eu"]"#), "{api}");
}

#[test]
fn counts_are_plural_only_when_they_are() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    let output = site.run(&["check"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.starts_with("checked 1 incident from 1 provider: 15 pages"),
        "{out}"
    );
}

#[test]
fn a_root_that_does_not_exist_is_named_as_such() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(["build", "--root", "/no/such/site"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("'/no/such/site'") && err.contains("no such folder"),
        "{err}"
    );
    assert!(!err.contains("error in"), "{err}");
}

#[test]
fn new_needs_a_site_and_takes_any_title() {
    let dir = tempfile::tempdir().unwrap();
    let new = |title: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
            .args(["new", "github", title])
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let output = new("Git push/pull failures");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no `content/` folder"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join("content").exists(), "nothing created");
    std::fs::create_dir(dir.path().join("content")).unwrap();
    let output = new("Git push/pull failures");
    assert!(output.status.success(), "{}", stderr(&output));
    let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
    assert!(path.ends_with("-git-push-pull-failures.md"), "{path}");
    let text = std::fs::read_to_string(dir.path().join(&path)).unwrap();
    assert!(
        text.contains(r#"title: "Git push/pull failures""#),
        "{text}"
    );
}

#[test]
fn a_build_without_a_base_url_warns_where_links_will_point() {
    let site = Site::new(&[("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z"))]);
    let output = site.run(&["build"]);
    assert!(output.status.success());
    let err = stderr(&output);
    assert!(err.contains("warning: no base URL is set"), "{err}");
    let output = site.run(&["build", "--base-url", "https://example.com/"]);
    assert!(!stderr(&output).contains("warning"), "{}", stderr(&output));
}

#[test]
fn template_errors_point_at_their_line_and_column() {
    let site = Site::new(&[
        ("content/acme/a.md", &incident("A", "2024-03-05T14:00:00Z")),
        (
            "templates/incident.html",
            "{% extends \"base.html\" %}\n{% block nosuch %}\n<p>{{ incident.title | nosuchfilter }}</p>\n{% endblock %}\n",
        ),
    ]);
    let output = site.run(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(shown(&site, &output));

    // Failing while rendering: the template's place, and the page it was rendering.
    site.write(
        "templates/incident.html",
        "{% extends \"base.html\" %}\n{% block main %}\n<p>{{ incident.nosuch.deeper }}</p>\n{% endblock main %}\n",
    );
    let err = shown(&site, &site.run(&["build"]));
    assert!(
        err.starts_with(
            "templates/incident.html:3:16: error: template error: Field `nosuch` is not defined"
        ),
        "{err}"
    );
    assert!(err.contains("(while rendering acme/a/index.html)"), "{err}");
    assert!(!site.path("public").exists(), "nothing written");
}

#[test]
fn what_builds_but_looks_wrong_is_a_warning() {
    let site = Site::new(&[(
        "content/acme/a.md",
        "---\ntitle: A\nstarted: 2024-03-05T14:00:00Z\nimpact: minor\n---\n\
         ### 2024-03-05 14:00 UTC: investigatng\nLooking.\n### 2024-03-05 15:00 UTC: resolved\nFixed.\n",
    )]);
    let output = site.run(&["build", "--base-url", "https://example.com/"]);
    assert!(output.status.success(), "{}", stderr(&output));
    insta::assert_snapshot!(shown(&site, &output));
    // Shown as written, and still ongoing: the warnings say what the page will show.
    let page = site.read("acme/a/index.html");
    assert!(page.contains("investigatng"), "kept as written");
}

#[test]
fn a_folder_without_content_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["build", "check"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_outages"))
            .args([command, "--root"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{command}");
        let err = stderr(&output);
        assert!(err.contains("there is no `content/` folder in"), "{err}");
        assert!(!err.contains("error in"), "not a content error: {err}");
    }
    assert!(!dir.path().join("public").exists());
}
