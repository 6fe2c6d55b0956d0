//! Acceptance of issue 2 through the library: the worked example of SPEC sec. 2 in a
//! ledger on a temporary file, its redelivery, the held row's evidence, raw bytes
//! kept exactly, the demo's reconciliation, idempotent and crash-safe ingest, and
//! totals that add up.

#[path = "support/fixture.rs"]
mod fixture;

use std::collections::HashSet;
use std::io::{BufReader, Read};

use fixture::{TempLedger, applied_history, at, booking_afternoon, demo_queue, line_with, now};
use jobledger::decision::{Disposition, JobState, Outcome, ReasonCode};
use jobledger::demo::DemoData;
use jobledger::ingest::{BATCH_LINES, IngestError, IngestReport, ingest};
use jobledger::reconcile::{self, Backlog, DEFAULT_REVIEW_CAPACITY};
use jobledger::report::Summary;
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
    assert_eq!(report.events_rejected, 0, "{report}");

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

    // Non-ASCII text, an escaped control character and a trailing CR (a CRLF file).
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
    let report = t.ingest_bytes(&stream);
    assert_eq!(report.lines_read, 3, "{report}");
    assert_eq!(report.callbacks.quarantined, 3, "{report}");

    let rows = t.callbacks(Some(Disposition::Quarantine));
    let new: Vec<_> = rows.iter().rev().take(3).rev().collect();
    let expected = [
        (no_job_crlf, ReasonCode::MissingJobId),
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
    let again = t.ingest_bytes(&stream);
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

    assert_eq!(r.accepted, 14);
    assert!(!r.complete(), "the demo queue is not complete");
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

// ---------------------------------------------------------------------------------------
// 7. Ingest is idempotent and survives a crash.
// ---------------------------------------------------------------------------------------

#[test]
fn re_ingesting_the_same_file_changes_nothing() {
    let mut t = TempLedger::with_demo_streams();
    let before = t.dump();

    for stream in [booking_afternoon(), demo_queue()] {
        let report = t.ingest(&stream);
        assert_eq!(
            report.already_ingested + report.blank,
            report.lines_read,
            "{report}"
        );
        assert_eq!(report.lines_read, stream.lines().count() as u64, "{report}");
        assert_eq!(report.events_applied + report.events_rejected, 0);
        assert_eq!(report.callbacks.total(), 0);
    }
    assert_eq!(t.dump(), before, "a second ingest changed the ledger");
}

/// A busy stream of about `size` lines: jobs, their callbacks, timeouts, repeats,
/// contradictions and junk (some of it repeated byte for byte).
fn busy_stream(size: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut n = 0;
    while lines.len() < size {
        let job = format!("bulk-{n:05}");
        let minute = n % 60;
        let t = |second: u32| format!("2026-11-27T13:{minute:02}:{second:02}Z");
        lines.push(format!(
            r#"{{"event":"job_accepted","job_id":"{job}","at":"{}","timeout_s":120}}"#,
            t(0)
        ));
        lines.push(format!(
            r#"{{"event":"attempt_started","job_id":"{job}","attempt":1,"at":"{}"}}"#,
            t(1)
        ));
        if n % 7 == 0 {
            lines.push(format!(
                r#"{{"event":"attempt_timed_out","job_id":"{job}","attempt":1,"at":"{}"}}"#,
                t(30)
            ));
        }
        let outcome = if n % 5 == 0 { "failure" } else { "success" };
        let callback = |second: u32, outcome: &str| {
            format!(
                r#"{{"event":"callback","job_id":"{job}","attempt":1,"outcome":"{outcome}","at":"{}"}}"#,
                t(second)
            )
        };
        lines.push(callback(40, outcome));
        if n % 11 == 0 {
            // A redelivery, and a success that may contradict a failure.
            lines.push(callback(50, outcome));
            lines.push(callback(55, "success"));
        }
        if n % 13 == 0 {
            lines.push(String::new());
            lines.push("not json".to_owned());
            lines.push(
                r#"{"event":"job_cancelled","job_id":"nobody","at":"2026-11-27T13:00:00Z","by":"x"}"#
                    .to_owned(),
            );
        }
        n += 1;
    }
    lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect()
}

/// The byte offset where line `index` (from 0) of `stream` starts.
fn line_start(stream: &str, index: usize) -> usize {
    stream.split_inclusive('\n').take(index).map(str::len).sum()
}

/// Reads `data`, then fails like a dying disk or a killed pipe.
struct BreaksAfter<'a> {
    data: &'a [u8],
}

impl Read for BreaksAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.data.is_empty() {
            return Err(std::io::Error::other("the input broke"));
        }
        self.data.read(buf)
    }
}

