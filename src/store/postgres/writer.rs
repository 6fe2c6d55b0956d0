//! One write transaction on the server: every ledger write goes through a [`Writer`].
//!
//! The writes themselves live with the tables they fill (`lines.rs`, `jobs.rs`,
//! `callbacks.rs`, ...); this file holds the transaction, what it keeps in memory until
//! commit (the jobs and attempts it read or changed, the history it appended, the
//! counts it moved), and the reading of the domain's values from the server's rows.
//!
//! Several writers may write one ledger at once, from several machines. A line is kept
//! once whoever sends it (its identity is unique, and an insert that meets a line
//! another writer kept meanwhile keeps nothing); a job's row is locked by the first
//! read of it in a transaction (`FOR UPDATE`), so what this writer remembers of it is
//! the truth until commit, and a transition is taken by one writer only (see
//! `jobs.rs`). Two writers waiting on each other's rows are told so by the server, one
//! of them refused ([`StoreError::Busy`]), its whole transaction rolled back.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Row, Statement, Transaction};

use super::ahead::Ahead;
use super::classify;
use super::counts::CountDeltas;
use super::jobs::WriteBehind;
use crate::clock::Timestamp;
use crate::closed_set::ClosedSet;
use crate::store::{Location, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

/// An open transaction. Dropped without [`Writer::commit`], it rolls back.
pub struct Writer<'conn> {
    tx: RefCell<Transaction<'conn>>,
    location: &'conn Location,
    statements: &'conn RefCell<HashMap<&'static str, Statement>>,
    /// Jobs and attempts read or changed in this transaction, and history appended,
    /// written once (see `jobs/write_behind.rs`). Every statement of another family
    /// ([`Writer::execute`], [`Writer::rows`], [`Writer::row`], [`Writer::tx`]) writes
    /// them first, so it reads what this transaction did.
    pub(super) behind: RefCell<WriteBehind>,
    /// What an ingest told this writer ahead, and the rows it keeps to write together
    /// (see `ahead.rs`); written before what `behind` keeps, which may change them.
    pub(super) ahead: RefCell<Ahead>,
    /// What this transaction adds to the kept counts, written at commit.
    pub(super) counts: CountDeltas,
    /// The jobs this transaction touched, judged for the reconciliation at commit
    /// (see `reconcile_kept.rs`).
    pub(super) touched: BTreeSet<String>,
}

impl<'conn> Writer<'conn> {
    pub(super) fn new(
        tx: Transaction<'conn>,
        location: &'conn Location,
        statements: &'conn RefCell<HashMap<&'static str, Statement>>,
    ) -> Self {
        Writer {
            tx: RefCell::new(tx),
            location,
            statements,
            behind: RefCell::new(WriteBehind::default()),
            ahead: RefCell::new(Ahead::default()),
            counts: CountDeltas::default(),
            touched: BTreeSet::new(),
        }
    }

    pub(super) fn err(&self, e: postgres::Error) -> StoreError {
        classify(self.location, e)
    }

    pub(super) fn location(&self) -> &Location {
        self.location
    }

    /// The statement for `sql`, prepared on this connection once.
    pub(super) fn statement(&self, sql: &'static str) -> Result<Statement> {
        if let Some(st) = self.statements.borrow().get(sql) {
            return Ok(st.clone());
        }
        let st = self
            .tx
            .borrow_mut()
            .prepare(sql)
            .map_err(|e| classify(self.location, e))?;
        self.statements.borrow_mut().insert(sql, st.clone());
        Ok(st)
    }

    /// Writes what is kept in memory (jobs, attempts, history) to the transaction.
    pub(super) fn flush_behind(&self) -> Result<()> {
        if !self.ahead.borrow().is_clean() {
            self.ahead.borrow_mut().flush(self)?;
        }
        let mut behind = self.behind.borrow_mut();
        if behind.is_clean() {
            return Ok(());
        }
        behind.flush(self)
    }

    /// Runs one statement; returns the number of rows changed. What is kept in memory
    /// is written first.
    pub(super) fn execute(&self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        self.flush_behind()?;
        self.execute_direct(sql, params)
    }

