//! What a [`Writer`] keeps in memory and writes once: the jobs and attempts it has
//! read or changed, and the history rows it has appended (as the SQLite engine's
//! `write_behind.rs` does, and for the same reason: a job's events come close
//! together in a stream). Here each kind of row is written with one statement for all
//! of them (`unnest` of arrays), whatever their number: a batch costs a few round
//! trips to the server, not a few per line.
//!
//! A job's row is locked by the writer's first read of it (`FOR UPDATE`, see
//! `jobs.rs`), so what is kept here is the truth until the transaction ends, whoever
//! else writes the ledger. A job's own row is still inserted at once, as in SQLite: a
//! second writer accepting the same job waits for this one's transaction, then finds
//! the job.

use std::collections::HashMap;

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::store::postgres::Writer;
use crate::store::postgres::writer::{opt_time_text, time_text};
use crate::store::{AttemptRow, JobRow, StoreError};

/// Whether the ledger holds a remembered row as it is here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// As read or written.
    Yes,
    /// In the ledger, but changed here since.
    Changed,
    /// Not in the ledger yet.
    No,
}

#[derive(Debug)]
struct Kept<T> {
    row: T,
    written: Written,
    /// When it was first written here: rows go to the ledger in this order.
    order: u64,
}

/// One row of `job_history`, waiting to be appended.
#[derive(Debug)]
pub(in crate::store::postgres) struct HistoryRow {
    pub job_id: String,
    pub at: Timestamp,
    pub from_state: Option<JobState>,
    pub to_state: JobState,
    pub applied: bool,
    pub cause: String,
    pub line_seq: Option<i64>,
    pub callback_seq: Option<i64>,
}

/// Jobs remembered at most; then everything is written and forgotten.
const REMEMBERED_JOBS: usize = 4096;

#[derive(Debug, Default)]
pub(in crate::store::postgres) struct WriteBehind {
    jobs: HashMap<String, Kept<JobRow>>,
    attempts: HashMap<(String, i64), Kept<AttemptRow>>,
    history: Vec<HistoryRow>,
    next_order: u64,
    /// Something here is not in the ledger yet.
    dirty: bool,
}

impl WriteBehind {
    /// Nothing here waits to be written.
    pub fn is_clean(&self) -> bool {
        !self.dirty
    }

    /// So much is remembered that it should be written and forgotten first.
    pub fn is_full_with(&self, more: usize) -> bool {
        self.jobs.len() + self.attempts.len() + more > 2 * REMEMBERED_JOBS
    }

    /// Forgets everything (written before: see [`WriteBehind::is_full_with`]).
    pub fn forget(&mut self) {
        debug_assert!(!self.dirty);
        self.jobs.clear();
        self.attempts.clear();
    }

    pub fn job(&self, job_id: &str) -> Option<&JobRow> {
        self.jobs.get(job_id).map(|kept| &kept.row)
    }

    /// Remembers a job as the ledger holds it.
    pub fn remember_job(&mut self, job: JobRow) {
        let order = self.order();
        self.jobs.insert(
            job.job_id.clone(),
            Kept {
                row: job,
                written: Written::Yes,
                order,
            },
        );
    }

    /// Changes a remembered job; `false` when it is not remembered.
    pub fn change_job(&mut self, job_id: &str, change: impl FnOnce(&mut JobRow)) -> bool {
        let Some(kept) = self.jobs.get_mut(job_id) else {
            return false;
        };
        change(&mut kept.row);
        kept.written = Written::Changed;
        self.dirty = true;
        true
    }

    pub fn attempt(&self, job_id: &str, attempt: i64) -> Option<&AttemptRow> {
        self.attempts
            .get(&(job_id.to_owned(), attempt))
            .map(|kept| &kept.row)
    }

    /// Remembers an attempt: as the ledger holds it (`new` false), or a new one.
    pub fn remember_attempt(&mut self, row: AttemptRow, new: bool) {
        let order = self.order();
        self.dirty |= new;
        self.attempts.insert(
            (row.job_id.clone(), row.attempt),
            Kept {
                row,
                written: if new { Written::No } else { Written::Yes },
                order,
            },
        );
    }

    /// Changes a remembered attempt; `false` when it is not remembered.
    pub fn change_attempt(
        &mut self,
        job_id: &str,
        attempt: i64,
        change: impl FnOnce(&mut AttemptRow),
    ) -> bool {
        let Some(kept) = self.attempts.get_mut(&(job_id.to_owned(), attempt)) else {
            return false;
        };
        change(&mut kept.row);
        if kept.written == Written::Yes {
            kept.written = Written::Changed;
        }
        self.dirty = true;
        true
    }

    pub fn append_history(&mut self, row: HistoryRow) {
        self.history.push(row);
        self.dirty = true;
    }

    fn order(&mut self) -> u64 {
        self.next_order += 1;
        self.next_order
    }

