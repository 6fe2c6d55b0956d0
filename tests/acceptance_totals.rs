//! The acceptance checks through the library, check 8 and after: the totals always
//! add up, the backlog alarm, and worker records of a superseded attempt.

mod support;

use support::fixture;

use fixture::{TempLedger, at, booking_afternoon, demo_queue, now};
use jobledger::decision::{Disposition, JobState, ReasonCode};
use jobledger::ingest::IngestReport;
use jobledger::reconcile::{Backlog, DEFAULT_REVIEW_CAPACITY};
use jobledger::report::Summary;
use jobledger::store::DispositionCounts;

// ---------------------------------------------------------------------------------------
// 8. The totals always add up.
// ---------------------------------------------------------------------------------------

#[test]
fn adds_up_notices_a_line_counted_twice_or_not_at_all() {
    let good = IngestReport {
        unfinished_bytes: 0,
        cr_line_ends: false,
        oversized: 0,
        lines_read: 5,
        blank: 1,
        already_ingested: 1,
        events_applied: 1,
        events_rejected: 1,
        callbacks: DispositionCounts {
            applied: 1,
            ..DispositionCounts::default()
        },
    };
    assert!(good.adds_up());
    assert!(
        !IngestReport {
            lines_read: 6,
            ..good
        }
        .adds_up()
    );
    assert!(!IngestReport { blank: 2, ..good }.adds_up());
}

fn assert_summary_adds_up(t: &TempLedger) -> Summary {
    let summary = Summary::gather(&t.ledger, now(), DEFAULT_REVIEW_CAPACITY).unwrap();
    let json = serde_json::to_value(&summary).unwrap();
    let n = |key: &str| {
        json[key]
            .as_i64()
            .unwrap_or_else(|| panic!("{key} in {json}"))
    };
    assert_eq!(
        n("applied") + n("held") + n("recorded") + n("quarantined"),
        n("callbacks"),
        "{json}"
    );
    let rows = i64::try_from(t.callbacks(None).len()).unwrap();
    assert_eq!(n("callbacks"), rows, "every callback row is counted once");
    let jobs: i64 = json["jobs"]
        .as_object()
        .expect("jobs by state")
        .values()
        .map(|v| v.as_i64().unwrap())
        .sum();
    assert_eq!(
        jobs,
        fixture::query_i64(&t.path, "SELECT count(*) FROM jobs", [])
    );
    summary
}

#[test]
fn totals_add_up_over_the_demo() {
    let mut t = TempLedger::new();
    let mut report = t.ingest(&booking_afternoon());
    report.merge(&t.ingest(&demo_queue()));
    assert!(report.adds_up(), "{report}");
    let lines = booking_afternoon().lines().count() + demo_queue().lines().count();
    assert_eq!(report.lines_read, lines as u64);
    assert_eq!(report.callbacks, t.ledger.disposition_counts().unwrap());
    let summary = assert_summary_adds_up(&t);
    assert_eq!(summary.callbacks.total(), 15);
    // An event for a job never accepted, and booking-1043 submitted again for other input.
    assert_eq!(summary.rejected_events, 2);
}

#[test]
fn totals_add_up_over_junk_and_every_bad_line_is_kept_with_its_reason() {
    let junk = [
        "",
        "   \t",
        "\r",
        "not json at all",
        "[1,2,3]",
        "\"just a string\"",
        "{\"event\":\"party\",\"job_id\":\"booking-1041\"}",
        "{\"no_event\":true}",
        "{\"event\":\"attempt_timed_out\",\"job_id\":\"ghost-1\",\"attempt\":1,\"at\":\"2026-11-27T14:00:00Z\"}",
        "{\"event\":\"job_cancelled\",\"job_id\":\"ghost-2\",\"at\":\"2026-11-27T14:00:00Z\",\"by\":\"ops:x\"}",
        "{\"event\":\"job_accepted\",\"at\":\"2026-11-27T14:00:00Z\"}",
        "{\"event\":\"attempt_started\",\"job_id\":\"booking-1041\",\"attempt\":\"two\",\"at\":\"2026-11-27T14:00:00Z\"}",
        "{\"event\":\"callback\",\"job_id\":\"ghost-3\",\"outcome\":\"success\",\"at\":\"2026-11-27T14:00:00Z\"}",
        "{\"event\":\"callback\",\"job_id\":\"booking-1041\",\"outcome\":\"maybe\",\"at\":\"2026-11-27T14:00:00Z\"}",
        "{\"event\":\"callback\",\"job_id\":\"booking-1041\",\"attempt\":9,\"outcome\":\"success\",\"at\":\"2026-11-27T14:00:00Z\"}",
    ];
    let mut stream = booking_afternoon();
    for line in junk {
        stream.push_str(line);
        stream.push('\n');
    }

    let mut t = TempLedger::new();
    let report = t.ingest(&stream);
    assert!(report.adds_up(), "{report}");
    assert_eq!(report.lines_read, stream.lines().count() as u64);
    assert_eq!(report.blank, 3, "{report}");
    // Four of the junk, and booking-1043 submitted again for other input.
    assert_eq!(report.events_rejected, 4 + 1, "{report}");
    // The worked example's five, four lines with no known event, three unusable callbacks.
    assert_eq!(
        report.callbacks,
        DispositionCounts {
            applied: 1,
            held: 1,
            recorded: 2,
            quarantined: 1 + 5 + 3,
        },
        "{report}"
    );
    // Nothing is dropped: every non-blank line is in the ledger.
    assert_eq!(
        t.ledger.line_count().unwrap(),
        i64::try_from(report.lines_read - report.blank).unwrap()
    );

    let rejected = t.ledger.rejected_lines(100).unwrap();
    assert_eq!(rejected.len(), 5);
    // Each line's code and sentence, so that a needle may be either.
    let reasons: Vec<(Option<&str>, String)> = rejected
        .iter()
        .map(|r| (r.event.as_deref(), format!("{}: {}", r.code, r.reason)))
        .collect();
    for (event, needle) in [
        ("attempt_timed_out", "ghost-1"),
        ("job_cancelled", "ghost-2"),
        ("job_accepted", "job_id"),
        ("attempt_started", "attempt"),
        ("job_accepted", "conflicting_submission"),
    ] {
        assert!(
            reasons
                .iter()
                .any(|(e, r)| *e == Some(event) && r.contains(needle)),
            "no {event} rejected for {needle:?}: {reasons:#?}"
        );
    }
    let quarantined: Vec<ReasonCode> = t
        .callbacks(Some(Disposition::Quarantine))
        .iter()
        .map(|c| c.reason)
        .collect();
    for reason in [
        ReasonCode::Unparseable,
        ReasonCode::NoMatchingJob,
        ReasonCode::InvalidOutcome,
        ReasonCode::UnknownAttempt,
    ] {
        assert!(quarantined.contains(&reason), "{reason}: {quarantined:?}");
    }

    let summary = assert_summary_adds_up(&t);
    assert_eq!(summary.rejected_events, 4 + 1);
    assert_eq!(summary.callbacks, report.callbacks);
}

