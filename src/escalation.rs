//! Escalation owners: who owns a stuck job, and when it escalates.

use crate::clock::Timestamp;
use crate::store::{Ledger, StoreError};

/// Why an owner was not set.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error("no job {0:?} is in the ledger")]
    NoSuchJob(String),
    #[error("an owner needs a name")]
    NoOwner,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Appends an owner assignment (the latest one stands), in one transaction.
pub fn set_owner(
    ledger: &mut Ledger,
    job_id: &str,
    owner: &str,
    escalate_at: Option<Timestamp>,
    set_by: &str,
    now: Timestamp,
) -> Result<(), OwnerError> {
    if owner.trim().is_empty() {
        return Err(OwnerError::NoOwner);
    }
    let mut writer = ledger.writer()?;
    if !writer.job_exists(job_id)? {
        return Err(OwnerError::NoSuchJob(job_id.to_owned()));
    }
    writer.assign_owner(job_id, owner, escalate_at, set_by, now)?;
    writer.commit()?;
    Ok(())
}
