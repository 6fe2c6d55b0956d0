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

/// A finding as the ledger keeps it: how many jobs it names, and the first of them in
/// job id order (bytewise), as the reconciliation walk would find them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindingKept {
    pub count: i64,
    pub first: Vec<String>,
}

/// The jobs accepted in one clock hour (UTC), as the ledger keeps them: by their state
/// now, and those two findings name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HourKept {
    /// The hour's start.
    pub start: Timestamp,
    /// By state now, in `JobState::ALL` order.
    pub states: [i64; JobState::ALL.len()],
    pub divergent_decisions: i64,
    pub conflicting_submissions: i64,
}

impl HourKept {
    /// An hour with nothing counted yet.
    pub fn at(start: Timestamp) -> HourKept {
        HourKept {
            start,
            states: [0; JobState::ALL.len()],
            divergent_decisions: 0,
            conflicting_submissions: 0,
        }
    }

    /// Adds `n` to the count named `name` as the ledger names its counts
    /// (`jobs.<state>`, or a finding's name); a name it does not know is left out.
    pub fn add(&mut self, name: &str, n: i64) {
        if let Some(state) = name.strip_prefix("jobs.") {
            if let Some(i) = JobState::ALL.iter().position(|s| s.as_str() == state) {
                self.states[i] += n;
            }
        } else if name == Finding::DivergentDecisions.as_str() {
            self.divergent_decisions += n;
        } else if name == Finding::ConflictingSubmissions.as_str() {
            self.conflicting_submissions += n;
        }
    }
}

/// Does `query` ask of a finding's jobs more than their ids: a bare word (which looks
/// in the job's state too) or an age term? The ledger's rows for a finding hold the
/// job id, so a query of ids alone is answered from them, without a job's row each.
pub(crate) fn asks_more_than_job_ids(query: &crate::filter::Query) -> bool {
    use crate::filter::{Field, Test};
    query
        .terms()
        .iter()
        .any(|term| !matches!(term.test, Test::Is(Field::Job, _)))
}
