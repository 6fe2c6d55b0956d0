//! Withdrawing a pending request from the Outbox view: the request as it was asked,
//! an optional note, and what came of it.

use crate::clock::Timestamp;
use crate::console::field::{Outcome, TextField};
use crate::outbox::RequestStatus;
use crate::store::OutboxRow;

/// Confirming the withdrawal of a pending request (`w` on an Outbox row).
#[derive(Debug, Clone, PartialEq)]
pub struct WithdrawForm {
    /// The request as the row showed it when the form opened.
    pub request: OutboxRow,
    /// Why it is taken back (optional), kept beside the withdrawal.
    pub note: TextField,
    pub outcome: Option<Outcome>,
}

impl WithdrawForm {
    /// The form for `request`, or why it cannot be withdrawn (times read at `now`).
    pub fn new(request: &OutboxRow, now: Timestamp) -> Result<Self, String> {
        match (&request.withdrawal, request.status) {
            (Some(w), _) => Err(format!(
                "request {} was already withdrawn by {} at {}",
                request.id,
                crate::inert::inert(&w.withdrawn_by),
                w.withdrawn_at.readable(now)
            )),
            (None, RequestStatus::Pending) => Ok(WithdrawForm {
                request: request.clone(),
                note: TextField::default(),
                outcome: None,
            }),
            (None, status) => Err(format!("request {} is {status}", request.id)),
        }
    }
}
