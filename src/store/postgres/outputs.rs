//! The outputs family on PostgreSQL.

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
    pub fn output_facts(&self, _job_id: &str) -> Result<OutputFacts, StoreError> {
        Err(self.not_yet("output_facts"))
    }

    pub fn decisions_suppressed(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("decisions_suppressed"))
    }
}

impl Writer<'_> {
    pub fn output_facts(&self, _job_id: &str) -> Result<OutputFacts, StoreError> {
        Err(self.not_yet("output_facts"))
    }

    pub fn insert_downstream(
        &mut self,
        _job_id: &str,
        _fact: &Downstream<'_>,
        _line_seq: i64,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("insert_downstream"))
    }

    pub fn insert_decision(
        &mut self,
        _decision: &NewDecision<'_>,
        _line_seq: i64,
    ) -> Result<bool, StoreError> {
        Err(self.not_yet("insert_decision"))
    }
}
