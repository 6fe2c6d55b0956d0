//! Two things a retry or a client can do twice, judged without the ledger: decide
//! again under another decision id ([`DecisionVerdict`], a person's answer on it),
//! and submit a job id again with another identity ([`Identity::conflicts`]).

use super::{Rejection, RejectionCode};
use crate::closed_set::closed_set;

closed_set! {
    /// A reviewer's verdict on a job decided under more than one decision id.
    pub enum DecisionVerdict("decision verdict") {
        FirstStands,
        SecondStands,
        BothIntended,
        NeedsRemoteCheck,
    }
}

impl DecisionVerdict {
    /// What the verdict says, as help text and the answer form show it.
    pub fn description(self) -> &'static str {
        match self {
            DecisionVerdict::FirstStands => "the first decision stands; undo later ones outside",
            DecisionVerdict::SecondStands => "the later decision stands; undo the first outside",
            DecisionVerdict::BothIntended => "every decision was meant to act",
            DecisionVerdict::NeedsRemoteCheck => {
                "only downstream can tell what it acted on; stays open"
            }
        }
    }

    /// Whether a standing answer with this verdict closes the finding (the one place
    /// that says `needs_remote_check` leaves it open; the store counts with it too).
    pub fn closes(self) -> bool {
        match self {
            DecisionVerdict::FirstStands
            | DecisionVerdict::SecondStands
            | DecisionVerdict::BothIntended => true,
            DecisionVerdict::NeedsRemoteCheck => false,
        }
    }
}

/// What a submission says a job is: the identities a retry pins. A field a
/// submission does not give is unknown, not different.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Identity<'a> {
    pub input_digest: Option<&'a str>,
    pub model_digest: Option<&'a str>,
    pub policy_revision: Option<&'a str>,
}

/// One field two submissions of a job id give differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Difference<'a> {
    /// The field's name in the event.
    pub field: &'static str,
    pub first: &'a str,
    pub again: &'a str,
}

impl<'a> Identity<'a> {
    /// The fields `again` gives differently from `self` (the first submission),
    /// compared only where both give the field; empty when they agree.
    pub fn conflicts(&self, again: &Identity<'a>) -> Vec<Difference<'a>> {
        [
            ("input_digest", self.input_digest, again.input_digest),
            ("model_digest", self.model_digest, again.model_digest),
            (
                "policy_revision",
                self.policy_revision,
                again.policy_revision,
            ),
        ]
        .into_iter()
        .filter_map(|(field, first, again)| match (first, again) {
            (Some(first), Some(again)) if first != again => Some(Difference {
                field,
                first,
                again,
            }),
            _ => None,
        })
        .collect()
    }
}

/// The reason a conflicting resubmission is rejected with: each field that differs,
/// first value against this one.
pub fn conflict_reason(job_id: &str, differences: &[Difference<'_>]) -> Rejection {
    let fields: Vec<String> = differences
        .iter()
        .map(|d| format!("{} {:?} first, {:?} now", d.field, d.first, d.again))
        .collect();
    Rejection::new(
        RejectionCode::ConflictingSubmission,
        format!(
            "job {job_id:?} was submitted again with another identity ({}); the first identity stands",
            fields.join("; ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id<'a>(
        input: Option<&'a str>,
        model: Option<&'a str>,
        policy: Option<&'a str>,
    ) -> Identity<'a> {
        Identity {
            input_digest: input,
            model_digest: model,
            policy_revision: policy,
        }
    }

    #[test]
    fn the_same_identity_does_not_conflict() {
        let first = id(Some("sha256:a"), Some("m"), Some("r7"));
        assert!(first.conflicts(&first).is_empty());
    }

    #[test]
    fn a_different_digest_conflicts_and_names_both_values() {
        let first = id(Some("sha256:a"), Some("m"), None);
        let again = id(Some("sha256:b"), Some("m"), None);
        let found = first.conflicts(&again);
        assert_eq!(
            found,
            [Difference {
                field: "input_digest",
                first: "sha256:a",
                again: "sha256:b"
            }]
        );
        let reason = conflict_reason("j1", &found);
        assert_eq!(reason.code, RejectionCode::ConflictingSubmission);
        assert!(
            reason
                .sentence
                .contains(r#"input_digest "sha256:a" first, "sha256:b" now"#),
            "{reason}"
        );
    }

    #[test]
    fn a_field_either_side_omits_is_not_compared() {
        let first = id(Some("sha256:a"), None, Some("r7"));
        assert!(first.conflicts(&id(None, Some("m"), Some("r7"))).is_empty());
        assert!(
            id(None, None, None)
                .conflicts(&id(Some("x"), Some("y"), Some("z")))
                .is_empty()
        );
    }

    #[test]
    fn every_field_that_differs_is_named_in_event_order() {
        let first = id(Some("a"), Some("m1"), Some("r1"));
        let again = id(Some("b"), Some("m2"), Some("r2"));
        let fields: Vec<_> = first.conflicts(&again).iter().map(|d| d.field).collect();
        assert_eq!(fields, ["input_digest", "model_digest", "policy_revision"]);
    }

    #[test]
    fn only_needs_remote_check_leaves_the_finding_open() {
        let open: Vec<_> = DecisionVerdict::ALL
            .into_iter()
            .filter(|v| !v.closes())
            .collect();
        assert_eq!(open, [DecisionVerdict::NeedsRemoteCheck]);
    }
}
