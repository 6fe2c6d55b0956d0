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

const COLUMNS: &str =
    "j.job_id, j.state, j.accepted_at, j.state_changed_at, j.latest_attempt, NULL, NULL";

/// The same, with the standing answer on a job's divergent decisions (a person's work,
/// so few rows; each looked up for a page's jobs only).
const ANSWERED_COLUMNS: &str =
    "j.job_id, j.state, j.accepted_at, j.state_changed_at, j.latest_attempt,
     (SELECT a.verdict FROM decision_answers a WHERE a.job_id = j.job_id ORDER BY a.id DESC LIMIT 1),
     (SELECT a.reviewer FROM decision_answers a WHERE a.job_id = j.job_id ORDER BY a.id DESC LIMIT 1)";

/// Kept when the job id or its state contains `?1` (every job when it is NULL).
/// The query fields of a finding's jobs: a bare word is looked for in the job id and
/// its state.
const FINDING_FIELDS: Columns = Columns {
    field: finding_field,
    words: &["j.job_id", "j.state"],
    text_index: None,
};

fn finding_field(field: Field) -> Option<Column> {
    match field {
        Field::Job => Some(Column::Text("j.job_id")),
        Field::Age => Some(Column::AgeOf("j.accepted_at")),
        _ => None,
    }
}

impl Finding {
    /// The jobs of the finding, with `columns` (of `jobs j`).
    fn select(self, columns: &'static str) -> Select {
        match self {
            Finding::MissingTerminal => {
                Select::new(columns, "jobs j").filter(states_where(JobState::is_open))
            }
            kept => Select::new(
                columns,
                "reconcile_findings f JOIN jobs j ON j.job_id = f.job_id",
            )
            .filter(format!("f.finding = '{}'", kept.as_str())),
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

/// `j.state IN ('accepted', ...)`: the states `wanted` keeps, from the closed set.
fn states_where(wanted: fn(JobState) -> bool) -> String {
    let names: Vec<String> = JobState::ALL
        .into_iter()
        .filter(|&s| wanted(s))
        .map(|s| format!("'{}'", s.as_str()))
        .collect();
    format!("j.state IN ({})", names.join(", "))
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
        let query = condition(query, &FINDING_FIELDS, Some(now));
        let columns = match finding {
            Finding::DivergentDecisions => ANSWERED_COLUMNS,
            _ => COLUMNS,
        };
        self.seq_page(
            finding.select(columns),
            finding.key(),
            &query,
            page,
            finding_job_from,
        )
    }

    /// How many jobs `finding` names that `query` keeps (ages at `now`).
    pub fn finding_count_matching(
        &self,
        finding: Finding,
        now: Timestamp,
        query: &Query,
    ) -> Result<i64, StoreError> {
        let query = condition(query, &FINDING_FIELDS, Some(now));
        self.count_matching(finding.select("count(*)"), &query)
    }
}
