//! Looks: when a reviewer last looked at a list, and how far the ledger had come then,
//! so that what is new or changed since is marked for them when they come back.

use crate::clock::Timestamp;

/// One look at one list by one reviewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookRow {
    pub reviewer: String,
    /// `held`, `quarantined` or `aged`.
    pub list: String,
    pub looked_at: Timestamp,
    /// The newest callback in the ledger then.
    pub callback_seq: i64,
    /// The newest answer in the ledger then.
    pub answer_id: i64,
}
