//! Which file a ledger opened, and whether the file at its path is still that one.
//!
//! SQLite keeps the file it opened, whatever happens to the path: after another
//! program renames a new ledger over it (as `jobledger demo` does) or removes it, every
//! write still goes into the old file, which nobody will read again, and the person is
//! told it was written. The device and inode taken at open tell the two files apart.

use std::path::Path;

use super::StoreError;

/// The device and inode of the file a ledger opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileIdentity {
    device: u64,
    inode: u64,
}

/// What is at a ledger's path now, against the file the ledger opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAtPath {
    /// The file the ledger opened.
    Same,
    /// Another file: what is read and written goes to the old one, not to this.
    Replaced,
    /// Nothing (or nothing that can be looked at).
    Removed,
}

impl FileIdentity {
    /// The identity of the file at `path` now (symbolic links followed, as SQLite does).
    pub(super) fn at(path: &Path) -> std::io::Result<FileIdentity> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        let (device, inode) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (device, inode) = (0, u64::from(meta.is_file()));
        Ok(FileIdentity { device, inode })
    }

    /// Taken right after SQLite opened `path`.
    pub(super) fn opened(path: &Path) -> Result<FileIdentity, StoreError> {
        FileIdentity::at(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StoreError::Missing {
                ledger: path.into(),
            },
            _ => StoreError::ReadOnly {
                ledger: path.into(),
                detail: format!("cannot look at the file: {e}"),
            },
        })
    }

    /// Is the file at `path` still this one?
    pub(super) fn at_path(self, path: &Path) -> FileAtPath {
        match FileIdentity::at(path) {
            Ok(now) if now == self => FileAtPath::Same,
            Ok(_) => FileAtPath::Replaced,
            Err(_) => FileAtPath::Removed,
        }
    }

    /// Refuses a write unless the file at `path` is still this one: a write into a
    /// replaced or removed file would be reported written and never be seen.
    pub(super) fn ensure_at(self, path: &Path) -> Result<(), StoreError> {
        let path = path.to_path_buf();
        match self.at_path(&path) {
            FileAtPath::Same => Ok(()),
            FileAtPath::Replaced => Err(StoreError::Replaced { path }),
            FileAtPath::Removed => Err(StoreError::Removed { path }),
        }
    }
}
