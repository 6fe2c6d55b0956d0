//! The real `jobledger` binary refusing what it must (SPEC sec. 7): bad input gets a
//! clear message on stderr, a non-zero exit, no panic and nothing written; requests
//! are checked before they reach the outbox; and text from the stream never drives
//! the terminal, in reports or in refusals. Every run uses `--db` in a temporary
//! directory and a fixed `--now`.

mod support;

use serde_json::Value;
use support::binary::{Workdir, failed, refused, succeeded};
use support::fixture::{self, NOW};

/// The sequence number of the first held callback, as the command line takes it.
fn first_held(w: &Workdir) -> String {
    w.json(&["callbacks", "--json", "--disposition", "hold"])[0]["seq"]
        .as_i64()
        .unwrap()
        .to_string()
}

// ---------------------------------------------------------------------------------------
// Bad input: a clear message on stderr, a non-zero exit, no panic, nothing written.
// ---------------------------------------------------------------------------------------

#[test]
fn reading_a_ledger_that_does_not_exist_is_refused_without_creating_it() {
    let w = Workdir::new();
    for args in [
        vec!["summary"],
        vec!["callbacks", "--json"],
        vec!["reconcile"],
        vec!["outbox"],
        vec!["rejected"],
        vec!["answer", "1", "--verdict", "noise"],
        vec!["request", "retry", "booking-1058", "--by", "ana"],
    ] {
        let stderr = w.fails(&args);
        assert!(stderr.contains("no ledger"), "{args:?}: {stderr}");
        assert!(stderr.contains("ledger.db"), "names the file: {stderr}");
        assert!(!w.db.exists(), "{args:?} created the ledger");
    }
    // The default ledger, too.
    let output = w.command().arg("summary").output().unwrap();
    let stderr = failed(&output, &["summary"]);
    assert!(stderr.contains("jobledger.db"), "{stderr}");
    assert!(!w.dir.path().join("jobledger.db").exists());
}

#[test]
fn the_ledger_path_can_come_from_the_environment() {
    let w = Workdir::with_afternoon();
    let output = w
        .command()
        .env("JOBLEDGER_DB", &w.db)
        .args(["--now", NOW, "summary", "--json"])
        .output()
        .unwrap();
    let summary: Value = serde_json::from_str(&succeeded(&output, &["summary"])).unwrap();
    assert_eq!(summary["callbacks"], 5);
}

#[test]
fn a_bad_now_is_refused_with_a_clear_message() {
    let w = Workdir::with_afternoon();
    for bad in ["yesterday", "2026-11-27", "2026-13-40T25:00:00Z", ""] {
        let args = ["--now", bad, "summary"];
        let output = w
            .command()
            .arg("--db")
            .arg(&w.db)
            .args(args)
            .output()
            .unwrap();
        let stderr = failed(&output, &args);
        assert!(stderr.contains("RFC 3339"), "{bad:?}: {stderr}");
    }
}

