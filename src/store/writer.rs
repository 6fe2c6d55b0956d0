//! One write transaction: every ledger write goes through a [`Writer`].

use std::path::PathBuf;

use rusqlite::{Transaction, params};

use super::counts::CountDeltas;
use super::reads;
use super::rows::{
    AnswerRow, AttemptRow, AttemptState, ClaimHistory, JobRow, NewCallback, NewLine, OutputFacts,
    TerminalRecord, Transition,
};
use super::write_behind::{HistoryRow, WriteBehind};
use super::{StoreError, classify};
use crate::clock::Timestamp;
use crate::decision::{JobState, Outcome};
use crate::event::JobAccepted;

/// An open `BEGIN IMMEDIATE` transaction. Dropped without [`Writer::commit`], it rolls back.
pub struct Writer<'conn> {
    tx: Transaction<'conn>,
    path: PathBuf,
    /// Jobs and attempts read or changed in this transaction, and history appended,
    /// written once (see [`WriteBehind`]). Any read of those tables by SQL goes through
    /// [`Writer::flushed`] first.
    behind: WriteBehind,
    /// What this transaction adds to the kept counts, written at commit.
    counts: CountDeltas,
}

type Result<T> = std::result::Result<T, StoreError>;

impl<'conn> Writer<'conn> {
    pub(super) fn new(tx: Transaction<'conn>, path: PathBuf) -> Self {
        Writer {
            tx,
            path,
            behind: WriteBehind::default(),
            counts: CountDeltas::default(),
        }
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        classify(&self.path, e)
    }

