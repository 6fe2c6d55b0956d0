//! What the command line prints: readable tables, or the JSON shapes of SPEC sec. 7.
//!
//! Every string that came from outside goes through [`crate::inert`] in tables;
//! JSON escapes the same characters as `\u` sequences, so a report printed to a
//! terminal can never drive it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;

use serde::Serialize;
use serde_json::{Value, json};

use crate::clock::{Timestamp, format_gap};
use crate::decision::Outcome;
use crate::inert::{inert, is_dangerous};
use crate::reconcile::{Backlog, Reconciliation};
use crate::store::{CallbackRow, DispositionCounts, Ledger, OutboxRow, StoreError};

/// The ledger at a glance.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub callbacks: DispositionCounts,
    pub jobs: BTreeMap<&'static str, i64>,
    pub outbox: i64,
    pub decisions_suppressed: i64,
    pub rejected_events: i64,
    pub backlog: Backlog,
}

impl Summary {
    /// Reads the summary at `now`.
    pub fn gather(
        ledger: &Ledger,
        now: Timestamp,
        review_capacity: i64,
    ) -> Result<Summary, StoreError> {
        Ok(Summary {
            callbacks: ledger.disposition_counts()?,
            jobs: ledger
                .job_state_counts()?
                .into_iter()
                .map(|(state, n)| (state.as_str(), n))
                .collect(),
            outbox: ledger.outbox_pending()?,
            decisions_suppressed: ledger.decisions_suppressed()?,
            rejected_events: ledger.rejected_count()?,
            backlog: Backlog::measure(ledger, now, review_capacity)?,
        })
    }

    /// `summary --json`.
    pub fn to_json(&self) -> Value {
        let c = &self.callbacks;
        json!({
            "callbacks": c.total(),
            "applied": c.applied,
            "held": c.held,
            "recorded": c.recorded,
            "quarantined": c.quarantined,
            "jobs": self.jobs,
            "outbox": self.outbox,
            "decisions_suppressed": self.decisions_suppressed,
            "rejected_events": self.rejected_events,
            "backlog_alarm": self.backlog.raised,
            "backlog": self.backlog,
        })
    }

    /// The readable summary.
    pub fn to_text(&self) -> String {
        let c = &self.callbacks;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "callbacks  {:>7}  = {} applied + {} held + {} recorded + {} quarantined",
            c.total(),
            c.applied,
            c.held,
            c.recorded,
            c.quarantined
        );
        let total: i64 = self.jobs.values().sum();
        let states: Vec<String> = self
            .jobs
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let _ = writeln!(out, "jobs       {total:>7}  = {}", states.join(", "));
        let _ = writeln!(out, "outbox     {:>7}  pending requests", self.outbox);
        let _ = writeln!(
            out,
            "decisions  {:>7}  repeated and suppressed (never acted on twice)",
            self.decisions_suppressed
        );
        let _ = writeln!(
            out,
            "rejected   {:>7}  events kept with their reason (see `jobledger rejected`)",
            self.rejected_events
        );
        out.push_str(&backlog_line(&self.backlog));
        out
    }
}

/// One line on the backlog alarm.
pub fn backlog_line(b: &Backlog) -> String {
    let state = if b.raised { "RAISED" } else { "quiet" };
    format!(
        "backlog    {state:>7}  {} held/quarantined arrived in the last hour against a review capacity of {}; {} answered; {} questions open\n",
        b.arrivals, b.capacity, b.answered, b.open
    )
}

/// One callback of `callbacks --json`, written straight from the row: the same
/// object as [`callback_json`], keys in the same (alphabetical) order, without
/// building a map per row first (a third of the time of a long list).
#[derive(Serialize)]
pub struct CallbackJson<'a> {
    answer: Option<Value>,
    arrived_at: Option<Timestamp>,
    attempt: Option<i64>,
    delivery_id: Option<&'a str>,
    detail: Option<&'a str>,
    disposition: &'static str,
    first_report_seq: Option<i64>,
    gap_s: Option<i64>,
    job_id: Option<&'a str>,
    linked_from_seq: Option<i64>,
    outcome: Option<&'static str>,
    reason: &'static str,
    replacement: Option<&'a crate::store::Replacement>,
    seq: i64,
    timeout_at: Option<Timestamp>,
}

