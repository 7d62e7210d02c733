//! What an import writes into a file: a new file's text, and the patch of an existing
//! one (its front matter's keys in their order, its timeline merged and refined).

use super::*;

/// Plans a new file for `incident` at `path`.
pub(super) fn create(
    root: &Path,
    path: &Path,
    incident: &Imported,
    staged: &mut Staged,
) -> Result<Outcome, Diagnostic> {
    refuse_links(root, path)?;
    let plan = merge::fresh(incident);
    let source = recorded_source(incident, &plan);
    let mut yaml = String::new();
    for field in Field::ALL {
        if let Some(value) = plan.facts.line(field) {
            yaml.push_str(&format!("{}: {value}\n", field.key()));
        }
    }
    yaml.push_str(&source_lines(&source).join("\n"));
    let text = format!(
        "---\n{yaml}\n---\n## Updates\n{}",
        updates_text(&plan.new_updates)
    );
    let expected = Expected {
        facts: &plan.facts,
        source: &source,
        updates: escaped(&plan.new_updates),
        before: None,
    };
    staged.stage(root, path, &text, &expected, None, incident)?;
    Ok(Outcome {
        path: path.to_path_buf(),
        change: Change::Created {
            updates: plan.new_updates.len(),
        },
        kept: Vec::new(),
    })
}

/// Plans the merge of `incident` into the file at `path`, which holds `file` (and the text
/// `unwritten`, when a dry run planned it without writing it).
pub(super) fn update(
    root: &Path,
    path: &Path,
    incident: &Imported,
    file: &Incident,
    unwritten: Option<&str>,
    staged: &mut Staged,
) -> Result<Outcome, Diagnostic> {
    refuse_links(root, path)?;
    let shown = display_path(root, path);
    let bytes = match unwritten {
        Some(text) => text.as_bytes().to_vec(),
        None => std::fs::read(root.join(path))
            .map_err(|e| Diagnostic::file(&shown, format!("cannot read: {e}")))?,
    };
    let text = clean_text(bytes.clone()).map_err(|e| e.into_diagnostic(&shown))?;
    let plan = merge::merge(incident, file);
    let source = recorded_source(incident, &plan);
    let patched = patch(&shown, &text, file, &plan, &source)?;
    let change = if patched == text {
        Change::Unchanged
    } else {
        let expected = Expected {
            facts: &plan.facts,
            source: &source,
            updates: merged_updates(file, &plan),
            before: Some(file),
        };
        staged.stage(root, path, &patched, &expected, Some(bytes), incident)?;
        Change::Updated {
            new_updates: plan.new_updates.len(),
            refined: plan.refined.len(),
        }
    };
    Ok(Outcome {
        path: path.to_path_buf(),
        change,
        kept: plan.kept,
    })
}

pub(super) fn recorded_source(incident: &Imported, plan: &Plan) -> Source {
    Source {
        imported: Some(plan.record.to_string()),
        ..incident.source.clone()
    }
}

pub(super) fn source_lines(source: &Source) -> Vec<String> {
    let mut lines = vec![
        "source:".to_string(),
        format!("  kind: {}", quoted(&source.kind)),
        format!("  id: {}", quoted(&source.id)),
    ];
    if let Some(imported) = &source.imported {
        lines.push(format!("  imported: {}", quoted(imported)));
    }
    lines
}

/// Updates as written: `### <time>: <status>`, the escaped body, a blank line between two.
pub(super) fn updates_text(updates: &[Update]) -> String {
    let blocks: Vec<String> = updates
        .iter()
        .map(|update| {
            let heading = format!("### {}: {}", time(update.at), update.status.as_str());
            let body = escape_body(&update.body);
            if body.is_empty() {
                heading
            } else {
                format!("{heading}\n{body}")
            }
        })
        .collect();
    if blocks.is_empty() {
        String::new()
    } else {
        blocks.join("\n\n") + "\n"
    }
}

/// The updates the file holding `file` holds once `plan` is written, as the loader reads
/// them back.
pub(super) fn merged_updates(file: &Incident, plan: &Plan) -> Vec<(Timestamp, String, String)> {
    let mut updates: Vec<Update> = file.updates.clone();
    for (held, _) in &plan.refined {
        if let Some(at) = updates.iter().position(|u| u == held) {
            updates.remove(at);
        }
    }
    let mut read: Vec<(Timestamp, String, String)> = updates
        .iter()
        .map(|u| (u.at, u.status.as_str().to_string(), u.body.clone()))
        .collect();
    let told: Vec<Update> = plan.refined.iter().map(|(_, told)| told.clone()).collect();
    read.extend(escaped(&told));
    read.extend(escaped(&plan.new_updates));
    read
}

