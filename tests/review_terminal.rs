//! `jobledger review` and `review --read-only` as a reviewer runs them: the real
//! binary in a pseudo-terminal, keys typed, the screen read back through a terminal
//! emulator. Live refresh is watched through the real terminal loop: another process
//! ingests while the console is open, and the new row must appear on its own.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::binary::Workdir;
use support::fixture::{self, NOW};
use support::pty::PtySession;

/// A terminal as large as the console's snapshots use.
const SIZE: (u16, u16) = (160, 48);

/// `jobledger --db LEDGER --now NOW review EXTRA...` in a pseudo-terminal.
fn review(w: &Workdir, extra: &[&str]) -> PtySession {
    let db = w.db.to_str().expect("a UTF-8 path");
    let mut args = vec!["--db", db, "--now", NOW, "review"];
    args.extend(extra);
    PtySession::spawn(&args, w.dir.path(), SIZE, &[])
}

/// The standing answer on callback `seq`, as `callbacks --json` reports it.
fn answer_on(w: &Workdir, seq: i64) -> Value {
    let list = w.json(&["callbacks", "--json"]);
    list.as_array()
        .expect("a list")
        .iter()
        .find(|c| c["seq"] == seq)
        .unwrap_or_else(|| panic!("no callback #{seq}"))["answer"]
        .clone()
}

#[test]
fn review_answers_a_held_callback_in_a_real_terminal() {
    let (w, _) = Workdir::with_demo();
    let mut console = review(&w, &["--reviewer", "pty-reviewer"]);
    console.answer_held_callback(0, "checked in pty", "single_effect by pty-");
    console.quit();
    let answer = answer_on(&w, 2);
    assert_eq!(answer["verdict"], "single_effect");
    assert_eq!(answer["reviewer"], "pty-reviewer");
    assert_eq!(answer["note"], "checked in pty");
}

#[test]
fn ctrl_c_leaves_at_once_from_a_form_and_gives_the_terminal_back() {
    let (w, _) = Workdir::with_demo();
    let mut console = review(&w, &["--reviewer", "pty-reviewer"]);
    console.wait_for("held still open");
    console.send(b"1a");
    console.wait_for("Answer callback #2");
    console.send(b"\tq");
    console.wait_for("[ q  ]");
    // Ctrl-C, as a terminal in raw mode sends it: one byte, not a signal.
    console.leave_with(b"\x03", "Ctrl-C");
    assert_eq!(answer_on(&w, 2), Value::Null, "Ctrl-C wrote the answer");
}

#[test]
fn review_read_only_says_so_and_writes_nothing() {
    let (w, _) = Workdir::with_demo();
    let before = fixture::dump(&w.db);
    let mut console = review(&w, &["--read-only", "--reviewer", "pty-reviewer"]);
    console.wait_for("READ-ONLY: writes disabled");
    console.send(b"1");
    console.wait_for("possible_duplicate_effect");
    console.send(b"a");
    console.wait_for("read-only: the console was opened with --read-only");
    assert!(
        !console.contents().contains("Answer callback #2"),
        "an answer form opened in a read-only console"
    );
    console.quit();
    assert_eq!(answer_on(&w, 2), Value::Null);
    assert_eq!(fixture::dump(&w.db), before, "a read-only console wrote");
}

#[test]
fn review_shows_a_callback_ingested_by_another_process_while_it_is_open() {
    let (w, _) = Workdir::with_demo();
    let mut console = review(&w, &[]);
    console.wait_for("held still open");
    console.send(b"2");
    console.wait_for("no_matching_job");
    assert!(!console.contents().contains("booking-live-7"));
    let line = r#"{"event":"callback","delivery_id":"d-live-7","job_id":"booking-live-7","attempt":1,"outcome":"success","at":"2026-11-27T16:59:00Z"}"#;
    let file = w.file("live.ndjson", format!("{line}\n").as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    // No key is pressed: only the console's own tick (every 250 ms) can bring the row
    // in; a few seconds leave room for a loaded machine.
    console.wait_within(Duration::from_secs(10), "the new row", &|s| {
        s.contains("booking-live-7")
    });
    console.quit();
}

/// The demo's console writes as the reviewer named, as `review --reviewer` does: its
/// status line names them, and so does a request sent from it.
#[test]
fn the_demo_console_writes_as_the_reviewer_named() {
    let w = Workdir::new();
    let db = w.dir.path().join("demo.db");
    let db = db.to_str().expect("a UTF-8 path");
    let args = ["--db", db, "--now", NOW, "demo", "--reviewer", "maria"];
    let mut console = PtySession::spawn(&args, w.dir.path(), SIZE, &[("USER", "root")]);
    console.wait_for("reviewer maria");
    console.send(b"3jr");
    console.wait_for("Request a retry of booking-1043");
    console.send(b"y");
    console.wait_for("is in the outbox as request 1");
    console.send(b"\r");
    console.quit();
    let outbox = support::binary::run_at(std::path::Path::new(db), NOW, &["outbox", "--json"]);
    let rows: Value = serde_json::from_slice(&outbox.stdout).expect("outbox JSON");
    assert_eq!(rows[0]["requested_by"], "maria", "{rows}");
}
