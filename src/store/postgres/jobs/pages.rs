//! Pages of the aged and failed jobs on PostgreSQL, under a query.

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
    pub fn aged_count(&self, _now: Timestamp) -> Result<i64, StoreError> {
        Err(self.not_yet("aged_count"))
    }

    pub fn aged_jobs_page(
        &self,
        _now: Timestamp,
        _query: &Query,
        _page: &PageRequest<JobKey>,
    ) -> Result<Vec<AgedJobRow>, StoreError> {
        Err(self.not_yet("aged_jobs_page"))
    }

    pub fn failed_jobs_page(
        &self,
        _now: Timestamp,
        _query: &Query,
        _page: &PageRequest<JobKey>,
    ) -> Result<Vec<(FailedJobRow, Timestamp)>, StoreError> {
        Err(self.not_yet("failed_jobs_page"))
    }

    pub fn aged_count_matching(&self, _now: Timestamp, _query: &Query) -> Result<i64, StoreError> {
        Err(self.not_yet("aged_count_matching"))
    }

    pub fn failed_count_matching(
        &self,
        _now: Timestamp,
        _query: &Query,
    ) -> Result<i64, StoreError> {
        Err(self.not_yet("failed_count_matching"))
    }
}
