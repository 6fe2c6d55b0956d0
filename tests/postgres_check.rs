//! `jobledger check` on a ledger on PostgreSQL: a sound ledger passes every check, and
//! what a person with the server's keys can still do behind jobledger's back (change
//! a kept count, write a row with the foreign keys off, drop a foreign key, disable or
//! drop a trigger that keeps evidence append-only, take a callback out of the text
//! index or drop its GIN index) is found and named, plain and --json, with check's
//! failing exit status.

mod support;

use std::process::{Output, Stdio};

use serde_json::Value;
use support::binary::{bare, succeeded};
use support::fixture::{NOW, booking_afternoon};
use support::postgres::PgServer;
use support::reports::check_problems;

/// The exit status of a check that found something wrong.
const CHECK_FAILED: i32 = 3;

/// The checks a ledger on PostgreSQL runs, in order.
const CHECKS: [&str; 10] = [
    "identity",
    "foreign_keys",
    "triggers",
    "kept_counts",
    "line_identity",
    "callback_lines",
    "latest_attempts",
    "answers",
    "text_index",
    "kept_reconciliation",
];

/// A ledger on the tests' server holding the booking afternoon (callbacks of every
/// disposition, outputs, notifications, decisions): its database and URL.
fn ledger_with_rows(test: &str) -> (&'static PgServer, String, String) {
    let server = PgServer::shared();
    let db = server.fresh_database(test);
    let url = server.url(&db);
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("stream.ndjson");
    std::fs::write(&stream, booking_afternoon()).unwrap();
    let args = ["ingest", "--complete", stream.to_str().unwrap()];
    succeeded(&run(&url, &args), &args);
    (server, db, url)
}

