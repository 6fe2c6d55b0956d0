//! A bulk answer from the console: rows marked with Space in a real
//! terminal, `a`, a verdict chosen, the plan read and confirmed; the ledger then holds
//! the answers. And, driven in process, the count typed to confirm above 100 rows, and
//! a row another reviewer answers between the plan and the confirmation left out and
//! named, their answer standing.

mod support;

use jobledger::decision::Verdict;
use jobledger::review::{self, AnswerRequest};
use jobledger::store::Ledger;
use ratatui::crossterm::event::KeyCode;
use serde_json::Value;
use support::binary::Workdir;
use support::fixture::{self, NOW, TempLedger};
use support::pty::PtySession;
use support::terminal::{ch, demo_app, key, open_app, render, render_at, resize, type_text};

#[test]
fn marked_rows_are_answered_at_once_from_a_real_terminal() {
    let (w, _) = Workdir::with_demo();
    let db = w.db.to_str().expect("a UTF-8 path");
    let args = ["--db", db, "--now", NOW, "review", "--reviewer", "pty-bulk"];
    let mut console = PtySession::spawn(&args, w.dir.path(), (100, 30), &[]);
    console.wait_for("held still open");
    console.send(b"2");
    console.wait_for("no_matching_job");
    // Space marks #5 and moves on; Space marks #13.
    console.send(b" ");
    console.send(b" ");
    console.wait_for("2 marked");
    console.send(b"a");
    console.wait_for("Answer 2 marked callbacks at once");
    console.send(b"\x1b[B"); // needs_remote_check
    console.send(b"\t");
    console.send(b"asked the relay");
    console.wait_for("asked the relay");
    console.send(b"\r");
    console.wait_for("2 of 2 marked callbacks will be answered needs_remote_check");
    console.send(b"\r");
    console.wait_for("Wrote 2 answers in one transaction");
    console.send(b"\r");
    console.wait_until("the marks to be cleared", &|s| !s.contains("marked"));
    console.quit();
    let list = w.json(&["callbacks", "--disposition", "quarantine", "--json"]);
    let answered: Vec<(i64, Value)> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| (c["seq"].as_i64().unwrap(), c["answer"].clone()))
        .collect();
    for (seq, answer) in answered {
        if seq == 5 || seq == 13 {
            assert_eq!(answer["verdict"], "needs_remote_check", "#{seq}");
            assert_eq!(answer["reviewer"], "pty-bulk", "#{seq}");
            assert_eq!(answer["note"], "asked the relay", "#{seq}");
        } else {
            assert_eq!(answer, Value::Null, "#{seq} was not marked");
        }
    }
}

#[test]
fn above_a_hundred_rows_the_count_is_typed_before_anything_is_written() {
    let mut t = TempLedger::new();
    t.ingest_bytes(&fixture::synthetic_stream(4000));
    let held = t
        .callbacks(Some(jobledger::decision::Disposition::Hold))
        .len();
    assert!(held > 100, "the generated day holds {held} held callbacks");
    let mut app = open_app(&t.path, "ana");
    ch(&mut app, '1');
    ch(&mut app, 'V');
    let marked = render(&app);
    assert!(
        marked.contains(&format!("marked all {held} callbacks the view lists")),
        "{marked}"
    );
    ch(&mut app, 'a');
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down); // needs_remote_check: every held row takes it
    key(&mut app, KeyCode::Enter);
    let plan = render(&app);
    assert!(
        plan.contains(&format!(
            "{held} of {held} marked callbacks will be answered"
        )),
        "{plan}"
    );
    key(&mut app, KeyCode::Enter);
    assert!(render(&app).contains(&format!("type {held} to confirm")));
    type_text(&mut app, &(held - 1).to_string());
    key(&mut app, KeyCode::Enter);
    let count = || fixture::query_i64(&t.path, "SELECT count(*) FROM answers", []);
    assert_eq!(count(), 0, "a wrong count wrote");
    for _ in 0..8 {
        key(&mut app, KeyCode::Backspace);
    }
    type_text(&mut app, &held.to_string());
    key(&mut app, KeyCode::Enter);
    assert!(render(&app).contains(&format!("Wrote {held} answers in one transaction")));
    assert_eq!(count(), i64::try_from(held).unwrap());
    let remote_checks = fixture::query_i64(
        &t.path,
        "SELECT count(*) FROM answers WHERE verdict = ?1 AND reviewer = 'ana'",
        [Verdict::NeedsRemoteCheck.as_str()],
    );
    assert_eq!(remote_checks, i64::try_from(held).unwrap());
}

