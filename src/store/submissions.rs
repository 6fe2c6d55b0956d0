//! A job id submitted again: the identity it came with, and whether that conflicts
//! with the first (which stands).

use crate::clock::Timestamp;
use crate::decision::Identity;
use serde::Serialize;

/// A submission's identity, as its line gave it (fields in JSON key order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubmittedIdentity {
    pub input_digest: Option<String>,
    /// The input line that submitted it.
    pub line_seq: i64,
    pub model_digest: Option<String>,
    pub policy_revision: Option<String>,
    pub submitted_at: Timestamp,
}

/// A job id submitted again with another identity (fields in JSON key order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConflictingSubmission {
    /// The submissions with another identity, in the order they came.
    pub conflicting: Vec<SubmittedIdentity>,
    /// The identity that stands.
    pub first: SubmittedIdentity,
    pub job_id: String,
}

/// A repeated submission about to be kept.
#[derive(Debug, Clone, Copy)]
pub struct NewRepeat<'a> {
    pub line_seq: i64,
    pub job_id: &'a str,
    pub submitted_at: Timestamp,
    pub identity: Identity<'a>,
    /// Its identity differs from the first where both give a field.
    pub conflicting: bool,
}
