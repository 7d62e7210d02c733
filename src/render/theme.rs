//! The theme: tera templates and static assets. The default theme is compiled into the
//! binary; a site's own `templates/` and `static/` replace it file by file.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rust_embed::RustEmbed;
use tera::Tera;

use crate::content::fields::display_path;
use crate::diagnostics::Diagnostic;
use crate::sources;

#[derive(RustEmbed)]
#[folder = "templates/"]
struct DefaultTemplates;

#[derive(RustEmbed)]
#[folder = "static/"]
struct DefaultStatic;

pub const TEMPLATES_DIR: &str = "templates";
pub const STATIC_DIR: &str = "static";

/// Where an asset's bytes come from.
#[derive(Debug, Clone)]
pub enum AssetSource {
    Embedded(Cow<'static, [u8]>),
    /// A file of the site's `static/`, read when written.
    File(PathBuf),
}

crate::archive::index_type!(AssetIx, "an asset in the theme");

#[derive(Debug, Clone)]
pub struct Asset {
    /// Site path, `/`-separated: `style.css`, `icons/logo.svg`.
    pub path: String,
    pub source: AssetSource,
}

/// Templates parsed once per build, and the assets to copy.
pub struct Theme {
    pub tera: Tera,
    /// Each template's file and text, by template name: errors point into them.
    sources: Sources,
    pub assets: Vec<Asset>,
    /// The theme's own assets (`style.css`), by name, and the path each is written to:
    /// `style.3f9a1c2e.css` when names carry a hash of the bytes, so a CDN may cache them
    /// for a year.
    pub asset_paths: BTreeMap<String, String>,
}

impl Theme {
    /// Loads the theme of the site at `root`; with `hash_names`, the theme's assets are
    /// written under names that carry a hash of their final bytes.
    pub fn load(root: &Path, hash_names: bool) -> Result<Theme, Vec<Diagnostic>> {
        let mut errors = Vec::new();
        let (tera, sources) = load_templates(root, &mut errors);
        let (assets, asset_paths) = load_assets(root, hash_names, &mut errors);
        match tera {
            Some(tera) if errors.is_empty() => Ok(Theme {
                tera,
                sources,
                assets,
                asset_paths,
            }),
            _ => Err(errors),
        }
    }

    /// A template error at its template's `path:line:col`, in our words.
    pub fn template_error(&self, error: &tera::Error, context: Option<&str>) -> Diagnostic {
        let mut errors = template_errors(&self.sources, error, context);
        errors.swap_remove(0)
    }
}

/// Each template's file as shown to the user and its text, by template name.
type Sources = BTreeMap<String, (PathBuf, String)>;

/// Tera's error as diagnostics (at least one): at the span its report carries (a syntax
/// error, a failure while rendering), else at the template it names; `context` says what
/// was being rendered (`while rendering acme/index.html`).
fn template_errors(
    sources: &Sources,
    error: &tera::Error,
    context: Option<&str>,
) -> Vec<Diagnostic> {
    use tera::ErrorKind;
    let file = |name: &str| {
        sources.get(name).map_or_else(
            || (PathBuf::from(TEMPLATES_DIR).join(name), ""),
            |(path, text)| (path.clone(), text.as_str()),
        )
    };
    let while_rendering = |message: String| match context {
        Some(context) => format!("{message} (while rendering {context})"),
        None => message,
    };
    // A rendering error may come wrapped in a message; the cause holds the report.
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = current {
        if let Some(error) = cause.downcast_ref::<tera::Error>() {
            match error.kind() {
                ErrorKind::SyntaxError(report) | ErrorKind::RenderingError(report) => {
                    let (path, text) = file(report.filename());
                    let span = report.span();
                    let width = if span.end_line == span.start_line {
                        span.end_col.saturating_sub(span.start_col).max(1)
                    } else {
                        1
                    };
                    return vec![Diagnostic::at(
                        path,
                        text,
                        span.start_line,
                        span.start_col + 1,
                        width,
                        while_rendering(format!("template error: {}", report.message())),
                    )];
                }
                ErrorKind::MissingParent { current, parent } => {
                    return vec![Diagnostic::file(
                        file(current).0,
                        format!(
                            "template error: it extends `{parent}`, which is no template of the theme"
                        ),
                    )];
                }
                ErrorKind::TemplateNotFound(name) => {
                    return vec![Diagnostic::file(
                        PathBuf::from(TEMPLATES_DIR).join(name),
                        while_rendering(format!("template `{name}` is missing")),
                    )];
                }
                ErrorKind::Msg(message) => {
                    // Checks across templates (unknown filters, blocks no parent has)
                    // come as finished reports, joined: each names its place.
                    let found: Vec<Diagnostic> = message
                        .split("\n\n")
                        .filter_map(|report| {
                            let (name, line, col, message) = read_report(report)?;
                            let (path, text) = file(name);
                            let width = report_width(report);
                            Some(Diagnostic::at(
                                path,
                                text,
                                line,
                                col,
                                width,
                                while_rendering(format!("template error: {message}")),
                            ))
                        })
                        .collect();
                    if !found.is_empty() {
                        return found;
                    }
                }
                _ => {}
            }
        }
        current = cause.source();
    }
    // Anything else: the whole chain, at the templates folder.
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    vec![Diagnostic::file(
        PathBuf::from(TEMPLATES_DIR),
        while_rendering(format!("template error: {message}")),
    )]
}

/// The template, line, column and message of one of tera's finished reports:
/// `error: <message>\n --> <template>:<line>:<col>\n…`.
fn read_report(report: &str) -> Option<(&str, usize, usize, &str)> {
    let mut lines = report.lines();
    let message = lines.next()?.trim().strip_prefix("error: ")?;
    let place = lines.next()?.trim().strip_prefix("--> ")?;
    let mut parts = place.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, col, message))
}