#[test]
fn an_ingest_broken_in_the_middle_of_a_batch_then_rerun_equals_one_clean_ingest() {
    let stream = busy_stream(1_200);
    let mut clean = TempLedger::new();
    clean.ingest(&stream);

    // An earlier run committed the first 400 lines; this run breaks inside line 800,
    // in the middle of a batch. Whatever the batch size, what is kept afterwards is the
    // earlier run plus this run's whole batches.
    let committed = &stream[..line_start(&stream, 400)];
    let break_line = 800;
    assert_ne!(
        break_line % BATCH_LINES,
        0,
        "the break must fall inside a batch"
    );
    let whole_batches = break_line / BATCH_LINES * BATCH_LINES;
    let kept_before_rerun = &stream[..line_start(&stream, whole_batches.max(400))];
    let mut earlier = TempLedger::new();
    earlier.ingest(kept_before_rerun);
    let break_at = line_start(&stream, break_line) + 20;

    let mut crashed = TempLedger::new();
    crashed.ingest(committed);
    let broken = BufReader::new(BreaksAfter {
        data: &stream.as_bytes()[..break_at],
    });
    let error = ingest(&mut crashed.ledger, broken, now(), |_| {}).expect_err("the read fails");
    assert!(matches!(error, IngestError::Read { .. }), "{error}");
    assert!(
        error.to_string().contains("the input broke"),
        "the cause is told: {error}"
    );
    // Nothing of the broken batch is kept.
    assert_eq!(crashed.dump(), earlier.dump());

    let rerun = crashed.ingest(&stream);
    // The rerun keeps exactly the lines the earlier run had not (each distinct line once).
    let distinct = |text: &str| {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .collect::<HashSet<_>>()
            .len() as u64
    };
    let kept_by_rerun = rerun.lines_read - rerun.blank - rerun.already_ingested;
    assert_eq!(
        kept_by_rerun,
        distinct(&stream) - distinct(kept_before_rerun),
        "{rerun}"
    );
    assert_eq!(crashed.dump(), clean.dump());
}

#[test]
fn a_broken_input_names_the_last_line_read_and_keeps_the_batches_before_it() {
    let stream = busy_stream(1_200);
    let break_at = line_start(&stream, 800) + 20;
    let mut t = TempLedger::new();
    let broken = BufReader::new(BreaksAfter {
        data: &stream.as_bytes()[..break_at],
    });
    // 300-line batches: two are committed before the break, the third is not.
    let batching = jobledger::ingest::Batching {
        lines: 300,
        ..jobledger::ingest::Batching::default()
    };
    let error =
        jobledger::ingest::ingest_in_batches(&mut t.ledger, broken, now(), batching, |_| {})
            .expect_err("the read fails");
    assert!(
        error.to_string().contains("after line 800:"),
        "the count is of the whole input: {error}"
    );
    let mut first_600 = TempLedger::new();
    first_600.ingest(&stream[..line_start(&stream, 600)]);
    assert_eq!(t.dump(), first_600.dump());
}

#[test]
fn a_file_truncated_mid_batch_at_a_line_end_then_the_whole_file_equals_one_clean_ingest() {
    let stream = busy_stream(1_200);
    let mut clean = TempLedger::new();
    clean.ingest(&stream);

    let mut truncated = TempLedger::new();
    let report = truncated.ingest(&stream[..line_start(&stream, 700)]);
    assert_eq!(report.lines_read, 700);
    truncated.ingest(&stream);
    assert_eq!(truncated.dump(), clean.dump());
}

#[test]
fn a_file_truncated_inside_a_line_keeps_that_fragment_and_nothing_else_differs() {
    let stream = booking_afternoon() + &demo_queue();
    let mut clean = TempLedger::new();
    clean.ingest(&stream);

    // Cut C2's callback line in half, as a copy interrupted mid-write would.
    let c2 = line_with(&stream, "d-1042-a");
    let cut = stream.find(c2).unwrap() + c2.len() / 2;
    let fragment = &stream[..cut];
    let fragment_line = fragment.lines().last().unwrap().as_bytes().to_vec();

    let mut truncated = TempLedger::new();
    truncated.ingest(fragment);
    truncated.ingest(&stream);

    // The fragment is a line of input: kept, quarantined, raw bytes intact.
    let clean_counts = clean.ledger.disposition_counts().unwrap();
    assert_eq!(
        truncated.ledger.disposition_counts().unwrap(),
        DispositionCounts {
            quarantined: clean_counts.quarantined + 1,
            ..clean_counts
        }
    );
    let fragments: Vec<_> = truncated
        .callbacks(Some(Disposition::Quarantine))
        .into_iter()
        .filter(|c| truncated.ledger.raw_line(c.line_seq).unwrap() == Some(fragment_line.clone()))
        .collect();
    assert_eq!(fragments.len(), 1);
    assert_eq!(fragments[0].reason, ReasonCode::Unparseable);
    // Every job ends as in the clean ingest.
    assert_eq!(
        truncated.ledger.job_state_counts().unwrap(),
        clean.ledger.job_state_counts().unwrap()
    );
    for row in clean.callbacks(None) {
        let Some(job) = row.job_id.as_deref() else {
            continue;
        };
        assert_eq!(
            truncated.ledger.job(job).unwrap(),
            clean.ledger.job(job).unwrap()
        );
    }
}

// ---------------------------------------------------------------------------------------
// 8. The totals always add up.
// ---------------------------------------------------------------------------------------

#[test]
fn adds_up_notices_a_line_counted_twice_or_not_at_all() {
    let good = IngestReport {
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
    let json = summary.to_json();
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
    assert_eq!(summary.rejected_events, 1);
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
    assert_eq!(report.events_rejected, 4, "{report}");
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
    assert_eq!(rejected.len(), 4);
    let reasons: Vec<(Option<&str>, &str)> = rejected
        .iter()
        .map(|r| (r.event.as_deref(), r.reason.as_str()))
        .collect();
    for (event, needle) in [
        ("attempt_timed_out", "ghost-1"),
        ("job_cancelled", "ghost-2"),
        ("job_accepted", "job_id"),
        ("attempt_started", "attempt"),
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
    assert_eq!(summary.rejected_events, 4);
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
