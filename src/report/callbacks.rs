//! `callbacks`: every callback in ingest order, with its disposition and answer.

use std::io::Write;

use serde::{Serialize, Serializer};

use super::csv::{self, shown};
use super::table::{
    self,
    Align::{Left, Right},
    Column, or_dash,
};
use super::{ListFormat, clip, write_json_compact};
use crate::clock::{Timestamp, format_gap};
use crate::decision::{Disposition, Outcome, ReasonCode};
use crate::inert::inert;
use crate::signed::signed;
use crate::store::{AnswerRow, CallbackFilter, CallbackRow, ClaimRow, Ledger, Replacement};

/// Rows read from the ledger at a time: a long list streams in pages.
const PAGE: usize = 1000;

/// Writes every callback passing `filter`, as a table, a JSON array or CSV, a page
/// at a time (a list of millions never sits in memory), each held or quarantined one
/// with the claim standing on it at `now`. It may fail midway: give it a
/// [`super::WholeOutput`], so that nothing of a failed listing is printed.
pub fn write_callbacks(
    out: &mut impl Write,
    ledger: &Ledger,
    filter: &CallbackFilter,
    format: ListFormat,
    now: Timestamp,
) -> anyhow::Result<()> {
    let kept_before = ledger.kept_for(filter)?;
    let mut listed = 0_i64;
    match format {
        ListFormat::Json => out.write_all(b"[")?,
        ListFormat::Table => writeln!(out, "{}", table::header(&COLUMNS))?,
        ListFormat::Csv => out.write_all(csv::header(&CSV_COLUMNS).as_bytes())?,
    }
    let mut first = true;
    ledger.callbacks_report(filter, PAGE, |rows| -> anyhow::Result<()> {
        crate::review::claims::attach(ledger, rows, now)?;
        for row in rows.iter() {
            match format {
                ListFormat::Json => {
                    if !first {
                        out.write_all(b",\n")?;
                    }
                    write_json_compact(out, row)?;
                }
                ListFormat::Table => writeln!(out, "{}", table::row(&COLUMNS, row))?,
                ListFormat::Csv => out.write_all(csv::row(&CSV_COLUMNS, row).as_bytes())?,
            }
            first = false;
        }
        listed += i64::try_from(rows.len()).unwrap_or(i64::MAX);
        Ok(())
    })?;
    // A whole count listed short was read from a damaged table: the listing fails,
    // and the command prints none of it (`WholeOutput`).
    if let (Some(before), Some(after)) = (kept_before, ledger.kept_for(filter)?) {
        ledger.confirm_listed(listed, before, after)?;
    }
    if format == ListFormat::Json {
        out.write_all(b"]\n")?;
    }
    Ok(())
}

/// The callbacks as CSV: the keys of `callbacks --json`, the replacement and the
/// standing answer spelt out a column each.
const CSV_COLUMNS: [csv::Column<CallbackRow>; 23] = [
    csv::Column::new("seq", |r| shown(Some(r.seq))),
    csv::Column::new("delivery_id", |r| r.delivery_id.clone()),
    csv::Column::new("job_id", |r| r.job_id.clone()),
    csv::Column::new("attempt", |r| shown(r.attempt)),
    csv::Column::new("outcome", |r| shown(r.outcome)),
    csv::Column::new("arrived_at", |r| shown(r.arrived_at)),
    csv::Column::new("timeout_at", |r| shown(r.timeout_at)),
    csv::Column::new("gap_s", |r| shown(gap_s(r))),
    csv::Column::new("disposition", |r| shown(Some(r.disposition))),
    csv::Column::new("reason", |r| shown(Some(r.reason))),
    csv::Column::new("detail", |r| r.detail.clone()),
    csv::Column::new("first_report_seq", |r| shown(r.first_report_seq)),
    csv::Column::new("linked_from_seq", |r| shown(r.linked_from_seq)),
    csv::Column::new("replacement_attempt", |r| {
        shown(r.replacement.as_ref().map(|p| p.attempt))
    }),
    csv::Column::new("replacement_created_by", |r| {
        r.replacement.as_ref().map(|p| p.created_by.clone())
    }),
    csv::Column::new("replacement_started_at", |r| {
        shown(r.replacement.as_ref().map(|p| p.started_at))
    }),
    csv::Column::new("answer_id", |r| shown(r.answer.as_ref().map(|a| a.id))),
    csv::Column::new("answer_verdict", |r| {
        shown(r.answer.as_ref().map(|a| a.verdict))
    }),
    csv::Column::new("answer_reviewer", |r| {
        r.answer.as_ref().map(|a| a.reviewer.clone())
    }),
    csv::Column::new("answer_written_by", |r| {
        r.answer.as_ref().and_then(|a| a.written_by.clone())
    }),
    csv::Column::new("answer_answered_at", |r| {
        shown(r.answer.as_ref().map(|a| a.answered_at))
    }),
    csv::Column::new("answer_note", |r| r.answer.as_ref().map(|a| a.note.clone())),
    csv::Column::new("answer_linked_job_id", |r| {
        r.answer.as_ref().and_then(|a| a.linked_job_id.clone())
    }),
];

