//! A bulk owner from the console's Aged view: `Space` marks a job, `V` every job the
//! filter keeps, `x` clears; `o` with jobs marked asks for the owner and escalation
//! time, shows the plan (how many take the owner, how many have it already), and
//! writes nothing until the plan's count is typed; then it writes them in one go and
//! the marks are cleared. A plan the ledger moved under is refused, nothing written,
//! the difference said; Esc writes nothing; a read-only console offers no `o`.
//!
//! The demo's Aged view at its clock: booking-1042 (ops:maria, overdue), booking-1043
//! (unowned), booking-1055 (ops:lee, escalating at 17:30) and booking-1056 (unowned).

mod support;

use jobledger::clock::{Clock, Timestamp};
use jobledger::console::{Action, App, Tab, Theme};
use jobledger::escalation;
use jobledger::store::{Ledger, OwnerRow};
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;
use support::fixture::{self, at, now};
use support::terminal::{
    DemoLedger, buffer_at, ch, demo_app, demo_ledger, key, render, render_at, resize, type_text,
};

/// The escalation time typed into the forms: two hours after the demo's clock.
const AT_SEVEN: &str = "2026-11-27T19:00:00Z";

/// Owner assignments in the ledger, every one written (the latest stands per job).
fn assignments(ledger: &DemoLedger) -> i64 {
    fixture::query_i64(&ledger.path, "SELECT count(*) FROM owner_assignments", [])
}

/// The owner standing on `job`, as the console's ledger reads it.
fn owner(app: &App, job: &str) -> Option<OwnerRow> {
    app.ledger().owner(job).expect("the owner reads")
}

/// Sets `job`'s owner through a connection of its own: another person, meanwhile.
fn meanwhile(ledger: &DemoLedger, job: &str, owner: &str, escalate_at: Timestamp) {
    let mut other = Ledger::open(&ledger.path).expect("a second connection");
    escalation::set_owner(&mut other, job, owner, Some(escalate_at), "ops:lee", now())
        .expect("the owner is written");
}

/// The Aged view, each of its rows in turn marked by `Space` or passed by `j` as
/// `rows` says (the view lists 1042, 1043, 1055, 1056 in this order).
fn aged_with_marks(app: &mut App, rows: &[bool]) {
    ch(app, '3');
    assert_eq!(app.tab(), Tab::Aged);
    for &mark in rows {
        if mark {
            ch(app, ' ');
        } else {
            ch(app, 'j');
        }
    }
}

/// `o`, then the escalation time typed (the owner is prefilled with the reviewer) and
/// Enter: the plan.
fn plan_for(app: &mut App, escalate_at: &str) -> String {
    ch(app, 'o');
    key(app, KeyCode::Tab);
    type_text(app, escalate_at);
    key(app, KeyCode::Enter);
    render(app)
}

/// How many rows of the screen carry a mark.
fn marks_shown(screen: &str) -> usize {
    screen.matches('✓').count()
}

