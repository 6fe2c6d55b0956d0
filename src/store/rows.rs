//! Plain values read from and written to the ledger.

use serde::Serialize;

use crate::clock::Timestamp;
use crate::closed_set::closed_set;
use crate::decision::Verdict;
use crate::decision::{Disposition, JobState, Outcome, ReasonCode, RejectionCode};
use crate::decision::{RequestKind, RequestStatus};

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

/// A new input line about to be kept.
#[derive(Debug, Clone, Copy)]
pub struct NewLine<'a> {
    pub sha256: &'a [u8; 32],
    /// The identity the line had when a CR before its LF was kept as part of it (lines
    /// that ended in CRLF): kept under that one by an earlier jobledger, it is no new line.
    pub sha256_with_cr: Option<&'a [u8; 32]>,
    /// The line's bytes; for a line over the limit, only its first ones.
    pub raw: &'a [u8],
    /// The whole line's length, when `raw` holds only its first bytes.
    pub whole_length: Option<u64>,
    pub event: Option<&'a str>,
    pub status: LineStatus,
    pub reason: Option<&'a str>,
    pub ingested_at: Timestamp,
}

closed_set! {
    /// What became of an input line.
    pub enum LineStatus("line status") {
        /// A well-formed event, kept in the tables of its kind.
        Applied,
        /// A malformed event or one for an unknown job, kept with its reason.
        Rejected,
        /// A callback (or an unparseable line): see the callbacks table.
        Callback,
    }
}

/// A callback with its disposition, about to be kept.
#[derive(Debug, Clone)]
pub struct NewCallback<'a> {
    pub line_seq: i64,
    pub delivery_id: Option<&'a str>,
    pub job_id: Option<&'a str>,
    pub attempt: Option<i64>,
    pub outcome: Option<Outcome>,
    pub arrived_at: Option<Timestamp>,
    pub timeout_at: Option<Timestamp>,
    pub disposition: Disposition,
    pub reason: ReasonCode,
    pub detail: Option<&'a str>,
    pub job_state_before: Option<JobState>,
    pub replacement_attempt: Option<i64>,
    /// Who started the replacement attempt, and when (they never change).
    pub replacement_started: Option<(String, Timestamp)>,
    pub first_report_seq: Option<i64>,
    pub linked_from_seq: Option<i64>,
    pub judged_at: Timestamp,
}

/// What earlier callbacks said about the same job and attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClaimHistory {
    /// The first callback that made the same claim, if any.
    pub first_same: Option<i64>,
    /// Some earlier callback reported the opposite outcome.
    pub opposite: bool,
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

/// Callbacks counted by disposition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DispositionCounts {
    pub applied: i64,
    pub held: i64,
    pub recorded: i64,
    pub quarantined: i64,
}

impl DispositionCounts {
    /// All callbacks.
    pub fn total(&self) -> i64 {
        self.applied + self.held + self.recorded + self.quarantined
    }

    /// Counts one more callback of this disposition.
    pub fn add(&mut self, disposition: Disposition) {
        *self.slot(disposition) += 1;
    }

    /// The count for one disposition.
    pub fn get(&self, disposition: Disposition) -> i64 {
        match disposition {
            Disposition::Apply => self.applied,
            Disposition::Hold => self.held,
            Disposition::Record => self.recorded,
            Disposition::Quarantine => self.quarantined,
        }
    }

    fn slot(&mut self, disposition: Disposition) -> &mut i64 {
        match disposition {
            Disposition::Apply => &mut self.applied,
            Disposition::Hold => &mut self.held,
            Disposition::Record => &mut self.recorded,
            Disposition::Quarantine => &mut self.quarantined,
        }
    }
}

/// The replacement attempt shown beside a callback.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replacement {
    pub attempt: i64,
    pub created_by: String,
    pub started_at: Timestamp,
    #[serde(skip)]
    pub state: Option<AttemptState>,
}

/// A reviewer's answer to a held or quarantined callback.
///
/// Fields in alphabetical order: serialized in field order, they give the JSON
/// keys in the order reports have always printed them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerRow {
    pub answered_at: Timestamp,
    pub callback_seq: i64,
    pub id: i64,
    pub linked_job_id: Option<String>,
    pub note: String,
    pub reviewer: String,
    pub verdict: Verdict,
}

