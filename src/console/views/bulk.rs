//! The bulk answer, drawn over the view: the answer, then the plan (how many, which
//! rows are left out and why), then what was written.

use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};

use super::form::{field, outcome_lines};
use super::outside;
use crate::console::model::Model;
use crate::console::model::bulk::{BulkField, BulkForm, BulkStage, CONFIRM_ABOVE};
use crate::review::bulk::Plan;
use crate::store::CallbackRow;

/// Rows left out that the plan names one by one; the rest are counted.
const LEFT_OUT_SHOWN: usize = 6;
/// Rows to be answered that the plan names.
const ANSWERED_SHOWN: usize = 8;

/// The form's title.
pub(crate) fn title(form: &BulkForm) -> String {
    format!(
        " Answer {} marked callbacks at once · {} ",
        form.seqs.len(),
        form.tab.title()
    )
}

/// The form's lines, for its stage.
pub(crate) fn lines<'a>(form: &'a BulkForm, model: &'a Model) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    if let Some(outcome) = &form.outcome {
        outcome_lines(&mut lines, outcome);
        return lines;
    }
    match &form.stage {
        BulkStage::Answer => answer_lines(&mut lines, form, model),
        BulkStage::Plan { plan, confirm } => {
            plan_lines(&mut lines, plan, form, model);
            if form.needs_count() {
                lines.push(Line::default());
                lines.push(field("Type the count", confirm, true));
            }
        }
    }
    if let Some(error) = &form.error {
        lines.push(Line::from(outside(error).yellow().bold()));
    }
    lines
}

fn answer_lines<'a>(lines: &mut Vec<Line<'a>>, form: &'a BulkForm, model: &'a Model) {
    lines.push(Line::from(
        Span::raw(format!(
            "{} callbacks marked in {}. Each answer is recorded as if given alone; all are written in one transaction.",
            form.seqs.len(),
            form.tab.title()
        ))
        .dark_gray(),
    ));
    lines.push(Line::default());
    let on_verdict = form.field == BulkField::Verdict;
    lines.push(
        Line::from(Span::raw("Verdict").bold()).style(if on_verdict {
            Style::new().fg(Color::Cyan)
        } else {
            Style::new()
        }),
    );
    for (i, v) in form.verdicts.iter().enumerate() {
        let picked = i == form.verdict;
        let name = Span::raw(format!("{:<20}", v.as_str()));
        lines.push(Line::from(vec![
            Span::raw(if picked { " ● " } else { " ○ " }),
            if picked { name.bold().cyan() } else { name },
            Span::raw(v.description()).dark_gray(),
        ]));
    }
    lines.push(Line::default());
    lines.push(field("Note", &form.note, form.field == BulkField::Note));
    lines.push(Line::default());
    lines.push(Line::from(vec![
        Span::raw("As ").dark_gray(),
        outside(&model.reviewer),
        Span::raw(format!(
            " at {}. Enter shows the plan first: which rows take the verdict, which are left out and why. Nothing is written yet.",
            model.now.short()
        ))
        .dark_gray(),
    ]));
}

fn plan_lines<'a>(lines: &mut Vec<Line<'a>>, plan: &'a Plan, form: &'a BulkForm, model: &'a Model) {
    let n = plan.answered.len();
    lines.push(Line::from(vec![
        Span::raw(format!("{n} of {} marked callbacks", plan.selected())).bold(),
        Span::raw(" will be answered "),
        Span::raw(plan.verdict.as_str()).bold().cyan(),
        Span::raw(" by "),
        outside(&model.reviewer),
        Span::raw(format!(" at {}", model.now.short())),
        if form.note.text.trim().is_empty() {
            Span::raw(", no note.").dark_gray()
        } else {
            Span::raw(", note: ")
        },
        outside(form.note.text.trim()).italic(),
    ]));
    if !plan.answered.is_empty() {
        let shown: Vec<String> = plan
            .answered
            .iter()
            .take(ANSWERED_SHOWN)
            .map(|row| format!("#{}", row.seq))
            .collect();
        let more = n.saturating_sub(ANSWERED_SHOWN);
        lines.push(Line::from(
            Span::raw(format!(
                "  {}{}",
                shown.join(" "),
                if more > 0 {
                    format!(" … and {more} more")
                } else {
                    String::new()
                }
            ))
            .dark_gray(),
        ));
    }
    lines.push(Line::default());
    if plan.left_out.is_empty() {
        lines.push(Line::from("None of the marked rows is left out."));
    } else {
        lines.push(Line::from(
            Span::raw(format!("Left out {}:", plan.left_out.len()))
                .yellow()
                .bold(),
        ));
        for left in plan.left_out.iter().take(LEFT_OUT_SHOWN) {
            let job = left
                .job_id
                .as_deref()
                .map_or(Span::raw("-").dark_gray(), outside);
            lines.push(Line::from(vec![
                Span::raw(format!("  #{} ", left.seq)).bold(),
                job,
                Span::raw("  "),
                Span::raw(crate::inert::inert(&left.why.to_string()).into_owned()),
            ]));
        }
        let more = plan.left_out.len().saturating_sub(LEFT_OUT_SHOWN);
        if more > 0 {
            lines.push(Line::from(
                Span::raw(format!("  … and {more} more")).dark_gray(),
            ));
        }
    }
    lines.push(Line::default());
    let how = if form.needs_count() {
        format!("More than {CONFIRM_ABOVE}: type {n} to confirm, then Enter writes them")
    } else {
        "Enter writes them".to_owned()
    };
    lines.push(Line::from(
        Span::raw(format!(
            "{how}, in one transaction; each row is checked again as it is written. Esc closes, nothing written."
        ))
        .dark_gray(),
    ));
}

/// The width of the mark column at the left of a callback list.
pub(crate) const MARK_COLUMN: u16 = 1;

/// The mark of a callback row: `✓` when marked for a bulk answer.
pub(crate) fn mark_cell(model: &Model, row: Option<&CallbackRow>) -> Line<'static> {
    match row {
        Some(row) if model.marks.is_marked(model.tab, row.seq) => Line::from("✓".bold().cyan()),
        _ => Line::default(),
    }
}

/// What a list's title adds when rows are marked: ` · 12 marked`.
pub(crate) fn marked_in_title(model: &Model) -> String {
    match model.marks.count(model.tab) {
        0 => String::new(),
        n => format!(" · {n} marked"),
    }
}