    /// Runs one cached statement; returns the number of rows changed.
    fn execute(&self, sql: &str, params: impl rusqlite::Params) -> Result<usize> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut st| st.execute(params))
            .map_err(|e| self.err(e))
    }

    /// The transaction, with everything kept behind written to it: for reads by SQL
    /// of the jobs, attempts or job history.
    fn flushed(&mut self) -> Result<&Transaction<'conn>> {
        self.behind.flush(&self.tx).map_err(|e| self.err(e))?;
        Ok(&self.tx)
    }

    /// Makes everything written through this writer durable, at once.
    pub fn commit(mut self) -> Result<()> {
        self.flushed()?;
        self.counts.flush(&self.tx).map_err(|e| self.err(e))?;
        let path = self.path;
        self.tx.commit().map_err(|e| classify(&path, e))
    }

    /// Keeps an input line unless a line with the same SHA-256 is already kept (found
    /// by `(time_key, line_sha256)`: `time_key` is a function of the bytes, see
    /// migration 005).
    /// Returns its sequence number, or `None` when it was there before.
    pub fn insert_line_once(&mut self, line: &NewLine<'_>) -> Result<Option<i64>> {
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT INTO input_lines (line_sha256, raw, event, status, reason, ingested_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (time_key, line_sha256) DO NOTHING",
            )
            .and_then(|mut st| {
                st.execute(params![
                    &line.sha256[..],
                    line.raw,
                    line.event,
                    line.status.as_str(),
                    line.reason,
                    line.ingested_at
                ])
            })
            .map_err(|e| self.err(e))?;
        Ok((inserted == 1).then(|| self.tx.last_insert_rowid()))
    }

    /// Marks a kept line as a rejected event, with the reason.
    pub fn reject_line(&mut self, seq: i64, reason: &str) -> Result<()> {
        self.execute(
            "UPDATE input_lines SET status = 'rejected', reason = ?2 WHERE seq = ?1",
            params![seq, reason],
        )?;
        Ok(())
    }

    /// The job, if the ledger has it.
    pub fn job(&mut self, job_id: &str) -> Result<Option<JobRow>> {
        if let Some(job) = self.behind.job(job_id) {
            return Ok(Some(job.clone()));
        }
        // Not remembered, so not changed here: the ledger's row is the truth.
        let job = reads::job(&self.tx, job_id).map_err(|e| self.err(e))?;
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
        let row = reads::attempt(&self.tx, job_id, attempt).map_err(|e| self.err(e))?;
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

    /// What earlier callbacks claimed about this job and attempt.
    pub fn claim_history(
        &self,
        job_id: &str,
        attempt: i64,
        outcome: Outcome,
    ) -> Result<ClaimHistory> {
        let mut history = ClaimHistory::default();
        let mut st = self
            .tx
            .prepare_cached(
                // No ORDER BY: the index yields (outcome, seq) order, and sorting would
                // cost a temporary b-tree per callback; the minimum is taken below.
                "SELECT seq, outcome FROM callbacks
                 WHERE job_id = ?1 AND attempt = ?2 AND disposition <> 'quarantine'",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = st
            .query(params![job_id, attempt])
            .map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let seq: i64 = row.get(0).map_err(|e| self.err(e))?;
            let said: String = row.get(1).map_err(|e| self.err(e))?;
            if said == outcome.as_str() {
                history.first_same = Some(history.first_same.map_or(seq, |s: i64| s.min(seq)));
            } else {
                history.opposite = true;
            }
        }
        Ok(history)
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
        self.insert_attempt_row(&job.job_id, 1, "system", job.at, timeout_at)?;
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
    pub fn insert_attempt(
        &mut self,
        job_id: &str,
        attempt: i64,
        created_by: &str,
        started_at: Timestamp,
        timeout_at: Option<Timestamp>,
    ) -> Result<()> {
        self.insert_attempt_row(job_id, attempt, created_by, started_at, timeout_at)?;
        // Only ever a later attempt than the latest (ingest checks), so always a change.
        self.change_job(job_id, |job| {
            job.latest_attempt = job.latest_attempt.max(attempt);
        })?;
        Ok(())
    }

    fn insert_attempt_row(
        &mut self,
        job_id: &str,
        attempt: i64,
        created_by: &str,
        started_at: Timestamp,
        timeout_at: Option<Timestamp>,
    ) -> Result<()> {
        let row = AttemptRow {
            job_id: job_id.to_owned(),
            attempt,
            created_by: created_by.to_owned(),
            started_at,
            timeout_at,
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
        let stood = self.job(t.job_id)?.map(|job| job.state);
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
            from_state: entry.from.map(JobState::as_str),
            to_state: entry.to.as_str(),
            applied: entry.applied,
            cause: entry.cause.to_owned(),
            line_seq: entry.line_seq,
            callback_seq: entry.callback_seq,
        });
    }

    /// Keeps a judged callback; returns its sequence number.
    pub fn insert_callback(&mut self, cb: &NewCallback<'_>) -> Result<i64> {
        self.execute(
            "INSERT INTO callbacks (line_seq, delivery_id, job_id, attempt, outcome, arrived_at,
                    timeout_at, disposition, reason, detail, job_state_before, replacement_attempt,
                    first_report_seq, linked_from_seq, judged_at, replacement_created_by,
                    replacement_started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            params![
                cb.line_seq,
                cb.delivery_id,
                cb.job_id,
                cb.attempt,
                cb.outcome.map(Outcome::as_str),
                cb.arrived_at,
                cb.timeout_at,
                cb.disposition.as_str(),
                cb.reason.as_str(),
                cb.detail,
                cb.job_state_before.map(JobState::as_str),
                cb.replacement_attempt,
                cb.first_report_seq,
                cb.linked_from_seq,
                cb.judged_at,
                cb.replacement_started.as_ref().map(|r| r.0.as_str()),
                cb.replacement_started.as_ref().map(|r| r.1)
            ],
        )?;
        self.counts.callback(cb.disposition);
        Ok(self.tx.last_insert_rowid())
    }

    /// Records an output object.
    pub fn insert_output(
        &mut self,
        job_id: &str,
        reference: &str,
        stored_at: Timestamp,
        retention_until: Option<Timestamp>,
        line_seq: i64,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO outputs (job_id, ref, stored_at, retention_until, line_seq)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            params![job_id, reference, stored_at, retention_until, line_seq],
        )?;
        Ok(())
    }

    /// Records a check of whether a job's output object exists.
    pub fn insert_output_check(
        &mut self,
        job_id: &str,
        at: Timestamp,
        exists: bool,
        line_seq: i64,
    ) -> Result<()> {
        self.execute(
                "INSERT INTO output_checks (job_id, checked_at, object_exists, line_seq) VALUES (?1, ?2, ?3, ?4)",
                params![job_id, at, exists, line_seq],
            )?;
        Ok(())
    }

    /// Records a notification that was sent.
    pub fn insert_notification(
        &mut self,
        job_id: &str,
        kind: &str,
        at: Timestamp,
        line_seq: i64,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO notifications (job_id, kind, sent_at, line_seq) VALUES (?1, ?2, ?3, ?4)",
            params![job_id, kind, at, line_seq],
        )?;
        Ok(())
    }

    /// Records a downstream decision; returns `true` when its id was seen before (suppressed).
    pub fn insert_decision(
        &mut self,
        decision_id: &str,
        job_id: &str,
        action: &str,
        at: Timestamp,
        line_seq: i64,
    ) -> Result<bool> {
        let seen = self
            .tx
            .prepare_cached("SELECT 1 FROM decisions WHERE decision_id = ?1 AND suppressed = 0")
            .and_then(|mut st| st.exists([decision_id]))
            .map_err(|e| self.err(e))?;
        self.execute(
            "INSERT INTO decisions (decision_id, job_id, action, at, suppressed, line_seq)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![decision_id, job_id, action, at, seen, line_seq],
        )?;
        Ok(seen)
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

    /// The callback with this sequence number.
    pub fn callback(&mut self, seq: i64) -> Result<Option<super::CallbackRow>> {
        // The row shows its replacement attempt, which may be kept behind.
        reads::callback(self.flushed()?, seq).map_err(|e| self.err(e))
    }

    /// The raw bytes of an input line.
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>> {
        reads::raw_line(&self.tx, line_seq).map_err(|e| self.err(e))
    }

    /// The standing (latest) answer to a callback.
    pub fn latest_answer(&self, callback_seq: i64) -> Result<Option<AnswerRow>> {
        reads::latest_answer(&self.tx, callback_seq).map_err(|e| self.err(e))
    }

    /// Appends an answer; returns its id.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_answer(
        &mut self,
        callback_seq: i64,
        verdict: &str,
        note: &str,
        reviewer: &str,
        answered_at: Timestamp,
        linked_job_id: Option<&str>,
        previous_answer: Option<i64>,
    ) -> Result<i64> {
        self.execute(
                "INSERT INTO answers (callback_seq, verdict, note, reviewer, answered_at, linked_job_id, previous_answer)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![callback_seq, verdict, note, reviewer, answered_at, linked_job_id, previous_answer],
            )?;
        Ok(self.tx.last_insert_rowid())
    }

    /// What the ledger knows about a job's output object.
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts> {
        reads::output_facts(&self.tx, job_id).map_err(|e| self.err(e))
    }

    /// Requests of a kind still pending for a job.
    pub fn pending_requests(&self, job_id: &str, request: &str) -> Result<i64> {
        self.tx
            .prepare_cached("SELECT count(*) FROM outbox WHERE job_id = ?1 AND request = ?2 AND status = 'pending'")
            .and_then(|mut st| st.query_row(params![job_id, request], |row| row.get(0)))
            .map_err(|e| self.err(e))
    }

    /// Puts a request in the outbox; returns its id.
    pub fn insert_request(
        &mut self,
        job: &JobRow,
        request: &str,
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
        Ok(self.tx.last_insert_rowid())
    }

    /// Writes a note about the ledger itself (replacing an earlier value).
    pub fn set_note(&mut self, key: &str, value: &str) -> Result<()> {
        self.execute(
                "INSERT INTO ledger_notes (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )?;
        Ok(())
    }

    /// Is there a job with this id?
    pub fn job_exists(&self, job_id: &str) -> Result<bool> {
        // A job's row is inserted at once (only its changes are kept behind).
        self.tx
            .prepare_cached("SELECT 1 FROM jobs WHERE job_id = ?1")
            .and_then(|mut st| st.exists([job_id]))
            .map_err(|e| self.err(e))
    }
}

/// Values a job gets when its acceptance leaves them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobDefaults {
    pub expected_age_s: i64,
    pub attempt_budget: i64,
}

impl Default for JobDefaults {
    fn default() -> Self {
        JobDefaults {
            expected_age_s: 3600,
            attempt_budget: 3,
        }
    }
}

/// One row of a job's history: a move asked for, and whether it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryEntry<'a> {
    pub job_id: &'a str,
    pub at: Timestamp,
    /// The state that stood when the move was asked (`None` before acceptance).
    pub from: Option<JobState>,
    pub to: JobState,
    /// Taken (`true`), or kept as evidence beside the state that stands.
    pub applied: bool,
    pub cause: &'a str,
    pub line_seq: Option<i64>,
    pub callback_seq: Option<i64>,
}
