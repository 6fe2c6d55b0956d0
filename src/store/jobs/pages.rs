//! The job lists of the review console: keyset pages of aged and of failed jobs with
//! a text filter, and their counts under the filter.
//!
//! Every list is read by keyset, never by OFFSET, along an index holding its whole
//! key; the conditions that decide which jobs are aged or failed are the same as in
//! the counts.

use rusqlite::{Row, params};

use super::super::columns::{aged_from, failed_from};
use super::super::keyset::{JobKey, PageRequest};
use super::super::query::Select;
use super::super::rows::{AgedJobRow, FailedJobRow};
use super::super::{Ledger, StoreError};
use crate::clock::Timestamp;

type Result<T> = std::result::Result<T, StoreError>;

/// One job list: which jobs it holds and the time it is ordered by.
struct JobList {
    /// The columns shown.
    columns: &'static str,
    /// The joins the columns or the filter need.
    joins: &'static [&'static str],
    /// Which jobs are on the list, `?1` the filter text (or NULL), `?2` now.
    filter: &'static str,
    /// The column the list is ordered by, before the job id.
    order: &'static str,
}

/// The latest owner assignment of each job.
const LATEST_OWNER: &str = "LEFT JOIN owner_assignments o
      ON o.id = (SELECT max(id) FROM owner_assignments WHERE job_id = j.job_id)";

const AGED: JobList = JobList {
    columns: "j.job_id, j.state, j.accepted_at, j.aged_at, j.expected_age_s,
        o.owner, o.escalate_at, o.set_by, o.set_at",
    joins: &[LATEST_OWNER],
    filter:
        "(j.state = 'accepted' OR j.state = 'running' OR j.state = 'timed_out') AND j.aged_at <= ?2
        AND (?1 IS NULL OR instr(lower(j.job_id), lower(?1)) > 0 OR instr(j.state, lower(?1)) > 0
             OR instr(lower(coalesce(o.owner, 'unowned')), lower(?1)) > 0)",
    order: "j.aged_at",
};

const FAILED: JobList = JobList {
    columns: "j.job_id, j.state_changed_at, j.failure_cause,
        j.failure_permanent, j.latest_attempt, j.attempt_budget, j.accepted_at",
    joins: &[],
    filter: "j.state = 'failed'
        AND (?1 IS NULL OR instr(lower(j.job_id), lower(?1)) > 0
             OR instr(lower(coalesce(j.failure_cause, '')), lower(?1)) > 0)",
    order: "j.accepted_at",
};

impl JobList {
    /// The jobs on the list, with `columns`.
    fn select(&self, columns: &'static str) -> Select {
        self.joins
            .iter()
            .fold(Select::new(columns, "jobs j"), |select, join| {
                select.join(join)
            })
            .filter(self.filter)
    }

    /// One page, `?3`/`?4` its key.
    fn page(&self, page: &PageRequest<JobKey>) -> Select {
        let keyset = &page.keyset;
        let select = match keyset.comparison() {
            Some(op) => self
                .select(self.columns)
                .filter(format!("({}, j.job_id) {op} (?3, ?4)", self.order)),
            None => self.select(self.columns),
        };
        select
            .order_by(&[self.order, "j.job_id"], keyset.direction())
            .limit(page.limit)
    }
}

impl Ledger {
    /// One page of open jobs past their expected age at `now`, ordered by when they aged,
    /// kept when the job id, state or owner contains `text`.
    pub fn aged_jobs_page(
        &self,
        now: Timestamp,
        text: Option<&str>,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<AgedJobRow>> {
        self.job_page(&AGED, Some(now), text, page, aged_from)
    }

    /// One page of failed jobs in order of acceptance (the key's time is `accepted_at`),
    /// kept when the job id or cause contains `text`; each row comes with its key time.
    pub fn failed_jobs_page(
        &self,
        text: Option<&str>,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<(FailedJobRow, Timestamp)>> {
        self.job_page(&FAILED, None, text, page, failed_from)
    }

    fn job_page<T>(
        &self,
        list: &JobList,
        now: Option<Timestamp>,
        text: Option<&str>,
        page: &PageRequest<JobKey>,
        from_row: fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let sql = list.page(page).sql();
        let (key_at, key_id) = page.keyset.key().map(|(at, id)| (*at, id.as_str())).unzip();
        let mut rows: Vec<T> = self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            // Bind as many as the statement names (a first page names no key).
            let all: [&dyn rusqlite::ToSql; 4] = [&text, &now, &key_at, &key_id];
            let bound = &all[..st.parameter_count().min(all.len())];
            st.query_map(bound, from_row)?.collect()
        })?;
        if page.keyset.backwards() {
            rows.reverse();
        }
        Ok(rows)
    }

    /// Aged jobs at `now` that match `text` (all of them when `None`).
    pub fn aged_count_matching(&self, now: Timestamp, text: Option<&str>) -> Result<i64> {
        let sql = AGED.select("count(*)").sql();
        self.run(|c| {
            c.prepare_cached(&sql)?
                .query_row(params![text, now], |row| row.get(0))
        })
    }

    /// Failed jobs that match `text` (all of them when `None`).
    pub fn failed_count_matching(&self, text: Option<&str>) -> Result<i64> {
        let sql = FAILED.select("count(*)").sql();
        self.run(|c| c.prepare_cached(&sql)?.query_row([text], |row| row.get(0)))
    }
}