/// A reviewer's answer about to be appended.
#[derive(Debug, Clone, Copy)]
pub struct NewAnswer<'a> {
    pub callback_seq: i64,
    pub verdict: Verdict,
    pub note: &'a str,
    pub reviewer: &'a str,
    pub answered_at: Timestamp,
    /// The job a `linked` verdict names.
    pub linked_job_id: Option<&'a str>,
    /// The answer this one stands in front of, if any.
    pub previous_answer: Option<i64>,
}

/// A callback as reports and the console show it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackRow {
    pub seq: i64,
    pub line_seq: i64,
    pub delivery_id: Option<String>,
    pub job_id: Option<String>,
    pub attempt: Option<i64>,
    pub outcome: Option<Outcome>,
    pub arrived_at: Option<Timestamp>,
    pub timeout_at: Option<Timestamp>,
    pub disposition: Disposition,
    pub reason: ReasonCode,
    pub detail: Option<String>,
    pub first_report_seq: Option<i64>,
    pub linked_from_seq: Option<i64>,
    /// When the table gave its disposition (at ingest, or when an answer linked it).
    pub judged_at: Timestamp,
    pub replacement: Option<Replacement>,
    pub answer: Option<AnswerRow>,
}

impl CallbackRow {
    /// A question still open: held or quarantined, with no standing answer that
    /// closes it (the open-only lists keep the same rows).
    pub fn is_open_question(&self) -> bool {
        matches!(
            self.disposition,
            Disposition::Hold | Disposition::Quarantine
        ) && self.answer.as_ref().is_none_or(|a| !a.verdict.closes())
    }
}

/// Who owns a stuck job and when it escalates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnerRow {
    pub owner: String,
    pub escalate_at: Option<Timestamp>,
    pub set_by: String,
    pub set_at: Timestamp,
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

/// A request waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutboxRow {
    pub id: i64,
    pub job_id: String,
    pub request: RequestKind,
    pub attempt: Option<i64>,
    pub input_digest: Option<String>,
    pub model_digest: Option<String>,
    pub policy_revision: Option<String>,
    pub requested_by: String,
    pub requested_at: Timestamp,
    /// `withdrawn` when a withdrawal row names the request, else the row's own status.
    pub status: RequestStatus,
    /// Who took the request back, when and why (`None`: it was not withdrawn).
    pub withdrawal: Option<Withdrawal>,
}

/// A request taken back before it was sent: a row of its own, the request's row kept
/// as it was asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Withdrawal {
    pub withdrawn_by: String,
    pub withdrawn_at: Timestamp,
    pub note: String,
}

/// What a line says happened downstream of a job (each kept in its own table).
#[derive(Debug, Clone, Copy)]
pub enum Downstream<'a> {
    /// The job's output object was stored (kept until a time, or for good).
    OutputStored {
        reference: &'a str,
        stored_at: Timestamp,
        retention_until: Option<Timestamp>,
    },
    /// Someone checked whether the output object still exists.
    OutputChecked { at: Timestamp, exists: bool },
    /// A notification about the job was sent.
    NotificationSent { kind: &'a str, at: Timestamp },
}

/// What the ledger knows about a job's output object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputFacts {
    pub reference: Option<String>,
    pub retention_until: Option<Timestamp>,
    /// The latest existence check, when one was made after the object was stored.
    pub last_check_exists: Option<bool>,
}

impl OutputFacts {
    /// Stored, and not since found missing.
    pub fn exists(&self) -> bool {
        self.reference.is_some() && self.last_check_exists != Some(false)
    }
}

/// Requests still pending in the outbox for one job, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PendingRequests {
    pub retries: i64,
    pub cancels: i64,
}

impl PendingRequests {
    /// How many of `kind` are pending.
    pub fn of(self, kind: RequestKind) -> i64 {
        match kind {
            RequestKind::Retry => self.retries,
            RequestKind::Cancel => self.cancels,
        }
    }

    /// The kind of a pending request, `preferred` first when one of it waits.
    pub fn waiting(self, preferred: RequestKind) -> Option<RequestKind> {
        [preferred, RequestKind::Retry, RequestKind::Cancel]
            .into_iter()
            .find(|&kind| self.of(kind) > 0)
    }
}

/// A rejected input line (`rejected --json` prints it as it is).
///
/// Fields in alphabetical order of their JSON keys, the order reports have
/// always printed them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RejectedLine {
    /// Why it was rejected, as one of a closed set of names.
    pub code: RejectionCode,
    pub event: Option<String>,
    pub ingested_at: Timestamp,
    /// The line's sequence number in the ledger.
    #[serde(rename = "line")]
    pub seq: i64,
    /// The particulars, in a sentence (without the code).
    pub reason: String,
}
