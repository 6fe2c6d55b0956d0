//! Reads the review console needs beyond the reports: keyset pages of jobs with a
//! text filter, counts under a filter, and the head of a raw line.
//!
//! Every list is read by keyset, never by OFFSET, along an index holding its whole
//! key; the conditions that decide which jobs are aged or failed are the same as in
//! `reads.rs`.

use rusqlite::{OptionalExtension, Row, params};

use super::rows::{AgedJobRow, FailedJobRow, OwnerRow};
use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::decision::JobState;

type Result<T> = std::result::Result<T, StoreError>;

/// Where a page of a list starts, by the key the list is ordered by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keyset<K> {
    /// The first rows.
    First,
    /// Rows from this key on (the key included): re-reading a page in place.
    From(K),
    /// Rows strictly after this key.
    After(K),
    /// Rows strictly before this key, the nearest ones (paging up).
    Before(K),
    /// The last rows.
    Last,
}

/// The key of a job list: the time it is ordered by, then the job id.
pub type JobKey = (Timestamp, String);

/// The conditions shared by the job lists' keyset pages.
struct JobPageSql {
    /// `WHERE` conditions without the keyset part; `?1` is the filter text, `?2` now.
    filter: &'static str,
    /// The column the list is ordered by, before the job id.
    order: &'static str,
}

impl JobPageSql {
    /// The keyset condition and order for `keyset`, with `?3`/`?4` its key. The limit
    /// is written in: bound as a parameter, it made SQLite prepare the statement again
    /// on every page.
    fn query(&self, select: &str, keyset: &Keyset<JobKey>, limit: i64) -> (String, bool) {
        let order = self.order;
        let (condition, direction, backwards) = match keyset {
            Keyset::First => ("1", "ASC", false),
            Keyset::From(_) => ("(ORDER_COL, j.job_id) >= (?3, ?4)", "ASC", false),
            Keyset::After(_) => ("(ORDER_COL, j.job_id) > (?3, ?4)", "ASC", false),
            Keyset::Before(_) => ("(ORDER_COL, j.job_id) < (?3, ?4)", "DESC", true),
            Keyset::Last => ("1", "DESC", true),
        };
        let condition = condition.replace("ORDER_COL", order);
        (
            format!(
                "{select} WHERE {} AND {condition} ORDER BY {order} {direction}, j.job_id {direction} LIMIT {limit}",
                self.filter
            ),
            backwards,
        )
    }
}

const AGED: JobPageSql = JobPageSql {
    filter:
        "(j.state = 'accepted' OR j.state = 'running' OR j.state = 'timed_out') AND j.aged_at <= ?2
        AND (?1 IS NULL OR instr(lower(j.job_id), lower(?1)) > 0 OR instr(j.state, lower(?1)) > 0
             OR instr(lower(coalesce(o.owner, 'unowned')), lower(?1)) > 0)",
    order: "j.aged_at",
};

const FAILED: JobPageSql = JobPageSql {
    filter: "j.state = 'failed'
        AND (?1 IS NULL OR instr(lower(j.job_id), lower(?1)) > 0
             OR instr(lower(coalesce(j.failure_cause, '')), lower(?1)) > 0)",
    order: "j.accepted_at",
};

const AGED_SELECT: &str = "SELECT j.job_id, j.state, j.accepted_at, j.aged_at, j.expected_age_s,
        o.owner, o.escalate_at, o.set_by, o.set_at
    FROM jobs j
    LEFT JOIN owner_assignments o
      ON o.id = (SELECT max(id) FROM owner_assignments WHERE job_id = j.job_id)";

const FAILED_SELECT: &str = "SELECT j.job_id, j.state_changed_at, j.failure_cause,
        j.failure_permanent, j.latest_attempt, j.attempt_budget, j.accepted_at
    FROM jobs j";

fn bad_state(text: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        1,
        rusqlite::types::Type::Text,
        format!("unexpected job state {text:?} in the ledger").into(),
    )
}

fn aged_from(row: &Row<'_>) -> rusqlite::Result<AgedJobRow> {
    let state: String = row.get(1)?;
    let owner = match row.get::<_, Option<String>>(5)? {
        Some(owner) => Some(OwnerRow {
            owner,
            escalate_at: row.get(6)?,
            set_by: row.get(7)?,
            set_at: row.get(8)?,
        }),
        None => None,
    };
    Ok(AgedJobRow {
        job_id: row.get(0)?,
        state: JobState::parse(&state).ok_or_else(|| bad_state(&state))?,
        accepted_at: row.get(2)?,
        aged_at: row.get(3)?,
        expected_age_s: row.get(4)?,
        owner,
    })
}

