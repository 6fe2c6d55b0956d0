//! The forms, drawn over the view: answer, owner, and the request confirmation.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::outside;
use crate::clock::Timestamp;
use crate::console::model::Model;
use crate::console::model::form::{
    AnswerField, AnswerForm, Form, Outcome, OwnerField, OwnerForm, RequestForm, TextField,
};
use crate::console::model::withdraw::WithdrawForm;

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
        lines.push(Line::from(outside(error).yellow().bold()));
    }
    lines.push(Line::from(vec![
        Span::raw("Written at once, append-only, as ").dark_gray(),
        outside(&model.reviewer),
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
                lines.push(Line::from(outside(text).green()));
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
                outside(theirs.verdict.as_str()).bold(),
                Span::raw(" by "),
                outside(&theirs.reviewer),
                Span::raw(format!(" at {}", theirs.answered_at.readable(now))),
            ];
            if !theirs.note.is_empty() {
                spans.push(Span::raw(" — "));
                spans.push(outside(&theirs.note).italic());
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
            lines.push(Line::from(vec![Span::raw("Why: ").bold(), outside(reason)]));
        }
    }
}

/// The answer standing when a form opened, which the one written is appended after.
pub(super) fn standing_answer<'a>(
    verdict: &'a str,
    reviewer: &'a str,
    at: Timestamp,
    now: Timestamp,
) -> Line<'a> {
    Line::from(vec![
        Span::raw("Standing answer: ").dark_gray(),
        outside(verdict),
        Span::raw(" by "),
        outside(reviewer),
        Span::raw(format!(
            " at {}; yours is appended after it.",
            at.readable(now)
        )),
    ])
}

fn answer_lines<'a>(form: &'a AnswerForm, model: &'a Model) -> Vec<Line<'a>> {
    if let Some(outcome) = &form.outcome {
        let mut lines = Vec::new();
        outcome_lines(&mut lines, outcome, model.now);
        return lines;
    }
    let mut lines = vec![match &form.seen {
        Some(a) => standing_answer(a.verdict.as_str(), &a.reviewer, a.answered_at, model.now),
        None => Line::from(Span::raw("No answer yet.").dark_gray()),
    }];
    lines.push(Line::default());
    verdict_choices(
        &mut lines,
        form.field == AnswerField::Verdict,
        form.verdict,
        form.kind
            .verdicts()
            .iter()
            .map(|v| (v.as_str(), v.description())),
    );
    lines.push(Line::default());
    if form.chosen().needs_job() {
        lines.push(field(
            "Job id",
            &form.link_job,
            form.field == AnswerField::LinkJob,
        ));
    }
    lines.push(field("Note", &form.note, form.field == AnswerField::Note));
    lines.push(Line::default());
    signature(
        &mut lines,
        form.error.as_ref(),
        model,
        if form.chosen().needs_job() {
            "The callback is then judged against that job by the table, as if it had named it."
        } else {
            "An answer never changes a job's state."
        },
    );
    lines
}

fn owner_lines(form: &OwnerForm, now: Timestamp) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    if let Some(outcome) = &form.outcome {
        outcome_lines(&mut lines, outcome, now);
        return lines;
    }
    lines.push(field("Owner", &form.owner, form.field == OwnerField::Owner));
    lines.push(field(
        "Escalates at",
        &form.escalate_at,
        form.field == OwnerField::EscalateAt,
    ));
    lines.push(Line::from(
        Span::raw("               a time (2026-11-27T18:00:00Z), a delay from now (30m, 2h), or empty for none").dark_gray(),
    ));
    lines.push(Line::default());
    if let Some(error) = &form.error {
        lines.push(Line::from(outside(error).yellow().bold()));
    }
    lines
}

