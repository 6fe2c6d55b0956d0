//! `w` in the Outbox view withdraws the selected pending request after a confirmation
//! (with an optional note); the row then says who withdrew it and when, and a
//! withdrawn row offers no `w`.

mod support;

use jobledger::console::{Action, App, Context, Tab, update};
use jobledger::outbox::{RequestKind, RequestStatus, request};
use jobledger::store::Ledger;
use ratatui::crossterm::event::KeyCode;
use support::terminal::{ch, demo_ledger, key, open_app, render, shows, type_text};

/// A console on the demo with a retry of booking-1043 pending, on the Outbox view.
fn outbox_with_a_pending_retry() -> (support::terminal::DemoLedger, App) {
    let demo = demo_ledger();
    let mut ledger = Ledger::open(&demo.path).unwrap();
    request(
        &mut ledger,
        RequestKind::Retry,
        "booking-1043",
        "ops:maria",
        jobledger::demo::demo_now(),
    )
    .unwrap();
    let mut app = open_app(&demo.path, "ops:lee");
    update(&mut app, Action::ShowTab(Tab::Outbox));
    (demo, app)
}

fn flash(app: &App) -> String {
    app.flash().map(|f| f.text.clone()).unwrap_or_default()
}

#[test]
fn w_withdraws_the_pending_request_after_a_confirmation() {
    let (_demo, mut app) = outbox_with_a_pending_retry();
    let screen = shows(&app, "pending");
    assert!(
        screen.contains("w withdraw"),
        "the footer offers w:\n{screen}"
    );

    // Esc keeps it pending, and writes nothing.
    ch(&mut app, 'w');
    assert_eq!(app.context(), Context::Withdraw);
    shows(&app, "Withdraw request 1?");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.context(), Context::List);
    assert_eq!(app.ledger().outbox_pending().unwrap(), 1);

    ch(&mut app, 'w');
    type_text(&mut app, "wrong job");
    shows(&app, "wrong job");
    key(&mut app, KeyCode::Enter);
    shows(
        &app,
        "Request 1 (retry of booking-1043) withdrawn by ops:lee",
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::List);

    let rows = app.ledger().outbox().unwrap();
    assert_eq!(rows[0].status, RequestStatus::Withdrawn);
    let withdrawal = rows[0].withdrawal.as_ref().unwrap();
    assert_eq!(
        (withdrawal.withdrawn_by.as_str(), withdrawal.note.as_str()),
        ("ops:lee", "wrong job")
    );
    let screen = shows(&app, "withdrawn by ops:lee at 11-27 17:00:00");
    assert!(
        !screen.contains("w withdraw"),
        "a withdrawn row offers no w:\n{screen}"
    );

    // Once only: `w` again says who took it back, and writes nothing.
    ch(&mut app, 'w');
    assert_eq!(app.context(), Context::List);
    assert_eq!(
        flash(&app),
        "request 1 was already withdrawn by ops:lee at 11-27 17:00:00"
    );
    assert_eq!(app.ledger().outbox().unwrap(), rows);
}

#[test]
fn w_outside_the_outbox_or_read_only_writes_nothing() {
    let (demo, mut app) = outbox_with_a_pending_retry();
    update(&mut app, Action::ShowTab(Tab::Held));
    ch(&mut app, 'w');
    assert_eq!(app.context(), Context::List);
    assert!(flash(&app).contains("Outbox view"), "{}", flash(&app));

    let ledger = Ledger::open_read_only(&demo.path).unwrap();
    let mut app = App::new(
        ledger,
        jobledger::clock::Clock::Fixed(jobledger::demo::demo_now()),
        "ops:lee".into(),
        true,
    )
    .unwrap();
    update(&mut app, Action::ShowTab(Tab::Outbox));
    ch(&mut app, 'w');
    assert_eq!(app.context(), Context::List);
    assert!(flash(&app).starts_with("read-only"), "{}", flash(&app));
    assert!(!render(&app).contains("withdrawn"));
}
