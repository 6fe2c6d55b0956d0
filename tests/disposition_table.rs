//! The disposition table of SPEC sec. 2, checked three ways: one case per row (with
//! the worked example of the booking tool), an exhaustive comparison against a
//! second, spec-literal writing of the table, and the totals of the worked example.

mod support;

use jobledger::decision::{
    Claim, Decision, Disposition, EarlierClaims, Effect, Facts, JobState, Outcome, ReasonCode,
    Unusable, decide,
};
use rstest::rstest;
use support::fixture::{self, TempLedger};

use Disposition::{Apply, Hold, Quarantine, Record};
use JobState::{Accepted, Cancelled, CompletedLate, Expired, Failed, Running, Succeeded, TimedOut};
use Outcome::{Failure, Success};

/// What earlier callbacks for the same attempt claimed.
const fn earlier(same: bool, opposite: bool) -> EarlierClaims {
    EarlierClaims { same, opposite }
}

/// No earlier callback for the same attempt.
const FIRST: EarlierClaims = earlier(false, false);
/// The same claim is already in the ledger.
const SAME: EarlierClaims = earlier(true, false);
/// An earlier callback for the same attempt reported the opposite outcome.
const OPPOSITE: EarlierClaims = earlier(false, true);
/// Both the same claim and the opposite outcome were reported before.
const BOTH: EarlierClaims = earlier(true, true);

/// A callback naming an existing job and attempt.
const fn claim(
    job: JobState,
    outcome: Outcome,
    replacement: bool,
    earlier: EarlierClaims,
) -> Facts {
    Facts::Claim(Claim {
        job,
        outcome,
        replacement,
        earlier,
    })
}

// ---------------------------------------------------------------------------------------
// 1. One case per row, plus the worked example.
// ---------------------------------------------------------------------------------------

/// The booking tool of SPEC sec. 2 (120 s timeout), C1..C5.
mod worked_example {
    use super::*;

    /// Success for the attempt that timed out; no replacement.
    pub const C1: Facts = claim(TimedOut, Success, false, FIRST);
    /// Success for the attempt that timed out; staff created a replacement.
    pub const C2: Facts = claim(TimedOut, Success, true, FIRST);
    /// Failure for the attempt that timed out.
    pub const C3: Facts = claim(TimedOut, Failure, false, FIRST);
    /// Any outcome for a cancelled job.
    pub const C4: Facts = claim(Cancelled, Success, false, FIRST);
    /// An unknown job id.
    pub const C5: Facts = Facts::Unusable(Unusable::NoMatchingJob);

    pub const ALL: [Facts; 5] = [C1, C2, C3, C4, C5];
}

