//! A refresh (the ledger changed underneath, or the clock moved) never counts a large
//! list under a filter on the console's thread: at a million rows that count took
//! longer than a frame, and no key was answered meanwhile. The count is read off the
//! thread, the screen says it is being made until it comes, and it is the count the
//! console would have made in place; a count of a list whose filter changed since, or
//! of a finding's jobs closed since, never lands. Closing a finding's jobs stops what
//! is read of them.

mod support;

use std::path::Path;

use jobledger::console::model::counts::Count;
use jobledger::console::{Action, App, Tab, update};
use jobledger::demo;
use jobledger::ingest;
use jobledger::store::{Finding, Ledger};
use ratatui::crossterm::event::KeyCode;
use support::terminal::{
    ch, demo_app, key, open_app, open_finding, render_at, selected_callback, shows, take_while,
    type_text,
};

/// A held callback for booking-1053, written by another connection: the ledger's data
/// version moves, and the next tick refreshes.
const LATE_HELD: &str = r#"{"event":"callback","delivery_id":"d-1053-late","job_id":"booking-1053","attempt":1,"outcome":"success","at":"2026-11-27T16:59:00Z"}"#;

/// A job accepted with no terminal record yet: one more job missing one.
const NEW_JOB: &str = r#"{"event":"job_accepted","job_id":"booking-2001","at":"2026-11-27T16:58:00Z","timeout_s":120}"#;

/// Writes `line` into the ledger at `path` on a connection of its own.
fn arrive(path: &Path, line: &str) {
    let mut writer = Ledger::open(path).expect("the ledger opens");
    ingest::ingest(
        &mut writer,
        [line, "\n"].concat().as_bytes(),
        demo::demo_now(),
        |_| {},
    )
    .expect("the line goes in");
}

/// The count of the list on screen.
fn count(app: &App) -> Count {
    app.model().list().expect("a list is shown").count()
}

/// The count of All callbacks under `filter` as a console counts it in place.
fn counted_in_place(path: &Path, keys: &str) -> Count {
    let mut app = open_app(path, "ana");
    type_text(&mut app, keys);
    key(&mut app, KeyCode::Enter);
    assert!(!app.searching(), "read in place");
    count(&app)
}

/// The demo's console on All callbacks under `disposition:hold`, every list counted
/// as large, a tick after a held callback arrived: its refresh reads off the thread.
fn refreshing_held_in_all_callbacks() -> (support::terminal::DemoLedger, App) {
    let (ledger, mut app) = demo_app("ana");
    type_text(&mut app, "5/disposition:hold");
    key(&mut app, KeyCode::Enter);
    app.search_off_thread_from(1);
    arrive(&ledger.path, LATE_HELD);
    update(&mut app, Action::Tick);
    (ledger, app)
}

#[test]
fn a_refresh_counts_a_large_filtered_list_off_the_console_thread() {
    let (ledger, mut app) = demo_app("ana");
    type_text(&mut app, "5/disposition:hold");
    key(&mut app, KeyCode::Enter);
    shows(&app, "5 All callbacks 2/15");
    app.search_off_thread_from(1); // every list counts as large
    arrive(&ledger.path, LATE_HELD);
    update(&mut app, Action::Tick);
    assert!(
        count(&app).counting,
        "the refresh counted the filtered list on the console's thread"
    );
    assert!(app.searching(), "nothing is read off the thread");
    // The old count is not shown as this one while it is made, at any size.
    for (width, height) in [(80, 24), (160, 48)] {
        let screen = render_at(&app, width, height);
        assert!(screen.contains("5 All callbacks …"), "{screen}");
        assert!(screen.contains("All callbacks · counting"), "{screen}");
        assert!(!screen.contains("2/15"), "the count before:\n{screen}");
    }
    let unfiltered = app.model().lists.of(Tab::Held).expect("a list").count();
    assert!(
        !unfiltered.counting,
        "a count the ledger keeps is read in place"
    );
    take_while(&mut app, App::searching);
    assert_eq!(
        count(&app),
        counted_in_place(&ledger.path, "5/disposition:hold")
    );
    // Its page was read again there too: the new held callback is listed.
    let screen = shows(&app, "5 All callbacks 3/16");
    assert!(screen.contains("#16"), "{screen}");
    assert!(!screen.contains("counting"), "{screen}");
}

#[test]
fn a_refresh_counts_a_large_findings_jobs_off_the_console_thread() {
    let (ledger, mut app) = demo_app("ana");
    open_finding(&mut app, Finding::MissingTerminal);
    type_text(&mut app, "/job:booking-");
    key(&mut app, KeyCode::Enter);
    let before = count(&app);
    app.search_off_thread_from(1);
    arrive(&ledger.path, NEW_JOB);
    update(&mut app, Action::Tick);
    assert!(
        count(&app).counting,
        "the refresh counted the finding's jobs on the console's thread"
    );
    let screen = render_at(&app, 160, 48);
    assert!(
        screen.contains("Reconcile · counting the rows that match…"),
        "{screen}"
    );
    take_while(&mut app, App::searching);
    let after = count(&app);
    assert_eq!(after.all, before.all + 1, "{after:?} after {before:?}");
    let mut in_place = open_app(&ledger.path, "ana");
    open_finding(&mut in_place, Finding::MissingTerminal);
    type_text(&mut in_place, "/job:booking-");
    key(&mut in_place, KeyCode::Enter);
    assert_eq!(after, count(&in_place));
}