/// The callbacks table.
const COLUMNS: [Column<CallbackRow>; 11] = [
    Column::new("", "seq", 6, Right, |r| r.seq.to_string()),
    Column::new("  ", "job", 16, Left, |r| {
        r.job_id
            .as_deref()
            .map_or_else(|| "-".to_owned(), |j| clip(&inert(j), 16))
    }),
    Column::new(" ", "att", 3, Right, |r| or_dash(r.attempt)),
    Column::new("  ", "outcome", 7, Left, |r| {
        r.outcome.map_or("-", Outcome::as_str).to_owned()
    }),
    Column::new("  ", "dispo", 10, Left, |r| {
        r.disposition.as_str().to_owned()
    }),
    Column::new("  ", "reason", 25, Left, |r| r.reason.as_str().to_owned()),
    Column::new("  ", "timeout", 19, Left, |r| {
        or_dash(r.timeout_at.map(Timestamp::short))
    }),
    Column::new("  ", "arrived", 19, Left, |r| {
        or_dash(r.arrived_at.map(Timestamp::short))
    }),
    Column::new("  ", "gap", 8, Right, |r| or_dash(gap_s(r).map(format_gap))),
    Column::new("  ", "replacement", REPLACEMENT_WIDTH, Left, |r| {
        or_dash(r.replacement.as_ref().map(replacement_cell))
    }),
    Column::new("  ", "answer", 0, Left, |r| {
        let answer = r.answer.as_ref().map(|a| {
            let who = signed(&a.reviewer, a.written_by.as_deref());
            format!("{} by {who} {}", a.verdict, a.answered_at.short())
        });
        // Who is on the case, after its answer if it has one still open.
        let claim = r.claim.as_ref().map(|c| {
            let who = signed(&c.reviewer, c.written_by.as_deref());
            format!("on it: {who} until {}", c.until.short())
        });
        match (answer, claim) {
            (Some(answer), Some(claim)) => format!("{answer}; {claim}"),
            (answer, claim) => or_dash(answer.or(claim)),
        }
    }),
];

/// The replacement column's width: `#2 staff:maria 2026-11-27 13:14:30` and more.
const REPLACEMENT_WIDTH: usize = 38;

/// `#2 staff:maria 2026-11-27 13:14:30`: who started the replacement is shortened so
/// that the cell stays inside its column, the attempt and the time whole.
fn replacement_cell(p: &Replacement) -> String {
    let attempt = format!("#{}", p.attempt);
    let when = p.started_at.short();
    let room = REPLACEMENT_WIDTH.saturating_sub(attempt.chars().count() + when.chars().count() + 2);
    format!(
        "{attempt} {} {when}",
        clip(&inert(&p.created_by), room.max(1))
    )
}

/// How late the callback arrived after its attempt's timeout (negative: early).
fn gap_s(row: &CallbackRow) -> Option<i64> {
    Some(row.arrived_at?.seconds_since(row.timeout_at?))
}

/// One callback of `callbacks --json`: keys in alphabetical order, as the
/// report has always printed them, with the gap worked out.
#[derive(Serialize)]
struct CallbackJson<'a> {
    answer: Option<&'a AnswerRow>,
    arrived_at: Option<Timestamp>,
    attempt: Option<i64>,
    claim: Option<&'a ClaimRow>,
    delivery_id: Option<&'a str>,
    detail: Option<&'a str>,
    disposition: Disposition,
    first_report_seq: Option<i64>,
    gap_s: Option<i64>,
    job_id: Option<&'a str>,
    linked_from_seq: Option<i64>,
    outcome: Option<Outcome>,
    reason: ReasonCode,
    replacement: Option<&'a Replacement>,
    seq: i64,
    timeout_at: Option<Timestamp>,
}

impl Serialize for CallbackRow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        CallbackJson {
            answer: self.answer.as_ref(),
            arrived_at: self.arrived_at,
            attempt: self.attempt,
            claim: self.claim.as_ref(),
            delivery_id: self.delivery_id.as_deref(),
            detail: self.detail.as_deref(),
            disposition: self.disposition,
            first_report_seq: self.first_report_seq,
            gap_s: gap_s(self),
            job_id: self.job_id.as_deref(),
            linked_from_seq: self.linked_from_seq,
            outcome: self.outcome,
            reason: self.reason,
            replacement: self.replacement.as_ref(),
            seq: self.seq,
            timeout_at: self.timeout_at,
        }
        .serialize(serializer)
    }
}
