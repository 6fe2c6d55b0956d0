//! The lines every form is drawn from: a text field, the verdict choices, the
//! reviewer's signature, the outcome and the standing answer. The answer, owner,
//! request, withdraw, bulk and decisions forms all use them; the dispatching form
//! module draws the bulk and decisions forms, so these live apart from all of them.

use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};

use super::{inert_span, role_span};
use crate::clock::Timestamp;
use crate::console::field::{Outcome, TextField};
use crate::console::model::Model;

/// The focus is drawn in the focus colour and underlined, so that it shows without
/// colour too (`NO_COLOR`).
pub(super) fn field<'a>(label: &'a str, text: &'a TextField, focused: bool) -> Line<'a> {
    let mut label = Span::raw(format!("{label:<14}")).bold();
    if focused {
        label = label.cyan().underlined();
    }
    let mut spans = vec![label, Span::raw("[ ")];
    spans.extend(super::text_field(text, focused));
    spans.push(Span::raw(" ]"));
    Line::from(spans)
}

/// The verdicts a form offers, `picked` marked, each with what it says, under a
/// heading drawn in the focus colour (and underlined) while the verdict has the focus.
pub(super) fn verdict_choices(
    lines: &mut Vec<Line<'_>>,
    focused: bool,
    picked: usize,
    choices: impl Iterator<Item = (&'static str, &'static str)>,
) {
    let heading = Span::raw("Verdict").bold();
    lines.push(Line::from(if focused {
        heading.cyan().underlined()
    } else {
        heading
    }));
    for (i, (verdict, says)) in choices.enumerate() {
        let name = Span::raw(format!("{verdict:<20}"));
        lines.push(Line::from(vec![
            Span::raw(if i == picked { " ● " } else { " ○ " }),
            if i == picked {
                name.bold().cyan()
            } else {
                name
            },
            Span::raw(says).dark_gray(),
        ]));
    }
}

/// A form's problem to fix (if any), then who writes and when, and what the write means.
pub(super) fn signature<'a>(
    lines: &mut Vec<Line<'a>>,
    error: Option<&'a String>,
    model: &'a Model,
    meaning: &str,
) {
    if let Some(error) = error {
        lines.push(Line::from(inert_span(error).yellow().bold()));
    }
    lines.push(Line::from(vec![
        Span::raw("Written at once, append-only, as ").dark_gray(),
        inert_span(&model.reviewer),
        Span::raw(format!(" at {}. {meaning}", model.now.readable(model.now))).dark_gray(),
    ]));
}

/// A line that says, in bold on `bg`, that nothing was written.
fn banner(text: &'static str, fg: Color, bg: Color) -> Line<'static> {
    Line::from(Span::styled(text, Style::new().fg(fg).bg(bg).bold()))
}

pub(super) fn outcome_lines<'a>(lines: &mut Vec<Line<'a>>, outcome: &'a Outcome, now: Timestamp) {
    match outcome {
        Outcome::Written(written) => {
            for text in written {
                lines.push(Line::from(inert_span(text).green()));
            }
        }
        Outcome::AnsweredMeanwhile(theirs) => {
            lines.push(banner(
                "Someone else answered this callback meanwhile. Nothing was written.",
                Color::Black,
                Color::Yellow,
            ));
            lines.push(Line::default());
            let mut spans = vec![
                Span::raw("Their answer: ").bold(),
                inert_span(theirs.verdict.as_str()).bold(),
                Span::raw(" by "),
                inert_span(&theirs.reviewer),
            ];
            spans.extend(role_span(theirs.written_by.as_deref()));
            spans.push(Span::raw(format!(
                " at {}",
                theirs.answered_at.readable(now)
            )));
            if !theirs.note.is_empty() {
                spans.push(Span::raw(" — "));
                spans.push(inert_span(&theirs.note).italic());
            }
            lines.push(Line::from(spans));
            lines.push(Line::default());
            lines.push(Line::from(
                "The row now shows their answer. To answer over it, open the answer form again: it will start from theirs.",
            ));
        }
        Outcome::Refused(reason) => {
            lines.push(banner(
                "Refused. Nothing was written.",
                Color::White,
                Color::Red,
            ));
            lines.push(Line::from(vec![
                Span::raw("Why: ").bold(),
                inert_span(reason),
            ]));
        }
    }
}

/// The answer standing when a form opened, which the one written is appended after.
/// `written_by`: the database role that wrote it, when the ledger knows it.
pub(super) fn standing_answer<'a>(
    verdict: &'a str,
    reviewer: &'a str,
    written_by: Option<&str>,
    at: Timestamp,
    now: Timestamp,
) -> Line<'a> {
    let mut spans = vec![
        Span::raw("Standing answer: ").dark_gray(),
        inert_span(verdict),
        Span::raw(" by "),
        inert_span(reviewer),
    ];
    spans.extend(role_span(written_by));
    spans.push(Span::raw(format!(
        " at {}; yours is appended after it.",
        at.readable(now)
    )));
    Line::from(spans)
}
