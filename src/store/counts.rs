//! Counts kept, not counted: callbacks by disposition, and what reconciliation finds
//! missing.

use crate::decision::Disposition;
use serde::Serialize;

/// Callbacks counted by disposition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DispositionCounts {
    pub applied: i64,
    pub held: i64,
    pub recorded: i64,
    pub quarantined: i64,
}

impl DispositionCounts {
    /// All callbacks.
    pub fn total(&self) -> i64 {
        self.applied + self.held + self.recorded + self.quarantined
    }

    /// Counts one more callback of this disposition.
    pub fn add(&mut self, disposition: Disposition) {
        *self.slot(disposition) += 1;
    }

    /// The count for one disposition.
    pub fn get(&self, disposition: Disposition) -> i64 {
        match disposition {
            Disposition::Apply => self.applied,
            Disposition::Hold => self.held,
            Disposition::Record => self.recorded,
            Disposition::Quarantine => self.quarantined,
        }
    }

    fn slot(&mut self, disposition: Disposition) -> &mut i64 {
        match disposition {
            Disposition::Apply => &mut self.applied,
            Disposition::Hold => &mut self.held,
            Disposition::Record => &mut self.recorded,
            Disposition::Quarantine => &mut self.quarantined,
        }
    }
}

/// Accepted jobs still missing something, counted (the reconciliation at a glance).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MissingCounts {
    pub accepted: i64,
    pub missing_terminal: i64,
    pub missing_output: i64,
    pub missing_notification: i64,
    /// Jobs decided under more than one decision id.
    pub divergent_decisions: i64,
    /// Of those, the ones no standing answer closes.
    pub divergent_open: i64,
    /// Job ids submitted again with another identity.
    pub conflicting_submissions: i64,
}
