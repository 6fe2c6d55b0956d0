//! The acceptance checks through the library: the worked example of SPEC sec. 2 in a
//! ledger on a temporary file, its redelivery, the held row's evidence, raw bytes
//! kept exactly, and the demo's reconciliation (checks 1 to 6). Idempotent and
//! crash-safe ingest: `acceptance_rerun.rs`; totals that add up: `acceptance_totals.rs`.

mod support;

use support::fixture;

use fixture::{TempLedger, applied_history, at, booking_afternoon, demo_queue, line_with, now};
use jobledger::decision::{Disposition, JobState, Outcome, ReasonCode};
use jobledger::demo::DemoData;
use jobledger::reconcile::{self, DEFAULT_REVIEW_CAPACITY};
use jobledger::store::{AttemptState, DispositionCounts, Replacement, TimelineFact};

/// Replaces the arrival time of a callback line, keeping everything else.
fn redelivered(line: &str, arrival: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    value["at"] = serde_json::Value::from(arrival);
    let text = value.to_string();
    assert_ne!(text, line, "the redelivery must be a different line");
    text
}

/// The lines of `stream` before the one holding `needle`, that line, and the lines after.
fn split_at_line<'a>(stream: &'a str, needle: &str) -> (String, &'a str, String) {
    let lines: Vec<&str> = stream.lines().collect();
    let index = lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line holds {needle:?}"));
    let join = |part: &[&str]| part.iter().flat_map(|l| [*l, "\n"]).collect::<String>();
    (
        join(&lines[..index]),
        lines[index],
        join(&lines[index + 1..]),
    )
}

// ---------------------------------------------------------------------------------------
// 1. The worked example.
// ---------------------------------------------------------------------------------------

#[test]
fn worked_example_gives_one_applied_one_held_two_recorded_one_quarantined() {
    let mut t = TempLedger::new();
    let report = t.ingest(&booking_afternoon());

    let expected = DispositionCounts {
        applied: 1,
        held: 1,
        recorded: 2,
        quarantined: 1,
    };
    assert_eq!(report.callbacks, expected, "{report}");
    assert_eq!(t.ledger.disposition_counts().unwrap(), expected);
    // The one rejected line is booking-1043 submitted again for other input.
    assert_eq!(report.events_rejected, 1, "{report}");

    // Each of C1..C5 got the row of the table the spec names.
    let judged: Vec<(String, Disposition, ReasonCode)> = t
        .callbacks(None)
        .into_iter()
        .map(|c| (c.delivery_id.unwrap_or_default(), c.disposition, c.reason))
        .collect();
    assert_eq!(
        judged,
        [
            (
                "d-1041-a".into(),
                Disposition::Apply,
                ReasonCode::LateSuccess
            ),
            (
                "d-1042-a".into(),
                Disposition::Hold,
                ReasonCode::PossibleDuplicateEffect
            ),
            (
                "d-1043-a".into(),
                Disposition::Record,
                ReasonCode::LateFailure
            ),
            (
                "d-1044-a".into(),
                Disposition::Record,
                ReasonCode::AfterCancel
            ),
            (
                "d-9999-a".into(),
                Disposition::Quarantine,
                ReasonCode::NoMatchingJob
            ),
        ]
    );

    let state = |job: &str| t.ledger.job(job).unwrap().expect("job exists").state;
    assert_eq!(state("booking-1041"), JobState::CompletedLate);
    assert_eq!(state("booking-1042"), JobState::Running);
    assert_eq!(state("booking-1043"), JobState::TimedOut);
    assert_eq!(state("booking-1044"), JobState::Cancelled);
    assert!(t.ledger.job("booking-9999").unwrap().is_none());

    // C1's late success keeps the timeout in the job's history.
    let history = applied_history(&t.path, "booking-1041");
    assert!(
        history
            .iter()
            .any(|h| h.starts_with("running -> timed_out")),
        "{history:#?}"
    );
    assert!(
        history
            .last()
            .is_some_and(|h| h.starts_with("timed_out -> completed_late")),
        "{history:#?}"
    );

    // No disposition writes to the outside.
    assert!(t.ledger.outbox().unwrap().is_empty());
    assert_eq!(t.ledger.outbox_pending().unwrap(), 0);
}

