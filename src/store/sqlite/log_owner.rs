//! Whether the write-ahead log beside a ledger was written for that file.
//!
//! SQLite reads whatever `-wal` it finds beside a database as that file's own, and the
//! first connection to close checkpoints it in. Nothing in a log names its file, so a
//! backup moved over a ledger whose ingest was killed (its log still there), or a log
//! copied from another ledger, was applied page by page to a file it was never written
//! for: the file grew, broke, and the log was gone.
//!
//! Each ledger carries a random token (`ledger_file`, drawn anew for every backup copy),
//! and every write transaction touches that row, so a log that holds any transaction
//! holds the token of the file it was written for. Before a ledger is opened, the token
//! read through the log is set against the token of the file read alone; when they
//! differ, the ledger is not opened, and the log is left as it is.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::StoreError;
use super::file::{beside, file_alone_uri};

/// The size of a log's header: a log no longer than this holds no transaction.
const LOG_HEADER_BYTES: u64 = 32;

/// How often a differing token is read again before the log is called foreign: a
/// checkpoint running in another process may be rewriting the very page that the
/// file-alone read (which takes no lock) is reading.
const READS: u32 = 3;

/// Counts a write in the ledger's own row (inside the writer's transaction), so that
/// the log this transaction goes into holds the file's token.
pub(super) fn mark_write(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE ledger_file SET writes = writes + 1 WHERE id = 1")?
        .execute([])
        .map(drop)
}

/// Gives a copy of a ledger a token of its own: a log written for the ledger is then
/// never taken for the copy's once the copy is put in the ledger's place.
fn renew_token(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE ledger_file SET token = randomblob(16) WHERE id = 1",
        [],
    )
    .map(drop)
}

/// Gives the ledger file at `path`, a copy no one else has open yet, a token of its own.
pub(super) fn give_own_token(path: &Path) -> Result<(), StoreError> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .and_then(|copy| renew_token(&copy))
    .map_err(|e| super::classify(path, e))
}

/// Refuses to open the ledger at `path` when the log beside it holds transactions
/// written for another file. Nothing is written, and the log is not applied, moved or
/// removed: the person decides (the error says how).
pub(super) fn refuse_foreign_log(path: &Path) -> Result<(), StoreError> {
    refuse_unless_tokens_agree(path, || {
        Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .and_then(|conn| token(&conn))
    })
}

/// [`refuse_foreign_log`] for a ledger opened read-only, the token through the log
/// read by `conn`, the connection it was opened with: a read-only connection never
/// folds the log into the file, so it may open the ledger before its log is known to
/// be the file's, and the schema it has read already is not read again by another
/// (which was a third of the time of a small report on a ledger with a log).
pub(super) fn refuse_foreign_log_read_by(path: &Path, conn: &Connection) -> Result<(), StoreError> {
    refuse_unless_tokens_agree(path, || token(conn))
}

/// Refuses the ledger at `path` when its log holds transactions and the token read
/// through the log (`through_log`) is not the file's own.
fn refuse_unless_tokens_agree(
    path: &Path,
    through_log: impl Fn() -> rusqlite::Result<Option<Vec<u8>>>,
) -> Result<(), StoreError> {
    let log = beside(path, "-wal");
    let holds_writes = std::fs::metadata(&log).is_ok_and(|m| m.len() > LOG_HEADER_BYTES);
    if !holds_writes {
        return Ok(());
    }
    for read in 1..=READS {
        match compare(path, &through_log) {
            Tokens::Agree => return Ok(()),
            Tokens::Differ(detail) if read == READS => {
                return Err(StoreError::ForeignLog {
                    path: path.to_path_buf(),
                    log,
                    detail,
                });
            }
            Tokens::Differ(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    Ok(())
}

/// What the two reads of the token say.
enum Tokens {
    /// The same token, or nothing to tell by (a ledger older than the token, a file
    /// that has not yet taken in its first transactions, a file that does not read).
    Agree,
    /// The log was written for another file: how that showed.
    Differ(&'static str),
}

fn compare(path: &Path, through_log: impl Fn() -> rusqlite::Result<Option<Vec<u8>>>) -> Tokens {
    let Some(own) = file_alone_uri(path).and_then(|uri| {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        token(&Connection::open_with_flags(uri, flags).ok()?).ok()?
    }) else {
        // Damage in the file itself is named by the open that follows.
        return Tokens::Agree;
    };
    match through_log() {
        Ok(Some(logged)) if logged == own => Tokens::Agree,
        Ok(Some(_)) => Tokens::Differ("it holds the writes of a ledger with another token"),
        Ok(None) => Tokens::Differ("read through it, the ledger loses its own token"),
        Err(e) if damage(&e) => {
            Tokens::Differ("read through it, the file no longer reads as a ledger")
        }
        // A log that cannot be read here (no -shm and a directory that takes no files,
        // another process recovering it) tells nothing; the open that follows says why.
        Err(_) => Tokens::Agree,
    }
}

/// The ledger's token, `None` when it has none (a ledger older than the token).
fn token(conn: &Connection) -> rusqlite::Result<Option<Vec<u8>>> {
    let has_table: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'ledger_file'",
        [],
        |row| row.get(0),
    )?;
    if !has_table {
        return Ok(None);
    }
    let mut statement = conn.prepare("SELECT token FROM ledger_file WHERE id = 1")?;
    let mut rows = statement.query([])?;
    rows.next()?.map(|row| row.get(0)).transpose()
}

/// Is `e` SQLite finding pages it cannot read as a database?
fn damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}
