//! Requests to the outside (retry, cancel): only ever made by a person, with checks.
//!
//! The disposition engine never writes here; [`check`] is pure, [`request`] writes
//! the request in one transaction after checking against what the ledger holds then.

use crate::clock::Timestamp;
use crate::decision::JobState;
pub use crate::decision::{RequestKind, RequestStatus};
use crate::store::{JobRow, Ledger, OutputFacts, StoreError};

/// Why a request was refused, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the job's attempt budget is spent: {used} of {budget} attempts used or requested")]
    BudgetSpent { used: i64, budget: i64 },
    #[error("the job already has a success on record ({state}); a retry could do the work twice")]
    AlreadySucceeded { state: JobState },
    #[error("the job's output object exists ({reference}); nothing is missing to redo")]
    OutputExists { reference: String },
    #[error(
        "the job's output retention expired at {until}; what a retry would replace is gone, so a person must decide outside"
    )]
    RetentionExpired { until: Timestamp },
    #[error("the job is {state}; there is nothing left to {kind}")]
    Closed { state: JobState, kind: RequestKind },
    #[error("a {kind} request for this job is already waiting in the outbox")]
    AlreadyRequested { kind: RequestKind },
}

/// The checks every request must pass (SPEC sec. 6).
pub fn check(
    kind: RequestKind,
    job: &JobRow,
    output: &OutputFacts,
    pending_of_kind: i64,
    now: Timestamp,
) -> Result<(), Refusal> {
    if job.state.has_success() {
        return Err(Refusal::AlreadySucceeded { state: job.state });
    }
    if job.state == JobState::Cancelled {
        return Err(Refusal::Closed {
            state: job.state,
            kind,
        });
    }
    if let Some(until) = output.retention_until.filter(|until| *until <= now)
        && kind == RequestKind::Retry
    {
        return Err(Refusal::RetentionExpired { until });
    }
    if output.exists() {
        return Err(Refusal::OutputExists {
            reference: output.reference.clone().unwrap_or_default(),
        });
    }
    match kind {
        RequestKind::Retry => {
            let used = job.latest_attempt + pending_of_kind;
            if used >= job.attempt_budget {
                return Err(Refusal::BudgetSpent {
                    used,
                    budget: job.attempt_budget,
                });
            }
        }
        RequestKind::Cancel => {
            if pending_of_kind > 0 {
                return Err(Refusal::AlreadyRequested { kind });
            }
        }
    }
    Ok(())
}

/// Why no request was written.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("no job {0:?} is in the ledger")]
    NoSuchJob(String),
    #[error("{kind} of {job_id} refused: {refusal}")]
    Refused {
        kind: RequestKind,
        job_id: String,
        refusal: Refusal,
    },
    #[error("a request needs the name of the person making it")]
    NoRequester,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A request written to the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestWritten {
    pub id: i64,
    /// For a retry: the attempt number it will run as.
    pub attempt: Option<i64>,
}

/// Checks and writes a person's request, in one transaction.
pub fn request(
    ledger: &mut Ledger,
    kind: RequestKind,
    job_id: &str,
    by: &str,
    now: Timestamp,
) -> Result<RequestWritten, RequestError> {
    if by.trim().is_empty() {
        return Err(RequestError::NoRequester);
    }
    let mut writer = ledger.writer()?;
    let job = writer
        .job(job_id)?
        .ok_or_else(|| RequestError::NoSuchJob(job_id.to_owned()))?;
    let output = writer.output_facts(job_id)?;
    let pending = writer.pending_requests(job_id, kind)?;
    check(kind, &job, &output, pending, now).map_err(|refusal| RequestError::Refused {
        kind,
        job_id: job_id.to_owned(),
        refusal,
    })?;
    let attempt = (kind == RequestKind::Retry).then_some(job.latest_attempt + pending + 1);
    let id = writer.insert_request(&job, kind, attempt, by, now)?;
    writer.commit()?;
    Ok(RequestWritten { id, attempt })
}
