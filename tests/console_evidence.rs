//! Evidence to decide a held callback: on a generated ledger, the held duplicate's
//! comparison (`C`) sets the replacement attempt's callback beside it, payload field by
//! field, with equal and different values marked; the preview says what the job's
//! other callbacks report in one line; and the answer form keeps the timeout, the
//! arrival, the replacement and that line in sight at 80×24. On a SQLite file and on
//! the same ledger on PostgreSQL.

mod support;

use jobledger::clock::Clock;
use jobledger::console::{App, Overlay, update};
use jobledger::decision::ReasonCode;
use jobledger::demo::synthetic::{StreamOrder, stream_start, write_ordered};
use jobledger::store::{Ledger, Location, OpenMode};
use ratatui::crossterm::event::KeyCode;
use support::fixture::now;
use support::postgres::PgServer;
use support::terminal::{ch, key, render_at, resize, selected_callback};

/// Jobs in the generated stream: enough for held duplicates with a replacement.
const JOBS: u64 = 400;

fn generated_stream() -> Vec<u8> {
    let mut out = Vec::new();
    write_ordered(
        &mut out,
        JOBS,
        7,
        stream_start(JOBS, now()),
        StreamOrder::Time,
    )
    .expect("the stream is written");
    out
}

fn filled(location: &Location) {
    let mut ledger = Ledger::open_at(location, OpenMode::ReadWrite).expect("the ledger opens");
    jobledger::ingest::ingest(&mut ledger, &generated_stream()[..], now(), |_| {})
        .expect("the stream goes in");
}

/// Moves the Held list's selection to the first possible duplicate whose replacement
/// reported too; fails when the list has none.
fn select_a_reported_duplicate(app: &mut App) {
    for _ in 0..200 {
        let row = selected_callback(app);
        if row.reason == ReasonCode::PossibleDuplicateEffect && row.replacement.is_some() {
            let shown = render_at(app, 160, 48);
            if shown.contains("replacement, attempt") {
                return;
            }
        }
        key(app, KeyCode::Down);
    }
    panic!("no held duplicate with a reporting replacement in the generated ledger");
}

fn evidence_is_set_beside(location: &Location) {
    let mut app = App::open(location, Clock::Fixed(now()), "ana".to_owned(), false)
        .expect("the console opens");
    resize(&mut app, 160, 48);
    select_a_reported_duplicate(&mut app);
    let held = selected_callback(&app);
    let job = held.job_id.clone().expect("a held duplicate names its job");

    // The preview: one line, what the replacement's callback reported and how its
    // payload stands to this one's.
    let wide = render_at(&app, 160, 48);
    let beside = wide
        .lines()
        .find(|l| l.contains("beside it"))
        .unwrap_or_else(|| panic!("no 'beside it' in the preview:\n{wide}"));
    assert!(
        beside.contains(&format!(r#"ref differs "{job}/1" ≠ "{job}/2""#)),
        "{beside}"
    );

    // The comparison: the replacement's callback as a side of its own, its payload
    // beside the held one's, the differing value and the equal outcome marked.
    ch(&mut app, 'C');
    assert!(matches!(app.model().overlay, Overlay::Compare(_)));
    let compare = render_at(&app, 160, 48);
    for needle in [
        ", the replacement",
        "Beside it: #",
        &format!("\"{job}/1\""),
        &format!("\"{job}/2\""),
        " = success",
        " ≠ ",
    ] {
        assert!(compare.contains(needle), "{needle:?} missing:\n{compare}");
    }
    key(&mut app, KeyCode::Esc);

    // The answer form at 80×24 keeps the facts and the reading in sight.
    resize(&mut app, 80, 24);
    ch(&mut app, 'a');
    let form = render_at(&app, 80, 24);
    for needle in [
        "timeout ",
        "arrived ",
        "replacement #2",
        "beside it #",
        "single_effect",
    ] {
        assert!(form.contains(needle), "{needle:?} missing:\n{form}");
    }
    update(&mut app, jobledger::console::Action::Back);
}

#[test]
fn a_held_duplicate_is_read_beside_its_replacements_report_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::parse(dir.path().join("l.db").as_os_str()).unwrap();
    filled(&location);
    evidence_is_set_beside(&location);
}

#[test]
fn a_held_duplicate_is_read_beside_its_replacements_report_on_postgres() {
    let server = PgServer::shared();
    let url = server.url(&server.fresh_database("evidence"));
    let location = Location::parse(url.as_ref()).expect("a server URL");
    filled(&location);
    evidence_is_set_beside(&location);
}