#[test]
fn space_marks_a_job_v_marks_what_the_filter_keeps_and_x_clears() {
    let (_ledger, mut app) = demo_app("ops:kim");
    ch(&mut app, '3');
    ch(&mut app, ' ');
    ch(&mut app, ' ');
    let two = render(&app);
    assert!(
        two.contains("Aged · 4 open past their expected age · 2 marked"),
        "{two}"
    );
    assert!(two.contains("✓ booking-1042"), "{two}");
    assert!(two.contains("✓ booking-1043"), "{two}");
    assert_eq!(marks_shown(&two), 2, "{two}");
    // Space on a marked job unmarks it.
    key(&mut app, KeyCode::Up);
    ch(&mut app, ' ');
    let one = render(&app);
    assert!(one.contains("· 1 marked"), "{one}");
    assert!(!one.contains("✓ booking-1043"), "{one}");
    // With jobs marked, `o` is the bulk owner and `a` answers nothing here.
    assert!(app.offers(Action::Owner));
    assert!(!app.offers(Action::Answer));
    ch(&mut app, 'x');
    let cleared = render(&app);
    assert!(cleared.contains("1 marks cleared"), "{cleared}");
    assert_eq!(marks_shown(&cleared), 0, "{cleared}");
    assert!(!cleared.contains("marked"), "{cleared}");

    // V takes every job the filter keeps (read from the ledger, not the page), and
    // widening the filter shows those two marked among the rest.
    ch(&mut app, '/');
    type_text(&mut app, "owner:none");
    key(&mut app, KeyCode::Enter);
    ch(&mut app, 'V');
    let matched = render(&app);
    assert!(
        matched.contains(
            "marked all 2 aged jobs the filter matches: 2 marked (o sets their owner, x clears)"
        ),
        "{matched}"
    );
    key(&mut app, KeyCode::Esc); // clears the filter
    let all = render(&app);
    assert!(
        all.contains("Aged · 4 open past their expected age · 2 marked"),
        "{all}"
    );
    assert!(all.contains("✓ booking-1043"), "{all}");
    assert!(all.contains("✓ booking-1056"), "{all}");
    assert_eq!(marks_shown(&all), 2, "{all}");
    ch(&mut app, 'V');
    assert!(
        render(&app)
            .contains("marked all 4 aged jobs the view lists, 2 of them marked before: 4 marked"),
        "{}",
        render(&app)
    );
    // Marks of jobs are the Aged view's own: the Held view has none.
    ch(&mut app, '1');
    assert!(!render(&app).contains("marked"));
    assert!(!app.offers(Action::ClearMarks));
}

#[test]
fn the_plan_is_written_only_with_its_count_in_one_go_and_the_marks_are_cleared() {
    let ledger = demo_ledger();
    // booking-1055 is Kim's already, at the time the form will be given.
    meanwhile(&ledger, "booking-1055", "ops:kim", at(AT_SEVEN));
    let mut app = support::terminal::open_app(&ledger.path, "ops:kim");
    let before = assignments(&ledger);
    ch(&mut app, '3');
    ch(&mut app, 'V');
    ch(&mut app, 'o');
    let form = render(&app);
    assert!(
        form.contains("Owner for 4 marked jobs at once · Aged"),
        "{form}"
    );
    assert!(form.contains("[ ops:kim"), "the owner is prefilled: {form}");
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, AT_SEVEN);
    key(&mut app, KeyCode::Enter);
    let plan = render(&app);
    for said in [
        "3 of 4 marked jobs will take ops:kim, escalating at 11-27 19:00:00; set by ops:kim",
        "Take the owner (3): booking-1042 booking-1043 booking-1056",
        "Unchanged, they have it already (1): booking-1055",
        "Type 3, the plan's count",
    ] {
        assert!(plan.contains(said), "{said:?} missing:\n{plan}");
    }
    // Enter with no count, then with a wrong one: nothing is written.
    key(&mut app, KeyCode::Enter);
    assert!(render(&app).contains("nothing written: type 3, the plan's count, first"));
    type_text(&mut app, "4");
    key(&mut app, KeyCode::Enter);
    assert!(
        render(&app).contains("nothing written: 4 is not the plan's count (3)"),
        "{}",
        render(&app)
    );
    assert_eq!(assignments(&ledger), before, "a wrong count wrote");
    assert_eq!(owner(&app, "booking-1042").unwrap().owner, "ops:maria");

    key(&mut app, KeyCode::Backspace);
    type_text(&mut app, "3");
    key(&mut app, KeyCode::Enter);
    let outcome = render(&app);
    for said in [
        "Wrote 3 owner assignments in one transaction: ops:kim owns them, escalating at",
        "1 job had that owner and escalation time already: nothing written for them.",
        "The marks of this view are cleared.",
    ] {
        assert!(outcome.contains(said), "{said:?} missing:\n{outcome}");
    }
    assert_eq!(assignments(&ledger), before + 3);
    for job in [
        "booking-1042",
        "booking-1043",
        "booking-1055",
        "booking-1056",
    ] {
        let standing = owner(&app, job).expect("an owner");
        assert_eq!(
            (standing.owner.as_str(), standing.escalate_at),
            ("ops:kim", Some(at(AT_SEVEN))),
            "{job}"
        );
    }
    assert_eq!(owner(&app, "booking-1042").unwrap().set_by, "ops:kim");
    assert_eq!(
        owner(&app, "booking-1055").unwrap().set_by,
        "ops:lee",
        "an unchanged job gains no row"
    );
    key(&mut app, KeyCode::Enter);
    let after = render(&app);
    assert!(!after.contains("marked"), "{after}");
    assert_eq!(marks_shown(&after), 0, "{after}");
    assert!(!app.offers(Action::ClearMarks));
}

