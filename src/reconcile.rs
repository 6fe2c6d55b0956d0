//! Reconciliation: the ledger accounts for every accepted job (SPEC sec. 4).
//!
//! The population is the accepted jobs; completion is proven by terminal records
//! and output objects, never by counting notifications.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::filter::{Query, Scope};
use crate::store::{
    self, AgedJobRow, ConflictingSubmission, DivergentJob, JobOrder, Ledger, StoreError,
};

/// Held and quarantined arrivals are measured over this window.
pub const BACKLOG_WINDOW_S: i64 = 3600;
/// Reviews a team can answer in an hour, unless told otherwise.
pub const DEFAULT_REVIEW_CAPACITY: i64 = 30;

/// Are questions for people arriving faster than people can answer them?
///
/// Fields in alphabetical order: serialized in field order, they give the JSON
/// keys in the order reports have always printed them (so do [`AgedJob`] and
/// [`Window`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Backlog {
    /// Answers written in the window.
    pub answered: i64,
    /// Held and quarantined callbacks that arrived in the window.
    pub arrivals: i64,
    /// Reviews per window the team can take.
    pub capacity: i64,
    /// Held and quarantined callbacks still without a closing answer.
    pub open: i64,
    pub raised: bool,
    pub window_s: i64,
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

/// Hours the backlog trend looks back over.
pub const TREND_HOURS: usize = 24;

/// One clock hour of the backlog trend: questions for people that arrived in it,
/// against answers people wrote in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewHour {
    /// The start of the hour (UTC).
    pub start: Timestamp,
    /// Held and quarantined callbacks that arrived in the hour.
    pub arrivals: i64,
    /// Answers written in the hour.
    pub answered: i64,
}

/// The last [`TREND_HOURS`] clock hours up to `now`, oldest first; the last is the
/// hour under way. Each is counted by the same conditions as the alarm's hour, so the
/// picture and the alarm never disagree about what an arrival or an answer is (on a
/// server, all 24 in one statement).
pub fn review_trend(ledger: &Ledger, now: Timestamp) -> Result<Vec<ReviewHour>, StoreError> {
    let current = now.window_start(3600);
    let starts: Vec<Timestamp> = (0..TREND_HOURS)
        .rev()
        .map(|back| current.plus_seconds(-3600 * i64::try_from(back).unwrap_or(0)))
        .collect();
    // The counts take `(since, until]`; an hour is `[start, start + 1 h)`, and the hour
    // under way is counted up to `now`, as the alarm is.
    let just_before = |at: Timestamp| Timestamp::from_millis(at.millis() - 1).unwrap_or(at);
    let windows: Vec<(Timestamp, Timestamp)> = starts
        .iter()
        .map(|&start| {
            (
                just_before(start),
                just_before(start.plus_seconds(3600)).min(now),
            )
        })
        .collect();
    let counts = ledger.review_counts(&windows)?;
    Ok(starts
        .into_iter()
        .zip(counts)
        .map(|(start, (arrivals, answered))| ReviewHour {
            start,
            arrivals,
            answered,
        })
        .collect())
}

/// A stuck job, as escalation owners see it (fields in JSON key order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgedJob {
    pub accepted_at: Timestamp,
    pub age_s: i64,
    pub escalate_at: Option<Timestamp>,
    pub expected_age_s: i64,
    pub job_id: String,
    /// Its escalation time has passed.
    pub overdue: bool,
    pub owner: Option<String>,
    pub state: JobState,
    /// Nobody owns it.
    pub unowned: bool,
}

impl AgedJob {
    /// Judges an aged row at `now`.
    pub fn at(row: &AgedJobRow, now: Timestamp) -> AgedJob {
        let escalate_at = row.owner.as_ref().and_then(|o| o.escalate_at);
        AgedJob {
            job_id: row.job_id.clone(),
            state: row.state,
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

/// Jobs submitted in one window, counted by the state they are in now (fields in
/// JSON key order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Every job submitted in the window: the population.
    pub accepted: i64,
    /// Of those, jobs whose id was submitted again with another identity.
    pub conflicting_submissions: i64,
    /// Of those, jobs decided under more than one decision id.
    pub divergent_decisions: i64,
    pub end: Timestamp,
    pub start: Timestamp,
    /// The same jobs by current state (every state listed).
    pub states: BTreeMap<&'static str, i64>,
}

/// The whole reconciliation (its JSON shape is in `report`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reconciliation {
    pub accepted: i64,
    pub missing_terminal: Vec<String>,
    pub missing_output: Vec<String>,
    pub missing_notification: Vec<String>,
    /// Jobs decided under more than one decision id, with their decisions, in job id order.
    pub divergent_decisions: Vec<DivergentJob>,
    /// Job ids submitted again with another identity, in job id order.
    pub conflicting_submissions: Vec<ConflictingSubmission>,
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

    /// Something in the report waits for a person (`reconcile --exit-code`): it is
    /// not complete (an aged job is open, so it is among the jobs without a terminal
    /// record), or a job's divergent decisions have no answer that closes them. A
    /// missing notification is not counted: the report calls it informational, the
    /// job itself being fine.
    pub fn needs_a_person(&self) -> bool {
        !self.complete() || self.divergent_decisions.iter().any(DivergentJob::open)
    }
}

/// Job ids of one finding: how many there are, and the first of them in id order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Finding {
    pub count: i64,
    pub first: Vec<String>,
}

