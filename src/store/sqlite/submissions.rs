//! Every submission of a job id after its first: the identity it came with, and
//! whether that identity conflicts with the first (which stands). Conflicts are
//! few; reconciliation lists them from their own index, never job by job.

use crate::store::{ConflictingSubmission, NewRepeat, SubmittedIdentity};
use rusqlite::params;

use super::columns::from_columns;
use super::{Ledger, StoreError, Writer};
use crate::decision::Identity;

type Result<T> = std::result::Result<T, StoreError>;

impl Ledger {
    /// Every job id submitted again with another identity, in job id order (bytewise),
    /// with its first identity and each conflicting one.
    pub fn conflicting_submissions(&self) -> Result<Vec<ConflictingSubmission>> {
        self.run(|c| {
            let mut st = c.prepare_cached(
                "SELECT r.job_id,
                        j.input_digest, j.accepted_line, j.model_digest, j.policy_revision, j.accepted_at,
                        r.input_digest, r.line_seq, r.model_digest, r.policy_revision, r.submitted_at
                   FROM repeated_submissions r JOIN jobs j ON j.job_id = r.job_id
                  WHERE r.conflicting = 1 ORDER BY r.job_id, r.line_seq",
            )?;
            let mut found: Vec<ConflictingSubmission> = Vec::new();
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                let job_id = row.get_ref(0)?.as_str()?;
                let again = from_columns!(row, 6 => SubmittedIdentity {
                    input_digest, line_seq, model_digest, policy_revision, submitted_at
                });
                match found.last_mut() {
                    Some(job) if job.job_id == job_id => job.conflicting.push(again),
                    _ => found.push(ConflictingSubmission {
                        conflicting: vec![again],
                        first: from_columns!(row, 1 => SubmittedIdentity {
                            input_digest, line_seq, model_digest, policy_revision, submitted_at
                        }),
                        job_id: job_id.to_owned(),
                    }),
                }
            }
            Ok(found)
        })
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
        self.execute(
            "INSERT INTO repeated_submissions (line_seq, job_id, submitted_at, input_digest,
                 model_digest, policy_revision, conflicting)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                repeat.line_seq,
                repeat.job_id,
                repeat.submitted_at,
                input_digest,
                model_digest,
                policy_revision,
                repeat.conflicting
            ],
        )?;
        if repeat.conflicting {
            self.reconcile.touched(repeat.job_id);
        }
        Ok(())
    }
}
