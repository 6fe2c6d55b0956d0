//! Owners: who answers for a stuck job and when it escalates, appended, the latest
//! standing.

use rusqlite::{Connection, OptionalExtension, params};

use super::columns::from_columns;

use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::store::OwnerRow;

type Result<T> = std::result::Result<T, StoreError>;

impl Ledger {
    /// The owner standing for a job: its latest assignment, none when that cleared
    /// the owner (or there is none).
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>> {
        self.run(|c| standing_owner(c, job_id))
    }
}

impl Writer<'_> {
    /// The owner standing for a job, as this transaction sees it.
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>> {
        self.run(|c| standing_owner(c, job_id))
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

    /// Appends an assignment that clears a job's owner (and its escalation time).
    pub fn clear_owner(&mut self, job_id: &str, set_by: &str, set_at: Timestamp) -> Result<()> {
        self.execute(
            "INSERT INTO owner_assignments (job_id, owner, escalate_at, set_by, set_at)
                 VALUES (?1, NULL, NULL, ?2, ?3)",
            params![job_id, set_by, set_at],
        )?;
        Ok(())
    }
}

/// The latest assignment of a job, none when it cleared the owner.
fn standing_owner(c: &Connection, job_id: &str) -> rusqlite::Result<Option<OwnerRow>> {
    let latest = c
        .prepare_cached(
            "SELECT owner, escalate_at, set_by, set_at, written_by FROM owner_assignments
             WHERE job_id = ?1 ORDER BY id DESC LIMIT 1",
        )?
        .query_row([job_id], |row| {
            let Some(owner) = row.get::<_, Option<String>>(0)? else {
                return Ok(None);
            };
            Ok(Some(from_columns!(row, 1 => OwnerRow {
                escalate_at, set_by, set_at, written_by; owner: owner
            })))
        })
        .optional()?;
    Ok(latest.flatten())
}
