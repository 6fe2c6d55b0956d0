//! Keys that must not bite: Esc closes and clears but never leaves, Shift-Tab goes back
//! however the terminal reports it, and an empty filter result is told from an empty
//! ledger.

mod support;

use jobledger::console::model::form::{AnswerField, Form};
use jobledger::console::{self, Action, App, Tab, update};
use jobledger::store::Ledger;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::terminal::{ch, demo_app, key, open_app, render, shows, type_text};

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
