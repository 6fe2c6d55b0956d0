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
    with_suffix(&resolved(path), suffix)
}

/// `path` with `suffix` added to its name, as written (`L.db` and `-wal`: `L.db-wal`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Which of the files of the ledger at `path` (the ledger, its `-wal`, `-shm` or
/// `-waiting`) the file `other` is, by device and inode: a link, a hard link or
/// another spelling of the path is the same file. `None`: none of them (or, where
/// files have no device and inode to compare, not known).
pub(super) fn own_file(path: &Path, other: &std::fs::Metadata) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let wanted = (other.dev(), other.ino());
        let same = |file: &Path| {
            std::fs::metadata(file).is_ok_and(|meta| (meta.dev(), meta.ino()) == wanted)
        };
        if same(path) {
            return Some("the ledger");
        }
        [
            ("-wal", "the write-ahead log (-wal) of the ledger"),
            ("-shm", "the shared-memory index (-shm) of the ledger"),
            (
                "-waiting",
                "the file of waiting writers (-waiting) of the ledger",
            ),
        ]
        .into_iter()
        .find(|(suffix, _)| same(&beside(path, suffix)))
        .map(|(_, what)| what)
    }
    #[cfg(not(unix))]
    {
        let _ = (path, other);
        None
    }
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
                with_suffix(path, suffix)
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
/// usual.
pub(super) fn immutable_uri(path: &Path) -> Option<String> {
    if beside(path, "-shm").exists() || directory_takes_files(path) {
        return None;
    }
    file_alone_uri(path)
}

/// The URI that reads the file at `path` alone, as `immutable`: without its `-wal` and
/// without locks. Person-given names never become URIs (`file:` is refused); this one
/// is built here, every byte outside a plain set percent-escaped (`?`, `#`, `%`, ...).
pub(super) fn file_alone_uri(path: &Path) -> Option<String> {
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

/// Renames the ledger at `path` to `to`, with its `-wal` and `-shm` to `to-wal` and
/// `to-shm` (those there are): the log stays beside the file it was written for, so
/// the pair still opens as the ledger it was. Nothing is removed. Returns the new names.
pub(super) fn set_aside(path: &Path, to: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut moved = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let from = if suffix.is_empty() {
            path.to_path_buf()
        } else {
            beside(path, suffix)
        };
        let target = with_suffix(to, suffix);
        if target.exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} already exists", target.display()),
            ));
        }
        match std::fs::rename(&from, &target) {
            Ok(()) => moved.push(target),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !suffix.is_empty() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(moved)
}

/// The processes other than this one that have the ledger at `path`, its `-wal` or its
/// `-shm` open, found through `/proc` (Linux; elsewhere none are found). A file swapped
/// under an open connection keeps receiving that connection's writes.
#[cfg(unix)]
pub(super) fn holders(path: &Path) -> Vec<u32> {
    use std::os::unix::fs::MetadataExt;
    let key = |m: &std::fs::Metadata| (m.dev(), m.ino());
    let files: Vec<(u64, u64)> = [resolved(path), beside(path, "-wal"), beside(path, "-shm")]
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| key(&m))
        .collect();
    if files.is_empty() {
        return Vec::new();
    }
    let me = std::process::id();
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = processes
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| {
            std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
                fds.filter_map(Result::ok)
                    .filter_map(|fd| std::fs::metadata(fd.path()).ok())
                    .any(|m| files.contains(&key(&m)))
            })
        })
        .collect();
    pids.sort_unstable();
    pids
}

#[cfg(not(unix))]
pub(super) fn holders(_path: &Path) -> Vec<u32> {
    Vec::new()
}
