//! Jobs, their attempts and their history, on PostgreSQL.
//!
//! A [`Writer`] keeps the jobs and attempts it reads or changes in memory and writes
//! each once (see `jobs/write_behind.rs`).
//!
//! The terminal transition is taken once, whoever else writes: a writer's first read
//! of a job locks its row (`SELECT ... FOR UPDATE`) until the transaction ends, so a
//! second writer reading the same job waits, then reads the state the first one left
//! (under `READ COMMITTED` a locking read sees the newest committed row), and its
//! transition from the old state is not taken. Locking the row, rather than a
//! conditional `UPDATE ... WHERE state = <expected>` at the moment of the change, is
//! what lets the writer keep the job in memory and write it once at the end: every
//! judgement the ingest makes from the job's state (not only the transition itself)
//! is made on the state that will stand.

mod pages;
mod write_behind;

use postgres::Row;

use super::ahead::JobInsert;
use write_behind::HistoryRow;
pub(super) use write_behind::WriteBehind;

use super::writer::{Values, time_text};
use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::event::JobAccepted;
use crate::store::{
    AttemptRow, AttemptState, HistoryEntry, JobDefaults, JobRow, Location, NewAttempt, StoreError,
    TerminalRecord, Transition,
};

type Result<T> = std::result::Result<T, StoreError>;

pub(super) fn job_from(row: &Row, location: &Location) -> Result<JobRow> {
    let v = Values { row, location };
    Ok(JobRow {
        job_id: v.get(0)?,
        state: v.name(1)?,
        accepted_at: v.time(2)?,
        aged_at: v.time(3)?,
        timeout_s: v.get(4)?,
        expected_age_s: v.get(5)?,
        attempt_budget: v.get(6)?,
        latest_attempt: v.get(7)?,
        input_digest: v.get(8)?,
        model_digest: v.get(9)?,
        policy_revision: v.get(10)?,
        result_ref: v.get(11)?,
        failure_cause: v.get(12)?,
        failure_permanent: v.opt_flag(13)?,
        state_changed_at: v.time(14)?,
    })
}

pub(super) fn attempt_from(row: &Row, location: &Location) -> Result<AttemptRow> {
    let v = Values { row, location };
    Ok(AttemptRow {
        job_id: v.get(0)?,
        attempt: v.get(1)?,
        created_by: v.get(2)?,
        started_at: v.time(3)?,
        timeout_at: v.opt_time(4)?,
        state: v.name(5)?,
        timed_out_at: v.opt_time(6)?,
    })
}

impl Ledger {
    /// The job, if the ledger has it.
    pub fn job(&self, job_id: &str) -> Result<Option<JobRow>> {
        self.row(
            "SELECT job_id, state, accepted_at, aged_at, timeout_s, expected_age_s,
                    attempt_budget, latest_attempt, input_digest, model_digest, policy_revision,
                    result_ref, failure_cause, failure_permanent, state_changed_at
               FROM jobs WHERE job_id = $1",
            &[&job_id],
        )?
        .map(|row| job_from(&row, &self.location))
        .transpose()
    }

    /// Every attempt of a job, in order.
    pub fn attempts(&self, job_id: &str) -> Result<Vec<AttemptRow>> {
        self.rows(
            "SELECT job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at
               FROM attempts WHERE job_id = $1 ORDER BY attempt",
            &[&job_id],
        )?
        .iter()
        .map(|row| attempt_from(row, &self.location))
        .collect()
    }

    /// One attempt of a job.
    pub fn attempt(&self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>> {
        self.row(
            "SELECT job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at
               FROM attempts WHERE job_id = $1 AND attempt = $2",
            &[&job_id, &attempt],
        )?
        .map(|row| attempt_from(&row, &self.location))
        .transpose()
    }
}

impl Writer<'_> {
    /// Writes and forgets what is remembered, when it is too much.
    fn make_room(&self) -> Result<()> {
        self.make_room_for(1)
    }

    /// Writes and forgets what is remembered, when `more` rows would make it too much.
    pub(super) fn make_room_for(&self, more: usize) -> Result<()> {
        if self.behind.borrow().is_full_with(more) {
            self.flush_behind()?;
            self.behind.borrow_mut().forget();
            self.ahead.borrow_mut().forget_jobs();
        }
        Ok(())
    }

    /// The job, if the ledger has it; its row is locked until the transaction ends.
    pub fn job(&mut self, job_id: &str) -> Result<Option<JobRow>> {
        if let Some(job) = self.behind.borrow().job(job_id) {
            return Ok(Some(job.clone()));
        }
        if self.ahead.borrow().job_is_absent(job_id) {
            return Ok(None);
        }
        // Not remembered, so not changed here: the ledger's row is the truth (and
        // stays it: it is locked, or no ingest may write until this one ends).
        let sql = if self.job_reads_hold()? {
            "SELECT job_id, state, accepted_at, aged_at, timeout_s, expected_age_s,
                    attempt_budget, latest_attempt, input_digest, model_digest,
                    policy_revision, result_ref, failure_cause, failure_permanent,
                    state_changed_at
               FROM jobs WHERE job_id = $1 FOR UPDATE"
        } else {
            "SELECT job_id, state, accepted_at, aged_at, timeout_s, expected_age_s,
                    attempt_budget, latest_attempt, input_digest, model_digest,
                    policy_revision, result_ref, failure_cause, failure_permanent,
                    state_changed_at
               FROM jobs WHERE job_id = $1"
        };
        let job = self
            .row_direct(sql, &[&job_id])?
            .map(|row| job_from(&row, self.location()))
            .transpose()?;
        if let Some(job) = &job {
            self.make_room()?;
            self.behind.borrow_mut().remember_job(job.clone());
        }
        Ok(job)
    }

