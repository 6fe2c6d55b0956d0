//! Callbacks written by an ingest on PostgreSQL, and what a writer reads of them.

// Not yet written for this engine: every call says so (StoreError::Unsupported).
#![allow(
    unused_imports,
    clippy::wildcard_imports,
    clippy::unused_self,
    clippy::needless_pass_by_value,
    clippy::trivially_copy_pass_by_ref
)]

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use crate::clock::Timestamp;
use crate::decision::{JobState, Outcome, Rejection, RequestKind};
use crate::event::JobAccepted;
use crate::filter::{Query, Sort};
use crate::store::postgres::{Ledger, Writer};
use crate::store::*;

impl Writer<'_> {
    pub fn claim_history(
        &self,
        _job_id: &str,
        _attempt: i64,
        _outcome: Outcome,
    ) -> Result<ClaimHistory, StoreError> {
        Err(self.not_yet("claim_history"))
    }

    pub fn insert_callback(&mut self, _cb: &NewCallback<'_>) -> Result<i64, StoreError> {
        Err(self.not_yet("insert_callback"))
    }

    pub fn callback(&mut self, _seq: i64) -> Result<Option<CallbackRow>, StoreError> {
        Err(self.not_yet("callback"))
    }
}
