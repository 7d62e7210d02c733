//! The providers `sync` follows (their `_index.md`), `outages provider add`, and naming a
//! provider after its status page.

use std::path::{Path, PathBuf};

use reqwest::Url;

use super::detect;
use crate::content::fields::display_path;
use crate::content::{self, CONTENT_DIR, Loaded, NoSite, PROVIDER_FILE};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::Failure;
use crate::import::lock::{Purpose, Writer, staging_path};
use crate::import::under;
use crate::import::{create_file, quoted, text, waiting, write_new};
use crate::model::{BadProvider, Platform, Slug, SyncKind, WebUrl};

/// Why `provider add` wrote nothing, or `sync` could not tell which providers to read: the
/// command, not the archive, is wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A provider's name makes no slug.
    #[error(transparent)]
    Provider(#[from] BadProvider),
    /// The folder is no site: it has no `content/`.
    #[error(transparent)]
    NoSite(#[from] NoSite),
    /// The folders of `content/` could not be listed.
    #[error("cannot list {}/: {}", CONTENT_DIR, .0)]
    List(std::io::Error),
    /// A provider named for `sync` has no `_index.md`.
    #[error(
        "no provider `{0}`: there is no {dir}/{0}/{file}; add it with `outages provider add {0} STATUS_PAGE_URL`",
        dir = CONTENT_DIR,
        file = PROVIDER_FILE
    )]
    Unknown(Slug),
    /// A provider named for `sync` has no `status_page` to sync from.
    #[error("the provider `{slug}` has no `status_page` in {} to sync from", file.display())]
    NoStatusPage {
        /// The provider.
        slug: Slug,
        /// Its `_index.md`, relative to the site root.
        file: PathBuf,
    },
    /// An address given to `provider add` is not a web address.
    #[error("`{text}` is not a web address; give it like {example}")]
    NotWeb {
        /// The address as given.
        text: String,
        /// An address of the kind wanted, for the message.
        example: &'static str,
    },
    /// The provider has an `_index.md` already, which `provider add` leaves alone.
    #[error("{} exists already; set `status_page: {status_page}` in it by hand", file.display())]
    Exists {
        /// The `_index.md`, as the user names it.
        file: PathBuf,
        /// The status page given, to set in it by hand.
        status_page: String,
    },
    /// The status page's platform is not one `sync` can follow, or could not be found.
    #[error("{page}: {refused}")]
    Refused {
        /// The status page, as given.
        page: String,
        /// Why its platform cannot be followed.
        refused: detect::Refused,
    },
    /// The archive's lock could not be taken.
    #[error("{0}")]
    Lock(Diagnostic),
    /// The new `_index.md` could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// Where it was to be written.
        path: PathBuf,
        /// Why it could not be.
        source: std::io::Error,
    },
}

/// A usage error.
impl Failure for Error {}

/// A provider to sync.
#[derive(Debug, Clone)]
pub struct Followed {
    pub(crate) slug: Slug,
    /// Its status page, the base of `/api/v2/…` (a feed's own address).
    pub status_page: Url,
    /// What the status page runs on.
    pub platform: Platform,
    /// `_index.md` gives no `name`: the page's own name is written in after a sync.
    pub unnamed: bool,
    /// The `_index.md`, relative to the site root.
    pub file: PathBuf,
}

impl Followed {
    /// The endpoint `path` (like `api/v2/incidents.json`) under the status page.
    pub fn endpoint(&self, path: &str) -> Url {
        under(&self.status_page, path)
    }

    /// The host requests to it go to: one request at a time per host.
    pub fn host(&self) -> String {
        self.status_page
            .host_str()
            .unwrap_or_default()
            .to_ascii_lowercase()
    }
}

/// The providers a sync goes through.
#[derive(Debug, Default)]
pub struct Selection {
    pub(crate) followed: Vec<Followed>,
    /// Providers whose `_index.md` does not load (or names no usable page), by folder: each
    /// fails alone.
    pub broken: Vec<(String, Vec<Diagnostic>)>,
}

