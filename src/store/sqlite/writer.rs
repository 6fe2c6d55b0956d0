//! One write transaction: every ledger write goes through a [`Writer`].
//!
//! The writes themselves live with the tables they fill (`lines.rs`, `jobs.rs`,
//! `callbacks.rs`, ...); this file holds the transaction and what it keeps in memory
//! until commit.

use std::path::PathBuf;

use rusqlite::{Connection, Transaction};

use super::counts::CountDeltas;
use super::identity::FileIdentity;
use super::reconcile_kept::ReconcileDeltas;
use super::write_behind::WriteBehind;
use super::{StoreError, classify};

type Result<T> = std::result::Result<T, StoreError>;

/// An open `BEGIN IMMEDIATE` transaction. Dropped without [`Writer::commit`], it rolls back.
pub struct Writer<'conn> {
    pub(super) tx: Transaction<'conn>,
    path: PathBuf,
    /// The file the ledger opened, checked again just before the commit.
    opened: FileIdentity,
    /// Jobs and attempts read or changed in this transaction, and history appended,
    /// written once (see [`WriteBehind`]). Any read of those tables by SQL goes through
    /// [`Writer::flushed`] first.
    pub(super) behind: WriteBehind,
    /// What this transaction adds to the kept counts, written at commit.
    pub(super) counts: CountDeltas,
    /// The jobs this transaction touched, judged for the reconciliation at commit.
    pub(super) reconcile: ReconcileDeltas,
    /// Whether the ledger keeps a line as its first bytes (over the limit), once asked.
    pub(super) keeps_oversized: Option<bool>,
}

impl<'conn> Writer<'conn> {
    pub(super) fn new(tx: Transaction<'conn>, path: PathBuf, opened: FileIdentity) -> Self {
        Writer {
            tx,
            path,
            opened,
            behind: WriteBehind::default(),
            counts: CountDeltas::default(),
            reconcile: ReconcileDeltas::default(),
            keeps_oversized: None,
        }
    }

    pub(super) fn err(&self, e: rusqlite::Error) -> StoreError {
        classify(&self.path, e)
    }

    /// Runs a read on the transaction as it stands (rows kept behind not included).
    pub(super) fn run<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        f(&self.tx).map_err(|e| self.err(e))
    }

    /// Runs one cached statement; returns the number of rows changed.
    pub(super) fn execute(&self, sql: &str, params: impl rusqlite::Params) -> Result<usize> {
        self.run(|c| c.prepare_cached(sql)?.execute(params))
    }

    /// The rowid of the row inserted last.
    pub(super) fn last_insert_rowid(&self) -> i64 {
        self.tx.last_insert_rowid()
    }

    /// The transaction, with everything kept behind written to it: for reads by SQL
    /// of the jobs, attempts or job history.
    pub(super) fn flushed(&mut self) -> Result<&Transaction<'conn>> {
        self.behind.flush(&self.tx).map_err(|e| self.err(e))?;
        Ok(&self.tx)
    }

    /// Makes everything written through this writer durable, at once; refused, with
    /// nothing written, when the file at the path is no longer the one opened.
    pub fn commit(mut self) -> Result<()> {
        self.flushed()?;
        self.index_new_callbacks()?;
        self.counts.flush(&self.tx).map_err(|e| self.err(e))?;
        self.reconcile.flush(&self.tx).map_err(|e| self.err(e))?;
        super::log_owner::mark_write(&self.tx).map_err(|e| self.err(e))?;
        self.opened.ensure_at(&self.path)?;
        let path = self.path;
        self.tx.commit().map_err(|e| classify(&path, e))
    }
}
