//! Giving the marked aged jobs an owner at once: the plan is read from the ledger
//! before anything is written ([`bulk::plan`], the command line's own
//! planner), nothing is written until the count the plan gave is typed, and the write
//! is refused, with what changed said, when the ledger moved since the plan.

use crate::console::action::{Action, Move};
use crate::console::field::{Outcome, TextField};
use crate::console::model::Flash;
use crate::console::model::Overlay;
use crate::console::model::bulk::count_of;
use crate::console::model::bulk_owner::{BulkOwnerForm, OwnersStage};
use crate::console::model::form::{Form, OwnerField};
use crate::escalation::bulk::{self, BulkOwnerError, OwnerPlan, Selection};
use crate::escalation::parse_escalation;
use crate::inert::inert;
use crate::store::{AgedJobRow, StoreError};

use super::App;
use super::bulk::MarkedAll;

/// V in Aged: marks every aged job the view's filter keeps, read from the ledger (not
/// only the rows on the page), and says how many.
pub(super) fn mark_all(app: &mut App) -> Result<(), StoreError> {
    let tab = app.model.tab;
    let Some(page) = app.model.lists.page::<AgedJobRow>(tab) else {
        return Ok(());
    };
    let query = page.query().filter;
    let jobs = bulk::aged_job_ids(&app.ledger, query, app.model.now)?;
    let matched = jobs.len();
    let filtered = !query.is_empty();
    let newly = app.model.job_marks.mark_all(tab, jobs);
    let marked = app.model.job_marks.count(tab);
    let all = MarkedAll {
        matched,
        newly,
        marked,
        filtered,
    };
    app.model.flash = Flash::info(all.said("aged jobs", "o sets their owner"));
    Ok(())
}

/// `o` with jobs marked: opens the bulk owner form over them.
pub(super) fn open(app: &mut App) {
    let tab = app.model.tab;
    let jobs: Vec<String> = app
        .model
        .job_marks
        .of(tab)
        .map(|marked| marked.iter().cloned().collect())
        .unwrap_or_default();
    let form = BulkOwnerForm::new(tab, jobs, &app.model.reviewer);
    app.model.overlay = Overlay::Form(Box::new(Form::BulkOwner(form)));
}

/// Carries out an action on the open bulk owner form; returns whether it wrote.
pub(super) fn form_action(app: &mut App, form: &mut BulkOwnerForm, action: Action) -> bool {
    match action {
        Action::NextField | Action::PrevField | Action::Move(Move::Up | Move::Down)
            if form.plan().is_none() =>
        {
            form.field = match form.field {
                OwnerField::Owner => OwnerField::EscalateAt,
                OwnerField::EscalateAt => OwnerField::Owner,
            };
        }
        Action::Input(c) => form.focused_text().push(c),
        Action::Edit(request) => form.focused_text().edit(request),
        Action::Submit if form.plan().is_none() => show_plan(app, form),
        Action::Submit => return write(app, form),
        _ => {}
    }
    false
}

/// Enter on the owner: reads the plan for the marked jobs; writes nothing.
fn show_plan(app: &mut App, form: &mut BulkOwnerForm) {
    let owner = form.owner.text().trim().to_owned();
    if owner.is_empty() {
        form.error = Some(
            "an owner needs a name (owners are cleared one job at a time: x clears the marks, then o on the row)"
                .to_owned(),
        );
        form.field = OwnerField::Owner;
        return;
    }
    let escalate_at = match parse_escalation(form.escalate_at.text(), app.model.now) {
        Ok(at) => at,
        Err(why) => {
            form.error = Some(why);
            form.field = OwnerField::EscalateAt;
            return;
        }
    };
    let selection = Selection::Jobs(&form.jobs);
    match bulk::plan(&app.ledger, selection, &owner, escalate_at, app.model.now) {
        Ok(plan) => {
            form.error = None;
            form.stage = OwnersStage::Plan {
                plan: Box::new(plan),
                confirm: TextField::default(),
            };
        }
        Err(e) => form.error = Some(e.to_string()),
    }
}

