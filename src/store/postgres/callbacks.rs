//! The callbacks family on PostgreSQL.

// Not yet written for this engine: every call says so (StoreError::Unsupported).
#![allow(
    unused_imports,
    clippy::wildcard_imports,
    clippy::unused_self,
    clippy::needless_pass_by_value,
    clippy::trivially_copy_pass_by_ref
)]

mod written;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{JobState, Outcome, Rejection, RequestKind};
use crate::event::JobAccepted;
use crate::filter::{Query, Sort};
use crate::store::*;

impl Ledger {
    pub fn callback(&self, _seq: i64) -> Result<Option<CallbackRow>, StoreError> {
        Err(self.not_yet("callback"))
    }

    pub fn callbacks_of_job(
        &self,
        _job_id: &str,
        _limit: usize,
    ) -> Result<Vec<CallbackRow>, StoreError> {
        Err(self.not_yet("callbacks_of_job"))
    }

    pub fn callbacks_page(
        &self,
        _filter: &CallbackFilter,
        _page: PageRequest<i64>,
    ) -> Result<Vec<CallbackRow>, StoreError> {
        Err(self.not_yet("callbacks_page"))
    }

    pub fn callbacks_report_page(
        &self,
        _filter: &CallbackFilter,
        _page: PageRequest<i64>,
    ) -> Result<Vec<CallbackRow>, StoreError> {
        Err(self.not_yet("callbacks_report_page"))
    }

    pub fn callbacks_sorted_page(
        &self,
        _filter: &CallbackFilter,
        _sort: Sort,
        _page: &PageRequest<CallbackKey>,
    ) -> Result<Vec<(CallbackRow, SortValue)>, StoreError> {
        Err(self.not_yet("callbacks_sorted_page"))
    }

    pub fn count_callbacks(&self, _filter: &CallbackFilter) -> Result<i64, StoreError> {
        Err(self.not_yet("count_callbacks"))
    }

    pub fn review_arrivals_between(
        &self,
        _since: Timestamp,
        _until: Timestamp,
    ) -> Result<i64, StoreError> {
        Err(self.not_yet("review_arrivals_between"))
    }

    pub fn callback_seqs(&self, _filter: &CallbackFilter) -> Result<Vec<i64>, StoreError> {
        Err(self.not_yet("callback_seqs"))
    }

    pub fn callbacks_numbered(&self, _seqs: &[i64]) -> Result<Vec<CallbackRow>, StoreError> {
        Err(self.not_yet("callbacks_numbered"))
    }
}

impl Writer<'_> {
    pub fn callbacks_numbered(&mut self, _seqs: &[i64]) -> Result<Vec<CallbackRow>, StoreError> {
        Err(self.not_yet("callbacks_numbered"))
    }

    pub fn callback_seqs(&mut self, _filter: &CallbackFilter) -> Result<Vec<i64>, StoreError> {
        Err(self.not_yet("callback_seqs"))
    }
}
