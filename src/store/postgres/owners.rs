//! Owners on PostgreSQL: who answers for a stuck job and when it escalates, appended,
//! the latest standing. The SQLite engine's statements (`sqlite/owners.rs`).

use super::answers::{lock_key, time_at, time_or_null_at, value_at};
use super::writer::time_text;
use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::store::{Location, OwnerRow, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

const LATEST: &str = "SELECT owner, escalate_at, set_by, set_at, written_by FROM owner_assignments
     WHERE job_id = $1 ORDER BY id DESC LIMIT 1";

/// The latest assignment of a job, none when it cleared the owner (or there is none).
fn standing(location: &Location, row: Option<postgres::Row>) -> Result<Option<OwnerRow>> {
    let Some(row) = row else {
        return Ok(None);
    };
    let Some(owner) = value_at::<Option<String>>(location, &row, 0)? else {
        return Ok(None);
    };
    Ok(Some(OwnerRow {
        owner,
        escalate_at: time_or_null_at(location, &row, 1)?,
        set_by: value_at(location, &row, 2)?,
        set_at: time_at(location, &row, 3)?,
        written_by: value_at(location, &row, 4)?,
    }))
}

impl Ledger {
    /// The owner standing for a job: its latest assignment, none when that cleared
    /// the owner (or there is none).
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>> {
        standing(self.location(), self.row(LATEST, &[&job_id])?)
    }
}

impl Writer<'_> {
    /// The owner standing for a job, as this transaction sees it: read after taking the
    /// job's lock for owner assignments (held to the end of the transaction), so that
    /// an assignment another person is writing is committed and read here first, as
    /// SQLite's single writer would have it (an owner set twice is then `unchanged`, a
    /// clearing of a job with no owner left writes nothing). See `answers.rs`.
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>> {
        lock_key(self, "owner_assignments", job_id)?;
        standing(self.location(), self.row(LATEST, &[&job_id])?)
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
                 VALUES ($1, $2, $3, $4, $5)",
            &[
                &job_id,
                &owner,
                &escalate_at.map(time_text),
                &set_by,
                &time_text(set_at),
            ],
        )?;
        Ok(())
    }

    /// Appends an assignment that clears a job's owner (and its escalation time).
    pub fn clear_owner(&mut self, job_id: &str, set_by: &str, set_at: Timestamp) -> Result<()> {
        self.execute(
            "INSERT INTO owner_assignments (job_id, owner, escalate_at, set_by, set_at)
                 VALUES ($1, NULL, NULL, $2, $3)",
            &[&job_id, &set_by, &time_text(set_at)],
        )?;
        Ok(())
    }
}
