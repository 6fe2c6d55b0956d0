//! The ledger on a PostgreSQL server as a person meets it before any row: where it is
//! (a URL whose password is never shown), what is refused untouched (a schema of
//! something else, a newer ledger), the evidence the server itself keeps from being
//! rewritten, and the three roles. What the ledger keeps and reports, the same on
//! either engine, is the contract suite's (tests/ledger_contract).

mod support;

use std::process::Output;

use support::binary::{bare, failed, refused, run_at, succeeded};
use support::fixture::NOW;
use support::postgres::PgServer;

/// `jobledger --db URL --now NOW ARGS...`.
fn run(url: &str, args: &[&str]) -> Output {
    run_at(url, NOW, args)
}

/// `url` with a password in it (the tests' server trusts the socket, so any works).
fn with_password(url: &str) -> String {
    url.replacen("jobledger@", "jobledger:s3cret-pw@", 1)
}

#[test]
fn a_ledger_is_made_on_first_ingest_and_a_report_before_it_says_there_is_none() {
    let (server, db, url) = PgServer::fresh_ledger("made_on_first_use");
    let out = run(&url, &["summary"]);
    refused(&out, &["does not exist"]);
    // The read made nothing.
    let made: i64 = server
        .connect(&db)
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname = 'jobledger'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(made, 0, "a report made the schema");
    let out = run(&url, &["ingest", "-"]);
    succeeded(&out, &["ingest"]);
    let version: i32 = server
        .connect(&db)
        .query_one("SELECT schema_version FROM jobledger.ledger_meta", &[])
        .unwrap()
        .get(0);
    assert_eq!(i64::from(version), jobledger::store::SERVER_SCHEMA_VERSION);
}

#[test]
fn the_password_is_in_no_message_and_no_help() {
    let (_, _, url) = PgServer::fresh_ledger("password_in_no_message");
    let secret = with_password(&url);
    // A refusal names the ledger: without the password.
    let stderr = failed(&run(&secret, &["summary"]), &["summary"]);
    assert!(stderr.contains("jobledger@"), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
    // A server that is not there is named, without the password.
    let gone = secret.replace("host=", "host=%2Fnonexistent");
    let stderr = failed(&run(&gone, &["summary"]), &["summary"]);
    assert!(!stderr.contains("s3cret"), "{stderr}");
    // A URL libpq would not read.
    let bad = format!("{secret}&sslmode=sometimes");
    let stderr = refused(&run(&bad, &["summary"]), &["sslmode=sometimes"]);
    assert!(!stderr.contains("s3cret"), "{stderr}");
    // Help, with the URL in the environment and on the command line.
    for args in [&["--help"][..], &["summary", "--help"], &["copy", "--help"]] {
        let out = bare()
            .env("JOBLEDGER_DB", &secret)
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("s3cret"), "{args:?}: {text}");
    }
}

#[test]
fn the_demo_on_a_server_is_refused_naming_the_file_it_builds_without_the_password() {
    let (server, db, url) = PgServer::fresh_ledger("demo_on_a_server");
    let dir = tempfile::tempdir().unwrap();
    for args in [&["demo", "--print"][..], &["demo"]] {
        let out = bare()
            .current_dir(dir.path())
            .arg("--db")
            .arg(with_password(&url))
            .args(args)
            .output()
            .unwrap();
        let stderr = refused(&out, &["PostgreSQL server", "jobledger-demo.db", "copy"]);
        assert!(
            stderr.contains("jobledger@"),
            "the server is not named: {stderr}"
        );
        assert!(!stderr.contains("s3cret"), "{stderr}");
    }
    // Nothing was made, on the server or here.
    let made: i64 = server
        .connect(&db)
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname = 'jobledger'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(made, 0);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // The stream alone needs no ledger: it is written whatever --db says.
    let out = bare()
        .arg("--db")
        .arg(&url)
        .args(["demo", "--jobs", "2", "--stream-only"])
        .output()
        .unwrap();
    assert!(succeeded(&out, &["demo --stream-only"]).contains("job_accepted"));
}

#[test]
fn a_schema_of_something_else_is_refused_untouched() {
    let (server, db, url) = PgServer::fresh_ledger("schema_of_something_else");
    server
        .connect(&db)
        .batch_execute("CREATE SCHEMA jobledger; CREATE TABLE jobledger.invoices (id int)")
        .unwrap();
    refused(
        &run(&url, &["ingest", "-"]),
        &["not a jobledger ledger", "left untouched"],
    );
    let tables: i64 = server
        .connect(&db)
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'jobledger'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 1, "something was made beside the invoices");
    // Another schema of the same database holds a ledger of its own.
    let beside = format!("{url}&schema=ledger_b");
    succeeded(&run(&beside, &["ingest", "-"]), &["ingest"]);
}

