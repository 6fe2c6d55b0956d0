//! Who owns a stuck job.

use crate::clock::Timestamp;
use serde::Serialize;

/// Who owns a stuck job and when it escalates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnerRow {
    pub owner: String,
    pub escalate_at: Option<Timestamp>,
    pub set_by: String,
    pub set_at: Timestamp,
    /// The database role that wrote the assignment, when the ledger knows it (see
    /// [`crate::store::AnswerRow::written_by`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
}
