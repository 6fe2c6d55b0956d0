//! The detail pane: the job's whole timeline, the answers, and the raw message.
//!
//! [`lines`] is pure and cut to the pane's width, so [`crate::console::layout`] can
//! tell the update step how far the pane scrolls and the drawing shows exactly those
//! lines.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::wrap::{cut, hang_of};
use super::{inert_span, role_span};
use crate::clock::{TimeForm, Timestamp, format_gap};
use crate::console::model::Model;
use crate::console::model::detail::{Detail, RawMessage};
use crate::evidence::timeline;
use crate::inert::inert_bytes;
use crate::store::{AnswerRow, CallbackRow, RejectedLine};

fn heading(text: &str) -> Vec<Span<'_>> {
    vec![Span::raw(text).bold().underlined()]
}

fn answer_line(a: &AnswerRow, now: Timestamp) -> Vec<Span<'_>> {
    let mut spans = vec![
        Span::raw(format!("  #{} on callback #{}: ", a.id, a.callback_seq)).dark_gray(),
        inert_span(a.verdict.as_str()).bold(),
        Span::raw(" by "),
        inert_span(&a.reviewer),
    ];
    spans.extend(role_span(a.written_by.as_deref()));
    spans.push(Span::raw(format!(" at {}", a.answered_at.readable(now))));
    if let Some(job) = &a.linked_job_id {
        spans.push(Span::raw(" → job "));
        spans.push(inert_span(job));
    }
    if !a.note.is_empty() {
        spans.push(Span::raw(" — ").dark_gray());
        spans.push(inert_span(&a.note).italic());
    }
    spans
}

fn callback_facts<'a>(out: &mut Vec<Vec<Span<'a>>>, c: &'a CallbackRow, now: Timestamp) {
    let mut title = vec![Span::raw(format!("Callback #{}", c.seq)).bold()];
    if let Some(job) = &c.job_id {
        title.push(Span::raw(" · job "));
        title.push(inert_span(job).bold());
    }
    title.push(Span::raw(format!(
        " · attempt {} · {} → {} ({})",
        c.attempt.map_or_else(|| "-".to_owned(), |a| a.to_string()),
        c.outcome.map_or("no outcome", |o| o.as_str()),
        c.disposition,
        c.reason
    )));
    out.push(title);
    let mut times = vec![Span::raw("  delivery ").dark_gray()];
    times.push(
        c.delivery_id
            .as_deref()
            .map_or_else(|| Span::raw("-"), inert_span),
    );
    times.push(Span::raw(format!(
        " · arrived {} · timeout {} · gap {}",
        c.arrived_at
            .map_or_else(|| "-".to_owned(), |t| t.readable(now)),
        c.timeout_at
            .map_or_else(|| "-".to_owned(), |t| t.readable(now)),
        // The gap's sign, said in words once: + is after the timeout, - before it.
        match (c.arrived_at, c.timeout_at) {
            (Some(a), Some(t)) => {
                let gap = a.seconds_since(t);
                let when = match gap.signum() {
                    1 => "after the timeout",
                    -1 => "before the timeout",
                    _ => "at the timeout",
                };
                format!("{} ({when})", format_gap(gap))
            }
            _ => "-".to_owned(),
        }
    )));
    out.push(times);
    if let Some(r) = &c.replacement {
        out.push(vec![
            Span::raw(format!("  replacement attempt #{} by ", r.attempt)).yellow(),
            inert_span(&r.created_by).yellow(),
            Span::raw(format!(
                " at {} ({})",
                r.started_at.readable(now),
                r.state.map_or("?", |s| s.as_str())
            ))
            .yellow(),
        ]);
    }
    if let Some(first) = c.first_report_seq {
        out.push(vec![Span::raw(format!(
            "  repeats callback #{first}, whose disposition stands"
        ))]);
    }
    if let Some(from) = c.linked_from_seq {
        out.push(vec![Span::raw(format!(
            "  judged again after a reviewer linked callback #{from} to this job"
        ))]);
    }
    if let Some(detail) = &c.detail {
        out.push(vec![
            Span::raw("  detail: ").dark_gray(),
            inert_span(detail),
        ]);
    }
}

/// What the pane says first about a rejected line: which line, what it was, why it
/// was not taken (the whole sentence), and when it was kept.
fn rejected_facts<'a>(out: &mut Vec<Vec<Span<'a>>>, r: &'a RejectedLine, now: Timestamp) {
    out.push(vec![
        Span::raw(format!("Rejected line #{} · ", r.seq)).bold(),
        r.event
            .as_deref()
            .map_or_else(|| Span::raw("no event that can be read"), inert_span)
            .bold(),
        Span::raw(" · "),
        Span::raw(r.code.as_str()).light_red().bold(),
    ]);
    out.push(vec![
        Span::raw("  reason ").dark_gray(),
        inert_span(&r.reason),
    ]);
    out.push(vec![
        Span::raw("  kept at ").dark_gray(),
        Span::raw(r.ingested_at.readable(now)),
        Span::raw(" · not applied").dark_gray(),
    ]);
}

