//! The submissions family on PostgreSQL.

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
    pub fn conflicting_submissions(&self) -> Result<Vec<ConflictingSubmission>, StoreError> {
        Err(self.not_yet("conflicting_submissions"))
    }
}

impl Writer<'_> {
    pub fn insert_repeat(&mut self, _repeat: &NewRepeat<'_>) -> Result<(), StoreError> {
        Err(self.not_yet("insert_repeat"))
    }
}