fn request_lines(form: &RequestForm, now: Timestamp) -> Vec<Line<'_>> {
    let mut lines = vec![Line::from(
        Span::raw("Checked before anything goes to the outbox:").bold(),
    )];
    for check in &form.checks {
        let mark = if check.passes {
            Span::raw(" ✓ ").green()
        } else {
            Span::raw(" ✗ ").light_red().bold()
        };
        lines.push(Line::from(vec![
            mark,
            Span::raw(format!("{:<18}", check.name)).bold(),
            outside(&check.finding),
        ]));
    }
    lines.push(Line::default());
    if let Some(outcome) = &form.outcome {
        outcome_lines(&mut lines, outcome, now);
        return lines;
    }
    lines.push(match &form.expected {
        Ok(()) => Line::from(
            Span::raw("It passes the checks now; they are made again when it is written.").green(),
        ),
        Err(reason) => Line::from(vec![
            Span::raw("It would be refused: ").light_red().bold(),
            outside(reason),
        ]),
    });
    lines.push(Line::from(
        Span::raw(
            "jobledger sends nothing itself: the request waits in the outbox for the job system.",
        )
        .dark_gray(),
    ));
    lines
}

fn withdraw_lines(form: &WithdrawForm, now: Timestamp) -> Vec<Line<'_>> {
    let r = &form.request;
    let attempt = r
        .attempt
        .map_or_else(String::new, |a| format!(" (attempt {a})"));
    let mut lines = vec![
        Line::from(vec![
            Span::raw(format!("Request {}: {} of ", r.id, r.request)).bold(),
            outside(&r.job_id).bold(),
            Span::raw(attempt),
            Span::raw(", asked by "),
            outside(&r.requested_by),
            Span::raw(format!(" at {}.", r.requested_at.readable(now))),
        ]),
        Line::from(
            Span::raw(
                "It stays in the outbox as asked, marked withdrawn by you, now: the job system will not take it.",
            )
            .dark_gray(),
        ),
        Line::default(),
    ];
    if let Some(outcome) = &form.outcome {
        outcome_lines(&mut lines, outcome, now);
        return lines;
    }
    lines.push(field("Note", &form.note, true));
    lines
}

/// The widest a form is drawn.
const POPUP_WIDTH: u16 = 110;

/// Draws the open form in the middle of `area`.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, form: &Form, model: &Model) {
    let (title, lines) = match form {
        Form::Answer(f) => {
            let job = f
                .job_id
                .as_deref()
                .map_or_else(|| "no job".into(), crate::inert::inert);
            (
                format!(" Answer callback #{} · {job} · {} ", f.seq, f.kind.as_str()),
                answer_lines(f, model),
            )
        }
        Form::Owner(f) => (
            format!(
                " Owner and escalation of {} ",
                crate::inert::inert(&f.job_id)
            ),
            owner_lines(f, model.now),
        ),
        Form::Request(f) => (
            format!(
                " Request a {} of {}? ",
                f.kind,
                crate::inert::inert(&f.job_id)
            ),
            request_lines(f, model.now),
        ),
        Form::Withdraw(f) => (
            format!(" Withdraw request {}? ", f.request.id),
            withdraw_lines(f, model.now),
        ),
        Form::Bulk(f) => (super::bulk::title(f), super::bulk::lines(f, model)),
        Form::Decisions(f) => (
            super::decisions_form::title(f),
            super::decisions_form::lines(f, model),
        ),
    };
    // Rows as wrapped inside the border, so a long refusal is not cut off at the end.
    let inner = usize::from(area.width.min(POPUP_WIDTH).saturating_sub(2).max(1));
    let rows: usize = lines
        .iter()
        .map(|line| line.width().div_ceil(inner).max(1))
        .sum();
    let height = u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2);
    let popup = area.centered(
        Constraint::Max(POPUP_WIDTH),
        Constraint::Length(height.min(area.height)),
    );
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .title(title.bold())
        .border_style(Style::new().fg(Color::Cyan))
        .style(Style::new().bg(Color::Black));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        popup,
    );
}
