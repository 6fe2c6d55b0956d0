//! Requests (retry, cancel) waiting in the outbox, and their withdrawals.

use crate::clock::Timestamp;
use crate::decision::{RequestKind, RequestStatus};
use serde::Serialize;

/// A request waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutboxRow {
    pub id: i64,
    pub job_id: String,
    pub request: RequestKind,
    pub attempt: Option<i64>,
    pub input_digest: Option<String>,
    pub model_digest: Option<String>,
    pub policy_revision: Option<String>,
    pub requested_by: String,
    pub requested_at: Timestamp,
    /// `withdrawn` when a withdrawal row names the request, else the row's own status.
    pub status: RequestStatus,
    /// Who took the request back, when and why (`None`: it was not withdrawn).
    pub withdrawal: Option<Withdrawal>,
    /// The database role that wrote the request, when the ledger knows it (see
    /// [`crate::store::AnswerRow::written_by`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
}

/// A request taken back before it was sent: a row of its own, the request's row kept
/// as it was asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Withdrawal {
    pub withdrawn_by: String,
    pub withdrawn_at: Timestamp,
    pub note: String,
    /// The database role that wrote the withdrawal, when the ledger knows it (see
    /// [`crate::store::AnswerRow::written_by`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
}

/// Requests still pending in the outbox for one job, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PendingRequests {
    pub retries: i64,
    pub cancels: i64,
}

impl PendingRequests {
    /// How many of `kind` are pending.
    pub fn of(self, kind: RequestKind) -> i64 {
        match kind {
            RequestKind::Retry => self.retries,
            RequestKind::Cancel => self.cancels,
        }
    }

    /// The kind of a pending request, `preferred` first when one of it waits.
    pub fn waiting(self, preferred: RequestKind) -> Option<RequestKind> {
        [preferred, RequestKind::Retry, RequestKind::Cancel]
            .into_iter()
            .find(|&kind| self.of(kind) > 0)
    }
}
