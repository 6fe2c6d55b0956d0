//! The real `jobledger` binary (SPEC sec. 7): help, the JSON shapes scripts rely on,
//! the demo walkthrough and ingest (refusals of bad input: `cli_refusals.rs`). Every
//! run uses `--db` in a temporary directory and a fixed `--now`.

mod support;

use std::io::Write as _;
use std::process::Stdio;
use support::binary::{Workdir, succeeded};
use support::fixture;

use fixture::{NOW, at};
use serde_json::Value;

/// The subcommands SPEC sec. 7 names.
const SPEC_COMMANDS: [&str; 10] = [
    "review",
    "ingest",
    "summary",
    "callbacks",
    "reconcile",
    "answer",
    "owner",
    "request",
    "outbox",
    "demo",
];

/// The names listed under `Commands:` in a help text.
fn listed_commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// The integers in a line of text, in order.
fn numbers(line: &str) -> Vec<u64> {
    line.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

/// Checks the closing line of `ingest` adds up, and returns its counts:
/// `[read, already, blank, applied, rejected, callbacks, c_applied, held, recorded, quarantined]`.
fn closing_line_adds_up(stdout: &str) -> Vec<u64> {
    let line = stdout.lines().last().expect("a closing line");
    let n = numbers(line);
    assert_eq!(n.len(), 10, "unexpected closing line: {line}");
    assert_eq!(n[0], n[1] + n[2] + n[3] + n[4] + n[5], "lines: {line}");
    assert_eq!(n[5], n[6] + n[7] + n[8] + n[9], "callbacks: {line}");
    n
}

// ---------------------------------------------------------------------------------------
// Help.
// ---------------------------------------------------------------------------------------

#[test]
fn help_of_every_subcommand_exits_zero() {
    let w = Workdir::new();
    let top = w.ok(&["--help"]);
    let commands = listed_commands(&top);
    for spec in SPEC_COMMANDS {
        assert!(
            commands.iter().any(|c| c == spec),
            "`{spec}` missing from --help: {commands:?}"
        );
    }
    // clap's own `help` command takes command names, not flags.
    for command in commands.iter().filter(|c| *c != "help") {
        for args in [
            vec![command.as_str(), "--help"],
            vec!["help", command.as_str()],
        ] {
            let out = w.ok(&args);
            assert!(out.contains("Usage:"), "{args:?}: {out}");
        }
    }
    assert!(!w.db.exists(), "asking for help created a ledger");
}

/// The arguments and options of a help text that stand without a description.
fn undescribed(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Arguments:") && !line.starts_with("Options:"))
        .filter(|line| {
            let item = line.trim_start();
            line.starts_with("  ") && (item.starts_with('-') || item.starts_with('<'))
        })
        .filter(|line| {
            line.trim()
                .split("  ")
                .filter(|p| !p.trim().is_empty())
                .count()
                < 2
        })
        .map(|line| line.trim().to_owned())
        .collect()
}

#[test]
fn every_argument_and_option_of_every_command_says_what_it_is_for() {
    let w = Workdir::new();
    let top = w.ok(&["--help"]);
    for command in listed_commands(&top).iter().filter(|c| *c != "help") {
        let help = w.ok(&[command, "--help"]);
        let bare = undescribed(&help);
        assert!(
            bare.is_empty(),
            "`{command} --help` leaves {bare:?} undescribed:\n{help}"
        );
    }
}

#[test]
fn answer_help_lists_every_verdict() {
    let out = Workdir::new().ok(&["answer", "--help"]);
    for verdict in [
        "single_effect",
        "duplicate_effect",
        "success_stands",
        "failure_stands",
        "linked",
        "noise",
        "needs_remote_check",
    ] {
        assert!(out.contains(verdict), "{verdict} missing:\n{out}");
    }
}

// ---------------------------------------------------------------------------------------
// The JSON shapes of SPEC sec. 7, and the demo.
// ---------------------------------------------------------------------------------------

fn has_keys(value: &Value, keys: &[&str]) {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"));
    for key in keys {
        assert!(object.contains_key(*key), "no {key:?} in {value}");
    }
}

fn time(value: &Value) -> jobledger::clock::Timestamp {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("not a time: {value}"));
    jobledger::clock::Timestamp::parse(text).unwrap_or_else(|| panic!("not RFC 3339: {text}"))
}