fn failed_from(row: &Row<'_>) -> rusqlite::Result<(FailedJobRow, Timestamp)> {
    Ok((
        FailedJobRow {
            job_id: row.get(0)?,
            failed_at: row.get(1)?,
            cause: row.get(2)?,
            permanent: row.get(3)?,
            attempts_used: row.get(4)?,
            attempt_budget: row.get(5)?,
        },
        row.get(6)?,
    ))
}

/// Accepted jobs still missing something, counted (the reconciliation at a glance).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MissingCounts {
    pub accepted: i64,
    pub missing_terminal: i64,
    pub missing_output: i64,
    pub missing_notification: i64,
}

/// Jobs submitted in one window and the state each is in now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowStates {
    pub start: Timestamp,
    pub state: JobState,
    pub jobs: i64,
}

impl Ledger {
    /// One page of open jobs past their expected age at `now`, ordered by when they aged,
    /// kept when the job id, state or owner contains `text`.
    pub fn aged_jobs_page(
        &self,
        now: Timestamp,
        text: Option<&str>,
        keyset: &Keyset<JobKey>,
        limit: usize,
    ) -> Result<Vec<AgedJobRow>> {
        self.job_page(
            &AGED,
            AGED_SELECT,
            Some(now),
            text,
            keyset,
            limit,
            aged_from,
        )
    }

    /// One page of failed jobs in order of acceptance (the key's time is `accepted_at`),
    /// kept when the job id or cause contains `text`; each row comes with its key time.
    pub fn failed_jobs_page(
        &self,
        text: Option<&str>,
        keyset: &Keyset<JobKey>,
        limit: usize,
    ) -> Result<Vec<(FailedJobRow, Timestamp)>> {
        self.job_page(
            &FAILED,
            FAILED_SELECT,
            None,
            text,
            keyset,
            limit,
            failed_from,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn job_page<T>(
        &self,
        list: &JobPageSql,
        select: &str,
        now: Option<Timestamp>,
        text: Option<&str>,
        keyset: &Keyset<JobKey>,
        limit: usize,
        from_row: fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let (sql, backwards) = list.query(select, keyset, limit);
        let (key_at, key_id) = match keyset {
            Keyset::From((at, id)) | Keyset::After((at, id)) | Keyset::Before((at, id)) => {
                (Some(*at), Some(id.as_str()))
            }
            Keyset::First | Keyset::Last => (None, None),
        };
        let mut rows: Vec<T> = self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut st| {
                // Bind as many as the statement names (a first page names no key).
                let all: [&dyn rusqlite::ToSql; 4] = [&text, &now, &key_at, &key_id];
                let bound = &all[..st.parameter_count().min(all.len())];
                st.query_map(bound, from_row)?.collect()
            })
            .map_err(|e| self.err(e))?;
        if backwards {
            rows.reverse();
        }
        Ok(rows)
    }

    /// Aged jobs at `now` that match `text` (all of them when `None`).
    pub fn aged_count_matching(&self, now: Timestamp, text: Option<&str>) -> Result<i64> {
        let sql = format!(
            "SELECT count(*) FROM jobs j LEFT JOIN owner_assignments o
               ON o.id = (SELECT max(id) FROM owner_assignments WHERE job_id = j.job_id)
             WHERE {}",
            AGED.filter
        );
        self.count(&sql, params![text, now])
    }

    /// Failed jobs that match `text` (all of them when `None`).
    pub fn failed_count_matching(&self, text: Option<&str>) -> Result<i64> {
        let sql = format!("SELECT count(*) FROM jobs j WHERE {}", FAILED.filter);
        self.count(&sql, [text])
    }

    fn count(&self, sql: &str, params: impl rusqlite::Params) -> Result<i64> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut st| st.query_row(params, |row| row.get(0)))
            .map_err(|e| self.err(e))
    }

    /// Requests of a kind still pending in the outbox for a job.
    pub fn pending_requests(&self, job_id: &str, request: &str) -> Result<i64> {
        self.conn
            .prepare_cached(
                "SELECT count(*) FROM outbox WHERE job_id = ?1 AND request = ?2 AND status = 'pending'",
            )
            .and_then(|mut st| st.query_row(params![job_id, request], |row| row.get(0)))
            .map_err(|e| self.err(e))
    }

    /// The first `max_bytes` of an input line, and its whole length in bytes.
    pub fn raw_head(&self, line_seq: i64, max_bytes: usize) -> Result<Option<(Vec<u8>, i64)>> {
        let max = i64::try_from(max_bytes).unwrap_or(i64::MAX);
        self.conn
            .prepare_cached(
                "SELECT substr(raw, 1, ?2), length(raw) FROM input_lines WHERE seq = ?1",
            )
            .and_then(|mut st| {
                st.query_row(params![line_seq, max], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()
            })
            .map_err(|e| self.err(e))
    }
}
