//! The console at the widths a reviewer has: the held evidence side by side at 100
//! columns and in the preview at 80, the status line's READ-ONLY and backlog alarm at
//! every width from 60, and a queue that shrinks as answers close its questions.
//! (Every view at three sizes against snapshots: console.rs.)

mod support;

use jobledger::clock::{Clock, Timestamp};
use jobledger::console::{Action, App, Model, update};
use jobledger::demo;
use jobledger::review::{self, AnswerRequest};
use jobledger::store::Ledger;
use ratatui::crossterm::event::KeyCode;
use support::terminal::{
    DemoLedger, ch, demo_app, demo_ledger, key, render_at, resize, text_at, type_text,
};

/// The worked example: the held report of booking-1042, which arrived after its
/// timeout while staff:maria's replacement attempt ran.
const TIMEOUT: &str = "11-27 13:12:01";
const ARRIVAL: &str = "11-27 13:16:45";
const REPLACEMENT: &str = "staff:maria";

#[test]
fn at_100_columns_the_held_row_itself_shows_the_evidence_side_by_side() {
    let (_ledger, mut app) = demo_app("ana");
    resize(&mut app, 100, 30);
    let text = render_at(&app, 100, 30);
    let row = text
        .lines()
        .find(|l| l.contains("booking-1042"))
        .unwrap_or_else(|| panic!("no row of booking-1042:\n{text}"));
    for fact in [
        TIMEOUT,
        ARRIVAL,
        "+4m44s",
        "#2 staff:maria running",
        "unanswered",
    ] {
        assert!(
            row.contains(fact),
            "{fact:?} is not in the row {row:?}\n{text}"
        );
    }
}

#[test]
fn at_100_and_80_columns_the_worked_example_is_on_one_screen() {
    let (_ledger, mut app) = demo_app("ana");
    for (width, height) in [(100, 30), (80, 24)] {
        resize(&mut app, width, height);
        let text = render_at(&app, width, height);
        for fact in [
            TIMEOUT,
            ARRIVAL,
            REPLACEMENT,
            "+4m44s: arrived 4m44s after the timeout",
            "(3 h ago)",
        ] {
            assert!(
                text.contains(fact),
                "{fact:?} is not on the {width}x{height} screen:\n{text}"
            );
        }
    }
}

#[test]
fn two_held_rows_leave_the_room_to_the_preview() {
    let (_ledger, mut app) = demo_app("ana");
    resize(&mut app, 80, 24);
    let text = render_at(&app, 80, 24);
    let lines: Vec<&str> = text.lines().collect();
    // Tabs, status, the list's top border and header, its two rows, its bottom border.
    assert!(lines[6].starts_with('└'), "{text}");
    assert!(lines[7].contains("Selected row"), "{text}");
}

fn alarmed_read_only_model(path: &str) -> Model {
    let now = Timestamp::parse("2026-11-27T17:00:00Z").expect("a time");
    let mut model = Model::new(
        path.to_owned(),
        Clock::Fixed(now),
        now,
        "a-reviewer-with-a-long-name".to_owned(),
        true,
    );
    let backlog = &mut model.summary.backlog;
    backlog.raised = true;
    backlog.arrivals = 412;
    backlog.open = 13_904;
    model
}

#[test]
fn read_only_and_the_backlog_alarm_stay_on_screen_from_60_columns() {
    let long_path = format!("/var/lib/{}/ledger.db", "review-team/".repeat(8));
    for path in ["/tmp/l.db", long_path.as_str()] {
        let model = alarmed_read_only_model(path);
        for width in [60, 64, 72, 80, 100, 120, 160] {
            let text = text_at(&model, width, 24);
            let status = text.lines().nth(1).unwrap_or_default();
            assert!(status.contains("READ-ONLY"), "{width}: {status:?}");
            assert!(status.contains("BACKLOG ALARM"), "{width}: {status:?}");
        }
    }
    // Where there is room, the alarm says why, and the clock says UTC once.
    let wide = text_at(&alarmed_read_only_model("/tmp/l.db"), 160, 24);
    let status = wide.lines().nth(1).unwrap_or_default();
    assert!(
        status.contains("412 held/quarantined in the last hour > capacity 30"),
        "{status}"
    );
    assert_eq!(wide.matches("UTC").count(), 1, "{wide}");
}

