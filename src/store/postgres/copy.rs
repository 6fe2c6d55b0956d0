//! A ledger's tables read and written row by row, for a copy into or out of another
//! engine's ledger (`jobledger copy`). Rows are read as they stream from the server
//! and written many to a statement.

use std::fmt::Write as _;

use postgres::fallible_iterator::FallibleIterator as _;
use postgres::types::{ToSql, Type};

use super::text_index::CallbackText;
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::store::{Cell, Kind, Table};

/// At most this many parameters in one statement (the protocol's limit is 65,535).
const PARAMETERS_PER_STATEMENT: usize = 30_000;

impl Ledger {
    /// Calls `f` with every row of `table`, in the order of its key, as the rows
    /// arrive; `f`'s error stops the walk.
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
        let mut client = self.client();
        let mut rows = client
            .query_raw(sql.as_str(), std::iter::empty::<i64>())
            .map_err(|e| classify_here(&self.location, e))?;
        while let Some(row) = rows.next().map_err(|e| classify_here(&self.location, e))? {
            let mut cells = Vec::with_capacity(table.columns.len());
            for (i, column) in row.columns().iter().enumerate() {
                let ty = column.type_();
                let read = if *ty == Type::INT2 {
                    row.try_get::<_, Option<i16>>(i)
                        .map(|v| v.map_or(Cell::Null, |n| Cell::Int(i64::from(n))))
                } else if *ty == Type::INT4 {
                    row.try_get::<_, Option<i32>>(i)
                        .map(|v| v.map_or(Cell::Null, |n| Cell::Int(i64::from(n))))
                } else if *ty == Type::INT8 {
                    row.try_get::<_, Option<i64>>(i)
                        .map(|v| v.map_or(Cell::Null, Cell::Int))
                } else if *ty == Type::BYTEA {
                    row.try_get::<_, Option<Vec<u8>>>(i)
                        .map(|v| v.map_or(Cell::Null, Cell::Blob))
                } else {
                    row.try_get::<_, Option<String>>(i)
                        .map(|v| v.map_or(Cell::Null, Cell::Text))
                };
                cells.push(read.map_err(|e| classify_here(&self.location, e))?);
            }
            f(cells)?;
        }
        Ok(())
    }

    /// How many rows `table` holds.
    pub fn row_count(&self, table: &Table) -> Result<i64, StoreError> {
        let sql = format!("SELECT count(*) FROM {}", table.name);
        let rows = self.rows_of(&sql, &[])?;
        Ok(rows.first().map_or(0, |row| row.get(0)))
    }
}

fn classify_here(location: &crate::store::Location, e: postgres::Error) -> StoreError {
    super::classify(location, e)
}

/// The searchable text of callbacks copied as `rows` of `table` (the callbacks').
fn callback_texts<'a>(table: &Table, rows: &'a [Vec<Cell>]) -> Vec<CallbackText<'a>> {
    let at = |name: &str| table.columns.iter().position(|(column, _)| *column == name);
    let (seq, job, delivery, reason, by) = (
        at("seq"),
        at("job_id"),
        at("delivery_id"),
        at("reason"),
        at("replacement_created_by"),
    );
    let text = |row: &'a [Cell], i: Option<usize>| match i.and_then(|i| row.get(i)) {
        Some(Cell::Text(t)) => Some(t.as_str()),
        _ => None,
    };
    rows.iter()
        .filter_map(|row| {
            let Some(Cell::Int(seq)) = seq.and_then(|i| row.get(i)) else {
                return None;
            };
            Some(CallbackText {
                seq: *seq,
                job: text(row, job),
                delivery: text(row, delivery),
                reason: text(row, reason),
                by: text(row, by),
            })
        })
        .collect()
}