#[test]
fn the_embedded_worked_example_is_the_asset_file() {
    assert_eq!(jobledger::demo::BOOKING_AFTERNOON, booking_afternoon());
    assert_eq!(jobledger::demo::DEMO_QUEUE, demo_queue());
}

// ---------------------------------------------------------------------------------------
// 2. C1 delivered twice.
// ---------------------------------------------------------------------------------------

#[test]
fn c1_delivered_twice_is_recorded_as_a_repeat_and_changes_nothing() {
    let mut t = TempLedger::new();
    let afternoon = booking_afternoon();
    t.ingest(&afternoon);
    let first = t.by_delivery("d-1041-a");
    let job_before = t.ledger.job("booking-1041").unwrap().expect("job exists");
    let attempts_before = t.ledger.attempts("booking-1041").unwrap();
    let history_before = applied_history(&t.path, "booking-1041");
    let timeline_before = t.ledger.timeline("booking-1041").unwrap();

    let again = redelivered(line_with(&afternoon, "d-1041-a"), "2026-11-27T13:09:00Z");
    let report = t.ingest(&format!("{again}\n"));

    assert_eq!(
        report.callbacks,
        DispositionCounts {
            recorded: 1,
            ..DispositionCounts::default()
        },
        "{report}"
    );
    let rows = t.callbacks(None);
    let second = rows.last().expect("the redelivery is kept");
    assert_ne!(second.seq, first.seq);
    assert_eq!(second.delivery_id.as_deref(), Some("d-1041-a"));
    assert_eq!(second.disposition, Disposition::Record);
    assert_eq!(second.reason, ReasonCode::RepeatReport);
    assert_eq!(second.first_report_seq, Some(first.seq));
    assert_eq!(second.arrived_at, Some(at("2026-11-27T13:09:00Z")));
    // The first delivery's disposition stands.
    assert_eq!(t.ledger.callback(first.seq).unwrap(), Some(first));

    let job_after = t.ledger.job("booking-1041").unwrap().expect("job exists");
    assert_eq!(job_after.state, JobState::CompletedLate);
    assert_eq!(job_after, job_before, "the repeat must not touch the job");
    assert_eq!(t.ledger.attempts("booking-1041").unwrap(), attempts_before);
    assert_eq!(
        applied_history(&t.path, "booking-1041"),
        history_before,
        "nothing new applied"
    );
    // The timeline gains the repeat as evidence, and nothing else.
    let timeline_after = t.ledger.timeline("booking-1041").unwrap();
    let added: Vec<_> = timeline_after
        .iter()
        .filter(|e| !timeline_before.contains(e))
        .collect();
    assert_eq!(added.len(), 1, "{added:#?}");
    assert!(
        matches!(
            added[0].fact,
            TimelineFact::Callback {
                disposition: Disposition::Record,
                reason: ReasonCode::RepeatReport,
                ..
            }
        ),
        "{added:#?}"
    );
    assert_eq!(timeline_after.len(), timeline_before.len() + 1);
}

// ---------------------------------------------------------------------------------------
// 3. C2 is held: no retry, no cancellation, no state change.
// ---------------------------------------------------------------------------------------

#[test]
fn c2_is_held_without_retry_cancel_or_state_change() {
    let mut t = TempLedger::new();
    let afternoon = booking_afternoon();
    let (before, c2, after) = split_at_line(&afternoon, "d-1042-a");
    t.ingest(&before);
    let job_before = t.ledger.job("booking-1042").unwrap().expect("job exists");
    let attempts_before = t.ledger.attempts("booking-1042").unwrap();
    let history_before = applied_history(&t.path, "booking-1042");
    assert_eq!(job_before.state, JobState::Running);
    assert_eq!(attempts_before.len(), 2, "{attempts_before:#?}");

    let report = t.ingest(&format!("{c2}\n"));
    assert_eq!(report.callbacks.held, 1, "{report}");
    let held = t.by_delivery("d-1042-a");
    assert_eq!(held.disposition, Disposition::Hold);
    assert_eq!(held.reason, ReasonCode::PossibleDuplicateEffect);

    assert_eq!(t.ledger.job("booking-1042").unwrap(), Some(job_before));
    assert_eq!(t.ledger.attempts("booking-1042").unwrap(), attempts_before);
    assert_eq!(applied_history(&t.path, "booking-1042"), history_before);
    assert!(t.ledger.outbox().unwrap().is_empty(), "no automatic retry");

    // Nor later, once the rest of the afternoon (and the demo queue) is in.
    t.ingest(&after);
    t.ingest(&demo_queue());
    assert_eq!(t.ledger.attempts("booking-1042").unwrap(), attempts_before);
    assert_eq!(applied_history(&t.path, "booking-1042"), history_before);
    assert!(t.ledger.outbox().unwrap().is_empty(), "no automatic retry");
}