impl<'a> CallbackJson<'a> {
    /// The object for one callback.
    pub fn of(row: &'a CallbackRow) -> Self {
        CallbackJson {
            // Rare (a person's answers), and a map keeps its keys in the same order.
            answer: row
                .answer
                .as_ref()
                .and_then(|a| serde_json::to_value(a).ok()),
            arrived_at: row.arrived_at,
            attempt: row.attempt,
            delivery_id: row.delivery_id.as_deref(),
            detail: row.detail.as_deref(),
            disposition: row.disposition.as_str(),
            first_report_seq: row.first_report_seq,
            gap_s: gap_s(row),
            job_id: row.job_id.as_deref(),
            linked_from_seq: row.linked_from_seq,
            outcome: row.outcome.map(Outcome::as_str),
            reason: row.reason.as_str(),
            // Its fields are declared in alphabetical order, as a map would write them.
            replacement: row.replacement.as_ref(),
            seq: row.seq,
            timeout_at: row.timeout_at,
        }
    }
}

/// One callback of `callbacks --json`.
pub fn callback_json(row: &CallbackRow) -> Value {
    json!({
        "seq": row.seq,
        "delivery_id": row.delivery_id,
        "job_id": row.job_id,
        "attempt": row.attempt,
        "outcome": row.outcome.map(Outcome::as_str),
        "arrived_at": row.arrived_at,
        "timeout_at": row.timeout_at,
        "gap_s": gap_s(row),
        "disposition": row.disposition.as_str(),
        "reason": row.reason.as_str(),
        "detail": row.detail,
        "first_report_seq": row.first_report_seq,
        "linked_from_seq": row.linked_from_seq,
        "replacement": row.replacement,
        "answer": row.answer,
    })
}

fn gap_s(row: &CallbackRow) -> Option<i64> {
    Some(row.arrived_at?.seconds_since(row.timeout_at?))
}

/// The header of the callbacks table.
pub fn callbacks_header() -> String {
    format!(
        "{:>6}  {:<16} {:>3}  {:<7}  {:<10}  {:<25}  {:<19}  {:<19}  {:>8}  {:<24}  {}",
        "seq",
        "job",
        "att",
        "outcome",
        "dispo",
        "reason",
        "timeout",
        "arrived",
        "gap",
        "replacement",
        "answer"
    )
}

/// One row of the callbacks table.
pub fn callback_line(row: &CallbackRow) -> String {
    let job = row
        .job_id
        .as_deref()
        .map_or_else(|| "-".to_owned(), |j| inert(j).into_owned());
    let replacement = row.replacement.as_ref().map_or_else(
        || "-".to_owned(),
        |r| {
            format!(
                "#{} {} {}",
                r.attempt,
                inert(&r.created_by),
                r.started_at.short()
            )
        },
    );
    let answer = row.answer.as_ref().map_or_else(
        || "-".to_owned(),
        |a| {
            format!(
                "{} by {} {}",
                inert(a.verdict.as_str()),
                inert(&a.reviewer),
                a.answered_at.short()
            )
        },
    );
    format!(
        "{:>6}  {:<16} {:>3}  {:<7}  {:<10}  {:<25}  {:<19}  {:<19}  {:>8}  {:<24}  {}",
        row.seq,
        clip(&job, 16),
        row.attempt
            .map_or_else(|| "-".to_owned(), |a: i64| a.to_string()),
        row.outcome.map_or("-", |o| o.as_str()),
        row.disposition.as_str(),
        row.reason.as_str(),
        row.timeout_at
            .map_or_else(|| "-".to_owned(), Timestamp::short),
        row.arrived_at
            .map_or_else(|| "-".to_owned(), Timestamp::short),
        gap_s(row).map_or_else(|| "-".to_owned(), format_gap),
        replacement,
        answer
    )
}

