//! Every rejected event line carries a reason code from a closed set beside its
//! sentence: `rejected --json` gives both apart, plain `rejected` shows the code
//! first, and lines a ledger rejected before the codes existed read with the code
//! their sentence's form tells (the stored text is never rewritten).

mod support;

use serde_json::Value;
use support::binary::Workdir;

/// One line per way an event is rejected (all but `oversized`, which
/// tests/oversized_lines.rs makes), with the code each must get.
const STREAM: &[(&str, &str)] = &[
    (
        r#"{"event":"job_accepted","job_id":"b-1","at":"2026-11-27T13:00:00Z","input_digest":"sha256:a"}"#,
        "",
    ),
    (
        r#"{"event":"attempt_started","job_id":"b-1","attempt":1,"at":"2026-11-27T13:00:01Z"}"#,
        "",
    ),
    (
        r#"{"event":"attempt_timed_out","job_id":"b-1","attempt":1,"at":"2026-11-27T13:10:00Z"}"#,
        "",
    ),
    (
        r#"{"event":"job_accepted","job_id":"","at":"2026-11-27T14:00:00Z"}"#,
        "malformed",
    ),
    (
        r#"{"event":"job_cancelled","job_id":"ghost","at":"2026-11-27T14:00:00Z","by":"x"}"#,
        "no_accepted_job",
    ),
    (
        r#"{"event":"job_accepted","job_id":"b-1","at":"2026-11-27T14:01:00Z","input_digest":"sha256:a"}"#,
        "repeated_submission",
    ),
    (
        r#"{"event":"job_accepted","job_id":"b-1","at":"2026-11-27T14:02:00Z","input_digest":"sha256:b"}"#,
        "conflicting_submission",
    ),
    (
        r#"{"event":"job_succeeded","job_id":"b-1","attempt":7,"at":"2026-11-27T14:03:00Z","result_ref":"r"}"#,
        "unknown_attempt",
    ),
    (
        r#"{"event":"attempt_started","job_id":"b-1","attempt":1,"at":"2026-11-27T14:04:00Z"}"#,
        "attempt_already_started",
    ),
    (
        r#"{"event":"attempt_timed_out","job_id":"b-1","attempt":1,"at":"2026-11-27T14:05:00Z"}"#,
        "attempt_already_timed_out",
    ),
];

fn ingested() -> Workdir {
    let w = Workdir::new();
    let mut text = String::new();
    for (line, _) in STREAM {
        text.push_str(line);
        text.push('\n');
    }
    let file = w.file("stream.ndjson", text.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    w
}

fn codes_and_reasons(w: &Workdir) -> Vec<(String, String)> {
    let rejected = w.json(&["rejected", "--json"]);
    rejected
        .as_array()
        .expect("a list")
        .iter()
        .map(|r: &Value| {
            (
                r["code"].as_str().expect("a code").to_owned(),
                r["reason"].as_str().expect("a reason").to_owned(),
            )
        })
        .collect()
}

#[test]
fn rejected_json_gives_each_line_its_code_beside_the_sentence() {
    let w = ingested();
    let found = codes_and_reasons(&w);
    let expected: Vec<&str> = STREAM
        .iter()
        .map(|(_, code)| *code)
        .filter(|code| !code.is_empty())
        .collect();
    let codes: Vec<&str> = found.iter().map(|(code, _)| code.as_str()).collect();
    assert_eq!(codes, expected);
    for (code, reason) in &found {
        // The sentence stands alone: no code in front of it.
        assert!(!reason.starts_with(&format!("{code}:")), "{code}: {reason}");
        assert!(!reason.is_empty(), "{code}");
    }
    assert_eq!(found[1].1, r#"no job "ghost" has been accepted"#);
    assert!(
        found[3]
            .1
            .contains(r#"input_digest "sha256:a" first, "sha256:b" now"#),
        "{:?}",
        found[3]
    );
    // Plain output: the code, then the sentence.
    let text = w.ok(&["rejected"]);
    assert!(
        text.contains(r#"job_cancelled      no_accepted_job: no job "ghost" has been accepted"#),
        "{text}"
    );
    for code in expected {
        assert!(text.contains(&format!(" {code}: ")), "{code}:\n{text}");
    }
}

#[test]
fn a_line_rejected_before_the_codes_reads_with_the_code_its_sentence_tells() {
    let w = ingested();
    // As an earlier version stored them: the sentence alone.
    let before = [
        ("no_accepted_job", r#"no job "ghost" has been accepted"#),
        (
            "unknown_attempt",
            r#"job "b-1" has no attempt 7 (latest is 1)"#,
        ),
        ("malformed", "field `job_id` is empty"),
    ];
    {
        let conn = rusqlite::Connection::open(&w.db).unwrap();
        for (code, sentence) in before {
            let changed = conn
                .execute(
                    "UPDATE input_lines SET reason = ?1 WHERE reason = ?2 || ': ' || ?1",
                    [sentence, code],
                )
                .unwrap();
            assert_eq!(changed, 1, "{code}");
        }
    }
    let found = codes_and_reasons(&w);
    for (code, sentence) in before {
        assert!(
            found.contains(&(code.to_owned(), sentence.to_owned())),
            "{code}: {found:?}"
        );
    }
}
