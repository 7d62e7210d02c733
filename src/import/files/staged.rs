//! Files written beside their targets as hidden temporary files, read back with the
//! real loader, then put in place: linked in under a free name, or renamed over the old.

use super::*;

/// What a written file must read back to.
pub(super) struct Expected<'a> {
    pub(super) facts: &'a Facts,
    pub(super) source: &'a Source,
    /// `(time, status, body)` of every update.
    pub(super) updates: Vec<(Timestamp, String, String)>,
    /// The incident the file held before, whose other fields must not change.
    pub(super) before: Option<&'a Incident>,
}

impl Expected<'_> {
    /// What differs in `loaded`, if anything.
    pub(super) fn mismatch(&self, loaded: &Incident) -> Option<&'static str> {
        let mut want = self.updates.clone();
        let mut got: Vec<(Timestamp, String, String)> = loaded
            .updates
            .iter()
            .map(|u| (u.at, u.status.as_str().to_string(), u.body.clone()))
            .collect();
        want.sort();
        got.sort();
        let rest = |i: &Incident| {
            (
                i.summary.clone(),
                i.level,
                i.aliases.clone(),
                i.draft,
                i.attribution.clone(),
                i.unnamed_components,
            )
        };
        if Facts::of_incident(loaded) != *self.facts {
            Some("its fields")
        } else if loaded.source.as_ref() != Some(self.source) {
            Some("its source")
        } else if want != got {
            Some("its updates")
        } else if self.before.is_some_and(|before| {
            rest(before) != rest(loaded) || before.provider != loaded.provider
        }) || self.before.is_none() && !loaded.summary.is_empty()
        {
            Some("what it held besides the import")
        } else {
            None
        }
    }
}

/// Files written beside their targets, not yet in place; removed unless committed.
#[derive(Default)]
pub(super) struct Staged {
    /// Plan every file, write none.
    pub(super) dry_run: bool,
    pub(super) files: Vec<StagedFile>,
    /// Every file planned, as the loader reads its new text.
    pub(super) planned: Vec<Planned>,
    /// Folders made for new files, removed again if nothing is committed.
    pub(super) folders: Vec<PathBuf>,
    pub(super) committed: bool,
}

/// A file planned: its path, what it will hold, and its text.
pub(super) struct Planned {
    pub(super) path: PathBuf,
    pub(super) incident: Arc<Incident>,
    pub(super) text: String,
}

pub(super) struct StagedFile {
    /// Absolute, so that dropping can remove it.
    pub(super) temp: PathBuf,
    pub(super) target: PathBuf,
    /// The bytes the target held when planned; `None` for a new file.
    pub(super) original: Option<Vec<u8>>,
}

impl Staged {
    /// Reads `text` with the loader as if it were `target` (every field and update as
    /// planned), then writes it beside `target`.
    pub(super) fn stage(
        &mut self,
        root: &Path,
        target: &Path,
        text: &str,
        expected: &Expected,
        original: Option<Vec<u8>>,
        incident: &Imported,
    ) -> Result<(), Diagnostic> {
        let shown = display_path(root, target);
        let refuse = |why: String| {
            Diagnostic::file(
                &shown,
                format!(
                    "the incident {} cannot be written: {why}",
                    incident.source.id
                ),
            )
        };
        if text.len() > MAX_FILE_BYTES {
            return Err(refuse(format!(
                "it would take {} bytes, over the limit of {MAX_FILE_BYTES} a file may hold",
                text.len()
            ))
            .with_hint("split the incident by hand, or leave it out of the payload"));
        }
        // Checked in memory, so a dry run refuses what a real one would.
        match content::load_bytes(root, target, text.as_bytes().to_vec()) {
            Ok(Loaded::Incident(loaded)) => match expected.mismatch(&loaded) {
                None => self.planned.push(Planned {
                    path: target.to_path_buf(),
                    incident: loaded,
                    text: text.to_string(),
                }),
                Some(what) => {
                    return Err(refuse(format!(
                        "written, it would not read back to the same {what}"
                    ))
                    .with_hint(
                        "the text around the import's fields or updates was edited in a way an import cannot merge into; merge by hand",
                    ));
                }
            },
            Ok(Loaded::Provider(..)) => {
                return Err(refuse("it would not read as an incident".into()));
            }
            Err(problems) => {
                return Err(refuse(format!(
                    "written, it would not load: {}",
                    problems.first().map(|d| d.message.as_str()).unwrap_or("")
                )));
            }
        }
        if self.dry_run {
            return Ok(());
        }
        let temp = staging_path(target, Purpose::Import);
        if let Some(dir) = target.parent() {
            self.make_folder(root, dir)
                .map_err(|e| refuse(format!("cannot make its folder: {e}")))?;
        }
        let _ = std::fs::remove_file(root.join(&temp));
        let written = write_new(&root.join(&temp), text);
        self.files.push(StagedFile {
            temp: root.join(&temp),
            target: target.to_path_buf(),
            original,
        });
        written.map_err(|e| refuse(format!("cannot write beside it: {e}")))
    }