impl Finding {
    fn note(&mut self, job_id: &str, keep: usize) {
        self.count += 1;
        if self.first.len() < keep {
            self.first.push(job_id.to_owned());
        }
    }
}

/// What one pass over every accepted job finds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Accounts {
    pub accepted: i64,
    /// Accepted jobs with no terminal record.
    pub missing_terminal: Finding,
    /// Succeeded or late-completed jobs whose output object does not exist.
    pub missing_output: Finding,
    /// Terminal jobs never notified (informational).
    pub missing_notification: Finding,
    /// Jobs decided under more than one decision id.
    pub divergent_decisions: Finding,
    /// Job ids submitted again with another identity.
    pub conflicting_submissions: Finding,
    /// Jobs by submission window and current state, oldest window first.
    pub windows: Vec<Window>,
    /// Open jobs past their expected age, by (aged_at, job id): when asked for.
    pub aged: Vec<AgedJobRow>,
}

/// The jobs of one submission window: by state (in `JobState::ALL` order), and those
/// of two findings.
#[derive(Debug, Clone, Copy, Default)]
struct WindowCounts {
    states: [i64; JobState::ALL.len()],
    divergent_decisions: i64,
    conflicting_submissions: i64,
}

impl WindowCounts {
    fn note(&mut self, job: &store::JobAccount<'_>) {
        let state = JobState::ALL
            .iter()
            .position(|s| *s == job.state)
            .unwrap_or(0);
        self.states[state] += 1;
        self.divergent_decisions += i64::from(job.divergent_decisions);
        self.conflicting_submissions += i64::from(job.conflicting_submission);
    }

    fn add(&mut self, other: &WindowCounts) {
        self.states
            .iter_mut()
            .zip(other.states)
            .for_each(|(t, n)| *t += n);
        self.divergent_decisions += other.divergent_decisions;
        self.conflicting_submissions += other.conflicting_submissions;
    }
}

/// Reads every accepted job once (in job id order) and accounts for it, keeping at
/// most `keep` job ids of each finding and counting them all; with `aged_at`, also
/// the open jobs past their expected age at that time.
pub fn account(
    ledger: &Ledger,
    window_s: i64,
    keep: usize,
    aged_at: Option<Timestamp>,
) -> Result<Accounts, StoreError> {
    let mut accounts = Accounts::default();
    // Jobs per window start (ms). Ids and times run together, so the last window is
    // kept at hand and the map is rarely asked.
    let mut windows: BTreeMap<i64, WindowCounts> = BTreeMap::new();
    let mut current: Option<(i64, WindowCounts)> = None;
    let width_ms = window_s.max(1).saturating_mul(1000);
    ledger.for_each_job_account(|job| {
        accounts.accepted += 1;
        // The window's start in milliseconds, as `Timestamp::window_start` has it.
        let start = job.accepted_at.millis().div_euclid(width_ms) * width_ms;
        if current.as_ref().is_none_or(|(at, _)| *at != start) {
            if let Some((at, counts)) = current.take() {
                windows.entry(at).or_default().add(&counts);
            }
            current = Some((start, WindowCounts::default()));
        }
        if let Some((_, counts)) = &mut current {
            counts.note(job);
        }
        // The ledger keeps the same findings as rows, judged at each commit by the
        // same rule (`store::Finding::holds`); `check` holds them to this walk.
        for (finding, found) in [
            (
                store::Finding::MissingTerminal,
                &mut accounts.missing_terminal,
            ),
            (store::Finding::MissingOutput, &mut accounts.missing_output),
            (
                store::Finding::MissingNotification,
                &mut accounts.missing_notification,
            ),
            (
                store::Finding::DivergentDecisions,
                &mut accounts.divergent_decisions,
            ),
            (
                store::Finding::ConflictingSubmissions,
                &mut accounts.conflicting_submissions,
            ),
        ] {
            if finding.holds(job) {
                found.note(job.job_id, keep);
            }
        }
        if let (Some(now), Some(open)) = (aged_at, &job.open)
            && open.aged_at <= now
        {
            accounts.aged.push(AgedJobRow {
                job_id: job.job_id.to_owned(),
                state: job.state,
                accepted_at: job.accepted_at,
                aged_at: open.aged_at,
                expected_age_s: open.expected_age_s,
                owner: open.owner.clone(),
                order: JobOrder::At(open.aged_at),
                pending: None,
            });
        }
    })?;
    // The aged list's order: the oldest first, as the Aged view pages it.
    accounts
        .aged
        .sort_by(|a, b| (a.aged_at, &a.job_id).cmp(&(b.aged_at, &b.job_id)));
    if let Some((at, counts)) = current {
        windows.entry(at).or_default().add(&counts);
    }
    accounts.windows = windows
        .into_iter()
        .filter_map(|(at, counts)| {
            let start = Timestamp::from_millis(at)?;
            Some(Window {
                start,
                end: start.plus_seconds(window_s),
                accepted: counts.states.iter().sum(),
                conflicting_submissions: counts.conflicting_submissions,
                divergent_decisions: counts.divergent_decisions,
                states: JobState::ALL
                    .iter()
                    .zip(counts.states)
                    .map(|(s, n)| (s.as_str(), n))
                    .collect(),
            })
        })
        .collect();
    Ok(accounts)
}