/// The providers to sync: those named in `wanted` (each must exist and have a status page),
/// or every provider with a status page and without `sync: false`. An error is a usage
/// error: a name that is no provider.
pub fn followed(root: &Path, wanted: &[String]) -> Result<Selection, Error> {
    content::require_dir(root)?;
    let wanted = wanted
        .iter()
        .map(|name| Slug::of_provider(name).map_err(Error::from))
        .collect::<Result<Vec<Slug>, Error>>()?;
    let mut all = Vec::new();
    let mut selection = Selection::default();
    let folders = std::fs::read_dir(root.join(CONTENT_DIR)).map_err(Error::List)?;
    for folder in folders.flatten() {
        let name = folder.file_name().to_string_lossy().into_owned();
        let relative = Path::new(CONTENT_DIR).join(&name).join(PROVIDER_FILE);
        if !folder.file_type().is_ok_and(|t| t.is_dir())
            || std::fs::symlink_metadata(root.join(&relative)).is_err()
        {
            continue;
        }
        let asked = wanted.is_empty() || wanted.iter().any(|w| w.as_str() == name);
        match content::load_file(root, &relative) {
            Ok(Loaded::Provider(slug, info)) => all.push((slug, info, relative)),
            Ok(Loaded::Incident(_)) => {}
            Err(problems) if asked => selection.broken.push((name, problems)),
            Err(_) => {}
        }
    }
    all.sort_by(|a, b| a.0.cmp(&b.0));
    selection.broken.sort_by(|a, b| a.0.cmp(&b.0));
    for slug in &wanted {
        let broken = selection
            .broken
            .iter()
            .any(|(name, _)| name == slug.as_str());
        match all.iter().find(|(s, ..)| s == slug) {
            None if broken => {}
            None => return Err(Error::Unknown(slug.clone())),
            Some((_, info, file)) if info.status_page.is_none() => {
                return Err(Error::NoStatusPage {
                    slug: slug.clone(),
                    file: file.clone(),
                });
            }
            Some(_) => {}
        }
    }
    for (slug, info, file) in all {
        let chosen = match wanted.is_empty() {
            true => info.sync != SyncKind::Off,
            false => wanted.contains(&slug),
        };
        let Some(page) = info.status_page.filter(|_| chosen) else {
            continue;
        };
        // Named on the command line, a provider with `sync: false` is read as a Statuspage.
        let platform = match info.sync {
            SyncKind::Follow(platform) => platform,
            SyncKind::Off => Platform::Statuspage,
        };
        match Url::parse(page.as_str()) {
            Ok(status_page) => selection.followed.push(Followed {
                slug,
                status_page,
                platform,
                unnamed: info.name.is_none(),
                file,
            }),
            Err(e) => selection.broken.push((
                slug.to_string(),
                vec![Diagnostic::file(
                    &file,
                    format!("the status_page `{}` cannot be fetched: {e}", page.as_str()),
                )],
            )),
        }
    }
    Ok(selection)
}

/// What `outages provider add` is told.
pub struct NewProvider<'a> {
    /// The provider's slug, or a name to make it of.
    pub slug: &'a str,
    /// The address of its status page.
    pub status_page: &'a str,
    /// The platform, when the user says; else it is found.
    pub kind: Option<Platform>,
    /// The provider's name, written as its `name:` when given.
    pub name: Option<&'a str>,
    /// The provider's own site.
    pub url: Option<&'a str>,
}

/// What `outages provider add` did.
pub struct Added {
    /// The provider's slug: its folder under `content/`.
    pub slug: Slug,
    /// The `_index.md` written, for the user.
    pub file: PathBuf,
    /// What the status page runs on, as given or found.
    pub platform: Platform,
    /// How the platform was found, when it was not given.
    pub found: Option<String>,
}

/// The pause between two questions `provider add` asks a status page.
const ASKING_DELAY: std::time::Duration = std::time::Duration::from_millis(200);

