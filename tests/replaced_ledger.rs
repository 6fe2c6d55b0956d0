//! The ledger a command opens is the file at its path now. Another
//! program may rename a ledger over it (`jobledger demo` removes it and builds anew) or
//! remove it while a connection is open: the connection still holds the old file. A
//! write is refused then, with a sentence and nothing written in either file; the
//! console notices on its next tick, says so, and reopens the file now at the path (or,
//! once it is removed, turns writes off until a ledger is back).

mod support;

use std::path::Path;

use jobledger::console::{Action, update};
use jobledger::review::{self, AnswerError, AnswerRequest};
use jobledger::store::{FileAtPath, Ledger, StoreError};
use ratatui::crossterm::event::KeyCode;
use support::fixture::{self, TempLedger};
use support::terminal::{ch, demo_app, demo_ledger, key, render, shows, type_text};

fn answers(path: &Path) -> i64 {
    fixture::query_i64(path, "SELECT count(*) FROM answers", [])
}

fn noise_on(seq: i64) -> AnswerRequest<'static> {
    AnswerRequest {
        seq,
        verdict: "noise",
        note: "relay spam",
        reviewer: "ana",
        link_job: None,
        seen_answer: None,
    }
}

/// A second ledger holding the worked example alone, closed, in `dir`.
fn other_ledger(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("other.db");
    let mut ledger = Ledger::open(&path).unwrap();
    fixture::ingest_afternoon(&mut ledger);
    path
}

#[test]
fn a_write_into_a_ledger_replaced_at_its_path_is_refused_and_nothing_is_written() {
    let mut t = TempLedger::with_demo_streams();
    t.ledger.keep_writes_durable().unwrap();
    // The old file stays reachable under a second name, to look inside it afterwards.
    let old = t.dir.path().join("old.db");
    std::fs::hard_link(&t.path, &old).unwrap();
    let other = other_ledger(t.dir.path());
    assert_eq!(t.ledger.file_at_path(), FileAtPath::Same);
    std::fs::rename(&other, &t.path).unwrap();
    assert_eq!(t.ledger.file_at_path(), FileAtPath::Replaced);

    // #5 is quarantined in both files: only the file tells them apart.
    let refused = review::answer(&mut t.ledger, &noise_on(5), fixture::now()).unwrap_err();
    assert!(
        matches!(refused, AnswerError::Store(StoreError::Replaced { .. })),
        "{refused:?}"
    );
    let said = refused.to_string();
    assert!(
        said.contains("was replaced by another file") && said.contains("nothing was written"),
        "{said}"
    );
    drop(t.ledger);
    assert_eq!(answers(&t.path), 0, "the file at the path took no answer");
    assert_eq!(answers(&old), 0, "the old file took no answer");
    // Each file is whole and its own: the old one's log, named by the path, was
    // emptied into it, so the new one does not read the old one's pages.
    let callbacks = |p: &Path| fixture::query_i64(p, "SELECT count(*) FROM callbacks", []);
    assert_eq!(callbacks(&t.path), 5);
    assert!(callbacks(&old) > 5);

    // Removed, the same.
    let mut ledger = Ledger::open(&t.path).unwrap();
    std::fs::remove_file(&t.path).unwrap();
    assert_eq!(ledger.file_at_path(), FileAtPath::Removed);
    let refused = review::answer(&mut ledger, &noise_on(5), fixture::now()).unwrap_err();
    assert!(
        matches!(refused, AnswerError::Store(StoreError::Removed { .. })),
        "{refused:?}"
    );
}

#[test]
fn the_console_reopens_a_ledger_replaced_under_it_and_answers_into_the_new_file() {
    let (demo, mut app) = demo_app("ana");
    let dir = demo.path.parent().unwrap();
    let old = dir.join("old.db");
    std::fs::hard_link(&demo.path, &old).unwrap();
    // The demo has callbacks the worked example alone has not.
    assert!(app.ledger().callback(6).unwrap().is_some());
    ch(&mut app, '2'); // Quarantined
    std::fs::rename(other_ledger(dir), &demo.path).unwrap();

    update(&mut app, Action::Tick);
    let text = shows(&app, "demo.db was replaced by another file; reopened it");
    assert!(!text.contains("FILE GONE"), "{text}");
    assert!(
        app.ledger().callback(6).unwrap().is_none(),
        "the console reads the new file"
    );
    shows(&app, "Quarantined 1/1");

    // #5, the one quarantined row of the new file, answered from the console.
    ch(&mut app, 'a');
    key(&mut app, KeyCode::Down); // noise
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "relay spam");
    key(&mut app, KeyCode::Enter);
    shows(&app, "written on callback #5");
    assert_eq!(
        answers(&demo.path),
        1,
        "the answer is in the file at the path"
    );
    assert_eq!(answers(&old), 0, "and not in the old file");
}

