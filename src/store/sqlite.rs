//! The SQLite engine: a ledger kept in one SQLite file (WAL mode), and every SQL
//! statement that reads or writes one.
//!
//! [`Ledger`] opens (or creates) the file, refuses files that are not ledgers or are
//! newer than this binary, applies migrations, and offers named reads. Writes go
//! through a [`Writer`]: one `BEGIN IMMEDIATE` transaction, committed whole or not at
//! all.
//!
//! A module per family of tables holds that family's reads (on [`Ledger`]) and writes
//! (on [`Writer`]): `lines` (input lines, notes), `jobs` (jobs, attempts, history, and
//! the console's job lists), `callbacks`, `answers`, `owners`, `outbox`, `outputs`
//! (outputs, checks, notifications, decisions), `decisions` (jobs decided twice, and
//! answers on them), `submissions` (a job id submitted again), `views` and `counts`;
//! `job_accounts` walks every job for the reconciliation, `finding_jobs` lists the jobs
//! behind a finding and `timeline` tells one job's story as facts. Every paged list
//! takes a [`crate::store::PageRequest`]; statements whose filters vary are built by `query`;
//! `columns` says which columns each row type is read from, and how.
//!
//! What only a file has is kept apart: `file` (what is at the path, modes, the files
//! beside it), `identity` (whether the path still holds the file opened),
//! `log_owner` (whether a `-wal` was written for this file), `waiting_writers` (the
//! lock file that tells a bulk writer someone waits), `check` (`integrity_check` and
//! the recounts) and `salvage` (a damaged file read page by page). Their types are
//! capabilities of a file, not plain values of any engine: they stay here, and the
//! store's face re-exports them.

mod answers;
mod callbacks;
mod check;
mod claims;
mod closed_sets;
mod columns;
mod copy;
mod counts;
mod decisions;
mod file;
mod filter;
mod finding_jobs;
mod identity;
mod job_accounts;
mod jobs;
mod keyset;
mod lines;
mod log_owner;
mod looks;
mod open;
mod outbox;
mod outputs;
mod owners;
mod query;
mod reads;
mod reconcile_kept;
mod salvage;
mod sql_values;
mod submissions;
mod timeline;
mod views;
mod waiting_writers;
mod write_behind;
mod writer;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, TransactionBehavior};

use super::{AttemptState, CallbackRow, LineStatus};
use super::{EngineFailure, OpenMode, StoreError};

pub use check::{CHECKS, CheckFinding};
pub use file::with_suffix;
pub use identity::FileAtPath;
pub use open::{BUSY_TIMEOUT, PAGE_SIZE, SCHEMA_VERSION};
pub use salvage::{Lost, Salvage, TableSalvage};
pub use waiting_writers::WaitingWriters;
pub use writer::Writer;

/// Marks a SQLite file as a jobledger ledger (`PRAGMA application_id`, "JLDG").
pub const APPLICATION_ID: i32 = 0x4A4C_4447;

/// The page cache of a connection that ingests, in KiB (192 MiB). 256 MiB was no
/// faster on a shuffled stream of 250,000 jobs and took peak memory past 300 MB; the
/// 64 MiB before spilled a batch's dirty pages to the log before its commit.
pub const BULK_CACHE_KIB: i64 = 192 * 1024;

/// Pages of log (8 KiB each: 256 MiB) after which an ingesting connection's commit
/// checkpoints them into the file. Each batch of a stream of far-apart jobs dirties
/// most of the job-keyed index pages; SQLite's 1,000 checkpointed after every batch and
/// so rewrote those pages each time. Readers still find a page in the log through its
/// hash index.
pub const BULK_CHECKPOINT_PAGES: i64 = 32_768;

/// The size the log is cut back to when a checkpoint lets it start over, so that the
/// larger log of an ingest does not stay on disk beside a ledger kept open (64 MiB).
const BULK_LOG_KEPT_BYTES: i64 = 64 * 1024 * 1024;

