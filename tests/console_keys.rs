//! Keys that must not bite: Esc closes and clears but never leaves, `q` and Esc go back
//! one level and `q` leaves only from the top, Shift-Tab goes back however the terminal
//! reports it, an answer takes one key (no confirmation to close), and an empty filter
//! result is told from an empty ledger.

mod support;

use std::time::Duration;

use jobledger::console::model::form::{AnswerField, Form};
use jobledger::console::{self, Action, App, Context, Tab, update};
use jobledger::demo;
use jobledger::review::{self, AnswerRequest};
use jobledger::store::{Finding, Ledger};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::terminal::{
    DemoLedger, ch, demo_app, key, open_app, open_finding, render, selected_callback, shows,
    type_text,
};

/// Shift-Tab as terminals report it: with the SHIFT modifier (most) and without it.
const SHIFT_TAB: [KeyModifiers; 2] = [KeyModifiers::SHIFT, KeyModifiers::NONE];

fn shift_tab(app: &mut App, mods: KeyModifiers) {
    console::press(app, &KeyEvent::new(KeyCode::BackTab, mods));
}

fn answer_field(app: &App) -> Option<AnswerField> {
    match app.model().form()? {
        Form::Answer(form) => Some(form.field),
        _ => None,
    }
}

#[test]
fn esc_closes_and_clears_but_never_leaves() {
    let (_ledger, mut app) = demo_app("ana");
    for _ in 0..3 {
        key(&mut app, KeyCode::Esc);
    }
    assert!(!app.quit_requested(), "Esc on a bare list left the console");
    shows(&app, "1 Held 2");

    // Detail open and a filter set: Esc closes the one, clears the other, then stays.
    type_text(&mut app, "/1042");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert!(app.model().detail.is_some());
    for _ in 0..4 {
        key(&mut app, KeyCode::Esc);
    }
    assert!(app.model().detail.is_none());
    assert_eq!(app.model().filter(), None);
    assert!(!app.quit_requested(), "Esc after closing and clearing left");

    ch(&mut app, 'q');
    assert!(app.quit_requested(), "q leaves");
    let (_ledger, mut app) = demo_app("ana");
    console::press(
        &mut app,
        &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
    );
    assert!(app.quit_requested(), "Ctrl-C leaves");
}

#[test]
fn shift_tab_goes_to_the_previous_view() {
    for mods in SHIFT_TAB {
        let (_ledger, mut app) = demo_app("ana");
        ch(&mut app, '2');
        shift_tab(&mut app, mods);
        assert_eq!(app.tab(), Tab::Held, "Shift-Tab with {mods:?}");
        shift_tab(&mut app, mods);
        let last = Tab::ALL[Tab::ALL.len() - 1];
        assert_eq!(app.tab(), last, "Shift-Tab with {mods:?} wraps");
    }
}

#[test]
fn shift_tab_goes_to_the_previous_field_of_a_form() {
    for mods in SHIFT_TAB {
        let (_ledger, mut app) = demo_app("ana");
        // A quarantined row: `linked` is picked, so the form has three fields.
        type_text(&mut app, "2a");
        assert_eq!(answer_field(&app), Some(AnswerField::Verdict));
        shift_tab(&mut app, mods);
        assert_eq!(answer_field(&app), Some(AnswerField::Note), "with {mods:?}");
        shift_tab(&mut app, mods);
        assert_eq!(
            answer_field(&app),
            Some(AnswerField::LinkJob),
            "with {mods:?}"
        );
    }
}

