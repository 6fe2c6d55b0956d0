//! The jobs behind each reconciliation finding, as the Reconcile view's drill-down
//! lists them: keyset pages in job id order, and their counts.
//!
//! The jobs a finding names are the rows the ledger keeps for it (judged at each
//! commit by [`Finding::holds`], the rule of the walk over every job, which `check`
//! holds them to), read as a range of their key; the jobs with no terminal record are
//! the open jobs, by state. Finding them by a condition on every job walked thousands
//! of jobs for a page of a rare finding at a million jobs.

use crate::store::{Finding, FindingJob};
use rusqlite::Row;

use super::filter::{Column, Columns, condition};
use super::query::Select;
use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::filter::{Field, Query};
use crate::store::PageRequest;
use crate::store::finding_jobs::asks_more_than_job_ids;

const COLUMNS: &str =
    "j.job_id, j.state, j.accepted_at, j.state_changed_at, j.latest_attempt, NULL, NULL";

/// The same, with the standing answer on a job's divergent decisions (a person's work,
/// so few rows; each looked up for a page's jobs only).
const ANSWERED_COLUMNS: &str =
    "j.job_id, j.state, j.accepted_at, j.state_changed_at, j.latest_attempt,
     (SELECT a.verdict FROM decision_answers a WHERE a.job_id = j.job_id ORDER BY a.id DESC LIMIT 1),
     (SELECT a.reviewer FROM decision_answers a WHERE a.job_id = j.job_id ORDER BY a.id DESC LIMIT 1)";

/// The query fields of the open jobs: a bare word is looked for in the job id and
/// its state.
const OPEN_FIELDS: Columns = Columns {
    field: open_field,
    words: &["j.job_id", "j.state"],
    text_index: None,
};

/// The query fields of a finding's kept jobs: the job id is the kept row's own, so
/// that a row the id leaves out is left before its job is looked up, and a count of
/// ids alone reads the kept rows only.
const KEPT_FIELDS: Columns = Columns {
    field: kept_field,
    words: &["f.job_id", "j.state"],
    text_index: None,
};

fn open_field(field: Field) -> Option<Column> {
    finding_field(field, "j.job_id")
}

fn kept_field(field: Field) -> Option<Column> {
    finding_field(field, "f.job_id")
}

fn finding_field(field: Field, job_id: &'static str) -> Option<Column> {
    match field {
        Field::Job => Some(Column::Text(job_id)),
        Field::Age => Some(Column::AgeOf("j.accepted_at")),
        _ => None,
    }
}

impl Finding {
    /// The jobs of the finding, with `columns` (of `jobs j`, or of the kept rows
    /// `f` alone unless `reads_jobs`: every kept row names a job, by its foreign key).
    fn select(self, columns: &'static str, reads_jobs: bool) -> Select {
        match self {
            Finding::MissingTerminal => {
                Select::new(columns, "jobs j").filter(states_where(JobState::is_open))
            }
            kept => Select::new(
                columns,
                if reads_jobs {
                    "reconcile_findings f JOIN jobs j ON j.job_id = f.job_id"
                } else {
                    "reconcile_findings f"
                },
            )
            .filter(format!("f.finding = '{}'", kept.as_str())),
        }
    }

    /// The query fields of the finding's jobs.
    fn fields(self) -> &'static Columns {
        match self {
            Finding::MissingTerminal => &OPEN_FIELDS,
            _ => &KEPT_FIELDS,
        }
    }

    /// The job id a page is ordered and keyed by: the kept rows' own, so that a page
    /// is read in order from their key.
    fn key(self) -> &'static str {
        match self {
            Finding::MissingTerminal => "j.job_id",
            _ => "f.job_id",
        }
    }
}

