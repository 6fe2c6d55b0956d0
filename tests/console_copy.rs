//! `y` and `Y` put the selected row's job or delivery id on the terminal's clipboard
//! (OSC 52, the bytes base64-encoded) and say so; a click selects a row or a tab.

mod support;

use jobledger::console::terminal::write_clipboard;
use jobledger::console::{self, Action, App, Tab, update};
use jobledger::store::Ledger;
use jobledger::{demo, ingest};
use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use std::io::Write;
use support::recorder::Recorder;
use support::terminal::{ch, demo_app, demo_ledger, lines_at, open_app, resize, selected_callback};

/// Presses `key` and returns what the console then writes to the terminal outside a
/// frame (through the terminal loop's own writer).
fn press_and_write(app: &mut App, key: char) -> Vec<u8> {
    ch(app, key);
    let mut recorder = Recorder::default();
    write_clipboard(app, &mut recorder).unwrap();
    recorder.flush().unwrap();
    recorder.bytes()
}

/// Appends `events` to the ledger at `path`, one NDJSON line each.
fn ingest_callbacks(path: &std::path::Path, events: &[serde_json::Value]) {
    let mut stream = Vec::new();
    for event in events {
        writeln!(stream, "{event}").unwrap();
    }
    let mut ledger = Ledger::open(path).unwrap();
    ingest::ingest(&mut ledger, stream.as_slice(), demo::demo_now(), |_| {}).unwrap();
}

fn flash(app: &App) -> String {
    app.flash().map(|f| f.text.clone()).unwrap_or_default()
}

fn osc52(base64: &str) -> Vec<u8> {
    format!("\x1b]52;c;{base64}\x07").into_bytes()
}

#[test]
fn y_copies_the_job_id_and_capital_y_the_delivery_id_of_the_selected_callback() {
    let (_ledger, mut app) = demo_app("ana");
    let row = selected_callback(&app);
    assert_eq!(row.job_id.as_deref(), Some("booking-1042"));
    // base64 of "booking-1042"
    assert_eq!(press_and_write(&mut app, 'y'), osc52("Ym9va2luZy0xMDQy"));
    assert_eq!(flash(&app), "copied job id booking-1042");
    assert!(app.flash().is_some_and(|f| !f.error));

    assert_eq!(row.delivery_id.as_deref(), Some("d-1042-a"));
    // base64 of "d-1042-a", padded
    assert_eq!(press_and_write(&mut app, 'Y'), osc52("ZC0xMDQyLWE="));
    assert_eq!(flash(&app), "copied delivery id d-1042-a");
    // Written once: the next key writes nothing more.
    assert!(press_and_write(&mut app, 'j').is_empty());
}

#[test]
fn y_in_a_jobs_view_copies_the_job_id_and_capital_y_copies_nothing() {
    let (_ledger, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Aged));
    let job = app.model().list().and_then(|l| l.job()).unwrap().to_owned();
    let bytes = press_and_write(&mut app, 'y');
    assert_eq!(
        bytes,
        osc52(&jobledger::console::clipboard::base64(job.as_bytes()))
    );
    assert_eq!(flash(&app), format!("copied job id {job}"));
    assert!(press_and_write(&mut app, 'Y').is_empty());
    assert_eq!(
        flash(&app),
        "the Aged view lists jobs, which have no delivery id: nothing copied"
    );
}

#[test]
fn with_no_row_nothing_is_copied_and_the_message_says_so() {
    let (_ledger, mut app) = demo_app("ana");
    for c in "/no-such-row".chars() {
        ch(&mut app, c);
    }
    console::press(
        &mut app,
        &ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Enter),
    );
    assert!(press_and_write(&mut app, 'y').is_empty());
    assert_eq!(flash(&app), "no row selected: nothing copied");
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    assert!(press_and_write(&mut app, 'Y').is_empty());
    assert_eq!(flash(&app), "no row selected: nothing copied");
}

#[test]
fn a_hostile_id_is_copied_whole_in_base64_and_shown_inert() {
    let ledger = demo_ledger();
    let job = "\x1b]0;owned\x07job\x1b[2J";
    let delivery = "d-\x07evil\x1b\\";
    ingest_callbacks(
        &ledger.path,
        &[
            serde_json::json!({"event": "callback", "delivery_id": delivery, "job_id": job,
            "outcome": "success", "at": "2026-11-27T16:10:00Z", "payload": {}}),
        ],
    );
    let mut app = open_app(&ledger.path, "ana");
    update(&mut app, Action::ShowTab(Tab::Quarantined));
    update(&mut app, Action::Move(jobledger::console::Move::End));
    let row = selected_callback(&app);
    assert_eq!(row.job_id.as_deref(), Some(job));

    for (key, id) in [('y', job), ('Y', delivery)] {
        let bytes = press_and_write(&mut app, key);
        let payload = bytes
            .strip_prefix(b"\x1b]52;c;".as_slice())
            .and_then(|rest| rest.strip_suffix(b"\x07".as_slice()))
            .unwrap_or_else(|| panic!("not one OSC 52 sequence: {bytes:?}"));
        assert!(
            payload
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(b)),
            "a raw byte inside the base64: {payload:?}"
        );
        assert_eq!(
            payload,
            jobledger::console::clipboard::base64(id.as_bytes()).as_bytes()
        );
        let said = flash(&app);
        assert!(!said.contains(['\x1b', '\x07']), "shown raw: {said:?}");
        assert!(
            said.contains("^["),
            "shown without its ESC made visible: {said:?}"
        );
    }
}

