//! New since you looked, in the console: a reviewer who leaves the Held list and comes
//! back (another day, another machine) finds what came or changed since marked `new`
//! on its rows and counted on its tab, and `n` goes to them; a colleague who never
//! looked sees no such marks. On a ledger file and on the same ledger on PostgreSQL.

mod support;

use jobledger::clock::Clock;
use jobledger::console::{Action, App, Tab, update};
use jobledger::review::{self, AnswerRequest};
use jobledger::store::{Ledger, Location, OpenMode};
use ratatui::crossterm::event::KeyCode;
use support::fixture::{booking_afternoon, demo_queue, now};
use support::postgres::PgServer;
use support::terminal::{ch, key, render_at, resize, selected_callback};

fn console(location: &Location, reviewer: &str) -> App {
    let mut app = App::open(location, Clock::Fixed(now()), reviewer.to_owned(), false)
        .expect("the console opens");
    resize(&mut app, 160, 48);
    app
}

fn tab_line(app: &App) -> String {
    render_at(app, 160, 48)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The Held tab's title in the tab bar.
fn held_tab(app: &App) -> String {
    tab_line(app)
        .split('│')
        .find(|t| t.contains("Held"))
        .unwrap_or_default()
        .to_owned()
}

/// Bo looks at Held (and leaves it); the demo queue comes and Ana answers C2.
fn bo_looked_then_things_changed(location: &Location) {
    let mut ledger = Ledger::open_at(location, OpenMode::ReadWrite).expect("the ledger opens");
    jobledger::ingest::ingest(&mut ledger, booking_afternoon().as_bytes(), now(), |_| {}).unwrap();
    drop(ledger);
    let mut bo = console(location, "bo");
    update(&mut bo, Action::ShowTab(Tab::Quarantined));
    ch(&mut bo, 'q');
    drop(bo);
    let mut ledger = Ledger::open_at(location, OpenMode::ReadWrite).unwrap();
    jobledger::ingest::ingest(&mut ledger, demo_queue().as_bytes(), now(), |_| {}).unwrap();
    review::answer(
        &mut ledger,
        &AnswerRequest {
            seq: 2,
            verdict: "single_effect",
            note: "",
            reviewer: "ana",
            link_job: None,
            seen_answer: None,
        },
        now(),
    )
    .unwrap();
}

fn new_rows_are_marked_for_who_looked(location: &Location) {
    bo_looked_then_things_changed(location);
    let mut bo = console(location, "bo");
    let tabs = tab_line(&bo);
    assert!(tabs.contains("Held 1/2 2 new"), "{tabs}");
    // Leaving the console on Quarantined was looking at it: what the queue brought is new.
    assert!(tabs.contains("Quarantined 4/4 3 new"), "{tabs}");
    // The answered C2 is among all the held rows: `O` shows it, marked.
    ch(&mut bo, 'O');
    let shown = render_at(&bo, 160, 48);
    let marked: Vec<&str> = shown.lines().filter(|l| l.contains(" new #")).collect();
    assert_eq!(marked.len(), 2, "{shown}");
    key(&mut bo, KeyCode::Home);
    let first = selected_callback(&bo).seq;
    ch(&mut bo, 'n');
    let next = selected_callback(&bo).seq;
    assert_ne!(first, next);
    assert!(
        shown.lines().any(|l| l.contains(&format!("new #{next} "))),
        "n went to #{next}, not a new row:\n{shown}"
    );
    // Leaving the list is having looked: back on it, nothing is new.
    update(&mut bo, Action::ShowTab(Tab::Aged));
    update(&mut bo, Action::ShowTab(Tab::Held));
    assert!(!held_tab(&bo).contains(" new"), "{}", tab_line(&bo));

    // Ana never looked: nothing is marked for her.
    let ana = console(location, "ana");
    assert!(!tab_line(&ana).contains(" new"), "{}", tab_line(&ana));
}

#[test]
fn new_rows_are_marked_for_who_looked_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::parse(dir.path().join("l.db").as_os_str()).unwrap();
    new_rows_are_marked_for_who_looked(&location);
}

#[test]
fn new_rows_are_marked_for_who_looked_on_postgres() {
    let server = PgServer::shared();
    let url = server.url(&server.fresh_database("console_looks"));
    let location = Location::parse(url.as_ref()).expect("a server URL");
    new_rows_are_marked_for_who_looked(&location);
}

#[test]
fn the_new_rows_at_three_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::parse(dir.path().join("l.db").as_os_str()).unwrap();
    bo_looked_then_things_changed(&location);
    let mut bo = console(&location, "bo");
    ch(&mut bo, 'O');
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        resize(&mut bo, width, height);
        let name = format!("new_rows_{width}x{height}");
        insta::assert_snapshot!(
            name,
            render_at(&bo, width, height).replace(&dir.path().display().to_string(), "[DIR]")
        );
    }
}
