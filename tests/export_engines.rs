//! The evidence bundle names no ledger and reads only what both engines keep alike:
//! the same stream and the same people's writes give the same bundle, Markdown and
//! JSON, byte for byte, from a SQLite file and from PostgreSQL (apart from the
//! database role a server records beside each person's name, which a file has not).

mod support;

use std::io::Write as _;
use std::process::{Command, Stdio};

use support::binary::{bare, succeeded};
use support::fixture::{NOW, booking_afternoon, demo_queue};
use support::postgres::{PgServer, USER};

fn jobledger(db: &str, args: &[&str]) -> Command {
    let mut command = bare();
    command.arg("--db").arg(db).args(["--now", NOW]).args(args);
    command
}

fn ok(db: &str, args: &[&str]) -> String {
    succeeded(
        &jobledger(db, args).output().expect("the binary runs"),
        args,
    )
}

fn ingest(db: &str, stream: &str) {
    let mut child = jobledger(db, &["ingest", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    succeeded(&child.wait_with_output().unwrap(), &["ingest"]);
}

/// The replacement's report on the held case #2, its payload holding what a terminal or
/// a document would act on.
const HOSTILE: &str = concat!(
    r#"{"event":"callback","delivery_id":"d-1042-x\u001b[2J","job_id":"booking-1042","attempt":2,"#,
    r#""outcome":"success","at":"2026-11-27T16:00:00Z","payload":{"confirmation":"HX-20977","note":"``` | \u202e"}}"#,
    "\n"
);

/// The demo's streams, a hostile callback, and a day's work of people on them.
fn filled(db: &str) {
    ingest(db, &booking_afternoon());
    ingest(db, &demo_queue());
    for args in [
        &[
            "answer",
            "2",
            "--verdict",
            "needs_remote_check",
            "--note",
            "asked the hotel | line 2",
            "--reviewer",
            "ana",
        ][..],
        &[
            "answer",
            "2",
            "--verdict",
            "single_effect",
            "--note",
            "the hotel holds one booking",
            "--reviewer",
            "bo",
            "--seen",
            "1",
        ],
        &[
            "answer",
            "11",
            "--verdict",
            "failure_stands",
            "--note",
            "card declined, confirmed",
            "--reviewer",
            "bo",
        ],
        &[
            "answer",
            "--decisions",
            "booking-1045",
            "--verdict",
            "first_stands",
            "--note",
            "payments kept dec-1045-eu",
            "--reviewer",
            "ana",
        ],
        &[
            "owner",
            "booking-1042",
            "--owner",
            "ops:lee",
            "--escalate-at",
            "2h",
            "--by",
            "lead",
        ],
        &["request", "cancel", "booking-1042", "--by", "ops:lee"],
        &[
            "request", "withdraw", "1", "--note", "answered", "--by", "ops:lee",
        ],
        &["request", "retry", "booking-1058", "--by", "ops:lee"],
    ] {
        ok(db, args);
    }
    // After the requests: its success leaves nothing to cancel.
    ingest(db, HOSTILE);
}

/// Every bundle compared, each in Markdown and JSON.
const BUNDLES: &[&[&str]] = &[
    &["export", "2"],
    &["export", "11"],
    &["export", "5"],
    &["export", "13"],
    &["export", "--job", "booking-1042"],
    &["export", "--job", "booking-1045"],
    &["export", "--job", "booking-1054"],
    &["export", "--job", "booking-1058"],
];

#[test]
fn the_same_stream_and_writes_give_the_same_bundle_on_both_engines() {
    let server = PgServer::shared();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ledger.db").to_string_lossy().into_owned();
    let url = server.url(&server.fresh_database("export_engines"));
    filled(&file);
    filled(&url);
    let hostile_seq = ok(
        &file,
        &["callbacks", "--where", "delivery:d-1042-x", "--json"],
    );
    assert!(hostile_seq.contains("\"seq\":16"), "{hostile_seq}");
    let role = format!(" (as {USER})");
    let key = format!(",\"written_by\":\"{USER}\"");
    let (mut compared, mut signed) = (0, 0);
    for bundle in BUNDLES.iter().chain([&["export", "16"][..]].iter()) {
        for format in ["md", "json"] {
            let args = [bundle, &["--format", format][..]].concat();
            let from_file = ok(&file, &args);
            let from_server = ok(&url, &args);
            // The server records the role beside each person's name.
            signed += usize::from(from_server.contains(USER));
            let from_server = from_server.replace(&role, "").replace(&key, "");
            assert!(
                from_file == from_server,
                "{args:?} differs\n--- file\n{from_file}\n--- server\n{from_server}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 18);
    assert!(signed >= 10, "people's rows in only {signed} bundles");
}