/// An open ledger file.
pub struct Ledger {
    conn: Connection,
    path: PathBuf,
    /// The file SQLite opened: every write checks the path still holds it.
    opened: identity::FileIdentity,
    /// Says, while a write waits for the lock, that it waits (`turns`).
    turns: waiting_writers::Turns,
    /// The log was emptied into the old file once it left the path: done only once, as
    /// a ledger opened at the path since may have a log of its own there.
    log_left_empty: std::cell::Cell<bool>,
    /// What the last search found out about its condition (its narrowest range, the
    /// callbacks its indexes give), for the condition's next statement.
    chosen: Box<callbacks::LastChoice>,
}

impl Ledger {
    /// What stops a statement this connection runs, from another thread.
    pub fn canceller(&self) -> crate::store::Canceller {
        crate::store::Canceller::Sqlite(self.conn.get_interrupt_handle())
    }

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

    /// Opens an existing ledger as [`Ledger::open_read_only`] does, to save what can
    /// be read of it ([`Ledger::salvage_into`]): a file cut short is read as far as it
    /// goes, where every other open refuses it whole.
    pub fn open_to_salvage(path: &Path) -> Result<Ledger, StoreError> {
        open::open_to_salvage(path)
    }

    /// The mode of the ledger file at `path` when its group or others may read it (a
    /// warning's worth: a ledger holds other people's payloads). New ledgers are
    /// owner-only.
    pub fn shared_mode(path: &Path) -> Option<u32> {
        file::shared_mode(path)
    }

    /// Refuses, with what to do, a path that names a symbolic link to nothing or into a
    /// loop, a directory, or no regular file (a named pipe, a device, a socket): SQLite's
    /// own word for most is "unable to open database file", and on a named pipe it waits
    /// for ever.
    pub fn refuse_unopenable(path: &Path) -> Result<(), StoreError> {
        file::refuse_unopenable(path)
    }

    /// The file this ledger lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Is the file at the ledger's path still the one it opened?
    pub fn file_at_path(&self) -> FileAtPath {
        self.opened.at_path(&self.path)
    }