fn click(app: &mut App, column: u16, row: u16) {
    console::mouse(
        app,
        &MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        },
    );
}

const SIZES: [(u16, u16); 2] = [(160, 48), (80, 24)];

#[test]
fn a_click_on_a_tab_title_shows_that_view() {
    for size in SIZES {
        let (_ledger, mut app) = demo_app("ana");
        resize(&mut app, size.0, size.1);
        // Every column of the bar as drawn: between dividers lies one tab (its title
        // and the space either side); a divider belongs to none.
        let bar: Vec<char> = lines_at(app.model(), size.0, size.1)[0].chars().collect();
        let mut tab = 0;
        for (x, &drawn) in bar.iter().enumerate() {
            update(&mut app, Action::ShowTab(Tab::Failed));
            click(&mut app, u16::try_from(x).unwrap(), 0);
            if drawn == '│' {
                assert_eq!(app.tab(), Tab::Failed, "a click on a divider at {size:?}");
                tab += 1;
            } else {
                assert_eq!(app.tab(), Tab::ALL[tab], "column {x} at {size:?}");
            }
        }
        assert!(tab >= 4, "too few tabs drawn at {size:?}");
        // A click on the status line below the bar changes nothing.
        click(&mut app, 3, 1);
        assert_eq!(app.tab(), Tab::ALL[tab], "a click off the bar at {size:?}");
    }
}

#[test]
fn a_click_on_a_row_selects_it_even_after_the_list_scrolled() {
    for size in SIZES {
        // More callbacks than a 48-line screen shows, so the list scrolls.
        let ledger = demo_ledger();
        let more: Vec<_> = (0..60)
            .map(|i| {
                serde_json::json!({"event": "callback", "delivery_id": format!("d-more-{i}"),
                    "job_id": format!("ghost-{i}"), "outcome": "success",
                    "at": "2026-11-27T16:10:00Z", "payload": {}})
            })
            .collect();
        ingest_callbacks(&ledger.path, &more);
        let mut app = open_app(&ledger.path, "ana");
        resize(&mut app, size.0, size.1);
        update(&mut app, Action::ShowTab(Tab::Callbacks));
        // Scroll down so the page no longer starts at the first callback.
        update(&mut app, Action::Move(jobledger::console::Move::End));
        let lines = lines_at(app.model(), size.0, size.1);
        assert!(lines[2].contains("more above"), "not scrolled at {size:?}");
        // Screen rows 0 and 1: tabs and status; 2: the list's top border; 3: header.
        let target = 5;
        let drawn = lines[target].clone();
        assert!(!drawn.contains('▶'), "the target row is already selected");
        click(&mut app, 10, u16::try_from(target).unwrap());
        let lines = lines_at(app.model(), size.0, size.1);
        assert!(
            lines[target].starts_with("│▶"),
            "row {target} not selected at {size:?}:\n{}",
            lines.join("\n")
        );
        assert_eq!(lines[target].replace('▶', " "), drawn.replace('▶', " "));
        // A click on the header or the border selects nothing new.
        click(&mut app, 10, 3);
        click(&mut app, 0, 6);
        let after = lines_at(app.model(), size.0, size.1);
        assert!(
            after[target].starts_with("│▶"),
            "moved by a click off the rows"
        );
    }
}

#[test]
fn when_tabs_on_the_left_give_way_a_click_selects_the_tab_drawn_under_it() {
    let (_ledger, mut app) = demo_app("ana");
    resize(&mut app, 80, 24);
    let last = *Tab::ALL.last().unwrap();
    update(&mut app, Action::ShowTab(last));
    let bar = lines_at(app.model(), 80, 24)[0].clone();
    let drawn = bar.trim_start();
    assert!(
        drawn.starts_with('‹'),
        "no tab gave way at 80 columns: {bar}"
    );
    // The first title drawn starts with its tab's number.
    let first: usize = drawn
        .trim_start_matches('‹')
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(first > 1, "{bar}");
    let mut tab = first - 1;
    for (x, c) in bar.chars().enumerate() {
        update(&mut app, Action::ShowTab(last));
        click(&mut app, u16::try_from(x).unwrap(), 0);
        if c == '│' {
            assert_eq!(app.tab(), last, "a click on a divider: {bar}");
            tab += 1;
        } else {
            assert_eq!(app.tab(), Tab::ALL[tab], "column {x} of {bar}");
        }
    }
}

#[test]
fn a_rejected_line_names_no_job_so_nothing_is_copied_and_the_message_says_why() {
    let (_ledger, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Rejected));
    assert!(press_and_write(&mut app, 'y').is_empty());
    assert_eq!(
        flash(&app),
        "a row of the Rejected view names no job: nothing copied"
    );
}

#[test]
fn y_on_an_outbox_row_copies_the_job_the_request_is_for() {
    let (ledger, mut app) = demo_app("ana");
    let mut writer = Ledger::open(&ledger.path).unwrap();
    jobledger::outbox::request(
        &mut writer,
        jobledger::outbox::RequestKind::Retry,
        "booking-1043",
        "ops:kim",
        demo::demo_now(),
    )
    .unwrap();
    update(&mut app, Action::Tick);
    update(&mut app, Action::ShowTab(Tab::Outbox));
    assert_eq!(
        press_and_write(&mut app, 'y'),
        osc52("Ym9va2luZy0xMDQz"),
        "{}",
        flash(&app)
    );
    assert_eq!(flash(&app), "copied job id booking-1043");
}
