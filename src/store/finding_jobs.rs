//! The reconciliation's findings that name jobs, and a job as a finding's drill-down
//! lists it.

use super::JobAccount;
use crate::clock::Timestamp;
use crate::closed_set::closed_set;
use crate::decision::{DecisionVerdict, JobState};

closed_set! {
    /// A reconciliation finding that names jobs, in the order the report lists them.
    pub enum Finding("finding") {
        /// Accepted, and no terminal record yet.
        MissingTerminal,
        /// A success on record, but its output object does not exist.
        MissingOutput,
        /// Terminal, but never notified (informational).
        MissingNotification,
        /// Decided under more than one decision id: acting on each would act twice.
        DivergentDecisions,
        /// Its id submitted again with another identity (the first stands).
        ConflictingSubmissions,
    }
}

/// A job of a finding, as its drill-down lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingJob {
    pub job_id: String,
    pub state: JobState,
    pub accepted_at: Timestamp,
    /// When it entered its present state.
    pub state_changed_at: Timestamp,
    pub latest_attempt: i64,
    /// For a divergent-decision job: the standing answer's verdict and reviewer.
    pub answer: Option<(DecisionVerdict, String)>,
}

impl Finding {
    /// Does the finding name `job`, as the reconciliation walk sees it?
    pub fn holds(self, job: &JobAccount<'_>) -> bool {
        match self {
            Finding::MissingTerminal => job.state.is_open(),
            Finding::MissingOutput => job.state.has_success() && !job.output_exists,
            Finding::MissingNotification => job.state.is_terminal() && !job.notified,
            Finding::DivergentDecisions => job.divergent_decisions,
            Finding::ConflictingSubmissions => job.conflicting_submission,
        }
    }
}
