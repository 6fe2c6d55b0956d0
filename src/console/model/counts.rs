//! Counts the tabs, the status line and the Reconcile view show, kept in the model
//! between changes.

use crate::reconcile::Window;
use crate::reconcile::{Backlog, DEFAULT_REVIEW_CAPACITY, ReviewHour};
use crate::store::MissingCounts;

/// Job ids listed per reconciliation finding; the CLI's `reconcile` lists them all.
pub(crate) const FIRST_MISSING: usize = 8;
/// Submission windows the Reconcile view shows (one hour each).
pub(crate) const RECENT_WINDOWS: usize = 12;

/// A view's count: all of its rows, and those matching its filter when it has one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    /// Every row of the view.
    pub all: i64,
    /// The rows matching its filter (among those it lists), when it has one.
    pub matching: Option<i64>,
    /// Of all its rows, the questions still open, for a view of questions (held,
    /// quarantined): the queue that shrinks as answers close them.
    pub open: Option<i64>,
    /// The view lists the open questions only (`O` shows all).
    pub open_only: bool,
    /// The rows of a new filter are on screen and their count is still being made
    /// (a large view shows the first rows before counting a million): until it comes,
    /// `matching` is the previous filter's and says nothing of these rows.
    pub counting: bool,
}

impl Count {
    /// The count in the console's one notation, the same in the view's tab, its title
    /// and the messages: `shown/all`, the rows the view shows (those its filter keeps,
    /// or the questions still open when it lists only those) of all the rows it holds;
    /// a single number when it shows them all. The `?` help says so, once.
    pub fn shown_of_all(&self) -> String {
        let narrowed = self.matching.is_some() || (self.open_only && self.open.is_some());
        if narrowed {
            format!("{}/{}", self.listed(), self.all)
        } else {
            self.all.to_string()
        }
    }

    /// How many rows the view lists: those matching the filter, else the open
    /// questions when it shows only those, else all.
    pub fn listed(&self) -> i64 {
        match (self.matching, self.open) {
            (Some(matching), _) => matching,
            (None, Some(open)) if self.open_only => open,
            _ => self.all,
        }
    }
}

/// The reconciliation at a glance: counts, the first jobs of each finding, recent
/// windows and the backlog alarm.
#[derive(Debug, Clone, PartialEq)]
pub struct ReconcileSummary {
    pub missing: MissingCounts,
    pub first_missing_terminal: Vec<String>,
    pub first_missing_output: Vec<String>,
    pub first_missing_notification: Vec<String>,
    pub first_divergent_decisions: Vec<String>,
    pub first_conflicting_submissions: Vec<String>,
    /// The recent submission windows, newest first: their jobs by state now, and
    /// those decided under more than one decision id or submitted again with another
    /// identity: the windows a reviewer reads first, since a job decided twice or
    /// resubmitted under another identity is the one most likely counted wrong.
    pub windows: Vec<Window>,
    pub backlog: Backlog,
    /// Arrivals for people against answers, per clock hour over the last day
    /// (oldest first), counted with the findings.
    pub trend: Vec<ReviewHour>,
    /// The findings and windows above have been counted (a large ledger's are counted
    /// off the console's thread, and arrive after the first frame).
    pub counted: bool,
}

impl Default for ReconcileSummary {
    fn default() -> Self {
        ReconcileSummary {
            missing: MissingCounts::default(),
            first_missing_terminal: Vec::new(),
            first_missing_output: Vec::new(),
            first_missing_notification: Vec::new(),
            first_divergent_decisions: Vec::new(),
            first_conflicting_submissions: Vec::new(),
            windows: Vec::new(),
            trend: Vec::new(),
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
