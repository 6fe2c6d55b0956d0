//! The kinds of question a person is asked, and the closed set of verdicts each takes.

use super::{Disposition, ReasonCode};
use crate::closed_set::closed_set;

closed_set! {
    /// The kinds of question a person is asked; the name is how the question reads.
    pub enum CaseKind("kind of question") {
        /// Held: success reported while a replacement attempt exists.
        #[strum(serialize = "held, possible duplicate effect")]
        PossibleDuplicate,
        /// Held: the outcomes reported disagree.
        #[strum(serialize = "held, conflicting outcomes")]
        ConflictingOutcomes,
        /// Quarantined: no job to judge the callback against.
        Quarantined,
    }
}

impl CaseKind {
    /// The question a callback asks, if it asks one.
    pub fn of(disposition: Disposition, reason: ReasonCode) -> Option<CaseKind> {
        match (disposition, reason) {
            (Disposition::Hold, ReasonCode::PossibleDuplicateEffect) => {
                Some(CaseKind::PossibleDuplicate)
            }
            (Disposition::Hold, _) => Some(CaseKind::ConflictingOutcomes),
            (Disposition::Quarantine, _) => Some(CaseKind::Quarantined),
            (Disposition::Apply | Disposition::Record, _) => None,
        }
    }

    /// The verdicts this kind of question takes, in the order they are offered.
    pub fn verdicts(self) -> &'static [Verdict] {
        use Verdict::{
            DuplicateEffect, FailureStands, Linked, NeedsRemoteCheck, Noise, SingleEffect,
            SuccessStands,
        };
        match self {
            CaseKind::PossibleDuplicate => &[SingleEffect, DuplicateEffect, NeedsRemoteCheck],
            CaseKind::ConflictingOutcomes => &[SuccessStands, FailureStands, NeedsRemoteCheck],
            CaseKind::Quarantined => &[Linked, Noise, NeedsRemoteCheck],
        }
    }
}

closed_set! {
    /// A reviewer's verdict on a held or quarantined callback.
    pub enum Verdict("verdict") {
        SingleEffect,
        DuplicateEffect,
        SuccessStands,
        FailureStands,
        Linked,
        Noise,
        NeedsRemoteCheck,
    }
}

impl Verdict {
    /// What the verdict says, as help text and the answer form show it.
    pub fn description(self) -> &'static str {
        match self {
            Verdict::SingleEffect => "checked: the work took effect once",
            Verdict::DuplicateEffect => "checked: the work took effect twice; handle it outside",
            Verdict::SuccessStands => "the success report is the true one",
            Verdict::FailureStands => "the failure report is the true one",
            Verdict::Linked => {
                "belongs to a job you name; the table then judges it against that job"
            }
            Verdict::Noise => "not a report about any job of ours",
            Verdict::NeedsRemoteCheck => "only the remote system can tell; the question stays open",
        }
    }

    /// Whether a standing answer with this verdict closes its question; the one
    /// place that says `needs_remote_check` leaves it open (the store counts open
    /// questions with it too).
    pub fn closes(self) -> bool {
        match self {
            Verdict::NeedsRemoteCheck => false,
            Verdict::SingleEffect
            | Verdict::DuplicateEffect
            | Verdict::SuccessStands
            | Verdict::FailureStands
            | Verdict::Linked
            | Verdict::Noise => true,
        }
    }

    /// `linked` needs the id of the job the callback belongs to.
    pub fn needs_job(self) -> bool {
        match self {
            Verdict::Linked => true,
            Verdict::SingleEffect
            | Verdict::DuplicateEffect
            | Verdict::SuccessStands
            | Verdict::FailureStands
            | Verdict::Noise
            | Verdict::NeedsRemoteCheck => false,
        }
    }
}
