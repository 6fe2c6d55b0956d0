//! The finding_jobs family on PostgreSQL.

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

use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{JobState, Outcome, Rejection, RequestKind};
use crate::event::JobAccepted;
use crate::filter::{Query, Sort};
use crate::store::*;

impl Ledger {
    pub fn finding_jobs_page(
        &self,
        _finding: Finding,
        _now: Timestamp,
        _query: &Query,
        _page: &PageRequest<String>,
    ) -> Result<Vec<FindingJob>, StoreError> {
        Err(self.not_yet("finding_jobs_page"))
    }

    pub fn finding_count_matching(
        &self,
        _finding: Finding,
        _now: Timestamp,
        _query: &Query,
    ) -> Result<i64, StoreError> {
        Err(self.not_yet("finding_count_matching"))
    }
}
