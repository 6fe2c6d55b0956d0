//! The counts family on PostgreSQL.

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
    pub fn disposition_counts(&self) -> Result<DispositionCounts, StoreError> {
        Err(self.not_yet("disposition_counts"))
    }

    pub fn job_state_counts(&self) -> Result<BTreeMap<JobState, i64>, StoreError> {
        Err(self.not_yet("job_state_counts"))
    }

    pub fn job_count(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("job_count"))
    }
}
