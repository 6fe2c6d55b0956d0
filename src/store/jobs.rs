//! Jobs, their attempts and their history, and the console's job lists.

use super::{JobOrder, OwnerRow};
use crate::clock::Timestamp;
use crate::closed_set::closed_set;
use crate::decision::JobState;
use crate::filter::SortColumn;

/// A job as the ledger holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    pub job_id: String,
    pub state: JobState,
    pub accepted_at: Timestamp,
    pub aged_at: Timestamp,
    pub timeout_s: Option<i64>,
    pub expected_age_s: i64,
    pub attempt_budget: i64,
    pub latest_attempt: i64,
    pub input_digest: Option<String>,
    pub model_digest: Option<String>,
    pub policy_revision: Option<String>,
    pub result_ref: Option<String>,
    pub failure_cause: Option<String>,
    pub failure_permanent: Option<bool>,
    pub state_changed_at: Timestamp,
}

closed_set! {
    /// The state of one attempt.
    pub enum AttemptState("attempt state") {
        Running,
        TimedOut,
        Succeeded,
        Failed,
    }
}

/// One attempt of a job.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRow {
    pub job_id: String,
    pub attempt: i64,
    pub created_by: String,
    pub started_at: Timestamp,
    pub timeout_at: Option<Timestamp>,
    pub state: AttemptState,
    pub timed_out_at: Option<Timestamp>,
}

/// An attempt to open, running from `started_at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewAttempt<'a> {
    pub job_id: &'a str,
    pub attempt: i64,
    pub created_by: &'a str,
    pub started_at: Timestamp,
    pub timeout_at: Option<Timestamp>,
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

/// A transition asked of a job, with why.
#[derive(Debug, Clone, Copy)]
pub struct Transition<'a> {
    pub job_id: &'a str,
    pub from: JobState,
    pub to: JobState,
    pub at: Timestamp,
    pub cause: &'a str,
    pub line_seq: Option<i64>,
    pub callback_seq: Option<i64>,
}

/// Fields written with a terminal transition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalRecord<'a> {
    pub result_ref: Option<&'a str>,
    pub failure_cause: Option<&'a str>,
    pub failure_permanent: Option<bool>,
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

/// An open job past its expected age.
#[derive(Debug, Clone, PartialEq)]
pub struct AgedJobRow {
    pub job_id: String,
    pub state: JobState,
    pub accepted_at: Timestamp,
    pub aged_at: Timestamp,
    pub expected_age_s: i64,
    pub owner: Option<OwnerRow>,
    /// What the list is ordered by (see [`AgedJobRow::order_for`]): when it aged, in
    /// the list's own order.
    pub order: JobOrder,
    /// The job's requests still pending in the outbox, when read for it (the Aged
    /// view reads them for the rows it shows); `None` otherwise.
    pub pending: Option<super::PendingRequests>,
}

impl AgedJobRow {
    /// What an Aged list sorted by `column` orders this job by (then by its id): when
    /// it aged (the list's own order), its escalation time (none: last), when it was
    /// accepted, or its owner (none: last) and when it aged.
    pub fn order_for(&self, column: SortColumn) -> JobOrder {
        match column {
            SortColumn::Escalation => JobOrder::At(
                self.owner
                    .as_ref()
                    .and_then(|o| o.escalate_at)
                    .unwrap_or(Timestamp::LATEST),
            ),
            SortColumn::Accepted => JobOrder::At(self.accepted_at),
            SortColumn::Owner => {
                JobOrder::Owner(self.owner.as_ref().map(|o| o.owner.clone()), self.aged_at)
            }
            _ => JobOrder::At(self.aged_at),
        }
    }
}

/// A failed job, for the review of failures.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedJobRow {
    pub job_id: String,
    pub failed_at: Timestamp,
    pub cause: Option<String>,
    pub permanent: Option<bool>,
    pub attempts_used: i64,
    pub attempt_budget: i64,
}
