//! The reads a ledger and a writer (inside its transaction) both offer, so that what
//! is gathered from either, such as the facts a request is checked against, is
//! gathered by one piece of code.

use super::{AttemptRow, JobRow, OutputFacts, PendingRequests, StoreError};

/// Reads on the ledger as it stands, or on a writer's transaction as it stands so far
/// (its own rows included). Each engine implements it for its ledger (by shared
/// reference) and its writer.
pub trait Reads {
    /// The job, if the ledger has it. A writer remembers the row it reads (its
    /// changes are written once, at the end), hence `&mut`.
    fn job(&mut self, job_id: &str) -> Result<Option<JobRow>, StoreError>;
    /// One attempt of a job (remembered by a writer as [`Reads::job`] is).
    fn attempt(&mut self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>, StoreError>;
    /// What the ledger knows about a job's output object.
    fn output_facts(&self, job_id: &str) -> Result<OutputFacts, StoreError>;
    /// Requests still pending for a job, by kind.
    fn pending_requests(&self, job_id: &str) -> Result<PendingRequests, StoreError>;
}
