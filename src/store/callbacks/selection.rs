//! The sequence numbers of every callback a filter keeps: what a bulk answer is
//! given (the console's `V`, the command line's selection), read whole rather than
//! a page at a time, and read again inside the writing transaction.

use rusqlite::Connection;

use super::super::columns::callback_from;
use super::super::query::Select;
use super::super::{CallbackRow, Ledger, StoreError, Writer};
use super::{CallbackFilter, callback_select, open_question, text_match};

/// Joins each callback `c` to its standing answer `a`.
const STANDING: &str =
    "LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)";

/// Every callback `filter` keeps, in ingest order. The same conditions as a page of
/// the list ([`Ledger::callbacks_page`]), so what is marked is what was listed.
fn matching_seqs(conn: &Connection, filter: &CallbackFilter) -> rusqlite::Result<Vec<i64>> {
    let select = Select::new("c.seq", "callbacks c");
    // The standing answer is looked up only to tell open questions from closed ones.
    let select = if filter.open {
        select.join(STANDING)
    } else {
        select
    };
    let sql = select
        .filter_if(filter.disposition.is_some(), "c.disposition = ?2")
        .filter_if(filter.text.is_some(), text_match(3))
        .filter_if(filter.open, open_question())
        .order_by(&["c.seq"], "ASC")
        .sql();
    let disposition = filter.disposition;
    let text = filter.text.as_deref();
    let mut params: Vec<(&str, &dyn rusqlite::ToSql)> = Vec::new();
    if filter.disposition.is_some() {
        params.push(("?2", &disposition));
    }
    if filter.text.is_some() {
        params.push(("?3", &text));
    }
    let mut st = conn.prepare_cached(&sql)?;
    st.query_map(params.as_slice(), |row| row.get(0))?.collect()
}

/// The callbacks numbered `seqs` (those that exist), in ingest order, read by one
/// statement: read one at a time, each lookup was prepared again (its statement is
/// planned against the table's partial indexes with the number bound), and ten
/// thousand rows took seconds.
fn callbacks_numbered(conn: &Connection, seqs: &[i64]) -> rusqlite::Result<Vec<CallbackRow>> {
    let sql = callback_select(true)
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
