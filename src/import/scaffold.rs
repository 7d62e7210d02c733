//! `outages new` and `outages init`: a new incident file, a new archive; both build at once.

use std::path::{Path, PathBuf};

use chrono::{SecondsFormat, Timelike, Utc};

use super::create_file;
use crate::config::{CONFIG_FILE, PLACEHOLDER_BASE_URL};
use crate::content::{CONTENT_DIR, NoSite};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::Failure;
use crate::model::{BadProvider, Slug};

/// Why `new` or `init` wrote nothing: the command, not the archive, is wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The provider's name makes no slug.
    #[error(transparent)]
    Provider(#[from] BadProvider),
    /// The title has no letter or digit to make the file's name of.
    #[error("the title `{0}` has no letter or digit to name a file with")]
    Title(String),
    /// The folder is no site: it has no `content/`.
    #[error(transparent)]
    NoSite(#[from] NoSite),
    /// The archive's lock could not be taken.
    #[error("{0}")]
    Lock(Diagnostic),
    /// The new incident's file, named by today's date and the title, exists already.
    #[error("{} exists already; give the incident another title", .0.display())]
    Exists(PathBuf),
    /// The folder `init` was given holds something.
    #[error("{} is not empty; init writes a new archive into an empty folder", .0.display())]
    NotEmpty(PathBuf),
    /// A file or folder could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done: `read` or `write`.
        action: &'static str,
        /// The file or folder it was done to.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
}

/// A usage error.
impl Failure for Error {}

/// An I/O error, with what was being done and to which path.
fn io_at(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Io {
        action,
        path,
        source,
    }
}

/// Writes `content/<provider>/<date>-<slug>.md` and returns its path; never overwrites.
pub fn new_incident(root: &Path, provider: &str, title: &str) -> Result<PathBuf, Error> {
    let provider = Slug::of_provider(provider)?;
    crate::content::require_dir(root)?;
    let slug = Slug::from_title(title).map_err(|_| Error::Title(title.to_string()))?;
    // To the minute, as the update's heading says it: a start seconds after the update
    // would be warned about.
    let now = Utc::now();
    let now = now
        .with_second(0)
        .and_then(|at| at.with_nanosecond(0))
        .unwrap_or(now);
    let relative = Path::new(CONTENT_DIR)
        .join(provider.as_str())
        .join(format!("{}-{slug}.md", now.format("%Y-%m-%d")));
    let path = root.join(&relative);
    let _writer = super::Writer::take(root, super::waiting).map_err(Error::Lock)?;
    if path.exists() {
        return Err(Error::Exists(path));
    }
    let started = now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let text = format!(
        "---\ntitle: {title}\nstarted: {started}\n# resolved: {started}   # when it is over (or: duration: 1h 30m)\n\
         impact: minor                 # none | minor | major | critical | maintenance\ncomponents: []\n---\n\
         ## Updates\n### {}: investigating\nWe are investigating reports of problems.\n",
        now.format("%Y-%m-%d %H:%M UTC"),
        title = serde_json::to_string(title).expect("a string serialises"),
    );
    create_file(&path, &text).map_err(io_at("write", &path))?;
    Ok(crate::content::fields::display_path(root, &relative))
}

/// What a build leaves in the site folder besides the sources: not for version control.
const GITIGNORE: &str = "\
# What `outages build` makes (the site, its lock and staging folders, the build cache)
# and the lock and journal of the commands that write content/.
/public/
/.public.lock
/.content.lock
/.content.journal
/.public.staging*
/.outages-cache/
";

const SITE_YAML: &str = "\
# Settings of this outage archive. Every key is optional.
title: Outage Archive
# Where the site will be published; every link carries its path.
# On GitHub Pages: https://<user>.github.io/<repo>/
base_url: {base_url}
description: Every outage of the services we depend on.
# How many incidents each feed holds.
feed_limit: 50
# cname: status.example.com     # writes CNAME for a custom domain on GitHub Pages
";

const PROVIDER: &str = "\
---
name: Example Cloud
url: https://cloud.example.com
status_page: https://status.cloud.example.com
# `outages sync` follows a provider's Statuspage; this one is made up, so not this one.
sync: false
---
Example Cloud hosts the services this archive follows. Replace this folder with your providers.
";

const FRONT_MATTER_INCIDENT: &str = "\
---
title: API errors in the EU region
started: 2026-01-15T09:12:00Z
resolved: 2026-01-15T10:40:00Z
impact: major                       # none | minor | major | critical | maintenance
components: [API, Dashboard]
regions: [eu]
---
Some requests to the API failed with 503 errors.

## Updates
### 2026-01-15 09:12 UTC: investigating
We are investigating elevated error rates for API requests in the EU region.
### 2026-01-15 09:48 UTC: identified
A faulty load balancer configuration was rolled out. We are rolling it back.
### 2026-01-15 10:40 UTC: resolved
Error rates are back to normal.
";

const DOWN_GUIDE_INCIDENT: &str = "\
# Dashboard slow to load

- Provider: [Example Cloud](https://down.guide/example-cloud)
- Level: confirmed
- Impact: Degraded performance
- lasted 45m
- started 2026-02-03 14:05 UTC
- Dashboard
- us
- Official page: https://status.cloud.example.com

## Updates from Example Cloud
### 2026-02-03 14:05 UTC: investigating
The dashboard takes longer than usual to load.

### 2026-02-03 14:50 UTC: resolved
Load times are back to normal.

---
An example of the down.guide export format.
";

/// Writes a new archive into `dir`, which must be empty or not exist.
pub fn init(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    if dir.exists() && dir.read_dir().map_err(io_at("read", dir))?.next().is_some() {
        return Err(Error::NotEmpty(dir.to_path_buf()));
    }
    let provider = Path::new(CONTENT_DIR).join("example-cloud");
    let site_yaml = SITE_YAML.replace("{base_url}", PLACEHOLDER_BASE_URL);
    let files = [
        (PathBuf::from(".gitignore"), GITIGNORE),
        (PathBuf::from(CONFIG_FILE), site_yaml.as_str()),
        (provider.join("_index.md"), PROVIDER),
        (
            provider.join("2026-01-15-api-errors-in-the-eu-region.md"),
            FRONT_MATTER_INCIDENT,
        ),
        (
            provider.join("2026-02-03-dashboard-slow-to-load.md"),
            DOWN_GUIDE_INCIDENT,
        ),
    ];
    for (relative, text) in &files {
        create_file(&dir.join(relative), text).map_err(io_at("write", relative))?;
    }
    Ok(files
        .into_iter()
        .map(|(relative, _)| dir.join(relative))
        .collect())
}