/// Shortens a string to `width` characters, marking the cut with `…`.
pub fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_owned()
    } else {
        let mut cut: String = s.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// The readable reconciliation.
pub fn reconciliation_text(r: &Reconciliation) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Reconciliation at {} of {} accepted jobs",
        r.now.short(),
        r.accepted
    );
    if r.complete() {
        let _ = writeln!(
            out,
            "Every accepted job has a terminal record, and every success its output object."
        );
    } else {
        let _ = writeln!(
            out,
            "NOT COMPLETE: accepted jobs without a terminal record: {}; successes without an output object: {}.",
            r.missing_terminal.len(),
            r.missing_output.len()
        );
    }
    let list = |out: &mut String, title: &str, note: &str, ids: &[String]| {
        let _ = writeln!(out, "\n{title} ({}){note}", ids.len());
        for id in ids {
            let _ = writeln!(out, "  {}", inert(id));
        }
    };
    list(
        &mut out,
        "missing_terminal",
        ": accepted, no terminal record yet",
        &r.missing_terminal,
    );
    list(
        &mut out,
        "missing_output",
        ": success on record but the output object does not exist (consistency incident)",
        &r.missing_output,
    );
    list(
        &mut out,
        "missing_notification",
        ": terminal but never notified (informational; the job itself is fine)",
        &r.missing_notification,
    );
    let _ = writeln!(
        out,
        "\naged ({}): open past their expected age",
        r.aged.len()
    );
    for a in &r.aged {
        let owner = a
            .owner
            .as_deref()
            .map_or_else(|| "UNOWNED".to_owned(), |o| inert(o).into_owned());
        let escalate = a.escalate_at.map_or_else(
            || "no escalation time".to_owned(),
            |t| format!("escalate {}", t.short()),
        );
        let _ = writeln!(
            out,
            "  {:<16} {:<10} age {:>8} (expected {:>7})  {:<12} {}{}",
            clip(&inert(&a.job_id), 16),
            a.state.as_str(),
            format_gap(a.age_s).trim_start_matches('+'),
            format_gap(a.expected_age_s).trim_start_matches('+'),
            owner,
            escalate,
            if a.overdue { "  OVERDUE" } else { "" }
        );
    }
    let _ = writeln!(
        out,
        "\nby submission window ({}):",
        crate::clock::format_gap(r.window_s).trim_start_matches('+')
    );
    let _ = writeln!(
        out,
        "  {:<16} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>9} {:>8} {:>9}",
        "window start",
        "accepted",
        "waiting",
        "running",
        "succeeded",
        "late",
        "failed",
        "timed_out",
        "expired",
        "cancelled"
    );
    for w in &r.windows {
        let n = |s: &str| w.states.get(s).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "  {:<16} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>9} {:>8} {:>9}",
            &w.start.short()[..16],
            w.accepted,
            n("accepted"),
            n("running"),
            n("succeeded"),
            n("completed_late"),
            n("failed"),
            n("timed_out"),
            n("expired"),
            n("cancelled")
        );
    }
    out.push('\n');
    out.push_str(&backlog_line(&r.backlog));
    out
}

/// `reconcile --json`, written straight from the reconciliation: the same object as
/// [`reconciliation_json`], every object's keys in the same (alphabetical) order,
/// without first building a map for each of a million jobs' findings.
#[derive(Serialize)]
pub struct ReconciliationJson<'a> {
    accepted: i64,
    aged: Vec<AgedJson<'a>>,
    backlog: BacklogJson,
    backlog_alarm: bool,
    complete: bool,
    missing_notification: &'a [String],
    missing_output: &'a [String],
    missing_terminal: &'a [String],
    now: Timestamp,
    window_s: i64,
    windows: Vec<WindowJson<'a>>,
}

