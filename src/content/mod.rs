//! Loading `content/`: every `*.md` file is read and parsed in parallel into the model.
//! Each file gives an incident, a provider description, or its diagnostics; nothing here
//! knows about pages or output paths.

pub(crate) mod attributes;
pub(crate) mod dialect;
mod downguide;
pub(crate) mod fields;
pub(crate) mod frontmatter;
pub mod source;
pub mod time;
pub(crate) mod twin;
pub mod updates;
pub(crate) mod yaml;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use foldhash::HashMap;
use rayon::prelude::*;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::diagnostics::Diagnostic;
use crate::model::{Incident, Platform, ProviderInfo, Slug, SyncKind};
use crate::sources;
use attributes::crowded_tag;
use fields::{FileCtx, Pos, display_path};
use source::Scrub;
use updates::crowded_tag_error;

/// The folder of the site root that holds the incidents and provider files.
pub const CONTENT_DIR: &str = "content";
/// The file that describes the provider of its folder.
pub const PROVIDER_FILE: &str = "_index.md";

/// Everything `content/` holds, in a stable order (sorted by path).
#[derive(Debug, Default)]
pub struct Content {
    /// Shared, so a rebuild that re-reads one file keeps every other incident as it was
    /// (and can tell, by pointer, which ones changed).
    pub incidents: Vec<Arc<Incident>>,
    pub(crate) providers: Vec<(Slug, ProviderInfo)>,
}

/// What one file gives.
#[derive(Debug, Clone, serde::Serialize, Deserialize)]
pub enum Loaded {
    /// An incident file.
    Incident(Arc<Incident>),
    /// A provider's `_index.md`, with the slug of its folder.
    Provider(Slug, ProviderInfo),
}

/// What each content file gave, by path relative to the site root.
pub type Files = BTreeMap<PathBuf, Result<Loaded, Vec<Diagnostic>>>;

/// Reads and parses every file under `root/content`, in parallel.
pub fn load_all(root: &Path) -> Result<Files, Vec<Diagnostic>> {
    let files = content_files(root)?;
    Ok(files
        .into_par_iter()
        .map(|relative| {
            let loaded = load_file(root, &relative);
            (relative, loaded)
        })
        .collect())
}

/// Gathers the files into content, or every problem of every file. Drafts are left out
/// unless `drafts` is set.
pub fn collect(files: &Files, drafts: bool) -> Result<Content, Vec<Diagnostic>> {
    let (content, errors) = gather(files, drafts);
    if errors.is_empty() {
        Ok(content)
    } else {
        Err(errors)
    }
}

/// The content of the files that parsed, with every problem of every file and those
/// between them (ids given twice): enough to plan the site and report its path conflicts
/// in the same run.
pub fn gather(files: &Files, drafts: bool) -> (Content, Vec<Diagnostic>) {
    let mut content = Content::default();
    let mut errors = Vec::new();
    for result in files.values() {
        match result {
            Ok(Loaded::Incident(incident)) if !shown(incident, drafts) => {}
            Ok(Loaded::Incident(incident)) => content.incidents.push(Arc::clone(incident)),
            Ok(Loaded::Provider(slug, info)) => {
                content.providers.push((slug.clone(), info.clone()))
            }
            Err(problems) => errors.extend(problems.iter().cloned()),
        }
    }
    errors.extend(duplicate_ids(&content.incidents));
    (content, errors)
}

/// Whether the site shows `incident`: drafts only with `drafts`.
pub fn shown(incident: &Incident, drafts: bool) -> bool {
    !incident.draft || drafts
}

/// Two incidents of one provider with the same id would share a feed entry id (an id
/// stands in for the slug when the incident has one): each pair is an error, at the id of
/// the later file, naming the earlier. Pairs of slugs alone are the planner's duplicate URLs.
fn duplicate_ids(incidents: &[Arc<Incident>]) -> Vec<Diagnostic> {
    let mut seen: HashMap<(&Slug, &str), &Incident> = HashMap::default();
    let mut errors = Vec::new();
    for incident in incidents {
        let Some(first) = seen.insert(id_key(incident), incident) else {
            continue;
        };
        if incident.id.is_none() && first.id.is_none() {
            continue;
        }
        let key = id_key(incident).1;
        // Files come sorted by path, so `first` is the earlier one.
        let (earlier, later) = (first, incident.as_ref());
        let mut error = Diagnostic::file(
            &later.file,
            format!(
                "`{}` is already the id of an incident of `{}`: {}",
                key,
                later.provider,
                located(earlier)
            ),
        )
        .with_hint(
            "an id names one incident (it is its feed entry id); give one of them another `id`",
        );
        if let Some(at) = later.id_at {
            (error.line, error.col, error.width) = (at.line, at.col, key.chars().count().max(1));
        }
        errors.push(error);
    }
    errors
}

