//! Editing text in the console: the forms, the filter (`/`) and a command (`:`) take
//! the cursor and delete keys, a prefilled value is selected so that typing replaces
//! it, and the cursor is drawn where it is.

mod support;

use jobledger::clock::Timestamp;
use jobledger::console::{self, App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};
use support::terminal::{HEIGHT, WIDTH, ch, demo_app, key, type_text};

fn ctrl(app: &mut App, c: char) {
    console::press(app, &KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
}

/// The filter as typed, and where its cursor is (in characters).
fn filter_typed(app: &App) -> (String, usize) {
    match &app.model().overlay {
        Overlay::Filter { field, .. } => (field.text().to_owned(), field.cursor()),
        other => panic!("the filter is not being typed: {other:?}"),
    }
}

/// The owner form on the Aged view's first row, booking-1042, whose owner is ops:maria
/// and which escalates at 2026-11-27T16:30:00Z: both fields come prefilled.
fn owner_form_on_booking_1042(app: &mut App) {
    ch(app, '3');
    ch(app, 'o');
    support::terminal::shows(app, "Owner and escalation of booking-1042");
}

#[test]
fn typing_into_a_prefilled_field_replaces_the_value() {
    let (_ledger, mut app) = demo_app("ana");
    owner_form_on_booking_1042(&mut app);
    key(&mut app, KeyCode::Tab);
    // Before, this made `2026-11-27T16:30:00.000Z2h`, which is no time.
    type_text(&mut app, "2h");
    key(&mut app, KeyCode::Enter);
    let owner = app.ledger().owner("booking-1042").unwrap().expect("owner");
    assert_eq!(owner.owner, "ops:maria");
    assert_eq!(owner.escalate_at, Timestamp::parse("2026-11-27T19:00:00Z"));
}

#[test]
fn a_move_keeps_the_prefilled_value_to_edit_it() {
    let (_ledger, mut app) = demo_app("ana");
    owner_form_on_booking_1042(&mut app);
    key(&mut app, KeyCode::End); // keeps `ops:maria`, the cursor at its end
    type_text(&mut app, "-2");
    ctrl(&mut app, 'a');
    for _ in 0.."ops:".len() {
        key(&mut app, KeyCode::Delete);
    }
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Backspace); // the m
    type_text(&mut app, "M");
    key(&mut app, KeyCode::Enter);
    let owner = app.ledger().owner("booking-1042").unwrap().expect("owner");
    assert_eq!(owner.owner, "Maria-2");
}

#[test]
fn a_delete_clears_a_prefilled_value() {
    let (_ledger, mut app) = demo_app("ana");
    owner_form_on_booking_1042(&mut app);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Backspace); // the whole time goes: no escalation time
    key(&mut app, KeyCode::Enter);
    let owner = app.ledger().owner("booking-1042").unwrap().expect("owner");
    assert_eq!(owner.escalate_at, None);
}

#[test]
fn the_filter_takes_the_cursor_and_delete_keys() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '5');
    ch(&mut app, '/');
    type_text(&mut app, "1043");
    key(&mut app, KeyCode::Home);
    type_text(&mut app, "booking-");
    assert_eq!(filter_typed(&app), ("booking-1043".to_owned(), 8));
    ctrl(&mut app, 'e');
    assert_eq!(filter_typed(&app), ("booking-1043".to_owned(), 12));
    ctrl(&mut app, 'w');
    assert_eq!(filter_typed(&app), ("booking-".to_owned(), 8));
    ctrl(&mut app, 'u');
    assert_eq!(filter_typed(&app), (String::new(), 0));
    type_text(&mut app, "1O43");
    key(&mut app, KeyCode::Left);
    key(&mut app, KeyCode::Left);
    key(&mut app, KeyCode::Backspace);
    type_text(&mut app, "0");
    assert_eq!(filter_typed(&app), ("1043".to_owned(), 2));
    ctrl(&mut app, 'k');
    assert_eq!(filter_typed(&app), ("10".to_owned(), 2));
    ctrl(&mut app, 'a');
    key(&mut app, KeyCode::Delete);
    assert_eq!(filter_typed(&app), ("0".to_owned(), 0));
    key(&mut app, KeyCode::End);
    type_text(&mut app, "43");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.model().filter(), Some("043"));
}

