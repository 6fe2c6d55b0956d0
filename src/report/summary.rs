//! `summary`: the ledger at a glance.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Serialize, Serializer};

use crate::clock::Timestamp;
use crate::reconcile::Backlog;
use crate::store::{DispositionCounts, Ledger, StoreError};

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

    /// Something waits for a person (`summary --exit-code`): the backlog alarm is
    /// raised, or a question is open (a held or quarantined callback without an answer
    /// that closes it).
    pub fn needs_a_person(&self) -> bool {
        self.backlog.raised || self.backlog.open > 0
    }
}

/// `summary --json`: the counts by disposition beside their total, and the alarm
/// beside the backlog it comes from; keys in alphabetical order (SPEC sec. 7).
#[derive(Serialize)]
struct SummaryJson<'a> {
    applied: i64,
    backlog: &'a Backlog,
    backlog_alarm: bool,
    callbacks: i64,
    decisions_suppressed: i64,
    held: i64,
    jobs: &'a BTreeMap<&'static str, i64>,
    outbox: i64,
    quarantined: i64,
    recorded: i64,
    rejected_events: i64,
}

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = &self.callbacks;
        SummaryJson {
            applied: c.applied,
            backlog: &self.backlog,
            backlog_alarm: self.backlog.raised,
            callbacks: c.total(),
            decisions_suppressed: self.decisions_suppressed,
            held: c.held,
            jobs: &self.jobs,
            outbox: self.outbox,
            quarantined: c.quarantined,
            recorded: c.recorded,
            rejected_events: self.rejected_events,
        }
        .serialize(serializer)
    }
}

impl super::Report for Summary {
    fn text(&self) -> String {
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
