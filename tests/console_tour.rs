//! The guided tour of the demo's booking afternoon (`T`, `jobledger demo --tour`):
//! each step moves the console to what it talks about and says it in a band at the
//! bottom, C1–C5 labelled on their rows; → next, ← back, Esc leaves it with the
//! console where the step put it. Drawn at 80×24, 100×30 and 160×48.

mod support;

use std::time::Duration;

use jobledger::console::model::tour::STEPS;
use jobledger::console::{Action, App, Context, Overlay, Tab, update};
use jobledger::store::{Finding, Ledger};
use ratatui::crossterm::event::KeyCode;
use support::terminal::{
    ch, demo_app, key, open_app, render, render_at, resize, selected_callback,
};

/// The sizes every screen of the tour is pinned at.
const SIZES: [(u16, u16); 3] = [(80, 24), (100, 30), (160, 48)];

/// The screen at `width`×`height` with the temporary ledger path masked.
fn screen_at(app: &mut App, path: &std::path::Path, (width, height): (u16, u16)) -> String {
    resize(app, width, height);
    render_at(app, width, height).replace(&path.display().to_string(), "[LEDGER]")
}

/// The step the tour shows, from 0.
fn step(app: &App) -> usize {
    assert!(app.model().tour.shown, "the tour is not running");
    app.model().tour.step
}

/// The delivery id of the selected callback.
fn delivery(app: &App) -> String {
    selected_callback(app).delivery_id.expect("a delivery id")
}

/// Presses → until the tour shows the step titled `title`.
fn next_to(app: &mut App, title: &str) {
    for _ in STEPS {
        if app.model().tour.current().title == title {
            return;
        }
        key(app, KeyCode::Right);
    }
    panic!("no step titled {title:?}");
}

