//! The Reconcile view's drill-down: Enter on a finding lists the
//! jobs behind it, as many as the finding counts; Enter on a job opens its timeline;
//! Esc goes back to the job list, then to the findings.

mod support;

use jobledger::console::model::page::Page;
use jobledger::console::{Action, App, Context, Tab, update};
use jobledger::reconcile::account;
use jobledger::store::{Finding, FindingJob, Ledger};
use ratatui::crossterm::event::KeyCode;
use support::terminal::{demo_app, key, render_at, resize, shows, take_while};

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

/// The opened finding's page of jobs.
fn opened(app: &App) -> &Page<FindingJob> {
    app.model()
        .findings
        .jobs
        .as_ref()
        .expect("a finding is open")
}

/// The jobs the opened finding's page lists, in order.
fn listed(app: &App) -> Vec<String> {
    opened(app)
        .rows
        .iter()
        .map(|row| row.job_id.clone())
        .collect()
}

/// A large finding's jobs are searched off the console's thread as a large view's
/// rows are: at a million jobs a filtered count of a finding blocked every key for
/// tens of milliseconds. The screen says "searching…" until the rows come, and then
/// the title says how many of all the filter keeps.
#[test]
fn a_filter_in_a_large_findings_jobs_is_searched_off_the_console_thread() {
    let (_demo, mut app) = demo_app("ana");
    app.search_off_thread_from(1); // every list counts as large
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    resize(&mut app, 160, 48);
    // The jobs without a terminal record.
    key(&mut app, KeyCode::Enter);
    let jobs = listed(&app);
    let all = app.model().list().expect("the jobs are listed").count().all;
    assert!(
        jobs.len() > 2 && usize::try_from(all) == Ok(jobs.len()),
        "{jobs:?}"
    );
    let job = jobs[1].clone();
    key(&mut app, KeyCode::Char('/'));
    for c in format!("job:{job}").chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(
        app.searching(),
        "the search did not leave the console's thread"
    );
    assert!(
        app.searches_stopped() > 0,
        "each key did not stop the search the key before started"
    );
    let searching = shows(&app, "Reconcile · searching… · rows of the previous filter");
    assert!(
        searching.contains(&format!("searching {all} rows for job:{job}…")),
        "{searching}"
    );
    take_while(&mut app, App::search_rows_pending);
    assert_eq!(listed(&app), std::slice::from_ref(&job));
    take_while(&mut app, App::searching);
    let count = app.model().list().expect("the jobs are listed").count();
    assert_eq!((count.matching, count.all), (Some(1), all));
    let found = shows(
        &app,
        &format!("Reconcile · 1/{all} job without a terminal record"),
    );
    assert!(found.contains("(filtered)"), "{found}");
    assert!(!found.contains("searching"), "{found}");
    for other in jobs.iter().filter(|j| **j != job) {
        assert!(
            !found.contains(other.as_str()),
            "{other} is not kept:\n{found}"
        );
    }
}

/// A search's rows go back only to the list it read: not once the filter changed,
/// not into the findings once the jobs were closed, not into another finding's jobs
/// opened under the same filter.
#[test]
fn a_search_of_a_findings_jobs_fills_no_list_but_the_one_it_read() {
    let (demo, mut app) = demo_app("ana");
    let ledger = Ledger::open_read_only(&demo.path).unwrap();
    let report = account(&ledger, 3600, usize::MAX, None).unwrap();
    app.search_off_thread_from(1); // every list counts as large
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    resize(&mut app, 160, 48);
    key(&mut app, KeyCode::Enter);
    let open_jobs = listed(&app);
    // Every job id of the demo holds this: a filter that keeps every job of each
    // finding, so that one finding's rows could pass for another's.
    let common = "job:booking-";
    assert!(
        open_jobs
            .iter()
            .chain(&report.missing_output.first)
            .all(|j| j.starts_with("booking-")),
        "{open_jobs:?} {:?}",
        report.missing_output.first
    );

    // The filter cleared (in place, by Esc) while the search of another ran.
    let one = format!("/job:{}", open_jobs[1]);
    support::terminal::type_text(&mut app, &one);
    key(&mut app, KeyCode::Enter);
    assert!(app.searching());
    key(&mut app, KeyCode::Esc);
    take_while(&mut app, App::searching);
    assert_eq!(listed(&app), open_jobs, "{}", render_at(&app, 160, 48));
    assert_eq!(app.model().filter(), None);

    // The jobs closed while their search ran: the findings stay shown.
    support::terminal::type_text(&mut app, &format!("/{common}"));
    key(&mut app, KeyCode::Enter);
    assert!(app.searching());
    key(&mut app, KeyCode::Char('q'));
    assert!(app.model().findings.jobs.is_none());
    take_while(&mut app, App::searching);
    assert!(
        app.model().findings.jobs.is_none(),
        "a search opened the jobs it read again"
    );
    shows(&app, "▶    4  missing terminal record");

    // Another finding opened, under the same filter, read in place.
    key(&mut app, KeyCode::Enter);
    support::terminal::type_text(&mut app, &format!("/{common}"));
    key(&mut app, KeyCode::Enter);
    assert!(app.searching());
    key(&mut app, KeyCode::Char('q'));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.model().findings.selected, Finding::MissingOutput);
    app.search_off_thread_from(i64::MAX);
    support::terminal::type_text(&mut app, &format!("/{common}"));
    key(&mut app, KeyCode::Enter);
    take_while(&mut app, App::searching);
    let jobs = opened(&app);
    assert_eq!(jobs.source, Finding::MissingOutput);
    assert_eq!(listed(&app), report.missing_output.first);
    shows(&app, "(filtered)");
}
