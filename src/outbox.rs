//! Requests to the outside (retry, cancel): only ever made by a person, with checks.
//!
//! The disposition engine never writes here; [`check`] is pure, [`request`] writes
//! the request in one transaction after checking against what the ledger holds then,
//! and [`withdraw`] takes a pending one back (a row of its own; the request's row is
//! never changed).

use crate::clock::Timestamp;
use crate::decision::JobState;
pub use crate::decision::{RequestKind, RequestStatus};
use crate::store::{
    AttemptState, JobRow, Ledger, OutboxRow, OutputFacts, PendingRequests, Reads, StoreError,
    Withdrawal,
};

/// Why a request was refused, in plain words: what stands in the way, and what to
/// do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the job's attempt budget is spent: {used} of {budget} attempts used or requested")]
    BudgetSpent { used: i64, budget: i64 },
    #[error("the job already has a success on record ({state}); {}", done_already(*.kind))]
    AlreadySucceeded { state: JobState, kind: RequestKind },
    #[error("the job's output object exists ({reference}); {}", output_there(*.kind))]
    OutputExists {
        reference: String,
        kind: RequestKind,
    },
    #[error(
        "the job's output retention expired at {until}; what a retry would replace is gone, so a person must decide outside"
    )]
    RetentionExpired { until: Timestamp },
    #[error("the job is {state}; there is nothing left to {kind}")]
    Closed { state: JobState, kind: RequestKind },
    #[error(
        "the job failed permanently; a retry would fail the same way, so fix the cause outside and start a new job"
    )]
    FailedPermanently,
    #[error(
        "a {kind} request for this job is already waiting in the outbox; one request at a time, so wait until the job system has taken it"
    )]
    AlreadyRequested { kind: RequestKind },
    #[error(
        "attempt {attempt} is still running; a retry now could do the work twice at once, so wait until it ends or times out"
    )]
    StillRunning { attempt: i64 },
}

/// Why a job whose work is done takes no request: a retry would do it again, and a
/// cancel has nothing left to stop.
fn done_already(kind: RequestKind) -> &'static str {
    match kind {
        RequestKind::Retry => "a retry could do the work twice",
        RequestKind::Cancel => "its work is done, so there is nothing left to cancel",
    }
}

/// Why a job whose output exists takes no request: nothing is missing for a retry to
/// make, and a cancel cannot stop what has been made.
fn output_there(kind: RequestKind) -> &'static str {
    match kind {
        RequestKind::Retry => "nothing is missing to redo",
        RequestKind::Cancel => "its work is done, so there is nothing left to cancel",
    }
}

/// What a request is checked against, read in the transaction that writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestFacts {
    pub job: JobRow,
    pub output: OutputFacts,
    /// Requests of any kind still pending for the job.
    pub pending: PendingRequests,
    /// The state of the job's latest attempt (`None`: the ledger has no row for it).
    pub latest_attempt: Option<AttemptState>,
}

impl RequestFacts {
    /// The facts for `job_id` as the ledger holds them (`None`: no such job).
    pub fn read(ledger: &Ledger, job_id: &str) -> Result<Option<Self>, StoreError> {
        Self::gather(&mut &*ledger, job_id)
    }

    /// The facts read from `source`: the ledger, or a writer inside its transaction.
    fn gather(source: &mut impl Reads, job_id: &str) -> Result<Option<Self>, StoreError> {
        let Some(job) = source.job(job_id)? else {
            return Ok(None);
        };
        let latest = source.attempt(job_id, job.latest_attempt)?;
        Ok(Some(RequestFacts {
            output: source.output_facts(job_id)?,
            pending: source.pending_requests(job_id)?,
            latest_attempt: latest.map(|a| a.state),
            job,
        }))
    }
}