#[test]
fn the_tour_at_three_sizes() {
    let (demo, mut app) = demo_app("ana");
    // The answer's passing message goes at the next tick, not minutes later.
    app.pass_messages_after(Duration::ZERO);
    ch(&mut app, 'T');
    assert_eq!(app.context(), Context::Tour);
    for size in SIZES {
        let name = format!("tour_first_step_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, screen_at(&mut app, &demo.path, size));
    }
    next_to(&mut app, "the comparison");
    for size in SIZES {
        let name = format!("tour_comparison_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, screen_at(&mut app, &demo.path, size));
    }
    next_to(&mut app, "reconcile: a missing output");
    update(&mut app, Action::Tick);
    for size in SIZES {
        let name = format!("tour_missing_output_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, screen_at(&mut app, &demo.path, size));
    }
    next_to(&mut app, "the backlog alarm");
    for size in SIZES {
        let name = format!("tour_backlog_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, screen_at(&mut app, &demo.path, size));
    }
}

#[test]
fn every_step_says_it_in_three_lines_at_80_columns() {
    let (_demo, mut app) = demo_app("ana");
    resize(&mut app, 80, 24);
    ch(&mut app, 'T');
    for (i, s) in STEPS.iter().enumerate() {
        assert_eq!(step(&app), i);
        let screen = render_at(&app, 80, 24);
        let lines: Vec<&str> = screen.lines().collect();
        // The band: its rule, then the text, then the message line and the footer.
        let rule = lines
            .iter()
            .position(|l| l.contains(&format!("Tour {}/{} · {}", i + 1, STEPS.len(), s.title)))
            .unwrap_or_else(|| panic!("step {i}'s rule is not on screen:\n{screen}"));
        let text = &lines[rule + 1..lines.len() - 2];
        assert!(
            (2..=3).contains(&text.len()),
            "step {i} takes {} lines at 80 columns:\n{screen}",
            text.len()
        );
        let first_words: String = s.text.split(' ').take(4).collect::<Vec<_>>().join(" ");
        assert!(text[0].starts_with(&first_words), "{screen}");
        key(&mut app, KeyCode::Right);
    }
    assert!(!app.model().tour.shown, "after the last step the tour ends");
}

#[test]
fn next_back_and_esc_move_as_said() {
    let (_demo, mut app) = demo_app("ana");
    ch(&mut app, 'T');
    assert_eq!(
        (step(&app), app.tab(), delivery(&app)),
        (0, Tab::Callbacks, "d-1041-a".to_owned())
    );
    // The worked example is labelled on its rows, C1's redelivery too.
    let screen = render(&app);
    for label in ["C1 ", "C2 ", "C3 ", "C4 ", "C5 ", "C1′"] {
        assert!(
            screen.contains(&format!("│  {label}")) || screen.contains(&format!("▶ {label}")),
            "{label} missing:\n{screen}"
        );
    }
    // Every key of Next moves on one step; every key of Back one step back.
    for next in [
        KeyCode::Right,
        KeyCode::Char(' '),
        KeyCode::PageDown,
        KeyCode::Char('n'),
    ] {
        let before = step(&app);
        key(&mut app, next);
        assert_eq!(step(&app), before + 1, "{next:?}");
    }
    assert_eq!(app.tab(), Tab::Held, "the fifth step is C2, held");
    assert_eq!(delivery(&app), "d-1042-a");
    for back in [KeyCode::Left, KeyCode::PageUp, KeyCode::Char('p')] {
        let before = step(&app);
        key(&mut app, back);
        assert_eq!(step(&app), before - 1, "{back:?}");
    }
    assert_eq!((step(&app), app.tab()), (1, Tab::Callbacks));
    key(&mut app, KeyCode::Right);
    assert_eq!(delivery(&app), "d-1043-a", "C3's step selects C3");
    key(&mut app, KeyCode::Right);
    assert_eq!(
        (app.tab(), delivery(&app)),
        (Tab::Quarantined, "d-9999-a".to_owned())
    );
    // Back at the first step, ← stays there.
    for _ in 0..10 {
        key(&mut app, KeyCode::Left);
    }
    assert_eq!(step(&app), 0);

    // Esc leaves the tour: the console stays where the step put it, its labels and
    // band gone, and the keys are the list's again; T comes back to the same step.
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Esc);
    assert!(!app.model().tour.shown);
    assert_eq!(app.context(), Context::List);
    assert_eq!(
        (app.tab(), delivery(&app)),
        (Tab::Callbacks, "d-1043-a".to_owned())
    );
    let screen = render(&app);
    assert!(
        !screen.contains("Tour 3/") && !screen.contains("C1′"),
        "{screen}"
    );
    key(&mut app, KeyCode::Down);
    assert_eq!(delivery(&app), "d-1044-a", "↓ moves in the list again");
    ch(&mut app, 'T');
    assert_eq!((step(&app), delivery(&app).as_str()), (2, "d-1043-a"));

    // Through to the end: → after the last step ends the tour, and T starts afresh.
    next_to(&mut app, STEPS[STEPS.len() - 1].title);
    assert_eq!(app.tab(), Tab::Reconcile);
    key(&mut app, KeyCode::Right);
    assert!(!app.model().tour.shown);
    assert_eq!(app.context(), Context::List);
    ch(&mut app, 'T');
    assert_eq!(step(&app), 0);
}

#[test]
fn the_steps_open_the_comparison_the_findings_and_the_backlog() {
    let (_demo, mut app) = demo_app("ana");
    resize(&mut app, 80, 24);
    ch(&mut app, 'T');
    next_to(&mut app, "the comparison");
    let Overlay::Compare(comparison) = &app.model().overlay else {
        panic!("the comparison is not open");
    };
    assert_eq!(
        comparison.comparison.held.row.delivery_id.as_deref(),
        Some("d-1042-a")
    );
    // ↓ scrolls the comparison, as it would without the tour.
    key(&mut app, KeyCode::Down);
    let Overlay::Compare(comparison) = &app.model().overlay else {
        panic!("↓ closed the comparison");
    };
    assert_eq!(comparison.scroll, 1);
    // The help opens over the tour and gives it back as it was.
    ch(&mut app, '?');
    assert_eq!(app.context(), Context::Help);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.context(), Context::Tour);
    assert!(matches!(app.model().overlay, Overlay::Compare(_)));

    next_to(&mut app, "reconcile: a missing notification");
    assert_eq!(app.tab(), Tab::Reconcile);
    assert_eq!(app.model().findings.selected, Finding::MissingNotification);
    assert!(app.model().findings.jobs.is_none());
    key(&mut app, KeyCode::Right);
    assert_eq!(app.model().findings.selected, Finding::MissingOutput);
    key(&mut app, KeyCode::Right);
    let jobs = app.model().findings.jobs.as_ref().expect("its jobs listed");
    assert_eq!(jobs.source, Finding::DivergentDecisions);
    assert_eq!(
        app.model().list().and_then(|l| l.job()),
        Some("booking-1045")
    );
    key(&mut app, KeyCode::Right);
    assert!(app.model().findings.jobs.is_none());
    // At 80×24 the backlog is below the findings: the step scrolls to it.
    assert!(app.model().reconcile_scroll > 0);
    assert!(render_at(&app, 80, 24).contains("backlog  quiet"));
}

#[test]
fn the_answer_step_writes_one_answer_and_the_queue_shrinks() {
    let (demo, mut app) = demo_app("ana");
    ch(&mut app, 'T');
    let c2 = app.model().tour.seq_of("C2").expect("C2 labelled");
    let open = |app: &App| app.model().count(Tab::Held).open;
    assert_eq!(open(&app), Some(2));
    next_to(&mut app, "an answer, and the queue shrinks");
    assert_eq!(app.tab(), Tab::Held);
    assert_eq!(open(&app), Some(1), "the queue shrank");
    let ledger = Ledger::open(&demo.path).expect("the demo ledger");
    let answers = ledger.answers(c2).expect("C2's answers");
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].verdict.as_str(), "single_effect");
    assert_eq!(answers[0].reviewer, "ana");
    // Back to C2's step: the answered row is shown among all the held ones.
    key(&mut app, KeyCode::Left);
    key(&mut app, KeyCode::Left);
    assert_eq!((app.tab(), selected_callback(&app).seq), (Tab::Held, c2));
    // Forward again: nothing is written over the answer standing.
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    assert_eq!(ledger.answers(c2).expect("C2's answers").len(), 1);
    assert_eq!(open(&app), Some(1));
    let flash = app.flash().map(|f| f.text.clone()).unwrap_or_default();
    assert!(flash.contains("answered already"), "{flash}");
}

#[test]
fn a_read_only_console_tours_without_writing() {
    let (demo, _app) = demo_app("ana");
    let ledger = Ledger::open_read_only(&demo.path).expect("read-only");
    let clock = jobledger::clock::Clock::Fixed(jobledger::demo::demo_now());
    let mut app = App::new(ledger, clock, "ana".to_owned(), true).expect("console");
    ch(&mut app, 'T');
    next_to(&mut app, "an answer, and the queue shrinks");
    assert_eq!(app.model().count(Tab::Held).open, Some(2));
    let flash = app.flash().map(|f| f.text.clone()).unwrap_or_default();
    assert!(flash.contains("the tour writes no answer"), "{flash}");
}

#[test]
fn t_on_a_ledger_without_the_afternoon_says_how_to_get_it() {
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("empty.db");
    drop(Ledger::open(&path).expect("a new ledger"));
    let mut app = open_app(&path, "ana");
    ch(&mut app, 'T');
    assert_eq!(app.context(), Context::List);
    let flash = app.flash().map(|f| f.text.clone()).unwrap_or_default();
    assert!(flash.contains("jobledger demo --tour"), "{flash}");
}
