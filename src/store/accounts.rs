//! Every accepted job once, in job id order, with what reconciliation asks of it.
//!
//! Four ordered reads walked side by side: the jobs, their notifications, their
//! outputs and the checks of those outputs, each in job id order. Asking the same per
//! job (a lookup in each table for each of a million jobs) took seconds; this reads
//! each index once, front to back, and the findings come out sorted by job id.

use rusqlite::{Rows, Statement};

use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::decision::JobState;

/// One accepted job as reconciliation sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobAccount<'a> {
    pub job_id: &'a str,
    pub state: JobState,
    pub accepted_at: Timestamp,
    /// Its latest output object is on record, and no check since found it missing.
    pub output_exists: bool,
    /// A notification was sent for it.
    pub notified: bool,
}

/// One of the side reads, at its current row: the job id, then an optional time
/// (column 1) and flag (column 2).
struct Side<'s> {
    rows: Rows<'s>,
    columns: usize,
    /// The job id of the current row; `None` once the read is done.
    job: Option<String>,
    at: String,
    flag: bool,
}

impl<'s> Side<'s> {
    fn start(statement: &'s mut Statement<'_>) -> rusqlite::Result<Self> {
        let columns = statement.column_count();
        let mut side = Side {
            rows: statement.query([])?,
            columns,
            job: Some(String::new()),
            at: String::new(),
            flag: false,
        };
        side.step()?;
        Ok(side)
    }

    /// Moves to the next row.
    fn step(&mut self) -> rusqlite::Result<()> {
        let Some(row) = self.rows.next()? else {
            self.job = None;
            return Ok(());
        };
        let job = self.job.get_or_insert_with(String::new);
        job.clear();
        job.push_str(row.get_ref(0)?.as_str()?);
        if self.columns > 1 {
            self.at.clear();
            self.at.push_str(row.get_ref(1)?.as_str()?);
        }
        if self.columns > 2 {
            self.flag = row.get(2)?;
        }
        Ok(())
    }

    /// Skips rows of jobs before `job_id`; true when the current row is `job_id`'s.
    fn reach(&mut self, job_id: &str) -> rusqlite::Result<bool> {
        while let Some(job) = &self.job {
            match job.as_str().cmp(job_id) {
                std::cmp::Ordering::Less => self.step()?,
                std::cmp::Ordering::Equal => return Ok(true),
                std::cmp::Ordering::Greater => return Ok(false),
            }
        }
        Ok(false)
    }

    /// Is the current row `job_id`'s?
    fn at_job(&self, job_id: &str) -> bool {
        self.job.as_deref() == Some(job_id)
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
                conn.prepare_cached("SELECT job_id, state, accepted_at FROM jobs ORDER BY job_id")?;
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
            let mut notified = Side::start(&mut notifications)?;
            let mut stored = Side::start(&mut outputs)?;
            let mut checked = Side::start(&mut checks)?;
            let mut latest_store = String::new();
            let mut rows = jobs.query([])?;
            while let Some(row) = rows.next()? {
                let job_id = row.get_ref(0)?.as_str()?;
                let state_text = row.get_ref(1)?.as_str()?;
                let state = JobState::parse(state_text).ok_or_else(|| {
                    rusqlite::Error::FromSqlConversionFailure(
                        1,
                        rusqlite::types::Type::Text,
                        format!("unexpected job state {state_text:?} in the ledger").into(),
                    )
                })?;
                // The latest output (the one with the highest id), then the latest
                // check made at or after it was stored: the same rule as `output_facts`.
                let has_output = stored.reach(job_id)?;
                let mut exists_by_check = None;
                if checked.reach(job_id)? && has_output {
                    latest_store.clear();
                    latest_store
                        .push_str(&latest_stored.query_row([job_id], |r| r.get::<_, String>(0))?);
                    while checked.at_job(job_id) {
                        if checked.at >= latest_store {
                            exists_by_check = Some(checked.flag);
                        }
                        checked.step()?;
                    }
                }
                let account = JobAccount {
                    job_id,
                    state,
                    accepted_at: row.get(2)?,
                    output_exists: has_output && exists_by_check.unwrap_or(true),
                    notified: notified.reach(job_id)?,
                };
                f(&account);
            }
            Ok(())
        };
        run().map_err(|e| self.err(e))
    }
}