    /// Before a ledger whose file was replaced is let go: moves what the write-ahead
    /// log holds into the old file and empties the log. The log is found by the path,
    /// so when another ledger was renamed over this one the next connection there
    /// would read this file's pages as its own. Best effort: a read-only connection
    /// cannot, and the next open reads whatever is left.
    pub fn leave_the_log_empty(&self) {
        if !self.log_left_empty.replace(true) {
            let _ = self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)");
        }
    }

    /// Runs `reads` in one read transaction, so they all see the ledger at one moment
    /// whatever is committed meanwhile (a bulk answer's plan and the answer it is
    /// marked with). Nothing is written: the transaction is ended by rolling back.
    pub fn in_one_snapshot<T>(
        &self,
        reads: impl FnOnce(&Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let snapshot = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let read = reads(self);
        drop(snapshot);
        read
    }

    /// Starts a write transaction (`BEGIN IMMEDIATE`); nothing is kept unless it is
    /// committed. Refused ([`StoreError::Replaced`], [`StoreError::Removed`]) once the
    /// file at the path is not the one opened: checked with the write lock held, here
    /// and again at commit.
    pub fn writer(&mut self) -> Result<Writer<'_>, StoreError> {
        let path = self.path.clone();
        let turns = self.turns.clone();
        let tx = turns
            .begin(|| {
                self.conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)
            })
            .map_err(|e| classify(&path, e))?;
        self.opened.ensure_at(&path)?;
        Ok(Writer::new(tx, path, self.opened))
    }

    /// Which of the files of the ledger at `path` the file `other` is ("the ledger",
    /// "the write-ahead log (-wal) of the ledger", ...), by device and inode,
    /// whatever path named it; `None` when it is none of them.
    pub fn own_file(path: &Path, other: &std::fs::Metadata) -> Option<&'static str> {
        file::own_file(path, other)
    }

    /// Removes the ledger at `path` with its `-wal`, `-shm` and `-waiting` (beside the
    /// file a link names). Only while holding the ledger's write lock ([`Ledger::writer`]
    /// on another connection), so that no committed write goes with it unseen.
    pub fn remove_with_sidecars(path: &Path) -> std::io::Result<()> {
        file::remove_with_sidecars(path)
    }

    /// Renames the ledger at `path` to `to`, its `-wal` and `-shm` with it (to `to-wal`,
    /// `to-shm`), so the pair still opens as the ledger it was; removes nothing. The
    /// new names are returned.
    pub fn set_aside(path: &Path, to: &Path) -> std::io::Result<Vec<PathBuf>> {
        file::set_aside(path, to)
    }

    /// The other processes that have the ledger at `path` or its log open (Linux).
    pub fn holders(path: &Path) -> Vec<u32> {
        file::holders(path)
    }

    /// Asks, for a bulk writer holding the lock long, whether another writer waits for
    /// it (`None`: the lock file beside the ledger cannot be made; no one can say so).
    pub fn waiting_writers(&self) -> Option<WaitingWriters> {
        WaitingWriters::open(&self.path)
    }

    /// Sets this connection up for bulk writes: a page cache of [`BULK_CACHE_KIB`]
    /// and a checkpoint every [`BULK_CHECKPOINT_PAGES`] pages of log. Memory stays
    /// flat: the cache is a ceiling, whatever the input's size.
    ///
    /// A stream whose jobs' events lie far apart touches pages all over the job-keyed
    /// tables and indexes. With 64 MiB, a quarter of the time went to pages spilled to
    /// the log mid-batch and read back (`pagerStress`, `readDbPage`), and a tenth to
    /// checkpoints, each copying nearly the same hot pages into the file again
    /// (measured on a shuffled 1.27-million-line stream: 1.5x faster, 28% fewer bytes
    /// written; peak memory 234 MB; BENCHMARKS.md).
    pub fn use_bulk_cache(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch(&format!(
                "PRAGMA cache_size = -{BULK_CACHE_KIB}; PRAGMA wal_autocheckpoint = {BULK_CHECKPOINT_PAGES}; PRAGMA journal_size_limit = {BULK_LOG_KEPT_BYTES};"
            ))
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
        let mut statement = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows: rusqlite::Result<Vec<T>> = statement
            .query_map(params, from)
            .and_then(Iterator::collect);
        rows.map_err(|e| self.err(name_the_column(e, &statement)))
    }

    /// Runs a read on the connection, its error made one a person can act on.
    fn run<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        f(&self.conn).map_err(|e| self.err(e))
    }
}

impl Drop for Ledger {
    /// A ledger whose file is gone from its path leaves its write-ahead log empty
    /// ([`Ledger::leave_the_log_empty`]): the next ledger opened at the path finds the
    /// log by the path's name, and must not read this file's pages as its own.
    fn drop(&mut self) {
        if self.file_at_path() != FileAtPath::Same {
            self.leave_the_log_empty();
        }
    }
}

/// Turns a SQLite error into the error a person can act on.
pub(crate) fn classify(path: &Path, e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    let path = path.to_path_buf();
    match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => StoreError::DiskFull {
            ledger: path.into(),
        },
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            match file::immutable_file(&path) {
                Some(file) => StoreError::Immutable { path, file },
                None => StoreError::ReadOnly {
                    ledger: path.into(),
                    detail: e.to_string(),
                },
            }
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy {
            ledger: path.into(),
        },
        Some(ErrorCode::DatabaseCorrupt) => StoreError::Damaged {
            ledger: path.into(),
            detail: "SQLite found a page it cannot read".to_owned(),
        },
        Some(ErrorCode::NotADatabase) if was_a_ledger(&path) => StoreError::Damaged {
            ledger: path.into(),
            detail: "its header is intact but SQLite cannot read it as a database".to_owned(),
        },
        Some(ErrorCode::NotADatabase) => StoreError::NotADatabase {
            ledger: path.into(),
        },
        Some(ErrorCode::SystemIoFailure) if is_shm_growth(&e) => StoreError::ShmFull { path },
        _ => match unreadable_value(&e) {
            Some(detail) => StoreError::Damaged {
                ledger: path.into(),
                detail,
            },
            None => StoreError::Engine {
                ledger: path.into(),
                failure: EngineFailure::new(e),
            },
        },
    }
}

