//! The outbox: requests (retries, cancellations) waiting for the system that acts
//! on them.

use rusqlite::{Connection, params};

use super::columns::{OUTBOX_COLUMNS, outbox_from};
use super::filter::{Column, Columns, condition};
use super::keyset::PageRequest;
use super::query::Select;
use super::rows::{JobRow, OutboxRow, PendingRequests};
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::RequestKind;
use crate::filter::{Field, Query};

type Result<T> = std::result::Result<T, StoreError>;

/// The query fields of the outbox: a bare word is looked for in the job id, the
/// request, its status and who asked.
const REQUEST_FIELDS: Columns = Columns {
    field: request_field,
    words: &["job_id", "request", "status", "requested_by"],
};

fn request_field(field: Field) -> Option<Column> {
    match field {
        Field::Job => Some(Column::Text("job_id")),
        Field::By => Some(Column::Text("requested_by")),
        Field::Age => Some(Column::AgeOf("requested_at")),
        _ => None,
    }
}

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

    /// One page of the outbox in the order the requests were made, kept when `query`
    /// keeps them (ages at `now`).
    pub fn outbox_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<i64>,
    ) -> Result<Vec<OutboxRow>> {
        let select = Select::new(OUTBOX_COLUMNS, "outbox");
        let query = condition(query, &REQUEST_FIELDS, Some(now));
        self.seq_page(select, "id", &query, page, outbox_from)
    }

    /// Requests in the outbox that `query` keeps (ages at `now`).
    pub fn outbox_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64> {
        let query = condition(query, &REQUEST_FIELDS, Some(now));
        self.count_matching(Select::new("count(*)", "outbox"), &query)
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
