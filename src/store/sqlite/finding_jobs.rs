//! The jobs behind each reconciliation finding, as the Reconcile view's drill-down
//! lists them: keyset pages in job id order, and their counts.
//!
//! A finding is decided twice, once per way of reading: [`Finding::holds`] (with the
//! type, in the store's `finding_jobs.rs`) judges a job as the reconciliation walk
//! sees it (one pass over every job, `job_accounts.rs`), and [`Finding::condition`]
//! here says the same in SQL for a page of jobs. A test holds the counts of the two
//! equal on the demo and on a generated ledger.

use crate::store::{Finding, FindingJob};
use rusqlite::Row;

use super::decisions::DIVERGENT_JOB_IDS;
use super::filter::{Column, Columns, condition};
use super::query::Select;
use super::submissions::CONFLICTING_JOB_IDS;
use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::filter::{Field, Query};
use crate::store::PageRequest;

/// A job's latest output object is on record, and no check made since it was stored
/// found it missing (the latest such check decides): the rule of `output_facts`.
const OUTPUT_EXISTS: &str = "(EXISTS (SELECT 1 FROM outputs o WHERE o.job_id = j.job_id)
    AND coalesce((SELECT c.object_exists FROM output_checks c
         WHERE c.job_id = j.job_id AND c.checked_at >= (SELECT o.stored_at FROM outputs o
               WHERE o.job_id = j.job_id ORDER BY o.id DESC LIMIT 1)
         ORDER BY c.id DESC LIMIT 1), 1) = 1)";

const NOTIFIED: &str = "EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id)";

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
    /// The same as [`Finding::holds`], as a condition on `jobs j`.
    fn condition(self) -> String {
        match self {
            Finding::MissingTerminal => states_where(JobState::is_open),
            Finding::MissingOutput => format!(
                "{} AND NOT {OUTPUT_EXISTS}",
                states_where(JobState::has_success)
            ),
            Finding::MissingNotification => {
                format!("{} AND NOT {NOTIFIED}", states_where(JobState::is_terminal))
            }
            // Few jobs: SQLite walks the short list and finds each job by its key.
            Finding::DivergentDecisions => format!("j.job_id IN ({DIVERGENT_JOB_IDS})"),
            Finding::ConflictingSubmissions => format!("j.job_id IN ({CONFLICTING_JOB_IDS})"),
        }
    }

    /// The jobs of the finding kept by the text bound as `?1`.
    fn select(self, columns: &'static str) -> Select {
        Select::new(columns, "jobs j").filter(self.condition())
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
            "j.job_id",
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
