//! Opening a ledger file: refusal of foreign or newer files, pragmas, migrations.

use std::path::Path;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use super::file;
use super::identity::FileIdentity;
use super::log_owner;
use super::{APPLICATION_ID, Ledger, OpenMode, StoreError, classify};

/// The migrations, in order. Append only: never edit or reorder one that has shipped.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_ledger.sql"),
    include_str!("migrations/002_ledger_notes.sql"),
    include_str!("migrations/003_counts_and_list_indexes.sql"),
    include_str!("migrations/004_review_list_index.sql"),
    include_str!("migrations/005_line_identity_in_time_order.sql"),
    include_str!("migrations/006_replacement_on_the_callback.sql"),
    include_str!("migrations/007_withdrawals_and_saved_views.sql"),
    include_str!("migrations/008_oversized_lines.sql"),
    include_str!("migrations/009_decisions_route_and_submissions.sql"),
    include_str!("migrations/010_ledger_file.sql"),
    include_str!("migrations/011_owner_cleared.sql"),
    include_str!("migrations/012_saved_view_deletions.sql"),
    include_str!("migrations/013_written_by.sql"),
    include_str!("migrations/014_claims.sql"),
    include_str!("migrations/015_looks.sql"),
    include_str!("migrations/016_callback_text_index.sql"),
    include_str!("migrations/017_review_by_outcome.sql"),
    include_str!("migrations/018_late_callbacks_by_gap.sql"),
    include_str!("migrations/019_reconciliation_kept.sql"),
];

/// The page size of a new ledger file, in bytes.
pub const PAGE_SIZE: i64 = 8192;

/// The schema version this binary writes.
#[allow(clippy::cast_possible_wrap)] // a handful of migrations
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

pub(super) fn open(
    path: &Path,
    mode: OpenMode,
    busy_timeout: Duration,
) -> Result<Ledger, StoreError> {
    open_as(path, mode, busy_timeout, false)
}

/// Opens an existing ledger read-only to save what can be read of it, a file cut short
/// included: SQLite refuses every read of a file shorter than its header says
/// (`writable_schema` lifts that check, and reads the pages that are there; on a
/// connection that cannot write, it lets nothing be written).
pub(super) fn open_to_salvage(path: &Path) -> Result<Ledger, StoreError> {
    open_as(path, OpenMode::ReadOnly, BUSY_TIMEOUT, true)
}

fn open_as(
    path: &Path,
    mode: OpenMode,
    busy_timeout: Duration,
    cut_short: bool,
) -> Result<Ledger, StoreError> {
    if let Some(why) = not_a_file_name(path) {
        return Err(StoreError::NotAFileName {
            path: path.to_path_buf(),
            why,
        });
    }
    file::refuse_unopenable(path)?;
    let exists = path.exists();
    let immutable = match mode {
        OpenMode::ReadOnly => file::immutable_uri(path),
        OpenMode::ReadWrite => None,
    };
    // A read-only connection reading through the log asks the log's token itself,
    // once open; any other is opened only once the log is known to be the file's.
    let log_read_by_ledger = exists && mode == OpenMode::ReadOnly && immutable.is_none();
    if exists && !log_read_by_ledger {
        log_owner::refuse_foreign_log(path)?;
    }
    if exists && mode == OpenMode::ReadWrite {
        file::refuse_unwritable_directory(path)?;
    }
    if !exists && mode == OpenMode::ReadOnly {
        return Err(StoreError::Missing {
            ledger: path.into(),
        });
    }
    if !exists {
        create_private(path)?;
    }
    let flags = match mode {
        OpenMode::ReadWrite => OpenFlags::SQLITE_OPEN_READ_WRITE,
        OpenMode::ReadOnly => OpenFlags::SQLITE_OPEN_READ_ONLY,
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = match &immutable {
        Some(uri) => Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI),
        None => Connection::open_with_flags(path, flags),
    }
    .map_err(|e| classify(path, e))?;
    if cut_short {
        conn.execute_batch("PRAGMA writable_schema = ON")
            .map_err(|e| classify(path, e))?;
    }
    let opened = FileIdentity::opened(path)?;
    let turns = super::waiting_writers::Turns::new(path);
    let waiting = turns.clone();
    conn.busy_handler(Some(move |tries| {
        waiting.refused();
        wait_for_writer(tries, busy_timeout)
    }))
    .map_err(|e| classify(path, e))?;
    super::filter::register_functions(&conn).map_err(|e| classify(path, e))?;
    // The plan of a statement never depends on the values bound to it. Otherwise
    // SQLite marks a statement whose `col = ?` it estimated by the value bound, and
    // the statement cache's clearing of bindings after each use then has it prepared
    // again at its next use: most statements were compiled anew every time (perf:
    // `sqlite3Reprepare` under a page's per-row reads). Each list states its partial
    // indexes' conditions in its own SQL, so no plan needs a bound value.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map_err(|e| classify(path, e))?;
    let identity = check_identity(&conn, path);
    if log_read_by_ledger {
        // Before what the identity check found: a foreign log can make the file read
        // as damaged, and it is the log that is to be named.
        log_owner::refuse_foreign_log_read_by(path, &conn)?;
    }
    identity?;
    if mode == OpenMode::ReadWrite {
        // The page size counts only for a new file (before WAL mode fixes it): 8 KiB
        // pages made a million-line ingest 13% faster than SQLite's 4 KiB (fewer levels
        // and page splits), and the lists and reports no slower (BENCHMARKS.md).
        conn.execute_batch(&format!(
            "PRAGMA page_size = {PAGE_SIZE}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY;",
        ))
        .map_err(|e| classify(path, e))?;
        migrate(&conn, path)?;
    } else {
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA query_only = ON;")
            .map_err(|e| classify(path, e))?;
        let version = user_version(&conn, path)?;
        if version < SCHEMA_VERSION {
            return Err(StoreError::ReadOnly {
                ledger: path.into(),
                detail: format!(
                    "its schema (version {version}) needs an upgrade to {SCHEMA_VERSION}, which a read-only open cannot do; open it once without --read-only"
                ),
            });
        }
    }
    conn.set_prepared_statement_cache_capacity(64);
    file::keep_sidecars_private(path);
    Ok(Ledger {
        conn,
        path: path.to_path_buf(),
        opened,
        turns,
        log_left_empty: std::cell::Cell::new(false),
        chosen: Box::default(),
    })
}

