//! The outbox on PostgreSQL: requests (retries, cancellations) waiting for the system
//! that acts on them, and their withdrawals. A request's row is never changed: a
//! withdrawal is a row of its own, and every read derives the status from it. The
//! SQLite engine's statements (`sqlite/outbox.rs`).

mod pages;

use postgres::Row;

use super::answers::{lock_key, name_at, time_at, value_at};
use super::writer::time_text;
use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{RequestKind, RequestStatus};
use crate::store::{JobRow, Location, OutboxRow, PendingRequests, StoreError, Withdrawal};

type Result<T> = std::result::Result<T, StoreError>;

/// The outbox joined to its withdrawals: the status a request has now is derived
/// from the withdrawal row, since the request's own row is never changed.
const OUTBOX_TABLE: &str = "outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id";

/// The columns [`outbox_from`] reads, on [`OUTBOX_TABLE`].
const OUTBOX_COLUMNS: &str = "o.id, o.job_id, o.request, o.attempt, o.input_digest,
    o.model_digest, o.policy_revision, o.requested_by, o.requested_at,
    CASE WHEN w.id IS NULL THEN o.status ELSE 'withdrawn' END,
    w.withdrawn_by, w.withdrawn_at, w.note, w.written_by, o.written_by";

fn outbox_from(location: &Location, row: &Row) -> Result<OutboxRow> {
    let withdrawal = match value_at::<Option<String>>(location, row, 10)? {
        Some(withdrawn_by) => Some(Withdrawal {
            withdrawn_by,
            withdrawn_at: time_at(location, row, 11)?,
            note: value_at(location, row, 12)?,
            written_by: value_at(location, row, 13)?,
        }),
        None => None,
    };
    Ok(OutboxRow {
        id: value_at(location, row, 0)?,
        job_id: value_at(location, row, 1)?,
        request: name_at::<RequestKind>(location, row, 2)?,
        attempt: value_at(location, row, 3)?,
        input_digest: value_at(location, row, 4)?,
        model_digest: value_at(location, row, 5)?,
        policy_revision: value_at(location, row, 6)?,
        requested_by: value_at(location, row, 7)?,
        requested_at: time_at(location, row, 8)?,
        status: name_at::<RequestStatus>(location, row, 9)?,
        withdrawal,
        written_by: value_at(location, row, 14)?,
    })
}

/// Every request, oldest first (`OUTBOX_COLUMNS` on `OUTBOX_TABLE`).
const ALL: &str = "SELECT o.id, o.job_id, o.request, o.attempt, o.input_digest,
    o.model_digest, o.policy_revision, o.requested_by, o.requested_at,
    CASE WHEN w.id IS NULL THEN o.status ELSE 'withdrawn' END,
    w.withdrawn_by, w.withdrawn_at, w.note, w.written_by, o.written_by
    FROM outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id ORDER BY o.id";

/// One request (`OUTBOX_COLUMNS` on `OUTBOX_TABLE`).
const ONE: &str = "SELECT o.id, o.job_id, o.request, o.attempt, o.input_digest,
    o.model_digest, o.policy_revision, o.requested_by, o.requested_at,
    CASE WHEN w.id IS NULL THEN o.status ELSE 'withdrawn' END,
    w.withdrawn_by, w.withdrawn_at, w.note, w.written_by, o.written_by
    FROM outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id WHERE o.id = $1";

/// Every request made for a job, oldest first (`OUTBOX_COLUMNS` on `OUTBOX_TABLE`).
const OF_JOB: &str = "SELECT o.id, o.job_id, o.request, o.attempt, o.input_digest,
    o.model_digest, o.policy_revision, o.requested_by, o.requested_at,
    CASE WHEN w.id IS NULL THEN o.status ELSE 'withdrawn' END,
    w.withdrawn_by, w.withdrawn_at, w.note, w.written_by, o.written_by
    FROM outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id
    WHERE o.job_id = $1 ORDER BY o.id";

