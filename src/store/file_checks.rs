//! What is at a ledger's path, looked at before SQLite opens it, so that each case
//! gets a sentence that says what to do: a symbolic link to nothing or into a loop, a
//! directory, a named pipe or a device, a directory that takes no new files; and,
//! after the open, the privacy of the files SQLite made beside the ledger.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::StoreError;

/// Refuses a path SQLite could not open as a file, with the reason in words: a
/// symbolic link to nothing or into a loop of links, a directory, and anything that is
/// no regular file (a named pipe, a device, a socket). Looked at before SQLite opens
/// the path: it would wait for ever on a named pipe, and beside `/dev/null` it makes a
/// `/dev/null-journal` anyone may write.
pub(super) fn refuse_unopenable(path: &Path) -> Result<(), StoreError> {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match std::fs::metadata(path) {
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            Err(StoreError::LinkLoop {
                path: path.to_path_buf(),
            })
        }
        Err(_) if link => Err(StoreError::DanglingLink {
            path: path.to_path_buf(),
            target: std::fs::read_link(path).unwrap_or_default(),
        }),
        Ok(meta) if meta.is_dir() => Err(StoreError::Directory {
            path: path.to_path_buf(),
        }),
        Ok(meta) if !meta.is_file() => Err(StoreError::NotAFile {
            path: path.to_path_buf(),
            what: kind_of(meta.file_type()),
        }),
        _ => Ok(()),
    }
}

/// What a file that is neither a regular file nor a directory is, in words.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    let _ = file_type;
    "not a regular file"
}

/// The ledger file `path` names: the file a symbolic link leads to, where SQLite keeps
/// its `-wal` and `-shm` (the path as given when it leads nowhere yet).
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The directory holding the ledger file `path` names.
fn directory_of(path: &Path) -> PathBuf {
    let file = resolved(path);
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The file kept beside the ledger file `path` names, under `suffix`: SQLite's `-wal`
/// and `-shm`, jobledger's `-waiting` (`turns`).
pub(super) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = resolved(path).into_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// The file of the ledger at `path` (the ledger itself, its `-wal` or its `-shm`)
/// marked immutable (`chattr +i`), if one is: SQLite then opens it read-only and says
/// only "attempt to write a readonly database", naming neither the file nor the mark.
/// Named as the person gave the path, or beside the file a link leads to.
pub(super) fn immutable_file(path: &Path) -> Option<PathBuf> {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    ["", "-wal", "-shm"]
        .into_iter()
        .map(|suffix| {
            if link {
                beside(path, suffix)
            } else {
                let mut name = path.as_os_str().to_owned();
                name.push(suffix);
                PathBuf::from(name)
            }
        })
        .find(|file| is_immutable(file))
}

/// Does `file` carry the immutable flag? Asked with `FS_IOC_GETFLAGS`, on a read-only
/// open that does not wait (should a named pipe have taken the file's place).
#[cfg(target_os = "linux")]
fn is_immutable(file: &Path) -> bool {
    use rustix::fs::{IFlags, Mode, OFlags};
    rustix::fs::open(
        file,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .and_then(rustix::fs::ioctl_getflags)
    .is_ok_and(|flags| flags.contains(IFlags::IMMUTABLE))
}

#[cfg(not(target_os = "linux"))]
fn is_immutable(_file: &Path) -> bool {
    false
}

/// Removes the ledger at `path` with the files kept beside it. Its caller holds the
/// ledger's write lock, so no write is lost between a check and the removal.
pub(super) fn remove_with_sidecars(path: &Path) -> std::io::Result<()> {
    let sidecars = ["-wal", "-shm", "-waiting"].map(|suffix| beside(path, suffix));
    for file in std::iter::once(path).chain(sidecars.iter().map(PathBuf::as_path)) {
        match std::fs::remove_file(file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// Does the directory holding `path` take new files? `access(2)` answers for root
/// too (an immutable directory, a read-only mount), where the mode bits do not.
fn directory_takes_files(path: &Path) -> bool {
    rustix::fs::access(directory_of(path), rustix::fs::Access::WRITE_OK).is_ok()
}

/// Refuses a write open of the existing ledger at `path` when SQLite could not make
/// its `-wal` and `-shm` beside it (they are made at open and removed at close).
pub(super) fn refuse_unwritable_directory(path: &Path) -> Result<(), StoreError> {
    let sidecars = beside(path, "-wal").exists() && beside(path, "-shm").exists();
    if sidecars || directory_takes_files(path) {
        return Ok(());
    }
    Err(StoreError::DirectoryNotWritable {
        path: path.to_path_buf(),
        directory: directory_of(path),
    })
}

/// The URI that opens `path` read-only as `immutable`, when a read-only open needs it:
/// the ledger is in WAL mode, whose readers share a `-shm` index beside the file, and a
/// directory that takes no new files cannot hold one. Immutable reads the file alone,
/// without locks, which is sound where nothing can write beside it. `None`: open as
/// usual. Person-given names never become URIs (`file:` is refused); this one is
/// built here, every byte outside a plain set percent-escaped (`?`, `#`, `%`, ...).
pub(super) fn immutable_uri(path: &Path) -> Option<String> {
    if beside(path, "-shm").exists() || directory_takes_files(path) {
        return None;
    }
    let absolute = std::fs::canonicalize(path).ok()?;
    let mut uri = String::from("file:");
    for byte in absolute.as_os_str().as_encoded_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'.' | b'-' | b'_' | b'~' => {
                uri.push(char::from(*byte));
            }
            other => {
                let _ = write!(uri, "%{other:02X}");
            }
        }
    }
    uri.push_str("?immutable=1");
    Some(uri)
}

/// Makes the `-wal` and `-shm` SQLite made beside the ledger owner-only: SQLite gives
/// them the ledger's own mode, and a ledger that others may read should not spread
/// its newest pages to them too. Best effort: a file of another owner stays as it is.
pub(super) fn keep_sidecars_private(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for suffix in ["-wal", "-shm"] {
            let side = beside(path, suffix);
            if let Ok(meta) = std::fs::metadata(&side)
                && meta.permissions().mode() & 0o077 != 0
            {
                let private = std::fs::Permissions::from_mode(meta.permissions().mode() & 0o700);
                let _ = std::fs::set_permissions(&side, private);
            }
        }
    }
}

/// The mode of the ledger file at `path` when its group or others may read it.
pub(super) fn shared_mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        (mode & 0o077 != 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