    /// Writes every change kept here to the ledger: the jobs changed, the attempts new
    /// and changed, then the history in the order it was appended; one statement each.
    pub fn flush(&mut self, writer: &Writer<'_>) -> Result<(), StoreError> {
        let jobs = unwritten(&mut self.jobs);
        if !jobs.is_empty() {
            let mut ids = Vec::with_capacity(jobs.len());
            let mut states = Vec::with_capacity(jobs.len());
            let mut changed_at = Vec::with_capacity(jobs.len());
            let mut latest = Vec::with_capacity(jobs.len());
            let mut result_refs = Vec::with_capacity(jobs.len());
            let mut causes = Vec::with_capacity(jobs.len());
            let mut permanent = Vec::with_capacity(jobs.len());
            for kept in &jobs {
                let job = &kept.row;
                ids.push(job.job_id.as_str());
                states.push(job.state.as_str());
                changed_at.push(time_text(job.state_changed_at));
                latest.push(job.latest_attempt);
                result_refs.push(job.result_ref.as_deref());
                causes.push(job.failure_cause.as_deref());
                permanent.push(job.failure_permanent.map(i16::from));
            }
            writer.execute_direct(
                "UPDATE jobs SET state = u.state, state_changed_at = u.state_changed_at,
                        latest_attempt = u.latest_attempt, result_ref = u.result_ref,
                        failure_cause = u.failure_cause, failure_permanent = u.failure_permanent
                   FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[],
                               $6::text[], $7::smallint[])
                        AS u (job_id, state, state_changed_at, latest_attempt, result_ref,
                              failure_cause, failure_permanent)
                  WHERE jobs.job_id = u.job_id",
                &[
                    &ids,
                    &states,
                    &changed_at,
                    &latest,
                    &result_refs,
                    &causes,
                    &permanent,
                ],
            )?;
            drop(jobs);
            for kept in self.jobs.values_mut() {
                kept.written = Written::Yes;
            }
        }

        let attempts = unwritten(&mut self.attempts);
        for new in [true, false] {
            let rows: Vec<&AttemptRow> = attempts
                .iter()
                .filter(|kept| (kept.written == Written::No) == new)
                .map(|kept| &kept.row)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let ids: Vec<&str> = rows.iter().map(|a| a.job_id.as_str()).collect();
            let numbers: Vec<i64> = rows.iter().map(|a| a.attempt).collect();
            let created_by: Vec<&str> = rows.iter().map(|a| a.created_by.as_str()).collect();
            let started: Vec<String> = rows.iter().map(|a| time_text(a.started_at)).collect();
            let timeouts: Vec<Option<String>> =
                rows.iter().map(|a| opt_time_text(a.timeout_at)).collect();
            let states: Vec<&str> = rows.iter().map(|a| a.state.as_str()).collect();
            let timed_out: Vec<Option<String>> =
                rows.iter().map(|a| opt_time_text(a.timed_out_at)).collect();
            let params: [&(dyn postgres::types::ToSql + Sync); 7] = [
                &ids,
                &numbers,
                &created_by,
                &started,
                &timeouts,
                &states,
                &timed_out,
            ];
            if new {
                writer.execute_direct(
                    "INSERT INTO attempts (job_id, attempt, created_by, started_at, timeout_at,
                            state, timed_out_at)
                     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[],
                                          $5::text[], $6::text[], $7::text[])",
                    &params,
                )?;
            } else {
                writer.execute_direct(
                    "UPDATE attempts SET created_by = u.created_by, started_at = u.started_at,
                            timeout_at = u.timeout_at, state = u.state,
                            timed_out_at = u.timed_out_at
                       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                                   $6::text[], $7::text[])
                            AS u (job_id, attempt, created_by, started_at, timeout_at, state,
                                  timed_out_at)
                      WHERE attempts.job_id = u.job_id AND attempts.attempt = u.attempt",
                    &params,
                )?;
            }
        }
        drop(attempts);
        for kept in self.attempts.values_mut() {
            kept.written = Written::Yes;
        }

        let history = std::mem::take(&mut self.history);
        if !history.is_empty() {
            let ids: Vec<&str> = history.iter().map(|h| h.job_id.as_str()).collect();
            let at: Vec<String> = history.iter().map(|h| time_text(h.at)).collect();
            let from: Vec<Option<&str>> = history
                .iter()
                .map(|h| h.from_state.map(JobState::as_str))
                .collect();
            let to: Vec<&str> = history.iter().map(|h| h.to_state.as_str()).collect();
            let applied: Vec<i16> = history.iter().map(|h| i16::from(h.applied)).collect();
            let causes: Vec<&str> = history.iter().map(|h| h.cause.as_str()).collect();
            let lines: Vec<Option<i64>> = history.iter().map(|h| h.line_seq).collect();
            let callbacks: Vec<Option<i64>> = history.iter().map(|h| h.callback_seq).collect();
            // In the order appended: ids are given in the order of unnest's rows.
            writer.execute_direct(
                "INSERT INTO job_history (job_id, at, from_state, to_state, applied, cause,
                        line_seq, callback_seq)
                 SELECT job_id, at, from_state, to_state, applied, cause, line_seq, callback_seq
                   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::smallint[],
                               $6::text[], $7::bigint[], $8::bigint[])
                        WITH ORDINALITY AS h (job_id, at, from_state, to_state, applied, cause,
                                              line_seq, callback_seq, n)
                  ORDER BY n",
                &[&ids, &at, &from, &to, &applied, &causes, &lines, &callbacks],
            )?;
        }
        self.dirty = false;
        Ok(())
    }
}

/// The rows of `kept` the ledger does not hold as they are here, oldest first.
fn unwritten<K, T>(kept: &mut HashMap<K, Kept<T>>) -> Vec<&Kept<T>> {
    let mut rows: Vec<&Kept<T>> = kept
        .values()
        .filter(|kept| kept.written != Written::Yes)
        .collect();
    rows.sort_unstable_by_key(|kept| kept.order);
    rows
}