#[test]
fn an_empty_filter_result_names_the_query_not_an_empty_ledger() {
    let (_ledger, mut app) = demo_app("ana");
    type_text(&mut app, "5/no-such-job");
    key(&mut app, KeyCode::Enter);
    let text = shows(&app, "Nothing here matches the filter no-such-job");
    assert!(!text.contains("No callbacks in this ledger yet"), "{text}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    drop(Ledger::open(&path).unwrap());
    let mut app = open_app(&path, "ana");
    update(&mut app, Action::ShowTab(Tab::Callbacks));
    let text = render(&app);
    assert!(text.contains("No callbacks in this ledger yet"), "{text}");
    assert!(!text.contains("Nothing here matches"), "{text}");
}

fn ctrl_c(app: &mut App) {
    console::press(
        app,
        &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
    );
}

/// Presses `q` and checks that it went back to `context` without leaving.
fn q_back_to(app: &mut App, context: Context, from: &str) {
    ch(app, 'q');
    assert!(!app.quit_requested(), "q in {from} left the console");
    assert_eq!(app.context(), context, "q in {from}");
}

#[test]
fn q_goes_back_one_level_and_leaves_only_from_the_top() {
    let (_ledger, mut app) = demo_app("ana");
    // The detail, and the comparison over it: each q closes one.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::Detail);
    ch(&mut app, 'C');
    assert_eq!(app.context(), Context::Compare);
    q_back_to(&mut app, Context::Detail, "the comparison");
    q_back_to(&mut app, Context::List, "the detail");
    // The help, a confirmation, a refusal, the saved views, a bulk plan.
    ch(&mut app, '?');
    q_back_to(&mut app, Context::List, "the help");
    type_text(&mut app, "3jr");
    assert_eq!(app.context(), Context::Confirm);
    q_back_to(&mut app, Context::List, "a retry's confirmation");
    assert!(
        app.ledger().outbox().unwrap().is_empty(),
        "q sent a request"
    );
    ch(&mut app, '\'');
    assert_eq!(app.context(), Context::SavedViews);
    q_back_to(&mut app, Context::List, "the saved views");
    type_text(&mut app, "1 a");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::Plan);
    q_back_to(&mut app, Context::List, "a bulk answer's plan");
    assert!(app.ledger().answers(2).unwrap().is_empty(), "q wrote");
    ch(&mut app, 'x');

    // A finding's jobs, and a job's timeline under them: q goes up a level at a time.
    open_finding(&mut app, Finding::MissingTerminal);
    assert!(app.model().findings.jobs.is_some());
    shows(&app, "q back");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::Detail);
    q_back_to(&mut app, Context::List, "a job's timeline");
    assert!(
        app.model().findings.jobs.is_some(),
        "q left the finding too"
    );
    q_back_to(&mut app, Context::List, "a finding's jobs");
    assert!(
        app.model().findings.jobs.is_none(),
        "q kept the finding open"
    );
    assert_eq!(app.tab(), Tab::Reconcile);
    shows(&app, "q quit");
    ch(&mut app, 'q');
    assert!(app.quit_requested(), "q at the top level stays");
}

#[test]
fn q_is_a_letter_where_text_is_typed() {
    let (_ledger, mut app) = demo_app("ana");
    type_text(&mut app, "/q");
    assert_eq!(app.model().filter(), Some("q"));
    key(&mut app, KeyCode::Esc);
    type_text(&mut app, "1a");
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "quote");
    assert!(!app.quit_requested());
    match app.model().form() {
        Some(Form::Answer(form)) => assert_eq!(form.note.text(), "quote"),
        other => panic!("the answer form closed: {other:?}"),
    }
}

#[test]
fn colon_q_and_ctrl_c_leave() {
    let (_ledger, mut app) = demo_app("ana");
    type_text(&mut app, ":q");
    assert!(!app.quit_requested(), ":q left before Enter");
    key(&mut app, KeyCode::Enter);
    assert!(app.quit_requested(), ":q Enter stays");

    // Ctrl-C leaves at once, from a text field too.
    for keys in ["1a", "/", ":", "?", "1C"] {
        let (_ledger, mut app) = demo_app("ana");
        type_text(&mut app, keys);
        ctrl_c(&mut app);
        assert!(app.quit_requested(), "Ctrl-C after {keys:?} stays");
    }
}

/// Answers the selected row: the verdict `downs` below the first, `note`, Enter.
fn answer(app: &mut App, downs: usize, note: &str) {
    ch(app, 'a');
    for _ in 0..downs {
        key(app, KeyCode::Down);
    }
    key(app, KeyCode::Tab);
    type_text(app, note);
    key(app, KeyCode::Enter);
}

