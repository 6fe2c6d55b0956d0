//! `C` on a held callback: the comparison pane, a time axis to
//! scale above the held report set beside what it conflicts with, field by field,
//! at 80×24 (one side above the other), 100×30 and 160×48 (side by side).

mod support;

use jobledger::console::{Action, App, Context, Overlay, Tab, update};
use ratatui::crossterm::event::KeyCode;
use support::terminal::{ch, demo_app, key, render_at, resize, selected_callback};

/// The screen at `width`×`height` with the temporary ledger path masked.
fn screen_at(app: &mut App, path: &std::path::Path, width: u16, height: u16) -> String {
    resize(app, width, height);
    render_at(app, width, height).replace(&path.display().to_string(), "[LEDGER]")
}

#[test]
fn the_comparison_of_the_demo_held_callback_at_three_sizes() {
    let (demo, mut app) = demo_app("ana");
    assert_eq!(selected_callback(&app).seq, 2, "the worked example");
    ch(&mut app, 'C');
    assert_eq!(app.context(), Context::Compare);
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        let name = format!("compare_held_{width}x{height}");
        insta::assert_snapshot!(name, screen_at(&mut app, &demo.path, width, height));
    }
}

#[test]
fn conflicting_outcomes_mark_the_differing_payload_fields() {
    let (demo, mut app) = demo_app("ana");
    key(&mut app, KeyCode::Down);
    assert_eq!(selected_callback(&app).seq, 11);
    ch(&mut app, 'C');
    let wide = screen_at(&mut app, &demo.path, 160, 48);
    for needle in [
        "callback #10 · same job and attempt",
        "payload.error",
        "≠ \"card declined\"",
        "≠ failure",
        "terminal record of the job",
    ] {
        assert!(wide.contains(needle), "{needle:?} missing:\n{wide}");
    }
    let narrow = screen_at(&mut app, &demo.path, 80, 24);
    assert!(narrow.contains("▼ more below"), "{narrow}");
    key(&mut app, KeyCode::PageDown);
    let narrow = screen_at(&mut app, &demo.path, 80, 24);
    assert!(
        narrow.contains("≠ outcome               failure (held: success)"),
        "{narrow}"
    );
    // Scrolled to its end, the narrow pane shows the last counterpart.
    key(&mut app, KeyCode::End);
    let end = screen_at(&mut app, &demo.path, 80, 24);
    assert!(end.contains("terminal record of the job"), "{end}");
}

#[test]
fn c_opens_only_on_a_held_callback_and_esc_closes_it() {
    let (_demo, mut app) = demo_app("ana");
    // From the detail pane too.
    key(&mut app, KeyCode::Enter);
    ch(&mut app, 'C');
    assert!(matches!(app.model().overlay, Overlay::Compare(_)));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.context(), Context::Detail);
    key(&mut app, KeyCode::Esc);

    update(&mut app, Action::ShowTab(Tab::Quarantined));
    ch(&mut app, 'C');
    assert_eq!(app.context(), Context::List);
    let flash = app.flash().map(|f| f.text.clone()).unwrap_or_default();
    assert!(flash.contains("held callback"), "{flash}");
    assert!(!app.offers(Action::Compare));
}