/// How many carets a finished report draws under its line.
fn report_width(report: &str) -> usize {
    report
        .lines()
        .filter_map(|line| line.split_once('|').map(|(_, marks)| marks.trim()))
        .find(|marks| !marks.is_empty() && marks.chars().all(|c| c == '^'))
        .map_or(1, str::len)
}

fn load_templates(root: &Path, errors: &mut Vec<Diagnostic>) -> (Option<Tera>, Sources) {
    let mut sources: Sources = BTreeMap::new();
    for name in DefaultTemplates::iter() {
        let file = DefaultTemplates::get(&name).expect("listed templates exist");
        let text = lean(&String::from_utf8_lossy(&file.data));
        sources.insert(
            name.to_string(),
            (PathBuf::from(format!("(built-in) templates/{name}")), text),
        );
    }
    for (name, path) in site_files(root, TEMPLATES_DIR, errors) {
        let shown = display_path(root, path.strip_prefix(root).unwrap_or(&path));
        match std::fs::read(&path) {
            Ok(bytes) => match crate::content::source::clean_text(bytes) {
                Ok(text) => {
                    sources.insert(name, (shown, text));
                }
                Err(error) => errors.push(error.into_diagnostic(&shown)),
            },
            Err(e) => errors.push(Diagnostic::file(&shown, format!("cannot read: {e}"))),
        }
    }
    let mut tera = Tera::new();
    // Counts as pages show them, in one place: `{{ n | thousands }}` writes `10,088`.
    tera.register_filter("thousands", |n: i64, _: tera::Kwargs, _: &tera::State| {
        crate::render::words::thousands(n)
    });
    let templates = sources
        .iter()
        .map(|(name, (_, text))| (name.as_str(), text.as_str()));
    match tera.add_raw_templates(templates) {
        Ok(()) => (Some(tera), sources),
        Err(error) => {
            errors.extend(template_errors(&sources, &error, None));
            (None, sources)
        }
    }
}

/// A built-in template without the indentation and blank lines that keep it readable:
/// every page repeats them, and they were a twentieth of a real archive's HTML. Where the
/// template had whitespace the page still has some (a line break), so nothing reads
/// differently, except after a line that is one tag that writes nothing (`{% if … %}`,
/// `{% endfor %}`, a comment), whose line break is left out too. The built-in templates
/// hold no `<pre>`. A site's own templates are left as written.
fn lean(template: &str) -> String {
    let mut lean = String::with_capacity(template.len());
    for line in template.lines().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        lean.push_str(line);
        if !writes_nothing(line) {
            lean.push('\n');
        }
    }
    lean
}

/// Whether a template line is one tag that writes nothing by itself.
fn writes_nothing(line: &str) -> bool {
    let one = |open: &str, close: &str| {
        line.starts_with(open) && line.ends_with(close) && line.matches(open).count() == 1
    };
    let control = one("{%", "%}") && {
        let word = line[2..].trim_start_matches(['-', ' ']);
        !word.starts_with("include")
    };
    control || one("{#", "#}")
}

