//! The Reconcile view's drill-down: Enter on a finding lists the
//! jobs behind it, as many as the finding counts; Enter on a job opens its timeline;
//! Esc goes back to the job list, then to the findings.

mod support;

use jobledger::console::{Action, App, Context, Tab, update};
use jobledger::reconcile::account;
use jobledger::store::{Finding, Ledger};
use ratatui::crossterm::event::KeyCode;
use support::terminal::{demo_app, key, render_at, resize, shows};

fn selected_job(app: &App) -> String {
    app.model()
        .list()
        .and_then(|l| l.job())
        .expect("a job is selected")
        .to_owned()
}

/// Every job the opened finding lists, walked with ↓ from the first.
fn walk(app: &mut App) -> Vec<String> {
    let mut seen = vec![selected_job(app)];
    loop {
        key(app, KeyCode::Down);
        let job = selected_job(app);
        if seen.last() == Some(&job) {
            return seen;
        }
        seen.push(job);
    }
}

#[test]
fn enter_lists_the_jobs_of_a_finding_enter_opens_one_esc_goes_back() {
    let (demo, mut app) = demo_app("ana");
    let ledger = Ledger::open_read_only(&demo.path).unwrap();
    let report = account(&ledger, 3600, usize::MAX, None).unwrap();
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    // A small screen, so the jobs take more than one page.
    resize(&mut app, 80, 15);

    // ↓ picks the second finding: successes without their output object.
    key(&mut app, KeyCode::Down);
    assert_eq!(app.model().findings.selected, Finding::MissingOutput);
    key(&mut app, KeyCode::Up);
    assert_eq!(app.model().findings.selected, Finding::MissingTerminal);
    // Paging keys scroll the view and leave the finding picked.
    key(&mut app, KeyCode::Down);
    for paging in [
        KeyCode::PageUp,
        KeyCode::Home,
        KeyCode::PageDown,
        KeyCode::Home,
    ] {
        key(&mut app, paging);
        assert_eq!(app.model().findings.selected, Finding::MissingOutput);
    }
    key(&mut app, KeyCode::Up);

    key(&mut app, KeyCode::Enter);
    let count = app.model().list().expect("the jobs are listed").count();
    assert_eq!(count.all, report.missing_terminal.count);
    let screen = render_at(&app, 80, 15);
    assert!(
        screen.contains(&format!(
            "Reconcile · {} jobs without a terminal record",
            count.all
        )),
        "{screen}"
    );
    assert_eq!(walk(&mut app), report.missing_terminal.first);

    // Enter on a job: its timeline in the detail pane.
    resize(&mut app, 160, 48);
    let job = selected_job(&app);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::Detail);
    shows(&app, &format!("Job {job}"));

    // Esc: back to the jobs; Esc again: back to the findings.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.context(), Context::List);
    assert!(app.model().findings.jobs.is_some());
    key(&mut app, KeyCode::Esc);
    assert!(app.model().findings.jobs.is_none());
    shows(&app, "▶    4  missing terminal record");

    // Each finding lists as many jobs as the report counts.
    for (finding, reported) in [
        (Finding::MissingOutput, &report.missing_output),
        (Finding::MissingNotification, &report.missing_notification),
        (Finding::DivergentDecisions, &report.divergent_decisions),
        (
            Finding::ConflictingSubmissions,
            &report.conflicting_submissions,
        ),
    ] {
        key(&mut app, KeyCode::Down);
        assert_eq!(app.model().findings.selected, finding);
        key(&mut app, KeyCode::Enter);
        assert_eq!(walk(&mut app), reported.first, "{finding}");
        key(&mut app, KeyCode::Esc);
    }
    // Esc on the findings closes nothing more, and never leaves.
    key(&mut app, KeyCode::Esc);
    assert!(!app.quit_requested());
    assert_eq!(app.tab(), Tab::Reconcile);
}

/// A filter typed in a finding's jobs counts the jobs it keeps, and the title says how
/// many of all: it said the finding's whole count beside "(filtered)".
#[test]
fn a_filter_in_a_findings_jobs_says_how_many_of_them_it_keeps() {
    let (_demo, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    resize(&mut app, 160, 48);
    // Enter on the first finding: the jobs without a terminal record.
    key(&mut app, KeyCode::Enter);
    let all = app.model().list().expect("the jobs are listed").count().all;
    assert!(all > 1, "the demo has several open jobs");
    let job = selected_job(&app);
    key(&mut app, KeyCode::Char('/'));
    for c in format!("job:{job}").chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let count = app.model().list().expect("the jobs are listed").count();
    assert_eq!((count.matching, count.all), (Some(1), all));
    shows(
        &app,
        &format!("Reconcile · 1/{all} job without a terminal record"),
    );
}