#[test]
fn an_unknown_verdict_is_refused_listing_the_allowed_ones() {
    let w = Workdir::with_afternoon();
    let c2 = first_held(&w);
    let stderr = w.fails(&["answer", &c2, "--verdict", "maybe", "--reviewer", "ana"]);
    for allowed in ["single_effect", "duplicate_effect", "needs_remote_check"] {
        assert!(stderr.contains(allowed), "{stderr}");
    }
    assert!(stderr.contains("maybe"), "{stderr}");
    assert!(w.ledger().answers(c2.parse().unwrap()).unwrap().is_empty());

    // Other mistakes in an answer, each told plainly.
    for (args, needle) in [
        (
            vec!["answer", "999", "--verdict", "noise"],
            "no callback #999",
        ),
        (
            vec!["answer", "1", "--verdict", "noise"],
            "only held and quarantined",
        ),
        (vec!["answer", "5", "--verdict", "linked"], "--job"),
        (
            vec![
                "answer",
                "5",
                "--verdict",
                "linked",
                "--job",
                "booking-0000",
            ],
            "booking-0000",
        ),
        (
            vec!["answer", "not-a-number", "--verdict", "noise"],
            "not-a-number",
        ),
        (vec!["answer", &c2], "--verdict"),
    ] {
        let stderr = w.fails(&args);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    assert_eq!(w.json(&["summary", "--json"])["backlog"]["answered"], 0);
}

#[test]
fn a_second_reviewer_is_told_how_to_answer_over_the_first() {
    let w = Workdir::with_afternoon();
    let c2 = first_held(&w);
    w.ok(&[
        "answer",
        &c2,
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    let second = [
        "answer",
        &c2,
        "--verdict",
        "duplicate_effect",
        "--reviewer",
        "bo",
    ];
    let stderr = w.fails(&second);
    assert!(stderr.contains("ana"), "{stderr}");
    assert!(stderr.contains("--seen"), "{stderr}");
    let seen = w.ledger().answers(c2.parse().unwrap()).unwrap()[0]
        .id
        .to_string();
    w.ok(&[&second[..], &["--seen", &seen]].concat());
    assert_eq!(w.ledger().answers(c2.parse().unwrap()).unwrap().len(), 2);
}

#[test]
fn a_file_that_is_not_a_ledger_is_refused_and_untouched() {
    let w = Workdir::new();
    let stream = w.file("events.ndjson", fixture::booking_afternoon().as_bytes());
    let before = std::fs::read(&stream).unwrap();
    for args in [
        vec!["summary"],
        vec!["ingest", stream.to_str().unwrap()],
        vec!["demo", "--print"],
    ] {
        let output = w
            .command()
            .arg("--db")
            .arg(&stream)
            .args(["--now", NOW])
            .args(&args)
            .output()
            .unwrap();
        let stderr = failed(&output, &args);
        // Ingested, it would also be read as the input: refused before it is opened.
        let why = if args[0] == "ingest" {
            "the same file as the ledger"
        } else {
            "not a SQLite database"
        };
        assert!(stderr.contains(why), "{args:?}: {stderr}");
        assert_eq!(std::fs::read(&stream).unwrap(), before, "{args:?}");
    }
}

#[test]
fn ingest_of_a_missing_file_is_refused_clearly() {
    let w = Workdir::with_afternoon();
    let stderr = w.fails(&["ingest", "no-such-file.ndjson"]);
    assert!(stderr.contains("no-such-file.ndjson"), "{stderr}");
    assert_eq!(w.json(&["summary", "--json"])["callbacks"], 5);
}

#[test]
fn a_directory_given_as_ingest_input_is_named_once_and_nothing_is_made() {
    let w = Workdir::new();
    let events = w.dir.path().join("events");
    std::fs::create_dir(&events).unwrap();
    let stderr = w.fails(&["ingest", events.to_str().unwrap()]);
    assert!(
        stderr.contains("is a directory, not a file of events"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("re-run") && !stderr.contains("os error"),
        "{stderr}"
    );
    assert!(
        !w.db.exists(),
        "a ledger was made for an input that is none"
    );
}

#[test]
fn a_read_error_in_the_input_is_said_once() {
    let w = Workdir::new();
    // Reading the start of one's own memory fails with an I/O error (EIO).
    let stderr = w.fails(&["ingest", "/proc/self/mem"]);
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
    assert!(stderr.contains("reading the input failed"), "{stderr}");
}

// ---------------------------------------------------------------------------------------
// Requests from the command line.
// ---------------------------------------------------------------------------------------

#[test]
fn a_retry_from_the_command_line_is_checked_and_lands_in_the_outbox() {
    let (w, _) = Workdir::with_demo();
    let out = w.ok(&["request", "retry", "booking-1058", "--by", "ops:maria"]);
    assert!(out.contains("attempt 2"), "{out}");
    let outbox = w.json(&["outbox", "--json"]);
    let rows = outbox.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{outbox}");
    assert_eq!(rows[0]["job_id"], "booking-1058");
    assert_eq!(rows[0]["request"], "retry");
    assert_eq!(rows[0]["attempt"], 2);
    assert_eq!(rows[0]["input_digest"], "sha256:11aa09");
    assert_eq!(rows[0]["model_digest"], "sha256:51d0b2");
    assert_eq!(rows[0]["policy_revision"], "confirm-v7");
    assert_eq!(rows[0]["requested_by"], "ops:maria");

    for (job, needle) in [
        ("booking-1050", "already has a success"),
        ("booking-0000", "booking-0000"),
    ] {
        let stderr = w.fails(&["request", "retry", job, "--by", "ops:maria"]);
        assert!(stderr.contains(needle), "{job}: {stderr}");
    }
    assert_eq!(w.json(&["outbox", "--json"]).as_array().unwrap().len(), 1);
    assert_eq!(w.json(&["summary", "--json"])["outbox"], 1);
}

/// A request that contradicts one still pending, or a retry beside an attempt still
/// running: refused on stderr, exit 1, and the outbox as it was.
#[test]
fn a_contradicting_request_from_the_command_line_is_refused_and_writes_nothing() {
    let (w, _) = Workdir::with_demo();
    w.ok(&["request", "retry", "booking-1043", "--by", "ops:maria"]);
    let before = w.json(&["outbox", "--json"]);
    let pending = "a retry request for this job is already waiting in the outbox";
    for (kind, job, why) in [
        ("cancel", "booking-1043", pending),
        ("retry", "booking-1043", pending),
        ("retry", "booking-1042", "attempt 2 is still running"),
    ] {
        let out = w.run(&["request", kind, job, "--by", "ops:kim"]);
        refused(&out, &[&format!("{kind} of {job} refused: "), why]);
        assert!(out.stdout.is_empty(), "{kind} {job} printed a result");
    }
    assert_eq!(w.json(&["outbox", "--json"]), before);
    assert_eq!(w.json(&["summary", "--json"])["outbox"], 1);
}

// ---------------------------------------------------------------------------------------
// Text from the stream never drives the terminal.
// ---------------------------------------------------------------------------------------

/// Job ids, outputs and notes carrying terminal control sequences (clear screen, OSC 52
/// clipboard write, 8-bit CSI, bidi override).
const HOSTILE: &str = r#"{"event":"job_accepted","job_id":"evil\u001b[2J","at":"2026-11-27T15:00:00Z","timeout_s":120,"owner":"ops:\u001b]0;pwned\u0007"}
{"event":"attempt_started","job_id":"evil\u001b[2J","attempt":1,"at":"2026-11-27T15:00:01Z","created_by":"system"}
{"event":"attempt_timed_out","job_id":"evil\u001b[2J","attempt":1,"at":"2026-11-27T15:02:01Z"}
{"event":"attempt_started","job_id":"evil\u001b[2J","attempt":2,"at":"2026-11-27T15:03:00Z","created_by":"staff:\u009b31m\u202eamy"}
{"event":"callback","job_id":"evil\u001b[2J","attempt":1,"outcome":"success","at":"2026-11-27T15:04:00Z"}
{"event":"callback","job_id":"nobody\u0007\r","outcome":"success","at":"2026-11-27T15:05:00Z"}
{"event":"job_cancelled","job_id":"ghost\u001b]52;c;ZWNobyBoaQ==\u0007","at":"2026-11-27T15:06:00Z","by":"x"}
{"event":"job_accepted","job_id":"gone\u001b[2J","at":"2026-11-27T15:10:00Z","timeout_s":120}
{"event":"attempt_started","job_id":"gone\u001b[2J","attempt":1,"at":"2026-11-27T15:10:01Z"}
{"event":"job_failed","job_id":"gone\u001b[2J","attempt":1,"at":"2026-11-27T15:10:30Z","cause":"x","permanent":false}
{"event":"output_stored","job_id":"gone\u001b[2J","ref":"out\u001b]52;c;ZWNobyBoaQ==\u0007.pdf","at":"2026-11-27T15:10:40Z"}
"#;

fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\r'] {
        assert!(
            !text.contains(bad),
            "{what} printed {bad:?} from the stream: {text:?}"
        );
    }
}

#[test]
fn reports_never_print_control_characters_from_the_stream() {
    let w = Workdir::new();
    let file = w.file("hostile.ndjson", HOSTILE.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    w.ok(&["request", "cancel", "evil\u{1b}[2J", "--by", "ops:maria"]);
    for args in [
        vec!["summary"],
        vec!["callbacks"],
        vec!["callbacks", "--json"],
        vec!["reconcile"],
        vec!["reconcile", "--json"],
        vec!["rejected"],
        vec!["rejected", "--json"],
        vec!["outbox"],
        vec!["outbox", "--json"],
    ] {
        let output = w.run(&args);
        succeeded(&output, &args);
        assert_inert(&format!("{args:?}"), &output.stdout);
    }
}

#[test]
fn refusals_never_print_control_characters_from_the_stream() {
    let w = Workdir::new();
    let file = w.file("hostile.ndjson", HOSTILE.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    // Refused: the output object exists. Both the job id and the ref come from the stream.
    let args = ["request", "retry", "gone\u{1b}[2J", "--by", "ops:maria"];
    let output = w.run(&args);
    let stderr = failed(&output, &args);
    assert!(stderr.contains("output object exists"), "{stderr}");
    assert_inert("a refused request", &output.stderr);
}

/// `ingest L.db --db L.db` kept the ledger's own bytes as 208 quarantined lines. The
/// ledger, its `-wal` and its `-shm` are refused as input by device and inode, however
/// the path is spelt (a symbolic link, a hard link, `./`, standard input), and nothing
/// is written.
#[test]
fn ingesting_the_ledger_itself_or_its_wal_or_shm_is_refused_and_writes_nothing() {
    let w = Workdir::with_afternoon();
    let dir = w.dir.path();
    std::os::unix::fs::symlink(&w.db, dir.join("link.ndjson")).unwrap();
    std::fs::hard_link(&w.db, dir.join("hard.ndjson")).unwrap();
    // An open connection keeps the -wal and -shm beside the ledger.
    let open = rusqlite::Connection::open(&w.db).unwrap();
    let lines: i64 = open
        .query_row("SELECT count(*) FROM input_lines", [], |row| row.get(0))
        .unwrap();
    let before = fixture::dump(&w.db);
    let wal = format!("{}-wal", w.db.display());
    let shm = format!("{}-shm", w.db.display());
    for (input, what) in [
        (w.db.to_str().unwrap(), "the same file as the ledger"),
        ("./ledger.db", "the same file as the ledger"),
        ("link.ndjson", "the same file as the ledger"),
        ("hard.ndjson", "the same file as the ledger"),
        (&wal, "the write-ahead log (-wal) of the ledger"),
        (&shm, "the shared-memory index (-shm) of the ledger"),
    ] {
        let args = ["ingest", input];
        let out = w.run(&args);
        refused(&out, &[what, "Nothing was read or written"]);
        assert!(out.stdout.is_empty(), "{input}: no report");
    }
    let mut stdin = support::binary::command(&w.db, NOW);
    let out = stdin
        .current_dir(dir)
        .args(["ingest", "-"])
        .stdin(std::fs::File::open(&w.db).unwrap())
        .output()
        .unwrap();
    refused(&out, &["standard input is the same file as the ledger"]);
    assert_eq!(fixture::dump(&w.db), before, "something was written");
    drop(open);
    assert_eq!(
        fixture::query_i64(&w.db, "SELECT count(*) FROM input_lines", []),
        lines
    );
    let out = w.run(&["ingest", "--follow", "link.ndjson"]);
    refused(&out, &["the same file as the ledger", "Nothing was read"]);
}
