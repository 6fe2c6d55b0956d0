//! The review console on the demo ledger: each view, the detail pane, the help and
//! the forms drawn at a fixed size against snapshots, and every size drawn.
//! (Flows that write: console_writes.rs; live refresh, filters and paging:
//! console_lists.rs; hostile text: console_hostile.rs; the real binary:
//! console_e2e.rs; views drawn from rows built in the test: console_views.rs.)

mod support;

use jobledger::console::{self, Action, Tab, update};
use jobledger::demo;
use jobledger::review::{self, AnswerRequest};
use jobledger::store::Ledger;
use ratatui::crossterm::event::KeyCode;
use support::terminal::{
    ch, demo_app, demo_ledger, key, open_app, render, render_at, resize, screen, shows, type_text,
};

/// The sizes every screen is pinned at: the roomy test terminal (its snapshots keep
/// their plain names), a laptop's half screen, and the classic 80x24.
const SIZES: [(u16, u16); 3] = [(160, 48), (100, 30), (80, 24)];

/// The snapshot name of `what` at `size`.
fn sized(what: &str, (width, height): (u16, u16)) -> String {
    if (width, height) == (160, 48) {
        what.to_owned()
    } else {
        format!("{what}_{width}x{height}")
    }
}

/// The screen at `size`, with the ledger's temporary path masked.
fn screen_at(
    app: &mut console::App,
    ledger: &support::terminal::DemoLedger,
    size: (u16, u16),
) -> String {
    resize(app, size.0, size.1);
    render_at(app, size.0, size.1).replace(&ledger.path.display().to_string(), "[LEDGER]")
}

#[test]
fn each_view_matches_its_snapshot() {
    let (ledger, mut app) = demo_app("ana");
    for size in SIZES {
        for &tab in Tab::ALL {
            update(&mut app, Action::ShowTab(tab));
            let name = format!("view_{}", tab.title().to_lowercase().replace(' ', "_"));
            insta::assert_snapshot!(sized(&name, size), screen_at(&mut app, &ledger, size));
        }
    }
}

#[test]
fn detail_pane_shows_timeline_and_raw_message() {
    let (ledger, mut app) = demo_app("ana");
    key(&mut app, KeyCode::Enter);
    for size in SIZES {
        let name = sized("detail_held_duplicate", size);
        insta::assert_snapshot!(name, screen_at(&mut app, &ledger, size));
    }
    resize(&mut app, 160, 48);
    // Scrolling reaches the end of the raw message.
    key(&mut app, KeyCode::End);
    shows(&app, "\"confirmation\": \"HX-20977\"");
}

#[test]
fn a_view_key_in_the_detail_pane_closes_it_and_switches() {
    let (_ledger, mut app) = demo_app("ana");
    key(&mut app, KeyCode::Enter);
    assert!(render(&app).contains("Detail of callback #2"));
    ch(&mut app, '3');
    let text = render(&app);
    assert!(
        text.contains("Aged · 4 open past their expected age"),
        "{text}"
    );
    assert!(!text.contains("Detail of callback"), "{text}");
}

#[test]
fn a_case_on_a_job_answered_before_shows_that_answer() {
    let ledger = demo_ledger();
    let mut other = Ledger::open(&ledger.path).unwrap();
    review::answer(
        &mut other,
        &AnswerRequest {
            seq: 11,
            verdict: "failure_stands",
            note: "the card was declined",
            reviewer: "bob",
            link_job: None,
            seen_answer: None,
        },
        demo::demo_now(),
    )
    .unwrap();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '5');
    for _ in 0..9 {
        ch(&mut app, 'j'); // callback #10, the other report on booking-1054
    }
    key(&mut app, KeyCode::Enter);
    let text = shows(&app, "Detail of callback #10");
    assert!(text.contains("ANSWERED BEFORE ON THIS JOB"), "{text}");
    assert!(
        text.contains("failure_stands by bob at 11-27 17:00:00 — the card was declined"),
        "{text}"
    );
}

#[test]
fn help_lists_every_key_from_the_table() {
    let (ledger, mut app) = demo_app("ana");
    ch(&mut app, '?');
    for size in SIZES {
        insta::assert_snapshot!(sized("help", size), screen_at(&mut app, &ledger, size));
    }
    resize(&mut app, 160, 48);
    let mut seen = String::new();
    // Down a line at a time to its end (past it, `j` stays there).
    for _ in 0..240 {
        seen.push_str(&render(&app));
        ch(&mut app, 'j');
    }
    for binding in console::keymap::keymap() {
        // A long help wraps onto lines of its own: its first words are on one.
        let first_words = binding
            .help
            .split(' ')
            .take(5)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            seen.contains(&first_words),
            "{:?} is missing from the help",
            binding.help
        );
    }
}

