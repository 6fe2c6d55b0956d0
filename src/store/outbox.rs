//! The outbox: requests (retries, cancellations) waiting for the system that acts
//! on them.

use rusqlite::{Connection, params};

use super::columns::{OUTBOX_COLUMNS, outbox_from};
use super::rows::{JobRow, OutboxRow};
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::RequestKind;

type Result<T> = std::result::Result<T, StoreError>;

/// Requests of a kind still pending in the outbox for a job.
fn pending_requests(
    conn: &Connection,
    job_id: &str,
    request: RequestKind,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT count(*) FROM outbox WHERE job_id = ?1 AND request = ?2 AND status = 'pending'",
    )?
    .query_row(params![job_id, request], |row| row.get(0))
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

    /// Requests of a kind still pending in the outbox for a job.
    pub fn pending_requests(&self, job_id: &str, request: RequestKind) -> Result<i64> {
        self.run(|c| pending_requests(c, job_id, request))
    }
}

impl Writer<'_> {
    /// Requests of a kind still pending for a job.
    pub fn pending_requests(&self, job_id: &str, request: RequestKind) -> Result<i64> {
        self.run(|c| pending_requests(c, job_id, request))
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