#[test]
fn a_standing_filter_is_selected_when_typed_again() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '5');
    ch(&mut app, '/');
    type_text(&mut app, "1043");
    key(&mut app, KeyCode::Enter);
    ch(&mut app, '/');
    type_text(&mut app, "1042");
    assert_eq!(filter_typed(&app), ("1042".to_owned(), 4));
    key(&mut app, KeyCode::Esc);
    assert_eq!(
        app.model().filter(),
        Some("1043"),
        "Esc puts the old one back"
    );
    ch(&mut app, '/');
    key(&mut app, KeyCode::Left);
    type_text(&mut app, "9");
    assert_eq!(filter_typed(&app), ("10493".to_owned(), 4));
}

#[test]
fn a_command_takes_the_cursor_keys() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, ':');
    type_text(&mut app, "sve mine");
    key(&mut app, KeyCode::Home);
    key(&mut app, KeyCode::Right);
    type_text(&mut app, "a");
    key(&mut app, KeyCode::Enter);
    let views = app.ledger().saved_views().unwrap();
    assert_eq!(
        views.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
        ["mine"]
    );
}

/// The frame drawn at the test size, as ratatui's buffer (to read the styles).
fn buffer(app: &App) -> ratatui::buffer::Buffer {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("test terminal");
    terminal
        .draw(|frame| console::view::draw(frame, app.model()))
        .expect("draw");
    terminal.backend().buffer().clone()
}

/// Where `needle` starts on the screen, on the first row that has it: (column, row).
fn find(buffer: &ratatui::buffer::Buffer, needle: &str) -> (u16, u16) {
    for y in 0..buffer.area.height {
        let row: Vec<&str> = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol())
            .collect();
        let text = row.concat();
        if let Some(byte) = text.find(needle) {
            let column = text[..byte].chars().count();
            return (u16::try_from(column).unwrap(), y);
        }
    }
    panic!("{needle:?} is not on screen");
}

#[test]
fn the_cursor_is_drawn_where_it_is() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '5');
    ch(&mut app, '/');
    type_text(&mut app, "1043");
    key(&mut app, KeyCode::Left);
    key(&mut app, KeyCode::Left);
    let screen = buffer(&app);
    let (x, y) = find(&screen, "/ filter All callbacks: 1043");
    let x = x + 24;
    let reversed: Vec<u16> = (0..4)
        .filter(|i| screen[(x + i, y)].modifier.contains(Modifier::REVERSED))
        .collect();
    assert_eq!(reversed, [2], "the cursor is on the 4");
    key(&mut app, KeyCode::End);
    let screen = buffer(&app);
    assert!(screen[(x + 4, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn a_prefilled_value_is_drawn_selected() {
    let (_ledger, mut app) = demo_app("ana");
    owner_form_on_booking_1042(&mut app);
    let screen = buffer(&app);
    let (x, y) = find(&screen, "[ ops:maria");
    let x = x + 2;
    assert!((0..9).all(|i| screen[(x + i, y)].bg == Color::Cyan));
    key(&mut app, KeyCode::End);
    let screen = buffer(&app);
    assert!((0..9).all(|i| screen[(x + i, y)].bg != Color::Cyan));
    assert!(screen[(x + 9, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn a_filter_wider_than_the_line_keeps_the_cursor_on_screen() {
    let (_ledger, mut app) = demo_app("ana");
    support::terminal::resize(&mut app, 80, 24);
    ch(&mut app, '5');
    ch(&mut app, '/');
    let words = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima";
    type_text(&mut app, words);
    let filter_row = |app: &App| {
        support::terminal::render_at(app, 80, 24)
            .lines()
            .find(|l| l.starts_with("/ filter"))
            .expect("the filter line")
            .to_owned()
    };
    let end = filter_row(&app);
    assert!(
        end.contains("…") && end.ends_with("juliett kilo lima"),
        "{end}"
    );
    key(&mut app, KeyCode::Home);
    let start = filter_row(&app);
    assert!(start.contains("All callbacks: alpha bravo"), "{start}");
}
