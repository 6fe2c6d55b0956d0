//! Jobs, their attempts and their history.
//!
//! A [`Writer`] keeps the jobs and attempts it reads or changes in memory and writes
//! each once (see `write_behind.rs`); reads here that go past it say so.

use crate::store::{HistoryEntry, JobDefaults, NewAttempt};
use rusqlite::{Connection, OptionalExtension, params};

use super::closed_sets::{OPEN_JOB, OPEN_JOB_COUNTS};
use super::columns::{ATTEMPT_COLUMNS, JOB_COLUMNS, attempt_from, job_from};
use super::write_behind::HistoryRow;
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::event::JobAccepted;
use crate::store::{AttemptRow, AttemptState, JobRow, TerminalRecord, Transition};

mod pages;

type Result<T> = std::result::Result<T, StoreError>;

fn read_job(conn: &Connection, job_id: &str) -> rusqlite::Result<Option<JobRow>> {
    conn.prepare_cached(&format!("SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1"))?
        .query_row([job_id], job_from)
        .optional()
}

fn read_attempt(
    conn: &Connection,
    job_id: &str,
    attempt: i64,
) -> rusqlite::Result<Option<AttemptRow>> {
    conn.prepare_cached(&format!(
        "SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE job_id = ?1 AND attempt = ?2"
    ))?
    .query_row(params![job_id, attempt], attempt_from)
    .optional()
}

impl Ledger {
    /// The job, if the ledger has it.
    pub fn job(&self, job_id: &str) -> Result<Option<JobRow>> {
        self.run(|c| read_job(c, job_id))
    }

    /// Every attempt of a job, in order.
    pub fn attempts(&self, job_id: &str) -> Result<Vec<AttemptRow>> {
        let sql =
            format!("SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE job_id = ?1 ORDER BY attempt");
        self.all_rows(&sql, [job_id], attempt_from)
    }

    /// One attempt of a job.
    pub fn attempt(&self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>> {
        self.run(|c| read_attempt(c, job_id, attempt))
    }

    /// The open jobs (kept counts), and those of them not aged yet at `now` counted up
    /// to half of them and one more (the bound, returned last), at one moment (one
    /// statement). See [`crate::store::Ledger::aged_count`].
    pub fn open_and_not_aged(&self, now: Timestamp) -> Result<(i64, i64, i64)> {
        self.run(|c| {
            c.prepare_cached(&format!(
                "WITH open (n) AS
                   (SELECT coalesce(sum(n), 0) FROM ledger_counts WHERE name IN ({}))
                 SELECT (SELECT n FROM open),
                        (SELECT count(*) FROM (SELECT 1 FROM jobs WHERE {} AND aged_at > ?1
                                                LIMIT (SELECT n / 2 + 1 FROM open))),
                        (SELECT n / 2 + 1 FROM open)",
                *OPEN_JOB_COUNTS, *OPEN_JOB
            ))?
            .query_row([now], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        })
    }

    /// Open jobs past their expected age at `now`.
    pub fn aged_count(&self, now: Timestamp) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached(&format!(
                "SELECT count(*) FROM jobs WHERE {} AND aged_at <= ?1",
                *OPEN_JOB
            ))?
            .query_row([now], |row| row.get(0))
        })
    }
}