/// What is wrong, in words, when `e` is a value of the ledger's own that its column
/// cannot hold: text that is not UTF-8, a type its STRICT column refuses, a name no
/// closed set knows. Only damage puts such a value there, since every value was
/// written by this crate through the same types; rusqlite's own words ("invalid
/// utf-8 sequence of 1 bytes from index 5") name no damage and say nothing to do.
/// `column` names the column when the caller knows it (else its place in the row).
fn unreadable_value(e: &rusqlite::Error) -> Option<String> {
    use rusqlite::Error as E;
    if let E::FromSqlConversionFailure(_, _, inner) = e
        && let Some(named) = inner.downcast_ref::<InColumn>()
    {
        return Some(named.to_string());
    }
    let (index, what) = unreadable_parts(e)?;
    Some(format!(
        "a row holds in column {} of a row it read {}, which the ledger never writes",
        index + 1,
        crate::inert::inert(&what)
    ))
}

/// Which column of a row read, and what it held, when `e` is a value its column
/// cannot hold ([`unreadable_value`]).
fn unreadable_parts(e: &rusqlite::Error) -> Option<(usize, String)> {
    use rusqlite::Error as E;
    Some(match e {
        E::Utf8Error(index, _) => (*index, "text that is not UTF-8".to_owned()),
        E::InvalidColumnType(index, _, found) => (*index, format!("a value of type {found}")),
        E::IntegralValueOutOfRange(index, value) => {
            (*index, format!("the number {value}, out of its range"))
        }
        E::FromSqlConversionFailure(index, _, inner) => (*index, format!("{inner}")),
        _ => return None,
    })
}

/// A value its column cannot hold, with the column's name, which the error of a row
/// read does not carry (only the column's place): the statement read knows it.
#[derive(Debug)]
struct InColumn {
    column: String,
    what: String,
}

impl std::fmt::Display for InColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a row holds in its column {} {}, which the ledger never writes",
            crate::inert::inert(&self.column),
            crate::inert::inert(&self.what)
        )
    }
}

impl std::error::Error for InColumn {}

/// `e`, when it is a value its column cannot hold, with the column named from the
/// statement that read it; any other error as it is.
fn name_the_column(e: rusqlite::Error, statement: &rusqlite::Statement<'_>) -> rusqlite::Error {
    let Some((index, what)) = unreadable_parts(&e) else {
        return e;
    };
    let Ok(column) = statement.column_name(index) else {
        return e;
    };
    // `c.reason` is read as `reason`: the name without the table's alias.
    let column = column.rsplit('.').next().unwrap_or(column).to_owned();
    rusqlite::Error::FromSqlConversionFailure(
        index,
        rusqlite::types::Type::Null,
        Box::new(InColumn { column, what }),
    )
}

/// Does the file at `path` begin as a SQLite file (or a jobledger ledger) does? Then a
/// file SQLite refuses as no database is a ledger damaged, not someone else's file.
fn was_a_ledger(path: &Path) -> bool {
    use std::io::Read as _;
    let mut header = [0_u8; 72];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header));
    read.is_ok()
        && (header.starts_with(b"SQLite format 3\0")
            || header[68..72] == APPLICATION_ID.to_be_bytes())
}

