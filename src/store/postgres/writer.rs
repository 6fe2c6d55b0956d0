//! One write transaction on the server: every ledger write goes through a [`Writer`].
//!
//! The writes themselves live with the tables they fill (`lines.rs`, `jobs.rs`,
//! `callbacks.rs`, ...); this file holds the transaction.

use std::cell::RefCell;
use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{Row, Statement, Transaction};

use super::classify;
use crate::store::{Location, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

/// An open transaction. Dropped without [`Writer::commit`], it rolls back.
pub struct Writer<'conn> {
    /// In a cell so that the reads a writer offers by shared reference (`owner`,
    /// `pending_requests`, ...: the SQLite writer's signatures) can run statements too.
    tx: RefCell<Transaction<'conn>>,
    location: &'conn Location,
    statements: &'conn RefCell<HashMap<&'static str, Statement>>,
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
        }
    }

    pub(super) fn err(&self, e: postgres::Error) -> StoreError {
        classify(self.location, e)
    }

    /// Where the ledger is, as shown to a person.
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

    /// Runs one statement; returns the number of rows changed.
    pub(super) fn execute(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64> {
        let st = self.statement(sql)?;
        self.tx
            .get_mut()
            .execute(&st, params)
            .map_err(|e| classify(self.location, e))
    }

    /// Every row of one statement.
    #[allow(dead_code)] // the families still to be written use it
    pub(super) fn rows(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>> {
        let st = self.statement(sql)?;
        self.tx
            .borrow_mut()
            .query(&st, params)
            .map_err(|e| self.err(e))
    }

    /// The row of a statement that gives at most one.
    #[allow(dead_code)] // the families still to be written use it
    pub(super) fn row(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>> {
        let st = self.statement(sql)?;
        self.tx
            .borrow_mut()
            .query_opt(&st, params)
            .map_err(|e| self.err(e))
    }

    /// The transaction itself, for a statement built for the call.
    #[allow(dead_code)] // the families still to be written use it
    pub(super) fn tx(&mut self) -> &mut Transaction<'conn> {
        self.tx.get_mut()
    }

    /// What a write this engine does not have yet refuses with.
    pub(super) fn not_yet(&self, what: &str) -> StoreError {
        StoreError::Unsupported {
            ledger: self.location.clone(),
            what: format!("{what} (not yet on PostgreSQL)"),
        }
    }

    /// Makes everything written through this writer durable, at once; every open
    /// console is told (the commit counter moves, and a notification is sent with
    /// the commit).
    pub fn commit(mut self) -> Result<()> {
        self.execute("UPDATE ledger_commits SET n = n + 1 WHERE id = 1", &[])?;
        self.execute(
            "SELECT pg_notify('jobledger_commits', current_schema())",
            &[],
        )?;
        let location = self.location;
        self.tx
            .into_inner()
            .commit()
            .map_err(|e| classify(location, e))
    }
}
