//! The callback views: Held, Quarantined and All callbacks.

use ratatui::layout::Constraint;
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};

use super::preview::{answer_fact, gap_in_words, only_what_was_cut, when_ago};
use super::{Column, Fact, ListView, answer_cell, inert_span, role_span, when, when_or_dash};
use crate::clock::{Timestamp, format_gap};
use crate::console::model::page::CallbackItem;
use crate::decision::Disposition;
use crate::filter::SortColumn;
use crate::inert::inert_bytes;
use crate::store::{CallbackRow, ClaimRow};

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
        .map_or_else(|| Span::raw("-").dark_gray(), inert_span)
}

fn replacement_cell(item: &CallbackItem, now: Timestamp) -> Line<'_> {
    let Some(r) = &item.row.replacement else {
        return Line::from(Span::raw("none").dark_gray());
    };
    let state = r.state.map_or("?", |s| s.as_str());
    Line::from(vec![
        Span::raw(format!("#{} ", r.attempt)).bold(),
        inert_span(&r.created_by),
        Span::raw(format!(" {} ", super::when(r.started_at, now))).dark_gray(),
        Span::raw(state),
    ])
}

/// The replacement without its start time (the preview has it).
fn replacement_short(item: &CallbackItem, _: Timestamp) -> Line<'_> {
    let Some(r) = &item.row.replacement else {
        return Line::from(Span::raw("none").dark_gray());
    };
    Line::from(vec![
        Span::raw(format!("#{} ", r.attempt)).bold(),
        inert_span(&r.created_by),
        Span::raw(format!(" {}", r.state.map_or("?", |s| s.as_str()))),
    ])
}

/// Callback columns the three views share.
type C = Column<CallbackItem>;

/// The callback's number; a `↺` after it marks a new case on a job whose earlier
/// case was answered (the answer may stand for this one too; the preview names it).
const SEQ: C = C::new("seq", Constraint::Length(3), |i, _| {
    let mut line = Line::from(format!("#{}", i.row.seq));
    if i.earlier.is_some() {
        line.spans.push(Span::raw("↺").yellow().bold());
    }
    line
})
.grows();
const JOB: C = C::new("job", Constraint::Length(3), |i, _| {
    Line::from(job_cell(&i.row))
})
.grows();
const REASON: C = C::new("reason", Constraint::Length(6), |i, _| {
    Line::from(i.row.reason.as_str())
})
.grows()
.sorts(SortColumn::Reason);
const TIMEOUT_AT: C = C::new("timeout at", Constraint::Length(14), |i, now| {
    Line::from(when_or_dash(i.row.timeout_at, now))
})
.grows()
.sorts(SortColumn::Timeout);
const ARRIVED_AT: C = C::new("arrived at", Constraint::Length(14), |i, now| {
    Line::from(when_or_dash(i.row.arrived_at, now))
})
.grows()
.sorts(SortColumn::Arrival);
const GAP: C = C::new("gap", Constraint::Length(3), |i, _| {
    Line::from(gap_cell(&i.row))
})
.grows()
.sorts(SortColumn::Gap);

fn answer(item: &CallbackItem, now: Timestamp) -> Line<'_> {
    let mut line = answer_cell(item.row.answer.as_ref(), now);
    line.spans.extend(claim_spans(item.row.claim.as_ref()));
    line
}

/// The standing verdict alone (who and when are in the preview), and who is on it.
fn answer_short(item: &CallbackItem, now: Timestamp) -> Line<'_> {
    let mut line = answer_cell(item.row.answer.as_ref(), now);
    line.spans.truncate(1);
    line.spans.extend(claim_spans(item.row.claim.as_ref()));
    line
}

/// ` · on it: ana`, for everyone to see that a colleague is working the case (since
/// when and until when are in the preview); nothing when nobody is.
fn claim_spans(claim: Option<&ClaimRow>) -> Vec<Span<'_>> {
    let Some(c) = claim else {
        return Vec::new();
    };
    vec![
        Span::raw(" · on it: ").yellow(),
        inert_span(&c.reviewer).yellow().bold(),
    ]
}

/// The claim in full for the preview: who, since when, until when.
fn claim_fact(claim: Option<&ClaimRow>, now: Timestamp) -> Option<Fact<'_>> {
    let c = claim?;
    let mut spans = vec![
        Span::raw("on it: ").yellow(),
        inert_span(&c.reviewer).yellow().bold(),
    ];
    spans.extend(role_span(c.written_by.as_deref()));
    spans.push(Span::raw(format!(
        " since {}, until {}",
        when(c.since, now),
        when(c.until, now)
    )));
    Some(("claim", Line::from(spans)))
}

const ANSWER: C = C::new("latest answer", Constraint::Length(6), answer).grows();

/// What the preview of a held or quarantined row says of earlier answers on its job.
fn earlier_fact(item: &CallbackItem, now: Timestamp) -> Option<Fact<'_>> {
    let a = item.earlier.as_ref()?;
    let mut line = answer_fact(Some(a), now);
    line.spans
        .push(Span::raw(format!(" · on callback #{}", a.callback_seq)));
    Some(("answered before", line))
}

