//! Ledgers on temporary files, the demo's streams line by line, and a plain-SQL view of
//! a ledger file, shared by the integration tests through `#[path]`.
//!
//! The plain-SQL view reads the file the way a person would with their own tools: it
//! compares whole ledgers without trusting the crate's own reads.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jobledger::clock::Timestamp;
use jobledger::decision::Disposition;
use jobledger::ingest::{IngestReport, ingest};
use jobledger::store::{CallbackFilter, CallbackRow, Ledger, PageRequest};
use rusqlite::types::Value;
use tempfile::TempDir;

/// The demo's clock, late on the afternoon of the worked example.
pub const NOW: &str = "2026-11-27T17:00:00Z";

/// A time from RFC 3339 text written in a test.
pub fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).unwrap_or_else(|| panic!("test time {text:?} is not RFC 3339"))
}

/// The demo's clock.
pub fn now() -> Timestamp {
    at(NOW)
}

/// The worked example, read from its asset file (the crate embeds the same text).
pub fn booking_afternoon() -> String {
    asset("booking_afternoon.ndjson")
}

/// Ingests the booking afternoon into `ledger` at the demo's clock.
pub fn ingest_afternoon(ledger: &mut Ledger) -> IngestReport {
    ingest(ledger, booking_afternoon().as_bytes(), now(), |_| {}).expect("ingest runs")
}

/// The rest of the demo queue, read from its asset file.
pub fn demo_queue() -> String {
    asset("demo_queue.ndjson")
}

fn asset(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The one line of `stream` that holds `needle` (a delivery id, say).
pub fn line_with<'a>(stream: &'a str, needle: &str) -> &'a str {
    let mut found = stream.lines().filter(|line| line.contains(needle));
    let line = found
        .next()
        .unwrap_or_else(|| panic!("no line holds {needle:?}"));
    assert!(
        found.next().is_none(),
        "more than one line holds {needle:?}"
    );
    line
}

/// A ledger in its own temporary directory (dropped with it).
pub struct TempLedger {
    pub dir: TempDir,
    pub path: PathBuf,
    pub ledger: Ledger,
}

impl TempLedger {
    /// A new, empty ledger file.
    pub fn new() -> TempLedger {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("ledger.db");
        let ledger = Ledger::open(&path).expect("a new ledger opens");
        TempLedger { dir, path, ledger }
    }

    /// A new ledger holding the worked example and the demo queue (no owners set).
    pub fn with_demo_streams() -> TempLedger {
        let mut t = TempLedger::new();
        t.ingest(&booking_afternoon());
        t.ingest(&demo_queue());
        t
    }

    /// Ingests `text` at the demo's clock.
    pub fn ingest(&mut self, text: &str) -> IngestReport {
        self.ingest_bytes(text.as_bytes())
    }

    /// Ingests raw bytes at the demo's clock.
    /// Ingests `bytes` as the whole stream (`ingest --complete`): a last line with no
    /// end is kept as it is.
    pub fn ingest_complete(&mut self, bytes: &[u8]) -> IngestReport {
        let batching = jobledger::ingest::Batching {
            complete: true,
            ..jobledger::ingest::Batching::default()
        };
        let report =
            jobledger::ingest::ingest_in_batches(&mut self.ledger, bytes, now(), batching, |_| {})
                .expect("ingest runs");
        assert!(
            report.adds_up(),
            "ingest report does not add up: {report:?}"
        );
        report
    }

    pub fn ingest_bytes(&mut self, bytes: &[u8]) -> IngestReport {
        let report = ingest(&mut self.ledger, bytes, now(), |_| {}).expect("ingest runs");
        assert!(
            report.adds_up(),
            "ingest report does not add up: {report:?}"
        );
        report
    }

    /// Every callback, in ingest order (optionally of one disposition).
    pub fn callbacks(&self, disposition: Option<Disposition>) -> Vec<CallbackRow> {
        let filter = CallbackFilter {
            disposition,
            ..CallbackFilter::default()
        };
        self.ledger
            .callbacks_page(&filter, PageRequest::first(100_000))
            .expect("callbacks read")
    }

    /// The first callback with this delivery id (a redelivery keeps the id).
    pub fn by_delivery(&self, delivery_id: &str) -> CallbackRow {
        self.callbacks(None)
            .into_iter()
            .find(|c| c.delivery_id.as_deref() == Some(delivery_id))
            .unwrap_or_else(|| panic!("no callback with delivery id {delivery_id:?}"))
    }

    /// The whole file as plain rows (see [`dump`]).
    pub fn dump(&self) -> BTreeMap<String, Vec<String>> {
        dump(&self.path)
    }
}

