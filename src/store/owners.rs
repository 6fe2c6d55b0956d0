//! Owners: who answers for a stuck job and when it escalates, appended, the latest
//! standing.

use rusqlite::{OptionalExtension, params};

use super::columns::from_columns;
use super::rows::OwnerRow;
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;

type Result<T> = std::result::Result<T, StoreError>;

/// The latest owner assignment of a job, on a connection or in a transaction.
fn latest(c: &rusqlite::Connection, job_id: &str) -> rusqlite::Result<Option<OwnerRow>> {
    c.prepare_cached(
        "SELECT owner, escalate_at, set_by, set_at FROM owner_assignments
         WHERE job_id = ?1 ORDER BY id DESC LIMIT 1",
    )?
    .query_row([job_id], |row| {
        Ok(from_columns!(row, 0 => OwnerRow { owner, escalate_at, set_by, set_at }))
    })
    .optional()
}

impl Ledger {
    /// The latest owner assignment of a job.
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>> {
        self.run(|c| latest(c, job_id))
    }
}

impl Writer<'_> {
    /// The latest owner assignment of a job, as this transaction sees it.
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>> {
        self.run(|c| latest(c, job_id))
    }

    /// Appends an owner assignment (and escalation time) for a job.
    pub fn assign_owner(
        &mut self,
        job_id: &str,
        owner: &str,
        escalate_at: Option<Timestamp>,
        set_by: &str,
        set_at: Timestamp,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO owner_assignments (job_id, owner, escalate_at, set_by, set_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            params![job_id, owner, escalate_at, set_by, set_at],
        )?;
        Ok(())
    }
}
