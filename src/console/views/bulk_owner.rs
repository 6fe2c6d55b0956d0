//! The bulk owner form, drawn over the Aged view: the owner and escalation time, then
//! the plan (how many take the owner, how many have it already, which are left out)
//! with the count to type, then what was written, or why nothing was.

use ratatui::style::Stylize;
use ratatui::text::{Line, Span};

use super::form_lines::{field, outcome_lines};
use super::inert_span;
use crate::console::model::Model;
use crate::console::model::bulk::count_of;
use crate::console::model::bulk_owner::{BulkOwnerForm, OwnersStage, some_jobs};
use crate::console::model::form::OwnerField;
use crate::escalation::bulk::OwnerPlan;

/// Where a field's explanation starts: under the field's text, past its label.
const UNDER_FIELD: &str = "               ";

/// The form's title.
pub(crate) fn title(form: &BulkOwnerForm) -> String {
    format!(
        " Owner for {} at once · {} ",
        count_of(form.jobs.len(), "marked job"),
        form.tab.title()
    )
}

/// The form's lines, for its stage.
pub(crate) fn lines<'a>(form: &'a BulkOwnerForm, model: &'a Model) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    if let Some(outcome) = &form.outcome {
        outcome_lines(&mut lines, outcome, model.now);
        if !form.moved.is_empty() {
            lines.push(Line::from(Span::raw("Since the plan:").bold()));
            for moved in &form.moved {
                lines.push(Line::from(vec![Span::raw("  "), inert_span(moved)]));
            }
        }
        return lines;
    }
    match &form.stage {
        OwnersStage::Owner => owner_lines(&mut lines, form, model),
        OwnersStage::Plan { plan, .. } => plan_lines(&mut lines, plan, form, model),
    }
    lines
}

fn owner_lines<'a>(lines: &mut Vec<Line<'a>>, form: &'a BulkOwnerForm, model: &'a Model) {
    lines.push(Line::from(
        Span::raw(format!(
            "{} marked in {}. Each takes the owner as if set alone; all are written in one transaction.",
            count_of(form.jobs.len(), "job"),
            form.tab.title()
        ))
        .dark_gray(),
    ));
    lines.push(Line::default());
    lines.push(field("Owner", &form.owner, form.field == OwnerField::Owner));
    lines.push(field(
        "Escalates at",
        &form.escalate_at,
        form.field == OwnerField::EscalateAt,
    ));
    lines.push(Line::from(
        Span::raw(format!(
            "{UNDER_FIELD}a time (2026-11-27T18:00:00Z), a delay from now (30m, 2h), or empty for none"
        ))
        .dark_gray(),
    ));
    lines.push(Line::default());
    if let Some(error) = &form.error {
        lines.push(Line::from(inert_span(error).yellow().bold()));
    }
    lines.push(Line::from(vec![
        Span::raw("As ").dark_gray(),
        inert_span(&model.reviewer),
        Span::raw(format!(
            " at {}. Enter shows the plan first: which jobs take the owner, which have it already. Nothing is written yet.",
            model.now.readable(model.now)
        ))
        .dark_gray(),
    ]));
}

fn plan_lines<'a>(
    lines: &mut Vec<Line<'a>>,
    plan: &'a OwnerPlan,
    form: &'a BulkOwnerForm,
    model: &'a Model,
) {
    let n = plan.assigned.len();
    let when = plan.escalate_at.map_or_else(
        || ", no escalation time".to_owned(),
        |t| format!(", escalating at {}", t.readable(model.now)),
    );
    lines.push(Line::from(vec![
        Span::raw(format!(
            "{n} of {}",
            count_of(form.jobs.len(), "marked job")
        ))
        .bold(),
        Span::raw(" will take "),
        inert_span(&plan.owner).bold().cyan(),
        Span::raw(format!("{when}; set by ")),
        inert_span(&model.reviewer),
        Span::raw(format!(" at {}.", model.now.readable(model.now))),
    ]));
    // What to do comes before the lists, so a short terminal never hides it.
    if n > 0
        && let Some(confirm) = form.confirm()
    {
        lines.push(field("Count", confirm, true));
    }
    if let Some(error) = &form.error {
        lines.push(Line::from(inert_span(error).yellow().bold()));
    }
    lines.push(Line::from(
        Span::raw(if n > 0 {
            format!(
                "Type {n}, the plan's count, then Enter writes them in one transaction (refused, nothing written, if the ledger moved since); Esc closes, nothing written."
            )
        } else {
            "None of the marked jobs takes it: nothing to write. Esc closes.".to_owned()
        })
        .dark_gray(),
    ));
    lines.push(Line::default());
    jobs_line(lines, "Take the owner", &plan.assigned);
    if plan.unchanged.is_empty() {
        lines.push(Line::from(
            "Unchanged: none of them has this owner and escalation time already.",
        ));
    } else {
        jobs_line(lines, "Unchanged, they have it already", &plan.unchanged);
    }
    if !plan.left_out.is_empty() {
        lines.push(Line::from(
            Span::raw(format!("Left out {}:", plan.left_out.len()))
                .yellow()
                .bold(),
        ));
        for (job, why) in plan.left_out.iter().take(LEFT_OUT_NAMED) {
            lines.push(Line::from(vec![
                Span::raw("  "),
                inert_span(job),
                Span::raw(format!(": {why}")),
            ]));
        }
        if plan.left_out.len() > LEFT_OUT_NAMED {
            lines.push(Line::from(
                Span::raw(format!(
                    "  … and {} more",
                    plan.left_out.len() - LEFT_OUT_NAMED
                ))
                .dark_gray(),
            ));
        }
    }
}

/// Jobs left out named one by one, each with why.
const LEFT_OUT_NAMED: usize = 5;

/// `Take the owner (3): booking-1042 booking-1043 …`; nothing when there are none.
fn jobs_line(lines: &mut Vec<Line<'_>>, what: &str, jobs: &[String]) {
    if jobs.is_empty() {
        return;
    }
    let named = some_jobs(jobs);
    lines.push(Line::from(vec![
        Span::raw(format!("{what} ({}): ", jobs.len())).bold(),
        Span::raw(inert_span(&named).content.into_owned()),
    ]));
}