#[test]
fn the_marks_the_plan_and_the_outcome_at_every_size() {
    let (ledger, mut app) = demo_app("ana");
    let path = ledger.path.display().to_string();
    let screen = |app: &_, width, height| render_at(app, width, height).replace(&path, "[LEDGER]");
    ch(&mut app, '5');
    ch(&mut app, 'V');
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        resize(&mut app, width, height);
        let name = format!("bulk_marked_{width}x{height}");
        insta::assert_snapshot!(name, screen(&app, width, height));
    }
    ch(&mut app, 'a');
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down); // needs_remote_check
    key(&mut app, KeyCode::Enter);
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        resize(&mut app, width, height);
        let name = format!("bulk_plan_{width}x{height}");
        insta::assert_snapshot!(name, screen(&app, width, height));
    }
    key(&mut app, KeyCode::Enter);
    resize(&mut app, 80, 24);
    insta::assert_snapshot!("bulk_outcome_80x24", screen(&app, 80, 24));
}

#[test]
fn capital_v_marks_what_the_query_keeps_and_nothing_else() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '5'); // All callbacks: 15 rows, two of them held
    type_text(&mut app, "/disposition:hold");
    key(&mut app, KeyCode::Enter);
    ch(&mut app, 'V');
    let marked = render(&app);
    assert!(
        marked.contains("marked all 2 callbacks the filter matches"),
        "{marked}"
    );
    assert!(marked.contains("· 2 marked"), "{marked}");
    // Widening the query shows more rows; only the two held ones carry a mark.
    type_text(&mut app, "/");
    key(&mut app, KeyCode::End); // the standing filter, no longer selected: one at a time
    for _ in 0.."disposition:hold".len() {
        key(&mut app, KeyCode::Backspace);
    }
    key(&mut app, KeyCode::Enter);
    let all = render(&app);
    assert_eq!(all.matches('✓').count(), 2, "{all}");
}

#[test]
fn a_row_a_colleague_answers_between_the_plan_and_the_confirmation_is_left_out_and_named() {
    let (ledger, mut app) = demo_app("ana");
    ch(&mut app, '2'); // Quarantined: #5, #13, #14, #15
    ch(&mut app, ' ');
    ch(&mut app, ' ');
    ch(&mut app, 'a');
    key(&mut app, KeyCode::Enter); // noise, the first verdict
    let plan = render(&app);
    assert!(
        plan.contains("2 of 2 marked callbacks will be answered noise by ana"),
        "{plan}"
    );
    // lee answers #13 through another connection while the plan is on screen.
    let mut other = Ledger::open(&ledger.path).unwrap();
    let lees = review::answer(
        &mut other,
        &AnswerRequest {
            seq: 13,
            verdict: "needs_remote_check",
            note: "remote may have charged twice; checking",
            reviewer: "lee",
            link_job: None,
            seen_answer: None,
        },
        jobledger::demo::demo_now(),
    )
    .unwrap();
    key(&mut app, KeyCode::Enter);
    let outcome = render(&app);
    for said in [
        "Wrote 1 answer in one transaction",
        "Left out 1 when written:",
        "#13 answered meanwhile by lee at 11-27 17:00:00: needs_remote_check (remote may have",
    ] {
        assert!(outcome.contains(said), "{said:?} missing:\n{outcome}");
    }
    let on_13 = app.ledger().answers(13).unwrap();
    assert_eq!(on_13.len(), 1, "nothing written over lee's answer");
    assert_eq!(
        (on_13[0].id, on_13[0].reviewer.as_str()),
        (lees.answer_id, "lee")
    );
    let on_5 = app.ledger().answers(5).unwrap();
    assert_eq!(on_5.len(), 1);
    assert_eq!(
        (on_5[0].reviewer.as_str(), on_5[0].verdict),
        ("ana", Verdict::Noise)
    );
}
