//! Counts the tabs and the status line show, cached in [`App`] between changes.

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::reconcile::{self, Backlog, DEFAULT_REVIEW_CAPACITY};
use crate::store::{CallbackFilter, Ledger, MissingCounts, StoreError, WindowStates};

use super::super::tab::Tab;
use super::App;

/// Job ids listed per reconciliation finding; the CLI's `reconcile` lists them all.
pub(crate) const FIRST_MISSING: usize = 8;
/// Submission windows the Reconcile view shows (one hour each).
pub(crate) const RECENT_WINDOWS: usize = 12;

/// A view's count: all of its rows, and those matching its filter when it has one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Count {
    pub all: i64,
    pub matching: Option<i64>,
}

/// The count of each view's rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub held: Count,
    pub quarantined: Count,
    pub aged: Count,
    pub failed: Count,
    pub callbacks: Count,
}

impl Counts {
    pub fn read(app: &App) -> Result<Counts, StoreError> {
        let ledger = &app.ledger;
        let dispositions = ledger.disposition_counts()?;
        let callbacks = |tab: Tab, filter: Option<&String>| -> Result<Count, StoreError> {
            let all = tab
                .disposition()
                .map_or(dispositions.total(), |d| dispositions.get(d));
            let matching = match filter {
                Some(text) => Some(ledger.count_callbacks(&CallbackFilter {
                    disposition: tab.disposition(),
                    text: Some(text.clone()),
                })?),
                None => None,
            };
            Ok(Count { all, matching })
        };
        let aged_filter = app.aged.filter.as_deref();
        let failed_filter = app.failed.filter.as_deref();
        Ok(Counts {
            held: callbacks(Tab::Held, app.held.filter.as_ref())?,
            quarantined: callbacks(Tab::Quarantined, app.quarantined.filter.as_ref())?,
            callbacks: callbacks(Tab::Callbacks, app.callbacks.filter.as_ref())?,
            aged: Count {
                all: ledger.aged_count(app.now)?,
                matching: match aged_filter {
                    Some(_) => Some(ledger.aged_count_matching(app.now, aged_filter)?),
                    None => None,
                },
            },
            failed: Count {
                all: ledger.failed_count_matching(None)?,
                matching: match failed_filter {
                    Some(_) => Some(ledger.failed_count_matching(failed_filter)?),
                    None => None,
                },
            },
        })
    }

    /// The count a tab shows.
    pub fn of(&self, tab: Tab, glance: &Glance) -> Count {
        match tab {
            Tab::Held => self.held,
            Tab::Quarantined => self.quarantined,
            Tab::Aged => self.aged,
            Tab::Failed => self.failed,
            Tab::Callbacks => self.callbacks,
            Tab::Reconcile => Count {
                all: glance.missing.missing_terminal + glance.missing.missing_output,
                matching: None,
            },
        }
    }
}

/// The reconciliation at a glance: counts, the first jobs of each finding, recent
/// windows and the backlog alarm.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Glance {
    pub missing: MissingCounts,
    pub first_missing_terminal: Vec<String>,
    pub first_missing_output: Vec<String>,
    pub first_missing_notification: Vec<String>,
    pub windows: Vec<WindowStates>,
    pub backlog: Backlog,
    /// The findings and windows above have been counted (a large ledger's are counted
    /// off the console's thread, and arrive after the first frame).
    pub counted: bool,
}

impl Default for Glance {
    fn default() -> Self {
        Glance {
            missing: MissingCounts::default(),
            first_missing_terminal: Vec::new(),
            first_missing_output: Vec::new(),
            first_missing_notification: Vec::new(),
            windows: Vec::new(),
            counted: false,
            backlog: Backlog {
                raised: false,
                window_s: crate::reconcile::BACKLOG_WINDOW_S,
                arrivals: 0,
                answered: 0,
                capacity: DEFAULT_REVIEW_CAPACITY,
                open: 0,
            },
        }
    }
}

impl Glance {
    pub fn read(ledger: &Ledger, now: Timestamp) -> Result<Glance, StoreError> {
        let accounts = reconcile::account(ledger, 3600, FIRST_MISSING, None)?;
        let mut windows = Vec::new();
        for w in accounts.windows.iter().rev().take(RECENT_WINDOWS) {
            for (state, jobs) in &w.states {
                if let (Some(state), true) = (JobState::parse(state), *jobs > 0) {
                    windows.push(WindowStates {
                        start: w.start,
                        state,
                        jobs: *jobs,
                    });
                }
            }
        }
        Ok(Glance {
            missing: MissingCounts {
                accepted: accounts.accepted,
                missing_terminal: accounts.missing_terminal.count,
                missing_output: accounts.missing_output.count,
                missing_notification: accounts.missing_notification.count,
            },
            first_missing_terminal: accounts.missing_terminal.first,
            first_missing_output: accounts.missing_output.first,
            first_missing_notification: accounts.missing_notification.first,
            windows,
            backlog: Backlog::measure(ledger, now, DEFAULT_REVIEW_CAPACITY)?,
            counted: true,
        })
    }
}
