//! `jobledger export`: the evidence bundle of a case (`export SEQ`) or a job (`export
//! --job JOB`), in Markdown or JSON, on standard output or in a file (`-o`), run as
//! a user would on the demo ledger at the demo's fixed clock.

mod support;

use std::os::unix::fs::PermissionsExt as _;

use serde_json::Value;
use support::binary::{Workdir, refused};
use support::fixture::{booking_afternoon, line_with};

/// The bundle of the demo's held callback #2: the worked example's C2, held for the
/// staff replacement.
#[test]
fn the_bundle_of_the_demo_held_callback_in_markdown() {
    let (w, _) = Workdir::with_demo();
    let bundle = w.ok(&["export", "2"]);
    insta::assert_snapshot!("export_demo_held_2_md", bundle);
}

#[test]
fn the_bundle_in_json_holds_the_raw_line_the_comparison_and_the_timeline() {
    let (w, _) = Workdir::with_demo();
    let bundle = w.json(&["export", "2", "--format", "json"]);
    assert_eq!(bundle["subject"]["callback"], 2);
    assert_eq!(bundle["job_id"], "booking-1042");
    let case = &bundle["callbacks"][0];
    assert_eq!(case["seq"], 2);
    assert_eq!(case["disposition"], "hold");
    assert_eq!(
        case["raw"]["text"],
        line_with(&booking_afternoon(), "d-1042-a"),
        "the raw line exactly as it came"
    );
    assert_eq!(case["raw"]["cut"], false);
    let comparison = &bundle["comparisons"][0];
    assert_eq!(comparison["held"], 2);
    assert_eq!(comparison["gap"], "+4m44s");
    let titles: Vec<&str> = comparison["counterparts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "attempt 1 · the attempt reported on",
            "attempt 2 · the replacement"
        ]
    );
    let timeline: Vec<&str> = bundle["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert!(
        timeline.contains(&"callback #2 success for attempt 1: hold (possible_duplicate_effect)"),
        "{timeline:?}"
    );
    assert_eq!(bundle["owner"]["owner"], "ops:maria");
    assert_eq!(bundle["job"]["state"], "running");
    assert_eq!(bundle["exported_at"], "2026-11-27T17:00:00.000Z");
    // --json says the same as --format json.
    assert_eq!(w.json(&["export", "2", "--json"]), bundle);
}

/// A job's bundle holds every callback of the job, and the comparison of each held one;
/// every answer is there with its reviewer, time and note, and so are the owner and
/// the requests, withdrawn ones too.
#[test]
fn a_jobs_bundle_holds_its_callbacks_answers_owner_and_requests() {
    let w = Workdir::with_afternoon();
    w.ok(&[
        "answer",
        "2",
        "--verdict",
        "needs_remote_check",
        "--note",
        "asked the hotel | waiting",
        "--reviewer",
        "ana",
    ]);
    w.ok(&[
        "owner",
        "booking-1042",
        "--owner",
        "ops:lee",
        "--escalate-at",
        "2h",
        "--by",
        "lead",
    ]);
    let asked = w.json(&[
        "request",
        "cancel",
        "booking-1042",
        "--by",
        "ops:lee",
        "--json",
    ]);
    let id = asked["id"].to_string();
    w.ok(&[
        "request",
        "withdraw",
        &id,
        "--note",
        "the hotel answered",
        "--by",
        "ops:lee",
    ]);

    let md = w.ok(&["export", "--job", "booking-1042"]);
    for needle in [
        "# Evidence bundle: job `booking-1042`",
        "| 2 | 1 | success | 2026-11-27 13:16:45 | +4m44s | hold | possible_duplicate_effect | `needs_remote_check` by `ana` |",
        "### Held callback #2",
        "| 1 | callback #2 | `needs_remote_check` | `ana` | 2026-11-27 17:00:00 | `asked the hotel \\| waiting` |",
        "`ops:lee` owns the job, escalates at 2026-11-27 19:00:00; set by `lead` at 2026-11-27 17:00:00.",
        "| 2026-11-27 17:00:00 | `ops:lee` | 2026-11-27 19:00:00 | `lead` |",
        "withdrawn by `ops:lee` at 2026-11-27 17:00:00: `the hotel answered`",
        "- Question: open: answer 1",
    ] {
        if needle.starts_with("- Question") {
            // A job's bundle is about no one case.
            assert!(!md.contains(needle), "{needle:?} in a job's bundle:\n{md}");
        } else {
            assert!(md.contains(needle), "{needle:?} missing:\n{md}");
        }
    }
    let json = w.json(&["export", "--job", "booking-1042", "--json"]);
    assert_eq!(json["subject"]["job"], "booking-1042");
    assert_eq!(json["answers"][0]["note"], "asked the hotel | waiting");
    assert_eq!(json["answers"][0]["reviewer"], "ana");
    assert_eq!(json["requests"][0]["status"], "withdrawn");
    assert_eq!(json["owner_history"][0]["owner"], "ops:lee");

    // The case's own bundle says its question is still open, and why.
    let case = w.ok(&["export", "2"]);
    assert!(
        case.contains("- Question: open: answer 1, `needs_remote_check` by `ana` at 2026-11-27 17:00:00, leaves it open"),
        "{case}"
    );
}

