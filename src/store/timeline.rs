//! A job's whole story in time order, as facts: what happened, with its values.
//! How each fact is worded is the console's business (`console/timeline.rs`).

use crate::clock::Timestamp;
use crate::decision::{DecisionVerdict, Verdict};
use crate::decision::{Disposition, JobState, Outcome, ReasonCode};
use crate::decision::{RequestKind, RequestStatus};

/// One entry of a job's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEntry {
    pub at: Timestamp,
    pub fact: TimelineFact,
}

/// What a timeline entry says happened.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineFact {
    /// A move of the job's state, taken (`applied`) or kept beside the state that stood.
    Moved {
        /// The state that stood (`None` before acceptance).
        from: Option<JobState>,
        to: JobState,
        applied: bool,
        cause: String,
    },
    /// An attempt began (its timeout time, when it has one).
    AttemptStarted {
        attempt: i64,
        created_by: String,
        timeout_at: Option<Timestamp>,
    },
    /// An attempt ran past its timeout.
    AttemptTimedOut { attempt: i64 },
    /// A callback arrived, and the disposition the table gave it.
    Callback {
        seq: i64,
        outcome: Option<Outcome>,
        attempt: Option<i64>,
        disposition: Disposition,
        reason: ReasonCode,
    },
    /// A reviewer answered one of the job's callbacks.
    Answer {
        callback_seq: i64,
        verdict: Verdict,
        reviewer: String,
        note: String,
        /// The database role that wrote the answer, when the ledger knows it.
        written_by: Option<String>,
    },
    /// The job's output object was stored (kept until a time, or for good).
    OutputStored {
        reference: String,
        retention_until: Option<Timestamp>,
    },
    /// Someone checked whether the output object still exists.
    OutputChecked { exists: bool },
    /// A notification about the job was sent.
    NotificationSent { kind: String },
    /// The job was given an owner (and a time to escalate), or its owner was cleared
    /// (no owner).
    OwnerSet {
        owner: Option<String>,
        set_by: String,
        escalate_at: Option<Timestamp>,
        /// The database role that wrote the assignment, when the ledger knows it.
        written_by: Option<String>,
    },
    /// A request (retry, cancel) was put in the outbox.
    Requested {
        request: RequestKind,
        requested_by: String,
        status: RequestStatus,
        /// The database role that wrote the request, when the ledger knows it.
        written_by: Option<String>,
    },
    /// A pending request was taken back (its own row; the request's is unchanged).
    Withdrawn {
        request_id: i64,
        request: RequestKind,
        withdrawn_by: String,
        note: String,
        /// The database role that wrote the withdrawal, when the ledger knows it.
        written_by: Option<String>,
    },
    /// The job id was submitted (on input line `line_seq`): again, or, for a job
    /// submitted again, first (beside its acceptance, to compare).
    Submitted {
        line_seq: i64,
        input_digest: Option<String>,
        model_digest: Option<String>,
        policy_revision: Option<String>,
        /// `None` for the first submission, which stands; for a repeat, whether its
        /// identity conflicts with the first (either way it was rejected).
        conflicting: Option<bool>,
    },
    /// A downstream decision about the job (suppressed: its id was seen before, so
    /// it was not acted on).
    Decision {
        decision_id: String,
        action: String,
        route: Option<String>,
        suppressed: bool,
    },
    /// A reviewer answered the job's divergent decisions.
    DecisionAnswer {
        verdict: DecisionVerdict,
        reviewer: String,
        note: String,
        /// The database role that wrote the answer, when the ledger knows it.
        written_by: Option<String>,
    },
}
