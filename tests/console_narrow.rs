//! What a narrow terminal cuts says so, and never the part a person asked for: the
//! Reconcile view scrolls to its last line and no further, its windows table marks
//! the states it had no room for, and a list sorted by a column shows that column
//! and the sort in its title at every width.

mod support;

use jobledger::console::{Action, App, Tab, update};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::terminal::{ch, demo_app, key, lines_at, resize};

/// The screen at `size`, one string per row.
fn rows(app: &mut App, (width, height): (u16, u16)) -> Vec<String> {
    resize(app, width, height);
    lines_at(app.model(), width, height)
}

/// `G`: to the end.
fn end(app: &mut App) {
    jobledger::console::press(app, &KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT));
}

/// The rows inside the Reconcile view's frame (from below its top border to above its
/// bottom one), the borders and padding taken off.
fn inside_the_frame(screen: &[String]) -> Vec<String> {
    let top = screen
        .iter()
        .position(|r| r.starts_with("┌ Reconcile"))
        .expect("the Reconcile frame");
    let bottom = screen
        .iter()
        .rposition(|r| r.starts_with('└'))
        .expect("its bottom border");
    screen[top + 1..bottom]
        .iter()
        .map(|r| {
            r.trim_start_matches('│')
                .trim_end_matches('│')
                .trim()
                .to_owned()
        })
        .collect()
}

#[test]
fn g_in_the_reconcile_view_stops_with_the_last_line_at_the_bottom() {
    let (_ledger, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    for size in [(80, 24), (100, 30)] {
        resize(&mut app, size.0, size.1);
        key(&mut app, KeyCode::Home);
        let home = rows(&mut app, size);
        end(&mut app);
        let screen = rows(&mut app, size);
        let inside = inside_the_frame(&screen);
        let text = screen.join("\n");
        assert!(
            inside.last().is_some_and(|r| !r.is_empty()),
            "{size:?}: the last row of the view is empty after G:\n{text}"
        );
        // What the end shows: the windows and the note under them.
        assert!(text.contains("submitted (1h)"), "{size:?}:\n{text}");
        // Further down goes nowhere, and a page up moves at once (no presses are
        // spent climbing back from past the end).
        key(&mut app, KeyCode::PageDown);
        assert_eq!(
            rows(&mut app, size),
            screen,
            "{size:?}: scrolled past the end"
        );
        key(&mut app, KeyCode::PageUp);
        let up = rows(&mut app, size);
        if home != screen {
            assert_ne!(up, screen, "{size:?}: a page up after G did not move");
        }
    }
    // Where everything fits, G moves nothing.
    key(&mut app, KeyCode::Home);
    let top = rows(&mut app, (160, 48));
    end(&mut app);
    assert_eq!(rows(&mut app, (160, 48)), top);
}

#[test]
fn the_windows_table_says_which_states_it_had_no_room_for() {
    let (_ledger, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    resize(&mut app, 80, 24);
    end(&mut app);
    let screen = rows(&mut app, (80, 24));
    let text = screen.join("\n");
    let header = screen
        .iter()
        .find(|r| r.contains("submitted (1h)"))
        .unwrap_or_else(|| panic!("no windows table:\n{text}"));
    assert!(
        header.trim_end_matches('│').trim_end().ends_with('›'),
        "the cut header has no mark:\n{text}"
    );
    assert!(
        text.contains("5 more states do not fit (completed_late … cancelled)"),
        "{text}"
    );
    // Wide, every state is a column and nothing is said.
    resize(&mut app, 160, 48);
    key(&mut app, KeyCode::Home);
    let wide = rows(&mut app, (160, 48)).join("\n");
    assert!(wide.contains("completed_late"), "{wide}");
    assert!(wide.contains("cancelled"), "{wide}");
    assert!(!wide.contains("do not fit"), "{wide}");
}

/// The list's title row and its header row on the screen.
fn title_and_header(screen: &[String]) -> (String, String) {
    let at = screen
        .iter()
        .position(|r| r.starts_with("┌ "))
        .expect("a list");
    (screen[at].clone(), screen[at + 1].clone())
}

#[test]
fn a_list_sorted_by_a_column_shows_it_and_says_so_at_every_width() {
    let (_ledger, mut app) = demo_app("ana");
    // Held: s twice, by arrival (a column that gives way early on a narrow screen).
    ch(&mut app, 's');
    ch(&mut app, 's');
    for all in [false, true] {
        if all {
            // All held, open or not: the longest title the view has.
            ch(&mut app, 'O');
        }
        for size in [(60, 20), (70, 24), (80, 24), (100, 30), (160, 48)] {
            let screen = rows(&mut app, size);
            let (title, header) = title_and_header(&screen);
            let text = screen.join("\n");
            assert!(
                header.contains("arrived at"),
                "{size:?}: sorted by arrival without its column:\n{text}"
            );
            assert!(
                title.contains("· by arrival ▲ "),
                "{size:?}: the sort is cut from the title:\n{text}"
            );
        }
    }
    // The column that went in its place is in the preview, as any cut column is.
    let screen = rows(&mut app, (80, 24)).join("\n");
    assert!(screen.contains("replacement"), "{screen}");
}

#[test]
fn aged_sorted_by_owner_shows_its_owners_in_order_at_every_width() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '3');
    // s three times: escalation, accepted, then owner.
    for _ in 0..3 {
        ch(&mut app, 's');
    }
    // By owner (and age, which a narrow screen keeps where it cuts the job id): names
    // in byte order, then the jobs nobody owns in the order they aged; `S` turns the
    // whole order round, the unowned first.
    let ascending = [
        ("ops:lee", "2h35m"),
        ("ops:maria", "3h50m"),
        ("unowned", "3h40m"),
        ("unowned", "2h30m"),
    ];
    let mut descending = ascending;
    descending.reverse();
    for (arrow, want) in [('▲', ascending), ('▼', descending)] {
        if arrow == '▼' {
            ch(&mut app, 'S');
        }
        for size in [(60, 20), (70, 24), (80, 24), (100, 30), (160, 48)] {
            let screen = rows(&mut app, size);
            let (title, header) = title_and_header(&screen);
            let text = screen.join("\n");
            assert!(
                header.contains("owner"),
                "{size:?}: sorted by owner without its column:\n{text}"
            );
            assert!(
                title.contains(&format!("· by owner {arrow} ")),
                "{size:?}: the sort is not in the title:\n{text}"
            );
            let top = screen.iter().position(|r| *r == header).unwrap() + 1;
            for (row, (owner, age)) in screen[top..top + want.len()].iter().zip(want) {
                assert!(
                    row.contains(&format!(" {owner} ")) && row.contains(age),
                    "{size:?}: {owner} {age} expected in owner order {arrow}:\n{text}"
                );
            }
        }
    }
}
