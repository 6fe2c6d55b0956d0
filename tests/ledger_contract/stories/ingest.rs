//! Ingest: every line kept once, by its identity, with what became of it.

use jobledger::decision::{Disposition, JobState, ReasonCode};
use serde_json::json;

use super::{callbacks, list, seq_of, with_afternoon};
use crate::location::Location;
use crate::support::fixture::{booking_afternoon, demo_queue, line_with};

/// The afternoon goes in whole: each line kept with its bytes, the callbacks counted by
/// disposition, the one repeated submission rejected with its reason. The same stream
/// again is 31 lines already there, and the ledger says exactly what it said before.
pub fn every_line_is_kept_once_and_a_rerun_adds_nothing(location: &Location) {
    let afternoon = booking_afternoon();
    let said = location.ingest(&afternoon);
    assert!(
        said.starts_with("31 lines read: 0 already ingested, 0 blank, 25 events applied, 1 rejected, 5 callbacks (1 applied, 1 held, 2 recorded, 1 quarantined)"),
        "{said}"
    );
    let summary = location.json(&["summary", "--json"]);
    for (key, count) in [
        ("callbacks", 5),
        ("applied", 1),
        ("held", 1),
        ("recorded", 2),
        ("quarantined", 1),
        ("rejected_events", 1),
        ("outbox", 0),
    ] {
        assert_eq!(summary[key], count, "{key}: {summary}");
    }
    let listed = location.json(&["callbacks", "--json"]);
    let rejected = location.json(&["rejected", "--json"]);
    let rejected_rows = list(rejected.clone());
    assert_eq!(rejected_rows.len(), 1, "{rejected}");
    assert_eq!(rejected_rows[0]["event"], "job_accepted");
    let reason = rejected_rows[0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("conflicting_submission") && reason.contains("booking-1043"),
        "{reason}"
    );

    {
        let ledger = location.open_read_only();
        assert_eq!(ledger.line_count().unwrap(), 31);
        // A quarantined callback's line is kept byte for byte, whatever became of it.
        let seq = seq_of(location, "d-9999-a");
        let row = ledger.callback(seq).unwrap().expect("the callback is kept");
        assert_eq!(
            ledger.raw_line(row.line_seq).unwrap().as_deref(),
            Some(line_with(&afternoon, "d-9999-a").as_bytes())
        );
    }

    let again = location.ingest(&afternoon);
    assert!(
        again.starts_with(
            "31 lines read: 31 already ingested, 0 blank, 0 events applied, 0 rejected, 0 callbacks"
        ),
        "{again}"
    );
    assert_eq!(location.json(&["summary", "--json"]), summary);
    assert_eq!(location.json(&["callbacks", "--json"]), listed);
    assert_eq!(location.json(&["rejected", "--json"]), rejected);
    assert_eq!(location.open_read_only().line_count().unwrap(), 31);
}

/// C1 delivered twice: the second is recorded as a repeat of the first, whose
/// disposition stands, and the job's state does not move.
pub fn a_redelivery_is_recorded_beside_the_first(location: &Location) {
    with_afternoon(location);
    let first = seq_of(location, "d-1041-a");
    let before = location.open_read_only();
    let job_before = before.job("booking-1041").unwrap().expect("the job");
    let first_before = before.callback(first).unwrap().expect("the first delivery");
    drop(before);
    assert_eq!(job_before.state, JobState::CompletedLate);

    // The demo queue opens with C1 again, arriving later with more in its payload.
    let queue = demo_queue();
    let redelivery = line_with(&queue, "\"redelivery\":true");
    location.ingest(&format!("{redelivery}\n"));

    let rows = callbacks(location);
    let second = rows.last().expect("the redelivery is kept");
    assert_eq!(second["delivery_id"], "d-1041-a");
    assert_ne!(second["seq"], first);
    assert_eq!(second["disposition"], "record");
    assert_eq!(second["reason"], "repeat_report");
    assert_eq!(second["first_report_seq"], first);
    assert_eq!(second["arrived_at"], json!("2026-11-27T13:06:30.000Z"));

    let ledger = location.open_read_only();
    assert_eq!(ledger.callback(first).unwrap(), Some(first_before));
    let job_after = ledger.job("booking-1041").unwrap().expect("the job");
    assert_eq!(job_after, job_before, "a repeat never moves the job");
    let counts = ledger.disposition_counts().unwrap();
    assert_eq!(counts.get(Disposition::Record), 3);
    assert_eq!(counts.get(Disposition::Apply), 1);
    let repeat = ledger
        .callback(second["seq"].as_i64().expect("a number"))
        .unwrap()
        .expect("the repeat");
    assert_eq!(repeat.reason, ReasonCode::RepeatReport);
}