#[test]
fn a_newer_ledger_is_refused_untouched() {
    let (server, db, url) = PgServer::fresh_ledger("newer_ledger");
    succeeded(&run(&url, &["ingest", "-"]), &["ingest"]);
    server
        .connect(&db)
        .batch_execute("UPDATE jobledger.ledger_meta SET schema_version = 99")
        .unwrap();
    refused(
        &run(&url, &["summary"]),
        &["schema version 99", "upgrade jobledger"],
    );
    refused(&run(&url, &["ingest", "-"]), &["schema version 99"]);
}

#[test]
fn evidence_is_refused_rewriting_by_the_server_itself() {
    let (server, db, url) = PgServer::fresh_ledger("evidence_refused");
    let mut ingest = bare();
    let out = ingest
        .arg("--db")
        .arg(&url)
        .args(["ingest", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"{\"not\": \"an event\"}\n")?;
            child.wait_with_output()
        })
        .unwrap();
    succeeded(&out, &["ingest"]);
    let mut client = server.connect(&db);
    // Even the ledger's owner (a superuser here) cannot rewrite a kept line.
    for statement in [
        "UPDATE jobledger.input_lines SET raw = 'x'",
        "DELETE FROM jobledger.input_lines",
        "TRUNCATE jobledger.input_lines CASCADE",
    ] {
        let e = client
            .batch_execute(statement)
            .expect_err("evidence was rewritten");
        let words = e
            .as_db_error()
            .map(|d| d.message().to_owned())
            .unwrap_or_default();
        assert!(
            words.contains("input lines are evidence"),
            "{statement}: {words}"
        );
    }
    let lines: i64 = client
        .query_one("SELECT count(*) FROM jobledger.input_lines", &[])
        .unwrap()
        .get(0);
    assert_eq!(lines, 1);
}

#[test]
fn the_roles_are_printed_and_applied_and_a_reader_may_write_nothing() {
    let (server, db, url) = PgServer::fresh_ledger("roles");
    succeeded(&run(&url, &["ingest", "-"]), &["ingest"]);
    let sql = succeeded(&run(&url, &["roles"]), &["roles"]);
    assert!(sql.contains("CREATE ROLE jobledger_reviewer"), "{sql}");
    assert!(!sql.contains(":\"schema\""), "the schema was not filled in");
    succeeded(&run(&url, &["roles", "--apply"]), &["roles", "--apply"]);
    // Applied twice changes nothing.
    succeeded(&run(&url, &["roles", "--apply"]), &["roles", "--apply"]);
    let mut admin = server.connect(&db);
    admin
        .batch_execute(
            "DO $$ BEGIN
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rita') THEN
                 CREATE ROLE rita LOGIN; END IF;
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ana') THEN
                 CREATE ROLE ana LOGIN; END IF;
             END $$;
             GRANT jobledger_reader TO rita; GRANT jobledger_reviewer TO ana;",
        )
        .unwrap();
    let as_role = |role: &str| url.replacen("jobledger@", &format!("{role}@"), 1);
    // A reader reads, and writes nothing: a view is refused by the server.
    succeeded(&run(&as_role("rita"), &["summary"]), &["summary as rita"]);
    refused(
        &run(&as_role("rita"), &["views", "--delete", "nothing"]),
        &["read-only"],
    );
    // A reviewer may not ingest.
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("one.ndjson");
    std::fs::write(&stream, b"{\"not\": \"an event\"}\n").unwrap();
    let stream = stream.to_string_lossy().into_owned();
    refused(&run(&as_role("ana"), &["ingest", &stream]), &["read-only"]);
    // Nor may a reader; the ledger's owner may.
    refused(&run(&as_role("rita"), &["ingest", &stream]), &["read-only"]);
    succeeded(&run(&url, &["ingest", &stream]), &["ingest as the owner"]);
    // Nor rewrite anything a person wrote, by hand.
    let mut ana = server.connect_as(&db, "ana");
    for statement in [
        "UPDATE jobledger.answers SET verdict = 'x'",
        "DELETE FROM jobledger.answers",
        "UPDATE jobledger.callbacks SET reason = 'x'",
    ] {
        assert!(
            ana.batch_execute(statement).is_err(),
            "{statement} was allowed to a reviewer"
        );
    }
}

