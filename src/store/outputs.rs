//! What happened downstream of a job: its output objects and the checks of them, the
//! notifications sent, and the decisions taken.

use crate::clock::Timestamp;

/// What a line says happened downstream of a job (each kept in its own table).
#[derive(Debug, Clone, Copy)]
pub enum Downstream<'a> {
    /// The job's output object was stored (kept until a time, or for good).
    OutputStored {
        reference: &'a str,
        stored_at: Timestamp,
        retention_until: Option<Timestamp>,
    },
    /// Someone checked whether the output object still exists.
    OutputChecked { at: Timestamp, exists: bool },
    /// A notification about the job was sent.
    NotificationSent { kind: &'a str, at: Timestamp },
}

/// What the ledger knows about a job's output object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputFacts {
    pub reference: Option<String>,
    pub retention_until: Option<Timestamp>,
    /// The latest existence check, when one was made after the object was stored.
    pub last_check_exists: Option<bool>,
}

impl OutputFacts {
    /// Stored, and not since found missing.
    pub fn exists(&self) -> bool {
        self.reference.is_some() && self.last_check_exists != Some(false)
    }
}

/// A downstream decision as a line gave it.
#[derive(Debug, Clone, Copy)]
pub struct NewDecision<'a> {
    pub decision_id: &'a str,
    pub job_id: &'a str,
    pub action: &'a str,
    /// The region or path that produced it.
    pub route: Option<&'a str>,
    pub at: Timestamp,
}
