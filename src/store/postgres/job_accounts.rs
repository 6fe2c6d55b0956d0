//! Every job's account on PostgreSQL, for the reconciliation.

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
    pub fn for_each_job_account(&self, _f: impl FnMut(&JobAccount<'_>)) -> Result<(), StoreError> {
        Err(self.not_yet("for_each_job_account"))
    }
}
