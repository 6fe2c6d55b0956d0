//! The guided tour of the demo's afternoon: `T` (or `jobledger demo --tour`) starts
//! it, → and ← step through it, Esc leaves it with the console where the step put it.
//! Each step moves the console to what it talks about ([`Scene`]): a view with a
//! labelled callback selected, the comparison, a Reconcile finding, the backlog.
//!
//! The answer step writes its answer itself, once, in the ledger the tour walks
//! through (the demo's own file): a presenter stepping through with a remote has no
//! hand free to type a note, and the point of the step is the queue shrinking on
//! screen. The band says what is written, and `a` is named for doing it by hand.

use super::reads::LedgerRows;
use super::{App, dispatch};
use crate::console::action::Action;
use crate::console::layout;
use crate::console::model::page::CallbackItem;
use crate::console::model::tour::{STEPS, Scene};
use crate::console::model::{Flash, List, ListId, Overlay};
use crate::console::tab::Tab;
use crate::decision::Verdict;
use crate::demo::WORKED_EXAMPLE;
use crate::filter::Sort;
use crate::inert::inert;
use crate::review::{self, AnswerError, AnswerRequest};
use crate::store::{CallbackKey, Ledger, StoreError};

/// Callbacks of one job read to find the worked example's among them (a handful).
const OF_A_JOB: usize = 50;

/// Starts the tour, or comes back to the step it was left at.
pub(crate) fn start(app: &mut App) -> Result<(), StoreError> {
    if app.model.tour.labels.is_empty() {
        app.model.tour.labels = labels(&app.ledger)?;
    }
    if app.model.tour.labels.is_empty() {
        app.model.flash = Flash::error(
            "the tour walks through the demo's booking afternoon, which this ledger does not hold: `jobledger demo --tour` builds it",
        );
        return Ok(());
    }
    app.model.tour.shown = true;
    show(app)
}

/// The worked example's callbacks in `ledger`, found by job and delivery id: the
/// first delivery takes the label (`C1`), a later one of the same id `C1′`.
fn labels(ledger: &Ledger) -> Result<Vec<(i64, String)>, StoreError> {
    let mut labels = Vec::new();
    for (label, job, delivery) in WORKED_EXAMPLE {
        let deliveries = ledger
            .callbacks_of_job(job, OF_A_JOB)?
            .into_iter()
            .filter(|c| c.delivery_id.as_deref() == Some(delivery));
        for (i, callback) in deliveries.enumerate() {
            let label = if i == 0 {
                label.to_owned()
            } else {
                format!("{label}′")
            };
            labels.push((callback.seq, label));
        }
    }
    Ok(labels)
}

/// What a key does while the tour has the keyboard.
pub(super) fn action(app: &mut App, action: Action) -> Result<(), StoreError> {
    let tour = &mut app.model.tour;
    match action {
        Action::TourNext if tour.step + 1 >= STEPS.len() => {
            tour.shown = false;
            tour.step = 0;
            app.model.flash =
                Flash::info("the tour is over: the console is yours (T walks through it again)");
            app.reload_page()
        }
        Action::TourNext => {
            tour.step += 1;
            show(app)
        }
        Action::TourBack if tour.step == 0 => {
            app.model.flash = Flash::info("this is the tour's first step (→ goes on)");
            Ok(())
        }
        Action::TourBack => {
            tour.step -= 1;
            show(app)
        }
        Action::Back => {
            tour.shown = false;
            app.model.flash = Flash::info(format!(
                "left the tour at step {}/{}: the console is yours (T comes back to it)",
                tour.step + 1,
                STEPS.len()
            ));
            // The band is gone: the list has its lines back.
            app.reload_page()
        }
        Action::Help => {
            app.model.overlay = Overlay::Help { scroll: 0 };
            Ok(())
        }
        // The arrows scroll what the step shows, as they would without the tour.
        Action::Move(_) => {
            let beneath = app.model.context_beneath_tour();
            dispatch::dispatch_in(app, beneath, action)
        }
        _ => Ok(()),
    }
}

