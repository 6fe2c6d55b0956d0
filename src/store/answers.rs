//! Reviewers' answers to held and quarantined callbacks.

use crate::clock::Timestamp;
use crate::decision::Verdict;
use serde::Serialize;

/// A reviewer's answer to a held or quarantined callback.
///
/// Fields in alphabetical order: serialized in field order, they give the JSON
/// keys in the order reports have always printed them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerRow {
    pub answered_at: Timestamp,
    pub callback_seq: i64,
    pub id: i64,
    pub linked_job_id: Option<String>,
    pub note: String,
    pub reviewer: String,
    pub verdict: Verdict,
    /// The database role that wrote the row, as the server recorded it: known on a
    /// PostgreSQL ledger (and on a file copied from one), `None` where the ledger has
    /// no roles (a SQLite file's own writes). Left out of JSON when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
}

/// A reviewer's answer about to be appended.
#[derive(Debug, Clone, Copy)]
pub struct NewAnswer<'a> {
    pub callback_seq: i64,
    pub verdict: Verdict,
    pub note: &'a str,
    pub reviewer: &'a str,
    pub answered_at: Timestamp,
    /// The job a `linked` verdict names.
    pub linked_job_id: Option<&'a str>,
    /// The answer this one stands in front of, if any.
    pub previous_answer: Option<i64>,
}