#[test]
fn held_callbacks_json_carries_timeout_arrival_and_replacement() {
    let w = Workdir::with_afternoon();
    let held = w.json(&["callbacks", "--json", "--disposition", "hold"]);
    let rows = held.as_array().expect("a list");
    assert_eq!(rows.len(), 1, "{held}");
    let c2 = &rows[0];
    has_keys(
        c2,
        &[
            "seq",
            "delivery_id",
            "job_id",
            "attempt",
            "outcome",
            "arrived_at",
            "timeout_at",
            "disposition",
            "reason",
            "replacement",
            "answer",
        ],
    );
    assert_eq!(c2["delivery_id"], "d-1042-a");
    assert_eq!(c2["job_id"], "booking-1042");
    assert_eq!(c2["attempt"], 1);
    assert_eq!(c2["outcome"], "success");
    assert_eq!(c2["disposition"], "hold");
    assert_eq!(c2["reason"], "possible_duplicate_effect");
    assert_eq!(time(&c2["timeout_at"]), at("2026-11-27T13:12:01Z"));
    assert_eq!(time(&c2["arrived_at"]), at("2026-11-27T13:16:45Z"));
    let replacement = &c2["replacement"];
    has_keys(replacement, &["attempt", "created_by", "started_at"]);
    assert_eq!(replacement["attempt"], 2);
    assert_eq!(replacement["created_by"], "staff:maria");
    assert_eq!(time(&replacement["started_at"]), at("2026-11-27T13:14:30Z"));
    assert!(c2["answer"].is_null());

    // The answer written from the command line shows in the row.
    let seq = c2["seq"].as_i64().unwrap().to_string();
    w.ok(&[
        "answer",
        &seq,
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
        "--note",
        "one booking at the hotel",
    ]);
    let held = w.json(&["callbacks", "--json", "--disposition", "hold"]);
    let answer = &held[0]["answer"];
    assert_eq!(answer["verdict"], "single_effect");
    assert_eq!(answer["reviewer"], "ana");
    assert_eq!(answer["note"], "one booking at the hotel");
    assert_eq!(time(&answer["answered_at"]), at(NOW));
}

/// `answer SEQ --json` prints the answer written: the `answer` object `callbacks
/// --json` then shows, with `linked` beside it.
#[test]
fn answer_json_prints_the_answer_written() {
    let w = Workdir::with_afternoon();
    let held = w.json(&["callbacks", "--json", "--disposition", "hold"]);
    let seq = held[0]["seq"].as_i64().unwrap().to_string();
    let written = w.json(&[
        "answer",
        &seq,
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
        "--note",
        "one booking at the hotel",
        "--json",
    ]);
    let held = w.json(&["callbacks", "--json", "--disposition", "hold"]);
    let mut shown = held[0]["answer"].clone();
    shown["linked"] = Value::Null;
    assert_eq!(written, shown);
    assert_eq!(written["reviewer"], "ana");
    assert_eq!(time(&written["answered_at"]), at(NOW));

    // `linked` names the callback the answer made, as `callbacks --json` lists it.
    let linked = w.json(&[
        "answer",
        "5",
        "--verdict",
        "linked",
        "--job",
        "booking-1043",
        "--json",
    ]);
    assert_eq!(linked["linked_job_id"], "booking-1043", "{linked}");
    let made = linked["linked"]["seq"].as_i64().expect("the callback made");
    let all = w.json(&["callbacks", "--json"]);
    let row = all
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["seq"] == made)
        .expect("the callback made is listed");
    assert_eq!(row["linked_from_seq"], 5, "{row}");
    for key in ["disposition", "reason"] {
        assert_eq!(linked["linked"][key], row[key], "{key}");
    }
}

/// The plain table keeps every cell in its column: a replacement wider than its
/// column (`#2 staff:maria 2026-11-27 13:14:30`) pushed the answers of its row right.
#[test]
fn the_callbacks_table_keeps_its_columns_aligned() {
    let w = Workdir::with_afternoon();
    let table = w.ok(&["callbacks"]);
    let mut lines = table.lines();
    let header = lines.next().expect("a header");
    let answer_at = header.find("answer").expect("an answer column");
    let header_chars = header[..answer_at].chars().count();
    let mut with_replacement = 0;
    for line in lines {
        // The answer cell, from under its header to the end: a dash, or who answered.
        let cell: String = line.chars().skip(header_chars).collect();
        let before: String = line.chars().take(header_chars).collect();
        assert!(
            before.ends_with("  ") && (cell == "-" || cell.contains(" by ")),
            "the answer cell does not start under its header:\n{header}\n{line}"
        );
        with_replacement += usize::from(line.contains("#2 staff:maria 2026-11-27 13:14:30"));
    }
    assert_eq!(with_replacement, 1, "{table}");
}

