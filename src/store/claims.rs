//! Claims: a reviewer saying "on it" on a held or quarantined case, so that a colleague
//! does not work the same case without knowing. Appended; the latest row of a callback
//! stands until it lapses, is released, or the case is answered after it.

use serde::Serialize;

use crate::clock::Timestamp;
use crate::store::AnswerRow;

/// How long a claim lasts unless released or answered: half an hour.
pub const CLAIM_LASTS_S: i64 = 30 * 60;

/// A claim on a callback: who is on it, since when, until when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimRow {
    #[serde(skip)]
    pub callback_seq: i64,
    pub reviewer: String,
    pub since: Timestamp,
    pub until: Timestamp,
    /// The database role that wrote the claim, when the ledger knows it (see
    /// [`crate::store::AnswerRow::written_by`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
}

impl ClaimRow {
    /// Does the claim still stand at `now`, the case's standing answer being `answer`?
    /// It lapses at `until`, and an answer given since it was made ends it: the case
    /// it was taken for is answered.
    pub fn stands(&self, now: Timestamp, answer: Option<&AnswerRow>) -> bool {
        now < self.until && answer.is_none_or(|a| a.answered_at < self.since)
    }
}
