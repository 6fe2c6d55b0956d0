//! A ledger server that goes away (it restarts, the network drops) and comes back:
//! an ingest stops with a sentence naming the server (never the password), keeps its
//! committed batches and nothing half-written, and a re-run finishes the ledger as
//! one clean ingest would; an open console says so, keeps its screen, turns writes off
//! and connects again by itself.

mod support;

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jobledger::clock::Clock;
use jobledger::console::{Action, App, update};
use jobledger::store::{Location, OpenMode};
use support::binary::{bare, succeeded};
use support::fixture::NOW;
use support::postgres::PgServer;

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

fn lines_kept(server: &PgServer, db: &str) -> i64 {
    let Ok(mut client) = ::postgres::Client::connect(&server.url(db), ::postgres::NoTls) else {
        return 0;
    };
    client
        .query_one(
            "SELECT coalesce((SELECT count(*) FROM jobledger.input_lines), 0)",
            &[],
        )
        .map_or(0, |row| row.get(0))
}

#[test]
fn an_ingest_cut_off_by_the_server_is_finished_by_a_re_run() {
    let server = PgServer::start();
    let db = server.fresh_database("ingest_cut_off");
    let url = server
        .url(&db)
        .replacen("jobledger@", "jobledger:s3cret-pw@", 1);
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("s.ndjson");
    let generated = bare()
        .args([
            "demo",
            "--jobs",
            "20000",
            "--stream-only",
            "--order",
            "shuffled",
        ])
        .output()
        .unwrap();
    std::fs::write(&stream, &generated.stdout).unwrap();
    let stream = stream.to_string_lossy().into_owned();

    // The reference: the same stream into a file, whole.
    let file = dir.path().join("whole.db").to_string_lossy().into_owned();
    ok(&file, &["ingest", &stream]);

    let ingest = jobledger(&url, &["ingest", &stream])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while lines_kept(&server, &db) == 0 {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "no batch was committed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server.stop();
    let out = ingest.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the ingest finished before the server stopped; give it a longer stream"
    );
    assert!(stderr.contains("cannot be reached"), "{stderr}");
    assert!(stderr.contains("re-run"), "{stderr}");
    assert!(
        stderr.contains("jobledger@"),
        "the server is not named: {stderr}"
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    server.start_again();
    let kept = lines_kept(&server, &db);
    assert!(kept > 0, "the committed batches were lost");
    ok(&url, &["ingest", &stream]);
    for report in [
        &["summary", "--json"][..],
        &["callbacks", "--json"],
        &["reconcile", "--json"],
        &["rejected", "--json"],
    ] {
        assert_eq!(ok(&url, report), ok(&file, report), "{report:?}");
    }
}

#[test]
fn an_open_console_waits_for_the_server_and_carries_on() {
    let server = PgServer::start();
    let db = server.fresh_database("console_waits");
    let url = server.url(&db);
    let mut ingest = jobledger(&url, &["ingest", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    ingest
        .stdin
        .take()
        .unwrap()
        .write_all(support::fixture::booking_afternoon().as_bytes())
        .unwrap();
    succeeded(&ingest.wait_with_output().unwrap(), &["ingest"]);

    let location = Location::parse(std::ffi::OsStr::new(&url)).unwrap();
    let mut app = App::open(
        &location,
        Clock::Fixed(support::fixture::now()),
        "ana".into(),
        false,
    )
    .expect("the console opens");
    assert!(!app.model().writes_off());
    let held_before = app.model().summary.clone();

    server.stop();
    // A tick finds the server gone: writes off, said on the message line, the screen
    // (its counts) as read.
    let began = Instant::now();
    while !app.model().server_away {
        update(&mut app, Action::Tick);
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "the console never noticed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(app.model().writes_off());
    let said = app.flash().map(|f| f.text.clone()).unwrap_or_default();
    assert!(said.contains("cannot be reached"), "{said}");
    assert_eq!(
        format!("{:?}", app.model().summary),
        format!("{held_before:?}")
    );

    server.start_again();
    let began = Instant::now();
    while app.model().server_away {
        update(&mut app, Action::Tick);
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "the console never reconnected"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!app.model().writes_off());
    // It reads from the server again: another connection's commit is heard of.
    let before = app.ledger().data_version().unwrap();
    let mut other = jobledger::store::Ledger::open_at(&location, OpenMode::ReadWrite).unwrap();
    other.writer().unwrap().commit().unwrap();
    let began = Instant::now();
    while app.ledger().data_version().unwrap() == before {
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "another machine's commit went unheard"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