#[test]
fn a_read_only_console_on_a_ledger_in_alarm_shows_both_words_at_80_and_60_columns() {
    let ledger = demo_ledger();
    // Forty reports for jobs the ledger never accepted, in the hour before the demo's
    // clock: forty quarantined arrivals against a review capacity of 30.
    let lines: Vec<String> = (0..40)
        .map(|i| {
            format!(
                "{{\"event\":\"callback\",\"delivery_id\":\"d-flood-{i}\",\"job_id\":\"flood-{i}\",\"attempt\":1,\"outcome\":\"success\",\"at\":\"2026-11-27T16:{:02}:00Z\"}}\n",
                10 + i
            )
        })
        .collect();
    let mut writer = Ledger::open(&ledger.path).expect("open ledger");
    let stream = lines.concat();
    jobledger::ingest::ingest(&mut writer, stream.as_bytes(), demo::demo_now(), |_| {})
        .expect("ingested");
    drop(writer);
    let read_only = Ledger::open_read_only(&ledger.path).expect("open read-only");
    let mut app = App::new(
        read_only,
        Clock::Fixed(demo::demo_now()),
        "ana".to_owned(),
        true,
    )
    .expect("console state");
    for (width, height) in [(80, 24), (60, 20)] {
        resize(&mut app, width, height);
        let text = render_at(&app, width, height);
        let status = text.lines().nth(1).unwrap_or_default();
        assert!(status.contains("READ-ONLY"), "{width}x{height}:\n{text}");
        assert!(
            status.contains("BACKLOG ALARM"),
            "{width}x{height}:\n{text}"
        );
    }
}

fn answer(ledger: &DemoLedger, seq: i64, verdict: &str) {
    let mut other = Ledger::open(&ledger.path).expect("open ledger");
    let seen = other.answers(seq).expect("answers").last().map(|a| a.id);
    review::answer(
        &mut other,
        &AnswerRequest {
            seq,
            verdict,
            note: "checked with the payment provider",
            reviewer: "bob",
            link_job: None,
            seen_answer: seen,
        },
        demo::demo_now(),
    )
    .expect("answer written");
}

#[test]
fn a_closing_answer_shrinks_the_held_queue_and_o_shows_all_again() {
    let (ledger, mut app) = demo_app("ana");
    let text = render_at(&app, 160, 48);
    assert!(text.contains("Held 2/2"), "{text}");
    assert!(text.contains("2/2 held still open"), "{text}");

    // needs_remote_check leaves the question open.
    answer(&ledger, 2, "needs_remote_check");
    update(&mut app, Action::Tick);
    let text = render_at(&app, 160, 48);
    assert!(text.contains("Held 2/2"), "{text}");

    answer(&ledger, 2, "single_effect");
    update(&mut app, Action::Tick);
    let text = render_at(&app, 160, 48);
    assert!(text.contains("Held 1/2"), "{text}");
    assert!(text.contains("1/2 held still open"), "{text}");
    assert!(!text.contains("booking-1042"), "{text}");

    // Under a filter too, the tab and the title count alike: shown of all (the title
    // said "1 of 1" over the tab's "1/2").
    type_text(&mut app, "/booking");
    key(&mut app, KeyCode::Enter);
    let text = render_at(&app, 160, 48);
    assert!(text.contains("Held 1/2"), "{text}");
    assert!(text.contains("1/2 held still open (filtered)"), "{text}");
    key(&mut app, KeyCode::Esc);

    // Showing all of them, the view shows every row: one number.
    ch(&mut app, 'O');
    let text = render_at(&app, 160, 48);
    assert!(text.contains("Held 2 "), "{text}");
    assert!(text.contains("2 held for a person, 1 still open"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains("booking-1042"))
        .unwrap_or_else(|| panic!("no row of booking-1042:\n{text}"));
    assert!(row.contains("single_effect by bob"), "{text}");

    ch(&mut app, 'O');
    assert!(!render_at(&app, 160, 48).contains("booking-1042"));

    // The notation is explained once, in the help.
    ch(&mut app, '?');
    let text = render_at(&app, 80, 24);
    assert!(
        text.contains("Counts") && text.contains("12/40 (in a tab, a list's title or a message)"),
        "{text}"
    );
}

#[test]
fn a_new_case_on_a_job_answered_before_says_so_in_its_row() {
    let (ledger, mut app) = demo_app("ana");
    answer(&ledger, 2, "single_effect");
    // A later, opposite report on booking-1042: a new case on a job answered before.
    let line = r#"{"event":"callback","delivery_id":"d-1042-z","job_id":"booking-1042","attempt":1,"outcome":"failure","at":"2026-11-27T16:00:00Z","payload":{"error":"timeout"}}"#;
    let mut writer = Ledger::open(&ledger.path).expect("open ledger");
    jobledger::ingest::ingest(
        &mut writer,
        [line, "\n"].concat().as_bytes(),
        demo::demo_now(),
        |_| {},
    )
    .expect("ingested");
    update(&mut app, Action::Tick);
    let text = render_at(&app, 160, 48);
    let row = |seq: &str| {
        text.lines()
            .find(|l| l.contains(seq))
            .unwrap_or_else(|| panic!("no row {seq}:\n{text}"))
            .to_owned()
    };
    assert!(row("#16↺").contains("booking-1042"), "{text}");
    assert!(!row("#11").contains('↺'), "{text}");
    // The preview names the answer it stands after.
    ch(&mut app, 'j');
    let text = render_at(&app, 160, 48);
    assert!(
        text.contains("answered before") && text.contains("single_effect by bob"),
        "{text}"
    );
}
