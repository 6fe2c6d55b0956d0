//! Claims in the console: `t` on a held or quarantined case says "on it" to everyone,
//! on its row; a colleague's console shows it within a second, by its ticks alone; the
//! colleague is told before writing an answer over it, cannot claim it, and their bulk
//! answer leaves it out naming the claimant; `t` again releases it. On a ledger file
//! and on the same ledger on PostgreSQL. Snapshots of the claimed row at three sizes.

mod support;

use std::time::{Duration, Instant};

use jobledger::clock::Clock;
use jobledger::console::{Action, App, update};
use jobledger::store::{Ledger, Location, OpenMode};
use ratatui::crossterm::event::KeyCode;
use support::fixture::{booking_afternoon, demo_queue, now};
use support::postgres::PgServer;
use support::terminal::{ch, key, render_at, resize, selected_callback};

/// How soon a colleague's claim must show, by ticks alone.
const WITHIN: Duration = Duration::from_secs(1);

fn filled(location: &Location) {
    let mut ledger = Ledger::open_at(location, OpenMode::ReadWrite).expect("the ledger opens");
    for stream in [booking_afternoon(), demo_queue()] {
        jobledger::ingest::ingest(&mut ledger, stream.as_bytes(), now(), |_| {})
            .expect("the demo's streams go in");
    }
}

fn console(location: &Location, reviewer: &str) -> App {
    let mut app = App::open(location, Clock::Fixed(now()), reviewer.to_owned(), false)
        .expect("the console opens");
    resize(&mut app, 160, 48);
    app
}

fn screen(app: &App) -> String {
    render_at(app, 160, 48)
}

/// Ticks `app` until `done` holds; fails after `WITHIN` (and a margin for a loaded
/// machine: the tick reads the ledger's commit counter).
fn tick_until(app: &mut App, what: &str, done: impl Fn(&App) -> bool) {
    let began = Instant::now();
    while !done(app) {
        assert!(
            began.elapsed() < WITHIN * 3,
            "{what} did not show within {WITHIN:?}:\n{}",
            screen(app)
        );
        update(app, Action::Tick);
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn claims_between_two_consoles(location: &Location) {
    let mut ana = console(location, "ana");
    let mut bo = console(location, "bo");
    let c2 = selected_callback(&ana).seq;
    assert_eq!(selected_callback(&bo).seq, c2);

    ch(&mut ana, 't');
    let shown = screen(&ana);
    assert!(shown.contains("is yours (on it) until"), "{shown}");
    assert!(shown.contains("on it: ana"), "{shown}");

    tick_until(&mut bo, "ana's claim on bo's console", |app| {
        screen(app).contains("on it: ana")
    });

    // Bo cannot take it, and is told who has it.
    ch(&mut bo, 't');
    let refused = screen(&bo);
    assert!(
        refused.contains(&format!("callback #{c2} is claimed by ana")),
        "{refused}"
    );
    // Bo's answer form says ana is on it before anything is written.
    ch(&mut bo, 'a');
    let form = screen(&bo);
    assert!(form.contains("⚠ ana is on it"), "{form}");
    key(&mut bo, KeyCode::Esc);

    // Bo's bulk answer of every held row leaves ana's out and names her.
    ch(&mut bo, 'V');
    ch(&mut bo, 'a');
    key(&mut bo, KeyCode::Enter);
    let plan = screen(&bo);
    assert!(plan.contains("claimed by ana"), "{plan}");
    key(&mut bo, KeyCode::Esc);

    // `t` again releases it, and bo's console shows it free.
    ch(&mut ana, 't');
    assert!(screen(&ana).contains("released"), "{}", screen(&ana));
    tick_until(&mut bo, "ana's release on bo's console", |app| {
        !screen(app).contains("on it: ana")
    });
}

#[test]
fn a_claim_shows_on_a_colleagues_console_and_keeps_them_off_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::parse(dir.path().join("l.db").as_os_str()).unwrap();
    filled(&location);
    claims_between_two_consoles(&location);
    // Claims are evidence: the file refuses to rewrite them.
    let file = rusqlite::Connection::open(dir.path().join("l.db")).unwrap();
    for statement in ["UPDATE claims SET reviewer = 'x'", "DELETE FROM claims"] {
        let e = file
            .execute(statement, [])
            .expect_err("a claim was rewritten");
        assert!(e.to_string().contains("claims are append-only"), "{e}");
    }
}

#[test]
fn a_claim_shows_on_a_colleagues_console_and_keeps_them_off_on_postgres() {
    let server = PgServer::shared();
    let url = server.url(&server.fresh_database("console_claims"));
    let location = Location::parse(url.as_ref()).expect("a server URL");
    filled(&location);
    claims_between_two_consoles(&location);
}

#[test]
fn the_claimed_row_at_three_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::parse(dir.path().join("l.db").as_os_str()).unwrap();
    filled(&location);
    let mut ana = console(&location, "ana");
    ch(&mut ana, 't');
    key(&mut ana, KeyCode::Down);
    key(&mut ana, KeyCode::Up);
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        resize(&mut ana, width, height);
        let name = format!("claimed_row_{width}x{height}");
        insta::assert_snapshot!(
            name,
            render_at(&ana, width, height).replace(&dir.path().display().to_string(), "[DIR]")
        );
    }
}
