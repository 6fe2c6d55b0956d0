//! Pages of the outbox on PostgreSQL, under a query.

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
    pub fn outbox_page(
        &self,
        _now: Timestamp,
        _query: &Query,
        _page: &PageRequest<i64>,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        Err(self.not_yet("outbox_page"))
    }

    pub fn outbox_count_matching(
        &self,
        _now: Timestamp,
        _query: &Query,
    ) -> Result<i64, StoreError> {
        Err(self.not_yet("outbox_count_matching"))
    }
}
