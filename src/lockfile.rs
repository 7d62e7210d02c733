//! An exclusive lock on a file, waited for: how a build keeps the output to itself and a
//! writer keeps `content/` to itself.

use std::fs::{self, File};
use std::io;
use std::path::Path;

/// What failed in taking a lock: creating its file, or taking it.
pub(crate) enum LockError {
    Create(io::Error),
    Take(io::Error),
}

/// Opens (creating it) and locks `path`, calling `on_wait` once if another process holds
/// it; the lock holds while the file is open.
pub(crate) fn lock(path: &Path, on_wait: impl FnOnce()) -> Result<File, LockError> {
    let file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(LockError::Create)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            on_wait();
            file.lock().map_err(LockError::Take)?;
        }
        Err(fs::TryLockError::Error(e)) => return Err(LockError::Take(e)),
    }
    Ok(file)
}