// ---------------------------------------------------------------------------------------
// The backlog alarm (a stop condition of SPEC sec. 2).
// ---------------------------------------------------------------------------------------

#[test]
fn the_backlog_alarm_rises_when_questions_arrive_faster_than_the_capacity() {
    let mut t = TempLedger::new();
    t.ingest(&booking_afternoon());
    // Three callbacks for unknown jobs in the last hour before 17:00, one long before.
    for (job, arrival) in [
        ("gone-1", "2026-11-27T16:10:00Z"),
        ("gone-2", "2026-11-27T16:30:00Z"),
        ("gone-3", "2026-11-27T16:50:00Z"),
        ("gone-4", "2026-11-27T12:00:00Z"),
    ] {
        t.ingest(&format!(
            "{{\"event\":\"callback\",\"job_id\":\"{job}\",\"outcome\":\"success\",\"at\":\"{arrival}\"}}\n"
        ));
    }
    let quiet = Backlog::measure(&t.ledger, now(), 3).unwrap();
    assert_eq!((quiet.arrivals, quiet.raised), (3, false), "{quiet:?}");
    let raised = Backlog::measure(&t.ledger, now(), 2).unwrap();
    assert_eq!((raised.arrivals, raised.raised), (3, true), "{raised:?}");
    // C2, C5 and the four unknown jobs wait for a person.
    assert_eq!(raised.open, 6);
    assert_eq!(raised.answered, 0);
}

#[test]
fn the_backlog_window_ends_at_now() {
    let t = TempLedger::with_demo_streams();
    // Between 12:45 and 13:45 only C2 (13:16:45) and C5 (13:40) arrived.
    let backlog = Backlog::measure(&t.ledger, at("2026-11-27T13:45:00Z"), 2).unwrap();
    assert_eq!(backlog.arrivals, 2, "{backlog:?}");
    assert!(!backlog.raised, "{backlog:?}");
}

// ---------------------------------------------------------------------------------------
// Worker records for a superseded attempt.
// ---------------------------------------------------------------------------------------

#[test]
fn a_failure_record_of_a_superseded_attempt_does_not_fail_the_job() {
    let mut t = TempLedger::new();
    t.ingest(concat!(
        r#"{"event":"job_accepted","job_id":"j-1","at":"2026-11-27T15:00:00Z","timeout_s":120}"#,
        "\n",
        r#"{"event":"attempt_started","job_id":"j-1","attempt":1,"at":"2026-11-27T15:00:01Z"}"#,
        "\n",
        r#"{"event":"attempt_timed_out","job_id":"j-1","attempt":1,"at":"2026-11-27T15:02:01Z"}"#,
        "\n",
        r#"{"event":"attempt_started","job_id":"j-1","attempt":2,"at":"2026-11-27T15:03:00Z","created_by":"staff:amy"}"#,
        "\n",
        // The worker of the abandoned first attempt reports, late, that it failed.
        r#"{"event":"job_failed","job_id":"j-1","attempt":1,"at":"2026-11-27T15:04:00Z","cause":"late worker report","permanent":false}"#,
        "\n",
    ));
    assert_eq!(
        t.ledger.job("j-1").unwrap().unwrap().state,
        JobState::Running,
        "attempt 2 is still running"
    );
    t.ingest(concat!(
        r#"{"event":"callback","delivery_id":"d-j-1-b","job_id":"j-1","attempt":2,"outcome":"success","at":"2026-11-27T15:04:30Z"}"#,
        "\n",
    ));
    let success = t.by_delivery("d-j-1-b");
    assert_eq!(
        (success.disposition, success.reason),
        (Disposition::Apply, ReasonCode::OnTimeSuccess)
    );
}