#[rstest]
#[rustfmt::skip] // one case a line, so the cases read as a table
// Row 1: nothing to judge against.
#[case::row1_unparseable(Facts::Unusable(Unusable::Unparseable), 1, Quarantine, ReasonCode::Unparseable, Effect::None)]
#[case::row1_missing_job_id(Facts::Unusable(Unusable::MissingJobId), 1, Quarantine, ReasonCode::MissingJobId, Effect::None)]
#[case::row1_invalid_outcome(Facts::Unusable(Unusable::InvalidOutcome), 1, Quarantine, ReasonCode::InvalidOutcome, Effect::None)]
#[case::row1_no_matching_job(Facts::Unusable(Unusable::NoMatchingJob), 1, Quarantine, ReasonCode::NoMatchingJob, Effect::None)]
#[case::row1_unknown_attempt(Facts::Unusable(Unusable::UnknownAttempt), 1, Quarantine, ReasonCode::UnknownAttempt, Effect::None)]
#[case::row1_oversized(Facts::Unusable(Unusable::Oversized), 1, Quarantine, ReasonCode::Oversized, Effect::None)]
// Row 2: the same claim is already in the ledger, whatever else holds.
#[case::row2_repeat_on_running(claim(Running, Success, false, SAME), 2, Record, ReasonCode::RepeatReport, Effect::None)]
#[case::row2_repeat_beats_replacement(claim(TimedOut, Success, true, SAME), 2, Record, ReasonCode::RepeatReport, Effect::None)]
#[case::row2_repeat_beats_conflict(claim(Running, Failure, false, BOTH), 2, Record, ReasonCode::RepeatReport, Effect::None)]
// Row 3: success while a replacement attempt exists.
#[case::row3_success_with_replacement(claim(Running, Success, true, FIRST), 3, Hold, ReasonCode::PossibleDuplicateEffect, Effect::None)]
#[case::row3_beats_cancel(claim(Cancelled, Success, true, FIRST), 3, Hold, ReasonCode::PossibleDuplicateEffect, Effect::None)]
// Row 4: conflicting outcomes.
#[case::row4_opposite_earlier(claim(Running, Failure, false, OPPOSITE), 4, Hold, ReasonCode::ConflictingOutcomes, Effect::None)]
#[case::row4_success_for_failed_job(claim(Failed, Success, false, FIRST), 4, Hold, ReasonCode::ConflictingOutcomes, Effect::None)]
#[case::row4_beats_succeeded(claim(Succeeded, Failure, false, OPPOSITE), 4, Hold, ReasonCode::ConflictingOutcomes, Effect::None)]
// Row 5: the job was cancelled.
#[case::row5_failure_after_cancel(claim(Cancelled, Failure, false, FIRST), 5, Record, ReasonCode::AfterCancel, Effect::None)]
#[case::row5_superseded_failure_after_cancel(claim(Cancelled, Failure, true, FIRST), 5, Record, ReasonCode::AfterCancel, Effect::None)]
// Row 6: the job's outcome is settled.
#[case::row6_success_for_succeeded(claim(Succeeded, Success, false, FIRST), 6, Record, ReasonCode::RepeatReport, Effect::None)]
#[case::row6_failure_for_succeeded(claim(Succeeded, Failure, false, FIRST), 6, Record, ReasonCode::RepeatReport, Effect::None)]
#[case::row6_failure_for_completed_late(claim(CompletedLate, Failure, true, FIRST), 6, Record, ReasonCode::RepeatReport, Effect::None)]
#[case::row6_failure_for_failed(claim(Failed, Failure, false, FIRST), 6, Record, ReasonCode::RepeatReport, Effect::None)]
// Rows 7 and 8: the latest attempt, still running, reports.
#[case::row7_on_time_success_accepted(claim(Accepted, Success, false, FIRST), 7, Apply, ReasonCode::OnTimeSuccess, Effect::Transition(Succeeded))]
#[case::row7_on_time_success_running(claim(Running, Success, false, FIRST), 7, Apply, ReasonCode::OnTimeSuccess, Effect::Transition(Succeeded))]
#[case::row8_on_time_failure(claim(Running, Failure, false, FIRST), 8, Apply, ReasonCode::OnTimeFailure, Effect::Transition(Failed))]
// Row 9: success after a timeout or expiry.
#[case::row9_success_after_expiry(claim(Expired, Success, false, FIRST), 9, Apply, ReasonCode::LateSuccess, Effect::Transition(CompletedLate))]
// Row 10: failure after a timeout, a replacement, or expiry.
#[case::row10_failure_superseded(claim(Running, Failure, true, FIRST), 10, Record, ReasonCode::LateFailure, Effect::None)]
#[case::row10_failure_after_expiry(claim(Expired, Failure, false, FIRST), 10, Record, ReasonCode::LateFailure, Effect::None)]
// The worked example of SPEC sec. 2.
#[case::c1_success_timed_out(worked_example::C1, 9, Apply, ReasonCode::LateSuccess, Effect::Transition(CompletedLate))]
#[case::c2_success_timed_out_staff_replacement(worked_example::C2, 3, Hold, ReasonCode::PossibleDuplicateEffect, Effect::None)]
#[case::c3_failure_timed_out(worked_example::C3, 10, Record, ReasonCode::LateFailure, Effect::None)]
#[case::c4_success_cancelled(worked_example::C4, 5, Record, ReasonCode::AfterCancel, Effect::None)]
#[case::c4_failure_cancelled(claim(Cancelled, Failure, false, FIRST), 5, Record, ReasonCode::AfterCancel, Effect::None)]
#[case::c5_unknown_job_id(worked_example::C5, 1, Quarantine, ReasonCode::NoMatchingJob, Effect::None)]
fn each_row(
    #[case] facts: Facts,
    #[case] row: u8,
    #[case] disposition: Disposition,
    #[case] reason: ReasonCode,
    #[case] effect: Effect,
) {
    assert_eq!(
        decide(facts),
        Decision {
            row,
            disposition,
            reason,
            effect,
        },
        "{facts:?}"
    );
}

// ---------------------------------------------------------------------------------------
// 2. Exhaustive: every input against a second, spec-literal writing of the table.
// ---------------------------------------------------------------------------------------

/// The words of the table's condition column, evaluated for one callback.
#[derive(Debug)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each flag is one phrase of the spec's condition column"
)]
struct Said {
    /// Row 1's reason, when the callback cannot be judged against any job.
    unusable: Option<&'static str>,
    job: Option<JobState>,
    success: bool,
    failure: bool,
    same_claim_in_ledger: bool,
    earlier_opposite_outcome: bool,
    replacement_exists: bool,
    attempt_is_latest: bool,
    attempt_still_running: bool,
    attempt_timed_out: bool,
    attempt_superseded: bool,
    job_expired: bool,
}