/// Every table of a ledger file, each row rendered as text, rows in a fixed order.
/// Two ledgers with equal dumps hold the same evidence, decisions and state.
/// `ledger_file` is left out: it names the file (a random token of its own, and a
/// count of the transactions that wrote it), not what the ledger holds. So is the
/// trigram index of callbacks' text but for its sizes of each callback's columns
/// (`callback_text_docsize`): its segments' bytes depend on how it was built (at
/// once by a migration, or a callback at a time), not on what it finds.
pub fn dump(path: &Path) -> BTreeMap<String, Vec<String>> {
    let conn = rusqlite::Connection::open(path).expect("the ledger opens in plain SQLite");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'ledger_file' AND name NOT IN ('callback_text', 'callback_text_data', 'callback_text_idx', 'callback_text_config') ORDER BY name")
        .and_then(|mut st| st.query_map([], |row| row.get(0))?.collect())
        .expect("tables listed");
    assert!(tables.len() >= 10, "a ledger has its tables: {tables:?}");
    tables
        .into_iter()
        .map(|table| {
            let columns = conn
                .prepare(&format!("SELECT * FROM \"{table}\""))
                .expect("table readable")
                .column_count();
            let order: Vec<String> = (1..=columns).map(|i| i.to_string()).collect();
            let mut st = conn
                .prepare(&format!(
                    "SELECT * FROM \"{table}\" ORDER BY {}",
                    order.join(", ")
                ))
                .expect("table readable");
            let rows = st
                .query_map([], |row| {
                    (0..columns)
                        .map(|i| row.get::<_, Value>(i))
                        .collect::<rusqlite::Result<Vec<Value>>>()
                        .map(|values| format!("{values:?}"))
                })
                .and_then(Iterator::collect)
                .expect("rows read");
            (table, rows)
        })
        .collect()
}

/// Folds the ledger's write-ahead log into its file (and empties the log), through a
/// connection closed at once: the file's bytes then hold everything written.
pub fn fold_log(path: &Path) {
    rusqlite::Connection::open(path)
        .expect("open the ledger")
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .expect("checkpoint");
}

/// Rows per table.
pub fn table_counts(path: &Path) -> BTreeMap<String, usize> {
    dump(path)
        .into_iter()
        .map(|(table, rows)| (table, rows.len()))
        .collect()
}

/// Runs one query on the ledger file and returns the first column of the first row.
pub fn query_i64(path: &Path, sql: &str, params: impl rusqlite::Params) -> i64 {
    rusqlite::Connection::open(path)
        .and_then(|conn| conn.query_row(sql, params, |row| row.get(0)))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The transitions taken on a job (`from -> to: cause`), oldest first, read with plain SQL.
pub fn applied_history(path: &Path, job_id: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).expect("the ledger opens in plain SQLite");
    conn.prepare(
        "SELECT coalesce(from_state, '-') || ' -> ' || to_state || ': ' || cause
         FROM job_history WHERE job_id = ?1 AND applied = 1 ORDER BY id",
    )
    .and_then(|mut st| st.query_map([job_id], |row| row.get(0))?.collect())
    .expect("job history read")
}

/// The generated stream of `jobs` jobs that `jobledger --now NOW demo --jobs N`
/// builds its ledger from (seed 1): each job's events together, callbacks at most
/// minutes late. (`demo --stream-only` writes the streams of `write_ordered`.)
pub fn synthetic_stream(jobs: u32) -> Vec<u8> {
    let jobs = u64::from(jobs);
    let mut out = Vec::new();
    jobledger::demo::synthetic::write_stream(
        &mut out,
        jobs,
        1,
        jobledger::demo::synthetic_start(jobs, now()),
    )
    .expect("writing to memory cannot fail");
    out
}

/// Fails unless the ledger file passes `PRAGMA integrity_check` and every foreign key
/// holds.
pub fn assert_sound(path: &Path) {
    let conn = checked(path, "integrity_check");
    let broken: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| {
            row.get(0)
        })
        .expect("foreign_key_check runs");
    assert_eq!(broken, 0, "foreign keys hold in {}", path.display());
}

/// The ledger file in plain SQLite, after `PRAGMA check` (`integrity_check` or
/// `quick_check`) said "ok".
fn checked(path: &Path, check: &str) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).expect("the ledger opens in plain SQLite");
    let said: String = conn
        .query_row(&format!("PRAGMA {check}"), [], |row| row.get(0))
        .unwrap_or_else(|e| panic!("{check}: {e}"));
    assert_eq!(said, "ok", "{check} of {}", path.display());
    conn
}

/// How many lines the ledger keeps, after checking that they are the first lines of
/// `order` (the stream's distinct non-blank lines) and that no callback lies beyond
/// them: what a kill or a full disk leaves is a prefix, whole batches only. 0 while
/// the file holds no ledger yet. Checks the file with `quick_check` on the way.
pub fn kept_prefix(path: &Path, order: &[&[u8]]) -> i64 {
    if !path.exists() {
        return 0;
    }
    let conn = checked(path, "quick_check");
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'input_lines'",
            [],
            |row| row.get(0),
        )
        .expect("the schema reads");
    if tables == 0 {
        return 0;
    }
    let (count, last): (i64, Option<i64>) = conn
        .query_row("SELECT count(*), max(seq) FROM input_lines", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .expect("the lines count");
    let Some(last) = last else {
        return 0;
    };
    assert_eq!(last, count, "line numbers have a gap");
    let raw: Vec<u8> = conn
        .query_row(
            "SELECT raw FROM input_lines WHERE seq = ?1",
            [last],
            |row| row.get(0),
        )
        .expect("the last line reads");
    let expected = usize::try_from(count - 1)
        .ok()
        .and_then(|i| order.get(i))
        .unwrap_or_else(|| panic!("{count} lines kept, more than the stream's {}", order.len()));
    assert!(
        raw == *expected,
        "the ledger's last line is not line {count} of the stream"
    );
    let beyond: i64 = conn
        .query_row(
            "SELECT count(*) FROM callbacks WHERE line_seq > ?1",
            [last],
            |row| row.get(0),
        )
        .expect("callbacks count");
    assert_eq!(beyond, 0, "callbacks without their line");
    count
}
