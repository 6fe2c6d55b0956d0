//! The check family on PostgreSQL.

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
    pub fn damage_probe(&self) -> Result<(), StoreError> {
        Err(self.not_yet("damage_probe"))
    }

    pub fn kept_for(&self, _filter: &CallbackFilter) -> Result<Option<i64>, StoreError> {
        Err(self.not_yet("kept_for"))
    }

    pub fn confirm_listed(
        &self,
        _listed: i64,
        _before: i64,
        _after: i64,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("confirm_listed"))
    }

    pub fn copy_into(&self, _dest: &Path) -> Result<(), StoreError> {
        Err(self.not_yet("copy_into"))
    }

    pub fn copy_problems(&self) -> Result<Vec<String>, StoreError> {
        Err(self.not_yet("copy_problems"))
    }

    pub fn size_bytes(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("size_bytes"))
    }
}

impl Ledger {
    pub fn check(&self, _before: impl FnMut(&'static str)) -> Vec<CheckFinding> {
        todo!("PostgreSQL: check")
    }
}