#[derive(Serialize)]
struct AgedJson<'a> {
    accepted_at: Timestamp,
    age_s: i64,
    escalate_at: Option<Timestamp>,
    expected_age_s: i64,
    job_id: &'a str,
    overdue: bool,
    owner: Option<&'a str>,
    state: &'a str,
    unowned: bool,
}

#[derive(Serialize)]
struct BacklogJson {
    answered: i64,
    arrivals: i64,
    capacity: i64,
    open: i64,
    raised: bool,
    window_s: i64,
}

#[derive(Serialize)]
struct WindowJson<'a> {
    accepted: i64,
    end: Timestamp,
    start: Timestamp,
    states: &'a BTreeMap<&'static str, i64>,
}

impl<'a> ReconciliationJson<'a> {
    /// The object for one reconciliation.
    pub fn of(r: &'a Reconciliation) -> Self {
        let b = &r.backlog;
        ReconciliationJson {
            accepted: r.accepted,
            aged: r
                .aged
                .iter()
                .map(|a| AgedJson {
                    accepted_at: a.accepted_at,
                    age_s: a.age_s,
                    escalate_at: a.escalate_at,
                    expected_age_s: a.expected_age_s,
                    job_id: &a.job_id,
                    overdue: a.overdue,
                    owner: a.owner.as_deref(),
                    state: a.state.as_str(),
                    unowned: a.unowned,
                })
                .collect(),
            backlog: BacklogJson {
                answered: b.answered,
                arrivals: b.arrivals,
                capacity: b.capacity,
                open: b.open,
                raised: b.raised,
                window_s: b.window_s,
            },
            backlog_alarm: b.raised,
            complete: r.complete(),
            missing_notification: &r.missing_notification,
            missing_output: &r.missing_output,
            missing_terminal: &r.missing_terminal,
            now: r.now,
            window_s: r.window_s,
            windows: r
                .windows
                .iter()
                .map(|w| WindowJson {
                    accepted: w.accepted,
                    end: w.end,
                    start: w.start,
                    states: &w.states,
                })
                .collect(),
        }
    }
}

/// `reconcile --json`.
pub fn reconciliation_json(r: &Reconciliation) -> Value {
    json!({
        "accepted": r.accepted,
        "complete": r.complete(),
        "missing_terminal": r.missing_terminal,
        "missing_output": r.missing_output,
        "missing_notification": r.missing_notification,
        "aged": r.aged,
        "windows": r.windows,
        "window_s": r.window_s,
        "backlog_alarm": r.backlog.raised,
        "backlog": r.backlog,
        "now": r.now,
    })
}

/// The readable outbox.
pub fn outbox_text(rows: &[OutboxRow]) -> String {
    if rows.is_empty() {
        return "The outbox is empty: no request to the outside has been made.\n".to_owned();
    }
    let mut out = format!(
        "{:>4}  {:<16} {:<7} {:>7}  {:<20} {:<19}  {}\n",
        "id", "job", "request", "attempt", "requested by", "at", "status"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:>4}  {:<16} {:<7} {:>7}  {:<20} {:<19}  {}",
            r.id,
            clip(&inert(&r.job_id), 16),
            r.request.as_str(),
            r.attempt.map_or_else(|| "-".to_owned(), |a| a.to_string()),
            clip(&inert(&r.requested_by), 20),
            r.requested_at.short(),
            r.status
        );
    }
    out
}

/// Writes `value` as JSON with every character that could drive a terminal escaped.
pub fn write_json(out: &mut impl io::Write, value: &impl Serialize) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, InertJson);
    value.serialize(&mut serializer).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// Writes `value` as compact JSON without the closing newline (an item of a list).
pub fn write_json_compact(out: &mut impl io::Write, value: &impl Serialize) -> io::Result<()> {
    // `io::Error::from` gives back the writer's own error (a broken pipe stays one).
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, InertJson);
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// A compact JSON formatter that writes dangerous characters as `\u` escapes.
struct InertJson;

impl serde_json::ser::Formatter for InertJson {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Printable ASCII, by far the most text, holds nothing dangerous.
        if fragment.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_dangerous(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}
