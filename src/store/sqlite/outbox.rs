//! The outbox: requests (retries, cancellations) waiting for the system that acts
//! on them, and their withdrawals.
//!
//! A request's row is never changed: a withdrawal is a row of its own in
//! `request_withdrawals`, and every read here derives the status from it, so a
//! withdrawn request is no longer pending anywhere the ledger is asked.

use rusqlite::{Connection, OptionalExtension as _, params};

use super::columns::{OUTBOX_COLUMNS, OUTBOX_TABLE, outbox_from};
use super::filter::{Column, Columns, condition};
use super::query::Select;
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::RequestKind;
use crate::filter::{Field, Query};
use crate::store::PageRequest;
use crate::store::{JobRow, OutboxRow, PendingRequests};

type Result<T> = std::result::Result<T, StoreError>;

/// The query fields of the outbox, on [`OUTBOX_TABLE`]: a bare word is looked for in
/// the job id, the request, its status (withdrawn when it was) and who asked.
const REQUEST_FIELDS: Columns = Columns {
    field: request_field,
    words: &[
        "o.job_id",
        "o.request",
        "iif(w.id IS NULL, o.status, 'withdrawn')",
        "o.requested_by",
    ],
    text_index: None,
};

fn request_field(field: Field) -> Option<Column> {
    match field {
        Field::Job => Some(Column::Text("o.job_id")),
        Field::By => Some(Column::Text("o.requested_by")),
        Field::Age => Some(Column::AgeOf("o.requested_at")),
        _ => None,
    }
}

/// The one definition of a pending request, on `outbox o`: pending as asked, and not
/// withdrawn since.
const PENDING: &str = "o.status = 'pending'
    AND NOT EXISTS (SELECT 1 FROM request_withdrawals w WHERE w.request_id = o.id)";

/// Requests still pending in the outbox for a job, by kind.
fn pending_requests(conn: &Connection, job_id: &str) -> rusqlite::Result<PendingRequests> {
    let sql = format!(
        "SELECT o.request, count(*) FROM outbox o WHERE o.job_id = ?1 AND {PENDING}
         GROUP BY o.request"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let counts = stmt.query_map([job_id], |row| {
        Ok((row.get::<_, RequestKind>(0)?, row.get::<_, i64>(1)?))
    })?;
    let mut pending = PendingRequests::default();
    for count in counts {
        match count? {
            (RequestKind::Retry, n) => pending.retries = n,
            (RequestKind::Cancel, n) => pending.cancels = n,
        }
    }
    Ok(pending)
}

fn outbox_request(conn: &Connection, id: i64) -> rusqlite::Result<Option<OutboxRow>> {
    let sql = format!("SELECT {OUTBOX_COLUMNS} FROM {OUTBOX_TABLE} WHERE o.id = ?1");
    conn.prepare_cached(&sql)?
        .query_row([id], outbox_from)
        .optional()
}

impl Ledger {
    /// Pending requests in the outbox.
    pub fn outbox_pending(&self) -> Result<i64> {
        let sql = format!("SELECT count(*) FROM outbox o WHERE {PENDING}");
        self.run(|c| c.prepare_cached(&sql)?.query_row([], |row| row.get(0)))
    }

    /// Every request in the outbox, oldest first.
    pub fn outbox(&self) -> Result<Vec<OutboxRow>> {
        let sql = format!("SELECT {OUTBOX_COLUMNS} FROM {OUTBOX_TABLE} ORDER BY o.id");
        self.all_rows(&sql, [], outbox_from)
    }

    /// One request, withdrawn or not (`None`: no request has this id).
    pub fn outbox_request(&self, id: i64) -> Result<Option<OutboxRow>> {
        self.run(|c| outbox_request(c, id))
    }

    /// Every request made for a job, withdrawn or not, oldest first.
    pub fn requests_of_job(&self, job_id: &str) -> Result<Vec<OutboxRow>> {
        let sql = format!(
            "SELECT {OUTBOX_COLUMNS} FROM {OUTBOX_TABLE} WHERE o.job_id = ?1 ORDER BY o.id"
        );
        self.all_rows(&sql, [job_id], outbox_from)
    }

    /// One page of the outbox in the order the requests were made, kept when `query`
    /// keeps them (ages at `now`).
    pub fn outbox_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<i64>,
    ) -> Result<Vec<OutboxRow>> {
        let select = Select::new(OUTBOX_COLUMNS, OUTBOX_TABLE);
        let query = condition(query, &REQUEST_FIELDS, Some(now));
        self.seq_page(select, "o.id", &query, page, outbox_from)
    }

    /// Requests in the outbox that `query` keeps (ages at `now`).
    pub fn outbox_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64> {
        let query = condition(query, &REQUEST_FIELDS, Some(now));
        self.count_matching(Select::new("count(*)", OUTBOX_TABLE), &query)
    }

    /// Requests still pending in the outbox for a job, by kind.
    pub fn pending_requests(&self, job_id: &str) -> Result<PendingRequests> {
        self.run(|c| pending_requests(c, job_id))
    }
}

impl Writer<'_> {
    /// Requests still pending for a job, by kind.
    pub fn pending_requests(&self, job_id: &str) -> Result<PendingRequests> {
        self.run(|c| pending_requests(c, job_id))
    }

    /// One request as this transaction sees it, withdrawn or not.
    pub fn outbox_request(&self, id: i64) -> Result<Option<OutboxRow>> {
        self.run(|c| outbox_request(c, id))
    }

    /// Records that request `request_id` was taken back; its row stays as it was asked.
    pub fn insert_withdrawal(
        &mut self,
        request_id: i64,
        withdrawn_by: &str,
        withdrawn_at: Timestamp,
        note: &str,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO request_withdrawals (request_id, withdrawn_by, withdrawn_at, note)
             VALUES (?1, ?2, ?3, ?4)",
            params![request_id, withdrawn_by, withdrawn_at, note],
        )?;
        Ok(())
    }

    /// Puts a request in the outbox; returns its id.
    pub fn insert_request(
        &mut self,
        job: &JobRow,
        request: RequestKind,
        attempt: Option<i64>,
        requested_by: &str,
        requested_at: Timestamp,
    ) -> Result<i64> {
        self.execute(
                "INSERT INTO outbox (job_id, request, attempt, input_digest, model_digest, policy_revision,
                    requested_by, requested_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    job.job_id,
                    request,
                    attempt,
                    job.input_digest,
                    job.model_digest,
                    job.policy_revision,
                    requested_by,
                    requested_at
                ],
            )?;
        Ok(self.last_insert_rowid())
    }
}