impl Writer<'_> {
    /// The job, if the ledger has it.
    pub fn job(&mut self, job_id: &str) -> Result<Option<JobRow>> {
        if let Some(job) = self.behind.job(job_id) {
            return Ok(Some(job.clone()));
        }
        // Not remembered, so not changed here: the ledger's row is the truth.
        let job = self.run(|c| read_job(c, job_id))?;
        if let Some(job) = &job {
            self.behind
                .remember_job(&self.tx, job.clone())
                .map_err(|e| self.err(e))?;
        }
        Ok(job)
    }

    /// Changes a job's row (read first if need be); `false` when there is no such job.
    fn change_job(&mut self, job_id: &str, change: impl FnOnce(&mut JobRow)) -> Result<bool> {
        let remembered = self.behind.job(job_id).is_some();
        if !remembered && self.job(job_id)?.is_none() {
            return Ok(false);
        }
        Ok(self.behind.change_job(job_id, change))
    }

    /// One attempt of a job.
    pub fn attempt(&mut self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>> {
        if let Some(row) = self.behind.attempt(job_id, attempt) {
            return Ok(Some(row.clone()));
        }
        let row = self.run(|c| read_attempt(c, job_id, attempt))?;
        if let Some(row) = &row {
            self.behind
                .remember_attempt(&self.tx, row.clone(), false)
                .map_err(|e| self.err(e))?;
        }
        Ok(row)
    }

    /// Changes an attempt (read first if need be); nothing when there is no such attempt.
    fn change_attempt(
        &mut self,
        job_id: &str,
        attempt: i64,
        change: impl FnOnce(&mut AttemptRow),
    ) -> Result<()> {
        if self.attempt(job_id, attempt)?.is_some() {
            self.behind.change_attempt(job_id, attempt, change);
        }
        Ok(())
    }

    /// Opens a job and its first attempt.
    pub fn insert_job(
        &mut self,
        job: &JobAccepted,
        defaults: JobDefaults,
        line_seq: i64,
    ) -> Result<()> {
        let expected_age_s = job.expected_age_s.unwrap_or(defaults.expected_age_s);
        let budget = job.attempt_budget.unwrap_or(defaults.attempt_budget);
        self.execute(
            "INSERT INTO jobs (job_id, state, accepted_at, aged_at, timeout_s, expected_age_s,
                    attempt_budget, latest_attempt, input_digest, model_digest, policy_revision,
                    state_changed_at, accepted_line)
                 VALUES (?1, 'accepted', ?2, ?3, ?4, ?5, ?6, 1, ?7, ?8, ?9, ?2, ?10)",
            params![
                job.job_id,
                job.at,
                job.at.plus_seconds(expected_age_s),
                job.timeout_s,
                expected_age_s,
                budget,
                job.input_digest,
                job.model_digest,
                job.policy_revision,
                line_seq
            ],
        )?;
        self.counts.job(JobState::Accepted);
        self.reconcile.accepted(&job.job_id, job.at);
        let row = JobRow {
            job_id: job.job_id.clone(),
            state: JobState::Accepted,
            accepted_at: job.at,
            aged_at: job.at.plus_seconds(expected_age_s),
            timeout_s: job.timeout_s,
            expected_age_s,
            attempt_budget: budget,
            latest_attempt: 1,
            input_digest: job.input_digest.clone(),
            model_digest: job.model_digest.clone(),
            policy_revision: job.policy_revision.clone(),
            result_ref: None,
            failure_cause: None,
            failure_permanent: None,
            state_changed_at: job.at,
        };
        self.behind
            .remember_job(&self.tx, row)
            .map_err(|e| self.err(e))?;
        let timeout_at = job.timeout_s.map(|s| job.at.plus_seconds(s));
        self.insert_attempt_row(&NewAttempt {
            job_id: &job.job_id,
            attempt: 1,
            created_by: "system",
            started_at: job.at,
            timeout_at,
        })?;
        self.history(&HistoryEntry {
            job_id: &job.job_id,
            at: job.at,
            from: None,
            to: JobState::Accepted,
            applied: true,
            cause: "job_accepted",
            line_seq: Some(line_seq),
            callback_seq: None,
        });
        if let Some(owner) = &job.owner {
            self.assign_owner(&job.job_id, owner, None, "job_accepted", job.at)?;
        }
        Ok(())
    }

    /// Adds an attempt and makes it the job's latest.
    pub fn insert_attempt(&mut self, new: &NewAttempt<'_>) -> Result<()> {
        self.insert_attempt_row(new)?;
        // Only ever a later attempt than the latest (ingest checks), so always a change.
        self.change_job(new.job_id, |job| {
            job.latest_attempt = job.latest_attempt.max(new.attempt);
        })?;
        Ok(())
    }

    fn insert_attempt_row(&mut self, new: &NewAttempt<'_>) -> Result<()> {
        let row = AttemptRow {
            job_id: new.job_id.to_owned(),
            attempt: new.attempt,
            created_by: new.created_by.to_owned(),
            started_at: new.started_at,
            timeout_at: new.timeout_at,
            state: AttemptState::Running,
            timed_out_at: None,
        };
        self.behind
            .remember_attempt(&self.tx, row, true)
            .map_err(|e| self.err(e))
    }

    /// Marks the start of an attempt that already exists (attempt 1 opened by acceptance).
    pub fn restart_attempt(
        &mut self,
        job_id: &str,
        attempt: i64,
        started_at: Timestamp,
        timeout_at: Option<Timestamp>,
    ) -> Result<()> {
        self.change_attempt(job_id, attempt, |a| {
            a.started_at = started_at;
            a.timeout_at = timeout_at.or(a.timeout_at);
        })
    }

    /// Sets the state of one attempt (and its timeout time, for a timeout).
    pub fn set_attempt_state(
        &mut self,
        job_id: &str,
        attempt: i64,
        state: AttemptState,
        at: Timestamp,
    ) -> Result<()> {
        let timed_out_at = (state == AttemptState::TimedOut).then_some(at);
        self.change_attempt(job_id, attempt, |a| {
            a.state = state;
            a.timed_out_at = timed_out_at.or(a.timed_out_at);
        })
    }

    /// The conditional transition: moves the job only if it is still in `from`.
    ///
    /// Either way the request is written to the job's history; when it was not
    /// taken, the history names the state that stood. Returns whether it was taken.
    pub fn transition(&mut self, t: &Transition<'_>, record: TerminalRecord<'_>) -> Result<bool> {
        let job = self.job(t.job_id)?;
        let stood = job.as_ref().map(|job| job.state);
        let taken = stood == Some(t.from);
        if taken {
            self.change_job(t.job_id, |job| {
                job.state = t.to;
                job.state_changed_at = t.at;
                if let Some(r) = record.result_ref {
                    job.result_ref = Some(r.to_owned());
                }
                if let Some(c) = record.failure_cause {
                    job.failure_cause = Some(c.to_owned());
                }
                if let Some(p) = record.failure_permanent {
                    job.failure_permanent = Some(p);
                }
            })?;
            self.counts.moved(t.from, t.to);
            if let Some(job) = &job {
                self.reconcile
                    .moved(t.job_id, job.accepted_at, t.from, t.to);
            }
        }
        self.history(&HistoryEntry {
            job_id: t.job_id,
            at: t.at,
            from: stood,
            to: t.to,
            applied: taken,
            cause: t.cause,
            line_seq: t.line_seq,
            callback_seq: t.callback_seq,
        });
        Ok(taken)
    }

    /// Appends to a job's history.
    pub fn history(&mut self, entry: &HistoryEntry<'_>) {
        self.behind.append_history(HistoryRow {
            job_id: entry.job_id.to_owned(),
            at: entry.at,
            from_state: entry.from,
            to_state: entry.to,
            applied: entry.applied,
            cause: entry.cause.to_owned(),
            line_seq: entry.line_seq,
            callback_seq: entry.callback_seq,
        });
    }

    /// Is there a job with this id?
    pub fn job_exists(&self, job_id: &str) -> Result<bool> {
        // A job's row is inserted at once (only its changes are kept behind).
        self.run(|c| {
            c.prepare_cached("SELECT 1 FROM jobs WHERE job_id = ?1")?
                .exists([job_id])
        })
    }
}