#[test]
fn a_plan_the_ledger_moved_under_is_refused_with_nothing_written_and_the_change_named() {
    let (ledger, mut app) = demo_app("ops:kim");
    aged_with_marks(&mut app, &[true, true, false, false]);
    let plan = plan_for(&mut app, AT_SEVEN);
    assert!(
        plan.contains("2 of 2 marked jobs will take ops:kim"),
        "{plan}"
    );
    // Lee gives booking-1043 to Kim, at the same time, while the plan is on screen.
    meanwhile(&ledger, "booking-1043", "ops:kim", at(AT_SEVEN));
    let before = assignments(&ledger);
    type_text(&mut app, "2");
    key(&mut app, KeyCode::Enter);
    let refused = render(&app);
    for said in [
        "Refused. Nothing was written.",
        "the ledger moved since the plan: 1 of the marked jobs would take ops:kim now, not 2",
        "Since the plan:",
        "booking-1043 has ops:kim already (set meanwhile)",
    ] {
        assert!(refused.contains(said), "{said:?} missing:\n{refused}");
    }
    assert_eq!(assignments(&ledger), before, "a refused write wrote");
    assert_eq!(owner(&app, "booking-1042").unwrap().owner, "ops:maria");
    // The marks stay; the plan read again says what is so now.
    key(&mut app, KeyCode::Enter);
    assert!(render(&app).contains("· 2 marked"));
    let again = plan_for(&mut app, AT_SEVEN);
    assert!(
        again.contains("1 of 2 marked jobs will take ops:kim"),
        "{again}"
    );
    assert!(
        again.contains("Unchanged, they have it already (1): booking-1043"),
        "{again}"
    );
}

#[test]
fn esc_closes_the_form_and_the_plan_with_nothing_written_and_the_marks_kept() {
    let (ledger, mut app) = demo_app("ops:kim");
    let before = assignments(&ledger);
    aged_with_marks(&mut app, &[false, true, false, true]);
    ch(&mut app, 'o');
    key(&mut app, KeyCode::Esc);
    assert!(render(&app).contains("closed without writing anything"));
    plan_for(&mut app, "2h");
    type_text(&mut app, "2");
    key(&mut app, KeyCode::Esc);
    let closed = render(&app);
    assert!(
        closed.contains("closed without writing anything"),
        "{closed}"
    );
    assert!(closed.contains("· 2 marked"), "{closed}");
    assert_eq!(assignments(&ledger), before);
    // An owner is needed: a bulk assignment clears nobody's.
    ch(&mut app, 'o');
    key(&mut app, KeyCode::Delete);
    key(&mut app, KeyCode::Enter);
    assert!(
        render(&app).contains("an owner needs a name"),
        "{}",
        render(&app)
    );
    assert!(app.model().form().is_some(), "the form stays to be fixed");
}