impl Said {
    fn of(facts: Facts) -> Said {
        match facts {
            Facts::Unusable(why) => Said {
                // Written out from the reason column rather than taken from the crate.
                unusable: Some(match why {
                    Unusable::Unparseable => "unparseable",
                    Unusable::MissingJobId => "missing_job_id",
                    Unusable::InvalidOutcome => "invalid_outcome",
                    Unusable::NoMatchingJob => "no_matching_job",
                    Unusable::UnknownAttempt => "unknown_attempt",
                    Unusable::Oversized => "oversized",
                }),
                job: None,
                success: false,
                failure: false,
                same_claim_in_ledger: false,
                earlier_opposite_outcome: false,
                replacement_exists: false,
                attempt_is_latest: false,
                attempt_still_running: false,
                attempt_timed_out: false,
                attempt_superseded: false,
                job_expired: false,
            },
            Facts::Claim(c) => {
                let latest = !c.replacement;
                Said {
                    unusable: None,
                    job: Some(c.job),
                    success: c.outcome == Success,
                    failure: c.outcome == Failure,
                    same_claim_in_ledger: c.earlier.same,
                    earlier_opposite_outcome: c.earlier.opposite,
                    replacement_exists: c.replacement,
                    attempt_is_latest: latest,
                    // An attempt times out only by an event, which moves the job to timed_out.
                    attempt_still_running: latest && matches!(c.job, Accepted | Running),
                    attempt_timed_out: latest && c.job == TimedOut,
                    attempt_superseded: c.replacement,
                    job_expired: c.job == Expired,
                }
            }
        }
    }

    fn job_is(&self, states: &[JobState]) -> bool {
        self.job.is_some_and(|job| states.contains(&job))
    }
}

/// One row of the table: condition, disposition, reason code and the state it moves the job to.
struct Row {
    number: u8,
    condition: fn(&Said) -> bool,
    disposition: &'static str,
    /// `None` for row 1, whose reason names why the callback is unusable.
    reason: Option<&'static str>,
    moves_job_to: Option<&'static str>,
}

/// SPEC sec. 2, row by row, in evaluation order.
const TABLE: [Row; 10] = [
    Row {
        number: 1,
        // line not parseable or over the size limit, no job id, outcome not success/failure, no such job, or no such attempt
        condition: |s| s.unusable.is_some(),
        disposition: "quarantine",
        reason: None,
        moves_job_to: None,
    },
    Row {
        number: 2,
        // the same claim (same job, attempt and outcome) is already in the ledger
        condition: |s| s.same_claim_in_ledger,
        disposition: "record",
        reason: Some("repeat_report"),
        moves_job_to: None,
    },
    Row {
        number: 3,
        // success reported and a replacement attempt exists
        condition: |s| s.success && s.replacement_exists,
        disposition: "hold",
        reason: Some("possible_duplicate_effect"),
        moves_job_to: None,
    },
    Row {
        number: 4,
        // an earlier callback for the same attempt reported the opposite outcome,
        // or success is reported for a failed job
        condition: |s| s.earlier_opposite_outcome || (s.success && s.job_is(&[Failed])),
        disposition: "hold",
        reason: Some("conflicting_outcomes"),
        moves_job_to: None,
    },
    Row {
        number: 5,
        // job cancelled
        condition: |s| s.job_is(&[Cancelled]),
        disposition: "record",
        reason: Some("after_cancel"),
        moves_job_to: None,
    },
    Row {
        number: 6,
        // job succeeded or completed_late (any outcome), or failed (failure)
        condition: |s| s.job_is(&[Succeeded, CompletedLate]) || (s.job_is(&[Failed]) && s.failure),
        disposition: "record",
        reason: Some("repeat_report"),
        moves_job_to: None,
    },
    Row {
        number: 7,
        // job accepted or running, and the reported attempt is its latest and still running; success
        condition: |s| {
            s.job_is(&[Accepted, Running])
                && s.attempt_is_latest
                && s.attempt_still_running
                && s.success
        },
        disposition: "apply",
        reason: Some("on_time_success"),
        moves_job_to: Some("succeeded"),
    },
    Row {
        number: 8,
        // job accepted or running, and the reported attempt is its latest and still running; failure
        condition: |s| {
            s.job_is(&[Accepted, Running])
                && s.attempt_is_latest
                && s.attempt_still_running
                && s.failure
        },
        disposition: "apply",
        reason: Some("on_time_failure"),
        moves_job_to: Some("failed"),
    },
    Row {
        number: 9,
        // the reported attempt timed out, or the job expired; success
        condition: |s| (s.attempt_timed_out || s.job_expired) && s.success,
        disposition: "apply",
        reason: Some("late_success"),
        moves_job_to: Some("completed_late"),
    },
    Row {
        number: 10,
        // the reported attempt timed out or was superseded, or the job expired; failure
        condition: |s| (s.attempt_timed_out || s.attempt_superseded || s.job_expired) && s.failure,
        disposition: "record",
        reason: Some("late_failure"),
        moves_job_to: None,
    },
];

