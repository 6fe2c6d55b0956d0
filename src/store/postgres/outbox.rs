//! The outbox family on PostgreSQL.

// Not yet written for this engine: every call says so (StoreError::Unsupported).
#![allow(
    unused_imports,
    clippy::wildcard_imports,
    clippy::unused_self,
    clippy::needless_pass_by_value,
    clippy::trivially_copy_pass_by_ref
)]

mod pages;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{JobState, Outcome, Rejection, RequestKind};
use crate::event::JobAccepted;
use crate::filter::{Query, Sort};
use crate::store::*;

impl Ledger {
    pub fn outbox_pending(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("outbox_pending"))
    }

    pub fn outbox(&self) -> Result<Vec<OutboxRow>, StoreError> {
        Err(self.not_yet("outbox"))
    }

    pub fn outbox_request(&self, _id: i64) -> Result<Option<OutboxRow>, StoreError> {
        Err(self.not_yet("outbox_request"))
    }

    pub fn pending_requests(&self, _job_id: &str) -> Result<PendingRequests, StoreError> {
        Err(self.not_yet("pending_requests"))
    }
}

impl Writer<'_> {
    pub fn pending_requests(&self, _job_id: &str) -> Result<PendingRequests, StoreError> {
        Err(self.not_yet("pending_requests"))
    }

    pub fn outbox_request(&self, _id: i64) -> Result<Option<OutboxRow>, StoreError> {
        Err(self.not_yet("outbox_request"))
    }

    pub fn insert_withdrawal(
        &mut self,
        _request_id: i64,
        _withdrawn_by: &str,
        _withdrawn_at: Timestamp,
        _note: &str,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("insert_withdrawal"))
    }

    pub fn insert_request(
        &mut self,
        _job: &JobRow,
        _request: RequestKind,
        _attempt: Option<i64>,
        _requested_by: &str,
        _requested_at: Timestamp,
    ) -> Result<i64, StoreError> {
        Err(self.not_yet("insert_request"))
    }
}
