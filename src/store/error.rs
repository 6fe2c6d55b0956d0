//! Failures a person can act on, in their words: what is wrong and what to do.

use std::path::{Path, PathBuf};

/// Where a ledger is kept, as a person named it: shown in every message about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file.
    File(PathBuf),
    /// A schema on a PostgreSQL server (shown without its password).
    Server(Box<super::ServerAddress>),
}

impl Location {
    /// Where `--db` (or `JOBLEDGER_DB`) says the ledger is: a `postgres://` or
    /// `postgresql://` URL names a server, anything else a file. A URL that cannot be
    /// read is refused in words that hold no password.
    pub fn parse(text: &std::ffi::OsStr) -> Result<Location, StoreError> {
        match text.to_str() {
            Some(url) if super::is_server_url(url) => super::ServerAddress::parse(url)
                .map(|address| Location::Server(Box::new(address)))
                .map_err(|why| StoreError::BadAddress { why }),
            _ => Ok(Location::File(PathBuf::from(text))),
        }
    }

    /// The ledger in a few characters, for a line short of room: a file by its name,
    /// a server's ledger by its database (and schema, when not the default one).
    pub fn short_name(&self) -> String {
        match self {
            Location::File(path) => path.file_name().map_or_else(
                || path.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            ),
            Location::Server(address) => address.short_name(),
        }
    }

    /// The file, for a ledger kept in one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::File(path) => Some(path),
            Location::Server(_) => None,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Server(address) => write!(f, "{address}"),
        }
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Self {
        Location::File(path.to_path_buf())
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Location::File(path)
    }
}

/// An engine's own error, kept whole for its words and its source chain; what it is
/// stays the engine's business.
#[derive(Debug)]
pub struct EngineFailure(Box<dyn std::error::Error + Send + Sync>);

