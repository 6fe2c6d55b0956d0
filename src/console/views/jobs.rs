//! The job views: Aged (stuck jobs, for escalation owners) and Failed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Stylize;
use ratatui::text::Span;
use ratatui::widgets::Cell;

use super::{ListFrame, outside, when, when_or_dash};
use crate::clock::format_gap;
use crate::console::app::App;
use crate::reconcile::AgedJob;

/// A length of time without the sign of a gap: `3h50m`.
fn span_of(seconds: i64) -> String {
    format_gap(seconds)
        .trim_start_matches(['+', '-'])
        .to_owned()
}

fn title(app: &App, what: &str, count: i64) -> String {
    let filtered = app
        .filter()
        .map_or(String::new(), |_| " (filtered)".to_owned());
    format!(" {} · {count} {what}{filtered} ", app.tab.title())
}

/// Open jobs past their expected age, with owner and escalation.
pub(crate) fn aged(frame: &mut Frame<'_>, area: Rect, app: &App) {
    const HEADER: &[&str] = &[
        "job",
        "state",
        "age",
        "expected",
        "owner",
        "escalates at",
        "escalation",
    ];
    const WIDTHS: &[Constraint] = &[
        Constraint::Length(16),
        Constraint::Length(10),
        Constraint::Length(8),
        Constraint::Length(8),
        Constraint::Length(20),
        Constraint::Length(14),
        Constraint::Min(12),
    ];
    let page = &app.aged;
    let rows = page
        .rows
        .iter()
        .map(|row| {
            let judged = AgedJob::at(row, app.now);
            let owner = row.owner.as_ref().map_or_else(
                || Span::raw("unowned").light_red().bold(),
                |o| outside(&o.owner),
            );
            let escalation = match judged.escalate_at {
                _ if judged.overdue => Span::raw("overdue").white().on_red().bold(),
                Some(at) => Span::raw(format!("in {}", span_of(at.seconds_since(app.now)))),
                None if judged.unowned => Span::raw("nobody will be told").light_red(),
                None => Span::raw("no escalation time").dark_gray(),
            };
            vec![
                Cell::from(outside(&row.job_id)),
                Cell::from(row.state.as_str()),
                Cell::from(span_of(judged.age_s)),
                Cell::from(span_of(judged.expected_age_s)),
                Cell::from(owner),
                Cell::from(when_or_dash(judged.escalate_at)),
                Cell::from(escalation),
            ]
        })
        .collect();
    let count = app.counts.aged.matching.unwrap_or(app.counts.aged.all);
    ListFrame {
        title: title(app, "open past their expected age", count),
        header: HEADER,
        widths: WIDTHS,
        rows,
        narrow_drops: &[3, 5],
        selected: page.selected,
        more_before: page.more_before,
        more_after: page.more_after,
        empty: "No job is past its expected age.",
        focused: app.detail.is_none(),
    }
    .draw(frame, area);
}

/// Failed jobs: cause, permanent or transient, attempts used of the budget.
pub(crate) fn failed(frame: &mut Frame<'_>, area: Rect, app: &App) {
    const HEADER: &[&str] = &["job", "failed at", "kind", "attempts", "next", "cause"];
    const WIDTHS: &[Constraint] = &[
        Constraint::Length(16),
        Constraint::Length(14),
        Constraint::Length(9),
        Constraint::Length(8),
        Constraint::Length(16),
        Constraint::Fill(1),
    ];
    let page = &app.failed;
    let rows = page
        .rows
        .iter()
        .map(|item| {
            let r = &item.row;
            let kind = match r.permanent {
                Some(true) => Span::raw("permanent").light_red(),
                Some(false) => Span::raw("transient").yellow(),
                None => Span::raw("unknown").dark_gray(),
            };
            let left = r.attempts_used < r.attempt_budget;
            let next = match (r.permanent, left) {
                (Some(true), _) => Span::raw("review the cause"),
                (_, true) => Span::raw("retry possible").green(),
                (_, false) => Span::raw("budget spent").dark_gray(),
            };
            vec![
                Cell::from(outside(&r.job_id)),
                Cell::from(when(r.failed_at)),
                Cell::from(kind),
                Cell::from(format!("{} of {}", r.attempts_used, r.attempt_budget)),
                Cell::from(next),
                Cell::from(
                    r.cause
                        .as_deref()
                        .map_or_else(|| Span::raw("(no cause given)").dark_gray(), outside),
                ),
            ]
        })
        .collect();
    let count = app.counts.failed.matching.unwrap_or(app.counts.failed.all);
    ListFrame {
        title: title(app, "failed jobs", count),
        header: HEADER,
        widths: WIDTHS,
        rows,
        narrow_drops: &[4, 1],
        selected: page.selected,
        more_before: page.more_before,
        more_after: page.more_after,
        empty: "No failed jobs.",
        focused: app.detail.is_none(),
    }
    .draw(frame, area);
}
