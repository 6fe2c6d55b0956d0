//! Rejected lines on PostgreSQL: the list, its pages and counts.

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

impl Ledger {
    pub fn rejected_count(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("rejected_count"))
    }

    pub fn rejected_lines(&self, _limit: usize) -> Result<Vec<RejectedLine>, StoreError> {
        Err(self.not_yet("rejected_lines"))
    }

    pub fn rejected_line(&self, _seq: i64) -> Result<Option<RejectedLine>, StoreError> {
        Err(self.not_yet("rejected_line"))
    }

    pub fn rejected_page(
        &self,
        _now: Timestamp,
        _query: &Query,
        _page: &PageRequest<i64>,
    ) -> Result<Vec<RejectedLine>, StoreError> {
        Err(self.not_yet("rejected_page"))
    }

    pub fn rejected_count_matching(
        &self,
        _now: Timestamp,
        _query: &Query,
    ) -> Result<i64, StoreError> {
        Err(self.not_yet("rejected_count_matching"))
    }
}