impl EngineFailure {
    pub(super) fn new(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        EngineFailure(Box::new(e))
    }
}

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for EngineFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Failures a caller may want to tell apart.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "{ledger} is not a jobledger ledger (it is a SQLite file of another application); it was left untouched"
    )]
    NotALedger { ledger: Location },
    #[error("{ledger} is not a SQLite database; it was left untouched")]
    NotADatabase { ledger: Location },
    #[error(
        "{ledger} has ledger schema version {found}, newer than this jobledger understands ({known}); upgrade jobledger. The file was left untouched"
    )]
    NewerSchema {
        ledger: Location,
        found: i64,
        known: i64,
    },
    #[error("the ledger {ledger} does not exist")]
    Missing { ledger: Location },
    #[error(
        "{shown} is not a file name: {why}; give the path of a file, e.g. ./jobledger.db",
        shown = if path.as_os_str().is_empty() { "an empty --db".to_owned() } else { format!("`{}`", path.display()) }
    )]
    NotAFileName { path: PathBuf, why: &'static str },
    #[error("the ledger {ledger} is read-only here: {detail}")]
    ReadOnly { ledger: Location, detail: String },
    #[error(
        "the ledger {path} is read-only: {file} is marked immutable (`chattr +i`), which stops every write, root's too; the write was refused and nothing of it was kept. Remove the mark with `chattr -i {file}`, then run the command again"
    )]
    Immutable { path: PathBuf, file: PathBuf },
    #[error(
        "the disk holding {ledger} is full; nothing of the interrupted batch was kept, re-run once there is space"
    )]
    DiskFull { ledger: Location },
    #[error("the ledger {ledger} is busy (another writer held it too long); try again")]
    Busy { ledger: Location },
    // The file at the path is not the one opened: a write would go into a file no one
    // opening the path will see, so none is made.
    #[error(
        "{path} was replaced by another file after it was opened: nothing was written (it would have gone into the old file, no longer at that path)"
    )]
    Replaced { path: PathBuf },
    #[error(
        "{path} was removed after it was opened: nothing was written (it would have gone into a file no longer at that path)"
    )]
    Removed { path: PathBuf },
    // What is at the path, in words that say what to do: SQLite's own words for these
    // ("unable to open database file") name neither the cause nor the fix.
    #[error(
        "{path} is a symbolic link to {target}, which does not exist; point the link at the ledger file, or give the ledger's own path with --db"
    )]
    DanglingLink { path: PathBuf, target: PathBuf },
    #[error(
        "{path} leads into a loop of symbolic links (links that point, through one another, back to themselves), so it names no file; point the link at the ledger file, or give the ledger's own path with --db"
    )]
    LinkLoop { path: PathBuf },
    #[error("{path} is a directory, not a ledger file; give the path of the ledger file inside it")]
    Directory { path: PathBuf },
    #[error(
        "{path} is {what}, not a ledger file: a ledger is kept in a regular file, and nothing was opened or made beside it. Give the path of a ledger file with --db (at a path where nothing is yet, `jobledger ingest` makes a new one)"
    )]
    NotAFile { path: PathBuf, what: &'static str },
    #[error(
        "the directory {directory} holding the ledger {path} is not writable, and a write needs to make the ledger's -wal and -shm files beside it; make the directory writable to write. To read, `jobledger review --read-only` and the report commands work as it is"
    )]
    DirectoryNotWritable { path: PathBuf, directory: PathBuf },
    #[error(
        "{ledger} is marked as a jobledger ledger (schema version {version}) but has none of its tables: the ledger is incomplete or damaged, and nothing was written. Run `jobledger --db {ledger} check` to see what it holds, then restore it from a backup (or move it aside and ingest the events again)"
    )]
    Incomplete { ledger: Location, version: i64 },
    // Damaged files, and a full disk under the shared-memory index (a sparse `-shm`
    // file shows the full disk only when a page of it is first touched).
    #[error(
        "the ledger {ledger} is damaged ({detail}); nothing more was written to it. Keep a copy of the file as it is, see what is wrong with `jobledger --db {ledger} check`, and save what can still be read with `jobledger --db {ledger} backup --salvage NEW.db` (a new ledger, the rows it could not read named)"
    )]
    Damaged { ledger: Location, detail: String },
    #[error(
        "the ledger's shared-memory index {path}-shm could not grow: the disk holding {path} is full. Nothing of the interrupted write was kept; free some space there (or move the ledger to a disk with room), then run the command again"
    )]
    ShmFull { path: PathBuf },
    #[error(
        "the log {log} beside the ledger {path} was not written for this file ({detail}): a backup was moved over the ledger while its log was still there, or a log was copied from another ledger. Nothing was read from the log or written anywhere. If {path} is the ledger you want, set the log aside (it may hold another ledger's last writes): stop every jobledger using it, then `mv {log} {log}.aside` and the same for the -shm beside it. To put a backup in a ledger's place, `jobledger --db LEDGER restore BACKUP` does this for you and keeps the old file with its log"
    )]
    ForeignLog {
        path: PathBuf,
        log: PathBuf,
        detail: &'static str,
    },
    #[error(
        "the ledger server {ledger} cannot be reached ({detail}); nothing of the interrupted work was kept. Check that the server is up and reachable from here, then run the command again"
    )]
    Unreachable { ledger: Location, detail: String },
    #[error(
        "{ledger}: the schema holds tables of something else, not a jobledger ledger; it was left untouched. Name another schema with ?schema=NAME in the URL"
    )]
    SchemaNotALedger { ledger: Location },
    #[error("{why}")]
    BadAddress { why: String },
    #[error("{ledger}: {what}")]
    Unsupported { ledger: Location, what: String },
    /// A failure of the engine that no variant above names: its own words. Said in the
    /// message and not also as a cause: shown with its causes (`{:#}`), it was said
    /// twice.
    #[error("ledger {ledger}: {failure}")]
    Engine {
        ledger: Location,
        failure: EngineFailure,
    },
}
