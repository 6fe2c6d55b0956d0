//! The jobs behind each reconciliation finding on PostgreSQL, as the Reconcile view's
//! drill-down lists them: keyset pages in job id order, and their counts (the SQLite
//! engine's `finding_jobs.rs`, read for read): the rows the ledger keeps for each
//! finding, and the open jobs by state for the jobs with no terminal record.

use postgres::Row;

use super::Ledger;
use super::columns::{Read, name, time};
use super::filter::{Column, Columns, Params, condition};
use super::query::Select;
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::filter::{Field, Query};
use crate::store::finding_jobs::asks_more_than_job_ids;
use crate::store::{Finding, FindingJob, PageRequest, StoreError};

const COLUMNS: &str = "j.job_id, j.state, j.accepted_at, j.state_changed_at, j.latest_attempt, NULL::text, NULL::text";

/// The same, with the standing answer on a job's divergent decisions.
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

/// The query fields of `finding`'s jobs.
fn finding_fields(finding: Finding) -> &'static Columns {
    match finding {
        Finding::MissingTerminal => &OPEN_FIELDS,
        _ => &KEPT_FIELDS,
    }
}

/// The jobs of the finding, with `columns` (of `jobs j`): the rows kept for it (judged
/// at each commit by [`Finding::holds`]), or the open jobs by state. Unless
/// `reads_jobs`, of the kept rows `f` alone: every one names a job, by its foreign key.
fn finding_select(finding: Finding, columns: &'static str, reads_jobs: bool) -> Select {
    match finding {
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

/// The job id a page is ordered and keyed by: the kept rows' own, read in order.
fn finding_key(finding: Finding) -> &'static str {
    match finding {
        Finding::MissingTerminal => "j.job_id",
        _ => "f.job_id",
    }
}

/// `j.state IN ('accepted', ...)`: the states `wanted` keeps, from the closed set.
fn states_where(wanted: fn(JobState) -> bool) -> String {
    let names: Vec<String> = JobState::ALL
        .into_iter()
        .filter(|&s| wanted(s))
        .map(|s| format!("'{}'", s.as_str()))
        .collect();
    format!("j.state IN ({})", names.join(", "))
}

fn finding_job_from(row: &Row) -> Read<FindingJob> {
    let verdict = row.try_get::<_, Option<String>>(5)?;
    let reviewer = row.try_get::<_, Option<String>>(6)?;
    Ok(FindingJob {
        job_id: row.try_get(0)?,
        state: name(row, 1)?,
        accepted_at: time(row, 2)?,
        state_changed_at: time(row, 3)?,
        latest_attempt: row.try_get(4)?,
        answer: match (verdict, reviewer) {
            (Some(_), Some(reviewer)) => Some((name(row, 5)?, reviewer)),
            _ => None,
        },
    })
}

impl Ledger {
    /// One page of the jobs `finding` names, in job id order, kept when `query` keeps
    /// them (ages at `now`).
    pub fn finding_jobs_page(
        &self,
        finding: Finding,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<String>,
    ) -> Result<Vec<FindingJob>, StoreError> {
        let mut params = Params::new();
        let query = condition(query, finding_fields(finding), Some(now), &mut params);
        let columns = match finding {
            Finding::DivergentDecisions => ANSWERED_COLUMNS,
            _ => COLUMNS,
        };
        self.seq_page(
            finding_select(finding, columns, true),
            finding_key(finding),
            query,
            params,
            page,
            finding_job_from,
        )
    }

    /// How many jobs `finding` names that `query` keeps (ages at `now`): counted in
    /// the kept rows alone when the query asks only for job ids.
    pub fn finding_count_matching(
        &self,
        finding: Finding,
        now: Timestamp,
        query: &Query,
    ) -> Result<i64, StoreError> {
        let reads_jobs = asks_more_than_job_ids(query);
        let mut params = Params::new();
        let query = condition(query, finding_fields(finding), Some(now), &mut params);
        self.count_matching(
            finding_select(finding, "count(*)", reads_jobs),
            query,
            &params,
        )
    }
}
