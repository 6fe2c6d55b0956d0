//! The sequence numbers of every callback a filter keeps: what a bulk answer is
//! given (the console's `V`, the command line's selection), read whole rather than
//! a page at a time, and read again inside the writing transaction.

use crate::store::CallbackFilter;
use rusqlite::Connection;

use super::super::columns::callback_from;
use super::super::filter::query_named;
use super::super::{CallbackRow, Ledger, StoreError, Writer};
use super::{callback_select, filtered, filtered_values};

/// Every callback `filter` keeps, in ingest order: the statement that counts the
/// list ([`Ledger::count_callbacks`]), so what is marked is what was listed.
fn matching_seqs(conn: &Connection, filter: &CallbackFilter) -> rusqlite::Result<Vec<i64>> {
    let (select, condition) = filtered(conn, filter, "c.seq", None)?;
    let sql = select.order_by(&["c.seq"], "ASC").sql();
    let mut st = conn.prepare_cached(&sql)?;
    query_named(&mut st, &filtered_values(filter, &condition), |row| {
        row.get(0)
    })
}

/// The callbacks numbered `seqs` (those that exist), in ingest order, read by one
/// statement: read one at a time, each lookup was prepared again (its statement is
/// planned against the table's partial indexes with the number bound), and ten
/// thousand rows took seconds.
fn callbacks_numbered(conn: &Connection, seqs: &[i64]) -> rusqlite::Result<Vec<CallbackRow>> {
    let sql = callback_select(true, "c.seq")
        .filter("c.seq IN (SELECT value FROM json_each(?1))")
        .order_by(&["c.seq"], "ASC")
        .sql();
    let list = serde_json::Value::from(seqs).to_string();
    let mut st = conn.prepare_cached(&sql)?;
    st.query_map([list], callback_from)?.collect()
}

impl Ledger {
    /// The sequence numbers of every callback `filter` keeps, in ingest order.
    pub fn callback_seqs(&self, filter: &CallbackFilter) -> Result<Vec<i64>, StoreError> {
        self.run(|c| matching_seqs(c, filter))
    }

    /// The callbacks numbered `seqs`, with their replacement attempts and standing
    /// answers, in ingest order; a number of no callback is left out.
    pub fn callbacks_numbered(&self, seqs: &[i64]) -> Result<Vec<CallbackRow>, StoreError> {
        self.run(|c| callbacks_numbered(c, seqs))
    }
}

impl Writer<'_> {
    /// [`Ledger::callbacks_numbered`], as the transaction sees the ledger now.
    pub fn callbacks_numbered(&mut self, seqs: &[i64]) -> Result<Vec<CallbackRow>, StoreError> {
        let conn = self.flushed()?;
        callbacks_numbered(conn, seqs).map_err(|e| self.err(e))
    }

    /// [`Ledger::callback_seqs`], as the transaction sees the ledger now.
    pub fn callback_seqs(&mut self, filter: &CallbackFilter) -> Result<Vec<i64>, StoreError> {
        let conn = self.flushed()?;
        matching_seqs(conn, filter).map_err(|e| self.err(e))
    }
}