/// The windows an hour wide the ledger keeps (see [`kept_accounts`]).
pub const HOUR_S: i64 = 3600;

/// What [`account`] finds with windows an hour wide and no aged list, read from what
/// the ledger keeps instead of from every job: the same counts and first job ids, and
/// the latest `recent` windows (oldest first, as [`account`] lists them all). A range
/// read each, however many jobs the ledger holds.
pub fn kept_accounts(ledger: &Ledger, keep: usize, recent: usize) -> Result<Accounts, StoreError> {
    let found = |finding| -> Result<Finding, StoreError> {
        let kept = ledger.finding_kept(finding, keep)?;
        Ok(Finding {
            count: kept.count,
            first: kept.first,
        })
    };
    let mut windows: Vec<Window> = ledger
        .recent_hours_kept(recent)?
        .into_iter()
        .map(|hour| Window {
            start: hour.start,
            end: hour.start.plus_seconds(HOUR_S),
            accepted: hour.states.iter().sum(),
            conflicting_submissions: hour.conflicting_submissions,
            divergent_decisions: hour.divergent_decisions,
            states: JobState::ALL
                .iter()
                .zip(hour.states)
                .map(|(s, n)| (s.as_str(), n))
                .collect(),
        })
        .collect();
    windows.reverse();
    Ok(Accounts {
        accepted: ledger.job_count()?,
        missing_terminal: found(store::Finding::MissingTerminal)?,
        missing_output: found(store::Finding::MissingOutput)?,
        missing_notification: found(store::Finding::MissingNotification)?,
        divergent_decisions: found(store::Finding::DivergentDecisions)?,
        conflicting_submissions: found(store::Finding::ConflictingSubmissions)?,
        windows,
        aged: Vec::new(),
    })
}

/// Reconciles every accepted job at `now`, with windows `window_s` seconds wide.
///
/// With windows an hour wide (the default), the findings, counts and windows are what
/// the ledger keeps ([`kept_accounts`], which `check` holds to the walk), and the aged
/// jobs are read as the Aged view pages them, all in one snapshot: ranges read, not
/// every job. Windows of another width are counted by the walk over every job.
pub fn reconcile(
    ledger: &Ledger,
    now: Timestamp,
    window_s: i64,
    review_capacity: i64,
) -> Result<Reconciliation, StoreError> {
    if window_s != HOUR_S {
        return reconcile_by_walk(ledger, now, window_s, review_capacity);
    }
    ledger.in_one_snapshot(|ledger| {
        let mut accounts = kept_accounts(ledger, usize::MAX, usize::MAX)?;
        let everything = Query::all(Scope::AgedJobs);
        crate::escalation::bulk::each_aged(ledger, &everything, now, |row| {
            accounts.aged.push(row.clone());
        })?;
        reconciled(ledger, accounts, now, window_s, review_capacity)
    })
}

/// [`reconcile`] by the walk over every job, whatever the windows' width: with windows
/// an hour wide, what [`reconcile`] reads from what the ledger keeps.
pub fn reconcile_by_walk(
    ledger: &Ledger,
    now: Timestamp,
    window_s: i64,
    review_capacity: i64,
) -> Result<Reconciliation, StoreError> {
    let accounts = account(ledger, window_s, usize::MAX, Some(now))?;
    reconciled(ledger, accounts, now, window_s, review_capacity)
}

/// The reconciliation of `accounts` (every job id of each finding, and the aged jobs,
/// kept), with what is read apart from them.
fn reconciled(
    ledger: &Ledger,
    accounts: Accounts,
    now: Timestamp,
    window_s: i64,
    review_capacity: i64,
) -> Result<Reconciliation, StoreError> {
    let aged = accounts
        .aged
        .iter()
        .map(|row| AgedJob::at(row, now))
        .collect();
    Ok(Reconciliation {
        accepted: accounts.accepted,
        missing_terminal: accounts.missing_terminal.first,
        missing_output: accounts.missing_output.first,
        missing_notification: accounts.missing_notification.first,
        // Few jobs each, read apart from the walk with their details.
        divergent_decisions: ledger.divergent_decisions()?,
        conflicting_submissions: ledger.conflicting_submissions()?,
        aged,
        windows: accounts.windows,
        window_s,
        backlog: Backlog::measure(ledger, now, review_capacity)?,
        now,
    })
}