#[test]
fn a_read_only_console_marks_jobs_but_offers_no_owner_key_and_writes_nothing() {
    let ledger = demo_ledger();
    let before = assignments(&ledger);
    let read_only = Ledger::open_read_only(&ledger.path).expect("open read-only");
    let mut app = App::new(read_only, Clock::Fixed(now()), "ops:kim".to_owned(), true)
        .expect("console state");
    resize(&mut app, 160, 48);
    ch(&mut app, '3');
    ch(&mut app, 'V');
    let marked = render(&app);
    assert!(marked.contains("· 4 marked"), "{marked}");
    assert!(!app.offers(Action::Owner));
    assert!(!marked.contains("o owner"), "the footer offers o: {marked}");
    ch(&mut app, 'o');
    let refused = render(&app);
    assert!(refused.contains("read-only"), "{refused}");
    assert!(app.model().form().is_none(), "{refused}");
    assert_eq!(assignments(&ledger), before);
}

#[test]
fn without_colour_a_marked_job_still_shows_its_mark() {
    let (_ledger, mut app) = demo_app("ops:kim");
    aged_with_marks(&mut app, &[true, false, false, true]);
    app.set_theme(Theme::NoColour);
    resize(&mut app, 80, 24);
    let buffer = buffer_at(app.model(), 80, 24);
    let rows: Vec<String> = (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect()
        })
        .collect();
    let marked: Vec<&String> = rows.iter().filter(|row| row.contains('✓')).collect();
    assert_eq!(marked.len(), 2, "{rows:#?}");
    assert!(marked[0].contains("booking-1042") && marked[1].contains("booking-1056"));
    assert!(
        buffer
            .content
            .iter()
            .all(|cell| (cell.fg, cell.bg) == (Color::Reset, Color::Reset)),
        "a colour under NO_COLOR"
    );
}

#[test]
fn the_marks_the_form_the_plan_and_the_outcome_at_every_size() {
    let (ledger, mut app) = demo_app("ops:kim");
    let path = ledger.path.display().to_string();
    let screen = |app: &_, width, height| render_at(app, width, height).replace(&path, "[LEDGER]");
    aged_with_marks(&mut app, &[true, true, false, true]);
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        resize(&mut app, width, height);
        let name = format!("aged_marked_{width}x{height}");
        insta::assert_snapshot!(name, screen(&app, width, height));
    }
    ch(&mut app, 'o');
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "2h");
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        resize(&mut app, width, height);
        let name = format!("bulk_owner_form_{width}x{height}");
        insta::assert_snapshot!(name, screen(&app, width, height));
    }
    key(&mut app, KeyCode::Enter);
    type_text(&mut app, "3");
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        resize(&mut app, width, height);
        let name = format!("bulk_owner_plan_{width}x{height}");
        insta::assert_snapshot!(name, screen(&app, width, height));
    }
    key(&mut app, KeyCode::Enter);
    resize(&mut app, 80, 24);
    insta::assert_snapshot!("bulk_owner_outcome_80x24", screen(&app, 80, 24));
}

#[test]
fn a_refusal_at_80_columns_names_what_moved() {
    let (ledger, mut app) = demo_app("ops:kim");
    let path = ledger.path.display().to_string();
    aged_with_marks(&mut app, &[false, true, false, true]);
    plan_for(&mut app, AT_SEVEN);
    meanwhile(&ledger, "booking-1056", "ops:kim", at(AT_SEVEN));
    type_text(&mut app, "2");
    key(&mut app, KeyCode::Enter);
    resize(&mut app, 80, 24);
    insta::assert_snapshot!(
        "bulk_owner_refused_80x24",
        render_at(&app, 80, 24).replace(&path, "[LEDGER]")
    );
}

#[test]
fn the_detail_pane_gives_the_marked_jobs_an_owner_too() {
    let (_ledger, mut app) = demo_app("ops:kim");
    aged_with_marks(&mut app, &[true, true, false, false]);
    key(&mut app, KeyCode::Enter); // the detail of booking-1055
    ch(&mut app, 'o');
    assert!(
        render(&app).contains("Owner for 2 marked jobs at once"),
        "{}",
        render(&app)
    );
}