#[test]
fn o_writes_a_file_owner_only_and_never_over_one_unless_forced() {
    let (w, _) = Workdir::with_demo();
    let printed = w.ok(&["export", "2"]);
    let said = w.ok(&["export", "2", "-o", "case-2.md"]);
    assert!(
        said.starts_with("wrote the evidence bundle of callback #2 to case-2.md (Markdown, "),
        "{said}"
    );
    let path = w.dir.path().join("case-2.md");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), printed);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the bundle is owner-only");

    std::fs::write(&path, "the ticket's own notes").unwrap();
    let out = w.run(&["export", "11", "-o", "case-2.md"]);
    refused(
        &out,
        &["case-2.md is there already", "nothing written", "--force"],
    );
    assert!(out.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "the ticket's own notes",
        "a refused export leaves the file as it was"
    );
    w.ok(&["export", "11", "-o", "case-2.md", "--force"]);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("# Evidence bundle: callback #11\n")
    );
    let left: Vec<String> = std::fs::read_dir(w.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".jobledger-bundle"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn o_never_names_the_ledger_or_its_own_files_even_forced() {
    let w = Workdir::with_afternoon();
    let before = w.ok(&["callbacks", "--json"]);
    for own in ["ledger.db", "ledger.db-waiting", "./ledger.db-wal"] {
        let out = w.run(&["export", "2", "-o", own, "--force"]);
        refused(
            &out,
            &["is the ledger", "one of its own files", "nothing written"],
        );
    }
    assert_eq!(
        w.ok(&["callbacks", "--json"]),
        before,
        "the ledger is as it was"
    );
}

#[test]
fn an_unknown_callback_or_job_is_named_and_nothing_is_printed() {
    let w = Workdir::with_afternoon();
    let out = w.run(&["export", "999"]);
    refused(&out, &["there is no callback #999", "jobledger callbacks"]);
    assert!(out.stdout.is_empty());
    let out = w.run(&["export", "--job", "booking-\u{1b}[2J"]);
    let said = refused(&out, &["no job \"booking-^[[2J\" is in the ledger"]);
    assert!(!said.contains('\u{1b}'), "{said:?}");
    assert!(!w.dir.path().join("x.md").exists());
}

#[test]
fn export_takes_one_subject_and_one_format() {
    let w = Workdir::with_afternoon();
    for (args, words) in [
        (&["export"][..], &["<SEQ|--job <JOB>>"][..]),
        (
            &["export", "2", "--job", "booking-1042"],
            &["cannot be used with"],
        ),
        (
            &["export", "2", "--json", "--format", "md"],
            &["--json", "--format"],
        ),
        (&["export", "2", "--format", "pdf"], &["pdf", "md", "json"]),
        (&["export", "2", "--force"], &["--output"]),
    ] {
        let out = w.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        for word in words {
            assert!(
                stderr.contains(word),
                "{args:?}: {word:?} missing: {stderr}"
            );
        }
    }
}

/// A job whose attempt 1 reports after staff started attempt 2 (held), whose
/// attempt 2 reports with a line far longer than a bundle shows, and a line that is no
/// JSON, holding an ESC and backticks.
const HOSTILE: &str = concat!(
    r#"{"event":"job_accepted","job_id":"hx-1","at":"2026-11-27T13:00:00Z","timeout_s":120}"#,
    "\n",
    r#"{"event":"attempt_started","job_id":"hx-1","attempt":1,"at":"2026-11-27T13:00:01Z"}"#,
    "\n",
    r#"{"event":"attempt_timed_out","job_id":"hx-1","attempt":1,"at":"2026-11-27T13:02:01Z"}"#,
    "\n",
    r#"{"event":"attempt_started","job_id":"hx-1","attempt":2,"at":"2026-11-27T13:05:00Z","created_by":"staff:ana"}"#,
    "\n",
    r#"{"event":"callback","delivery_id":"hx-a","job_id":"hx-1","attempt":1,"outcome":"success","at":"2026-11-27T13:06:00Z","payload":{"note":"``` | done"}}"#,
    "\n",
);

/// A callback line from outside is shown inert: escape sequences as caret notation,
/// backticks inside a longer fence, a pipe in a cell escaped; a line longer than the
/// bundle shows is cut, with its whole length said. JSON keeps the text exact, each
/// control character escaped.
#[test]
fn a_hostile_or_huge_line_is_made_inert_and_cut_with_its_length() {
    let w = Workdir::with_afternoon();
    let long = format!(
        r#"{{"event":"callback","delivery_id":"hx-b","job_id":"hx-1","attempt":2,"outcome":"success","at":"2026-11-27T13:07:00Z","payload":{{"pad":"{}"}}}}"#,
        "x".repeat(40_000)
    );
    let no_json = "{\"event\":\"callback\",\"note\":\"ESC \u{1b}[2J raw ``` and | pipe\"}";
    let file = w.file(
        "hostile.ndjson",
        format!("{HOSTILE}{long}\n{no_json}\n").as_bytes(),
    );
    w.ok(&["ingest", file.to_str().unwrap()]);
    let callbacks = w.json(&["callbacks", "--json"]);
    let rows = callbacks.as_array().unwrap();
    let seq_of = |delivery: Option<&str>| -> String {
        rows.iter()
            .rfind(|c| c["delivery_id"].as_str() == delivery)
            .map(|c| c["seq"].to_string())
            .unwrap()
    };
    let (held, unparseable) = (seq_of(Some("hx-a")), seq_of(None));

    let job = w.ok(&["export", "--job", "hx-1"]);
    assert!(
        job.contains(&format!(
            "The line is {} bytes long: its first 16384 bytes are shown; the ledger keeps the whole line.",
            long.len()
        )),
        "{job}"
    );
    assert!(!job.contains(&"x".repeat(16_385)), "cut at 16 KiB");
    // The comparison names the long line's payload as not read, by its length.
    assert!(
        job.contains(&format!(
            "| `payload` | — | `not read: the line is {} bytes long` |",
            long.len()
        )),
        "{job}"
    );
    // The held line's payload holds ``` and a pipe: literal in its cell.
    let case = w.ok(&["export", &held]);
    assert!(
        case.contains("| `payload.note` | ````\"``` \\| done\"```` |"),
        "{case}"
    );
    assert!(case.contains("\n````json\n"), "a longer fence:\n{case}");

    // A line over the ingest's limit is kept as its first bytes: the bundle says so.
    let oversized = format!(
        r#"{{"event":"callback","delivery_id":"hx-c","job_id":"hx-1","attempt":2,"outcome":"success","at":"2026-11-27T13:08:00Z","payload":{{"pad":"{}"}}}}"#,
        "y".repeat(100_000)
    );
    let big = w.file("big.ndjson", format!("{oversized}\n").as_bytes());
    w.ok(&["ingest", "--max-line-bytes", "65536", big.to_str().unwrap()]);
    let stub_seq =
        w.json(&["callbacks", "--json", "--where", "reason:oversized"])[0]["seq"].to_string();
    let stub = w.ok(&["export", &stub_seq]);
    assert!(
        stub.contains(&format!(
            "The line is {} bytes long: its first 16384 bytes are shown; the ledger kept only its first bytes and the SHA-256 of the whole (it was over the ingest's line limit).",
            oversized.len()
        )),
        "{stub}"
    );

    let raw_md = w.ok(&["export", &unparseable]);
    assert!(!raw_md.contains('\u{1b}'), "an ESC reached the document");
    assert!(raw_md.contains("ESC ^[[2J raw ``` and | pipe"), "{raw_md}");
    assert!(raw_md.contains("\n````text\n"), "{raw_md}");
    assert!(raw_md.contains("The callback names no job"), "{raw_md}");

    let json = w.ok(&["export", &unparseable, "--json"]);
    assert!(!json.contains('\u{1b}'), "an ESC reached the JSON");
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["callbacks"][0]["raw"]["text"], no_json,
        "JSON keeps the line exact (escaped)"
    );
}