// ---------------------------------------------------------------------------------------
// 4. A callback with no job id: quarantined, raw bytes kept exactly.
// ---------------------------------------------------------------------------------------

#[test]
fn callback_without_job_id_is_quarantined_with_its_raw_bytes() {
    let mut t = TempLedger::new();
    t.ingest(&booking_afternoon());

    // Non-ASCII text, an escaped control character, and a CRLF line end (a CRLF file:
    // the CR is part of the terminator, not of the line).
    let no_job_crlf: &[u8] = b"{\"event\":\"callback\",\"delivery_id\":\"d-anon-7\",\"outcome\":\"success\",\"at\":\"2026-11-27T15:30:00Z\",\"payload\":{\"note\":\"caf\xc3\xa9 \xe2\x80\xae\\u001b[2J\"}}\r";
    // An empty job id, with tabs and trailing spaces the line keeps.
    let empty_job: &[u8] = b"\t{\"event\":\"callback\",\"delivery_id\":\"d-anon-8\",\"job_id\":\"  \",\"outcome\":\"failure\",\"at\":\"2026-11-27T15:31:00Z\"}  ";
    // Bytes that are not UTF-8: the line cannot even be read as JSON.
    let not_utf8: &[u8] = b"{\"event\":\"callback\",\"delivery_id\":\"d-anon-9\",\"outcome\":\"success\",\"at\":\"2026-11-27T15:32:00Z\",\"payload\":\"\xff\xfe\x00\x1b\"}\r";
    // The last line has no LF at all, only the CR.
    let mut stream = Vec::new();
    for line in [no_job_crlf, empty_job] {
        stream.extend_from_slice(line);
        stream.push(b'\n');
    }
    stream.extend_from_slice(not_utf8);
    // The input is whole: its last line, with no end, is kept as it is.
    let report = t.ingest_complete(&stream);
    assert_eq!(report.lines_read, 3, "{report}");
    assert_eq!(report.callbacks.quarantined, 3, "{report}");

    let rows = t.callbacks(Some(Disposition::Quarantine));
    let new: Vec<_> = rows.iter().rev().take(3).rev().collect();
    let no_job = no_job_crlf.strip_suffix(b"\r").unwrap_or(no_job_crlf);
    let expected = [
        (no_job, ReasonCode::MissingJobId),
        (empty_job, ReasonCode::MissingJobId),
        (not_utf8, ReasonCode::Unparseable),
    ];
    for (row, (line, reason)) in new.iter().zip(expected) {
        assert_eq!(row.disposition, Disposition::Quarantine);
        assert_eq!(row.reason, reason, "{row:?}");
        assert_eq!(row.job_id, None);
        let raw = t.ledger.raw_line(row.line_seq).unwrap().expect("line kept");
        assert_eq!(
            raw,
            line,
            "raw bytes of callback #{} changed: {:?}",
            row.seq,
            String::from_utf8_lossy(&raw)
        );
        assert!(
            row.detail.as_deref().is_some_and(|d| !d.is_empty()),
            "the reason is kept: {row:?}"
        );
    }
    // What could be read from the line is kept beside it.
    assert_eq!(new[0].delivery_id.as_deref(), Some("d-anon-7"));
    assert_eq!(new[0].outcome, Some(Outcome::Success));
    assert_eq!(new[0].arrived_at, Some(at("2026-11-27T15:30:00Z")));
    assert!(
        new[0]
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("job_id")),
        "{:?}",
        new[0].detail
    );

    // The raw bytes are the line's identity: the same bytes again are a no-op.
    let again = t.ingest_complete(&stream);
    assert_eq!(again.already_ingested, 3, "{again}");
    assert_eq!(t.callbacks(Some(Disposition::Quarantine)).len(), rows.len());
}