impl Writer<'_> {
    /// Writes `rows` of `table` as they are, ids included, many rows to a statement;
    /// a row of kept state (a count, a note) replaces the fresh ledger's own. Callbacks
    /// are put in the trigram index of their text as they are written.
    pub fn insert_rows(&mut self, table: &Table, rows: &[Vec<Cell>]) -> Result<(), StoreError> {
        // The jobs these rows decide the reconciliation of are judged at commit, as an
        // ingest's are.
        if let (
            "jobs"
            | "notifications"
            | "outputs"
            | "output_checks"
            | "decisions"
            | "repeated_submissions",
            Some(column),
        ) = (
            table.name,
            table.columns.iter().position(|(c, _)| *c == "job_id"),
        ) {
            for row in rows {
                if let Some(Cell::Text(job_id)) = row.get(column) {
                    self.touch(job_id);
                }
            }
        }
        if table.name == "jobs" {
            self.count_copied_jobs(table, rows);
        }
        let width = table.columns.len();
        let per_statement = (PARAMETERS_PER_STATEMENT / width).max(1);
        for chunk in rows.chunks(per_statement) {
            let mut sql = format!(
                "INSERT INTO {} ({}) VALUES ",
                table.name,
                table.column_list()
            );
            let mut params: Vec<Box<dyn ToSql + Sync>> = Vec::with_capacity(chunk.len() * width);
            for (r, row) in chunk.iter().enumerate() {
                sql.push_str(if r == 0 { "(" } else { ", (" });
                for (c, (cell, (_, kind))) in row.iter().zip(table.columns).enumerate() {
                    let n = params.len() + 1;
                    let cast = match kind {
                        Kind::Int => "bigint",
                        Kind::Text => "text",
                        Kind::Blob => "bytea",
                    };
                    let comma = if c == 0 { "" } else { ", " };
                    let _ = write!(sql, "{comma}${n}::{cast}");
                    params.push(match (kind, cell) {
                        (Kind::Int, Cell::Int(v)) => Box::new(Some(*v)),
                        (Kind::Int, _) => Box::new(None::<i64>),
                        (Kind::Text, Cell::Text(t)) => Box::new(Some(t.clone())),
                        (Kind::Text, _) => Box::new(None::<String>),
                        (Kind::Blob, Cell::Blob(b)) => Box::new(Some(b.clone())),
                        (Kind::Blob, _) => Box::new(None::<Vec<u8>>),
                    });
                }
                sql.push(')');
            }
            sql.push_str(&table.on_conflict());
            let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(AsRef::as_ref).collect();
            self.tx()?
                .execute(sql.as_str(), &refs)
                .map_err(|e| self.err(e))?;
            if table.name == "callbacks" {
                self.index_callback_texts(&callback_texts(table, chunk))?;
            }
        }
        Ok(())
    }

    /// Counts each copied job in the hour it was accepted in, by its state (a row
    /// whose time or state is not the ledger's is left to `check` to name).
    fn count_copied_jobs(&mut self, table: &Table, rows: &[Vec<Cell>]) {
        let at = |name: &str| table.columns.iter().position(|(c, _)| *c == name);
        let (Some(accepted_at), Some(state)) = (at("accepted_at"), at("state")) else {
            return;
        };
        for row in rows {
            if let (Some(Cell::Text(accepted_at)), Some(Cell::Text(state))) =
                (row.get(accepted_at), row.get(state))
                && let (Some(accepted_at), Some(state)) = (
                    Timestamp::from_ledger_text(accepted_at),
                    JobState::parse(state),
                )
            {
                self.counts.copied_job(accepted_at, state);
            }
        }
    }

    /// After rows were written with their own ids: each table's identity continues
    /// after the highest id copied, so the next row written gets the next number.
    pub fn continue_identities(&mut self) -> Result<(), StoreError> {
        for table in crate::store::TABLES {
            let key = table.order;
            if !matches!(key, "seq" | "id") {
                continue;
            }
            let sql = format!(
                "SELECT setval(pg_get_serial_sequence('{name}', '{key}'), \
                 coalesce((SELECT max({key}) FROM {name}), 1), \
                 (SELECT max({key}) FROM {name}) IS NOT NULL)",
                name = table.name
            );
            self.tx()?
                .execute(sql.as_str(), &[])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }
}
