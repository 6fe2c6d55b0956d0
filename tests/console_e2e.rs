//! The real binary in a pseudo-terminal: answer the held callback, leave, and find the
//! answer with the command line.

mod support;

use support::binary::Workdir;
use support::pty::PtySession;
use support::terminal::{HEIGHT, WIDTH};

/// The real binary in a pseudo-terminal: answer the held callback, leave, and find
/// the answer with the command line.
#[test]
fn end_to_end_in_a_pseudo_terminal() {
    let w = Workdir::new();
    let db = w.db.to_str().expect("a UTF-8 path");
    let mut console = PtySession::spawn(
        &["--db", db, "demo"],
        w.dir.path(),
        (WIDTH, HEIGHT),
        &[("JOBLEDGER_REVIEWER", "e2e-reviewer")],
    );
    console.wait_for("held for a person");
    console.send(b"1");
    console.wait_for("possible_duplicate_effect");
    console.send(b"a");
    console.wait_for("Answer callback #2");
    console.send(b"\x1b[B"); // Down: duplicate_effect
    console.send(b"\t");
    console.send(b"seen in e2e");
    console.wait_for("seen in e2e");
    console.send(b"\r");
    console.wait_for("Answer 1 written on callback #2");
    console.send(b"\r");
    // The confirmation names the answer too: wait for it to close and the row to show
    // the answer (its column may cut the reviewer's name short).
    console.wait_until("the held row to show the answer", &|s| {
        !s.contains("Answer 1 written") && s.contains("duplicate_effect by e2e-")
    });
    console.quit();

    let list = w.json(&["callbacks", "--json"]);
    let held = list
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["seq"] == 2)
        .expect("callback #2");
    assert_eq!(held["answer"]["verdict"], "duplicate_effect");
    assert_eq!(held["answer"]["reviewer"], "e2e-reviewer");
    assert_eq!(held["answer"]["note"], "seen in e2e");
}
