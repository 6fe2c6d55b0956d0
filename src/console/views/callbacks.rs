//! The callback views: Held, Quarantined and All callbacks.

use ratatui::layout::Constraint;
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};

use super::{Column, ListView, answer_cell, outside, when_or_dash};
use crate::clock::{Timestamp, format_gap};
use crate::console::model::page::CallbackItem;
use crate::decision::Disposition;
use crate::inert::inert_bytes;
use crate::store::CallbackRow;

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

fn replacement_cell(item: &CallbackItem, _: Timestamp) -> Line<'_> {
    let Some(r) = &item.row.replacement else {
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

/// Callback columns the three views share.
type C = Column<CallbackItem>;

const SEQ: C = C::new("seq", Constraint::Length(5), |i, _| {
    Line::from(format!("#{}", i.row.seq))
})
.grows();
const JOB: C = C::new("job", Constraint::Length(14), |i, _| {
    Line::from(job_cell(&i.row))
});
const REASON_25: C = C::new("reason", Constraint::Length(25), |i, _| {
    Line::from(i.row.reason.as_str())
});
const TIMEOUT_AT: C = C::new("timeout at", Constraint::Length(14), |i, _| {
    Line::from(when_or_dash(i.row.timeout_at))
});
const ARRIVED_AT: C = C::new("arrived at", Constraint::Length(14), |i, _| {
    Line::from(when_or_dash(i.row.arrived_at))
});
const GAP: C = C::new("gap", Constraint::Length(7), |i, _| {
    Line::from(gap_cell(&i.row))
});

fn answer(item: &CallbackItem, _: Timestamp) -> Line<'_> {
    answer_cell(item.row.answer.as_ref())
}

/// Held callbacks, with the evidence side by side. Narrow: the gap stands for the two
/// times (the detail pane shows them).
pub(crate) const HELD: ListView<CallbackItem> = ListView {
    what: "held for a person",
    columns: &[
        SEQ,
        JOB,
        REASON_25,
        TIMEOUT_AT.gives_way(2),
        ARRIVED_AT.gives_way(3),
        GAP,
        // The evidence columns keep their width; these two share what is left,
        // so a narrow terminal never cuts the reason.
        C::new("replacement attempt", Constraint::Fill(3), replacement_cell),
        C::new("latest answer", Constraint::Fill(2), answer).gives_way(1),
    ],
    empty: "No held callbacks: nothing waits for a person here.",
};

fn raw_head(item: &CallbackItem, _: Timestamp) -> Line<'_> {
    Line::from(item.raw_head.as_ref().map_or_else(
        || Span::raw("(raw line missing)").dark_gray(),
        // The raw bytes may hold anything, valid UTF-8 or not.
        |(head, _)| Span::raw(inert_bytes(head)),
    ))
}

/// Quarantined callbacks: arrival, reason, and the first bytes of the raw message.
pub(crate) const QUARANTINED: ListView<CallbackItem> = ListView {
    what: "with no job to judge them against",
    columns: &[
        SEQ,
        ARRIVED_AT.gives_way(2),
        C::new("reason", Constraint::Length(16), |i, _| {
            Line::from(i.row.reason.as_str())
        }),
        JOB,
        C::new(
            "raw message (first bytes, inert)",
            Constraint::Fill(1),
            raw_head,
        ),
        C::new("latest answer", Constraint::Length(32), answer).gives_way(1),
    ],
    empty: "No quarantined callbacks.",
};

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
pub(crate) const ALL: ListView<CallbackItem> = ListView {
    what: "callbacks in ingest order",
    columns: &[
        SEQ,
        JOB,
        C::new("att", Constraint::Length(3), |i, _| {
            Line::from(
                i.row
                    .attempt
                    .map_or_else(|| "-".to_owned(), |a| a.to_string()),
            )
        })
        .gives_way(4),
        C::new("outcome", Constraint::Length(7), |i, _| {
            Line::from(i.row.outcome.map_or("-", |o| o.as_str()))
        }),
        C::new("disposition", Constraint::Length(11), |i, _| {
            Line::from(disposition_span(i.row.disposition))
        }),
        REASON_25,
        TIMEOUT_AT.gives_way(2),
        ARRIVED_AT.gives_way(3),
        GAP,
        C::new("latest answer", Constraint::Min(20), |i, _| {
            let r = &i.row;
            if crate::review::CaseKind::of(r.disposition, r.reason).is_some() {
                answer_cell(r.answer.as_ref())
            } else {
                Line::from(Span::raw("-").dark_gray())
            }
        })
        .gives_way(1),
    ],
    empty: "No callbacks in this ledger yet.",
};