    pub(super) fn make_folder(&mut self, root: &Path, dir: &Path) -> std::io::Result<()> {
        let mut missing = Vec::new();
        let mut at = dir.to_path_buf();
        while std::fs::symlink_metadata(root.join(&at)).is_err() {
            missing.push(at.clone());
            if !at.pop() || at.as_os_str().is_empty() {
                break;
            }
        }
        std::fs::create_dir_all(root.join(dir))?;
        self.folders
            .extend(missing.into_iter().map(|m| root.join(m)));
        Ok(())
    }

    /// Puts every staged file in place: a new one only under a name nothing holds, a
    /// changed one only if nobody changed it since it was read. Every file is checked
    /// before the first is put in place, and those put in place are undone if a later one
    /// fails, so the archive gets all of them or none; a kill part way is completed by the
    /// next writer ([`Writer::commit`]).
    pub(super) fn commit(mut self, root: &Path, writer: &Writer) -> Result<(), Vec<Diagnostic>> {
        self.committed = true;
        let refuse = |file: &StagedFile, why: String| {
            vec![Diagnostic::file(display_path(root, &file.target), why).with_hint("run it again")]
        };
        for file in &self.files {
            if let Err(why) = file.still_as_planned(root) {
                self.committed = false;
                return Err(refuse(file, why.to_string()));
            }
        }
        let moves: Vec<Move> = self
            .files
            .iter()
            .map(|file| Move {
                staged: file
                    .temp
                    .strip_prefix(root)
                    .unwrap_or(&file.temp)
                    .to_path_buf(),
                target: file.target.clone(),
                new: file.original.is_none(),
            })
            .collect();
        let files = &self.files;
        match writer.commit(&moves, |done| files[done].undo(root)) {
            Ok(()) => Ok(()),
            Err((at, e)) => {
                self.committed = false;
                Err(refuse(
                    &self.files[at],
                    format!("cannot write: {e}; nothing was written"),
                ))
            }
        }
    }
}

/// A file that is no longer as the writer read it: someone wrote there meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum Meanwhile {
    #[error("a file of this name appeared meanwhile; nothing was written")]
    Appeared,
    #[error("the file changed meanwhile; nothing was written")]
    Changed,
}

impl StagedFile {
    pub(super) fn still_as_planned(&self, root: &Path) -> Result<(), Meanwhile> {
        let target = root.join(&self.target);
        match &self.original {
            None => match std::fs::symlink_metadata(&target) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(Meanwhile::Appeared),
            },
            Some(original) => match std::fs::read(&target) {
                Ok(now) if now == *original => Ok(()),
                _ => Err(Meanwhile::Changed),
            },
        }
    }

    /// Puts back what the target held before this file was committed.
    pub(super) fn undo(&self, root: &Path) {
        let target = root.join(&self.target);
        match &self.original {
            None => {
                let _ = std::fs::remove_file(&target);
            }
            Some(original) => {
                let _ = std::fs::write(&self.temp, original)
                    .and_then(|()| std::fs::rename(&self.temp, &target));
            }
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for file in &self.files {
            // A committed replacement was renamed away; a committed new file was linked.
            let _ = std::fs::remove_file(&file.temp);
        }
        if !self.committed {
            for folder in self.folders.iter().rev() {
                let _ = std::fs::remove_dir(folder);
            }
        }
    }
}

/// Creates `path` with `text`; fails if anything, even a dangling link, is there.
pub(crate) fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// Writes a new file at `path` (making its folder), never replacing anything there, and
/// never leaving half a file: the text goes to a hidden file beside it first, then is
/// linked in under its name.
pub fn create_file(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temp = staging_path(path, Purpose::New);
    let _ = std::fs::remove_file(&temp);
    write_new(&temp, text)?;
    let linked = std::fs::hard_link(&temp, path);
    let _ = std::fs::remove_file(&temp);
    linked
}
