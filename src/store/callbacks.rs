//! Callbacks, each judged once at ingest and kept with its disposition, and which of them a list shows.

use super::{AnswerRow, AttemptState};
use crate::clock::Timestamp;
use crate::decision::{Disposition, JobState, Outcome, ReasonCode};
use crate::filter::{FilterError, Query, Scope};
use serde::Serialize;

/// A callback with its disposition, about to be kept.
#[derive(Debug, Clone)]
pub struct NewCallback<'a> {
    pub line_seq: i64,
    pub delivery_id: Option<&'a str>,
    pub job_id: Option<&'a str>,
    pub attempt: Option<i64>,
    pub outcome: Option<Outcome>,
    pub arrived_at: Option<Timestamp>,
    pub timeout_at: Option<Timestamp>,
    pub disposition: Disposition,
    pub reason: ReasonCode,
    pub detail: Option<&'a str>,
    pub job_state_before: Option<JobState>,
    pub replacement_attempt: Option<i64>,
    /// Who started the replacement attempt, and when (they never change).
    pub replacement_started: Option<(String, Timestamp)>,
    pub first_report_seq: Option<i64>,
    pub linked_from_seq: Option<i64>,
    pub judged_at: Timestamp,
}

/// What earlier callbacks said about the same job and attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClaimHistory {
    /// The first callback that made the same claim, if any.
    pub first_same: Option<i64>,
    /// Some earlier callback reported the opposite outcome.
    pub opposite: bool,
}

/// The replacement attempt shown beside a callback.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replacement {
    pub attempt: i64,
    pub created_by: String,
    pub started_at: Timestamp,
    #[serde(skip)]
    pub state: Option<AttemptState>,
}

/// A callback as reports and the console show it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackRow {
    pub seq: i64,
    pub line_seq: i64,
    pub delivery_id: Option<String>,
    pub job_id: Option<String>,
    pub attempt: Option<i64>,
    pub outcome: Option<Outcome>,
    pub arrived_at: Option<Timestamp>,
    pub timeout_at: Option<Timestamp>,
    pub disposition: Disposition,
    pub reason: ReasonCode,
    pub detail: Option<String>,
    pub first_report_seq: Option<i64>,
    pub linked_from_seq: Option<i64>,
    /// When the table gave its disposition (at ingest, or when an answer linked it).
    pub judged_at: Timestamp,
    pub replacement: Option<Replacement>,
    pub answer: Option<AnswerRow>,
    /// A reviewer's claim standing on the case, when one was read for it (see
    /// `review::claims::attach`); `None` otherwise.
    pub claim: Option<super::ClaimRow>,
}

impl CallbackRow {
    /// A question still open: held or quarantined, with no standing answer that
    /// closes it (the open-only lists keep the same rows).
    pub fn is_open_question(&self) -> bool {
        self.disposition.waits_for_a_person()
            && self.answer.as_ref().is_none_or(|a| !a.verdict.closes())
    }
}

/// Which callbacks a list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackFilter {
    pub disposition: Option<Disposition>,
    /// Only open questions: held or quarantined callbacks whose standing answer, if
    /// any, does not close them ([`crate::decision::Verdict::closes`];
    /// `needs_remote_check` leaves one open).
    pub open: bool,
    /// Only callbacks the query keeps (a view's `/`, `callbacks --where`).
    pub query: Query,
    /// The time the query's ages are counted at (an age term keeps no row without it).
    pub now: Option<Timestamp>,
    /// Judge each callback by its standing answer as it stood when this answer was the
    /// newest (`None`: as it stands now): a bulk answer reads its selection again as it
    /// was planned, so a row answered since stays in it, to be named, not lost.
    pub answers_as_of: Option<i64>,
}

impl CallbackFilter {
    /// This filter, narrowed by `query` in the filter language ([`crate::filter`]),
    /// its ages counted at `now`, asked by `me` (`owner:me`): what `callbacks --where`
    /// (and a bulk answer over the rows a query keeps) lists. An error says where the
    /// query is wrong.
    pub fn with_query(
        self,
        query: &str,
        now: Timestamp,
        me: &str,
    ) -> std::result::Result<Self, FilterError> {
        Ok(CallbackFilter {
            query: Query::parse_as(query, Scope::Callbacks, me)?,
            now: Some(now),
            ..self
        })
    }
}
