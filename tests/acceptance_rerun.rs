//! The acceptance checks through the library, check 7: ingest is idempotent and
//! survives a crash (an input broken or truncated mid-batch, then re-run).

mod support;

use std::collections::HashSet;
use std::io::{BufReader, Read};
use support::binary::Workdir;
use support::fixture;

use fixture::{TempLedger, booking_afternoon, demo_queue, line_with, now};
use jobledger::decision::{Disposition, ReasonCode};
use jobledger::ingest::{BATCH_LINES, IngestError, ingest};

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
fn a_file_read_while_it_is_written_leaves_its_unfinished_line_for_the_next_run() {
    let stream = booking_afternoon() + &demo_queue();
    let mut clean = TempLedger::new();
    clean.ingest(&stream);

    // Cut C2's callback line in half, as a file read while it is written would be.
    let c2 = line_with(&stream, "d-1042-a");
    let cut = stream.find(c2).unwrap() + c2.len() / 2;
    let fragment = &stream[..cut];
    let fragment_line = fragment.lines().last().unwrap();

    let mut truncated = TempLedger::new();
    let report = truncated.ingest(fragment);
    // The half line is left unread, and said so: it is read whole next time.
    assert_eq!(
        report.unfinished_bytes,
        fragment_line.len() as u64,
        "{report}"
    );
    assert!(report.to_string().contains("left unread"), "{report}");
    assert_eq!(
        report.lines_read,
        fragment.matches('\n').count() as u64,
        "{report}"
    );
    let again = truncated.ingest(&stream);
    assert_eq!(again.unfinished_bytes, 0);
    // Nothing of the fragment is kept: the ledger is the clean one, line for line.
    assert_eq!(truncated.dump(), clean.dump());
}

#[test]
fn told_the_input_is_complete_ingest_keeps_an_unfinished_last_line_quarantined() {
    let stream = booking_afternoon();
    let c2 = line_with(&stream, "d-1042-a");
    let cut = stream.find(c2).unwrap() + c2.len() / 2;
    let fragment = &stream[..cut];
    let mut t = TempLedger::new();
    let report = t.ingest_complete(fragment.as_bytes());
    assert_eq!(report.unfinished_bytes, 0);
    let fragment_line = fragment.lines().last().unwrap().as_bytes().to_vec();
    let kept: Vec<_> = t
        .callbacks(Some(Disposition::Quarantine))
        .into_iter()
        .filter(|c| t.ledger.raw_line(c.line_seq).unwrap() == Some(fragment_line.clone()))
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].reason, ReasonCode::Unparseable);
}

/// The audit's case, through the binary: the reader stopped right after a whole JSON
/// value and a space on the last line, and the writer then finished the line with a
/// second object. Taken then, the half line was one more line than the writer wrote:
/// two callbacks for one, or a job succeeded that one clean ingest leaves running.
#[test]
fn a_last_line_that_is_a_whole_json_value_and_a_space_waits_for_its_end() {
    let accepted =
        r#"{"event":"job_accepted","job_id":"j-1","at":"2026-11-27T13:00:00Z","timeout_s":600}"#;
    let started =
        r#"{"event":"attempt_started","job_id":"j-1","attempt":1,"at":"2026-11-27T13:00:01Z"}"#;
    let callback = r#"{"event":"callback","delivery_id":"d-1","job_id":"j-1","attempt":1,"outcome":"success","at":"2026-11-27T13:01:00Z"}"#;
    let succeeded = r#"{"event":"job_succeeded","job_id":"j-1","attempt":1,"at":"2026-11-27T13:01:00Z","result_ref":"r"}"#;
    for (value, rest) in [
        (callback, "   \n"),
        (callback, &*format!("{callback}\n")),
        (succeeded, &*format!("{callback}\n")),
    ] {
        let head = format!("{accepted}\n{started}\n{value} ");
        let whole = format!("{head}{rest}");
        let clean = Workdir::new();
        let file = clean.file("whole.ndjson", whole.as_bytes());
        clean.ok(&["ingest", file.to_str().unwrap()]);

        let twice = Workdir::new();
        let part = twice.file("events.ndjson", head.as_bytes());
        let told = twice.ok(&["ingest", part.to_str().unwrap()]);
        let unread = value.len() + 1;
        assert!(
            told.contains(&format!("the last line ({unread} bytes)"))
                && told.contains("left unread")
                && told.contains("ingest --complete"),
            "{told}"
        );
        let part = twice.file("events.ndjson", whole.as_bytes());
        twice.ok(&["ingest", part.to_str().unwrap()]);
        for report in [&["summary", "--json"][..], &["callbacks", "--json"]] {
            assert_eq!(
                twice.json(report),
                clean.json(report),
                "{value} then {rest:?}: {report:?}"
            );
        }
    }
}