#[test]
fn the_help_jumps_to_its_end_and_back_and_scrolls_from_there_at_once() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '?');
    let first_heading = console::keymap::Context::ALL[0].heading();
    let last_heading = console::keymap::Context::ALL.last().unwrap().heading();
    assert!(render(&app).contains(first_heading));
    assert!(
        !render(&app).contains(last_heading),
        "the help is longer than a screen"
    );
    ch(&mut app, 'G');
    let at_end = render(&app);
    assert!(at_end.contains(last_heading), "{at_end}");
    // One step up from the end moves the text at once (no dead presses past the end).
    key(&mut app, KeyCode::Up);
    assert_ne!(render(&app), at_end);
    ch(&mut app, 'g');
    assert!(render(&app).contains(first_heading));
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::PageUp);
    key(&mut app, KeyCode::Home);
    assert!(render(&app).contains(first_heading));
}

#[test]
fn answering_a_held_row_writes_the_answer_and_shows_it() {
    let (ledger, mut app) = demo_app("ana");
    ch(&mut app, '1');
    ch(&mut app, 'a');
    insta::assert_snapshot!("answer_form", screen(&app, &ledger));
    key(&mut app, KeyCode::Down); // duplicate_effect
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "checked the hotel system: booked twice");
    key(&mut app, KeyCode::Enter);
    let answer = app
        .ledger()
        .callback(2)
        .unwrap()
        .unwrap()
        .answer
        .expect("answer written");
    assert_eq!(answer.verdict.as_str(), "duplicate_effect");
    assert_eq!(answer.reviewer, "ana");
    assert_eq!(answer.note, "checked the hotel system: booked twice");
    // One key: the form closed, the cursor is on the next open row (#11), and what
    // was written is on the message line, above the footer.
    for size in SIZES {
        let name = sized("answer_written", size);
        let text = screen_at(&mut app, &ledger, size);
        assert!(
            text.contains("Answer 1 written on callback #2: duplicate_effect by ana."),
            "{text}"
        );
        insta::assert_snapshot!(name, text);
    }
    resize(&mut app, 160, 48);
    // The answer closed the question: it left the open list; O shows all again.
    assert!(!render(&app).contains("booking-1042"));
    ch(&mut app, 'O');
    shows(&app, "duplicate_effect by ana");
}

#[test]
fn a_refused_retry_says_why_in_plain_words() {
    let (ledger, mut app) = demo_app("ana");
    ch(&mut app, '3');
    ch(&mut app, 'j'); // booking-1043: attempt 1 timed out, a budget of 3
    ch(&mut app, 'r');
    let text = render(&app);
    for check in [
        "attempt budget",
        "success on record",
        "output exists",
        "retention",
        "permanent failure",
        "pending requests",
        "latest attempt",
    ] {
        assert!(text.contains(check), "confirmation lacks {check}: {text}");
    }
    assert!(text.contains("y send to the outbox"), "{text}");
    ch(&mut app, 'y');
    assert!(render(&app).contains("to run as attempt 2"));
    key(&mut app, KeyCode::Enter);

    // Asked again, it would be refused: no key sends it, and `y` writes nothing.
    ch(&mut app, 'r');
    let text = render(&app);
    insta::assert_snapshot!("retry_refused", screen(&app, &ledger));
    assert!(text.contains("It would be refused"), "{text}");
    assert!(
        text.contains("a retry request for this job is already waiting"),
        "{text}"
    );
    assert!(
        !text.contains("send to the outbox"),
        "offers to send: {text}"
    );
    assert!(text.contains("close, nothing is sent"), "{text}");
    ch(&mut app, 'y');
    assert_eq!(render(&app), text, "`y` did something");
    assert_eq!(app.ledger().outbox().unwrap().len(), 1);
    key(&mut app, KeyCode::Esc);
    assert!(render(&app).contains("closed without writing anything"));

    // booking-1042: staff:maria's attempt 2 is still running.
    ch(&mut app, 'k');
    ch(&mut app, 'r');
    let text = render(&app);
    assert!(text.contains("attempt 2 is still running"), "{text}");
    assert!(
        !text.contains("send to the outbox"),
        "offers to send: {text}"
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.ledger().outbox().unwrap().len(), 1);
}

#[test]
fn any_size_draws_without_panicking() {
    let (_ledger, mut app) = demo_app("ana");
    assert!(render_at(&app, 40, 10).contains("too small"));
    for &tab in Tab::ALL {
        update(&mut app, Action::ShowTab(tab));
        for (width, height) in [
            (1, 1),
            (59, 14),
            (60, 15),
            (80, 24),
            (61, 40),
            (220, 70),
            (160, 16),
        ] {
            update(&mut app, Action::Resize { width, height });
            let _ = render_at(&app, width, height);
            key(&mut app, KeyCode::Enter);
            let _ = render_at(&app, width, height);
            ch(&mut app, 'j');
            ch(&mut app, '?');
            let _ = render_at(&app, width, height);
            key(&mut app, KeyCode::Esc);
            key(&mut app, KeyCode::Esc);
        }
    }
}

