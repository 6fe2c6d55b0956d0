//! Every accepted job as the reconciliation walk sees it.

use super::OwnerRow;
use crate::clock::Timestamp;
use crate::decision::JobState;

/// One accepted job as reconciliation sees it.
// Each flag is a separate fact from its own side read, judged apart by a finding.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq)]
pub struct JobAccount<'a> {
    pub job_id: &'a str,
    pub state: JobState,
    pub accepted_at: Timestamp,
    /// Its latest output object is on record, and no check since found it missing.
    pub output_exists: bool,
    /// A notification was sent for it.
    pub notified: bool,
    /// Decisions about it were acted on under more than one decision id.
    pub divergent_decisions: bool,
    /// Its id was submitted again with another identity.
    pub conflicting_submission: bool,
    /// What an open job (no terminal record) adds: when it ages, and who owns it.
    pub open: Option<OpenJob>,
}

/// An open job's age and owner, as the aged list shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenJob {
    pub aged_at: Timestamp,
    pub expected_age_s: i64,
    /// The latest owner assignment.
    pub owner: Option<OwnerRow>,
}
