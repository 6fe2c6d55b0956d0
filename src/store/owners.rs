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
}
