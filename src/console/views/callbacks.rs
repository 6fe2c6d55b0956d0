//! The callback views: Held, Quarantined and All callbacks.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::{ListFrame, answer_cell, outside, when_or_dash};
use crate::clock::format_gap;
use crate::console::app::App;
use crate::console::page::{CallbackItem, Page};
use crate::decision::Disposition;
use crate::inert::inert_bytes;
use crate::store::{CallbackRow, Replacement};

fn gap_cell(row: &CallbackRow) -> Span<'static> {
    match (row.arrived_at, row.timeout_at) {
        (Some(arrived), Some(timeout)) => {
            let gap = arrived.seconds_since(timeout);
            let text = format_gap(gap);
            // Arriving after the timeout is what makes a callback late.
            if gap > 0 {
                Span::raw(text).yellow()
            } else {
                Span::raw(text)
            }
        }
        _ => Span::raw("-").dark_gray(),
    }
}

fn job_cell(row: &CallbackRow) -> Span<'_> {
    row.job_id
        .as_deref()
        .map_or_else(|| Span::raw("-").dark_gray(), outside)
}

fn replacement_cell(replacement: Option<&Replacement>) -> Line<'_> {
    let Some(r) = replacement else {
        return Line::from(Span::raw("none").dark_gray());
    };
    let state = r.state.map_or("?", |s| s.as_str());
    Line::from(vec![
        Span::raw(format!("#{} ", r.attempt)).bold(),
        outside(&r.created_by),
        Span::raw(format!(" {} ", super::when(r.started_at))).dark_gray(),
        Span::raw(state),
    ])
}

/// The widths with the first (the sequence number) wide enough for the page's largest:
/// past #9999 a fixed column cut the number a reviewer types into `answer`.
fn seq_fits(page: &Page<CallbackItem>, widths: &[Constraint]) -> Vec<Constraint> {
    let widest = page
        .rows
        .iter()
        .map(|item| format!("#{}", item.row.seq).len())
        .max()
        .unwrap_or(0);
    let mut widths = widths.to_vec();
    if let Some(Constraint::Length(first)) = widths.first_mut() {
        *first = (*first).max(u16::try_from(widest).unwrap_or(u16::MAX));
    }
    widths
}

fn title(app: &App, what: &str, count: i64) -> String {
    let filtered = app
        .filter()
        .map_or(String::new(), |_| " (filtered)".to_owned());
    format!(" {} · {count} {what}{filtered} ", app.tab.title())
}

fn frame_for<'a>(
    app: &App,
    page: &Page<CallbackItem>,
    title: String,
    header: &'a [&'a str],
    widths: &'a [Constraint],
    rows: Vec<Vec<Cell<'a>>>,
    empty: &'a str,
) -> ListFrame<'a> {
    ListFrame {
        title,
        header,
        widths,
        rows,
        narrow_drops: &[],
        selected: page.selected,
        more_before: page.more_before,
        more_after: page.more_after,
        empty,
        focused: app.detail.is_none(),
    }
}

/// Held callbacks, with the evidence side by side.
pub(crate) fn held(frame: &mut Frame<'_>, area: Rect, app: &App) {
    const HEADER: &[&str] = &[
        "seq",
        "job",
        "reason",
        "timeout at",
        "arrived at",
        "gap",
        "replacement attempt",
        "latest answer",
    ];
    const WIDTHS: &[Constraint] = &[
        Constraint::Length(5),
        Constraint::Length(14),
        Constraint::Length(25),
        Constraint::Length(14),
        Constraint::Length(14),
        Constraint::Length(7),
        // The evidence columns keep their width; these two share what is left,
        // so a narrow terminal never cuts the reason.
        Constraint::Fill(3),
        Constraint::Fill(2),
    ];
    let page = &app.held;
    let rows = page
        .rows
        .iter()
        .map(|item| {
            let r = &item.row;
            vec![
                Cell::from(format!("#{}", r.seq)),
                Cell::from(job_cell(r)),
                Cell::from(r.reason.as_str()),
                Cell::from(when_or_dash(r.timeout_at)),
                Cell::from(when_or_dash(r.arrived_at)),
                Cell::from(gap_cell(r)),
                Cell::from(replacement_cell(r.replacement.as_ref())),
                Cell::from(answer_cell(r.answer.as_ref())),
            ]
        })
        .collect();
    let count = app.counts.held.matching.unwrap_or(app.counts.held.all);
    ListFrame {
        // Narrow: the gap stands for the two times (the detail pane shows them).
        narrow_drops: &[7, 3, 4],
        ..frame_for(
            app,
            page,
            title(app, "held for a person", count),
            HEADER,
            &seq_fits(page, WIDTHS),
            rows,
            "No held callbacks: nothing waits for a person here.",
        )
    }
    .draw(frame, area);
}