/// `jobledger --db URL --now NOW ARGS...`.
fn run(url: &str, args: &[&str]) -> Output {
    bare()
        .arg("--db")
        .arg(url)
        .args(["--now", NOW])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// `check` plain and `check --json`, each with its exit status.
fn check(url: &str) -> (i32, String, i32, Value) {
    let plain = run(url, &["check"]);
    let json = run(url, &["check", "--json"]);
    for out in [&plain, &json] {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    (
        plain.status.code().unwrap_or(-1),
        String::from_utf8(plain.stdout).unwrap(),
        json.status.code().unwrap_or(-1),
        serde_json::from_slice(&json.stdout).expect("check --json prints JSON"),
    )
}

/// The problems `check` found of `name` (the other checks passed).
fn found_only(report: &Value, name: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (check, problems) in check_problems(report) {
        if check == name {
            found = problems;
        } else {
            assert!(problems.is_empty(), "{check} found {problems:?}");
        }
    }
    found
}

/// SQL as the server's superuser, in the ledger's schema.
fn as_superuser(server: &PgServer, db: &str, sql: &str) {
    server
        .connect(db)
        .batch_execute(&format!("SET search_path TO jobledger; {sql}"))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

fn kept(server: &PgServer, db: &str, name: &str) -> i64 {
    server
        .connect(db)
        .query_one(
            "SELECT n FROM jobledger.ledger_counts WHERE name = $1",
            &[&name],
        )
        .unwrap()
        .get(0)
}

#[test]
fn a_sound_ledger_passes_every_check() {
    let (server, db, url) = ledger_with_rows("check_sound");
    assert!(
        kept(server, &db, "callbacks.hold") > 0,
        "the demo holds callbacks"
    );
    let (code, text, json_code, report) = check(&url);
    assert_eq!(code, 0, "{text}");
    assert_eq!(json_code, 0);
    assert!(text.contains("passed every check"), "{text}");
    assert_eq!(report["ok"], Value::Bool(true), "{report}");
    let ran: Vec<String> = check_problems(&report)
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    assert_eq!(ran, CHECKS, "{report}");
    for c in report["checks"].as_array().unwrap() {
        // The afternoon has no answers yet.
        if c["check"] != "identity" && c["check"] != "answers" {
            assert!(c["examined"].as_i64().unwrap() > 0, "{c}");
        }
    }
}

#[test]
fn a_kept_count_changed_behind_jobledgers_back_is_found() {
    let (server, db, url) = ledger_with_rows("check_kept_count");
    let held = kept(server, &db, "callbacks.hold");
    // ledger_counts has no trigger: the server lets its superuser change a count.
    as_superuser(
        server,
        &db,
        "UPDATE ledger_counts SET n = n + 2 WHERE name = 'callbacks.hold'",
    );
    let (code, text, json_code, report) = check(&url);
    assert_eq!(code, CHECK_FAILED, "{text}");
    assert_eq!(json_code, CHECK_FAILED);
    assert_eq!(report["ok"], Value::Bool(false));
    let wrong = format!("callbacks.hold: kept {}, recounted {held}", held + 2);
    assert_eq!(
        found_only(&report, "kept_counts"),
        std::slice::from_ref(&wrong)
    );
    assert!(text.contains("kept_counts          WRONG"), "{text}");
    assert!(text.contains(&wrong), "{text}");
}

#[test]
fn broken_references_and_triggers_turned_off_are_found() {
    let (server, db, url) = ledger_with_rows("check_references_triggers");
    // A row written with the foreign keys off (a replica session fires no trigger, the
    // foreign keys' included), and a foreign key dropped.
    as_superuser(
        server,
        &db,
        "SET session_replication_role = replica;
         INSERT INTO notifications (id, job_id, kind, sent_at, line_seq)
              VALUES (900000, 'no-such-job', 'email', '2026-11-27T16:00:00.000Z', 1);
         ALTER TABLE outputs DROP CONSTRAINT outputs_line_seq_fkey;",
    );
    let (code, text, _, report) = check(&url);
    assert_eq!(code, CHECK_FAILED, "{text}");
    assert_eq!(
        found_only(&report, "foreign_keys"),
        [
            "the foreign key of outputs.line_seq (to input_lines) is missing",
            "notifications row 900000 refers to a missing jobs row (job_id no-such-job)",
        ]
    );

    let (server, db, url) = ledger_with_rows("check_triggers");
    as_superuser(
        server,
        &db,
        "ALTER TABLE callbacks DISABLE TRIGGER callbacks_no_delete;
         ALTER TABLE answers ENABLE REPLICA TRIGGER answers_append_only_update;
         DROP TRIGGER job_history_append_only_delete ON job_history;",
    );
    let (code, text, _, report) = check(&url);
    assert_eq!(code, CHECK_FAILED, "{text}");
    assert_eq!(
        found_only(&report, "triggers"),
        [
            "the trigger callbacks_no_delete of callbacks is disabled",
            "the trigger answers_append_only_update of answers fires only for replication",
            "the trigger job_history_append_only_delete of job_history is missing",
        ]
    );
}

#[test]
fn a_callback_missing_from_the_text_index_and_a_dropped_trigram_index_are_found() {
    let (server, db, url) = ledger_with_rows("check_text_index");
    // A search would never find callback #2 again; the index's triggers refuse the
    // deletion but in a replica session, which fires none.
    as_superuser(
        server,
        &db,
        "SET session_replication_role = replica;
         DELETE FROM callback_text WHERE seq = 2;",
    );
    let (code, text, _, report) = check(&url);
    assert_eq!(code, CHECK_FAILED, "{text}");
    assert_eq!(
        found_only(&report, "text_index"),
        ["callback #2 is not in the text index"]
    );

    let (server, db, url) = ledger_with_rows("check_trigram_index");
    as_superuser(server, &db, "DROP INDEX callback_text_trigrams;");
    let (code, text, _, report) = check(&url);
    assert_eq!(code, CHECK_FAILED, "{text}");
    assert_eq!(
        found_only(&report, "text_index"),
        [
            "the trigram index callback_text_trigrams is missing: searches find the same callbacks, reading every one"
        ]
    );
}

/// Every line of the report is true of a ledger on a server: what each check looked at
/// is named as the server has it (ledger_meta, triggers: never "the file"), and a
/// failure's advice is the server's (pg_dump of the schema, pg_restore, `copy` from a
/// sound ledger), never a SQLite file's (`backup --salvage`, SQLite's pages).
#[test]
fn the_report_of_a_ledger_on_a_server_speaks_of_the_server() {
    let (server, db, url) = ledger_with_rows("check_wording");
    let (_, text, _, report) = check(&url);
    let lines: Vec<&str> = text.lines().collect();
    let triggers = report["checks"][2]["examined"].as_i64().unwrap();
    assert!(triggers > 40, "{report}");
    assert!(
        lines[0].starts_with(
            "identity             ok     ledger_meta's application and schema version"
        ),
        "{text}"
    );
    assert!(
        lines[2].starts_with(&format!(
            "triggers             ok     {triggers} triggers ("
        )),
        "{text}"
    );
    for said in [&text, &report.to_string()] {
        for word in ["the file", "SQLite", "salvage", "application id"] {
            assert!(!said.contains(word), "{word:?} in {said}");
        }
    }

    as_superuser(
        server,
        &db,
        "ALTER TABLE answers DISABLE TRIGGER answers_written_by",
    );
    let (code, text, _, _) = check(&url);
    assert_eq!(code, CHECK_FAILED, "{text}");
    let advice = text.lines().last().unwrap();
    assert!(advice.contains("failed 1 of 10 checks"), "{advice}");
    assert!(
        advice.contains("`pg_dump --schema=jobledger`") && advice.contains("`pg_restore`"),
        "{advice}"
    );
    assert!(advice.contains("jobledger copy --from GOOD"), "{advice}");
    for word in ["the file", "SQLite", "salvage", "backup NEW.db"] {
        assert!(!text.contains(word), "{word:?} in {text}");
    }
}
