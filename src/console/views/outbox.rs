//! The Outbox and Rejected views: the requests made to the outside, and the event
//! lines not taken, with the columns `jobledger outbox` and `jobledger rejected` print.

use ratatui::layout::Constraint;
use ratatui::style::Stylize;
use ratatui::text::{Line, Span};

use super::preview::only_what_was_cut;
use super::{Column, Fact, ListView, inert_span, role_span, when};
use crate::clock::Timestamp;
use crate::store::{OutboxRow, RejectedLine};

/// Every request in the outbox, oldest first.
pub(crate) const OUTBOX: ListView<OutboxRow> = ListView {
    what: "in the outbox",
    open_what: "still open",
    columns: &[
        Column::<OutboxRow>::new("id", Constraint::Length(4), |row, _| {
            Line::from(row.id.to_string())
        })
        .grows(),
        Column::<OutboxRow>::new("job", Constraint::Length(12), |row, _| {
            Line::from(inert_span(&row.job_id))
        })
        .grows(),
        Column::<OutboxRow>::new("request", Constraint::Length(7), |row, _| {
            Line::from(row.request.as_str())
        }),
        Column::<OutboxRow>::new("attempt", Constraint::Length(7), |row, _| {
            Line::from(
                row.attempt
                    .map_or_else(|| "-".to_owned(), |n| n.to_string()),
            )
        })
        .gives_way(1),
        Column::<OutboxRow>::new("requested by", Constraint::Length(12), |row, _| {
            Line::from(inert_span(&row.requested_by))
        })
        .grows()
        .gives_way(3),
        Column::<OutboxRow>::new("at", Constraint::Length(14), |row, now| {
            Line::from(when(row.requested_at, now))
        })
        .grows()
        .gives_way(2),
        // A withdrawn request says by whom and when, so the row answers "who took it back".
        Column::<OutboxRow>::new("status", Constraint::Length(9), |row, now| {
            match &row.withdrawal {
                None => Line::from(Span::raw(row.status.as_str()).yellow()),
                Some(w) => {
                    let mut spans = vec![
                        Span::raw("withdrawn").dark_gray(),
                        Span::raw(" by ").dark_gray(),
                        inert_span(&w.withdrawn_by),
                    ];
                    spans.extend(role_span(w.written_by.as_deref()));
                    spans.push(Span::raw(format!(" at {}", when(w.withdrawn_at, now))).dark_gray());
                    Line::from(spans)
                }
            }
        })
        .grows(),
    ],
    facts: only_what_was_cut,
    empty: "The outbox is empty: no request to the outside has been made.",
};

/// Every rejected event line, in ledger order.
pub(crate) const REJECTED: ListView<RejectedLine> = ListView {
    what: "kept with the reason",
    open_what: "still open",
    columns: &[
        Column::<RejectedLine>::new("line", Constraint::Length(4), |row, _| {
            Line::from(row.seq.to_string())
        })
        .grows(),
        Column::<RejectedLine>::new("event", Constraint::Length(5), |row, _| {
            Line::from(
                row.event
                    .as_deref()
                    .map_or_else(|| Span::raw("?").dark_gray(), inert_span),
            )
        })
        .grows(),
        Column::<RejectedLine>::new("kept at", Constraint::Length(14), |row, now| {
            Line::from(when(row.ingested_at, now))
        })
        .grows()
        .gives_way(1),
        Column::<RejectedLine>::new("code", Constraint::Length(4), |row, _| {
            Line::from(row.code.as_str())
        })
        .grows(),
        // Free text: the room left, at least enough to read the start of a sentence, so
        // on a narrow terminal the time gives way first; the preview shows it whole.
        Column::<RejectedLine>::new("reason", Constraint::Min(24), |row, _| {
            Line::from(inert_span(&row.reason))
        }),
    ],
    facts: rejection_facts,
    empty: "No rejected events: every event line was taken.",
};

/// A rejected line's preview: its reason whole, wrapped, however much of it the row
/// had room for.
fn rejection_facts(row: &RejectedLine, _: Timestamp) -> Vec<Fact<'_>> {
    vec![("reason", Line::from(inert_span(&row.reason)))]
}