/// `outages provider add`: writes `content/<slug>/_index.md` naming the status page and its
/// platform (found from the address and what it answers, unless given), and the name and
/// site when given.
pub fn add(root: &Path, new: &NewProvider) -> Result<Added, Error> {
    let slug = Slug::of_provider(new.slug)?;
    content::require_dir(root)?;
    let web = |text: &str, example: &'static str| {
        WebUrl::parse(text).ok_or_else(|| Error::NotWeb {
            text: text.to_string(),
            example,
        })
    };
    let status_page = web(new.status_page, "https://www.githubstatus.com")?;
    let url = new
        .url
        .map(|url| web(url, "https://github.com"))
        .transpose()?;
    let relative = Path::new(CONTENT_DIR)
        .join(slug.as_str())
        .join(PROVIDER_FILE);
    let path = root.join(&relative);
    let exists = || Error::Exists {
        file: display_path(root, &relative),
        status_page: status_page.as_str().to_string(),
    };
    // Before any question is asked of the page, and again under the lock.
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(exists());
    }
    let (platform, found) = match new.kind {
        Some(platform) => (platform, None),
        None => {
            // A web address is a URL: it was parsed as one.
            let page = Url::parse(status_page.as_str()).map_err(|_| Error::NotWeb {
                text: status_page.as_str().to_string(),
                example: "https://www.githubstatus.com",
            })?;
            let found =
                detect::platform(&page, ASKING_DELAY).map_err(|refused| Error::Refused {
                    page: status_page.as_str().to_string(),
                    refused,
                })?;
            (found.platform, Some(found.how))
        }
    };
    let _writer = Writer::take(root, waiting).map_err(Error::Lock)?;
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(exists());
    }
    let mut text = String::from("---\n");
    if let Some(name) = new.name.map(text::one_line).filter(|n| !n.is_empty()) {
        text.push_str(&format!("name: {}\n", quoted(&name)));
    }
    if let Some(url) = url {
        text.push_str(&format!("url: {}\n", quoted(url.as_str())));
    }
    text.push_str(&format!(
        "status_page: {}\nsync: {{kind: {}}}\n---\n",
        quoted(status_page.as_str()),
        platform.keyword()
    ));
    create_file(&path, &text).map_err(|source| Error::Write { path, source })?;
    Ok(Added {
        slug,
        file: display_path(root, &relative),
        platform,
        found,
    })
}

/// Writes `name: <name>` (one line) into the provider's `_index.md`, which has none, as the first line
/// of its front matter (in the file's own line ends); the file is replaced whole, and only if
/// it still reads as it did. A `name:` line left empty is the user's: it is not touched.
pub fn set_name(writer: &Writer, file: &Path, name: &str) -> Result<(), Unnamed> {
    let root = writer.root();
    let path = root.join(file);
    let cannot = |why: WhyUnnamed| Unnamed {
        file: display_path(root, file),
        name: name.to_string(),
        why,
    };
    let before = std::fs::read_to_string(&path).map_err(|e| cannot(WhyUnnamed::Io(e)))?;
    let (bom, body) = match before.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", before.as_str()),
    };
    let Some(eol) = ["\n", "\r\n"]
        .into_iter()
        .find(|eol| body.starts_with(&format!("---{eol}")))
    else {
        return Err(cannot(WhyUnnamed::NoFrontMatter));
    };
    let rest = &body[3 + eol.len()..];
    let front = rest.lines().take_while(|line| line.trim_end() != "---");
    if front.into_iter().any(|line| line.starts_with("name:")) {
        return Err(cannot(WhyUnnamed::EmptyName));
    }
    let after = format!("{bom}---{eol}name: {}{eol}{rest}", quoted(name));
    match content::load_bytes(root, file, after.clone().into_bytes()) {
        Ok(Loaded::Provider(_, info)) if info.name.as_deref() == Some(name) => {}
        _ => return Err(cannot(WhyUnnamed::WouldNotReadBack)),
    }
    let temporary = staging_path(&path, Purpose::Sync);
    let _ = std::fs::remove_file(&temporary);
    let result = write_new(&temporary, &after)
        .map_err(WhyUnnamed::Io)
        .and_then(|()| match std::fs::read_to_string(&path) {
            Ok(now) if now == before => std::fs::rename(&temporary, &path).map_err(WhyUnnamed::Io),
            _ => Err(WhyUnnamed::ChangedMeanwhile),
        });
    let _ = std::fs::remove_file(&temporary);
    result.map_err(cannot)
}

/// A name a status page gives that was not written into its provider's `_index.md`: a
/// warning only, as the incidents are in.
#[derive(Debug, thiserror::Error)]
#[error("{}: the name `{name}` was not written: {why}", file.display())]
pub struct Unnamed {
    file: PathBuf,
    name: String,
    why: WhyUnnamed,
}

/// Why a name was not written.
#[derive(Debug, thiserror::Error)]
enum WhyUnnamed {
    #[error("{0}")]
    Io(std::io::Error),
    #[error("the file has no front matter")]
    NoFrontMatter,
    #[error("its `name:` is empty; write the name there by hand")]
    EmptyName,
    #[error("the file would not read back with it")]
    WouldNotReadBack,
    #[error("the file changed meanwhile")]
    ChangedMeanwhile,
}