/// Is `e` SQLite failing to grow or map the `-shm` file? On Linux that file is a
/// sparse file beside the ledger, and a full disk shows only when a page of it is
/// first touched: "disk I/O error" with `SQLITE_IOERR_SHMMAP` or `_SHMSIZE`.
fn is_shm_growth(e: &rusqlite::Error) -> bool {
    const SHM_CODES: [i32; 2] = [
        rusqlite::ffi::SQLITE_IOERR_SHMSIZE,
        rusqlite::ffi::SQLITE_IOERR_SHMMAP,
    ];
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if SHM_CODES.contains(&f.extended_code))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rusqlite::ffi;

    use super::{StoreError, classify};

    fn sqlite(code: i32, message: &str) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), Some(message.to_owned()))
    }

    #[test]
    fn a_canceller_stops_the_statement_its_connection_runs_from_another_thread() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = super::Ledger::open(&dir.path().join("l.db")).unwrap();
        let canceller = ledger.canceller();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            canceller.cancel();
        });
        // Counts for ever unless stopped.
        let endless = ledger.conn.query_row(
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n",
            [],
            |row| row.get::<_, i64>(0),
        );
        stopper.join().unwrap();
        let Err(rusqlite::Error::SqliteFailure(e, _)) = endless else {
            panic!("not stopped: {endless:?}");
        };
        assert_eq!(e.code, ffi::ErrorCode::OperationInterrupted);
        // The connection goes on.
        let one: i64 = ledger.conn.query_row("SELECT 1", [], |r| r.get(0)).unwrap();
        assert_eq!(one, 1);
    }

    #[test]
    fn a_shared_memory_index_that_cannot_grow_is_a_full_disk() {
        for code in [ffi::SQLITE_IOERR_SHMMAP, ffi::SQLITE_IOERR_SHMSIZE] {
            let e = classify(Path::new("l.db"), sqlite(code, "disk I/O error"));
            assert!(matches!(e, StoreError::ShmFull { .. }), "{e}");
            let said = e.to_string();
            assert!(said.contains("l.db-shm") && said.contains("full"), "{said}");
        }
        let other = classify(
            Path::new("l.db"),
            sqlite(ffi::SQLITE_IOERR_READ, "disk I/O error"),
        );
        assert!(matches!(other, StoreError::Engine { .. }), "{other}");
    }

    #[test]
    fn a_corrupt_page_is_a_damaged_ledger_that_names_check_and_the_salvage() {
        let e = classify(Path::new("l.db"), sqlite(ffi::SQLITE_CORRUPT, "malformed"));
        let said = e.to_string();
        assert!(matches!(e, StoreError::Damaged { .. }), "{said}");
        for word in [
            "damaged",
            "jobledger --db l.db check",
            "jobledger --db l.db backup --salvage NEW.db",
        ] {
            assert!(said.contains(word), "{said}");
        }
        assert!(
            !said.contains("re-run") && !said.contains("malformed"),
            "{said}"
        );
    }

    #[test]
    fn a_value_its_column_cannot_hold_is_damage_named_without_rusqlites_words() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = |sql: &str| {
            conn.query_row(sql, [], |row| row.get::<_, String>(0))
                .unwrap_err()
        };
        for e in [
            read("SELECT CAST(x'41ff42' AS TEXT)"),
            read("SELECT 5"),
            conn.query_row("SELECT 'hold-ish'", [], |row| {
                row.get::<_, crate::decision::Disposition>(0)
            })
            .unwrap_err(),
        ] {
            let raw = e.to_string();
            let e = classify(Path::new("l.db"), e);
            let said = e.to_string();
            assert!(matches!(e, StoreError::Damaged { .. }), "{said}");
            assert!(said.contains("column 1") && !said.contains(&raw), "{said}");
        }
    }

    #[test]
    fn no_database_is_damage_only_in_a_file_that_began_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, vec![b'x'; 4096]).unwrap();
        let e = classify(&notes, sqlite(ffi::SQLITE_NOTADB, "file is not a database"));
        assert!(matches!(e, StoreError::NotADatabase { .. }), "{e}");
        let ledger = dir.path().join("ledger.db");
        let mut bytes = b"SQLite format 3\0".to_vec();
        bytes.resize(4096, 0xff);
        std::fs::write(&ledger, bytes).unwrap();
        let e = classify(
            &ledger,
            sqlite(ffi::SQLITE_NOTADB, "file is not a database"),
        );
        assert!(matches!(e, StoreError::Damaged { .. }), "{e}");
    }
}
