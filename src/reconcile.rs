//! Reconciliation: the ledger accounts for every accepted job (SPEC sec. 4).
//!
//! The population is the accepted jobs; completion is proven by terminal records
//! and output objects, never by counting notifications.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::store::{AgedJobRow, Keyset, Ledger, StoreError};

/// Held and quarantined arrivals are measured over this window.
pub const BACKLOG_WINDOW_S: i64 = 3600;
/// Reviews a team can answer in an hour, unless told otherwise.
pub const DEFAULT_REVIEW_CAPACITY: i64 = 30;

/// Are questions for people arriving faster than people can answer them?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Backlog {
    pub raised: bool,
    pub window_s: i64,
    /// Held and quarantined callbacks that arrived in the window.
    pub arrivals: i64,
    /// Answers written in the window.
    pub answered: i64,
    /// Reviews per window the team can take.
    pub capacity: i64,
    /// Held and quarantined callbacks still without a closing answer.
    pub open: i64,
}

impl Backlog {
    /// Measures the backlog over the hour before `now`.
    pub fn measure(ledger: &Ledger, now: Timestamp, capacity: i64) -> Result<Backlog, StoreError> {
        let since = now.plus_seconds(-BACKLOG_WINDOW_S);
        let arrivals = ledger.review_arrivals_between(since, now)?;
        Ok(Backlog {
            raised: arrivals > capacity,
            window_s: BACKLOG_WINDOW_S,
            arrivals,
            answered: ledger.answers_between(since, now)?,
            capacity,
            open: ledger.open_questions()?,
        })
    }
}

/// A stuck job, as escalation owners see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgedJob {
    pub job_id: String,
    pub state: String,
    pub accepted_at: Timestamp,
    pub age_s: i64,
    pub expected_age_s: i64,
    pub owner: Option<String>,
    pub escalate_at: Option<Timestamp>,
    /// Its escalation time has passed.
    pub overdue: bool,
    /// Nobody owns it.
    pub unowned: bool,
}

impl AgedJob {
    /// Judges an aged row at `now`.
    pub fn at(row: &AgedJobRow, now: Timestamp) -> AgedJob {
        let escalate_at = row.owner.as_ref().and_then(|o| o.escalate_at);
        AgedJob {
            job_id: row.job_id.clone(),
            state: row.state.to_string(),
            accepted_at: row.accepted_at,
            age_s: now.seconds_since(row.accepted_at),
            expected_age_s: row.expected_age_s,
            owner: row.owner.as_ref().map(|o| o.owner.clone()),
            escalate_at,
            overdue: escalate_at.is_some_and(|at| at <= now),
            unowned: row.owner.is_none(),
        }
    }
}

/// Jobs submitted in one window, counted by the state they are in now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    pub start: Timestamp,
    pub end: Timestamp,
    /// Every job submitted in the window: the population.
    pub accepted: i64,
    /// The same jobs by current state (every state listed).
    pub states: BTreeMap<&'static str, i64>,
}

/// The whole reconciliation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reconciliation {
    pub accepted: i64,
    pub missing_terminal: Vec<String>,
    pub missing_output: Vec<String>,
    pub missing_notification: Vec<String>,
    pub aged: Vec<AgedJob>,
    pub windows: Vec<Window>,
    pub window_s: i64,
    pub backlog: Backlog,
    pub now: Timestamp,
}

impl Reconciliation {
    /// The report does not claim completion while any accepted job lacks a terminal
    /// record or a successful job lacks its output.
    pub fn complete(&self) -> bool {
        self.missing_terminal.is_empty() && self.missing_output.is_empty()
    }
}

/// Reconciles every accepted job at `now`, with windows `window_s` seconds wide.
pub fn reconcile(
    ledger: &Ledger,
    now: Timestamp,
    window_s: i64,
    review_capacity: i64,
) -> Result<Reconciliation, StoreError> {
    let mut windows: BTreeMap<Timestamp, Window> = BTreeMap::new();
    let mut accepted = 0;
    ledger.for_each_job_state(|at, state| {
        accepted += 1;
        let start = at.window_start(window_s);
        let window = windows.entry(start).or_insert_with(|| Window {
            start,
            end: start.plus_seconds(window_s),
            accepted: 0,
            states: JobState::ALL.iter().map(|s| (s.as_str(), 0)).collect(),
        });
        window.accepted += 1;
        *window.states.entry(state.as_str()).or_default() += 1;
    })?;
    let aged = ledger
        .aged_jobs_page(now, None, &Keyset::First, usize::MAX)?
        .iter()
        .map(|row| AgedJob::at(row, now))
        .collect();
    Ok(Reconciliation {
        accepted,
        missing_terminal: ledger.jobs_missing_terminal()?,
        missing_output: ledger.jobs_missing_output()?,
        missing_notification: ledger.jobs_missing_notification()?,
        aged,
        windows: windows.into_values().collect(),
        window_s,
        backlog: Backlog::measure(ledger, now, review_capacity)?,
        now,
    })
}