#[test]
fn at_80_columns_the_lists_show_fewer_columns_whole_rather_than_all_cut_short() {
    let (_ledger, mut app) = demo_app("ana");
    resize(&mut app, 80, 24);
    // What each view must show whole at 80 columns, and a column it leaves out there.
    let views: [(Tab, &[&str], &str); 5] = [
        (
            Tab::Held,
            &[
                "booking-1042",
                "possible_duplicate_effect",
                "+4m44s",
                "#2 staff:maria",
            ],
            "timeout at",
        ),
        (
            Tab::Quarantined,
            &["booking-9999", "no_matching_job", "11-27 13:40:00"],
            "latest answer",
        ),
        (
            Tab::Aged,
            &["booking-1042", "running", "ops:maria", "overdue"],
            "escalates at",
        ),
        (
            Tab::Failed,
            &["booking-1057", "permanent", "1 of 3"],
            "retry possible",
        ),
        (
            Tab::Callbacks,
            &["booking-1041", "success", "apply", "late_success", "+2m12s"],
            "arrived at",
        ),
    ];
    for (tab, whole, left_out) in views {
        update(&mut app, Action::ShowTab(tab));
        let narrow = render_at(&app, 80, 24);
        for text in whole {
            assert!(
                narrow.contains(text),
                "{tab:?} at 80 columns lacks {text:?}:\n{narrow}"
            );
        }
        // Left out of the list, and shown in the preview below it.
        let list = |screen: &str| {
            screen
                .split("Selected row")
                .next()
                .unwrap_or_default()
                .to_owned()
        };
        assert!(
            !list(&narrow).contains(left_out),
            "{tab:?}: {left_out:?} is left out at 80 columns"
        );
        let preview = narrow.split("Selected row").nth(1).unwrap_or_default();
        assert!(
            preview.contains(left_out),
            "{tab:?}: the preview lacks {left_out:?}:\n{narrow}"
        );
        // At full width nothing is left out.
        resize(&mut app, 160, 48);
        assert!(
            list(&render_at(&app, 160, 48)).contains(left_out),
            "{tab:?} at 160 columns"
        );
        resize(&mut app, 80, 24);
    }
}

/// The Rejected view's preview says the whole reason, wrapped, at every size; Enter
/// opens the line's detail (its code and reason, the job's timeline, the raw line made
/// inert), and q goes back to the list.
#[test]
fn a_rejected_line_shows_its_whole_reason_and_opens_its_detail() {
    let (ledger, mut app) = demo_app("ana");
    ch(&mut app, '8');
    // The reason's last words, which no row has room for at 80 or 160 columns.
    let whole_reason = [
        "job \"booking-1043\" was submitted again",
        "\"sha256:e71d05\" now); the first",
        "identity stands",
    ];
    for size in SIZES {
        let screen = screen_at(&mut app, &ledger, size);
        let preview = screen.split("Selected row").nth(1).unwrap_or_default();
        for words in whole_reason {
            assert!(
                preview.contains(words),
                "{size:?} preview lacks {words:?}:\n{screen}"
            );
        }
        assert!(screen.contains("conflicting_submission"), "{screen}");
    }
    key(&mut app, KeyCode::Enter);
    for size in SIZES {
        let screen = screen_at(&mut app, &ledger, size);
        assert!(screen.contains("Detail of rejected line #31"), "{screen}");
        insta::assert_snapshot!(sized("rejected_detail", size), screen);
    }
    resize(&mut app, 160, 48);
    let detail = render(&app);
    for words in [
        "Rejected line #31 · job_accepted · conflicting_submission",
        "Timeline",
        "submitted again with ANOTHER identity (rejected: conflicting_submission) on line 31",
        "Raw message (JSON, pretty-printed",
        "\"input_digest\": \"sha256:e71d05\"",
    ] {
        assert!(
            detail.contains(words),
            "the detail lacks {words:?}:\n{detail}"
        );
    }
    ch(&mut app, 'q');
    let list = render(&app);
    assert!(!list.contains("Detail of rejected line"), "{list}");
    assert!(list.contains("Rejected · 2 kept with the reason"), "{list}");
    // A line about a job never accepted: its detail says so in place of a timeline.
    ch(&mut app, 'j');
    key(&mut app, KeyCode::Enter);
    let detail = shows(&app, "Detail of rejected line #80");
    for words in [
        "no_accepted_job",
        "No job booking-0000 has been accepted into the ledger; there is no timeline.",
        "\"event\": \"attempt_timed_out\"",
    ] {
        assert!(
            detail.contains(words),
            "the detail lacks {words:?}:\n{detail}"
        );
    }
    key(&mut app, KeyCode::Esc);
    assert!(!render(&app).contains("Detail of rejected line"));
}