/// `(j.state = 'accepted' OR ...)`: the states `wanted` keeps, from the closed set,
/// in its order. Written as the open jobs' partial index `jobs_open_by_id` writes its
/// `WHERE`: SQLite reads a partial index only for a query whose terms hold the
/// index's as written, and `j.state IN (...)` made it scan every job (a filtered
/// count of the open jobs took 148 ms at 1,070,000 jobs, 18 ms by the index).
fn states_where(wanted: fn(JobState) -> bool) -> String {
    let names: Vec<String> = JobState::ALL
        .into_iter()
        .filter(|&s| wanted(s))
        .map(|s| format!("j.state = '{}'", s.as_str()))
        .collect();
    format!("({})", names.join(" OR "))
}

fn finding_job_from(row: &Row<'_>) -> rusqlite::Result<FindingJob> {
    Ok(FindingJob {
        job_id: row.get(0)?,
        state: row.get(1)?,
        accepted_at: row.get(2)?,
        state_changed_at: row.get(3)?,
        latest_attempt: row.get(4)?,
        answer: match (row.get(5)?, row.get(6)?) {
            (Some(verdict), Some(reviewer)) => Some((verdict, reviewer)),
            _ => None,
        },
    })
}

impl Ledger {
    /// One page of the jobs `finding` names, in job id order (as the report lists
    /// them), kept when `query` keeps them (ages at `now`).
    pub fn finding_jobs_page(
        &self,
        finding: Finding,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<String>,
    ) -> Result<Vec<FindingJob>, StoreError> {
        let query = condition(query, finding.fields(), Some(now));
        let columns = match finding {
            Finding::DivergentDecisions => ANSWERED_COLUMNS,
            _ => COLUMNS,
        };
        self.seq_page(
            finding.select(columns, true),
            finding.key(),
            &query,
            page,
            finding_job_from,
        )
    }

    /// How many jobs `finding` names that `query` keeps (ages at `now`): counted in
    /// the kept rows alone when the query asks only for job ids (`job:777` in the
    /// 72,574 jobs never notified, at 1,070,000 jobs: 51 ms of CPU with each row's job
    /// looked up, 20 ms without).
    pub fn finding_count_matching(
        &self,
        finding: Finding,
        now: Timestamp,
        query: &Query,
    ) -> Result<i64, StoreError> {
        let reads_jobs = asks_more_than_job_ids(query);
        let query = condition(query, finding.fields(), Some(now));
        self.count_matching(finding.select("count(*)", reads_jobs), &query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of counting `finding`'s jobs that `text` keeps, a step a line.
    fn count_plan(ledger: &Ledger, finding: Finding, text: &str) -> String {
        let query = Query::parse(text, crate::filter::Scope::FindingJobs).unwrap();
        let reads_jobs = asks_more_than_job_ids(&query);
        let query = condition(
            &query,
            finding.fields(),
            Timestamp::parse("2026-11-27T17:00:00Z"),
        );
        let select = finding.select("count(*)", reads_jobs);
        let select = match &query.sql {
            Some(sql) => select.filter(sql.clone()),
            None => select,
        };
        let mut st = ledger
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", select.sql()))
            .unwrap();
        let named: Vec<(&str, &dyn rusqlite::ToSql)> = query.named().collect();
        let plan: Vec<String> =
            super::super::filter::query_named(&mut st, &named, |row| row.get(3)).unwrap();
        plan.join("\n")
    }

    #[test]
    fn the_open_jobs_are_counted_by_their_own_index() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        for text in ["job:77", "late"] {
            let plan = count_plan(&ledger, Finding::MissingTerminal, text);
            assert!(plan.contains("jobs_open_by_id"), "{text:?}: {plan}");
        }
    }

    #[test]
    fn a_count_of_job_ids_alone_reads_the_kept_rows_alone() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        for text in ["job:77", "-job:77 job:1"] {
            let plan = count_plan(&ledger, Finding::MissingNotification, text);
            assert!(!plan.contains(" j "), "{text:?}: {plan}");
        }
        // A bare word looks in the state too, an age in the time of acceptance.
        for text in ["77", "age>1h job:77"] {
            let plan = count_plan(&ledger, Finding::MissingNotification, text);
            assert!(plan.contains(" j "), "{text:?}: {plan}");
        }
    }
}