// ---------------------------------------------------------------------------------------
// 5. The held row carries timeout time, arrival time and the replacement together.
// ---------------------------------------------------------------------------------------

#[test]
fn held_row_carries_timeout_arrival_and_replacement_together() {
    let mut t = TempLedger::new();
    t.ingest(&booking_afternoon());
    let seq = t.by_delivery("d-1042-a").seq;

    let held = t.ledger.callback(seq).unwrap().expect("the held row");
    assert_eq!(held.disposition, Disposition::Hold);
    assert_eq!(held.job_id.as_deref(), Some("booking-1042"));
    assert_eq!(held.attempt, Some(1));
    // Attempt 1 timed out at 13:12:01; the callback arrived at 13:16:45.
    assert_eq!(held.timeout_at, Some(at("2026-11-27T13:12:01Z")));
    assert_eq!(held.arrived_at, Some(at("2026-11-27T13:16:45Z")));
    assert_eq!(
        held.replacement,
        Some(Replacement {
            attempt: 2,
            created_by: "staff:maria".into(),
            started_at: at("2026-11-27T13:14:30Z"),
            state: Some(AttemptState::Running),
        })
    );
    assert_eq!(held.answer, None);
}

// ---------------------------------------------------------------------------------------
// 6. The demo's reconciliation names the dropped notification and the missing output.
// ---------------------------------------------------------------------------------------

#[test]
fn demo_reconciliation_names_the_gaps_and_does_not_claim_completion() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.db");
    jobledger::demo::build(&path, now(), DemoData::Booking, |_| {}).expect("the demo builds");
    let ledger = jobledger::store::Ledger::open(&path).unwrap();
    let r = reconcile::reconcile(&ledger, now(), 3600, DEFAULT_REVIEW_CAPACITY).unwrap();

    assert_eq!(r.accepted, 15);
    assert!(!r.complete(), "the demo queue is not complete");
    // The retry of booking-1045 decided again from another region; booking-1043 was
    // submitted again for other input.
    let divergent: Vec<&str> = r
        .divergent_decisions
        .iter()
        .map(|j| j.job_id.as_str())
        .collect();
    assert_eq!(divergent, ["booking-1045"]);
    let reused: Vec<&str> = r
        .conflicting_submissions
        .iter()
        .map(|c| c.job_id.as_str())
        .collect();
    assert_eq!(reused, ["booking-1043"]);
    assert_eq!(r.missing_output, ["booking-1052"]);
    assert_eq!(r.missing_notification, ["booking-1051"]);
    // booking-1052 was notified: a notification is not a result.
    assert!(!r.missing_notification.contains(&"booking-1052".to_owned()));
    assert_eq!(
        r.missing_terminal,
        [
            "booking-1042",
            "booking-1043",
            "booking-1055",
            "booking-1056"
        ]
    );
    for list in [
        &r.missing_terminal,
        &r.missing_output,
        &r.missing_notification,
    ] {
        assert!(list.is_sorted(), "{list:?}");
    }
    let starts: Vec<_> = r.windows.iter().map(|w| w.start).collect();
    assert!(starts.is_sorted(), "{starts:?}");
    assert_eq!(
        r.windows.iter().map(|w| w.accepted).sum::<i64>(),
        r.accepted,
        "every accepted job is in one window"
    );
    // Aged jobs: the unowned ones are flagged; an escalation time passed is overdue.
    let aged: Vec<(&str, bool, bool)> = r
        .aged
        .iter()
        .map(|a| (a.job_id.as_str(), a.unowned, a.overdue))
        .collect();
    assert_eq!(
        aged,
        [
            ("booking-1042", false, true),
            ("booking-1043", true, false),
            ("booking-1055", false, false),
            ("booking-1056", true, false),
        ]
    );
}
