//! Every submission of a job id after its first, on PostgreSQL: the identity it came
//! with, and whether that identity conflicts with the first (which stands).

use super::writer::{Values, time_text};
use super::{Ledger, Writer};
use crate::decision::Identity;
use crate::store::{ConflictingSubmission, NewRepeat, StoreError, SubmittedIdentity};

type Result<T> = std::result::Result<T, StoreError>;

impl Ledger {
    /// Every job id submitted again with another identity, in job id order (bytewise),
    /// with its first identity and each conflicting one.
    pub fn conflicting_submissions(&self) -> Result<Vec<ConflictingSubmission>> {
        let rows = self.rows(
            "SELECT r.job_id,
                    j.input_digest, j.accepted_line, j.model_digest, j.policy_revision, j.accepted_at,
                    r.input_digest, r.line_seq, r.model_digest, r.policy_revision, r.submitted_at
               FROM repeated_submissions r JOIN jobs j ON j.job_id = r.job_id
              WHERE r.conflicting = 1 ORDER BY r.job_id, r.line_seq",
            &[],
        )?;
        let mut found: Vec<ConflictingSubmission> = Vec::new();
        for row in &rows {
            let v = Values {
                row,
                location: &self.location,
            };
            let identity = |first: usize| -> Result<SubmittedIdentity> {
                Ok(SubmittedIdentity {
                    input_digest: v.get(first)?,
                    line_seq: v.get(first + 1)?,
                    model_digest: v.get(first + 2)?,
                    policy_revision: v.get(first + 3)?,
                    submitted_at: v.time(first + 4)?,
                })
            };
            let job_id: &str = v.get(0)?;
            let again = identity(6)?;
            match found.last_mut() {
                Some(job) if job.job_id == job_id => job.conflicting.push(again),
                _ => found.push(ConflictingSubmission {
                    conflicting: vec![again],
                    first: identity(1)?,
                    job_id: job_id.to_owned(),
                }),
            }
        }
        Ok(found)
    }
}

impl Writer<'_> {
    /// Keeps a repeated submission of a job with the identity it came with.
    pub fn insert_repeat(&mut self, repeat: &NewRepeat<'_>) -> Result<()> {
        let Identity {
            input_digest,
            model_digest,
            policy_revision,
        } = repeat.identity;
        self.execute_direct(
            "INSERT INTO repeated_submissions (line_seq, job_id, submitted_at, input_digest,
                 model_digest, policy_revision, conflicting)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &repeat.line_seq,
                &repeat.job_id,
                &time_text(repeat.submitted_at),
                &input_digest,
                &model_digest,
                &policy_revision,
                &i16::from(repeat.conflicting),
            ],
        )?;
        if repeat.conflicting {
            self.touch(repeat.job_id);
        }
        Ok(())
    }
}
