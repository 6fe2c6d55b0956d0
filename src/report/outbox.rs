//! `outbox` and `rejected`: the requests made, and the events not taken.

use std::fmt::Write as _;

use super::clip;
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
