//! The jobs behind a Reconcile finding (Enter on the finding): a list like the others,
//! each job with its state and when it got there; Enter opens its timeline.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Stylize;
use ratatui::text::{Line, Span};

use super::preview::{self, when_ago};
use super::{Column, ListView, inert_span, table, when};
use crate::console::model::Model;
use crate::console::model::page::Page;
use crate::store::{Finding, FindingJob};

const JOB: Column<FindingJob> =
    Column::<FindingJob>::new("job", Constraint::Length(12), |row, _| {
        Line::from(inert_span(&row.job_id))
    })
    .grows();
const STATE: Column<FindingJob> =
    Column::<FindingJob>::new("state", Constraint::Length(14), |row, _| {
        Line::from(Span::raw(row.state.as_str()).yellow())
    });
const ATTEMPT: Column<FindingJob> =
    Column::<FindingJob>::new("attempt", Constraint::Length(7), |row, _| {
        Line::from(row.latest_attempt.to_string())
    })
    .gives_way(2);
const ACCEPTED: Column<FindingJob> =
    Column::<FindingJob>::new("accepted", Constraint::Length(14), |row, now| {
        Line::from(when(row.accepted_at, now))
    })
    .grows()
    .gives_way(1);
const SINCE: Column<FindingJob> =
    Column::<FindingJob>::new("in this state since", Constraint::Length(19), |row, now| {
        Line::from(when(row.state_changed_at, now))
    });
/// The standing answer on a job's divergent decisions, or that it is still open.
const ANSWER: Column<FindingJob> =
    Column::<FindingJob>::new("answer", Constraint::Length(26), |row, _| answer(row)).gives_way(3);

const COLUMNS: &[Column<FindingJob>] = &[JOB, STATE, ATTEMPT, ACCEPTED, SINCE];
const ANSWERED_COLUMNS: &[Column<FindingJob>] = &[JOB, ANSWER, STATE, ATTEMPT, ACCEPTED, SINCE];

fn answer(row: &FindingJob) -> Line<'_> {
    match &row.answer {
        // Green only for an answer that closes the finding, as the held callbacks'.
        Some((verdict, reviewer)) => Line::from(vec![
            if verdict.closes() {
                Span::raw(verdict.as_str()).green()
            } else {
                Span::raw(verdict.as_str()).yellow()
            },
            Span::raw(" by ").dark_gray(),
            inert_span(reviewer),
        ]),
        None => Line::from(Span::raw("open (a answers)").light_red()),
    }
}

fn facts(row: &FindingJob, now: crate::clock::Timestamp) -> Vec<(&'static str, Line<'_>)> {
    vec![
        ("job", Line::from(inert_span(&row.job_id))),
        (
            "state",
            Line::from(vec![
                Span::raw(row.state.as_str()).yellow(),
                Span::raw(format!(" · attempt {}", row.latest_attempt)),
            ]),
        ),
        ("since", Line::from(when_ago(row.state_changed_at, now))),
        ("accepted", Line::from(when_ago(row.accepted_at, now))),
    ]
}

fn answered_facts(row: &FindingJob, now: crate::clock::Timestamp) -> Vec<(&'static str, Line<'_>)> {
    let mut lines = facts(row, now);
    lines.insert(1, ("answer", answer(row)));
    lines
}

const fn jobs(what: &'static str, empty: &'static str) -> ListView<FindingJob> {
    ListView {
        what,
        open_what: what,
        columns: COLUMNS,
        facts,
        empty,
    }
}

const MISSING_TERMINAL: ListView<FindingJob> = jobs(
    "jobs without a terminal record (Esc: back to the findings)",
    "Every accepted job has a terminal record.",
);
const MISSING_OUTPUT: ListView<FindingJob> = jobs(
    "successes without an output object (Esc: back to the findings)",
    "Every success has its output object.",
);
const MISSING_NOTIFICATION: ListView<FindingJob> = jobs(
    "terminal jobs never notified (Esc: back to the findings)",
    "Every terminal job was notified.",
);

const DIVERGENT_DECISIONS: ListView<FindingJob> = ListView {
    columns: ANSWERED_COLUMNS,
    facts: answered_facts,
    ..jobs(
        "jobs decided under more than one decision id (Enter: its decisions; Esc: back)",
        "No job was decided under more than one decision id.",
    )
};
const CONFLICTING_SUBMISSIONS: ListView<FindingJob> = jobs(
    "job ids submitted again with another identity (Enter: its submissions; Esc: back)",
    "No job id was submitted again with another identity.",
);

/// Draws the jobs of the opened finding into `area`, and the selected job's preview.
pub(crate) fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    preview: Option<Rect>,
    model: &Model,
    page: &Page<FindingJob>,
) {
    let view = match page.source {
        Finding::MissingTerminal => &MISSING_TERMINAL,
        Finding::MissingOutput => &MISSING_OUTPUT,
        Finding::MissingNotification => &MISSING_NOTIFICATION,
        Finding::DivergentDecisions => &DIVERGENT_DECISIONS,
        Finding::ConflictingSubmissions => &CONFLICTING_SUBMISSIONS,
    };
    let fitted = table::draw_list(frame, area, model, view, page);
    if let Some(preview) = preview {
        preview::draw(frame, preview, model, view, page, &fitted);
    }
}
