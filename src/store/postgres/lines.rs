//! The lines family on PostgreSQL.

// Not yet written for this engine: every call says so (StoreError::Unsupported).
#![allow(
    unused_imports,
    clippy::wildcard_imports,
    clippy::unused_self,
    clippy::needless_pass_by_value,
    clippy::trivially_copy_pass_by_ref
)]

mod rejected;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{JobState, Outcome, Rejection, RequestKind};
use crate::event::JobAccepted;
use crate::filter::{Query, Sort};
use crate::store::*;

impl Ledger {
    pub fn raw_line(&self, _line_seq: i64) -> Result<Option<Vec<u8>>, StoreError> {
        Err(self.not_yet("raw_line"))
    }

    pub fn raw_head(
        &self,
        _line_seq: i64,
        _max_bytes: usize,
    ) -> Result<Option<(Vec<u8>, i64)>, StoreError> {
        Err(self.not_yet("raw_head"))
    }

    pub fn line_count(&self) -> Result<i64, StoreError> {
        Err(self.not_yet("line_count"))
    }

    pub fn all_lines_among(&self, _known: &HashSet<[u8; 32]>) -> Result<bool, StoreError> {
        Err(self.not_yet("all_lines_among"))
    }

    pub fn note(&self, _key: &str) -> Result<Option<String>, StoreError> {
        Err(self.not_yet("note"))
    }
}

impl Writer<'_> {
    pub fn insert_line_once(&mut self, _line: &NewLine<'_>) -> Result<Option<i64>, StoreError> {
        Err(self.not_yet("insert_line_once"))
    }

    pub fn reject_line(&mut self, _seq: i64, _reason: &Rejection) -> Result<(), StoreError> {
        Err(self.not_yet("reject_line"))
    }

    pub fn raw_line(&self, _line_seq: i64) -> Result<Option<Vec<u8>>, StoreError> {
        Err(self.not_yet("raw_line"))
    }

    pub fn set_note(&mut self, _key: &str, _value: &str) -> Result<(), StoreError> {
        Err(self.not_yet("set_note"))
    }
}
