//! `outbox` and `rejected`: the requests made, and the events not taken.

use std::fmt::Write as _;

use super::clip;
use super::csv::{self, shown};
use super::table::{
    self,
    Align::{Left, Right},
    Column, or_dash,
};
use crate::inert::inert;
use crate::store::{OutboxRow, RejectedLine};

/// The outbox table.
const OUTBOX_COLUMNS: [Column<OutboxRow>; 7] = [
    Column::new("", "id", 4, Right, |r| r.id.to_string()),
    Column::new("  ", "job", 16, Left, |r| clip(&inert(&r.job_id), 16)),
    Column::new(" ", "request", 7, Left, |r| r.request.as_str().to_owned()),
    Column::new(" ", "attempt", 7, Right, |r| or_dash(r.attempt)),
    Column::new("  ", "requested by", 20, Left, |r| {
        clip(&inert(&r.requested_by), 20)
    }),
    Column::new(" ", "at", 19, Left, |r| r.requested_at.short()),
    Column::new("  ", "status", 0, Left, |r| {
        super::withdrawn_line(r).unwrap_or_else(|| r.status.as_str().to_owned())
    }),
];

impl super::Report for [OutboxRow] {
    fn text(&self) -> String {
        if self.is_empty() {
            return "The outbox is empty: no request to the outside has been made.\n".to_owned();
        }
        let mut out = String::new();
        let _ = writeln!(out, "{}", table::header(&OUTBOX_COLUMNS));
        for r in self {
            let _ = writeln!(out, "{}", table::row(&OUTBOX_COLUMNS, r));
        }
        out
    }
}

/// The outbox as CSV: the keys of `outbox --json`, the withdrawal spelt out.
const OUTBOX_CSV: [csv::Column<OutboxRow>; 15] = [
    csv::Column::new("id", |r| shown(Some(r.id))),
    csv::Column::new("job_id", |r| Some(r.job_id.clone())),
    csv::Column::new("request", |r| shown(Some(r.request))),
    csv::Column::new("attempt", |r| shown(r.attempt)),
    csv::Column::new("input_digest", |r| r.input_digest.clone()),
    csv::Column::new("model_digest", |r| r.model_digest.clone()),
    csv::Column::new("policy_revision", |r| r.policy_revision.clone()),
    csv::Column::new("requested_by", |r| Some(r.requested_by.clone())),
    csv::Column::new("written_by", |r| r.written_by.clone()),
    csv::Column::new("requested_at", |r| shown(Some(r.requested_at))),
    csv::Column::new("status", |r| shown(Some(r.status))),
    csv::Column::new("withdrawn_by", |r| {
        r.withdrawal.as_ref().map(|w| w.withdrawn_by.clone())
    }),
    csv::Column::new("withdrawal_written_by", |r| {
        r.withdrawal.as_ref().and_then(|w| w.written_by.clone())
    }),
    csv::Column::new("withdrawn_at", |r| {
        shown(r.withdrawal.as_ref().map(|w| w.withdrawn_at))
    }),
    csv::Column::new("withdrawal_note", |r| {
        r.withdrawal.as_ref().map(|w| w.note.clone())
    }),
];

impl super::CsvReport for [OutboxRow] {
    fn csv(&self) -> String {
        csv::list(&OUTBOX_CSV, self)
    }
}

impl super::Report for [RejectedLine] {
    fn text(&self) -> String {
        if self.is_empty() {
            return "No rejected events: every event line was taken.\n".to_owned();
        }
        let mut out = String::new();
        for r in self {
            let _ = writeln!(
                out,
                "line {:>6}  {:<18} {}: {}",
                r.seq,
                r.event.as_deref().unwrap_or("?"),
                r.code,
                inert(&r.reason)
            );
        }
        out
    }
}
