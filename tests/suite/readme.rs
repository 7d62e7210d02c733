//! The README's commands work as written: its quick start runs line by line in a temp
//! folder and ends in a built site, and every `outages` command it shows is one the binary
//! knows.

use std::path::{Path, PathBuf};
use std::process::Command;

const README: &str = include_str!("../../README.md");

/// The shell blocks of the README under the heading `heading`, or of all of it.
fn shell_lines(heading: Option<&str>) -> Vec<String> {
    let text = match heading {
        Some(heading) => {
            let at = README
                .find(&format!("\n## {heading}\n"))
                .unwrap_or_else(|| panic!("the README has no `## {heading}`"));
            let rest = &README[at + 1..];
            let end = rest[3..].find("\n## ").map_or(rest.len(), |end| end + 3);
            &rest[..end]
        }
        None => README,
    };
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("```") {
            inside = !inside && line.trim() == "```sh";
            continue;
        }
        if inside {
            // A comment begins at ` #` outside quotes; the README's commands quote no `#`.
            let command = line.split(" #").next().unwrap().trim();
            if !command.is_empty() {
                lines.push(command.to_string());
            }
        }
    }
    lines
}

/// Words as a shell splits them, for the README's simple quoting ("…").
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn outages(args: &[String], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_outages"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn the_quick_start_runs_as_written_and_builds_a_site() {
    let temp = tempfile::tempdir().unwrap();
    let mut dir: PathBuf = temp.path().to_path_buf();
    let lines = shell_lines(Some("Quick start"));
    assert!(lines.len() >= 3, "{lines:?}");
    let mut ran = Vec::new();
    for line in &lines {
        for command in line.split("&&").map(str::trim) {
            let words = words(command);
            match words.first().map(String::as_str) {
                Some("cd") => dir = dir.join(&words[1]),
                Some("outages") if words[1] == "serve" => {
                    // A server runs until stopped: here it is only asked whether it knows
                    // the options shown.
                    let mut help = words[1..].to_vec();
                    help.push("--help".into());
                    assert!(outages(&help, &dir).status.success(), "{command}");
                }
                Some("outages") => {
                    let output = outages(&words[1..], &dir);
                    assert!(
                        output.status.success(),
                        "`{command}` failed:\n{}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                    ran.push(words[1].clone());
                }
                _ => panic!("the quick start runs only `outages` and `cd`: {command}"),
            }
        }
    }
    assert_eq!(ran, ["init", "new", "build"]);
    // The new provider, with the incident `new` wrote, has its page.
    let acme = std::fs::read_to_string(dir.join("public/acme/index.html")).unwrap();
    assert!(acme.contains("API errors</a>"), "{acme}");
}

#[test]
fn every_command_the_readme_shows_is_one_the_binary_knows() {
    let temp = tempfile::tempdir().unwrap();
    let mut verbs: Vec<Vec<String>> = shell_lines(None)
        .iter()
        .flat_map(|line| line.split("&&").map(words).collect::<Vec<_>>())
        .filter(|words| words.first().is_some_and(|w| w == "outages"))
        // `provider add`: the verb and its subcommand.
        .map(|words| {
            let verb = words[1..].iter().take_while(|w| !w.starts_with('-'));
            verb.take(if words[1] == "provider" { 2 } else { 1 })
                .cloned()
                .collect()
        })
        .collect();
    verbs.sort();
    verbs.dedup();
    assert!(verbs.len() >= 6, "{verbs:?}");
    for verb in verbs {
        let mut help = verb.clone();
        help.push("--help".into());
        let output = outages(&help, temp.path());
        assert!(
            output.status.success(),
            "`outages {}` is no command",
            verb.join(" ")
        );
    }
}
