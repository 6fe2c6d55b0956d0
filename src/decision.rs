//! The disposition table of SPEC sec. 2: one pure function over plain facts.
//!
//! Nothing here touches the ledger or the terminal. Ingest gathers [`Facts`]
//! from the ledger, asks [`decide`], and writes what it is told. Beside the table
//! live the other closed sets the ledger stores: the questions a person is asked and
//! the verdicts each takes ([`CaseKind`], [`Verdict`]), and what a person may ask of
//! the outside ([`RequestKind`]).

mod divergence;
mod question;
mod rejection;
mod request;

pub use divergence::{DecisionVerdict, Difference, Identity, conflict_reason};
pub use question::{CaseKind, Verdict};
pub use rejection::{Rejection, RejectionCode};
pub use request::{RequestKind, RequestStatus};

use crate::closed_set::closed_set;

closed_set! {
    /// Every state a job can be in, in the order reports list them.
    pub enum JobState("job state") {
        Accepted,
        Running,
        Succeeded,
        CompletedLate,
        Failed,
        TimedOut,
        Expired,
        Cancelled,
    }
}

impl JobState {
    /// A job with a durable terminal record: its outcome is known, or it was given up on.
    pub fn is_terminal(self) -> bool {
        !self.is_open()
    }

    /// Still waiting for work to finish: no terminal record yet.
    pub fn is_open(self) -> bool {
        matches!(
            self,
            JobState::Accepted | JobState::Running | JobState::TimedOut
        )
    }

    /// A success is on record (on time or late).
    pub fn has_success(self) -> bool {
        matches!(self, JobState::Succeeded | JobState::CompletedLate)
    }
}

closed_set! {
    /// What a callback says happened.
    pub enum Outcome("outcome") {
        Success,
        Failure,
    }
}

/// Why a callback cannot be judged against any job (row 1 of the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unusable {
    Unparseable,
    MissingJobId,
    InvalidOutcome,
    NoMatchingJob,
    UnknownAttempt,
    /// The line was over the limit (`ingest --max-line-bytes`): only its first bytes
    /// are kept, so nothing in it can be read.
    Oversized,
}

impl Unusable {
    /// Every way a callback can be unusable.
    pub const ALL: [Unusable; 6] = [
        Unusable::Unparseable,
        Unusable::MissingJobId,
        Unusable::InvalidOutcome,
        Unusable::NoMatchingJob,
        Unusable::UnknownAttempt,
        Unusable::Oversized,
    ];
}

/// Earlier callbacks already in the ledger for the same job and attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EarlierClaims {
    /// An earlier callback made the very same claim (job, attempt, outcome).
    pub same: bool,
    /// An earlier callback for the same attempt reported the opposite outcome.
    pub opposite: bool,
}

/// A callback that names an existing job and attempt, with what the ledger knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    /// The job's state when the callback arrives.
    pub job: JobState,
    /// What the callback reports.
    pub outcome: Outcome,
    /// A later attempt of the same job exists (the reported one is superseded).
    pub replacement: bool,
    /// Earlier callbacks for the same attempt.
    pub earlier: EarlierClaims,
}

/// Everything the table looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Facts {
    Unusable(Unusable),
    Claim(Claim),
}

closed_set! {
    /// The four dispositions a callback can get, in report order.
    pub enum Disposition("disposition") {
        Apply,
        Hold,
        Record,
        Quarantine,
    }
}

impl Disposition {
    /// Held or quarantined: the callback waits for a person's answer (the review
    /// lists hold these).
    pub fn waits_for_a_person(self) -> bool {
        matches!(self, Disposition::Hold | Disposition::Quarantine)
    }
}

closed_set! {
    /// The reason code stored beside every disposition.
    pub enum ReasonCode("reason") {
        Unparseable,
        MissingJobId,
        InvalidOutcome,
        NoMatchingJob,
        UnknownAttempt,
        RepeatReport,
        PossibleDuplicateEffect,
        ConflictingOutcomes,
        AfterCancel,
        OnTimeSuccess,
        OnTimeFailure,
        LateSuccess,
        LateFailure,
        /// A line over the limit, kept as its first bytes (row 1). Listed last, so
        /// the reasons that came before it keep their places.
        Oversized,
    }
}

impl From<Unusable> for ReasonCode {
    fn from(why: Unusable) -> Self {
        match why {
            Unusable::Unparseable => ReasonCode::Unparseable,
            Unusable::MissingJobId => ReasonCode::MissingJobId,
            Unusable::InvalidOutcome => ReasonCode::InvalidOutcome,
            Unusable::NoMatchingJob => ReasonCode::NoMatchingJob,
            Unusable::UnknownAttempt => ReasonCode::UnknownAttempt,
            Unusable::Oversized => ReasonCode::Oversized,
        }
    }
}