    /// Changes a job's row (read first if need be); `false` when there is no such job.
    fn change_job(&mut self, job_id: &str, change: impl FnOnce(&mut JobRow)) -> Result<bool> {
        let remembered = self.behind.borrow().job(job_id).is_some();
        if !remembered && self.job(job_id)?.is_none() {
            return Ok(false);
        }
        Ok(self.behind.borrow_mut().change_job(job_id, change))
    }

    /// One attempt of a job (its row locked until the transaction ends).
    pub fn attempt(&mut self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>> {
        if let Some(row) = self.behind.borrow().attempt(job_id, attempt) {
            return Ok(Some(row.clone()));
        }
        if self.ahead.borrow().attempts_were_read(job_id) {
            return Ok(None);
        }
        let sql = if self.job_reads_hold()? {
            "SELECT job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at
               FROM attempts WHERE job_id = $1 AND attempt = $2 FOR UPDATE"
        } else {
            "SELECT job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at
               FROM attempts WHERE job_id = $1 AND attempt = $2"
        };
        let row = self
            .row_direct(sql, &[&job_id, &attempt])?
            .map(|row| attempt_from(&row, self.location()))
            .transpose()?;
        if let Some(row) = &row {
            self.make_room()?;
            self.behind
                .borrow_mut()
                .remember_attempt(row.clone(), false);
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
            self.behind
                .borrow_mut()
                .change_attempt(job_id, attempt, change);
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
        let at = time_text(job.at);
        let aged_at = job.at.plus_seconds(expected_age_s);
        if self.ahead.borrow().job_is_absent(&job.job_id) {
            // Looked for ahead and not found: written with the other rows kept ahead. A
            // job another writer accepts meanwhile meets the unique id then, and this
            // transaction is refused as busy, to be done again (it then finds the job).
            self.ahead.borrow_mut().add_job(JobInsert {
                job_id: job.job_id.clone(),
                accepted_at: at,
                aged_at: time_text(aged_at),
                timeout_s: job.timeout_s,
                expected_age_s,
                attempt_budget: budget,
                input_digest: job.input_digest.clone(),
                model_digest: job.model_digest.clone(),
                policy_revision: job.policy_revision.clone(),
                accepted_line: line_seq,
            });
        } else {
            // A job accepted meanwhile by another writer (committed after this
            // transaction looked for it): nothing is inserted, and this transaction must
            // be done again to find that job (refused as busy, as a deadlock is).
            let inserted = self.execute_direct(
                "INSERT INTO jobs (job_id, state, accepted_at, aged_at, timeout_s,
                        expected_age_s, attempt_budget, latest_attempt, input_digest,
                        model_digest, policy_revision, state_changed_at, accepted_line)
                 VALUES ($1, 'accepted', $2, $3, $4, $5, $6, 1, $7, $8, $9, $2, $10)
                 ON CONFLICT (job_id) DO NOTHING",
                &[
                    &job.job_id,
                    &at,
                    &time_text(aged_at),
                    &job.timeout_s,
                    &expected_age_s,
                    &budget,
                    &job.input_digest,
                    &job.model_digest,
                    &job.policy_revision,
                    &line_seq,
                ],
            )?;
            if inserted == 0 {
                return Err(StoreError::Busy {
                    ledger: self.location().clone(),
                });
            }
        }
        self.counts.job(job.at, JobState::Accepted);
        self.touch(&job.job_id);
        let row = JobRow {
            job_id: job.job_id.clone(),
            state: JobState::Accepted,
            accepted_at: job.at,
            aged_at,
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
        self.make_room()?;
        self.behind.borrow_mut().remember_job(row);
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
        self.make_room()?;
        self.behind.borrow_mut().remember_attempt(row, true);
        Ok(())
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
    /// The job's row is locked by [`Writer::job`], so the state read is the one that
    /// stands until this transaction ends: a transition is taken by one writer only.
    pub fn transition(&mut self, t: &Transition<'_>, record: TerminalRecord<'_>) -> Result<bool> {
        let found = self.job(t.job_id)?.map(|job| (job.state, job.accepted_at));
        let stood = found.map(|(state, _)| state);
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
            if let Some((_, accepted_at)) = found {
                self.counts.moved(accepted_at, t.from, t.to);
            }
            self.touch(t.job_id);
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
        self.behind.borrow_mut().append_history(HistoryRow {
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
        // A job accepted here is remembered (its row may still be kept ahead).
        if self.behind.borrow().job(job_id).is_some() {
            return Ok(true);
        }
        if self.ahead.borrow().job_is_absent(job_id) {
            return Ok(false);
        }
        Ok(self
            .row_direct("SELECT 1 FROM jobs WHERE job_id = $1", &[&job_id])?
            .is_some())
    }
}
