//! The console's writes, driven by key presses and checked in the ledger afterwards:
//! linking, owners, a second reviewer, and read-only. (Answering and a refused retry,
//! with their snapshots, are in console.rs.)

mod support;

use jobledger::clock::{Clock, Timestamp};
use jobledger::console::App;
use jobledger::demo;
use jobledger::review::{self, AnswerRequest};
use jobledger::store::Ledger;
use ratatui::crossterm::event::KeyCode;
use support::terminal::{
    HEIGHT, WIDTH, ch, demo_app, demo_ledger, key, render, resize, shows, type_text,
};

#[test]
fn linking_a_quarantined_row_judges_it_against_the_job() {
    let (_ledger, mut app) = demo_app("ana");
    // View 2, rows #5, #13, #14: answer #14, the callback that named no job.
    type_text(&mut app, "2jja");
    key(&mut app, KeyCode::Tab); // `linked` is picked; on to its job id
    type_text(&mut app, "booking-1043");
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "anon delivery was the 1043 booking");
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(
        text.contains(
            "Judged against job booking-1043 as callback #16: hold (conflicting_outcomes)"
        ),
        "{text}"
    );
    let linked = app
        .ledger()
        .callback(16)
        .unwrap()
        .expect("new callback row");
    assert_eq!(linked.linked_from_seq, Some(14));
    assert_eq!(linked.job_id.as_deref(), Some("booking-1043"));
    let original = app.ledger().callback(14).unwrap().unwrap();
    assert_eq!(
        original.job_id, None,
        "the original row stays as it arrived"
    );
    assert_eq!(
        original.answer.unwrap().linked_job_id.as_deref(),
        Some("booking-1043")
    );
}

#[test]
fn setting_an_owner_on_an_aged_row() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '3');
    ch(&mut app, 'j'); // booking-1043, unowned
    ch(&mut app, 'o');
    for _ in 0.."ana".len() {
        key(&mut app, KeyCode::Backspace);
    }
    type_text(&mut app, "ops:kim");
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "2h");
    key(&mut app, KeyCode::Enter);
    let owner = app.ledger().owner("booking-1043").unwrap().expect("owner");
    assert_eq!(owner.owner, "ops:kim");
    assert_eq!(owner.set_by, "ana");
    assert_eq!(owner.escalate_at, Timestamp::parse("2026-11-27T19:00:00Z"));
    key(&mut app, KeyCode::Enter);
    shows(&app, "ops:kim");
}

#[test]
fn a_second_reviewer_is_told_and_nothing_is_overwritten() {
    let (ledger, mut app) = demo_app("ana");
    ch(&mut app, 'a'); // ana opens the form on #2 while it is unanswered
    let mut other = Ledger::open(&ledger.path).unwrap();
    review::answer(
        &mut other,
        &AnswerRequest {
            seq: 2,
            verdict: "single_effect",
            note: "called the hotel",
            reviewer: "bob",
            link_job: None,
            seen_answer: None,
        },
        demo::demo_now(),
    )
    .unwrap();
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(
        text.contains("Someone else answered this callback meanwhile"),
        "{text}"
    );
    assert!(text.contains("single_effect by bob"), "{text}");
    let answers = app.ledger().answers(2).unwrap();
    assert_eq!(answers.len(), 1, "bob's answer stands alone");
    assert_eq!(answers[0].reviewer, "bob");
}

#[test]
fn read_only_disables_every_write_and_says_so() {
    let ledger = demo_ledger();
    let ro = Ledger::open_read_only(&ledger.path).unwrap();
    let mut app = App::new(ro, Clock::Fixed(demo::demo_now()), "ana".into(), true).unwrap();
    resize(&mut app, WIDTH, HEIGHT);
    assert!(render(&app).contains("READ-ONLY"));
    for (tab, write) in [('1', 'a'), ('3', 'o'), ('3', 'r'), ('4', 'c')] {
        ch(&mut app, tab);
        ch(&mut app, write);
        let flash = app.flash().expect("a message");
        assert!(flash.text.contains("read-only"), "{}", flash.text);
    }
    assert!(app.ledger().outbox().unwrap().is_empty());
}

#[test]
fn a_reviewers_writes_from_the_console_are_synced_before_they_are_said_written() {
    // The console keeps its connection open for the session, so no closing checkpoint
    // makes an answer durable: each commit must sync the WAL itself.
    let (_ledger, app) = demo_app("ana");
    assert!(app.ledger().writes_are_durable().unwrap());
    // Ingest and reports keep NORMAL: they can be re-run from their source.
    let plain = Ledger::open(app.ledger().file().unwrap()).unwrap();
    assert!(!plain.writes_are_durable().unwrap());
}

#[test]
fn an_owner_form_submitted_unchanged_writes_nothing_and_says_so() {
    let (ledger, mut app) = demo_app("root");
    let rows =
        || support::fixture::query_i64(&ledger.path, "SELECT count(*) FROM owner_assignments", []);
    let before = rows();
    ch(&mut app, '3'); // booking-1042: ops:maria, escalating at 16:30
    ch(&mut app, 'o');
    key(&mut app, KeyCode::Enter);
    assert_eq!(rows(), before, "an unchanged owner was written");
    let text = shows(
        &app,
        "nothing changed: booking-1042 is owned by ops:maria already",
    );
    assert!(
        !text.contains("Owner and escalation of"),
        "the form stays open:\n{text}"
    );
    let owner = app.ledger().owner("booking-1042").unwrap().expect("owner");
    assert_eq!(owner.set_by, "demo");
    // A change is written.
    ch(&mut app, 'o');
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "1h");
    key(&mut app, KeyCode::Enter);
    assert_eq!(rows(), before + 1);
}

#[test]
fn a_request_from_the_console_is_asked_by_the_reviewer_named() {
    let (_ledger, mut app) = demo_app("maria");
    ch(&mut app, '3');
    ch(&mut app, 'j'); // booking-1043, timed out: a retry passes the checks
    ch(&mut app, 'r');
    ch(&mut app, 'y');
    let outbox = app.ledger().outbox().unwrap();
    let asked: Vec<&str> = outbox.iter().map(|r| r.requested_by.as_str()).collect();
    assert_eq!(asked, ["maria"]);
}

/// The owner form with no owner and no escalation time clears the job's owner; on a
/// job with no owner it writes nothing and says so.
#[test]
fn an_owner_form_left_empty_clears_the_owner() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '3'); // Aged: booking-1042 first, owned by ops:maria
    ch(&mut app, 'o');
    key(&mut app, KeyCode::Delete); // the prefilled owner is selected: a delete clears it
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Delete);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.ledger().owner("booking-1042").unwrap(), None);
    shows(&app, "booking-1042 has no owner now (was ops:maria)");
    let timeline = app.ledger().timeline("booking-1042").unwrap();
    assert!(
        timeline.iter().any(|e| matches!(
            &e.fact,
            jobledger::store::TimelineFact::OwnerSet { owner: None, set_by, .. } if set_by == "ana"
        )),
        "{timeline:?}"
    );
    key(&mut app, KeyCode::Enter); // close the form
    let before = app.ledger().timeline("booking-1042").unwrap().len();
    ch(&mut app, 'o'); // an unowned job's form offers the reviewer's name
    key(&mut app, KeyCode::Delete);
    key(&mut app, KeyCode::Enter); // empty again: nothing to clear
    shows(&app, "nothing changed: booking-1042 has no owner");
    assert_eq!(app.ledger().timeline("booking-1042").unwrap().len(), before);
}