/// Why `path` names no file SQLite would keep, if it does not: SQLite takes `:memory:`
/// and an empty name for databases that vanish when the command ends (a run reported
/// "5,086 lines" and kept none), and `file:` names for URIs with options of their own.
/// The ledger is the file at its path, nothing else.
fn not_a_file_name(path: &Path) -> Option<&'static str> {
    let name = path.to_str()?;
    if name.is_empty() {
        Some("SQLite would keep the ledger in a temporary file and lose it when the command ends")
    } else if name == ":memory:" {
        Some("SQLite would keep the ledger in memory and lose everything when the command ends")
    } else if name.starts_with("file:") {
        Some("it reads as a SQLite URI, whose options could open something other than the file")
    } else {
        None
    }
}

/// The schema version of an existing ledger that the next read-write open will
/// upgrade, or `None` (no file, not a ledger, or nothing to do). Reads only.
pub(super) fn upgrade_pending(path: &Path) -> Option<i64> {
    // Not on a named pipe, where SQLite's open would wait for ever, nor a device.
    file::refuse_unopenable(path).ok()?;
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    let app_id: i32 = conn
        .query_row("PRAGMA application_id", [], |row| row.get(0))
        .ok()?;
    let version = user_version(&conn, path).ok()?;
    (app_id == APPLICATION_ID && (1..SCHEMA_VERSION).contains(&version)).then_some(version)
}

/// How long a writer waits for another one before giving up ([`StoreError::Busy`]).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How often a waiting writer tries again. SQLite's own busy timeout backs off to
/// 100 ms between tries, so an answer almost never caught the moment between two
/// batches of a long ingest and starved; ingest pauses longer than this between
/// batches ([`crate::ingest::BATCH_PAUSE`]).
const BUSY_RETRY: Duration = Duration::from_millis(2);

/// The busy handler: sleep and try again, until `timeout` ([`BUSY_TIMEOUT`] but in
/// tests) has passed.
fn wait_for_writer(tries: i32, timeout: Duration) -> bool {
    let waited = BUSY_RETRY.saturating_mul(u32::try_from(tries).unwrap_or(0));
    if waited >= timeout {
        return false;
    }
    std::thread::sleep(BUSY_RETRY);
    true
}

/// Creates an empty file readable by its owner only: a ledger holds other people's payloads.
fn create_private(path: &Path) -> Result<(), StoreError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::ReadOnly {
            ledger: path.into(),
            detail: format!("cannot create the file: {e}"),
        }),
    }
}

fn user_version(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| classify(path, e))
}

