//! The answers family on PostgreSQL.

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
    pub fn work_counts(&self) -> Result<(i64, i64, i64), StoreError> {
        Err(self.not_yet("work_counts"))
    }

    pub fn answers_between(&self, _since: Timestamp, _until: Timestamp) -> Result<i64, StoreError> {
        Err(self.not_yet("answers_between"))
    }

    pub fn open_questions(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("open_questions"))
    }

    pub fn closed_questions(&self) -> Result<DispositionCounts, StoreError> {
        Err(self.not_yet("closed_questions"))
    }

    pub fn earlier_answer_on_job(
        &self,
        _job_id: &str,
        _except_seq: i64,
    ) -> Result<Option<AnswerRow>, StoreError> {
        Err(self.not_yet("earlier_answer_on_job"))
    }

    pub fn newest_answer_id(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("newest_answer_id"))
    }

    pub fn answers(&self, _callback_seq: i64) -> Result<Vec<AnswerRow>, StoreError> {
        Err(self.not_yet("answers"))
    }
}

impl Writer<'_> {
    pub fn insert_answer(&mut self, _answer: &NewAnswer<'_>) -> Result<i64, StoreError> {
        Err(self.not_yet("insert_answer"))
    }
}