/// The checks every request must pass (SPEC sec. 6), in this order.
///
/// What can never change comes first, so a person is not sent to wait for something
/// that would be refused anyway: a success on record, a cancelled job, an expired
/// retention (retry), an existing output, a permanent failure (retry), a spent budget
/// (retry; pending retries count as used). Then what passes with time: another request
/// of either kind still pending (one request at a time, so requests cannot contradict
/// each other), and the latest attempt still running (retry).
pub fn check(kind: RequestKind, facts: &RequestFacts, now: Timestamp) -> Result<(), Refusal> {
    let RequestFacts {
        job,
        output,
        pending,
        latest_attempt,
    } = facts;
    let retry = kind == RequestKind::Retry;
    if job.state.has_success() {
        return Err(Refusal::AlreadySucceeded {
            state: job.state,
            kind,
        });
    }
    if job.state == JobState::Cancelled {
        return Err(Refusal::Closed {
            state: job.state,
            kind,
        });
    }
    if let Some(until) = output.retention_until.filter(|until| *until <= now)
        && retry
    {
        return Err(Refusal::RetentionExpired { until });
    }
    if output.exists() {
        return Err(Refusal::OutputExists {
            reference: output.reference.clone().unwrap_or_default(),
            kind,
        });
    }
    if retry && failed_permanently(job) {
        return Err(Refusal::FailedPermanently);
    }
    if retry {
        let used = job.latest_attempt + pending.retries;
        if used >= job.attempt_budget {
            return Err(Refusal::BudgetSpent {
                used,
                budget: job.attempt_budget,
            });
        }
    }
    if let Some(waiting) = pending.waiting(kind) {
        return Err(Refusal::AlreadyRequested { kind: waiting });
    }
    if retry && *latest_attempt == Some(AttemptState::Running) {
        return Err(Refusal::StillRunning {
            attempt: job.latest_attempt,
        });
    }
    Ok(())
}

/// The job ended in a failure its worker called permanent.
pub fn failed_permanently(job: &JobRow) -> bool {
    job.state == JobState::Failed && job.failure_permanent == Some(true)
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
    let facts = RequestFacts::gather(&mut writer, job_id)?
        .ok_or_else(|| RequestError::NoSuchJob(job_id.to_owned()))?;
    check(kind, &facts, now).map_err(|refusal| RequestError::Refused {
        kind,
        job_id: job_id.to_owned(),
        refusal,
    })?;
    let job = facts.job;
    let attempt =
        (kind == RequestKind::Retry).then_some(job.latest_attempt + facts.pending.retries + 1);
    let id = writer.insert_request(&job, kind, attempt, by, now)?;
    writer.commit()?;
    Ok(RequestWritten { id, attempt })
}

/// Why a request was not withdrawn (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum WithdrawError {
    #[error("no request {0} is in the outbox (see `jobledger outbox`)")]
    NoSuchRequest(i64),
    #[error(
        "request {id} was already withdrawn by {} at {}; a request is withdrawn once",
        crate::inert::inert(&.withdrawal.withdrawn_by),
        .withdrawal.withdrawn_at.short()
    )]
    AlreadyWithdrawn { id: i64, withdrawal: Withdrawal },
    #[error("a withdrawal needs the name of the person taking the request back")]
    NoWithdrawer,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Takes back pending request `id`, recording who, when and why, in one transaction;
/// returns the request as it stands now (withdrawn).
pub fn withdraw(
    ledger: &mut Ledger,
    id: i64,
    by: &str,
    note: &str,
    now: Timestamp,
) -> Result<OutboxRow, WithdrawError> {
    if by.trim().is_empty() {
        return Err(WithdrawError::NoWithdrawer);
    }
    let mut writer = ledger.writer()?;
    let request = writer
        .outbox_request(id)?
        .ok_or(WithdrawError::NoSuchRequest(id))?;
    if let Some(withdrawal) = request.withdrawal {
        return Err(WithdrawError::AlreadyWithdrawn { id, withdrawal });
    }
    writer.insert_withdrawal(id, by, now, note)?;
    let withdrawn = writer
        .outbox_request(id)?
        .ok_or(WithdrawError::NoSuchRequest(id))?;
    writer.commit()?;
    Ok(withdrawn)
}
