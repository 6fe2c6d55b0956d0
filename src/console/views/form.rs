//! The forms, drawn over the view: answer, owner, and the request confirmation.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::form_lines::{field, outcome_lines, signature, standing_answer, verdict_choices};
use super::inert_span;
use super::when;
use crate::clock::{Timestamp, format_gap};
use crate::console::model::Model;
use crate::console::model::form::{
    AnswerField, AnswerForm, Form, OwnerField, OwnerForm, RequestForm,
};
use crate::console::model::withdraw::WithdrawForm;
use crate::decision::Disposition;
use crate::inert::inert;

/// What the answer is given on, kept in sight while the form covers the list: the
/// held callback's timeout, arrival and replacement side by side, and what the job's
/// other callbacks report beside it. Empty for a case that is not a held callback.
fn case_facts(seq: i64, model: &Model) -> Vec<Line<'static>> {
    let Some(row) = model.selected_callback().filter(|c| c.seq == seq) else {
        return Vec::new();
    };
    let now = model.now;
    let mut lines = Vec::new();
    // Told before writing: a colleague said they are on this case.
    if let Some(c) = row.claim.as_ref().filter(|c| c.reviewer != model.reviewer) {
        lines.push(Line::from(vec![
            Span::raw("⚠ ").yellow().bold(),
            Span::raw(inert(&c.reviewer).into_owned()).yellow().bold(),
            Span::raw(format!(
                " is on it (claimed {}, until {}): they may be answering it now",
                when(c.since, now),
                when(c.until, now)
            ))
            .yellow(),
        ]));
    }
    if row.disposition != Disposition::Hold {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        return lines;
    }
    let time = |at: Option<Timestamp>| at.map_or_else(|| "-".to_owned(), |t| when(t, now));
    let mut times = vec![
        Span::raw("timeout ").dark_gray(),
        Span::raw(time(row.timeout_at)),
        Span::raw(" · arrived ").dark_gray(),
        Span::raw(time(row.arrived_at)),
    ];
    if let (Some(arrived), Some(timeout)) = (row.arrived_at, row.timeout_at) {
        times.push(Span::raw(format!(
            " ({})",
            format_gap(arrived.seconds_since(timeout))
        )));
    }
    times.push(Span::raw(" · replacement ").dark_gray());
    match &row.replacement {
        None => times.push(Span::raw("none")),
        Some(rep) => {
            times.push(Span::raw(format!("#{} by ", rep.attempt)));
            times.push(Span::raw(inert(&rep.created_by).into_owned()));
            times.push(Span::raw(format!(
                ", {}",
                rep.state.map_or("state unknown", |s| s.as_str())
            )));
        }
    }
    lines.push(Line::from(times));
    if let Some(reading) = model.beside(seq) {
        lines.push(Line::from(vec![
            Span::raw("beside it ").dark_gray(),
            Span::raw(inert(reading).into_owned()),
        ]));
    }
    lines.push(Line::default());
    lines
}

fn answer_lines<'a>(form: &'a AnswerForm, model: &'a Model) -> Vec<Line<'a>> {
    if let Some(outcome) = &form.outcome {
        let mut lines = Vec::new();
        outcome_lines(&mut lines, outcome, model.now);
        return lines;
    }
    let mut lines = case_facts(form.seq, model);
    lines.push(match &form.seen {
        Some(a) => standing_answer(
            a.verdict.as_str(),
            &a.reviewer,
            a.written_by.as_deref(),
            a.answered_at,
            model.now,
        ),
        None => Line::from(Span::raw("No answer yet.").dark_gray()),
    });
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
    lines.push(Line::from(
        Span::raw("               empty, with no escalation time: the owner is cleared")
            .dark_gray(),
    ));
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
        lines.push(Line::from(inert_span(error).yellow().bold()));
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
            inert_span(&check.finding),
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
            inert_span(reason),
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
            inert_span(&r.job_id).bold(),
            Span::raw(attempt),
            Span::raw(", asked by "),
            inert_span(&r.requested_by),
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
        Form::BulkOwner(f) => (
            super::bulk_owner::title(f),
            super::bulk_owner::lines(f, model),
        ),
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