/// Moves the console to what the current step talks about.
pub(super) fn show(app: &mut App) -> Result<(), StoreError> {
    app.model.overlay = Overlay::None;
    app.model.detail = None;
    match app.model.tour.current().scene {
        Scene::Callback { tab, label } => {
            select(app, tab, label)?;
        }
        Scene::Compare { label } => {
            if select(app, Tab::Held, label)? {
                super::compare::open(app)?;
            }
        }
        Scene::Answer {
            label,
            verdict,
            note,
        } => {
            answer(app, label, verdict, note)?;
            // The queue as it is now: the open questions, the answered one gone.
            app.show_tab(Tab::Held)?;
            if let Some(page) = app.model.lists.page_mut::<CallbackItem>(Tab::Held)
                && !page.source.open
            {
                page.source.open = true;
                super::reader::recount_list(app, ListId::Tab(Tab::Held))?;
                app.reload_page()?;
            }
        }
        Scene::Finding(finding) => {
            app.show_tab(Tab::Reconcile)?;
            app.model.findings.selected = finding;
            app.model.reconcile_scroll = 0;
        }
        Scene::FindingJobs(finding) => {
            app.show_tab(Tab::Reconcile)?;
            app.model.findings.selected = finding;
            super::findings::open(app)?;
        }
        Scene::Backlog => {
            app.show_tab(Tab::Reconcile)?;
            app.model.reconcile_scroll = layout::reconcile_backlog_scroll(&app.model);
        }
    }
    Ok(())
}

/// After a resize: the backlog step scrolls the Reconcile view for the new screen.
pub(super) fn fit_to_screen(app: &mut App) {
    if app.model.tour.shown && app.model.tour.current().scene == Scene::Backlog {
        app.model.reconcile_scroll = layout::reconcile_backlog_scroll(&app.model);
    }
}

/// Shows `tab` in ledger order, unfiltered, with the callback labelled `label`
/// selected; in a list of open questions that no longer holds it (it was answered),
/// all the questions are listed, answered ones too. `false`: it is not there.
fn select(app: &mut App, tab: Tab, label: &str) -> Result<bool, StoreError> {
    app.show_tab(tab)?;
    if app.model.filter().is_some() {
        app.set_filter(None)?;
    }
    let Some(seq) = app.model.tour.seq_of(label) else {
        return Ok(false);
    };
    let height = layout::list_capacity(&app.model);
    let rows = LedgerRows::new(&app.ledger, app.model.now);
    let Some(page) = app.model.lists.page_mut::<CallbackItem>(tab) else {
        return Ok(false);
    };
    if page.sort != Sort::default() {
        page.set_sort(Sort::default());
    }
    let key = CallbackKey::in_ledger_order(seq);
    let mut found = page.select_key(&rows, &key, height)?;
    if !found && page.source.open {
        page.source.open = false;
        page.recount(&rows)?;
        found = page.select_key(&rows, &key, height)?;
    }
    // The list is as tall as its count says, which the switch to all changed: read the
    // page again at that height, the selection kept.
    app.reload_page()?;
    Ok(found)
}

/// Writes the step's answer on the callback labelled `label`, unless an answer that
/// closes it stands already (the step was shown before, or someone answered it).
fn answer(app: &mut App, label: &str, verdict: Verdict, note: &str) -> Result<(), StoreError> {
    let Some(seq) = app.model.tour.seq_of(label) else {
        return Ok(());
    };
    if app.model.writes_off() {
        let why = super::read_only::why_read_only(&app.model);
        app.model.flash = Flash::error(format!("{why}: the tour writes no answer on {label}"));
        return Ok(());
    }
    let Some(row) = app.ledger.callback(seq)? else {
        return Ok(());
    };
    if let Some(standing) = row.answer.as_ref().filter(|_| !row.is_open_question()) {
        app.model.flash = Flash::info(format!(
            "{label} (callback #{seq}) is answered already: {} by {}; the tour writes nothing",
            standing.verdict,
            inert(&standing.reviewer)
        ));
        return Ok(());
    }
    let request = AnswerRequest {
        seq,
        verdict: verdict.as_str(),
        note,
        reviewer: &app.model.reviewer,
        link_job: None,
        seen_answer: row.answer.as_ref().map(|a| a.id),
    };
    app.model.flash = match review::answer(&mut app.ledger, &request, app.model.now) {
        Ok(written) => Flash::passing(
            format!(
                "Answer {} written on {label} (callback #{seq}): {verdict} by {}.",
                written.answer_id,
                inert(&app.model.reviewer)
            ),
            app.passing_for,
        ),
        Err(AnswerError::Store(e)) => return Err(e),
        Err(e) => Flash::error(e.to_string()),
    };
    // Our own commit does not change PRAGMA data_version for this connection.
    app.refresh()
}
