//! The ledger file. This module owns every SQL statement in the crate.
//!
//! [`Ledger`] opens (or creates) the SQLite file, refuses files that are not
//! ledgers or are newer than this binary, applies migrations, and offers named
//! reads. Writes go through a [`Writer`]: one `BEGIN IMMEDIATE` transaction,
//! committed whole or not at all.
//!
//! A module per family of tables holds that family's reads (on [`Ledger`]) and writes
//! (on [`Writer`]): `lines` (input lines, notes), `jobs` (jobs, attempts, history, and
//! the console's job lists), `callbacks`, `answers`, `owners`, `outbox`, `outputs`
//! (outputs, checks, notifications, decisions), `decisions` (jobs decided twice, and
//! answers on them), `submissions` (a job id submitted again) and `counts`; `accounts` walks every
//! job for the reconciliation and `timeline` tells one job's story as facts. Every
//! paged list takes a [`PageRequest`]; statements whose filters vary are built by
//! `query`; `columns` says which columns each row type is read from, and how.

mod accounts;
mod answers;
mod callbacks;
mod columns;
mod counts;
mod decisions;
mod filter;
mod findings;
mod jobs;
mod keyset;
mod lines;
mod open;
mod outbox;
mod outputs;
mod owners;
mod query;
mod rows;
mod sql_values;
mod submissions;
mod timeline;
mod views;
mod write_behind;
mod writer;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, TransactionBehavior};

pub use accounts::{JobAccount, OpenJob};
pub use callbacks::CallbackFilter;
pub use counts::{MissingCounts, WindowStates};
pub use decisions::{DecisionAnswerRow, DecisionRow, DivergentJob, NewDecisionAnswer};
pub use findings::{Finding, FindingJob};
pub use jobs::{HistoryEntry, JobDefaults, NewAttempt};
pub use keyset::{CallbackKey, JobKey, Keyset, PageRequest, SortValue};
pub use open::{BUSY_TIMEOUT, PAGE_SIZE, SCHEMA_VERSION};
pub use outputs::NewDecision;
pub use rows::*;
pub use submissions::{ConflictingSubmission, NewRepeat, SubmittedIdentity};
pub use timeline::{TimelineEntry, TimelineFact};
pub use views::SavedView;
pub use writer::Writer;

/// Marks a SQLite file as a jobledger ledger (`PRAGMA application_id`, "JLDG").
pub const APPLICATION_ID: i32 = 0x4A4C_4447;

/// Failures a caller may want to tell apart.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "{path} is not a jobledger ledger (it is a SQLite file of another application); it was left untouched"
    )]
    NotALedger { path: PathBuf },
    #[error("{path} is not a SQLite database; it was left untouched")]
    NotADatabase { path: PathBuf },
    #[error(
        "{path} has ledger schema version {found}, newer than this jobledger understands ({known}); upgrade jobledger. The file was left untouched"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("the ledger {path} does not exist")]
    Missing { path: PathBuf },
    #[error(
        "{shown} is not a file name: {why}; give the path of a file, e.g. ./jobledger.db",
        shown = if path.as_os_str().is_empty() { "an empty --db".to_owned() } else { format!("`{}`", path.display()) }
    )]
    NotAFileName { path: PathBuf, why: &'static str },
    #[error("the ledger {path} is read-only here: {detail}")]
    ReadOnly { path: PathBuf, detail: String },
    #[error(
        "the disk holding {path} is full; nothing of the interrupted batch was kept, re-run once there is space"
    )]
    DiskFull { path: PathBuf },
    #[error("the ledger {path} is busy (another writer held it too long); try again")]
    Busy { path: PathBuf },
    #[error("ledger {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

/// How a ledger is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file if needed, migrate, allow writes.
    ReadWrite,
    /// The file must exist and be current; nothing is ever written.
    ReadOnly,
}

/// An open ledger file.
pub struct Ledger {
    conn: Connection,
    path: PathBuf,
}

impl Ledger {
    /// Opens (creating and migrating if needed) the ledger at `path`.
    pub fn open(path: &Path) -> Result<Ledger, StoreError> {
        open::open(path, OpenMode::ReadWrite, BUSY_TIMEOUT)
    }

    /// Opens as [`Ledger::open`] does, but a writer waits `busy_timeout` for another
    /// one instead of [`BUSY_TIMEOUT`]: a test sees the timeout in a moment.
    pub fn open_with_busy_timeout(
        path: &Path,
        busy_timeout: std::time::Duration,
    ) -> Result<Ledger, StoreError> {
        open::open(path, OpenMode::ReadWrite, busy_timeout)
    }

    /// The schema version of the ledger at `path`, when opening it read-write will
    /// upgrade it first (which rewrites whole tables: tell the person, it takes a while
    /// on a large ledger). `None` when there is nothing to upgrade.
    pub fn upgrade_pending(path: &Path) -> Option<i64> {
        open::upgrade_pending(path)
    }

    /// Opens an existing ledger without ever writing to it.
    pub fn open_read_only(path: &Path) -> Result<Ledger, StoreError> {
        open::open(path, OpenMode::ReadOnly, BUSY_TIMEOUT)
    }

    /// The file this ledger lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a write transaction (`BEGIN IMMEDIATE`); nothing is kept unless it is committed.
    pub fn writer(&mut self) -> Result<Writer<'_>, StoreError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| classify(&path, e))?;
        Ok(Writer::new(tx, path))
    }

    /// Gives this connection a page cache large enough for bulk writes (64 MiB):
    /// a batch's dirty pages then stay in memory until its commit. Memory stays
    /// flat: the cache is a ceiling, whatever the input's size.
    pub fn use_bulk_cache(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch("PRAGMA cache_size = -65536")
            .map_err(|e| self.err(e))
    }

    /// Makes every commit on this connection durable before it returns: the WAL is
    /// synced at each commit (`synchronous = FULL`). Ingest can be re-run from its
    /// source, so its `NORMAL` suits it; a person's answer, owner or request cannot,
    /// and one told "written" must not lose it when the machine loses power.
    pub fn keep_writes_durable(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch("PRAGMA synchronous = FULL")
            .map_err(|e| self.err(e))
    }

    /// Does each commit on this connection sync the WAL before it returns
    /// ([`Ledger::keep_writes_durable`])?
    pub fn writes_are_durable(&self) -> Result<bool, StoreError> {
        self.conn
            .query_row("PRAGMA synchronous", [], |row| row.get::<_, i64>(0))
            .map(|level| level >= 2)
            .map_err(|e| self.err(e))
    }

    /// A number that changes whenever another connection commits to the file.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))
            .map_err(|e| self.err(e))
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        classify(&self.path, e)
    }

    /// Every row a cached statement gives, each read by `from`.
    fn all_rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        from: fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        self.run(|c| c.prepare_cached(sql)?.query_map(params, from)?.collect())
    }

    /// Runs a read on the connection, its error made one a person can act on.
    fn run<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        f(&self.conn).map_err(|e| self.err(e))
    }
}

/// Turns a SQLite error into the error a person can act on.
pub(crate) fn classify(path: &Path, e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    let path = path.to_path_buf();
    match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => StoreError::DiskFull { path },
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            StoreError::ReadOnly {
                path,
                detail: e.to_string(),
            }
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy { path },
        Some(ErrorCode::NotADatabase) => StoreError::NotADatabase { path },
        _ => StoreError::Sqlite { path, source: e },
    }
}
