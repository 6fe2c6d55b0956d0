//! What a [`Writer`](super::Writer) keeps in memory and writes once: the jobs and
//! attempts it has read or changed, and the history rows it has appended.
//!
//! A job's events come close together in a stream. Written as they came, a job that is
//! accepted, started and finished cost a job `UPDATE` per transition, an attempt
//! `INSERT` and two `UPDATE`s, and a statement per history row. Kept here, the job gets
//! one `UPDATE` with its last state, the attempt one `INSERT`, and the history goes in
//! many rows to a statement.
//!
//! Within the writer's `BEGIN IMMEDIATE` transaction no one else writes, so what is
//! kept here is the truth. Everything is written before the transaction commits, and
//! before any read that looks at these tables by SQL ([`WriteBehind::flush`]). A job's
//! own row is still inserted at once: the rows that refer to it (foreign keys) then
//! always find it, and SQLite checks them without searching for orphans.

use std::collections::HashMap;

use rusqlite::{Transaction, params, params_from_iter};

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::store::{AttemptRow, JobRow};

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
pub(super) struct HistoryRow {
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
const REMEMBERED_JOBS: usize = 1024;

/// History rows per `INSERT` statement (8 parameters each, far below SQLite's limit).
const HISTORY_ROWS_PER_INSERT: usize = 64;

#[derive(Debug, Default)]
pub(super) struct WriteBehind {
    jobs: HashMap<String, Kept<JobRow>>,
    attempts: HashMap<(String, i64), Kept<AttemptRow>>,
    history: Vec<HistoryRow>,
    next_order: u64,
}

impl WriteBehind {
    pub fn job(&self, job_id: &str) -> Option<&JobRow> {
        self.jobs.get(job_id).map(|kept| &kept.row)
    }

    /// Remembers a job as the ledger holds it.
    pub fn remember_job(&mut self, tx: &Transaction<'_>, job: JobRow) -> rusqlite::Result<()> {
        self.make_room(tx)?;
        let order = self.order();
        self.jobs.insert(
            job.job_id.clone(),
            Kept {
                row: job,
                written: Written::Yes,
                order,
            },
        );
        Ok(())
    }

    /// Changes a remembered job; `false` when it is not remembered.
    pub fn change_job(&mut self, job_id: &str, change: impl FnOnce(&mut JobRow)) -> bool {
        let Some(kept) = self.jobs.get_mut(job_id) else {
            return false;
        };
        change(&mut kept.row);
        kept.written = Written::Changed;
        true
    }

    pub fn attempt(&self, job_id: &str, attempt: i64) -> Option<&AttemptRow> {
        self.attempts
            .get(&(job_id.to_owned(), attempt))
            .map(|kept| &kept.row)
    }

    /// Remembers an attempt: as the ledger holds it (`new` false), or a new one.
    pub fn remember_attempt(
        &mut self,
        tx: &Transaction<'_>,
        row: AttemptRow,
        new: bool,
    ) -> rusqlite::Result<()> {
        self.make_room(tx)?;
        let order = self.order();
        self.attempts.insert(
            (row.job_id.clone(), row.attempt),
            Kept {
                row,
                written: if new { Written::No } else { Written::Yes },
                order,
            },
        );
        Ok(())
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
        true
    }

    pub fn append_history(&mut self, row: HistoryRow) {
        self.history.push(row);
    }

    fn order(&mut self) -> u64 {
        self.next_order += 1;
        self.next_order
    }

    /// Writes everything and forgets it once too much is remembered.
    fn make_room(&mut self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        if self.jobs.len() + self.attempts.len() >= 2 * REMEMBERED_JOBS {
            self.flush(tx)?;
            self.jobs.clear();
            self.attempts.clear();
        }
        Ok(())
    }

    /// Writes every change kept here to the ledger, in the order it was made.
    pub fn flush(&mut self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        for kept in unwritten(&mut self.jobs) {
            let job = &kept.row;
            tx.prepare_cached(
                "UPDATE jobs SET state = ?2, state_changed_at = ?3, latest_attempt = ?4,
                    result_ref = ?5, failure_cause = ?6, failure_permanent = ?7
                 WHERE job_id = ?1",
            )?
            .execute(params![
                job.job_id,
                job.state,
                job.state_changed_at,
                job.latest_attempt,
                job.result_ref,
                job.failure_cause,
                job.failure_permanent
            ])?;
            kept.written = Written::Yes;
        }

        for kept in unwritten(&mut self.attempts) {
            let a = &kept.row;
            let sql = if kept.written == Written::No {
                "INSERT INTO attempts (job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            } else {
                "UPDATE attempts SET created_by = ?3, started_at = ?4, timeout_at = ?5, state = ?6,
                    timed_out_at = ?7
                 WHERE job_id = ?1 AND attempt = ?2"
            };
            tx.prepare_cached(sql)?.execute(params![
                a.job_id,
                a.attempt,
                a.created_by,
                a.started_at,
                a.timeout_at,
                a.state,
                a.timed_out_at
            ])?;
            kept.written = Written::Yes;
        }

        let history = std::mem::take(&mut self.history);
        let mut chunks = history.chunks_exact(HISTORY_ROWS_PER_INSERT);
        for chunk in &mut chunks {
            insert_history(tx, chunk)?;
        }
        for row in chunks.remainder() {
            insert_history(tx, std::slice::from_ref(row))?;
        }
        Ok(())
    }
}

/// The rows of `kept` the ledger does not hold as they are here, oldest first.
fn unwritten<K, T>(kept: &mut HashMap<K, Kept<T>>) -> Vec<&mut Kept<T>> {
    let mut rows: Vec<&mut Kept<T>> = kept
        .values_mut()
        .filter(|kept| kept.written != Written::Yes)
        .collect();
    rows.sort_unstable_by_key(|kept| kept.order);
    rows
}

/// Appends history rows with one statement (cached per number of rows: 1 or the chunk).
fn insert_history(tx: &Transaction<'_>, rows: &[HistoryRow]) -> rusqlite::Result<()> {
    let mut sql = String::from(
        "INSERT INTO job_history (job_id, at, from_state, to_state, applied, cause, line_seq, callback_seq) VALUES ",
    );
    for i in 0..rows.len() {
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str("(?, ?, ?, ?, ?, ?, ?, ?)");
    }
    let values = rows.iter().flat_map(|row| -> [&dyn rusqlite::ToSql; 8] {
        [
            &row.job_id,
            &row.at,
            &row.from_state,
            &row.to_state,
            &row.applied,
            &row.cause,
            &row.line_seq,
            &row.callback_seq,
        ]
    });
    tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
    Ok(())
}
