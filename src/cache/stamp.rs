//! How a file is known without reading it: its size, inode and times, and when such a
//! stamp is too close to the last look to vouch for the file (racy).

use super::*;

/// How close to the last scan a file's mtime may be before its times are not trusted.
pub(super) const RACY: Duration = Duration::from_secs(2);

/// What a file's metadata says of it: equal stamps, same bytes (with the racy exception).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub(super) size: u64,
    pub(super) inode: u64,
    pub(super) mtime: (i64, i64),
    pub(super) ctime: (i64, i64),
}

impl Stamp {
    pub(crate) fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            size: meta.len(),
            inode: meta.ino(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// A stamp from the fields of a `stat` (whatever their integer types on this
    /// platform).
    pub fn from_stat(
        size: impl Into<i128>,
        inode: impl Into<i128>,
        mtime: (impl Into<i128>, impl Into<i128>),
        ctime: (impl Into<i128>, impl Into<i128>),
    ) -> Stamp {
        let int = |v: i128| i64::try_from(v).unwrap_or(i64::MAX);
        Stamp {
            size: u64::try_from(size.into()).unwrap_or(u64::MAX),
            inode: u64::try_from(inode.into()).unwrap_or(u64::MAX),
            mtime: (int(mtime.0.into()), int(mtime.1.into())),
            ctime: (int(ctime.0.into()), int(ctime.1.into())),
        }
    }

    /// Whether a file stamped so after `looked` would be trusted by its stamp alone: it
    /// was last changed well before.
    pub fn settled(&self, looked: SystemTime) -> bool {
        !self.racy(moment(looked))
    }

    /// Whether the file was changed so close to `looked` (the moment before it was
    /// stamped) that another change in the same clock tick could leave the same stamp.
    /// The later of the two times counts: a user can put the mtime back, not the ctime.
    pub(super) fn racy(&self, looked: (i64, i64)) -> bool {
        let ns = |(secs, nanos): (i64, i64)| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        let latest = ns(self.mtime).max(ns(self.ctime));
        latest + RACY.as_nanos() as i128 >= ns(looked)
    }
}

/// A file of the output as a build left it: its stamp, and the hash of the bytes the build
/// meant it to hold. A file whose stamp is not the one recorded, or is racy, is hashed
/// again: only its bytes say whether it is still the build's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Left {
    pub(crate) stamp: Stamp,
    pub(crate) hash: Hash,
}

/// The files of the output as a build left them, with when they were looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lefts {
    /// The moment before the first of the stamps was taken, as seconds and nanoseconds
    /// since the epoch.
    pub(super) looked: (i64, i64),
    /// Each file the manifest lists, in its order (`None`: not a file the build could
    /// read back, never trusted).
    pub each: Vec<Option<Left>>,
}

impl Lefts {
    pub(crate) fn new(looked: SystemTime, each: Vec<Option<Left>>) -> Lefts {
        Lefts {
            looked: moment(looked),
            each,
        }
    }

    /// Whether `left`, seen as `now`, can be taken as unchanged without reading it.
    pub fn trusted(&self, left: &Left, now: &Stamp) -> bool {
        left.stamp == *now && !now.racy(self.looked)
    }
}

/// A moment as seconds and nanoseconds since the epoch (before it: the epoch).
pub(super) fn moment(time: SystemTime) -> (i64, i64) {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(since) => (
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
            i64::from(since.subsec_nanos()),
        ),
        Err(_) => (0, 0),
    }
}
