//! A line is its bytes without its terminator, LF or CRLF (SPEC sec. 3): the same events
//! written with CRLF endings are the same lines (while a CR made them other lines,
//! re-ingesting them doubled every callback, output and notification).

mod support;

use sha2::{Digest, Sha256};
use support::fixture::{self, TempLedger};

fn crlf(text: &str) -> Vec<u8> {
    text.lines()
        .flat_map(|line| line.bytes().chain(*b"\r\n"))
        .collect()
}

#[test]
fn the_same_events_with_crlf_endings_are_the_same_lines_either_way_round() {
    let stream = fixture::booking_afternoon();
    for crlf_first in [false, true] {
        let mut t = TempLedger::new();
        let (first, second) = if crlf_first {
            (crlf(&stream), stream.as_bytes().to_vec())
        } else {
            (stream.as_bytes().to_vec(), crlf(&stream))
        };
        let report = t.ingest_bytes(&first);
        let before = t.dump();
        let again = t.ingest_bytes(&second);
        assert_eq!(
            again.already_ingested,
            report.lines_read - report.blank,
            "crlf first: {crlf_first}: {again}"
        );
        assert_eq!(
            t.dump(),
            before,
            "crlf first: {crlf_first}: the ledger changed"
        );
        // No line keeps a CR as its last byte: it was part of the terminator.
        let with_cr = fixture::query_i64(
            &t.path,
            "SELECT count(*) FROM input_lines WHERE substr(raw, -1) = X'0D'",
            [],
        );
        assert_eq!(with_cr, 0, "crlf first: {crlf_first}");
    }
}

#[test]
fn a_line_an_earlier_jobledger_kept_with_its_cr_is_found_again() {
    let stream = fixture::booking_afternoon();
    let line = fixture::line_with(&stream, "d-1042-a");
    let t = TempLedger::new();
    {
        // What a jobledger before this rule kept for the line read from a CRLF file:
        // the CR as its last byte, and the SHA-256 of that.
        let mut raw = line.as_bytes().to_vec();
        raw.push(b'\r');
        let conn = rusqlite::Connection::open(&t.path).unwrap();
        conn.execute(
            "INSERT INTO input_lines (line_sha256, raw, event, status, reason, ingested_at)
             VALUES (?1, ?2, 'callback', 'rejected', 'kept by an earlier version', ?3)",
            rusqlite::params![
                Sha256::digest(&raw).as_slice(),
                raw,
                "2026-11-27T13:16:45.000Z"
            ],
        )
        .unwrap();
    }
    let mut t = t;
    let report = t.ingest_bytes(&crlf(line));
    assert_eq!(report.already_ingested, 1, "{report}");
    let lines = fixture::query_i64(&t.path, "SELECT count(*) FROM input_lines", []);
    assert_eq!(lines, 1);
}

#[test]
fn a_cr_inside_a_line_or_before_no_lf_is_part_of_the_line() {
    let mut t = TempLedger::new();
    // A CR that ends no line (the last line has no LF) is one of its bytes: the line,
    // taken as it is (a last line with no LF is taken only so), keeps it.
    let report = t.ingest_complete(b"{\"event\":\"bogus\"}\r");
    assert_eq!(report.lines_read, 1);
    let last = fixture::query_i64(
        &t.path,
        "SELECT count(*) FROM input_lines WHERE substr(raw, -1) = X'0D'",
        [],
    );
    assert_eq!(last, 1, "the CR of an unterminated line was dropped");
}

/// A file whose lines end in CR alone (old Mac style) holds no LF: it is one line with
/// no end. It went nowhere, with exit 0 and a report of a last line "with no end yet",
/// as if a writer were still at it. It is named for what it is, with the command that
/// converts it, nothing of it is kept, and the exit says no later run takes it.
#[test]
fn a_file_whose_lines_end_in_cr_alone_is_named_and_nothing_of_it_is_kept() {
    use support::binary::{Workdir, refused, succeeded};
    let stream = fixture::booking_afternoon();
    let mac = stream.replace('\n', "\r");
    let w = Workdir::new();
    let file = w.file("mac.ndjson", mac.as_bytes());
    let args = ["ingest", file.to_str().unwrap()];
    let out = w.run(&args);
    let told = refused(
        &out,
        &[
            "mac.ndjson",
            "CR alone",
            "Nothing of them was kept",
            r"tr '\r' '\n' < ",
        ],
    );
    assert!(!told.contains('\r'), "{told:?}");
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        report.contains("0 lines read") && report.contains("CR alone"),
        "{report}"
    );
    assert_eq!(
        fixture::query_i64(&w.db, "SELECT count(*) FROM input_lines", []),
        0
    );

    // Converted as told, it is the worked example.
    let converted = w.file("mac.ndjson.lf", mac.replace('\r', "\n").as_bytes());
    w.ok(&["ingest", converted.to_str().unwrap()]);
    let clean = Workdir::with_afternoon();
    assert_eq!(fixture::dump(&w.db), fixture::dump(&clean.db));

    // Told the input is complete, it is kept as the one line it was read as.
    let w = Workdir::new();
    let file = w.file("mac.ndjson", mac.as_bytes());
    let args = ["ingest", "--complete", file.to_str().unwrap()];
    let report = succeeded(&w.run(&args), &args);
    assert!(
        report.contains("1 lines read") && report.contains("CR alone"),
        "{report}"
    );
}