fn load_assets(
    root: &Path,
    hash_names: bool,
    errors: &mut Vec<Diagnostic>,
) -> (Vec<Asset>, BTreeMap<String, String>) {
    let mut sources: BTreeMap<String, AssetSource> = DefaultStatic::iter()
        .map(|name| {
            let file = DefaultStatic::get(&name).expect("listed assets exist");
            (name.to_string(), AssetSource::Embedded(file.data))
        })
        .collect();
    for (name, path) in site_files(root, STATIC_DIR, errors) {
        sources.insert(name, AssetSource::File(path));
    }
    let mut paths = BTreeMap::new();
    let mut assets = Vec::with_capacity(sources.len());
    for (name, source) in sources {
        // The theme's own assets are the ones templates name; a site's other static
        // files (images linked from incidents) keep their names.
        if DefaultStatic::get(&name).is_none() {
            assets.push(Asset { path: name, source });
            continue;
        }
        let path = match (&source, hash_names) {
            (_, false) => name.clone(),
            (AssetSource::Embedded(bytes), true) => hashed_name(&name, bytes),
            (AssetSource::File(file), true) => match std::fs::read(file) {
                Ok(bytes) => hashed_name(&name, &bytes),
                Err(e) => {
                    errors.push(Diagnostic::file(file, format!("cannot read: {e}")));
                    continue;
                }
            },
        };
        paths.insert(name, path.clone());
        assets.push(Asset { path, source });
    }
    (assets, paths)
}

/// `style.css` → `style.3f9a1c2e.css`, from the first 32 bits of the BLAKE3 hash.
pub fn hashed_name(name: &str, bytes: &[u8]) -> String {
    let hash = blake3::hash(bytes).to_hex();
    let short = &hash.as_str()[..8];
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() && !stem.ends_with('/') => {
            format!("{stem}.{short}.{extension}")
        }
        _ => format!("{name}.{short}"),
    }
}

/// The files of a site's `dir` (templates or static), by `/`-separated name. Symbolic links
/// are not followed and editors' temporary files are skipped.
fn site_files(root: &Path, dir: &str, errors: &mut Vec<Diagnostic>) -> Vec<(String, PathBuf)> {
    let base = root.join(dir);
    if !base.is_dir() {
        return Vec::new();
    }
    let mut files = Vec::new();
    for entry in sources::walk(&base) {
        match entry {
            Ok(entry) if entry.file_type().is_file() => {
                let relative = entry.path().strip_prefix(&base).unwrap_or(entry.path());
                let name: Option<Vec<&str>> = relative
                    .components()
                    .map(|c| c.as_os_str().to_str())
                    .collect();
                match name {
                    Some(parts) => files.push((parts.join("/"), entry.path().to_path_buf())),
                    None => errors.push(Diagnostic::file(
                        entry.path(),
                        "file name is not valid UTF-8",
                    )),
                }
            }
            Ok(_) => {}
            Err(e) => errors.push(Diagnostic::file(
                e.path().unwrap_or(&base),
                format!("cannot read: {e}"),
            )),
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lean_template_keeps_a_break_wherever_there_was_whitespace() {
        let template = "<ul>\n  {% for x in xs %}\n    <li>{{ x }}</li>\n\n  {% endfor %}\n</ul>\n{% include \"p.html\" %}\n<p>a\n  b</p>\n{# note #}\n<i>{% if y %}y{% endif %}</i>\n";
        assert_eq!(
            lean(template),
            "<ul>\n{% for x in xs %}<li>{{ x }}</li>\n{% endfor %}</ul>\n{% include \"p.html\" %}\n<p>a\nb</p>\n{# note #}<i>{% if y %}y{% endif %}</i>\n"
        );
    }

    #[test]
    fn the_built_in_templates_hold_no_preformatted_text() {
        for name in DefaultTemplates::iter() {
            let file = DefaultTemplates::get(&name).unwrap();
            let text = String::from_utf8_lossy(&file.data);
            for tag in ["<pre", "<textarea", "{% raw"] {
                assert!(
                    !text.contains(tag),
                    "{name} holds {tag}: lean() would change it"
                );
            }
        }
    }

    #[test]
    fn hashed_names_follow_the_bytes() {
        let a = hashed_name("style.css", b"body{}");
        assert!(
            a.starts_with("style.") && a.ends_with(".css") && a.len() == "style.12345678.css".len(),
            "{a}"
        );
        assert_eq!(
            a,
            hashed_name("style.css", b"body{}"),
            "stable across builds"
        );
        assert_ne!(
            a,
            hashed_name("style.css", b"body{color:red}"),
            "changes with the content"
        );
        assert!(hashed_name("icons/logo.svg", b"x").starts_with("icons/logo."));
        assert!(hashed_name("LICENSE", b"x").starts_with("LICENSE."));
    }
}
