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
    console.answer_held_callback(1, "seen in e2e", "duplicate_effect by e2e-");
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
