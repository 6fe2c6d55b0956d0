//! A ledger's tables read and written row by row, for a copy into or out of another
//! engine's ledger (`jobledger copy`).

use rusqlite::types::{Value, ValueRef};

use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::store::{Cell, Table};

impl Ledger {
    /// Calls `f` with every row of `table`, in the order of its key; `f`'s error stops
    /// the walk.
    pub fn for_each_row(
        &self,
        table: &Table,
        mut f: impl FnMut(Vec<Cell>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let sql = format!(
            "SELECT {} FROM {} ORDER BY {}",
            table.column_list(),
            table.name,
            table.order
        );
        let mut statement = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows = statement.query([]).map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let mut cells = Vec::with_capacity(table.columns.len());
            for i in 0..table.columns.len() {
                cells.push(match row.get_ref(i).map_err(|e| self.err(e))? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(n) => Cell::Int(n),
                    ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
                    // The ledger has no REAL columns (its tables are STRICT).
                    ValueRef::Real(r) => Cell::Text(r.to_string()),
                });
            }
            f(cells)?;
        }
        Ok(())
    }

    /// How many rows `table` holds.
    pub fn row_count(&self, table: &Table) -> Result<i64, StoreError> {
        self.run(|c| {
            c.query_row(&format!("SELECT count(*) FROM {}", table.name), [], |r| {
                r.get(0)
            })
        })
    }
}

impl Writer<'_> {
    /// Writes `rows` of `table` as they are, ids included; a row of kept state (a
    /// count, a note) replaces the fresh ledger's own.
    pub fn insert_rows(&mut self, table: &Table, rows: &[Vec<Cell>]) -> Result<(), StoreError> {
        let marks: Vec<String> = (1..=table.columns.len()).map(|i| format!("?{i}")).collect();
        let mut sql = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            table.name,
            table.column_list(),
            marks.join(", ")
        );
        sql.push_str(&table.on_conflict());
        self.flushed()?;
        self.note_copied(table, rows);
        self.run(|c| {
            let mut statement = c.prepare_cached(&sql)?;
            for row in rows {
                let values = row.iter().map(|cell| match cell {
                    Cell::Null => Value::Null,
                    Cell::Int(n) => Value::Integer(*n),
                    Cell::Text(t) => Value::Text(t.clone()),
                    Cell::Blob(b) => Value::Blob(b.clone()),
                });
                statement.execute(rusqlite::params_from_iter(values))?;
            }
            Ok(())
        })
    }
}

impl Writer<'_> {
    /// Notes the jobs copied rows decide the reconciliation of, as ingest would: a job
    /// counted in its hour by state, and each judged at commit.
    fn note_copied(&mut self, table: &Table, rows: &[Vec<Cell>]) {
        let column = |name: &str| table.columns.iter().position(|(c, _)| *c == name);
        let text = |row: &[Cell], at: Option<usize>| match at.and_then(|i| row.get(i)) {
            Some(Cell::Text(t)) => Some(t.clone()),
            _ => None,
        };
        let Some(job_id) = column("job_id") else {
            return;
        };
        match table.name {
            "jobs" => {
                let (state, accepted_at) = (column("state"), column("accepted_at"));
                for row in rows {
                    let found = (
                        text(row, Some(job_id)),
                        text(row, state).and_then(|s| JobState::parse(&s)),
                        text(row, accepted_at).and_then(|t| Timestamp::from_ledger_text(&t)),
                    );
                    if let (Some(id), Some(state), Some(at)) = found {
                        self.reconcile.copied(&id, at, state);
                    }
                }
            }
            "notifications"
            | "outputs"
            | "output_checks"
            | "decisions"
            | "repeated_submissions" => {
                for row in rows {
                    if let Some(id) = text(row, Some(job_id)) {
                        self.reconcile.touched(&id);
                    }
                }
            }
            _ => {}
        }
    }
}