/// `body` with each update the plan refines written as the provider tells it, where the
/// feed's version of it stood; `None` when one is not in `body` as the loader read it.
pub(super) fn refine(body: &str, refined: &[(Update, Update)]) -> Option<String> {
    if refined.is_empty() {
        return Some(body.to_string());
    }
    let written = written_updates(body);
    let mut taken = vec![false; written.len()];
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (held, told) in refined {
        let at = (0..written.len()).find(|&i| !taken[i] && written[i].0 == *held)?;
        taken[at] = true;
        let range = &written[at].1;
        // The blank lines before the next update stay.
        let end = range.start + body[range.clone()].trim_end().len();
        let block = updates_text(std::slice::from_ref(told));
        edits.push((range.start..end, block.trim_end().to_string()));
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(body.len());
    let mut from = 0;
    for (range, block) in edits {
        out.push_str(&body[from..range.start]);
        out.push_str(&block);
        from = range.end;
    }
    out.push_str(&body[from..]);
    Some(out)
}

/// Updates as the loader reads them back from [`updates_text`].
pub(super) fn escaped(updates: &[Update]) -> Vec<(Timestamp, String, String)> {
    updates
        .iter()
        .map(|u| {
            let body = trim_blank_lines(&escape_body(&u.body)).to_string();
            (u.at, u.status.as_str().to_string(), body)
        })
        .collect()
}

/// The keys an import writes, in the order it writes them: where a missing one goes.
pub(super) const ORDER: [&str; 10] = [
    "title",
    "started",
    "resolved",
    "impact",
    "components",
    "regions",
    "id",
    "official_url",
    "extra",
    "source",
];

/// `text` (the file holding `file`) with the fields the plan changes rewritten, every other
/// line as it was, and the new updates after everything.
pub(super) fn patch(
    shown: &Path,
    text: &str,
    file: &Incident,
    plan: &Plan,
    source: &Source,
) -> Result<String, Diagnostic> {
    let ctx = FileCtx::new(shown, text);
    let (true, Some(Ok(split))) = (text.starts_with("---\n"), frontmatter::split(&ctx)) else {
        return Err(Diagnostic::file(
            shown,
            "this file has no front matter to update",
        ));
    };
    let yaml_end = "---\n".len() + split.yaml.len();
    let body_start = text.len() - split.body.len();
    let mut lines: Vec<String> = split.yaml.lines().map(str::to_string).collect();
    let current = Facts::of_incident(file);
    for field in Field::ALL {
        let value = plan.facts.line(field);
        if value != current.line(field) {
            if field == Field::Resolved {
                set_key(&mut lines, "duration", None);
            }
            let line = value.map(|v| vec![format!("{}: {v}", field.key())]);
            set_key(&mut lines, field.key(), line);
        }
    }
    if file.source.as_ref() != Some(source) {
        set_key(&mut lines, "source", Some(source_lines(source)));
    }
    let mut out = String::from("---\n");
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&text[yaml_end..body_start]);
    let body = refine(&text[body_start..], &plan.refined).ok_or_else(|| {
        Diagnostic::file(
            shown,
            "the file changed while it was read; nothing was written",
        )
        .with_hint("run it again")
    })?;
    let body = body.as_str();
    if plan.new_updates.is_empty() {
        out.push_str(body);
    } else {
        let body = body.trim_end();
        out.push_str(body);
        if !body.is_empty() {
            out.push_str("\n\n");
        }
        if file.updates.is_empty() && !body.lines().any(|l| l.starts_with("## Updates")) {
            out.push_str("## Updates\n");
        }
        out.push_str(&updates_text(&plan.new_updates));
    }
    Ok(out)
}

/// Replaces the top-level `key` (its line and the lines that continue it) with `value`,
/// removes it when `value` is `None`, or inserts it after the keys [`ORDER`] puts before it.
pub(super) fn set_key(lines: &mut Vec<String>, key: &str, value: Option<Vec<String>>) {
    let is_key = |line: &str, key: &str| {
        line.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start_matches(' ').starts_with(':'))
    };
    let starts_entry =
        |line: &str| line.starts_with(|c: char| c.is_alphanumeric() || "_#\"'".contains(c));
    let range = |lines: &[String], key: &str| {
        let start = lines.iter().position(|l| is_key(l, key))?;
        let mut end = start + 1;
        while end < lines.len() && !starts_entry(&lines[end]) {
            end += 1;
        }
        while end > start + 1 && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        Some(start..end)
    };
    match (range(lines, key), value) {
        (Some(found), value) => {
            lines.splice(found, value.unwrap_or_default());
        }
        (None, Some(value)) => {
            let before = ORDER.iter().take_while(|k| **k != key);
            let at = before
                .filter_map(|k| range(lines, k))
                .map(|r| r.end)
                .max()
                .unwrap_or(0);
            lines.splice(at..at, value);
        }
        (None, None) => {}
    }
}
