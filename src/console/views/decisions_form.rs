//! The answer form on a job's divergent decisions: the standing answer, the verdicts
//! with what each says, a note, and what came of it.

use ratatui::style::Stylize;
use ratatui::text::{Line, Span};

use super::form_lines::{field, outcome_lines, signature, standing_answer, verdict_choices};
use crate::console::model::Model;
use crate::console::model::decisions::DecisionsForm;
use crate::decision::DecisionVerdict;
use crate::inert::inert;

/// The form's title.
pub(crate) fn title(form: &DecisionsForm) -> String {
    format!(
        " Answer the divergent decisions of {} ",
        inert(&form.job_id)
    )
}

/// The form's lines, or its outcome once submitted.
pub(crate) fn lines<'a>(form: &'a DecisionsForm, model: &'a Model) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    if let Some(outcome) = &form.outcome {
        outcome_lines(&mut lines, outcome, model.now);
        return lines;
    }
    lines.push(match &form.seen {
        Some(a) => standing_answer(
            a.verdict.as_str(),
            &a.reviewer,
            a.written_by.as_deref(),
            a.answered_at,
            model.now,
        ),
        None => Line::from(
            Span::raw("No answer yet. The job's timeline (Enter) lists every decision.")
                .dark_gray(),
        ),
    });
    lines.push(Line::default());
    verdict_choices(
        &mut lines,
        !form.on_note,
        form.verdict,
        DecisionVerdict::ALL
            .iter()
            .map(|v| (v.as_str(), v.description())),
    );
    lines.push(Line::default());
    lines.push(field("Note", &form.note, form.on_note));
    lines.push(Line::default());
    signature(
        &mut lines,
        form.error.as_ref(),
        model,
        "An answer records what stands; it acts on nothing downstream.",
    );
    lines
}