#[test]
fn a_refresh_count_of_a_filter_changed_since_never_lands() {
    let (ledger, mut app) = refreshing_held_in_all_callbacks();
    assert!(app.searching());
    // Let the reading end and send what it read before the filter changes (in place).
    std::thread::sleep(std::time::Duration::from_millis(300));
    app.search_off_thread_from(i64::MAX);
    type_text(&mut app, "/ outcome:failure");
    key(&mut app, KeyCode::Enter);
    let changed = count(&app);
    assert_eq!(changed, counted_in_place(&ledger.path, "5/outcome:failure"));
    take_while(&mut app, App::searching);
    assert_eq!(count(&app), changed);
    let screen = render_at(&app, 160, 48);
    assert!(screen.contains("booking-1043"), "{screen}");
    assert!(
        !screen.contains("#16"),
        "the held rows came back:\n{screen}"
    );
}

#[test]
fn keys_pressed_while_a_refresh_reads_the_page_keep_the_page_where_they_took_it() {
    let (_ledger, mut app) = refreshing_held_in_all_callbacks();
    ch(&mut app, 'j');
    let moved_to = selected_callback(&app).seq;
    std::thread::sleep(std::time::Duration::from_millis(300));
    take_while(&mut app, App::searching);
    assert_eq!(
        selected_callback(&app).seq,
        moved_to,
        "the refresh's page undid the key"
    );
    // Its rows were read again from where the key took the page.
    let screen = shows(&app, "5 All callbacks 3/16");
    assert!(screen.contains("#16"), "{screen}");
}

/// Closing a finding's jobs (q back to the findings, another tab, the Reconcile tab
/// again) stops the search of their filter at once: nothing waits for it any more.
#[test]
fn closing_a_findings_jobs_stops_their_search() {
    let (_ledger, mut app) = demo_app("ana");
    app.search_off_thread_from(1);
    // Each key that closes them: q, another tab, the Reconcile tab again.
    for close in ['q', '1', '6'] {
        open_finding(&mut app, Finding::MissingTerminal);
        type_text(&mut app, "/job:booking-");
        key(&mut app, KeyCode::Enter);
        assert!(
            app.searching(),
            "{close}: the search did not leave the thread"
        );
        let stopped = app.searches_stopped();
        ch(&mut app, close);
        assert!(!app.searching(), "{close}: the closed jobs' search runs on");
        assert!(
            app.searches_stopped() > stopped,
            "{close}: nothing was stopped"
        );
        take_while(&mut app, App::searching);
    }
}

#[test]
fn closing_a_findings_jobs_stops_a_refreshs_count_of_them() {
    let (ledger, mut app) = demo_app("ana");
    open_finding(&mut app, Finding::MissingTerminal);
    app.search_off_thread_from(1);
    arrive(&ledger.path, NEW_JOB);
    update(&mut app, Action::Tick);
    assert!(
        app.searching(),
        "the finding's jobs are not counted off the thread"
    );
    key(&mut app, KeyCode::Esc);
    assert!(app.model().findings.jobs.is_none());
    assert!(!app.searching(), "the closed jobs' count runs on");
}

/// A list shown while its count is being made has room sized by the rows it holds:
/// its page is read as tall as the list can be, so that rows come in with the count.
#[test]
fn a_tab_shown_while_its_count_is_made_reads_a_page_as_tall_as_the_list_can_be() {
    let (ledger, mut app) = demo_app("ana");
    type_text(&mut app, "5/disposition:hold");
    key(&mut app, KeyCode::Enter);
    ch(&mut app, '1');
    app.search_off_thread_from(1);
    arrive(&ledger.path, LATE_HELD);
    update(&mut app, Action::Tick);
    ch(&mut app, '5');
    assert!(
        count(&app).counting,
        "All callbacks is not counted off the thread"
    );
    take_while(&mut app, App::searching);
    let screen = shows(&app, "5 All callbacks 3/16");
    assert!(screen.contains("#16"), "{screen}");
    assert!(!screen.contains("more below"), "{screen}");
}

/// The message line that said a search's count says the count a refresh made after
/// it, never the one before beside the new one in the title.
#[test]
fn the_count_a_search_said_is_said_again_as_a_refresh_counts_it() {
    let (ledger, mut app) = demo_app("ana");
    app.search_off_thread_from(1);
    type_text(&mut app, "5/disposition:hold");
    key(&mut app, KeyCode::Enter);
    take_while(&mut app, App::searching);
    shows(&app, "2/15 rows match");
    arrive(&ledger.path, LATE_HELD);
    update(&mut app, Action::Tick);
    take_while(&mut app, App::searching);
    let screen = shows(&app, "5 All callbacks 3/16");
    assert!(screen.contains("3/16 rows match"), "{screen}");
    assert!(!screen.contains("2/15"), "the count before:\n{screen}");
}
