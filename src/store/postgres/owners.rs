//! The owners family on PostgreSQL.

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
    pub fn owner(&self, _job_id: &str) -> Result<Option<OwnerRow>, StoreError> {
        Err(self.not_yet("owner"))
    }
}

impl Writer<'_> {
    pub fn owner(&self, _job_id: &str) -> Result<Option<OwnerRow>, StoreError> {
        Err(self.not_yet("owner"))
    }

    pub fn assign_owner(
        &mut self,
        _job_id: &str,
        _owner: &str,
        _escalate_at: Option<Timestamp>,
        _set_by: &str,
        _set_at: Timestamp,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("assign_owner"))
    }

    pub fn clear_owner(
        &mut self,
        _job_id: &str,
        _set_by: &str,
        _set_at: Timestamp,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("clear_owner"))
    }
}