fn raw_lines<'a>(out: &mut Vec<Vec<Span<'a>>>, raw: &'a RawMessage) {
    let how = if raw.pretty {
        "JSON, pretty-printed"
    } else if raw.cut {
        "first bytes, verbatim"
    } else {
        "verbatim, not JSON"
    };
    out.push(vec![
        Span::raw("Raw message").bold().underlined(),
        Span::raw(format!(
            " ({how}; {} bytes; control characters shown inert)",
            raw.len
        ))
        .dark_gray(),
    ]);
    // Each line of the message on its own line; the bytes themselves never reach the terminal.
    for line in raw.text.split(|b| *b == b'\n') {
        out.push(vec![Span::raw(inert_bytes(line))]);
    }
    if raw.cut {
        out.push(vec![
            Span::raw("  … the rest is in the ledger (input_lines.raw)").dark_gray(),
        ]);
    }
}

fn logical_lines(d: &Detail, now: Timestamp) -> Vec<Vec<Span<'_>>> {
    let mut out: Vec<Vec<Span<'_>>> = Vec::new();
    if let Some(c) = &d.callback {
        callback_facts(&mut out, c, now);
        out.push(Vec::new());
    }
    if let Some(r) = &d.rejected {
        rejected_facts(&mut out, r, now);
        out.push(Vec::new());
    }
    if let Some(earlier) = &d.earlier {
        out.push(vec![
            Span::raw("ANSWERED BEFORE ON THIS JOB — read it before answering again")
                .black()
                .on_yellow()
                .bold(),
        ]);
        out.push(answer_line(earlier, now));
        out.push(Vec::new());
    }
    if d.callback.is_some() {
        out.push(heading("Answers on this callback"));
        if d.answers.is_empty() {
            out.push(vec![Span::raw("  none yet").dark_gray()]);
        }
        out.extend(d.answers.iter().map(|a| answer_line(a, now)));
        out.push(Vec::new());
    }
    match &d.job {
        Some(job) => {
            out.push(vec![
                Span::raw("Job ").bold(),
                inert_span(&job.job_id).bold(),
                Span::raw(format!(
                    " · {} · accepted {} · attempt {} of a budget of {}",
                    job.state,
                    job.accepted_at.readable(now),
                    job.latest_attempt,
                    job.attempt_budget
                )),
            ]);
            if let Some(owner) = &d.owner {
                out.push(vec![
                    Span::raw("  owner ").dark_gray(),
                    inert_span(&owner.owner),
                    Span::raw(owner.escalate_at.map_or_else(String::new, |t| {
                        format!(", escalates at {}", t.readable(now))
                    })),
                ]);
            }
            if let Some(cause) = &job.failure_cause {
                out.push(vec![
                    Span::raw("  failure cause: ").dark_gray(),
                    inert_span(cause),
                ]);
            }
            if let Some(reference) = &d.output.reference {
                let state = if d.output.exists() {
                    "exists"
                } else {
                    "MISSING"
                };
                out.push(vec![
                    Span::raw("  output "),
                    inert_span(reference),
                    Span::raw(format!(" ({state})")),
                ]);
            }
            out.push(Vec::new());
            out.push(heading("Timeline"));
            for (at, line) in timeline::lines(&d.timeline, TimeForm::Readable(now)) {
                out.push(vec![
                    Span::raw(format!("  {}  ", at.readable(now))).dark_gray(),
                    // Timeline text carries ids, names and notes from events.
                    Span::raw(inert_span(&line).content.into_owned()),
                ]);
            }
        }
        None => out.push(no_job(d)),
    }
    if let Some(raw) = &d.raw {
        out.push(Vec::new());
        raw_lines(&mut out, raw);
    }
    out
}

/// What the pane says in place of the job's timeline when the ledger holds no such job.
fn no_job(d: &Detail) -> Vec<Span<'_>> {
    if d.rejected.is_none() {
        return vec![
            Span::raw("No job in the ledger matches this callback; there is no timeline.")
                .dark_gray(),
        ];
    }
    match &d.rejected_job_id {
        Some(job) => vec![
            Span::raw("No job ").dark_gray(),
            inert_span(job),
            Span::raw(" has been accepted into the ledger; there is no timeline.").dark_gray(),
        ],
        None => vec![
            Span::raw("The line names no job id that can be read; there is no timeline.")
                .dark_gray(),
        ],
    }
}

/// The detail pane's lines for a screen `screen_width` wide, its times read at `now`.
pub(crate) fn lines(d: &Detail, screen_width: u16, now: Timestamp) -> Vec<Line<'_>> {
    let width = usize::from(screen_width.saturating_sub(2));
    logical_lines(d, now)
        .into_iter()
        .flat_map(|spans| cut(&spans, width, hang_of(&spans, width)))
        .collect()
}

/// Draws the detail pane.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, d: &Detail, model: &Model) {
    let all = lines(d, area.width, model.now);
    let total = all.len();
    let visible = usize::from(area.height.saturating_sub(2));
    let scroll = d.scroll.min(total.saturating_sub(visible));
    let shown: Vec<Line<'_>> = all.into_iter().skip(scroll).take(visible).collect();
    let last = scroll + shown.len();
    let title = match (&d.callback, &d.rejected) {
        (Some(c), _) => format!(" Detail of callback #{} ", c.seq),
        (None, Some(r)) => format!(" Detail of rejected line #{} ", r.seq),
        (None, None) => " Detail of the job ".to_owned(),
    };
    let block = Block::bordered()
        .title(title.bold())
        .title_bottom(Line::from(format!(" lines {}–{last} of {total} ", scroll + 1)).dark_gray())
        .border_style(if model.form().is_none() {
            Style::new().fg(Color::Cyan)
        } else {
            Style::new().fg(Color::DarkGray)
        });
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
