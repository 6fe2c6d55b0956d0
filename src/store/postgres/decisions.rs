//! The decisions family on PostgreSQL.

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
    pub fn divergent_decisions(&self) -> Result<Vec<DivergentJob>, StoreError> {
        Err(self.not_yet("divergent_decisions"))
    }

    pub fn divergent_decisions_closed(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("divergent_decisions_closed"))
    }

    pub fn decision_answer(&self, _job_id: &str) -> Result<Option<DecisionAnswerRow>, StoreError> {
        Err(self.not_yet("decision_answer"))
    }
}

impl Writer<'_> {
    pub fn is_divergent(&self, _job_id: &str) -> Result<bool, StoreError> {
        Err(self.not_yet("is_divergent"))
    }

    pub fn decision_answer(&self, _job_id: &str) -> Result<Option<DecisionAnswerRow>, StoreError> {
        Err(self.not_yet("decision_answer"))
    }

    pub fn insert_decision_answer(
        &mut self,
        _answer: &NewDecisionAnswer<'_>,
    ) -> Result<i64, StoreError> {
        Err(self.not_yet("insert_decision_answer"))
    }
}