/// A clean ledger for `--exit-code`: one job accepted, answered within its timeout,
/// its output stored and its client told.
const ALL_DONE: &str = r#"{"event":"job_accepted","job_id":"ok-1","at":"2026-11-27T16:00:00Z","timeout_s":120,"expected_age_s":3600,"attempt_budget":3}
{"event":"attempt_started","job_id":"ok-1","attempt":1,"at":"2026-11-27T16:00:01Z"}
{"event":"callback","delivery_id":"d-ok-1","job_id":"ok-1","attempt":1,"outcome":"success","at":"2026-11-27T16:00:30Z","payload":{}}
{"event":"output_stored","job_id":"ok-1","ref":"r/ok-1.pdf","at":"2026-11-27T16:00:40Z","retention_until":"2027-02-27T00:00:00Z"}
{"event":"notification_sent","job_id":"ok-1","kind":"done","at":"2026-11-27T16:00:41Z"}
"#;

/// A callback held as a possible duplicate half an hour before the clock: one arrival
/// for the backlog alarm, one question until it is answered.
const HELD_LATE: &str = r#"{"event":"job_accepted","job_id":"late-1","at":"2026-11-27T16:00:00Z","timeout_s":120,"expected_age_s":3600,"attempt_budget":3}
{"event":"attempt_started","job_id":"late-1","attempt":1,"at":"2026-11-27T16:00:01Z"}
{"event":"attempt_timed_out","job_id":"late-1","attempt":1,"at":"2026-11-27T16:02:01Z"}
{"event":"attempt_started","job_id":"late-1","attempt":2,"at":"2026-11-27T16:05:00Z","created_by":"staff:maria"}
{"event":"callback","delivery_id":"d-late-1","job_id":"late-1","attempt":1,"outcome":"success","at":"2026-11-27T16:30:00Z","payload":{}}
"#;