/// Requests still pending for a job, by kind: pending as asked, and not withdrawn
/// since (the one definition of a pending request, as on SQLite).
const PENDING_OF_JOB: &str = "SELECT o.request, count(*) FROM outbox o WHERE o.job_id = $1
     AND o.status = 'pending'
     AND NOT EXISTS (SELECT 1 FROM request_withdrawals w WHERE w.request_id = o.id)
     GROUP BY o.request";

fn pending_from(location: &Location, rows: &[Row]) -> Result<PendingRequests> {
    let mut pending = PendingRequests::default();
    for row in rows {
        let n: i64 = value_at(location, row, 1)?;
        match name_at::<RequestKind>(location, row, 0)? {
            RequestKind::Retry => pending.retries = n,
            RequestKind::Cancel => pending.cancels = n,
        }
    }
    Ok(pending)
}

impl Ledger {
    /// Pending requests in the outbox.
    pub fn outbox_pending(&self) -> Result<i64> {
        let row = self.one(
            "SELECT count(*) FROM outbox o WHERE o.status = 'pending'
               AND NOT EXISTS (SELECT 1 FROM request_withdrawals w WHERE w.request_id = o.id)",
            &[],
        )?;
        value_at(self.location(), &row, 0)
    }

    /// Every request in the outbox, oldest first.
    pub fn outbox(&self) -> Result<Vec<OutboxRow>> {
        debug_assert!(ALL.contains(OUTBOX_COLUMNS) && ALL.contains(OUTBOX_TABLE));
        self.rows(ALL, &[])?
            .iter()
            .map(|row| outbox_from(self.location(), row))
            .collect()
    }

    /// One request, withdrawn or not (`None`: no request has this id).
    pub fn outbox_request(&self, id: i64) -> Result<Option<OutboxRow>> {
        self.row(ONE, &[&id])?
            .map(|row| outbox_from(self.location(), &row))
            .transpose()
    }

    /// Every request made for a job, withdrawn or not, oldest first.
    pub fn requests_of_job(&self, job_id: &str) -> Result<Vec<OutboxRow>> {
        debug_assert!(OF_JOB.contains(OUTBOX_COLUMNS) && OF_JOB.contains(OUTBOX_TABLE));
        self.rows(OF_JOB, &[&job_id])?
            .iter()
            .map(|row| outbox_from(self.location(), row))
            .collect()
    }

    /// Requests still pending in the outbox for a job, by kind.
    pub fn pending_requests(&self, job_id: &str) -> Result<PendingRequests> {
        pending_from(self.location(), &self.rows(PENDING_OF_JOB, &[&job_id])?)
    }
}

impl Writer<'_> {
    /// Requests still pending for a job, by kind, read after taking the job's lock for
    /// requests (held to the end of the transaction): a request another person is
    /// making on the job is committed and counted here first, as SQLite's single
    /// writer would have it, so two requests cannot both pass the "one request at a
    /// time" check or take the same attempt number. See `answers.rs`.
    pub fn pending_requests(&self, job_id: &str) -> Result<PendingRequests> {
        lock_key(self, "outbox", job_id)?;
        pending_from(self.location(), &self.rows(PENDING_OF_JOB, &[&job_id])?)
    }

    /// One request as this transaction sees it, withdrawn or not. Its row is locked
    /// first (to the end of the transaction): a withdrawal being written meanwhile is
    /// committed and read here, so a second withdrawal is refused as one already made.
    pub fn outbox_request(&self, id: i64) -> Result<Option<OutboxRow>> {
        self.rows(
            "SELECT id FROM outbox WHERE id = $1 FOR NO KEY UPDATE",
            &[&id],
        )?;
        self.row(ONE, &[&id])?
            .map(|row| outbox_from(self.location(), &row))
            .transpose()
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
             VALUES ($1, $2, $3, $4)",
            &[&request_id, &withdrawn_by, &time_text(withdrawn_at), &note],
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
        let row = self.row(
            "INSERT INTO outbox (job_id, request, attempt, input_digest, model_digest,
                                 policy_revision, requested_by, requested_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
            &[
                &job.job_id,
                &request.as_str(),
                &attempt,
                &job.input_digest,
                &job.model_digest,
                &job.policy_revision,
                &requested_by,
                &time_text(requested_at),
            ],
        )?;
        super::answers::inserted_id(self.location(), row)
    }
}