/// What names an incident among its provider's: its id, or its slug when it has none.
pub fn id_key(incident: &Incident) -> (&Slug, &str) {
    let key = incident.id.as_deref().unwrap_or(incident.slug.as_str());
    (&incident.provider, key)
}

/// `path:line:col` of an incident's id, or its path when it has none (its slug stands in).
fn located(incident: &Incident) -> String {
    match incident.id_at {
        Some(at) => format!("{}:{}:{}", incident.file.display(), at.line, at.col),
        None => format!("{} (its slug)", incident.file.display()),
    }
}

/// A folder that is not a site folder: it has no `content/`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "there is no `content/` folder in {}; run outages in a site folder, pass `--root DIR`, or start one with `outages init DIR`",
    folder_named(.0)
)]
pub struct NoSite(PathBuf);

/// The folder as the user named it: `.` is "this folder".
fn folder_named(root: &Path) -> String {
    if root == Path::new(".") {
        "this folder".to_string()
    } else {
        root.display().to_string()
    }
}

/// Whether `root` is a site folder, one with `content/`.
pub fn require_dir(root: &Path) -> Result<(), NoSite> {
    match root.join(CONTENT_DIR).is_dir() {
        true => Ok(()),
        false => Err(NoSite(root.to_path_buf())),
    }
}