/// Quarantined callbacks: arrival, reason, and the first bytes of the raw message.
pub(crate) fn quarantined(frame: &mut Frame<'_>, area: Rect, app: &App) {
    const HEADER: &[&str] = &[
        "seq",
        "arrived at",
        "reason",
        "job",
        "raw message (first bytes, inert)",
        "latest answer",
    ];
    const WIDTHS: &[Constraint] = &[
        Constraint::Length(5),
        Constraint::Length(14),
        Constraint::Length(16),
        Constraint::Length(14),
        Constraint::Fill(1),
        Constraint::Length(32),
    ];
    let page = &app.quarantined;
    let rows = page
        .rows
        .iter()
        .map(|item| {
            let r = &item.row;
            let raw = item.raw_head.as_ref().map_or_else(
                || Span::raw("(raw line missing)").dark_gray(),
                // The raw bytes may hold anything, valid UTF-8 or not.
                |(head, _)| Span::raw(inert_bytes(head)),
            );
            vec![
                Cell::from(format!("#{}", r.seq)),
                Cell::from(when_or_dash(r.arrived_at)),
                Cell::from(r.reason.as_str()),
                Cell::from(job_cell(r)),
                Cell::from(raw),
                Cell::from(answer_cell(r.answer.as_ref())),
            ]
        })
        .collect();
    let count = app
        .counts
        .quarantined
        .matching
        .unwrap_or(app.counts.quarantined.all);
    ListFrame {
        narrow_drops: &[5, 1],
        ..frame_for(
            app,
            page,
            title(app, "with no job to judge them against", count),
            HEADER,
            &seq_fits(page, WIDTHS),
            rows,
            "No quarantined callbacks.",
        )
    }
    .draw(frame, area);
}

fn disposition_span(d: Disposition) -> Span<'static> {
    let span = Span::raw(d.as_str());
    match d {
        Disposition::Apply => span.green(),
        Disposition::Hold => span.yellow().bold(),
        Disposition::Record => span.style(Style::new()),
        Disposition::Quarantine => span.light_red(),
    }
}

/// Every callback in ingest order.
pub(crate) fn all(frame: &mut Frame<'_>, area: Rect, app: &App) {
    const HEADER: &[&str] = &[
        "seq",
        "job",
        "att",
        "outcome",
        "disposition",
        "reason",
        "timeout at",
        "arrived at",
        "gap",
        "latest answer",
    ];
    const WIDTHS: &[Constraint] = &[
        Constraint::Length(5),
        Constraint::Length(14),
        Constraint::Length(3),
        Constraint::Length(7),
        Constraint::Length(11),
        Constraint::Length(25),
        Constraint::Length(14),
        Constraint::Length(14),
        Constraint::Length(7),
        Constraint::Min(20),
    ];
    let page = &app.callbacks;
    let rows = page
        .rows
        .iter()
        .map(|item| {
            let r = &item.row;
            let asks = crate::review::CaseKind::of(r.disposition, r.reason).is_some();
            vec![
                Cell::from(format!("#{}", r.seq)),
                Cell::from(job_cell(r)),
                Cell::from(r.attempt.map_or_else(|| "-".to_owned(), |a| a.to_string())),
                Cell::from(r.outcome.map_or("-", |o| o.as_str())),
                Cell::from(disposition_span(r.disposition)),
                Cell::from(r.reason.as_str()),
                Cell::from(when_or_dash(r.timeout_at)),
                Cell::from(when_or_dash(r.arrived_at)),
                Cell::from(gap_cell(r)),
                Cell::from(if asks {
                    answer_cell(r.answer.as_ref())
                } else {
                    Line::from(Span::raw("-").dark_gray())
                }),
            ]
        })
        .collect();
    let count = app
        .counts
        .callbacks
        .matching
        .unwrap_or(app.counts.callbacks.all);
    ListFrame {
        narrow_drops: &[9, 6, 7, 2],
        ..frame_for(
            app,
            page,
            title(app, "callbacks in ingest order", count),
            HEADER,
            &seq_fits(page, WIDTHS),
            rows,
            "No callbacks in this ledger yet.",
        )
    }
    .draw(frame, area);
}
