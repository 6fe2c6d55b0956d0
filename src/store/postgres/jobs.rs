//! The jobs family on PostgreSQL.

// Not yet written for this engine: every call says so (StoreError::Unsupported).
#![allow(
    unused_imports,
    clippy::wildcard_imports,
    clippy::unused_self,
    clippy::needless_pass_by_value,
    clippy::trivially_copy_pass_by_ref
)]

mod pages;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{JobState, Outcome, Rejection, RequestKind};
use crate::event::JobAccepted;
use crate::filter::{Query, Sort};
use crate::store::*;

impl Ledger {
    pub fn job(&self, _job_id: &str) -> Result<Option<JobRow>, StoreError> {
        Err(self.not_yet("job"))
    }

    pub fn attempts(&self, _job_id: &str) -> Result<Vec<AttemptRow>, StoreError> {
        Err(self.not_yet("attempts"))
    }

    pub fn attempt(&self, _job_id: &str, _attempt: i64) -> Result<Option<AttemptRow>, StoreError> {
        Err(self.not_yet("attempt"))
    }
}

impl Writer<'_> {
    pub fn job(&mut self, _job_id: &str) -> Result<Option<JobRow>, StoreError> {
        Err(self.not_yet("job"))
    }

    pub fn attempt(
        &mut self,
        _job_id: &str,
        _attempt: i64,
    ) -> Result<Option<AttemptRow>, StoreError> {
        Err(self.not_yet("attempt"))
    }

    pub fn insert_job(
        &mut self,
        _job: &JobAccepted,
        _defaults: JobDefaults,
        _line_seq: i64,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("insert_job"))
    }

    pub fn insert_attempt(&mut self, _new: &NewAttempt<'_>) -> Result<(), StoreError> {
        Err(self.not_yet("insert_attempt"))
    }

    pub fn restart_attempt(
        &mut self,
        _job_id: &str,
        _attempt: i64,
        _started_at: Timestamp,
        _timeout_at: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("restart_attempt"))
    }

    pub fn set_attempt_state(
        &mut self,
        _job_id: &str,
        _attempt: i64,
        _state: AttemptState,
        _at: Timestamp,
    ) -> Result<(), StoreError> {
        Err(self.not_yet("set_attempt_state"))
    }

    pub fn transition(
        &mut self,
        _t: &Transition<'_>,
        _record: TerminalRecord<'_>,
    ) -> Result<bool, StoreError> {
        Err(self.not_yet("transition"))
    }

    pub fn job_exists(&self, _job_id: &str) -> Result<bool, StoreError> {
        Err(self.not_yet("job_exists"))
    }

    pub fn history(&mut self, _entry: &HistoryEntry<'_>) {
        todo!("PostgreSQL: history")
    }
}
