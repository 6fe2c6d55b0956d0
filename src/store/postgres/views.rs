//! The views family on PostgreSQL.

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
    pub fn saved_views(&self) -> Result<Vec<SavedView>, StoreError> {
        Err(self.not_yet("saved_views"))
    }

    pub fn saved_view(&self, _name: &str) -> Result<Option<SavedView>, StoreError> {
        Err(self.not_yet("saved_view"))
    }
}

impl Writer<'_> {
    pub fn save_view(&mut self, _view: &SavedView) -> Result<(), StoreError> {
        Err(self.not_yet("save_view"))
    }

    pub fn delete_view(
        &mut self,
        _name: &str,
        _deleted_by: &str,
        _at: Timestamp,
    ) -> Result<Option<SavedView>, StoreError> {
        Err(self.not_yet("delete_view"))
    }
}
