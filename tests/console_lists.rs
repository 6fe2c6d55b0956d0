//! The console's lists: rows arriving underneath, filters kept per view, and paging by
//! keyset to both ends of a long list.

mod support;

use std::fmt::Write as _;

use jobledger::console::{self, Action, Tab, update};
use jobledger::demo;
use jobledger::ingest;
use jobledger::outbox::{RequestKind, request};
use jobledger::store::Ledger;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use support::terminal::{ch, demo_app, key, open_app, render, shows, type_text};

#[test]
fn rows_arriving_underneath_appear_and_the_selection_stays() {
    let (ledger, mut app) = demo_app("ana");
    ch(&mut app, 'j'); // select #11
    let mut writer = Ledger::open(&ledger.path).unwrap();
    let line = r#"{"event":"callback","delivery_id":"d-1053-late","job_id":"booking-1053","attempt":1,"outcome":"success","at":"2026-11-27T16:59:00Z"}"#;
    ingest::ingest(
        &mut writer,
        [line, "\n"].concat().as_bytes(),
        demo::demo_now(),
        |_| {},
    )
    .unwrap();
    update(&mut app, Action::Tick);
    let text = shows(&app, "1 Held 3");
    assert!(text.contains("#16"), "{text}");
    assert!(text.contains("▶ #11"), "selection moved: {text}");
}

#[test]
fn filters_are_kept_per_view() {
    let (_ledger, mut app) = demo_app("ana");
    type_text(&mut app, "5/1054"); // view 5, then its filter
    key(&mut app, KeyCode::Enter);
    let text = shows(&app, "5 All callbacks 2/15");
    assert!(!text.contains("booking-1041"), "{text}");
    ch(&mut app, '1');
    assert!(render(&app).contains("booking-1042"));
    ch(&mut app, '5');
    assert!(render(&app).contains("filtered by 1054"));
    key(&mut app, KeyCode::Esc);
    assert!(render(&app).contains("booking-1041"));
}

#[test]
fn tab_from_reconcile_reaches_outbox_then_rejected_and_lists_the_demo_rejected_event() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '6');
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.model().tab, Tab::Outbox);
    shows(&app, "The outbox is empty");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.model().tab, Tab::Rejected);
    // The demo's two: booking-1043 submitted again for other input (line 31), and an
    // event for a job never accepted (line 80).
    let text = shows(&app, "8 Rejected 2");
    let row = text
        .lines()
        .find(|line| line.contains(" 80 "))
        .unwrap_or_else(|| panic!("line 80 is not listed:\n{text}"));
    for shown in [
        "attempt_timed_out",
        r#"no job "booking-0000" has been accepted"#,
    ] {
        assert!(row.contains(shown), "{shown} in {row}");
    }
    // The filter matches the job id (in the line) and the reason, as elsewhere.
    for query in ["/booking-0000", "/been accepted"] {
        type_text(&mut app, query);
        key(&mut app, KeyCode::Enter);
        shows(&app, "8 Rejected 1/2");
        key(&mut app, KeyCode::Esc);
    }
    type_text(&mut app, "/nothing-like-it");
    key(&mut app, KeyCode::Enter);
    shows(&app, "Nothing here matches the filter nothing-like-it");
}

#[test]
fn the_outbox_lists_a_request_filters_it_and_opens_its_job() {
    let (ledger, mut app) = demo_app("ana");
    let mut writer = Ledger::open(&ledger.path).unwrap();
    request(
        &mut writer,
        RequestKind::Retry,
        "booking-1043",
        "ops:kim",
        demo::demo_now(),
    )
    .unwrap();
    update(&mut app, Action::Tick);
    ch(&mut app, '7');
    let text = shows(&app, "7 Outbox 1");
    assert!(
        text.contains("booking-1043") && text.contains("ops:kim"),
        "{text}"
    );
    // Paged by key: nothing lies beyond the one request.
    assert!(
        !text.contains("more below") && !text.contains("more above"),
        "{text}"
    );
    // Text with a colon is looked for quoted (`ops:kim` unquoted is no query).
    type_text(&mut app, "/\"ops:kim\"");
    key(&mut app, KeyCode::Enter);
    shows(&app, "7 Outbox 1/1");
    key(&mut app, KeyCode::Esc);
    type_text(&mut app, "/booking-1054");
    key(&mut app, KeyCode::Enter);
    shows(&app, "7 Outbox 0/1");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Enter);
    shows(&app, "Job booking-1043");
}

#[test]
fn paging_holds_only_what_fits_and_reaches_both_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.db");
    let mut ledger = Ledger::open(&path).unwrap();
    let mut stream = String::from(
        r#"{"event":"job_accepted","job_id":"job-1","at":"2026-11-27T10:00:00Z","timeout_s":60}
{"event":"attempt_started","job_id":"job-1","attempt":1,"at":"2026-11-27T10:00:01Z"}
"#,
    );
    for i in 0..500 {
        let _ = writeln!(
            stream,
            "{{\"event\":\"callback\",\"delivery_id\":\"d-{i}\",\"job_id\":\"ghost-{i:04}\",\"outcome\":\"success\",\"at\":\"2026-11-27T11:00:00Z\"}}"
        );
    }
    ingest::ingest(&mut ledger, stream.as_bytes(), demo::demo_now(), |_| {}).unwrap();
    drop(ledger);
    let mut app = open_app(&path, "ana");
    ch(&mut app, '2');
    let first = render(&app);
    assert!(first.contains("ghost-0000") && !first.contains("ghost-0499"));
    ch(&mut app, 'G');
    let last = render(&app);
    assert!(
        last.contains("▶ #500") && !last.contains("ghost-0000"),
        "{last}"
    );
    key(&mut app, KeyCode::PageUp);
    key(&mut app, KeyCode::PageUp);
    ch(&mut app, 'g');
    assert!(render(&app).contains("▶ #1 "));
    // Walking down past the page edge reads one row at a time.
    for _ in 0..60 {
        ch(&mut app, 'j');
    }
    assert!(render(&app).contains("▶ #61 "));
    // Mouse wheel scrolls the list too.
    console::mouse(
        &mut app,
        &ratatui::crossterm::event::MouseEvent {
            kind: ratatui::crossterm::event::MouseEventKind::ScrollUp,
            column: 10,
            row: 10,
            modifiers: KeyModifiers::NONE,
        },
    );
    assert!(render(&app).contains("▶ #60 "));
}