/// A held callback's evidence, whole: what its row shows on a wide terminal.
fn held_facts(item: &CallbackItem, now: Timestamp) -> Vec<Fact<'_>> {
    let r = &item.row;
    let mut case = vec![Span::raw(r.reason.as_str()).bold(), Span::raw(" · ")];
    case.push(job_cell(r));
    case.push(Span::raw(format!(
        ", attempt {}, {}",
        r.attempt.map_or_else(|| "-".to_owned(), |a| a.to_string()),
        r.outcome.map_or("no outcome", |o| o.as_str())
    )));
    let time = |at: Option<Timestamp>, ago: bool| match at {
        Some(at) if ago => Line::from(when_ago(at, now)),
        Some(at) => Line::from(when(at, now)),
        None => Line::from(Span::raw("-").dark_gray()),
    };
    let gap = match (r.arrived_at, r.timeout_at) {
        (Some(arrived), Some(timeout)) => Line::from(gap_in_words(arrived.seconds_since(timeout))),
        _ => Line::from(Span::raw("- (no timeout or no arrival to compare)").dark_gray()),
    };
    let replacement = match &r.replacement {
        None => Line::from(Span::raw("none").dark_gray()),
        Some(rep) => {
            let mut spans = vec![
                Span::raw(format!("#{}", rep.attempt)).bold(),
                Span::raw(" by "),
                inert_span(&rep.created_by),
                Span::raw(" at "),
            ];
            spans.extend(when_ago(rep.started_at, now));
            spans.push(Span::raw(format!(
                " · {}",
                rep.state.map_or("state unknown", |s| s.as_str())
            )));
            Line::from(spans)
        }
    };
    let mut facts = vec![
        ("reason", Line::from(case)),
        ("timeout at", time(r.timeout_at, false)),
        ("arrived at", time(r.arrived_at, true)),
        ("gap", gap),
        ("replacement", replacement),
        ("latest answer", answer_fact(r.answer.as_ref(), now)),
    ];
    facts.extend(claim_fact(r.claim.as_ref(), now));
    facts.extend(earlier_fact(item, now));
    facts
}

/// Held callbacks, with the evidence side by side. Narrow, the answer and the
/// replacement shorten, then the reason and the times give way: the preview below the
/// list shows them all whole.
pub(crate) const HELD: ListView<CallbackItem> = ListView {
    what: "held for a person",
    open_what: "held still open",
    columns: &[
        SEQ,
        JOB,
        REASON.gives_way(3),
        TIMEOUT_AT.gives_way(4),
        ARRIVED_AT.gives_way(5),
        GAP,
        C::new("replacement", Constraint::Length(4), replacement_cell)
            .grows()
            .shortens(1, replacement_short)
            .gives_way(6),
        // Who answered goes after the replacement's start time (both in the preview).
        ANSWER.shortens(2, answer_short).gives_way(7),
    ],
    facts: held_facts,
    empty: "No held callbacks: nothing waits for a person here.",
};

fn raw_head(item: &CallbackItem, _: Timestamp) -> Line<'_> {
    Line::from(item.raw_head.as_ref().map_or_else(
        || Span::raw("(raw line missing)").dark_gray(),
        // The raw bytes may hold anything, valid UTF-8 or not.
        |(head, _)| Span::raw(inert_bytes(head)),
    ))
}

fn quarantined_facts(item: &CallbackItem, now: Timestamp) -> Vec<Fact<'_>> {
    let arrived = item.row.arrived_at.map_or_else(
        || Line::from(Span::raw("-").dark_gray()),
        |at| Line::from(when_ago(at, now)),
    );
    let mut facts = vec![
        ("arrived at", arrived),
        ("latest answer", answer_fact(item.row.answer.as_ref(), now)),
    ];
    facts.extend(claim_fact(item.row.claim.as_ref(), now));
    facts.extend(earlier_fact(item, now));
    facts.push(("raw message", raw_head(item, now)));
    facts
}

/// Quarantined callbacks: arrival, reason, and the first bytes of the raw message.
pub(crate) const QUARANTINED: ListView<CallbackItem> = ListView {
    what: "with no job to judge them against",
    open_what: "quarantined still open",
    columns: &[
        SEQ,
        ARRIVED_AT.gives_way(3),
        REASON,
        JOB,
        // Room enough to tell one message from another before the answer gives way.
        C::new(
            "raw message (first bytes, inert)",
            Constraint::Min(24),
            raw_head,
        ),
        ANSWER.shortens(1, answer_short).gives_way(2),
    ],
    facts: quarantined_facts,
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

/// The standing answer of a callback that is a question; a dash for the others.
fn answer_of_any(item: &CallbackItem, now: Timestamp) -> Line<'_> {
    let r = &item.row;
    if crate::review::CaseKind::of(r.disposition, r.reason).is_some() {
        answer(item, now)
    } else {
        Line::from(Span::raw("-").dark_gray())
    }
}

/// Every callback in ingest order.
pub(crate) const ALL: ListView<CallbackItem> = ListView {
    what: "callbacks in ingest order",
    open_what: "still open",
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
        .gives_way(5),
        C::new("outcome", Constraint::Length(7), |i, _| {
            Line::from(i.row.outcome.map_or("-", |o| o.as_str()))
        }),
        C::new("disposition", Constraint::Length(11), |i, _| {
            Line::from(disposition_span(i.row.disposition))
        }),
        REASON,
        TIMEOUT_AT.gives_way(3),
        ARRIVED_AT.gives_way(4),
        GAP,
        C::new("latest answer", Constraint::Length(6), answer_of_any)
            .grows()
            .shortens(1, |i, now| {
                let mut line = answer_of_any(i, now);
                line.spans.truncate(1);
                line
            })
            .gives_way(2),
    ],
    facts: only_what_was_cut,
    empty: "No callbacks in this ledger yet.",
};
