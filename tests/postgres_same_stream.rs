//! The same ledger, whatever the engine: one generated stream, in each order a ledger
//! may meet it, ingested into a SQLite file and into PostgreSQL gives the same
//! reports, plain and `--json`, byte for byte; and a ledger copied from one engine to
//! the other (and back) reports as the one it was copied from.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use support::binary::{bare, succeeded};
use support::fixture::NOW;
use support::postgres::PgServer;

/// The reports compared, each plain and with `--json`.
const REPORTS: &[&[&str]] = &[
    &["summary"],
    &["callbacks"],
    &["callbacks", "--disposition", "hold"],
    &["callbacks", "--where", "outcome:failure -reason:late"],
    // Through the trigram index: a field's text, a bare word, and negated.
    &["callbacks", "--where", "job:0012"],
    &["callbacks", "--where", "D-4 -job:0004"],
    &["callbacks", "--open"],
    &["reconcile"],
    &["outbox"],
    &["rejected"],
    &["views"],
];

fn jobledger(db: &str, args: &[&str]) -> Command {
    let mut command = bare();
    command.arg("--db").arg(db).args(["--now", NOW]).args(args);
    command
}

fn ok(db: &str, args: &[&str]) -> String {
    let out: Output = jobledger(db, args).output().expect("the binary runs");
    succeeded(&out, args)
}

/// A generated stream of `jobs` jobs in `order`, written to `dir`.
fn stream(dir: &Path, jobs: u32, order: &str) -> String {
    let path = dir.join(format!("{order}.ndjson"));
    let out = bare()
        .args(["demo", "--jobs", &jobs.to_string(), "--seed", "7"])
        .args(["--stream-only", "--order", order])
        .stdout(Stdio::piped())
        .output()
        .expect("the binary runs");
    std::fs::write(&path, succeeded(&out, &["demo --stream-only"])).unwrap();
    path.to_string_lossy().into_owned()
}

/// Every report of the ledger at `db`, with what it is named by.
fn reports(db: &str) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for report in REPORTS {
        for json in [false, true] {
            let mut args = report.to_vec();
            if json {
                args.push("--json");
            }
            all.push((args.join(" "), ok(db, &args)));
        }
    }
    all
}

/// The first lines of a report, for a failure's message.
fn head(text: &str) -> String {
    text.lines().take(40).collect::<Vec<_>>().join("\n")
}

/// `reports` without the role that wrote each person's row: the ` (as ROLE)` the text
/// says beside a name, and the `written_by` key of the JSON.
fn without_role(reports: &[(String, String)]) -> Vec<(String, String)> {
    let role = format!(" (as {})", support::postgres::USER);
    let key = format!(",\"written_by\":\"{}\"", support::postgres::USER);
    reports
        .iter()
        .map(|(name, text)| (name.clone(), text.replace(&role, "").replace(&key, "")))
        .collect()
}

fn assert_same(a: &[(String, String)], b: &[(String, String)], what: &str) {
    for ((name, left), (_, right)) in a.iter().zip(b) {
        assert!(
            left == right,
            "{what}: `{name}` differs\n--- first\n{}\n--- second\n{}",
            head(left),
            head(right)
        );
    }
}

#[test]
fn every_stream_order_gives_the_same_reports_on_both_engines() {
    let server = PgServer::shared();
    let dir = tempfile::tempdir().unwrap();
    for order in ["time", "shuffled", "local"] {
        let stream = stream(dir.path(), 400, order);
        let file = dir.path().join(format!("{order}.db"));
        let file = file.to_string_lossy().into_owned();
        let url = server.url(&server.fresh_database(&format!("same_stream_{order}")));
        for db in [&file, &url] {
            ok(db, &["ingest", &stream]);
            // A re-run adds nothing, on either engine.
            let again = ok(db, &["ingest", &stream]);
            assert!(
                again.contains(" 0 events applied"),
                "{order} re-run: {again}"
            );
        }
        assert_same(&reports(&file), &reports(&url), &format!("order {order}"));
    }
}

#[test]
fn a_ledger_copied_to_the_other_engine_and_back_reports_as_it_was() {
    let server = PgServer::shared();
    let dir = tempfile::tempdir().unwrap();
    let stream = stream(dir.path(), 300, "shuffled");
    let file = dir.path().join("source.db").to_string_lossy().into_owned();
    ok(&file, &["ingest", &stream]);
    // A person's writes come along with their reviewers and times.
    let held: serde_json::Value = serde_json::from_str(&ok(
        &file,
        &["callbacks", "--json", "--disposition", "hold"],
    ))
    .unwrap();
    let seq = held[0]["seq"].as_i64().expect("a held callback");
    ok(
        &file,
        &[
            "answer",
            &seq.to_string(),
            "--verdict",
            "needs_remote_check",
            "--note",
            "checked the booking",
            "--reviewer",
            "ana",
        ],
    );
    let url = server.url(&server.fresh_database("copied_and_back"));
    let back = dir.path().join("back.db").to_string_lossy().into_owned();
    let said = ok(&file, &["copy", "--from", &file, "--to", &url]);
    assert!(said.contains("passes its checks"), "{said}");
    ok(&url, &["copy", "--from", &url, "--to", &back]);
    let original = reports(&file);
    // One thing differs, and must: the database role that wrote the answer. A file has
    // no roles (the source's answer has none); the server records the role that wrote
    // each row into it, whatever the client sent, and the copy wrote it there as the
    // tests' role. The copy back to a file keeps what the server recorded.
    for db in [&url, &back] {
        let answer = &serde_json::from_str::<serde_json::Value>(&ok(
            db,
            &["callbacks", "--json", "--disposition", "hold"],
        ))
        .unwrap()[0]["answer"];
        assert_eq!(answer["reviewer"], "ana", "{db}: {answer}");
        assert_eq!(
            answer["written_by"],
            support::postgres::USER,
            "{db}: {answer}"
        );
    }
    let source_answer = &serde_json::from_str::<serde_json::Value>(&ok(
        &file,
        &["callbacks", "--json", "--disposition", "hold"],
    ))
    .unwrap()[0]["answer"];
    assert!(source_answer.get("written_by").is_none(), "{source_answer}");
    // Else, the copies report as the ledger they were copied from, byte for byte.
    assert_same(
        &original,
        &without_role(&reports(&url)),
        "SQLite copied to PostgreSQL",
    );
    assert_same(
        &original,
        &without_role(&reports(&back)),
        "and copied back to SQLite",
    );
    // Every raw line, byte for byte.
    let lines = |db: &str| {
        let ledger = jobledger::store::Ledger::open_at(
            &jobledger::store::Location::parse(std::ffi::OsStr::new(db)).unwrap(),
            jobledger::store::OpenMode::ReadOnly,
        )
        .unwrap();
        let table = jobledger::store::TABLES
            .iter()
            .find(|t| t.name == "input_lines")
            .unwrap();
        let mut rows = Vec::new();
        ledger
            .for_each_row(table, |row| {
                rows.push(row);
                Ok(())
            })
            .unwrap();
        rows
    };
    assert_eq!(lines(&file), lines(&url));
    assert_eq!(lines(&file), lines(&back));
    // Each copy's text index holds every callback copied, and only those.
    for db in [&url, &back] {
        let said = ok(db, &["check"]);
        assert!(said.contains("passed every check"), "{db}: {said}");
    }
    // A destination that already holds lines is refused, and left as it was.
    let out = jobledger(&url, &["copy", "--from", &file, "--to", &url])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("already holds a ledger"),
        "{stderr}"
    );
    assert_same(
        &original,
        &without_role(&reports(&url)),
        "after a refused copy",
    );
}