/// `summary --exit-code` counts an open question, and the backlog alarm alone: more
/// arrivals than reviewers can take is for a person to see even once all are answered.
#[test]
fn summary_exit_code_counts_open_questions_and_the_backlog_alarm() {
    let w = Workdir::new();
    let stream = w.file("held.ndjson", HELD_LATE.as_bytes());
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let code = |capacity: &str| {
        let args = ["summary", "--exit-code", "--review-capacity", capacity];
        let out = w.run(&args);
        assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
        out.status.code()
    };
    assert_eq!(code("30"), Some(5), "one question open");
    w.ok(&[
        "answer",
        "1",
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    assert_eq!(
        code("30"),
        Some(0),
        "answered, and one arrival within capacity"
    );
    assert_eq!(code("0"), Some(5), "one arrival against a capacity of none");
    let summary = w.json(&["summary", "--json", "--review-capacity", "0"]);
    assert_eq!(summary["backlog_alarm"], true, "{summary}");
    assert_eq!(summary["backlog"]["open"], 0, "{summary}");
}

/// `reconcile --exit-code` and `summary --exit-code` exit 5 when the report shows
/// something for a person (NOT COMPLETE, aged jobs; open questions), 0 on a clean
/// ledger; without the flag both exit 0 whatever they report.
#[test]
fn exit_code_says_whether_a_report_needs_a_person() {
    let clean = Workdir::new();
    let stream = clean.file("done.ndjson", ALL_DONE.as_bytes());
    clean.ok(&["ingest", stream.to_str().unwrap()]);
    let afternoon = Workdir::with_afternoon();
    for (w, command, expected) in [
        (&clean, "reconcile", 0),
        (&clean, "summary", 0),
        (&afternoon, "reconcile", 5),
        (&afternoon, "summary", 5),
    ] {
        for json in [false, true] {
            let mut args = vec![command, "--exit-code"];
            if json {
                args.push("--json");
            }
            let out = w.run(&args);
            assert_eq!(out.status.code(), Some(expected), "{args:?}: {out:?}");
            assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
            let stdout = String::from_utf8(out.stdout).unwrap();
            if json {
                serde_json::from_str::<Value>(&stdout).expect("the report is printed whole");
            }
            // The report printed is the one printed without the flag.
            let plain: Vec<&str> = args
                .iter()
                .copied()
                .filter(|a| *a != "--exit-code")
                .collect();
            assert_eq!(stdout, w.ok(&plain), "{args:?}");
        }
    }
    let text = afternoon.ok(&["reconcile"]);
    assert!(text.contains("NOT COMPLETE"), "{text}");
    let summary = afternoon.json(&["summary", "--json"]);
    assert!(
        summary["backlog"]["open"].as_i64().unwrap() > 0,
        "{summary}"
    );
    let help = afternoon.ok(&["reconcile", "--help"]);
    assert!(help.contains("Exit status:"), "{help}");
}

#[test]
fn callbacks_json_lists_every_callback_in_ingest_order() {
    let (w, _) = Workdir::with_demo();
    let all = w.json(&["callbacks", "--json"]);
    let rows = all.as_array().expect("a list");
    let seqs: Vec<i64> = rows.iter().map(|r| r["seq"].as_i64().unwrap()).collect();
    assert!(seqs.is_sorted(), "{seqs:?}");
    let summary = w.json(&["summary", "--json"]);
    assert_eq!(
        i64::try_from(rows.len()).unwrap(),
        summary["callbacks"].as_i64().unwrap()
    );
    for disposition in ["apply", "hold", "record", "quarantine"] {
        let some = w.json(&["callbacks", "--json", "--disposition", disposition]);
        let some = some.as_array().unwrap();
        assert!(some.iter().all(|r| r["disposition"] == disposition));
        let expected = rows
            .iter()
            .filter(|r| r["disposition"] == disposition)
            .count();
        assert_eq!(some.len(), expected, "{disposition}");
    }
}

#[test]
fn summary_json_has_its_shape_and_adds_up() {
    let (w, _) = Workdir::with_demo();
    let s = w.json(&["summary", "--json"]);
    has_keys(
        &s,
        &[
            "callbacks",
            "applied",
            "held",
            "recorded",
            "quarantined",
            "jobs",
            "outbox",
            "decisions_suppressed",
            "backlog_alarm",
        ],
    );
    let n = |key: &str| s[key].as_i64().unwrap();
    assert_eq!(
        n("applied") + n("held") + n("recorded") + n("quarantined"),
        n("callbacks")
    );
    assert_eq!(
        (n("applied"), n("held"), n("recorded"), n("quarantined")),
        (6, 2, 3, 4)
    );
    has_keys(
        &s["jobs"],
        &[
            "accepted",
            "running",
            "timed_out",
            "succeeded",
            "completed_late",
            "failed",
            "expired",
            "cancelled",
        ],
    );
    assert_eq!(n("outbox"), 0);
    assert_eq!(n("decisions_suppressed"), 1);
    assert!(s["backlog_alarm"].is_boolean());
}

#[test]
fn demo_names_the_dropped_notification_and_the_missing_output_without_claiming_completion() {
    let (w, out) = Workdir::with_demo();
    assert!(out.contains("NOT COMPLETE"), "{out}");
    assert!(
        !out.contains("Every accepted job has a terminal record"),
        "the demo must not claim the queue completed:\n{out}"
    );
    // Each gap is named under its own heading.
    let under = |heading: &str| -> Vec<String> {
        out.lines()
            .skip_while(|l| !l.starts_with(heading))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.trim().to_owned())
            .collect()
    };
    assert_eq!(under("missing_output"), ["booking-1052"], "{out}");
    assert_eq!(under("missing_notification"), ["booking-1051"], "{out}");

    let r = w.json(&["reconcile", "--json"]);
    has_keys(
        &r,
        &[
            "accepted",
            "missing_terminal",
            "missing_output",
            "missing_notification",
            "aged",
            "windows",
        ],
    );
    assert_eq!(r["accepted"], 15);
    assert_eq!(r["missing_output"], serde_json::json!(["booking-1052"]));
    assert_eq!(
        r["missing_notification"],
        serde_json::json!(["booking-1051"])
    );
    for list in ["missing_terminal", "missing_output", "missing_notification"] {
        let ids: Vec<&str> = r[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(ids.is_sorted(), "{list}: {ids:?}");
    }
    let aged: Vec<&str> = r["aged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["job_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        aged,
        [
            "booking-1042",
            "booking-1043",
            "booking-1055",
            "booking-1056"
        ]
    );
    let windows = r["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 2, "{r}");
    let starts: Vec<_> = windows.iter().map(|w| time(&w["start"])).collect();
    assert!(starts.is_sorted(), "{starts:?}");
    let in_windows: i64 = windows
        .iter()
        .map(|w| w["accepted"].as_i64().unwrap())
        .sum();
    assert_eq!(in_windows, 15);
}

#[test]
fn demo_is_rebuilt_on_its_own_ledger_but_never_over_a_real_one() {
    let (w, first) = Workdir::with_demo();
    let second = w.ok(&["demo", "--print"]);
    assert_eq!(first, second, "a second demo run starts afresh");

    let real = Workdir::with_afternoon();
    real.ok(&[
        "ingest",
        real.file(
            "more.ndjson",
            b"{\"event\":\"job_accepted\",\"job_id\":\"mine-1\",\"at\":\"2026-11-27T16:00:00Z\"}\n",
        )
        .to_str()
        .unwrap(),
    ]);
    let before = std::fs::read(&real.db).unwrap();
    let stderr = real.fails(&["demo", "--print"]);
    assert!(stderr.contains("untouched"), "{stderr}");
    assert_eq!(std::fs::read(&real.db).unwrap(), before);
    assert!(real.ledger().job("mine-1").unwrap().is_some());
}

#[test]
fn demo_never_replaces_its_ledger_once_events_were_ingested_into_it_and_says_what_it_drops() {
    let (w, _) = Workdir::with_demo();
    // A walkthrough's answer on the demo's own row is the demo's to replace, said.
    w.ok(&[
        "answer",
        "2",
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    let output = w.run(&["demo", "--print"]);
    assert!(output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("dropped 1 answers"), "{said}");
    // Events of one's own ingested into the demo's ledger make it a real one.
    w.ok(&[
        "ingest",
        w.file(
            "mine.ndjson",
            b"{\"event\":\"job_accepted\",\"job_id\":\"mine-1\",\"at\":\"2026-11-27T16:00:00Z\"}\n",
        )
        .to_str()
        .unwrap(),
    ]);
    w.ok(&[
        "answer",
        "2",
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    let before = fixture::dump(&w.db);
    let refused = w.fails(&["demo", "--print"]);
    assert!(
        refused.contains("holds 1 input lines the demo did not write"),
        "{refused}"
    );
    assert_eq!(fixture::dump(&w.db), before, "the ledger changed");
    assert!(w.ledger().job("mine-1").unwrap().is_some());
}

// ---------------------------------------------------------------------------------------
// Ingest through the binary.
// ---------------------------------------------------------------------------------------

#[test]
fn ingest_of_a_file_full_of_junk_exits_zero_and_its_closing_line_adds_up() {
    let w = Workdir::new();
    let mut junk = Vec::new();
    for line in [
        &b""[..],
        b"   ",
        b"garbage",
        b"\xff\xfe\x00\x01 binary",
        b"{\"event\":\"party\"}",
        b"[\"an\",\"array\"]",
        b"{\"event\":\"job_cancelled\",\"job_id\":\"ghost\",\"at\":\"2026-11-27T14:00:00Z\",\"by\":\"x\"}",
        b"{\"event\":\"job_accepted\",\"job_id\":\"\",\"at\":\"2026-11-27T14:00:00Z\"}",
        b"{\"event\":\"callback\",\"job_id\":\"ghost\",\"outcome\":\"success\",\"at\":\"2026-11-27T14:00:00Z\"}",
        b"{\"event\":\"callback\",\"outcome\":\"success\"}\r",
        b"{\"event\":\"callback\",\"job_id\":\"ghost\",\"outcome\":\"succ",
    ] {
        junk.extend_from_slice(line);
        junk.push(b'\n');
    }
    let file = w.file("junk.ndjson", &junk);
    let n = closing_line_adds_up(&w.ok(&["ingest", file.to_str().unwrap()]));
    assert_eq!(n[0], 11, "every line is read");
    assert_eq!(n[2], 2, "two blank lines");
    assert_eq!(n[4], 2, "two rejected events");
    assert_eq!(n[5], 7, "seven quarantined callbacks");
    assert_eq!(n[9], 7);

    // The reasons are visible.
    let rejected = w.json(&["rejected", "--json"]);
    let reasons: Vec<&str> = rejected
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 2, "{rejected}");
    assert!(reasons.iter().any(|r| r.contains("ghost")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.contains("job_id")), "{reasons:?}");
    let text = w.ok(&["rejected"]);
    assert!(text.contains("ghost"), "{text}");
    let summary = w.json(&["summary", "--json"]);
    assert_eq!(summary["rejected_events"], 2, "{summary}");
    assert_eq!(summary["quarantined"], 7, "{summary}");

    // Again: every line already ingested, and still adding up.
    let again = closing_line_adds_up(&w.ok(&["ingest", file.to_str().unwrap()]));
    assert_eq!(again[1] + again[2], again[0]);
}

#[test]
fn ingest_reads_standard_input() {
    let w = Workdir::new();
    let mut child = w
        .command()
        .arg("--db")
        .arg(&w.db)
        .args(["--now", NOW, "ingest", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(fixture::booking_afternoon().as_bytes())
        .unwrap();
    let out = succeeded(&child.wait_with_output().unwrap(), &["ingest", "-"]);
    let n = closing_line_adds_up(&out);
    assert_eq!(&n[6..], [1, 1, 2, 1], "{out}");
}

// ---------------------------------------------------------------------------------------
// Helpers of this file are themselves checked, so a broken parser cannot pass silently.
// ---------------------------------------------------------------------------------------

#[test]
fn the_closing_line_parser_rejects_counts_that_do_not_add_up() {
    let good = "21 lines read: 0 already ingested, 0 blank, 16 events applied, 0 rejected, 5 callbacks (1 applied, 1 held, 2 recorded, 1 quarantined)\n";
    assert_eq!(closing_line_adds_up(good), [21, 0, 0, 16, 0, 5, 1, 1, 2, 1]);
    let bad = good.replace("21 lines", "22 lines");
    assert!(std::panic::catch_unwind(|| closing_line_adds_up(&bad)).is_err());
    assert_eq!(
        listed_commands(
            "Commands:\n  one  first\n             wrapped\n  two  second\n\nOptions:\n  -h\n"
        ),
        ["one", "two"]
    );
}

#[test]
fn rejected_says_so_when_there_is_nothing_to_list() {
    // One job accepted once: the afternoon has a rejected resubmission.
    let w = Workdir::new();
    let stream = w.file(
        "one.ndjson",
        br#"{"event":"job_accepted","job_id":"b-1","at":"2026-11-27T13:00:00Z"}
"#,
    );
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let text = w.ok(&["rejected"]);
    assert!(text.contains("No rejected events"), "{text}");
}

#[test]
fn opening_an_older_ledger_says_it_upgrades_it_once() {
    let w = Workdir::new();
    {
        // A ledger as jobledger of schema 4 left it (empty).
        let conn = rusqlite::Connection::open(&w.db).unwrap();
        for sql in [
            include_str!("../src/store/sqlite/migrations/001_ledger.sql"),
            include_str!("../src/store/sqlite/migrations/002_ledger_notes.sql"),
            include_str!("../src/store/sqlite/migrations/003_counts_and_list_indexes.sql"),
            include_str!("../src/store/sqlite/migrations/004_review_list_index.sql"),
        ] {
            conn.execute_batch(sql).unwrap();
        }
        conn.execute_batch(&format!(
            "PRAGMA user_version = 4; PRAGMA application_id = {};",
            jobledger::store::APPLICATION_ID
        ))
        .unwrap();
    }
    // Owner-only, as jobledger makes ledgers: one others may read is warned about.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&w.db, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let first = w.run(&["summary"]);
    assert!(first.status.success());
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(
        said.contains("upgrading the ledger") && said.contains("from schema 4 to"),
        "{said}"
    );
    let second = w.run(&["summary"]);
    assert!(second.status.success());
    assert_eq!(String::from_utf8_lossy(&second.stderr), "");
}

/// Help cites what a user has (the README), never the project's own specification.
#[test]
fn no_help_text_cites_a_document_the_user_does_not_have() {
    let w = Workdir::new();
    let top = w.ok(&["--help"]);
    assert!(!top.contains("SPEC"), "{top}");
    for command in listed_commands(&top).iter().filter(|c| *c != "help") {
        let help = w.ok(&[command, "--help"]);
        assert!(
            !help.contains("SPEC"),
            "`{command} --help` cites SPEC:\n{help}"
        );
    }
}
