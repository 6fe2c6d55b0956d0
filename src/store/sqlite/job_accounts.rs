//! Every accepted job once, in job id order, with what reconciliation asks of it.
//!
//! Ordered reads walked side by side: the jobs, their notifications, their outputs
//! and the checks of those outputs, their owners, their decisions acted on and their
//! conflicting resubmissions, each in job id order. Asking the same per
//! job (a lookup in each table for each of a million jobs) took seconds; this reads
//! each index once, front to back, and the findings come out sorted by job id.

use crate::store::{JobAccount, OpenJob};
use std::cmp::Ordering;

use rusqlite::fallible_streaming_iterator::FallibleStreamingIterator;
use rusqlite::{Rows, Statement};

use super::columns::from_columns;
use super::{Ledger, StoreError};
use crate::decision::JobState;
use crate::store::OwnerRow;

/// One of the side reads, at its current row: the job id, then (for checks) the time
/// and the flag. The current row's job id is copied once as it is reached, so the
/// comparisons with every job (each side, each job) touch no SQLite column.
struct Side<'s> {
    rows: Rows<'s>,
    /// The current row's job id (bytes, as SQLite orders text); `None` once done.
    key: Option<Vec<u8>>,
}

impl<'s> Side<'s> {
    fn start(statement: &'s mut Statement<'_>) -> rusqlite::Result<Self> {
        let mut side = Side {
            rows: statement.query([])?,
            key: Some(Vec::new()),
        };
        side.step()?;
        Ok(side)
    }

    fn step(&mut self) -> rusqlite::Result<()> {
        self.rows.advance()?;
        match (self.rows.get(), &mut self.key) {
            (Some(row), Some(key)) => {
                key.clear();
                key.extend_from_slice(row.get_ref(0)?.as_bytes()?);
            }
            (Some(row), None) => self.key = Some(row.get_ref(0)?.as_bytes()?.to_vec()),
            (None, _) => self.key = None,
        }
        Ok(())
    }

    /// How the current row's job id compares with `job_id` (`None` once done).
    fn compare(&self, job_id: &str) -> Option<Ordering> {
        self.key.as_deref().map(|key| key.cmp(job_id.as_bytes()))
    }

    /// Skips rows of jobs before `job_id`; true when the current row is `job_id`'s.
    fn reach(&mut self, job_id: &str) -> rusqlite::Result<bool> {
        loop {
            match self.compare(job_id) {
                Some(Ordering::Less) => self.step()?,
                Some(Ordering::Equal) => return Ok(true),
                Some(Ordering::Greater) | None => return Ok(false),
            }
        }
    }

    /// Is the current row `job_id`'s?
    fn at_job(&self, job_id: &str) -> bool {
        self.compare(job_id) == Some(Ordering::Equal)
    }

    /// The current row's owner assignment (columns 1 to 5); none when it clears the
    /// owner.
    fn owner(&self) -> rusqlite::Result<Option<OwnerRow>> {
        let Some(row) = self.rows.get() else {
            return Ok(None);
        };
        let Some(owner) = row.get::<_, Option<String>>(1)? else {
            return Ok(None);
        };
        Ok(Some(from_columns!(row, 2 => OwnerRow {
            escalate_at, set_by, set_at, written_by; owner: owner
        })))
    }

    /// The current row's time (column 1) and flag (column 2): an output check's.
    fn check(&self) -> rusqlite::Result<Option<(&str, bool)>> {
        match self.rows.get() {
            Some(row) => Ok(Some((row.get_ref(1)?.as_str()?, row.get(2)?))),
            None => Ok(None),
        }
    }
}

impl Ledger {
    /// Calls `f` for every accepted job, in job id order (bytewise, as SQLite sorts text).
    pub fn for_each_job_account(
        &self,
        mut f: impl FnMut(&JobAccount<'_>),
    ) -> Result<(), StoreError> {
        let mut run = || -> rusqlite::Result<()> {
            let conn = &self.conn;
            let mut jobs =
                conn.prepare_cached("SELECT job_id, state, accepted_at, aged_at, expected_age_s FROM jobs ORDER BY job_id")?;
            // Index-only reads (a job's repeats are skipped here, cheaper than DISTINCT).
            let mut notifications =
                conn.prepare_cached("SELECT job_id FROM notifications ORDER BY job_id")?;
            let mut outputs = conn.prepare_cached("SELECT job_id FROM outputs ORDER BY job_id")?;
            // Checks are rare: only a checked job's latest output is read for its time.
            let mut latest_stored = conn.prepare_cached(
                "SELECT stored_at FROM outputs WHERE job_id = ?1 ORDER BY id DESC LIMIT 1",
            )?;
            let mut checks = conn.prepare_cached(
                "SELECT job_id, checked_at, object_exists FROM output_checks ORDER BY job_id, id",
            )?;
            let mut owners = conn.prepare_cached(
                "SELECT job_id, owner, escalate_at, set_by, set_at, written_by FROM owner_assignments
                 ORDER BY job_id, id",
            )?;
            // Index-only (`decisions_acted_by_job`): only jobs decided at all have rows.
            let mut acted = conn.prepare_cached(
                "SELECT job_id FROM decisions WHERE suppressed = 0 ORDER BY job_id",
            )?;
            let mut conflicts = conn.prepare_cached(
                "SELECT job_id FROM repeated_submissions WHERE conflicting = 1 ORDER BY job_id",
            )?;
            let mut decided = Side::start(&mut acted)?;
            let mut resubmitted = Side::start(&mut conflicts)?;
            let mut owned = Side::start(&mut owners)?;
            let mut notified = Side::start(&mut notifications)?;
            let mut stored = Side::start(&mut outputs)?;
            let mut checked = Side::start(&mut checks)?;
            let mut latest_store = String::new();
            let mut rows = jobs.query([])?;
            while let Some(row) = rows.next()? {
                let job_id = row.get_ref(0)?.as_str()?;
                let state: JobState = row.get(1)?;
                // The latest output (the one with the highest id), then the latest
                // check made at or after it was stored: the same rule as `output_facts`.
                let has_output = stored.reach(job_id)?;
                let mut exists_by_check = None;
                if checked.reach(job_id)? && has_output {
                    latest_store.clear();
                    latest_store
                        .push_str(&latest_stored.query_row([job_id], |r| r.get::<_, String>(0))?);
                    while checked.at_job(job_id) {
                        if let Some((at, exists)) = checked.check()?
                            && at >= latest_store.as_str()
                        {
                            exists_by_check = Some(exists);
                        }
                        checked.step()?;
                    }
                }
                let open = if state.is_open() {
                    // The latest assignment (the highest id) stands.
                    let mut owner = None;
                    if owned.reach(job_id)? {
                        while owned.at_job(job_id) {
                            owner = owned.owner()?;
                            owned.step()?;
                        }
                    }
                    Some(OpenJob {
                        aged_at: row.get(3)?,
                        expected_age_s: row.get(4)?,
                        owner,
                    })
                } else {
                    None
                };
                let mut decisions = 0;
                if decided.reach(job_id)? {
                    while decided.at_job(job_id) {
                        decisions += 1;
                        decided.step()?;
                    }
                }
                let account = JobAccount {
                    job_id,
                    state,
                    accepted_at: row.get(2)?,
                    output_exists: has_output && exists_by_check.unwrap_or(true),
                    notified: notified.reach(job_id)?,
                    divergent_decisions: decisions > 1,
                    conflicting_submission: resubmitted.reach(job_id)?,
                    open,
                };
                f(&account);
            }
            Ok(())
        };
        run().map_err(|e| self.err(e))
    }
}