/// Every markdown file under `content/`, relative to the root, sorted. Hidden files and
/// editors' temporary files are skipped; symbolic links are not followed.
pub fn content_files(root: &Path) -> Result<Vec<PathBuf>, Vec<Diagnostic>> {
    if let Err(error) = require_dir(root) {
        return Err(vec![Diagnostic::file(
            display_path(root, Path::new(CONTENT_DIR)),
            error.to_string(),
        )]);
    }
    // One walk per provider folder, in parallel: listing ten thousand files one by one
    // is a noticeable share of a build.
    let dir = root.join(CONTENT_DIR);
    let mut entries: Vec<std::fs::DirEntry> = std::fs::read_dir(&dir)
        .and_then(|list| list.collect())
        .map_err(|e| vec![Diagnostic::file(&dir, format!("cannot read: {e}"))])?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    let lists: Vec<Result<Vec<PathBuf>, Vec<Diagnostic>>> = entries
        .par_iter()
        .filter(|entry| !sources::is_ignored_name(&entry.file_name().to_string_lossy()))
        .map(|entry| {
            let relative = Path::new(CONTENT_DIR).join(entry.file_name());
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => files_under(root, &relative),
                Ok(kind) if kind.is_file() && is_content_file(&relative) => Ok(vec![relative]),
                _ => Ok(Vec::new()),
            }
        })
        .collect();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for list in lists {
        match list {
            Ok(mut list) => files.append(&mut list),
            Err(mut problems) => errors.append(&mut problems),
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

/// The content files in the folder `relative` (to the root), as [`content_files`] lists them.
pub fn files_under(root: &Path, relative: &Path) -> Result<Vec<PathBuf>, Vec<Diagnostic>> {
    let dir = root.join(relative);
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for entry in sources::walk(&dir) {
        match entry {
            Ok(entry) if entry.file_type().is_file() && is_content_file(entry.path()) => {
                let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
                files.push(relative.to_path_buf());
            }
            Ok(_) => {}
            Err(e) => {
                let path = e.path().map_or_else(|| dir.clone(), Path::to_path_buf);
                errors.push(Diagnostic::file(path, format!("cannot read: {e}")));
            }
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

/// Whether [`content_files`] lists this path (relative to the root): a content file with
/// no ignored name on its way.
pub fn is_listed(relative: &Path) -> bool {
    is_content_file(relative) && !sources::is_ignored(relative)
}

/// A markdown file that is not [ignored](sources::is_ignored_name).
pub fn is_content_file(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "md")
        && path
            .file_name()
            .is_some_and(|name| !sources::is_ignored_name(&name.to_string_lossy()))
}

/// Reads and parses one file, `relative` to the site root.
pub fn load_file(root: &Path, relative: &Path) -> Result<Loaded, Vec<Diagnostic>> {
    let path = display_path(root, relative);
    let text =
        source::read_text(&root.join(relative)).map_err(|e| vec![e.into_diagnostic(&path)])?;
    load_text(&path, relative, text)
}

/// Parses the bytes of one file, `relative` to the site root, as [`load_file`] does once it
/// has read them (the fuzz targets feed it directly).
pub fn load_bytes(root: &Path, relative: &Path, bytes: Vec<u8>) -> Result<Loaded, Vec<Diagnostic>> {
    let path = display_path(root, relative);
    let text = source::clean_text(bytes).map_err(|e| vec![e.into_diagnostic(&path)])?;
    load_text(&path, relative, text)
}

/// Parses the checked text of one file; `path` is where errors point.
fn load_text(path: &Path, relative: &Path, text: String) -> Result<Loaded, Vec<Diagnostic>> {
    let ctx = FileCtx::new(path, &text);
    if text.trim().is_empty() {
        return Err(vec![ctx.error(Pos::new(1, 1, 1), "file is empty").with_hint(
            "an incident needs front matter (`---` … `---`) or a down.guide export; delete the file if it is not one",
        )]);
    }
    let folders: Vec<&str> = relative
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .skip(1)
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    if relative
        .file_name()
        .is_some_and(|name| name == PROVIDER_FILE)
    {
        return parse_provider(&ctx, &folders).map(|(slug, info)| Loaded::Provider(slug, info));
    }
    let mut errors = Vec::new();
    let raw = match frontmatter::split(&ctx) {
        Some(Ok(split)) => frontmatter::parse_incident(&ctx, &split, &mut errors),
        Some(Err(error)) => {
            errors.push(error);
            None
        }
        None => {
            let raw = downguide::parse_incident(&ctx, &mut errors);
            if raw.is_none() {
                errors.push(ctx.error(Pos::START, "this is neither an incident with front matter nor a down.guide export")
                    .with_hint("start the file with a `---` line and front matter, or with `# Title` for a down.guide export"));
            }
            raw
        }
    };
    let incident = raw.and_then(|raw| raw.finish(&ctx, folders.first().copied(), &mut errors));
    match incident {
        Some(mut incident) if !errors.iter().any(Diagnostic::is_error) => {
            incident.warnings = errors;
            Ok(Loaded::Incident(Arc::new(incident)))
        }
        _ => Err(errors),
    }
}

type S = Option<Spanned<String>>;

#[derive(Deserialize, Default)]
struct ProviderYaml {
    name: Option<String>,
    url: S,
    status_page: S,
    description: S,
    sync: Option<SyncYaml>,
    since: S,
    until: S,
}

/// `sync: false`, `sync: true` (a Statuspage) or `sync: {kind: <platform>}`.
struct SyncYaml(SyncKind);

impl Scrub for SyncYaml {
    fn scrub(&mut self) {}
}

impl<'de> Deserialize<'de> for SyncYaml {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = SyncYaml;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`false`, `true` or `{kind: <platform>}`")
            }
            fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<SyncYaml, E> {
                Ok(SyncYaml(if on {
                    SyncKind::default()
                } else {
                    SyncKind::Off
                }))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<SyncYaml, A::Error> {
                let mut kind = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "kind" {
                        return Err(serde::de::Error::unknown_field(&key, &["kind"]));
                    }
                    let value: String = map.next_value()?;
                    let platform = Platform::parse(&value).ok_or_else(|| {
                        let kinds = format!("one of {}", Platform::keywords());
                        let given = serde::de::Unexpected::Str(&value);
                        serde::de::Error::invalid_value(given, &kinds.as_str())
                    })?;
                    kind = Some(SyncKind::Follow(platform));
                }
                kind.map(SyncYaml)
                    .ok_or_else(|| serde::de::Error::missing_field("kind"))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Scrub for ProviderYaml {
    fn scrub(&mut self) {
        let ProviderYaml {
            name,
            url,
            status_page,
            description,
            sync: _,
            since,
            until,
        } = self;
        name.scrub();
        url.scrub();
        status_page.scrub();
        description.scrub();
        since.scrub();
        until.scrub();
    }
}

const PROVIDER_FIELDS: &[&str] = &[
    "name",
    "url",
    "status_page",
    "description",
    "sync",
    "since",
    "until",
];

fn parse_provider(
    ctx: &FileCtx,
    folders: &[&str],
) -> Result<(Slug, ProviderInfo), Vec<Diagnostic>> {
    let [folder] = folders else {
        return Err(vec![
            ctx.error(
                Pos::START,
                "`_index.md` describes a provider only in `content/<provider>/`",
            )
            .with_hint(
                "site settings go in `site.yaml`; move this file into its provider's folder",
            ),
        ]);
    };
    let slug = Slug::from_name(folder).map_err(|e| {
        vec![ctx.error(
            Pos::START,
            format!("the folder name cannot be a provider: it {e}"),
        )]
    })?;
    let mut errors = Vec::new();
    let (raw, body) = match frontmatter::split(ctx) {
        Some(Ok(split)) => {
            let mut checked = yaml::from_str_checked::<ProviderYaml>(
                split.yaml,
                split.yaml_offset,
                PROVIDER_FIELDS,
                ctx.path,
                ctx.text,
            );
            errors.append(&mut checked.errors);
            (checked.value.unwrap_or_default(), split.body)
        }
        Some(Err(error)) => return Err(vec![error]),
        None => (ProviderYaml::default(), ctx.text),
    };
    let mut url = |value: S| {
        value.and_then(|v| fields::read_url(ctx, &frontmatter::spanned(v, 1), &mut errors))
    };
    let info = ProviderInfo {
        file: ctx.path.to_path_buf(),
        name: raw
            .name
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty()),
        url: url(raw.url),
        status_page: url(raw.status_page),
        description: description(ctx, raw.description, body, &mut errors),
        sync: raw.sync.map_or(SyncKind::default(), |s| s.0),
        since: raw.since.and_then(|v| boundary(ctx, v, &mut errors)),
        until: raw.until.and_then(|v| boundary(ctx, v, &mut errors)),
    };
    if let (Some(since), Some(until)) = (info.since, info.until)
        && until < since
    {
        errors.push(ctx.error(Pos::START, "`until` is before `since`"));
    }
    if errors.is_empty() {
        Ok((slug, info))
    } else {
        Err(errors)
    }
}

/// `since:` or `until:` of a provider: a day (`2024-05-16`, its midnight UTC) or a time.
fn boundary(
    ctx: &FileCtx,
    value: Spanned<String>,
    errors: &mut Vec<Diagnostic>,
) -> Option<crate::model::Timestamp> {
    let field = frontmatter::spanned(value, 1);
    let day = chrono::NaiveDate::parse_from_str(field.value.trim(), "%Y-%m-%d").ok();
    match day {
        Some(day) => time::parse_timestamp(&format!("{day}T00:00:00Z")),
        None => time::parse_timestamp(&field.value),
    }
    .map_err(|e| errors.push(fields::time_error(ctx, field.pos, &field.value, e)))
    .ok()
}

/// A provider's description, from its field or else the file's body.
fn description(
    ctx: &FileCtx,
    field: S,
    body: &str,
    errors: &mut Vec<Diagnostic>,
) -> Option<String> {
    let (text, pos) = match field {
        Some(field) => {
            let field = frontmatter::spanned(field, 1);
            (field.value, Some(field.pos))
        }
        None => (source::trim_blank_lines(body).to_string(), None),
    };
    if let Some(at) = crowded_tag(&text) {
        // In the body, the tag itself; in the field, where its value starts.
        let pos = pos.unwrap_or_else(|| {
            let start = source::blank_lines_before(body);
            ctx.pos_at(ctx.text.len().saturating_sub(body.len()) + start + at)
        });
        errors.push(crowded_tag_error(ctx, pos));
    }
    Some(text).filter(|d| !d.trim().is_empty())
}
