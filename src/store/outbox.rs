//! The outbox: requests (retries, cancellations) waiting for the system that acts
//! on them.

use rusqlite::{Connection, params};

use super::columns::{OUTBOX_COLUMNS, outbox_from};
use super::keyset::PageRequest;
use super::query::Select;
use super::rows::{JobRow, OutboxRow, PendingRequests};
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::RequestKind;

type Result<T> = std::result::Result<T, StoreError>;

/// Kept when the job id, the request, its status or who asked contains the text bound
/// as `?1` (every request when it is NULL).
const REQUEST_TEXT: &str = "(?1 IS NULL OR instr(lower(job_id), lower(?1)) > 0
    OR instr(request, lower(?1)) > 0 OR instr(status, lower(?1)) > 0
    OR instr(lower(requested_by), lower(?1)) > 0)";

/// Requests still pending in the outbox for a job, by kind.
fn pending_requests(conn: &Connection, job_id: &str) -> rusqlite::Result<PendingRequests> {
    let mut stmt = conn.prepare_cached(
        "SELECT request, count(*) FROM outbox WHERE job_id = ?1 AND status = 'pending'
         GROUP BY request",
    )?;
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

impl Ledger {
    /// Pending requests in the outbox.
    pub fn outbox_pending(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT count(*) FROM outbox WHERE status = 'pending'")?
                .query_row([], |row| row.get(0))
        })
    }

    /// Every request in the outbox, oldest first.
    pub fn outbox(&self) -> Result<Vec<OutboxRow>> {
        let sql = format!("SELECT {OUTBOX_COLUMNS} FROM outbox ORDER BY id");
        self.all_rows(&sql, [], outbox_from)
    }

    /// One page of the outbox in the order the requests were made, kept when the job
    /// id, request, status or who asked contains `text`.
    pub fn outbox_page(
        &self,
        text: Option<&str>,
        page: &PageRequest<i64>,
    ) -> Result<Vec<OutboxRow>> {
        let select = Select::new(OUTBOX_COLUMNS, "outbox").filter(REQUEST_TEXT);
        self.seq_page(select, "id", text, page, outbox_from)
    }

    /// Requests in the outbox that match `text` (all of them when `None`).
    pub fn outbox_count_matching(&self, text: Option<&str>) -> Result<i64> {
        self.count_matching(
            &Select::new("count(*)", "outbox").filter(REQUEST_TEXT),
            text,
        )
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
