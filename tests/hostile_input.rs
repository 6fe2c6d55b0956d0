//! Hostile input (SPEC sec. 1.3): the corpus in `tests/hostile/` plus generated
//! cases too large or too many to write by hand (1 MB lines, JSON nested 10,000 deep,
//! a wrong type for every field of every event, times in wrong formats).
//!
//! For each line: ingest does not panic, the raw bytes are kept exactly, and the fate
//! and a reason a person can read are as `tests/hostile/expected.tsv` says. (Not one
//! control character reaching the terminal: `hostile_output.rs`; the cases:
//! `support/hostile.rs`.)

mod support;

use std::collections::BTreeSet;
use support::hostile::{corpus, huge_cases, ledger_with_every_case, wrong_type_cases};

use jobledger::clock::Timestamp;
use jobledger::event::{Parsed, parse_line};

#[test]
fn the_corpus_is_large_enough_and_each_line_distinct() {
    let cases = corpus();
    assert!(cases.len() >= 40, "{} lines", cases.len());
    let distinct: BTreeSet<&[u8]> = cases.iter().map(|c| c.raw.as_slice()).collect();
    assert_eq!(distinct.len(), cases.len());
    let generated = huge_cases().len() + wrong_type_cases().len();
    assert!(generated > 200, "{generated} generated cases");
}

#[test]
fn every_hostile_line_is_kept_exactly_with_a_readable_reason() {
    let (t, cases) = ledger_with_every_case();
    // Ingesting the same hostile stream again changes nothing.
    let before = t.dump();
    let mut again = Vec::new();
    for case in &cases {
        again.extend_from_slice(&case.raw);
        again.push(b'\n');
    }
    let mut t = t;
    let report = t.ingest_bytes(&again);
    assert_eq!((report.events_applied, report.callbacks.total()), (0, 0));
    assert_eq!(t.dump(), before);
}

#[test]
fn duplicate_top_level_keys_make_a_line_unparseable() {
    for line in [
        r#"{"event":"callback","job_id":"a","job_id":"b","outcome":"success","at":"2026-11-27T12:00:00Z"}"#,
        r#"{"event":"job_accepted","job_id":"a","at":"2026-11-27T12:00:00Z","at":"2026-11-27T13:00:00Z"}"#,
        r#"{"event":"callback","event":"callback","job_id":"a","outcome":"success","at":"2026-11-27T12:00:00Z"}"#,
        r#"{"event":"callback","job_id":"a","job\u005fid":"b","outcome":"success","at":"2026-11-27T12:00:00Z"}"#,
    ] {
        let Parsed::Unparseable { reason } = parse_line(line.as_bytes()) else {
            panic!("a duplicate key was read silently: {line}");
        };
        assert!(reason.contains("more than once"), "{reason}");
    }
    // Duplicates deeper down (inside a payload) are not the event's fields: kept, not read.
    let nested = r#"{"event":"callback","job_id":"a","outcome":"success","at":"2026-11-27T12:00:00Z","payload":{"k":1,"k":2}}"#;
    assert!(matches!(parse_line(nested.as_bytes()), Parsed::Callback(_)));
    // A duplicate on a line that is not JSON anyway is reported as not JSON.
    let Parsed::Unparseable { reason } = parse_line(br#"{"a":1,"a":2"#) else {
        panic!("truncated line read");
    };
    assert!(reason.starts_with("not valid JSON"), "{reason}");
}

#[test]
fn times_outside_the_ledgers_years_are_refused_and_offsets_saturate() {
    for bad in [
        "9999-12-31T23:59:59-23:00",
        "0000-01-01T00:00:00+00:01",
        "2026-11-27T12:00:00+24:00",
    ] {
        assert_eq!(Timestamp::parse(bad), None, "{bad}");
    }
    let at = Timestamp::parse("2026-11-27T12:00:00Z").unwrap();
    assert_eq!(at.plus_seconds(i64::MAX), Timestamp::LATEST);
    assert_eq!(at.plus_seconds(i64::MIN), Timestamp::EARLIEST);
    assert_eq!(
        Timestamp::LATEST.to_ledger_text(),
        "9999-12-31T23:59:59.999Z"
    );
    assert_eq!(
        Timestamp::EARLIEST.to_ledger_text(),
        "0000-01-01T00:00:00.000Z"
    );
}
