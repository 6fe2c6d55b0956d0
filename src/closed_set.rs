//! Closed sets of names (states, dispositions, verdicts, ...) declared once each.
//!
//! `closed_set!` declares an enum whose values each have one stored name, the
//! variant's name in snake case (`CompletedLate` is `completed_late`; `strum`
//! derives the conversions), and gives it `ALL`, `as_str`, `parse`, `Display`
//! and `Serialize`. The store converts every such enum to and from SQL through
//! [`ClosedSet`], the command line offers them as clap value lists, so a new
//! variant is handled everywhere or does not build.
//!
//! The names are stored in the ledger and printed in JSON: renaming a variant
//! renames its value, so the test below pins every name.

/// An enum whose every value has one stored name.
pub trait ClosedSet: Copy + Sized + 'static {
    /// What the set is called in an error message ("job state").
    const WHAT: &'static str;
    /// Every value, in declaration order (the order reports list them).
    const ALL: &'static [Self];

    /// The name stored in the ledger and printed in reports.
    fn as_str(self) -> &'static str;

    /// Parses a stored name; `None` for any other text.
    fn parse(name: &str) -> Option<Self>;
}

/// Declares a closed set: `closed_set! { /// doc  pub enum Name("what it is") { Variant, ... } }`.
///
/// The enum gets `Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord`, an
/// inherent `ALL`, `as_str` and `parse` (callers need no trait in scope),
/// [`ClosedSet`], `Display` (the name, unpadded as it always was) and
/// `Serialize` (the name as a string). A variant may set its own name with
/// `#[strum(serialize = "...")]`.
macro_rules! closed_set {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            ::strum::IntoStaticStr, ::strum::EnumString,
        )]
        #[strum(serialize_all = "snake_case")]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in declaration order (the order reports list them).
            pub const ALL: [$name; [$($name::$variant),+].len()] = [$($name::$variant),+];

            /// The name stored in the ledger and printed in reports.
            pub fn as_str(self) -> &'static str {
                self.into()
            }

            /// Parses a stored name; `None` for any other text.
            pub fn parse(name: &str) -> Option<$name> {
                name.parse().ok()
            }
        }

        impl $crate::closed_set::ClosedSet for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [$name] = &$name::ALL;

            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }

            fn parse(name: &str) -> Option<$name> {
                $name::parse(name)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

pub(crate) use closed_set;

#[cfg(test)]
mod tests {
    use super::ClosedSet;
    use crate::decision::{Disposition, JobState, Outcome, ReasonCode, RejectionCode};
    use crate::event::EventKind;
    use crate::outbox::{RequestKind, RequestStatus};
    use crate::review::{CaseKind, Verdict};
    use crate::store::{AttemptState, LineStatus};

    fn names<T: ClosedSet>() -> String {
        T::ALL
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn round_trips<T: ClosedSet + PartialEq + std::fmt::Debug>() {
        for value in T::ALL {
            assert_eq!(T::parse(value.as_str()), Some(*value), "{}", T::WHAT);
        }
        assert_eq!(T::parse("no such name"), None, "{}", T::WHAT);
    }

    /// The ledger, the event stream and the JSON reports hold these names: a
    /// renamed variant must not rename what is already written.
    #[test]
    #[rustfmt::skip]
    fn stored_names_never_change() {
        assert_eq!(names::<JobState>(), "accepted running succeeded completed_late failed timed_out expired cancelled");
        assert_eq!(names::<Outcome>(), "success failure");
        assert_eq!(names::<Disposition>(), "apply hold record quarantine");
        assert_eq!(names::<ReasonCode>(), "unparseable missing_job_id invalid_outcome no_matching_job unknown_attempt repeat_report possible_duplicate_effect conflicting_outcomes after_cancel on_time_success on_time_failure late_success late_failure oversized");
        assert_eq!(names::<AttemptState>(), "running timed_out succeeded failed");
        assert_eq!(names::<LineStatus>(), "applied rejected callback");
        assert_eq!(names::<EventKind>(), "job_accepted attempt_started attempt_timed_out job_cancelled job_succeeded job_failed job_expired output_stored output_checked notification_sent decision");
        assert_eq!(names::<Verdict>(), "single_effect duplicate_effect success_stands failure_stands linked noise needs_remote_check");
        assert_eq!(names::<RequestKind>(), "retry cancel");
        assert_eq!(names::<RequestStatus>(), "pending withdrawn");
        assert_eq!(names::<RejectionCode>(), "malformed oversized no_accepted_job repeated_submission conflicting_submission unknown_attempt attempt_already_started attempt_already_timed_out unclassified");
        assert_eq!(CaseKind::ALL.map(CaseKind::as_str), ["held, possible duplicate effect", "held, conflicting outcomes", "quarantined"]);
    }

    #[test]
    fn every_name_reads_back_as_its_value() {
        round_trips::<JobState>();
        round_trips::<Outcome>();
        round_trips::<Disposition>();
        round_trips::<ReasonCode>();
        round_trips::<AttemptState>();
        round_trips::<LineStatus>();
        round_trips::<EventKind>();
        round_trips::<Verdict>();
        round_trips::<RequestKind>();
        round_trips::<RequestStatus>();
        round_trips::<RejectionCode>();
        round_trips::<CaseKind>();
    }
}