/// Every table of record (what a stream or a person wrote) refuses UPDATE, DELETE and
/// TRUNCATE by its triggers, to the ledger's owner too (a superuser here, whom no
/// privilege stops), each with the sentence SQLite's twin says; every row stays.
#[test]
fn every_table_of_record_refuses_update_delete_and_truncate_even_to_its_owner() {
    use support::fixture::{booking_afternoon, demo_queue};
    let (server, db, url) = PgServer::fresh_ledger("every_table_of_record");
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("s.ndjson");
    std::fs::write(&stream, booking_afternoon() + &demo_queue()).unwrap();
    let ok = |args: &[&str]| succeeded(&run(&url, args), args);
    ok(&["ingest", "--complete", stream.to_str().unwrap()]);
    let held: serde_json::Value =
        serde_json::from_str(&ok(&["callbacks", "--json", "--disposition", "hold"])).unwrap();
    let seq = held[0]["seq"].to_string();
    ok(&[
        "answer",
        &seq,
        "--verdict",
        "needs_remote_check",
        "--reviewer",
        "ana",
    ]);
    ok(&[
        "answer",
        "--decisions",
        "booking-1045",
        "--verdict",
        "first_stands",
    ]);
    ok(&[
        "owner",
        "booking-1042",
        "--owner",
        "ops:kim",
        "--by",
        "lead",
    ]);
    let asked: serde_json::Value =
        serde_json::from_str(&ok(&["request", "cancel", "booking-1042", "--json"])).unwrap();
    ok(&["request", "withdraw", &asked["id"].to_string()]);
    let held: Vec<serde_json::Value> =
        serde_json::from_str(&ok(&["callbacks", "--json", "--disposition", "hold"])).unwrap();
    let open_case = held
        .iter()
        .find(|c| c["answer"].is_null())
        .expect("a held callback still open");
    ok(&["claim", &open_case["seq"].to_string(), "--reviewer", "ana"]);
    {
        let location = jobledger::store::Location::parse(std::ffi::OsStr::new(&url)).unwrap();
        let mut ledger =
            jobledger::store::Ledger::open_at(&location, jobledger::store::OpenMode::ReadWrite)
                .unwrap();
        let mut writer = ledger.writer().unwrap();
        writer
            .save_view(&jobledger::store::SavedView {
                name: "late".to_owned(),
                tab: "Held".to_owned(),
                query: "gap>1h".to_owned(),
                saved_by: "ana".to_owned(),
                saved_at: support::fixture::now(),
                written_by: None,
            })
            .unwrap();
        writer.commit().unwrap();
    }
    // Each table, a column to write, and what its triggers say.
    let tables = [
        ("input_lines", "raw", "input lines are evidence"),
        ("callbacks", "seq", "callback"),
        ("callback_text", "job", "callback text is append-only"),
        ("answers", "id", "answers are append-only"),
        ("decision_answers", "id", "answers are append-only"),
        ("job_history", "id", "job history is append-only"),
        (
            "owner_assignments",
            "id",
            "owner assignments are append-only",
        ),
        ("request_withdrawals", "id", "withdrawals are append-only"),
        ("saved_views", "id", "saved views are append-only"),
        ("claims", "id", "claims are append-only"),
        ("notifications", "id", "notifications are append-only"),
        ("output_checks", "id", "output checks are append-only"),
        ("outputs", "id", "outputs are append-only"),
        ("decisions", "id", "decisions are append-only"),
        (
            "repeated_submissions",
            "job_id",
            "repeated submissions are append-only",
        ),
    ];
    let mut client = server.connect(&db);
    let count = |client: &mut ::postgres::Client, table: &str| -> i64 {
        client
            .query_one(&format!("SELECT count(*) FROM jobledger.{table}"), &[])
            .unwrap()
            .get(0)
    };
    for (table, column, words) in tables {
        let rows = count(&mut client, table);
        assert!(rows > 0, "{table} has no row to refuse changing");
        for statement in [
            format!("UPDATE jobledger.{table} SET {column} = {column}"),
            format!("DELETE FROM jobledger.{table}"),
            format!("TRUNCATE jobledger.{table} CASCADE"),
        ] {
            let e = client
                .batch_execute(&statement)
                .expect_err("a row of record was changed");
            let said = e
                .as_db_error()
                .map(|d| d.message().to_owned())
                .unwrap_or_default();
            assert!(said.contains(words), "{statement}: {said}");
        }
        assert_eq!(count(&mut client, table), rows, "{table}");
    }
}