/// Refuses, before anything is written, a file that is not ours or is newer than us.
fn check_identity(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let app_id: i32 = conn
        .query_row("PRAGMA application_id", [], |row| row.get(0))
        .map_err(|e| classify(path, e))?;
    let objects: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
        .map_err(|e| classify(path, e))?;
    if app_id != APPLICATION_ID && (app_id != 0 || objects > 0) {
        return Err(StoreError::NotALedger {
            ledger: path.into(),
        });
    }
    let found = user_version(conn, path)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            ledger: path.into(),
            found,
            known: SCHEMA_VERSION,
        });
    }
    // Marked as a ledger of some version, yet without the tables every version has:
    // a file cut short, or emptied by hand. Migrations would start from the mark.
    let core: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('input_lines', 'jobs', 'callbacks')",
            [],
            |row| row.get(0),
        )
        .map_err(|e| classify(path, e))?;
    if found > 0 && core < 3 {
        return Err(StoreError::Incomplete {
            ledger: path.into(),
            version: found,
        });
    }
    Ok(())
}

/// Applies every migration newer than the file, each in its own immediate transaction.
fn migrate(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    // Most opens find the file current: no need to wait for a writer's lock to learn it.
    if user_version(conn, path)? == SCHEMA_VERSION {
        return Ok(());
    }
    // A migration may rebuild a table others refer to (005): with foreign keys on,
    // dropping the old table would count every reference to it as broken. Each
    // rebuild copies every key, and the pragma cannot change inside a transaction.
    conn.execute_batch("PRAGMA foreign_keys = OFF")
        .map_err(|e| classify(path, e))?;
    let result = migrate_each(conn, path);
    conn.execute_batch("PRAGMA foreign_keys = ON")
        .map_err(|e| classify(path, e))?;
    result
}

/// A migration that rebuilds a table (copy, drop, rename) runs with foreign keys off,
/// so nothing stops it from leaving a reference to a row it did not copy: SQLite's
/// recipe for such a change asks for `foreign_key_check` before the commit. Anything it
/// finds fails the migration, which is rolled back and leaves the file as it was.
fn refuse_broken_references(
    conn: &Connection,
    path: &Path,
    version: i64,
) -> Result<(), StoreError> {
    let broken: Vec<(String, String)> = conn
        .prepare("PRAGMA foreign_key_check")
        .and_then(|mut st| {
            st.query_map([], |row| Ok((row.get(0)?, row.get(2)?)))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(|e| classify(path, e))?;
    let Some((table, parent)) = broken.first() else {
        return Ok(());
    };
    Err(StoreError::Damaged {
        ledger: path.into(),
        detail: format!(
            "the upgrade to schema {version} would leave {} row(s) referring to missing rows (the first: {table} to {parent}); the upgrade was undone",
            broken.len()
        ),
    })
}

fn migrate_each(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    loop {
        conn.execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| classify(path, e))?;
        let result = (|| {
            let version = user_version(conn, path)?;
            let Some(sql) = usize::try_from(version)
                .ok()
                .and_then(|v| MIGRATIONS.get(v))
            else {
                return Ok(false);
            };
            conn.execute_batch(sql).map_err(|e| classify(path, e))?;
            if sql.contains("DROP TABLE") {
                refuse_broken_references(conn, path, version + 1)?;
            }
            conn.execute_batch(&format!(
                "PRAGMA user_version = {}; PRAGMA application_id = {APPLICATION_ID};",
                version + 1
            ))
            .map_err(|e| classify(path, e))?;
            Ok(true)
        })();
        match result {
            Ok(more) => {
                conn.execute_batch("COMMIT")
                    .map_err(|e| classify(path, e))?;
                if !more {
                    return Ok(());
                }
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::{StatementStatus, params};

    use crate::store::sqlite::Ledger;

    /// A cached statement used again with other values runs as compiled: an equality
    /// on a bound value (which SQLite would estimate by the value) and a partial
    /// index's condition beside one.
    #[test]
    fn a_cached_statement_used_again_is_not_compiled_again() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        let sql = "SELECT count(*) FROM callbacks
                    WHERE job_id = ?1 AND attempt = ?2 AND disposition = ?3
                      AND (disposition = 'hold' OR disposition = 'quarantine')";
        for (job, attempt, disposition) in
            [("a", 1, "hold"), ("b", 0, "quarantine"), ("c", 2, "hold")]
        {
            let n: i64 = ledger
                .conn
                .prepare_cached(sql)
                .unwrap()
                .query_row(params![job, attempt, disposition], |row| row.get(0))
                .unwrap();
            assert_eq!(n, 0);
        }
        let statement = ledger.conn.prepare_cached(sql).unwrap();
        assert_eq!(statement.get_status(StatementStatus::RePrepare), 0);
    }
}