/// Enter on the plan: once the count typed is the plan's, writes the owners in one
/// transaction, refused (nothing written) when the ledger moved since the plan.
fn write(app: &mut App, form: &mut BulkOwnerForm) -> bool {
    let (Some(plan), Some(confirm)) = (form.plan(), form.confirm()) else {
        return false;
    };
    let count = plan.assigned.len();
    if count == 0 {
        form.error = Some(
            "none of the marked jobs takes this owner: nothing to write (Esc closes)".to_owned(),
        );
        return false;
    }
    let typed = confirm.text().trim();
    if typed != count.to_string() {
        form.error = Some(if typed.is_empty() {
            format!("nothing written: type {count}, the plan's count, first")
        } else {
            format!(
                "nothing written: {} is not the plan's count ({count})",
                inert(typed)
            )
        });
        return false;
    }
    let shown = plan.clone();
    let assigned = bulk::assign(
        &mut app.ledger,
        Selection::Jobs(&form.jobs),
        &shown.owner,
        shown.escalate_at,
        &app.model.reviewer,
        app.model.now,
        count,
    );
    match assigned {
        Ok(written) => {
            app.model.job_marks.clear(form.tab);
            form.error = None;
            form.outcome = Some(Outcome::Written(written_lines(&written, app)));
            true
        }
        Err(BulkOwnerError::NotAsExpected { plan: now, .. }) => {
            form.error = None;
            form.outcome = Some(Outcome::Refused(format!(
                "the ledger moved since the plan: {} of the marked jobs would take {} now, not {count}. The marks stay: Esc closes, o reads the plan again.",
                now.assigned.len(),
                inert(&now.owner)
            )));
            form.moved = moved_since(&shown, &now);
            false
        }
        Err(e) => {
            form.outcome = Some(Outcome::Refused(e.to_string()));
            false
        }
    }
}

/// What the outcome says once written: how many, whose, until when, what was not.
fn written_lines(plan: &OwnerPlan, app: &App) -> Vec<String> {
    let when = plan.escalate_at.map_or_else(
        || "with no escalation time".to_owned(),
        |t| format!("escalating at {}", t.readable(app.model.now)),
    );
    let mut lines = vec![format!(
        "Wrote {} in one transaction: {} owns {}, {when}; set by {}.",
        count_of(plan.assigned.len(), "owner assignment"),
        inert(&plan.owner),
        if plan.assigned.len() == 1 {
            "it"
        } else {
            "them"
        },
        inert(&app.model.reviewer)
    )];
    if !plan.unchanged.is_empty() {
        lines.push(format!(
            "{} had that owner and escalation time already: nothing written for them.",
            count_of(plan.unchanged.len(), "job")
        ));
    }
    if !plan.left_out.is_empty() {
        lines.push(format!(
            "Left out {}: no longer aged.",
            count_of(plan.left_out.len(), "job")
        ));
    }
    lines.push("The marks of this view are cleared.".to_owned());
    lines
}

/// Jobs named one by one in what changed since the plan.
const MOVED_NAMED: usize = 6;

/// What changed since the plan `shown`, job by job, as the plan read again `now`
/// says: owners set or changed meanwhile, jobs no longer aged.
fn moved_since(shown: &OwnerPlan, now: &OwnerPlan) -> Vec<String> {
    let owner = inert(&now.owner);
    let mut moved: Vec<String> = Vec::new();
    for job in &shown.assigned {
        if now.unchanged.contains(job) {
            moved.push(format!(
                "{} has {owner} already (set meanwhile)",
                inert(job)
            ));
        }
    }
    for job in &shown.unchanged {
        if now.assigned.contains(job) {
            moved.push(format!(
                "{} no longer has {owner} as it stood (changed meanwhile)",
                inert(job)
            ));
        }
    }
    for (job, why) in &now.left_out {
        if !shown.left_out.iter().any(|(left, _)| left == job) {
            moved.push(format!("{}: {why}", inert(job)));
        }
    }
    if moved.len() > MOVED_NAMED {
        let more = moved.len() - MOVED_NAMED;
        moved.truncate(MOVED_NAMED);
        moved.push(format!("… and {more} more"));
    }
    moved
}
