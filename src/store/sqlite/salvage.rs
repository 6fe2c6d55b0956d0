//! `backup --salvage`: what can still be read of a damaged ledger, copied table by
//! table into a new one.
//!
//! `VACUUM INTO` (a plain backup) stops at the first page SQLite cannot read, and
//! copies each index as it is. A salvage reads each table's own b-tree, by rowid (by
//! key in a table WITHOUT ROWID), goes around what it cannot read, and lets the new
//! ledger build its indexes afresh: a damaged index loses nothing, a damaged page of
//! a table only the rows on it. Whatever could not be read is named, never guessed.
//!
//! This file holds the salvage as a whole and what it writes into the new ledger
//! besides the rows (the recounted totals, the rows left referring to rows lost);
//! `read_table` reads one damaged table around what cannot be read.

mod read_table;

use rusqlite::Connection;

use super::{Ledger, StoreError};

/// Tables of the new ledger that are not copied: the kept counts, recounted from the
/// rows saved (counts copied from a ledger that lost rows would not match them, and
/// the copy would fail its check), the file's own identity, which is the new
/// ledger's and never another file's, and the trigram index of callbacks' text and
/// its own tables, which the new ledger fills as each saved callback is kept; and what
/// the reconciliation keeps, made again from the rows saved (as the counts are).
const NOT_COPIED: [&str; 10] = [
    "ledger_counts",
    "reconcile_findings",
    "reconcile_counts",
    "reconcile_hours",
    "ledger_file",
    "callback_text",
    "callback_text_data",
    "callback_text_idx",
    "callback_text_docsize",
    "callback_text_config",
];

/// How many rows of one table were saved, and what could not be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSalvage {
    pub table: String,
    pub saved: i64,
    pub lost: Vec<Lost>,
}

/// Rows of a table that were not saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lost {
    /// The rows with rowids `first..=last` (where there were any) could not be read.
    Unreadable { first: i64, last: i64 },
    /// No row after rowid `after` (after none: no row at all) could be read, nor how
    /// many there were.
    Tail { after: Option<i64> },
    /// No row numbered `first..=last` was found, though rows before and after them
    /// were read: the ledger never deletes a row, so a damaged page dropped them
    /// without an error (a leaf whose count of cells was changed reads that way).
    Missing { first: i64, last: i64 },
    /// A row was read whose values the new ledger refused (its rowid or key, and why).
    Refused { row: String, why: String },
    /// In a table WITHOUT ROWID, the rows after key `after` and before key `before`
    /// (none: from the first, to the last) could not be read.
    Between {
        after: Option<String>,
        before: Option<String>,
    },
}

/// What a salvage saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Salvage {
    /// Each table copied, in the order copied.
    pub tables: Vec<TableSalvage>,
    /// A kept total of the ledger the rows saved fall short of (or exceed): callbacks
    /// or jobs, as (what, counted by the ledger, saved).
    pub counted: Vec<(String, i64, i64)>,
    /// Rows saved that refer to a row that was not, by table (the foreign keys
    /// `check` reports on the copy).
    pub dangling: Vec<(String, i64)>,
}

impl Salvage {
    /// Was every row of the ledger read and saved?
    pub fn complete(&self) -> bool {
        self.tables.iter().all(|t| t.lost.is_empty())
            && self
                .counted
                .iter()
                .all(|(_, counted, saved)| counted == saved)
    }
}

impl Ledger {
    /// Copies what can be read of this ledger into `into`, a new ledger (its schema
    /// made by its migrations, empty), table by table, one transaction each, and
    /// recounts the kept counts from the rows saved. Reads one snapshot of this
    /// ledger, and never writes to it. `before` is called with each table's name.
    pub fn salvage_into(
        &self,
        into: &Ledger,
        mut before: impl FnMut(&str),
    ) -> Result<Salvage, StoreError> {
        let snapshot = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let to = |e| into.err(e);
        // Rows are copied table by table, a row's parent perhaps after it or lost.
        into.conn
            .execute_batch("PRAGMA foreign_keys = OFF")
            .map_err(to)?;
        let copied = (|| {
            let mut tables = Vec::new();
            for table in copied_tables(&into.conn).map_err(to)? {
                before(&table);
                tables.push(self.salvage_table(into, &table)?);
            }
            Ok::<_, StoreError>(tables)
        })();
        into.conn
            .execute_batch("PRAGMA foreign_keys = ON")
            .map_err(to)?;
        let tables = copied?;
        // The text index is not copied: the new ledger indexes the callbacks saved.
        super::callbacks::index_callbacks_from(&into.conn, Some(0)).map_err(to)?;
        recount(&into.conn).map_err(to)?;
        let counted = self.compare_totals(&into.conn).map_err(to)?;
        let dangling = dangling(&into.conn).map_err(to)?;
        into.conn
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .map_err(to)?;
        drop(snapshot);
        Ok(Salvage {
            tables,
            counted,
            dangling,
        })
    }

    /// The ledger's kept totals of callbacks and jobs beside the rows saved, where
    /// they differ (a page that dropped rows without an error shows here). Counts
    /// the ledger cannot read are no comparison.
    fn compare_totals(&self, into: &Connection) -> rusqlite::Result<Vec<(String, i64, i64)>> {
        let Ok(kept) = super::counts::kept_counts(&self.conn) else {
            return Ok(Vec::new());
        };
        let saved = super::counts::kept_counts(into)?;
        let total = |counts: &std::collections::BTreeMap<String, i64>, prefix: &str| {
            counts
                .iter()
                .filter(|(name, _)| name.starts_with(prefix))
                .map(|(_, n)| n)
                .sum::<i64>()
        };
        Ok(["callbacks", "jobs"]
            .into_iter()
            .map(|what| {
                let prefix = format!("{what}.");
                (
                    what.to_owned(),
                    total(&kept, &prefix),
                    total(&saved, &prefix),
                )
            })
            .filter(|(_, kept, saved)| kept != saved)
            .collect())
    }
}

/// The tables of the new ledger that take rows from the old one, by name.
fn copied_tables(into: &Connection) -> rusqlite::Result<Vec<String>> {
    let tables: Vec<String> = into
        .prepare(
            "SELECT name FROM sqlite_schema
              WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )?
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(tables
        .into_iter()
        .filter(|t| !NOT_COPIED.contains(&t.as_str()))
        .collect())
}

/// The kept counts, recounted from the rows saved, every count's row kept (a count
/// with no rows is 0), and what the reconciliation keeps made again from them, in one
/// transaction.
fn recount(into: &Connection) -> rusqlite::Result<()> {
    // `WHERE true` tells SQLite's parser that ON CONFLICT is the upsert's, not a join's.
    into.execute_batch(&format!(
        "BEGIN IMMEDIATE;
         UPDATE ledger_counts SET n = 0;
         INSERT INTO ledger_counts (name, n)
             SELECT name, n FROM ({}) WHERE true
             ON CONFLICT (name) DO UPDATE SET n = excluded.n;
         {}
         COMMIT;",
        super::counts::RECOUNT,
        super::reconcile_kept::REBUILD
    ))
}

/// Rows saved that refer to a row not saved, counted by table.
fn dangling(into: &Connection) -> rusqlite::Result<Vec<(String, i64)>> {
    into.prepare("SELECT \"table\", count(*) FROM pragma_foreign_key_check GROUP BY 1 ORDER BY 1")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect()
}
