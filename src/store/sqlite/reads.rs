//! [`Reads`] on a ledger and on a writer: each read calls the same function over the
//! connection (a writer's transaction is one), the writer's jobs and attempts going
//! through the rows it keeps in memory until commit (`write_behind.rs`).

use super::{Ledger, Writer};
use crate::store::{AttemptRow, JobRow, OutputFacts, PendingRequests, Reads, StoreError};

impl Reads for &Ledger {
    fn job(&mut self, job_id: &str) -> Result<Option<JobRow>, StoreError> {
        Ledger::job(self, job_id)
    }

    fn attempt(&mut self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>, StoreError> {
        Ledger::attempt(self, job_id, attempt)
    }

    fn output_facts(&self, job_id: &str) -> Result<OutputFacts, StoreError> {
        Ledger::output_facts(self, job_id)
    }

    fn pending_requests(&self, job_id: &str) -> Result<PendingRequests, StoreError> {
        Ledger::pending_requests(self, job_id)
    }
}

impl Reads for Writer<'_> {
    fn job(&mut self, job_id: &str) -> Result<Option<JobRow>, StoreError> {
        Writer::job(self, job_id)
    }

    fn attempt(&mut self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>, StoreError> {
        Writer::attempt(self, job_id, attempt)
    }

    fn output_facts(&self, job_id: &str) -> Result<OutputFacts, StoreError> {
        Writer::output_facts(self, job_id)
    }

    fn pending_requests(&self, job_id: &str) -> Result<PendingRequests, StoreError> {
        Writer::pending_requests(self, job_id)
    }
}