    /// Every row of one statement (what is kept in memory written first).
    pub(super) fn rows(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>> {
        self.flush_behind()?;
        self.rows_direct(sql, params)
    }

    /// The row of a statement that gives at most one (what is kept in memory written
    /// first).
    pub(super) fn row(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>> {
        self.flush_behind()?;
        self.row_direct(sql, params)
    }

    /// The transaction itself, for a statement built for the call (what is kept in
    /// memory written first).
    pub(super) fn tx(&mut self) -> Result<&mut Transaction<'conn>> {
        self.flush_behind()?;
        Ok(self.tx.get_mut())
    }

    /// [`Writer::execute`] of a statement that touches neither jobs, attempts nor
    /// job history: what is kept in memory stays there.
    pub(super) fn execute_direct(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64> {
        let st = self.statement(sql)?;
        let done = self.tx.borrow_mut().execute(&st, params);
        done.map_err(|e| self.err(e))
    }

    /// [`Writer::execute_direct`] of an insert that may meet the unique identity of a
    /// row another writer kept meanwhile: the transaction is then refused as busy, to
    /// be done again (it then finds that row).
    pub(super) fn insert_or_busy(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64> {
        let st = self.statement(sql)?;
        let done = self.tx.borrow_mut().execute(&st, params);
        done.map_err(|e| {
            if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                StoreError::Busy {
                    ledger: self.location.clone(),
                }
            } else {
                self.err(e)
            }
        })
    }

    /// [`Writer::rows`] of a statement that reads neither jobs, attempts nor job
    /// history as this transaction changed them.
    pub(super) fn rows_direct(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>> {
        let st = self.statement(sql)?;
        let rows = self.tx.borrow_mut().query(&st, params);
        rows.map_err(|e| self.err(e))
    }

    /// [`Writer::row`] of a statement that reads neither jobs, attempts nor job
    /// history as this transaction changed them.
    pub(super) fn row_direct(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>> {
        let st = self.statement(sql)?;
        let row = self.tx.borrow_mut().query_opt(&st, params);
        row.map_err(|e| self.err(e))
    }

    /// Makes everything written through this writer durable, at once; every open
    /// console is told (the commit counter moves, and a notification is sent with
    /// the commit).
    pub fn commit(mut self) -> Result<()> {
        self.flush_behind()?;
        // The findings first: what they moved is counted with the rest.
        self.judge_touched()?;
        self.counts.flush(&self)?;
        self.execute_direct("UPDATE ledger_commits SET n = n + 1 WHERE id = 1", &[])?;
        // The deferred foreign-key checks run at commit, one look-up a row: planned
        // once and kept, as the server does by default, rather than for every row as
        // an ingest's own statements are (see `take_turn`). Planning them each time
        // was a third of the server's work in an ingest.
        self.execute_direct(
            "SELECT pg_notify('jobledger_commits', current_schema()),
                    set_config('plan_cache_mode', 'auto', true)",
            &[],
        )?;
        let location = self.location;
        self.tx
            .into_inner()
            .commit()
            .map_err(|e| classify(location, e))
    }
}

/// Reads the values of the domain from a row: times from their ledger text, closed
/// sets from their names. A value that is neither says the ledger is damaged.
pub(super) struct Values<'a> {
    pub row: &'a Row,
    pub location: &'a Location,
}

impl Values<'_> {
    fn damaged(&self, detail: String) -> StoreError {
        StoreError::Damaged {
            ledger: self.location.clone(),
            detail,
        }
    }

    pub fn get<'r, T: postgres::types::FromSql<'r>>(&'r self, i: usize) -> Result<T> {
        self.row.try_get(i).map_err(|e| classify(self.location, e))
    }

    pub fn time(&self, i: usize) -> Result<Timestamp> {
        let text: &str = self.get(i)?;
        Timestamp::from_ledger_text(text)
            .ok_or_else(|| self.damaged(format!("not a ledger time: {text:?}")))
    }

    pub fn opt_time(&self, i: usize) -> Result<Option<Timestamp>> {
        match self.get::<Option<&str>>(i)? {
            Some(_) => self.time(i).map(Some),
            None => Ok(None),
        }
    }

    pub fn name<T: ClosedSet>(&self, i: usize) -> Result<T> {
        let text: &str = self.get(i)?;
        T::parse(text)
            .ok_or_else(|| self.damaged(format!("unexpected {} {text:?} in the ledger", T::WHAT)))
    }

    pub fn opt_name<T: ClosedSet>(&self, i: usize) -> Result<Option<T>> {
        match self.get::<Option<&str>>(i)? {
            Some(_) => self.name(i).map(Some),
            None => Ok(None),
        }
    }

    /// A 0/1 flag.
    pub fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.get::<i16>(i)? != 0)
    }

    pub fn opt_flag(&self, i: usize) -> Result<Option<bool>> {
        Ok(self.get::<Option<i16>>(i)?.map(|f| f != 0))
    }
}

/// A time as the ledger writes it.
pub(super) fn time_text(t: Timestamp) -> String {
    t.to_ledger_text()
}

/// An optional time as the ledger writes it.
pub(super) fn opt_time_text(t: Option<Timestamp>) -> Option<String> {
    t.map(Timestamp::to_ledger_text)
}