#[test]
fn the_console_leaves_an_empty_file_at_its_path_unwritten_and_reopens_the_ledger_made_there() {
    let (demo, mut app) = demo_app("ana");
    let dir = demo.path.parent().unwrap();
    // A demo being rebuilt: an empty file first, the ledger in it a moment later.
    let empty = dir.join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    std::fs::rename(&empty, &demo.path).unwrap();

    update(&mut app, Action::Tick);
    let text = shows(&app, "does not open (it is empty: no ledger yet)");
    assert!(text.contains("FILE GONE"), "{text}");
    update(&mut app, Action::Tick);
    assert_eq!(
        std::fs::metadata(&demo.path).unwrap().len(),
        0,
        "the console wrote nothing into the empty file"
    );

    std::fs::rename(other_ledger(dir), &demo.path).unwrap();
    update(&mut app, Action::Tick);
    let text = shows(&app, "demo.db was replaced by another file; reopened it");
    assert!(!text.contains("FILE GONE"), "{text}");
    shows(&app, "Quarantined 1/1");
}

#[test]
fn the_console_turns_writes_off_while_its_ledger_is_removed_and_on_when_it_is_back() {
    let (demo, mut app) = demo_app("ana");
    let dir = demo.path.parent().unwrap();
    let aside = dir.join("aside.db");
    std::fs::rename(&demo.path, &aside).unwrap();

    update(&mut app, Action::Tick);
    let text = shows(&app, "demo.db was removed");
    assert!(text.contains("FILE GONE"), "{text}");
    // What is on screen stays readable; a write is refused before its form opens.
    shows(&app, "booking-1042");
    ch(&mut app, '1');
    ch(&mut app, 'a');
    shows(&app, "the ledger file is gone from its path");

    // The same file back at its path: writes are on again.
    std::fs::rename(&aside, &demo.path).unwrap();
    update(&mut app, Action::Tick);
    let text = shows(&app, "demo.db is back");
    assert!(!text.contains("FILE GONE"), "{text}");
    ch(&mut app, 'a');
    assert!(!render(&app).contains("gone from its path"));
}

#[test]
fn the_demo_replaces_its_ledger_only_after_a_write_under_way_is_done() {
    use std::os::unix::fs::MetadataExt;
    let demo = demo_ledger();
    let inode = |p: &Path| std::fs::metadata(p).ok().map(|m| m.ino());
    let before = inode(&demo.path);
    let mut ledger = Ledger::open(&demo.path).unwrap();
    let under_way = ledger.writer().unwrap();
    let path = demo.path.clone();
    let rebuild = std::thread::spawn(move || {
        jobledger::demo::build(
            &path,
            jobledger::demo::demo_now(),
            jobledger::demo::DemoData::Booking,
            |_| {},
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    });
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert_eq!(
        inode(&demo.path),
        before,
        "the demo waits for the write lock"
    );
    under_way
        .commit()
        .expect("the write under way lands in the file at the path");
    rebuild.join().unwrap().unwrap();
    assert_ne!(inode(&demo.path), before, "then it replaces the file");
    let refused = ledger.writer().map(|_| ()).unwrap_err();
    assert!(
        matches!(refused, StoreError::Replaced { .. }),
        "{refused:?}"
    );
}

/// The case as it was first met: the console open in a real terminal, `demo --print`
/// run in another shell on the same ledger. The console says it reopened the file, and
/// the answer given then is in the file at the path.
#[test]
fn the_console_in_a_terminal_answers_into_the_demo_rebuilt_under_it() {
    let (w, _) = support::binary::Workdir::with_demo();
    let db = w.db.to_str().expect("a UTF-8 path");
    let mut console = support::pty::PtySession::spawn(
        &[
            "--db",
            db,
            "--now",
            fixture::NOW,
            "review",
            "--reviewer",
            "pty",
        ],
        w.dir.path(),
        (160, 48),
        &[],
    );
    console.wait_for("held still open");
    w.ok(&["demo", "--print"]);
    console.wait_for("ledger.db was replaced by another file; reopened it");
    console.answer_held_callback(0, "after the rebuild", "single_effect by pty");
    console.quit();
    let held = w.json(&["callbacks", "--json", "--disposition", "hold"]);
    assert_eq!(held[0]["seq"], 2);
    assert_eq!(held[0]["answer"]["verdict"], "single_effect", "{held}");
}