/// What the table says to do with the job when a callback is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Nothing changes on the job.
    None,
    /// The job moves to this state (by a conditional transition).
    Transition(JobState),
}

/// The table's answer for one callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The row of SPEC sec. 2 that matched (1 to 10).
    pub row: u8,
    pub disposition: Disposition,
    pub reason: ReasonCode,
    pub effect: Effect,
}

const fn row(row: u8, disposition: Disposition, reason: ReasonCode, effect: Effect) -> Decision {
    Decision {
        row,
        disposition,
        reason,
        effect,
    }
}

/// Gives a callback its one disposition. Rows are tried in table order; the first match wins.
///
/// The match has no catch-all arm, so the compiler proves the table total: a new
/// state or fact that no row covers does not build.
///
/// C1 and C2 of the worked example: success for a timed-out job is applied late,
/// unless staff started a replacement attempt, when it is held for a person.
///
/// ```
/// use jobledger::decision::*;
///
/// let c1 = Claim {
///     job: JobState::TimedOut,
///     outcome: Outcome::Success,
///     replacement: false,
///     earlier: EarlierClaims::default(),
/// };
/// let applied = decide(Facts::Claim(c1));
/// assert_eq!(applied.disposition, Disposition::Apply);
/// assert_eq!(applied.effect, Effect::Transition(JobState::CompletedLate));
///
/// let c2 = Claim { job: JobState::Running, replacement: true, ..c1 };
/// let held = decide(Facts::Claim(c2));
/// assert_eq!(held.reason, ReasonCode::PossibleDuplicateEffect);
/// assert_eq!(held.effect, Effect::None);
/// ```
pub fn decide(facts: Facts) -> Decision {
    use Disposition::{Apply, Hold, Quarantine, Record};
    use JobState::{
        Accepted, Cancelled, CompletedLate, Expired, Failed, Running, Succeeded, TimedOut,
    };
    use Outcome::{Failure, Success};

    let claim = match facts {
        // 1: nothing to judge against; keep it for a person.
        Facts::Unusable(why) => return row(1, Quarantine, why.into(), Effect::None),
        Facts::Claim(claim) => claim,
    };
    let Claim {
        job,
        outcome,
        replacement,
        earlier,
    } = claim;
    // Columns: same claim seen, outcome, replacement exists, opposite claim seen, job state.
    match (earlier.same, outcome, replacement, earlier.opposite, job) {
        // 2: the same claim is already in the ledger.
        (true, ..) => row(2, Record, ReasonCode::RepeatReport, Effect::None),
        // 3: success while a replacement attempt exists: the effect may have happened twice.
        (false, Success, true, ..) => {
            row(3, Hold, ReasonCode::PossibleDuplicateEffect, Effect::None)
        }
        // 4: the opposite outcome was reported before, or success for a failed job.
        (false, _, _, true, _) | (false, Success, false, false, Failed) => {
            row(4, Hold, ReasonCode::ConflictingOutcomes, Effect::None)
        }
        // 5: the job was cancelled.
        (false, _, _, false, Cancelled) => row(5, Record, ReasonCode::AfterCancel, Effect::None),
        // 6: the job's outcome is already settled.
        (false, _, _, false, Succeeded | CompletedLate) | (false, Failure, _, false, Failed) => {
            row(6, Record, ReasonCode::RepeatReport, Effect::None)
        }
        // 7: the latest attempt, still running, reports success.
        (false, Success, false, false, Accepted | Running) => row(
            7,
            Apply,
            ReasonCode::OnTimeSuccess,
            Effect::Transition(Succeeded),
        ),
        // 8: the latest attempt, still running, reports failure.
        (false, Failure, false, false, Accepted | Running) => row(
            8,
            Apply,
            ReasonCode::OnTimeFailure,
            Effect::Transition(Failed),
        ),
        // 9: success after the attempt timed out or the job expired.
        (false, Success, false, false, TimedOut | Expired) => row(
            9,
            Apply,
            ReasonCode::LateSuccess,
            Effect::Transition(CompletedLate),
        ),
        // 10: failure after a timeout, a replacement, or expiry.
        (false, Failure, true, false, Accepted | Running | TimedOut | Expired)
        | (false, Failure, false, false, TimedOut | Expired) => {
            row(10, Record, ReasonCode::LateFailure, Effect::None)
        }
    }
}
