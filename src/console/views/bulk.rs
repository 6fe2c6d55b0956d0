//! The bulk answer, drawn over the view: the answer, then the plan (how many, which
//! rows are left out and why), then what was written.

use ratatui::style::Stylize;
use ratatui::text::{Line, Span};

use super::form_lines::{field, outcome_lines, verdict_choices};
use super::inert_span;
use crate::console::model::Model;
use crate::console::model::bulk::{
    BulkField, BulkForm, BulkStage, CONFIRM_ABOVE, count_of, some_of,
};
use crate::review::bulk::Plan;
use crate::store::{AgedJobRow, CallbackRow};

/// Reasons for leaving rows out that the plan names; the rest are counted.
const GROUPS_SHOWN: usize = 5;

/// The form's title.
pub(crate) fn title(form: &BulkForm) -> String {
    format!(
        " Answer {} at once · {} ",
        count_of(form.seqs.len(), "marked callback"),
        form.tab.title()
    )
}

/// The form's lines, for its stage.
pub(crate) fn lines<'a>(form: &'a BulkForm, model: &'a Model) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    if let Some(outcome) = &form.outcome {
        outcome_lines(&mut lines, outcome, model.now);
        return lines;
    }
    match &form.stage {
        BulkStage::Answer => {
            answer_lines(&mut lines, form, model);
            if let Some(error) = &form.error {
                lines.push(Line::from(inert_span(error).yellow().bold()));
            }
        }
        // The plan shows its error under the count, before the lists.
        BulkStage::Plan { plan, .. } => plan_lines(&mut lines, plan, form, model),
    }
    lines
}

fn answer_lines<'a>(lines: &mut Vec<Line<'a>>, form: &'a BulkForm, model: &'a Model) {
    lines.push(Line::from(
        Span::raw(format!(
            "{} marked in {}. Each answer is recorded as if given alone; all are written in one transaction.",
            count_of(form.seqs.len(), "callback"),
            form.tab.title()
        ))
        .dark_gray(),
    ));
    lines.push(Line::default());
    verdict_choices(
        lines,
        form.field == BulkField::Verdict,
        form.verdict,
        form.verdicts.iter().map(|v| (v.as_str(), v.description())),
    );
    lines.push(Line::default());
    lines.push(field("Note", &form.note, form.field == BulkField::Note));
    lines.push(Line::default());
    lines.push(Line::from(vec![
        Span::raw("As ").dark_gray(),
        inert_span(&model.reviewer),
        Span::raw(format!(
            " at {}. Enter shows the plan first: which rows take the verdict, which are left out and why. Nothing is written yet.",
            model.now.readable(model.now)
        ))
        .dark_gray(),
    ]));
}

fn plan_lines<'a>(lines: &mut Vec<Line<'a>>, plan: &'a Plan, form: &'a BulkForm, model: &'a Model) {
    let n = plan.answered.len();
    lines.push(Line::from(vec![
        Span::raw(format!(
            "{n} of {}",
            count_of(plan.selected(), "marked callback")
        ))
        .bold(),
        Span::raw(" will be answered "),
        Span::raw(plan.verdict.as_str()).bold().cyan(),
        Span::raw(" by "),
        inert_span(&model.reviewer),
        Span::raw(format!(" at {}", model.now.readable(model.now))),
        if form.note.text().trim().is_empty() {
            Span::raw(", no note.").dark_gray()
        } else {
            Span::raw(", note: ")
        },
        inert_span(form.note.text().trim()).italic(),
    ]));
    // What to do comes before the lists, so a short terminal never hides it.
    if let BulkStage::Plan { confirm, .. } = &form.stage
        && form.needs_count()
    {
        lines.push(field("Count", confirm, true));
    }
    if let Some(error) = &form.error {
        lines.push(Line::from(inert_span(error).yellow().bold()));
    }
    let how = if form.needs_count() {
        format!("More than {CONFIRM_ABOVE}: type {n}, then Enter writes them")
    } else {
        "Enter writes them".to_owned()
    };
    lines.push(Line::from(
        Span::raw(format!(
            "{how} in one transaction, each row checked again as it is written; Esc closes, nothing written."
        ))
        .dark_gray(),
    ));
    lines.push(Line::default());
    let groups = plan.left_out_by_reason();
    if groups.is_empty() {
        lines.push(Line::from("None of the marked rows is left out."));
    } else {
        lines.push(Line::from(
            Span::raw(format!("Left out {}:", plan.left_out.len()))
                .yellow()
                .bold(),
        ));
        for (why, seqs) in groups.iter().take(GROUPS_SHOWN) {
            lines.push(Line::from(vec![
                Span::raw(format!("  {} ", seqs.len())).bold(),
                Span::raw(crate::inert::inert(why).into_owned()),
                Span::raw(format!(": {}", some_of(seqs))).dark_gray(),
            ]));
        }
        if groups.len() > GROUPS_SHOWN {
            lines.push(Line::from(
                Span::raw(format!(
                    "  … and {} reasons more",
                    groups.len() - GROUPS_SHOWN
                ))
                .dark_gray(),
            ));
        }
    }
    if !plan.answered.is_empty() {
        let seqs: Vec<i64> = plan.answered.iter().map(|row| row.seq).collect();
        lines.push(Line::from(vec![
            Span::raw("To answer: ").bold(),
            Span::raw(some_of(&seqs)).dark_gray(),
        ]));
    }
}

/// The width of the mark column at the left of a callback list.
pub(crate) const MARK_COLUMN: u16 = 1;

/// The mark of a row: `✓` when marked for a bulk write (a callback for an answer, an
/// aged job for an owner). A character, so that it shows without colour too.
pub(crate) fn mark_cell(
    model: &Model,
    callback: Option<&CallbackRow>,
    aged: Option<&AgedJobRow>,
) -> Line<'static> {
    let marked = match (callback, aged) {
        (Some(row), _) => model.callback_marks.is_marked(model.tab, &row.seq),
        (None, Some(row)) => model.job_marks.is_marked(model.tab, row.job_id.as_str()),
        (None, None) => false,
    };
    if marked {
        Line::from("✓".bold().cyan())
    } else {
        Line::default()
    }
}

/// What a list's title adds when rows are marked: ` · 12 marked`.
pub(crate) fn marked_in_title(model: &Model) -> String {
    match model.marked() {
        0 => String::new(),
        n => format!(" · {n} marked"),
    }
}
