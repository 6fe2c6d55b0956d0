//! Dispositions: every callback gets the row of the table the specification names.

use jobledger::decision::JobState;
use serde_json::json;

use super::{callbacks, seq_of, with_afternoon};
use crate::location::Location;
use crate::support::fixture::demo_queue;

/// `(delivery id, disposition, reason)` of every callback, in ingest order.
fn judged(location: &Location) -> Vec<(String, String, String)> {
    callbacks(location)
        .iter()
        .map(|c| {
            (
                c["delivery_id"].as_str().unwrap_or("-").to_owned(),
                c["disposition"].as_str().expect("a disposition").to_owned(),
                c["reason"].as_str().expect("a reason").to_owned(),
            )
        })
        .collect()
}

fn rows(expected: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    expected
        .iter()
        .map(|(d, disposition, reason)| {
            (
                (*d).to_owned(),
                (*disposition).to_owned(),
                (*reason).to_owned(),
            )
        })
        .collect()
}

/// The worked example: C1 apply, C2 hold, C3 and C4 record, C5 quarantine, the jobs in
/// the states those dispositions leave; then the rest of the demo queue, which reaches
/// the table's other rows (a repeat, on-time reports, conflicting outcomes, a late
/// success after expiry, lines with no job or no JSON).
pub fn the_worked_example_gets_one_disposition_per_callback(location: &Location) {
    with_afternoon(location);
    let worked_example = [
        ("d-1041-a", "apply", "late_success"),
        ("d-1042-a", "hold", "possible_duplicate_effect"),
        ("d-1043-a", "record", "late_failure"),
        ("d-1044-a", "record", "after_cancel"),
        ("d-9999-a", "quarantine", "no_matching_job"),
    ];
    assert_eq!(judged(location), rows(&worked_example));
    {
        let ledger = location.open_read_only();
        let state = |job: &str| ledger.job(job).unwrap().expect("the job").state;
        assert_eq!(state("booking-1041"), JobState::CompletedLate);
        assert_eq!(state("booking-1042"), JobState::Running);
        assert_eq!(state("booking-1043"), JobState::TimedOut);
        assert_eq!(state("booking-1044"), JobState::Cancelled);
        assert_eq!(ledger.job("booking-9999").unwrap(), None);
        assert!(
            ledger.outbox().unwrap().is_empty(),
            "no disposition writes out"
        );
    }

    location.ingest(&demo_queue());
    let mut all = worked_example.to_vec();
    all.extend([
        ("d-1041-a", "record", "repeat_report"),
        ("d-1050-a", "apply", "on_time_success"),
        ("d-1052-a", "apply", "on_time_success"),
        ("d-1053-b", "apply", "on_time_success"),
        ("d-1054-a", "apply", "on_time_failure"),
        ("d-1054-b", "hold", "conflicting_outcomes"),
        ("d-1059-a", "apply", "late_success"),
        ("-", "quarantine", "unparseable"),
        ("d-anon-1", "quarantine", "missing_job_id"),
        ("d-9998-a", "quarantine", "no_matching_job"),
    ]);
    assert_eq!(judged(location), rows(&all));
    let ledger = location.open_read_only();
    let state = |job: &str| ledger.job(job).unwrap().expect("the job").state;
    assert_eq!(state("booking-1053"), JobState::Succeeded);
    assert_eq!(
        state("booking-1054"),
        JobState::Failed,
        "a hold moves nothing"
    );
    assert_eq!(state("booking-1059"), JobState::CompletedLate);
    assert!(
        ledger.outbox().unwrap().is_empty(),
        "no disposition writes out"
    );
}

/// C2's row carries its evidence side by side: the attempt's timeout, the arrival, the
/// gap between them, and the replacement attempt staff started meanwhile.
pub fn a_held_callback_shows_its_timeout_arrival_and_replacement(location: &Location) {
    with_afternoon(location);
    let held = location.json(&["callbacks", "--json", "--disposition", "hold"]);
    assert_eq!(
        held,
        json!([{
            "answer": null,
            "arrived_at": "2026-11-27T13:16:45.000Z",
            "attempt": 1,
            "claim": null,
            "delivery_id": "d-1042-a",
            "detail": null,
            "disposition": "hold",
            "first_report_seq": null,
            "gap_s": 284,
            "job_id": "booking-1042",
            "linked_from_seq": null,
            "outcome": "success",
            "reason": "possible_duplicate_effect",
            "replacement": {
                "attempt": 2,
                "created_by": "staff:maria",
                "started_at": "2026-11-27T13:14:30.000Z"
            },
            "seq": seq_of(location, "d-1042-a"),
            "timeout_at": "2026-11-27T13:12:01.000Z"
        }])
    );
    // The API's row says the same, with the replacement's state besides.
    let ledger = location.open_read_only();
    let row = ledger
        .callback(seq_of(location, "d-1042-a"))
        .unwrap()
        .expect("the held row");
    let replacement = row.replacement.as_ref().expect("a replacement");
    assert_eq!(
        replacement.state,
        Some(jobledger::store::AttemptState::Running)
    );
    assert_eq!(row.answer, None);
    assert!(row.is_open_question());
}