/// Every input the table can see.
fn every_input() -> Vec<Facts> {
    let mut all: Vec<Facts> = Unusable::ALL.into_iter().map(Facts::Unusable).collect();
    for job in JobState::ALL {
        for outcome in [Success, Failure] {
            for replacement in [false, true] {
                for same in [false, true] {
                    for opposite in [false, true] {
                        all.push(claim(
                            job,
                            outcome,
                            replacement,
                            EarlierClaims { same, opposite },
                        ));
                    }
                }
            }
        }
    }
    all
}

#[test]
fn every_input_gets_the_first_matching_row_of_the_spec() {
    let inputs = every_input();
    assert_eq!(inputs.len(), 8 * 2 * 2 * 4 + 6);
    assert_eq!(inputs.len(), 134);

    let mut rows_used = [0_usize; 10];
    for facts in inputs {
        let said = Said::of(facts);
        let Some(spec) = TABLE.iter().find(|row| (row.condition)(&said)) else {
            panic!("no row of the table covers {facts:?} ({said:?})");
        };
        let got = decide(facts);
        let context = format!("{facts:?}");
        assert_eq!(got.row, spec.number, "row for {context}");
        assert_eq!(
            got.disposition.as_str(),
            spec.disposition,
            "disposition for {context}"
        );
        let reason = spec.reason.or(said.unusable).unwrap_or_default();
        assert_eq!(got.reason.as_str(), reason, "reason for {context}");
        let moved_to = match got.effect {
            Effect::None => None,
            Effect::Transition(state) => Some(state.as_str()),
        };
        assert_eq!(moved_to, spec.moves_job_to, "effect for {context}");
        rows_used[usize::from(spec.number) - 1] += 1;
    }
    // Every row is reachable: none is shadowed by the rows above it.
    for (index, used) in rows_used.iter().enumerate() {
        assert!(*used > 0, "row {} is never chosen", index + 1);
    }
}

#[test]
fn the_spec_rows_are_numbered_in_order() {
    for (index, row) in TABLE.iter().enumerate() {
        assert_eq!(usize::from(row.number), index + 1);
    }
}

// ---------------------------------------------------------------------------------------
// 3 and 4. The worked example's totals, and C1 delivered twice.
// ---------------------------------------------------------------------------------------

#[test]
fn worked_example_totals_add_up() {
    let count = |wanted: Disposition| {
        worked_example::ALL
            .into_iter()
            .filter(|&facts| decide(facts).disposition == wanted)
            .count()
    };
    let (applied, held, recorded, quarantined) =
        (count(Apply), count(Hold), count(Record), count(Quarantine));
    assert_eq!((applied, held, recorded, quarantined), (1, 1, 2, 1));
}

#[test]
fn every_callback_of_the_worked_example_is_stored_with_exactly_one_disposition() {
    let mut t = TempLedger::new();
    t.ingest(&fixture::booking_afternoon());
    let callback_lines = fixture::booking_afternoon()
        .lines()
        .filter(|line| line.contains(r#""event":"callback""#))
        .count();
    // Counted in the file, not in the code that decided: one row per callback line...
    let rows_per_line = fixture::query_i64(
        &t.path,
        "SELECT count(*) FROM (SELECT line_seq FROM callbacks GROUP BY line_seq HAVING count(*) <> 1)",
        [],
    );
    assert_eq!(rows_per_line, 0, "a callback line has no row or several");
    let stored = |disposition: &str| {
        fixture::query_i64(
            &t.path,
            "SELECT count(*) FROM callbacks WHERE disposition = ?1",
            [disposition],
        )
    };
    let counts = ["apply", "hold", "record", "quarantine"].map(stored);
    // ...and as many rows as lines, split as the worked example says.
    assert_eq!(
        counts.iter().sum::<i64>(),
        i64::try_from(callback_lines).unwrap()
    );
    assert_eq!(counts, [1, 1, 2, 1]);
}

#[test]
fn c1_delivered_twice_is_recorded_and_changes_nothing() {
    let Facts::Claim(first) = worked_example::C1 else {
        panic!("C1 names a job");
    };
    let Effect::Transition(after_first) = decide(worked_example::C1).effect else {
        panic!("C1 is applied");
    };
    // The repeat arrives once C1 is applied; it must not depend on that having happened.
    for job in [after_first, first.job] {
        let repeat = Facts::Claim(Claim {
            job,
            earlier: EarlierClaims {
                same: true,
                ..first.earlier
            },
            ..first
        });
        let got = decide(repeat);
        assert_eq!(got.row, 2, "{repeat:?}");
        assert_eq!(got.disposition, Record);
        assert_eq!(got.reason, ReasonCode::RepeatReport);
        assert_eq!(got.effect, Effect::None);
    }
}
