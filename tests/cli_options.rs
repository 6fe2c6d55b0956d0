//! Command-line paths that no other test ran: the `owner` command's
//! refusals, `reconcile --window` other than the default hour, `--review-capacity`,
//! and the capacity used when the flag is not given. All through the real binary.

mod support;

use std::fmt::Write as _;

use jobledger::reconcile::DEFAULT_REVIEW_CAPACITY;
use serde_json::Value;
use support::binary::Workdir;
use support::fixture;

/// The ledger's owner assignments, read with plain SQL.
fn owner_rows(w: &Workdir) -> i64 {
    fixture::query_i64(&w.db, "SELECT count(*) FROM owner_assignments", [])
}

#[test]
fn owner_refuses_an_unknown_job_an_empty_name_and_a_bad_time_and_writes_nothing() {
    let (w, _) = Workdir::with_demo();
    let before = fixture::dump(&w.db);
    let stderr = w.fails(&["owner", "booking-9999", "--owner", "ops:kim"]);
    assert!(
        stderr.contains(r#"no job "booking-9999" is in the ledger"#),
        "{stderr}"
    );
    for blank in ["", "   "] {
        let stderr = w.fails(&["owner", "booking-1043", "--owner", blank]);
        assert!(stderr.contains("an owner needs a name"), "{stderr}");
    }
    let stderr = w.fails(&[
        "owner",
        "booking-1043",
        "--owner",
        "ops:kim",
        "--escalate-at",
        "tomorrow",
    ]);
    assert!(
        stderr.contains("is neither a time (2026-11-27T18:00:00Z) nor a delay from now (30m, 2h)"),
        "{stderr}"
    );
    assert_eq!(
        fixture::dump(&w.db),
        before,
        "a refused owner wrote something"
    );
}

#[test]
fn owner_on_a_missing_ledger_is_refused_without_creating_it() {
    let w = Workdir::new();
    let stderr = w.fails(&["owner", "booking-1043", "--owner", "ops:kim"]);
    assert!(stderr.contains("no ledger at"), "{stderr}");
    assert!(!w.db.exists(), "the refusal created a ledger");
}

#[test]
fn owner_sets_the_owner_and_escalation_that_reconcile_then_shows() {
    let (w, _) = Workdir::with_demo();
    let before = owner_rows(&w);
    let out = w.ok(&[
        "owner",
        "booking-1043",
        "--owner",
        "ops:kim",
        "--escalate-at",
        "2026-11-27T18:00:00Z",
        "--by",
        "lead",
    ]);
    assert_eq!(
        out,
        "booking-1043 is owned by ops:kim; escalates at 2026-11-27T18:00:00.000Z\n"
    );
    assert_eq!(owner_rows(&w), before + 1);
    let report = w.json(&["reconcile", "--json"]);
    let aged = report["aged"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["job_id"] == "booking-1043")
        .expect("booking-1043 is aged");
    assert_eq!(aged["owner"], "ops:kim");
    assert_eq!(aged["unowned"], false);
}

/// `--escalate-at` takes what the console's owner form takes: a delay from now as well
/// as a time, the delay counted from the clock (`--now`).
#[test]
fn owner_escalates_after_a_delay_from_now_as_the_console_form_does() {
    let (w, _) = Workdir::with_demo();
    for (typed, escalates) in [
        ("2h", "2026-11-27T19:00:00.000Z"),
        ("+30m", "2026-11-27T17:30:00.000Z"),
        ("2026-11-28T09:00:00Z", "2026-11-28T09:00:00.000Z"),
    ] {
        let out = w.ok(&[
            "owner",
            "booking-1043",
            "--owner",
            "ops:kim",
            "--escalate-at",
            typed,
        ]);
        assert_eq!(
            out,
            format!("booking-1043 is owned by ops:kim; escalates at {escalates}\n"),
            "--escalate-at {typed}"
        );
        let stored = w.ledger().owner("booking-1043").unwrap().expect("an owner");
        assert_eq!(
            stored.escalate_at,
            Some(fixture::at(escalates)),
            "--escalate-at {typed}"
        );
    }
    // An empty value is no time: leaving the flag out says "none".
    let out = w.run(&[
        "owner",
        "booking-1043",
        "--owner",
        "ops:kim",
        "--escalate-at",
        "",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// `owner --json` prints the assignment written, its keys those of an owner row.
#[test]
fn owner_json_prints_the_assignment_written() {
    let (w, _) = Workdir::with_demo();
    let row = w.json(&[
        "owner",
        "booking-1043",
        "--owner",
        "ops:kim",
        "--escalate-at",
        "2h",
        "--by",
        "lead",
        "--json",
    ]);
    assert_eq!(
        row,
        serde_json::json!({
            "escalate_at": "2026-11-27T19:00:00.000Z",
            "job_id": "booking-1043",
            "owner": "ops:kim",
            "set_at": "2026-11-27T17:00:00.000Z",
            "set_by": "lead",
            "written": true,
        })
    );
}

/// `owner --clear` leaves a job unowned everywhere the standing owner is read
/// (reconcile, the query language's `owner:none`, the store), keeps the clearing in
/// the job's history, and writes nothing for a job that has no owner.
#[test]
fn owner_clear_leaves_the_job_unowned_and_kept_in_its_history() {
    let (w, _) = Workdir::with_demo();
    let before = owner_rows(&w);
    let owned_by = |w: &Workdir| {
        let report = w.json(&["reconcile", "--json"]);
        let aged = report["aged"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["job_id"] == "booking-1042")
            .cloned();
        aged.expect("booking-1042 is aged")
    };
    assert_eq!(owned_by(&w)["owner"], "ops:maria");
    let out = w.ok(&["owner", "booking-1042", "--clear", "--by", "lead"]);
    assert_eq!(
        out,
        "booking-1042 has no owner now (was ops:maria); it will not escalate\n"
    );
    assert_eq!(owner_rows(&w), before + 1, "the clearing is appended");
    let aged = owned_by(&w);
    assert_eq!(aged["unowned"], true, "{aged}");
    assert_eq!(aged["escalate_at"], Value::Null, "{aged}");
    assert_eq!(w.ledger().owner("booking-1042").unwrap(), None);
    let unowned = w.json(&[
        "callbacks",
        "--json",
        "--where",
        "owner:none job:booking-1042",
    ]);
    assert!(
        !unowned.as_array().unwrap().is_empty(),
        "owner:none finds the cleared job's callbacks"
    );
    let timeline = w.ledger().timeline("booking-1042").unwrap();
    assert!(
        timeline.iter().any(|e| matches!(&e.fact, jobledger::store::TimelineFact::OwnerSet { owner: None, set_by, .. } if set_by == "lead")),
        "the clearing is in the job's history: {timeline:?}"
    );

    // Cleared again: there is no owner to clear, and nothing is written.
    let row = w.json(&["owner", "booking-1042", "--clear", "--json"]);
    assert_eq!(row["written"], false, "{row}");
    assert_eq!(row["owner"], Value::Null, "{row}");
    assert_eq!(owner_rows(&w), before + 1);
    let out = w.ok(&["owner", "booking-1042", "--clear"]);
    assert_eq!(out, "booking-1042 has no owner; nothing written\n");

    // A clearing names no owner and no time; one of --owner and --clear is needed.
    for args in [
        &["owner", "booking-1042", "--clear", "--owner", "ops:kim"][..],
        &["owner", "booking-1042", "--clear", "--escalate-at", "2h"],
        &["owner", "booking-1042"],
    ] {
        let out = w.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    }
    assert_eq!(owner_rows(&w), before + 1);
}

/// The same owner and escalation time again writes nothing (a second row saying the
/// same would bury who set it first) and says so; a change of either writes.
#[test]
fn owner_unchanged_writes_nothing_and_says_so() {
    let (w, _) = Workdir::with_demo();
    let before = owner_rows(&w);
    let same = [
        "owner",
        "booking-1042",
        "--owner",
        "ops:maria",
        "--escalate-at",
        "2026-11-27T16:30:00Z",
        "--by",
        "root",
    ];
    let out = w.ok(&same);
    assert_eq!(
        out,
        "booking-1042 is owned by ops:maria already (escalates at 2026-11-27T16:30:00.000Z; set by demo at 2026-11-27T17:00:00.000Z): nothing changed, nothing written\n"
    );
    let row = w.json(&[&same[..], &["--json"]].concat());
    assert_eq!(row["written"], false, "{row}");
    assert_eq!(row["set_by"], "demo", "{row}");
    assert_eq!(owner_rows(&w), before, "an unchanged owner was written");
    let stored = w.ledger().owner("booking-1042").unwrap().expect("an owner");
    assert_eq!(stored.set_by, "demo");
    // Another escalation time, or none, is a change.
    w.ok(&["owner", "booking-1042", "--owner", "ops:maria"]);
    assert_eq!(owner_rows(&w), before + 1);
    w.ok(&["owner", "booking-1042", "--owner", "ops:maria"]);
    assert_eq!(owner_rows(&w), before + 1);
}

/// `owner` and `request retry|cancel` take who writes as `--reviewer`, as `answer`,
/// `request withdraw` and the console do (`--by` stays, as another name for it).
#[test]
fn owner_and_requests_take_the_reviewer_flag() {
    let (w, _) = Workdir::with_demo();
    w.ok(&[
        "owner",
        "booking-1043",
        "--owner",
        "ops:kim",
        "--reviewer",
        "maria",
    ]);
    let stored = w.ledger().owner("booking-1043").unwrap().expect("an owner");
    assert_eq!(stored.set_by, "maria");
    let row = w.json(&[
        "request",
        "retry",
        "booking-1058",
        "--reviewer",
        "maria",
        "--json",
    ]);
    assert_eq!(row["requested_by"], "maria", "{row}");
}

/// `request retry|cancel` take who asks as `owner --by` and `answer --reviewer` do:
/// the flag, else JOBLEDGER_REVIEWER, else the login name.
#[test]
fn a_request_is_asked_by_the_login_name_when_by_is_left_out() {
    let (w, _) = Workdir::with_demo();
    let out = w
        .command()
        .arg("--db")
        .arg(&w.db)
        .args(["--now", fixture::NOW, "request", "retry", "booking-1058"])
        .env("USER", "lee")
        .output()
        .unwrap();
    let stdout = support::binary::succeeded(&out, &["request", "retry"]);
    assert!(
        stdout.contains("retry of booking-1058 is in the outbox"),
        "{stdout}"
    );
    let out = w
        .command()
        .arg("--db")
        .arg(&w.db)
        .args([
            "--now",
            fixture::NOW,
            "request",
            "cancel",
            "booking-1055",
            "--json",
        ])
        .env("USER", "lee")
        .env("JOBLEDGER_REVIEWER", "ops:ana")
        .output()
        .unwrap();
    let stdout = support::binary::succeeded(&out, &["request", "cancel"]);
    let row: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(row["requested_by"], "ops:ana", "{row}");
    let outbox = w.json(&["outbox", "--json"]);
    let asked: Vec<&Value> = outbox
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["requested_by"])
        .collect();
    assert_eq!(asked, ["lee", "ops:ana"], "{outbox}");
}

/// `request retry|cancel --json` prints the request written as `outbox --json` lists it.
#[test]
fn request_json_prints_the_outbox_row_written() {
    let (w, _) = Workdir::with_demo();
    let row = w.json(&[
        "request",
        "retry",
        "booking-1058",
        "--by",
        "ops:maria",
        "--json",
    ]);
    let outbox = w.json(&["outbox", "--json"]);
    assert_eq!(outbox.as_array().unwrap().len(), 1, "{outbox}");
    assert_eq!(row, outbox[0]);
    assert_eq!(row["request"], "retry");
    assert_eq!(row["attempt"], 2);
    assert_eq!(row["requested_by"], "ops:maria");
    assert_eq!(row["requested_at"], "2026-11-27T17:00:00.000Z");
}

/// Six jobs accepted at chosen times around window edges, none of them finished.
const ACCEPTED_AT: [&str; 6] = [
    "2026-11-26T23:50:00Z",
    "2026-11-27T13:00:00Z",
    "2026-11-27T13:14:59Z",
    "2026-11-27T13:15:00Z",
    "2026-11-27T13:44:00Z",
    "2026-11-27T16:30:00Z",
];

fn ledger_of_accepted_jobs() -> Workdir {
    let w = Workdir::new();
    let mut stream = String::new();
    for (i, at) in ACCEPTED_AT.iter().enumerate() {
        let _ = writeln!(
            stream,
            r#"{{"event":"job_accepted","job_id":"w{i}","at":"{at}","timeout_s":120,"expected_age_s":86400}}"#
        );
    }
    let file = w.file("accepted.ndjson", stream.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    w
}

/// (start, end, accepted) of each window `reconcile --json --window WIDTH` lists,
/// after checking the report says it used `seconds`.
fn windows(w: &Workdir, width: &str, seconds: i64) -> Vec<(String, String, i64)> {
    let report = w.json(&["reconcile", "--json", "--window", width]);
    assert_eq!(report["window_s"], seconds, "--window {width}");
    report["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .map(|w| {
            (
                w["start"].as_str().unwrap().to_owned(),
                w["end"].as_str().unwrap().to_owned(),
                w["accepted"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn window(start: &str, end: &str, accepted: i64) -> (String, String, i64) {
    (start.to_owned(), end.to_owned(), accepted)
}

#[test]
fn reconcile_buckets_jobs_into_quarter_hours() {
    let w = ledger_of_accepted_jobs();
    let quarters = [
        window("2026-11-26T23:45:00.000Z", "2026-11-27T00:00:00.000Z", 1),
        window("2026-11-27T13:00:00.000Z", "2026-11-27T13:15:00.000Z", 2),
        window("2026-11-27T13:15:00.000Z", "2026-11-27T13:30:00.000Z", 1),
        window("2026-11-27T13:30:00.000Z", "2026-11-27T13:45:00.000Z", 1),
        window("2026-11-27T16:30:00.000Z", "2026-11-27T16:45:00.000Z", 1),
    ];
    assert_eq!(windows(&w, "15m", 900), quarters);
    // The text report lists the same window starts, with their counts.
    let text = w.ok(&["reconcile", "--window", "15m"]);
    assert!(text.contains("by submission window (15m00s):"), "{text}");
    for (start, accepted) in [
        ("2026-11-26 23:45", 1),
        ("2026-11-27 13:00", 2),
        ("2026-11-27 13:15", 1),
        ("2026-11-27 13:30", 1),
        ("2026-11-27 16:30", 1),
    ] {
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no window {start}: {text}"));
        let counts: Vec<i64> = row[start.len() + 2..]
            .split_whitespace()
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(counts[0], accepted, "{row}");
    }
}

#[test]
fn reconcile_buckets_jobs_into_days() {
    let w = ledger_of_accepted_jobs();
    assert_eq!(
        windows(&w, "1d", 86_400),
        [
            window("2026-11-26T00:00:00.000Z", "2026-11-27T00:00:00.000Z", 1),
            window("2026-11-27T00:00:00.000Z", "2026-11-28T00:00:00.000Z", 5),
        ]
    );
    for bad in ["0m", "15", "1w", "h"] {
        let stderr = w.fails(&["reconcile", "--window", bad]);
        assert!(stderr.contains("is not a window"), "{bad}: {stderr}");
    }
}

/// The backlog part of `summary --json` and `reconcile --json` at one capacity.
fn backlogs(w: &Workdir, capacity: Option<i64>) -> [Value; 2] {
    let flag = capacity.map(|c| c.to_string());
    ["summary", "reconcile"].map(|command| {
        let mut args = vec![command, "--json"];
        if let Some(flag) = &flag {
            args.extend(["--review-capacity", flag]);
        }
        let report = w.json(&args);
        assert_eq!(
            report["backlog_alarm"], report["backlog"]["raised"],
            "{command}"
        );
        report["backlog"].clone()
    })
}

#[test]
fn the_backlog_alarm_flips_as_the_review_capacity_crosses_the_arrivals() {
    let (w, _) = Workdir::with_demo();
    let [summary, _] = backlogs(&w, Some(0));
    let arrivals = summary["arrivals"].as_i64().unwrap();
    assert!(arrivals > 0, "the demo has questions in its last hour");
    for (capacity, raised) in [
        (0, true),
        (arrivals - 1, true),
        (arrivals, false),
        (arrivals + 1, false),
    ] {
        for backlog in backlogs(&w, Some(capacity)) {
            assert_eq!(backlog["capacity"], capacity);
            assert_eq!(backlog["arrivals"], arrivals);
            assert_eq!(backlog["raised"], raised, "capacity {capacity}: {backlog}");
        }
        let text = w.ok(&["summary", "--review-capacity", &capacity.to_string()]);
        let line = text
            .lines()
            .find(|l| l.starts_with("backlog"))
            .expect("a backlog line");
        assert_eq!(line.contains("RAISED"), raised, "{line}");
        assert!(
            line.contains(&format!("review capacity of {capacity};")),
            "{line}"
        );
    }
}

#[test]
fn without_the_flag_the_review_capacity_is_thirty_an_hour() {
    assert_eq!(DEFAULT_REVIEW_CAPACITY, 30);
    let (w, _) = Workdir::with_demo();
    for backlog in backlogs(&w, None) {
        assert_eq!(backlog["capacity"], DEFAULT_REVIEW_CAPACITY);
        assert_eq!(backlog["window_s"], 3600);
    }
    let text = w.ok(&["summary"]);
    assert!(text.contains("review capacity of 30;"), "{text}");
}