#[test]
fn an_answer_closes_its_form_and_goes_on_to_the_next_open_row() {
    // Held, open only: #2 and #11. The answered row leaves; the cursor is on #11.
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '1');
    answer(&mut app, 0, "one booking");
    assert!(app.model().form().is_none(), "the form stayed open");
    assert_eq!(app.context(), Context::List);
    assert_eq!(selected_callback(&app).seq, 11);
    let said = "Answer 1 written on callback #2: single_effect by ana.";
    shows(&app, said);
    // The line stays while the reviewer goes on, and goes by itself.
    ch(&mut app, 'k');
    shows(&app, said);
    app.pass_messages_after(Duration::ZERO);
    update(&mut app, Action::Tick);
    shows(&app, said); // still its four seconds
    ch(&mut app, 'a');
    key(&mut app, KeyCode::Esc); // a new message takes its place
    assert!(!render(&app).contains(said));

    // All quarantined rows: #5 (answered now), #13 (closed by bob before), #14.
    let (ledger, mut app) = demo_app("ana");
    answer_as_bob(&ledger, 13, "noise");
    type_text(&mut app, "2O");
    assert_eq!(selected_callback(&app).seq, 5);
    app.pass_messages_after(Duration::ZERO);
    answer(&mut app, 1, "not ours");
    assert_eq!(selected_callback(&app).seq, 14, "not on the next open row");
    shows(&app, "Answer 2 written on callback #5: noise by ana.");
    update(&mut app, Action::Tick);
    assert_eq!(app.flash(), None, "the message did not go by itself");

    // An answer that leaves the question open keeps the row, and moves on all the same.
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '1');
    answer(&mut app, 2, "ask the hotel");
    assert_eq!(selected_callback(&app).seq, 11);
    shows(
        &app,
        "Answer 1 written on callback #2: needs_remote_check by ana; the question stays open.",
    );
    ch(&mut app, 'k');
    assert_eq!(selected_callback(&app).seq, 2, "the open row left the list");
}

/// Bob answers callback `seq` with `verdict` from another connection.
fn answer_as_bob(ledger: &DemoLedger, seq: i64, verdict: &str) {
    let mut other = Ledger::open(&ledger.path).unwrap();
    review::answer(
        &mut other,
        &AnswerRequest {
            seq,
            verdict,
            note: "bob's",
            reviewer: "bob",
            link_job: None,
            seen_answer: None,
        },
        demo::demo_now(),
    )
    .unwrap();
}

#[test]
fn an_answer_refused_because_someone_answered_first_stays_until_closed() {
    let (ledger, mut app) = demo_app("ana");
    app.pass_messages_after(Duration::ZERO);
    ch(&mut app, 'a');
    answer_as_bob(&ledger, 2, "single_effect");
    key(&mut app, KeyCode::Enter);
    for _ in 0..3 {
        update(&mut app, Action::Tick);
    }
    assert_eq!(app.context(), Context::Outcome);
    shows(&app, "Someone else answered this callback meanwhile");
    ch(&mut app, 'j');
    assert_eq!(
        app.context(),
        Context::Outcome,
        "a stray key closed the refusal"
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::List);
}

/// Each form's footer names its own keys: the owner form has no verdict to pick.
#[test]
fn each_form_footer_names_its_own_fields() {
    let (_ledger, mut app) = demo_app("ana");
    let footer = |app: &App| render(app).lines().last().unwrap_or_default().to_owned();
    ch(&mut app, 'a'); // the first held callback
    let answer = footer(&app);
    assert!(answer.contains("↓ next verdict"), "{answer}");
    key(&mut app, KeyCode::Esc);
    ch(&mut app, '3');
    ch(&mut app, 'o');
    let owner = footer(&app);
    assert!(!owner.contains("verdict"), "{owner}");
    assert!(owner.contains("Tab other field"), "{owner}");
    assert_eq!(app.context(), Context::Owner);
}
