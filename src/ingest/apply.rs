//! The effect of each well-formed event other than a callback.

use super::LineFate;
use crate::clock::Timestamp;
use crate::decision::{Identity, JobState, Rejection, RejectionCode, conflict_reason};
use crate::event::{Event, JobAccepted};
use crate::store::{
    AttemptState, Downstream, HistoryEntry, JobDefaults, JobRow, NewAttempt, NewDecision,
    NewRepeat, StoreError, TerminalRecord, Transition, Writer,
};

/// Applies one event kept as input line `seq`, or marks the line rejected when
/// the ledger cannot take it.
pub(crate) fn event(
    writer: &mut Writer<'_>,
    seq: i64,
    event: &Event,
    defaults: JobDefaults,
) -> Result<LineFate, StoreError> {
    let job = writer.job(event.job_id())?;
    let rejected = match (event, job) {
        (Event::JobAccepted(accepted), None) => {
            writer.insert_job(accepted, defaults, seq)?;
            return Ok(LineFate::Applied);
        }
        (Event::JobAccepted(again), Some(job)) => resubmitted(writer, &job, again, seq)?,
        (_, None) => Rejection::new(
            RejectionCode::NoAcceptedJob,
            format!("no job {:?} has been accepted", event.job_id()),
        ),
        (_, Some(job)) => match check(writer, &job, event)? {
            Ok(()) => {
                effect(writer, &job, event, seq)?;
                return Ok(LineFate::Applied);
            }
            Err(reason) => reason,
        },
    };
    writer.reject_line(seq, &rejected)?;
    Ok(LineFate::Rejected)
}

/// A job id submitted again: the first identity stands, so the line is rejected, and
/// the identity it came with is kept for the job's timeline. One that differs from the
/// first (where both give a field) is a client's bug a person must see: it gets its
/// own reason, and reconciliation lists it.
fn resubmitted(
    writer: &mut Writer<'_>,
    job: &JobRow,
    again: &JobAccepted,
    seq: i64,
) -> Result<Rejection, StoreError> {
    let first = Identity {
        input_digest: job.input_digest.as_deref(),
        model_digest: job.model_digest.as_deref(),
        policy_revision: job.policy_revision.as_deref(),
    };
    let identity = Identity {
        input_digest: again.input_digest.as_deref(),
        model_digest: again.model_digest.as_deref(),
        policy_revision: again.policy_revision.as_deref(),
    };
    let differences = first.conflicts(&identity);
    writer.insert_repeat(&NewRepeat {
        line_seq: seq,
        job_id: &job.job_id,
        submitted_at: again.at,
        identity,
        conflicting: !differences.is_empty(),
    })?;
    Ok(if differences.is_empty() {
        Rejection::new(
            RejectionCode::RepeatedSubmission,
            format!(
                "job {:?} was already accepted at {}; a repeated submission keeps its first identity",
                job.job_id, job.accepted_at
            ),
        )
    } else {
        conflict_reason(&job.job_id, &differences)
    })
}

/// Why an event about an existing job cannot be taken, if it cannot.
fn check(
    writer: &mut Writer<'_>,
    job: &JobRow,
    event: &Event,
) -> Result<Result<(), Rejection>, StoreError> {
    let known_attempt =
        |writer: &mut Writer<'_>, attempt: i64| -> Result<Result<(), Rejection>, StoreError> {
            Ok(match writer.attempt(&job.job_id, attempt)? {
                Some(_) => Ok(()),
                None => Err(Rejection::new(
                    RejectionCode::UnknownAttempt,
                    format!(
                        "job {:?} has no attempt {attempt} (latest is {})",
                        job.job_id, job.latest_attempt
                    ),
                )),
            })
        };
    match event {
        Event::AttemptStarted { attempt, .. } => {
            let attempt = *attempt;
            // Attempt 1 is opened by acceptance and started by this event; later ones are new.
            let first_start =
                attempt == 1 && job.latest_attempt == 1 && job.state == JobState::Accepted;
            if first_start || attempt > job.latest_attempt {
                Ok(Ok(()))
            } else {
                Ok(Err(Rejection::new(
                    RejectionCode::AttemptAlreadyStarted,
                    format!(
                        "attempt {attempt} of job {:?} was already started (latest is {})",
                        job.job_id, job.latest_attempt
                    ),
                )))
            }
        }
        Event::AttemptTimedOut { attempt, .. } => {
            let Some(row) = writer.attempt(&job.job_id, *attempt)? else {
                return known_attempt(writer, *attempt);
            };
            Ok(if row.state == AttemptState::TimedOut {
                Err(Rejection::new(
                    RejectionCode::AttemptAlreadyTimedOut,
                    format!(
                        "attempt {attempt} of job {:?} already timed out at {}",
                        job.job_id,
                        row.timed_out_at
                            .map_or_else(|| "?".to_owned(), |t| t.to_string())
                    ),
                ))
            } else {
                Ok(())
            })
        }
        Event::JobSucceeded { attempt, .. } | Event::JobFailed { attempt, .. } => {
            known_attempt(writer, *attempt)
        }
        _ => Ok(Ok(())),
    }
}

fn effect(
    writer: &mut Writer<'_>,
    job: &JobRow,
    event: &Event,
    seq: i64,
) -> Result<(), StoreError> {
    let id = job.job_id.as_str();
    let asked = Asked { job, seq };
    match event {
        Event::JobAccepted(_) => {}
        Event::AttemptStarted {
            attempt,
            at,
            created_by,
            timeout_at,
            ..
        } => {
            let timeout_at = timeout_at.or_else(|| job.timeout_s.map(|s| at.plus_seconds(s)));
            if *attempt <= job.latest_attempt {
                writer.restart_attempt(id, *attempt, *at, timeout_at)?;
            } else {
                writer.insert_attempt(&NewAttempt {
                    job_id: id,
                    attempt: *attempt,
                    created_by,
                    started_at: *at,
                    timeout_at,
                })?;
            }
            let reopens = job.state.is_open()
                || (job.state == JobState::Failed && job.failure_permanent != Some(true));
            let cause = format!("attempt {attempt} started by {created_by}");
            let to_running = Move::new(JobState::Running, *at, &cause);
            if reopens {
                asked.take(writer, &to_running)?;
            } else {
                // A replacement after the job ended.
                asked.not_taken(writer, &to_running);
            }
        }
        Event::AttemptTimedOut { attempt, at, .. } => {
            writer.set_attempt_state(id, *attempt, AttemptState::TimedOut, *at)?;
            if *attempt == job.latest_attempt
                && matches!(job.state, JobState::Accepted | JobState::Running)
            {
                let cause = format!("attempt {attempt} timed out");
                asked.take(writer, &Move::new(JobState::TimedOut, *at, &cause))?;
            }
        }
        Event::JobCancelled { at, by, .. } => {
            let cause = format!("cancelled by {by}");
            asked.terminal(writer, &Move::new(JobState::Cancelled, *at, &cause))?;
        }
        Event::JobSucceeded {
            attempt,
            at,
            result_ref,
            ..
        } => {
            let late = matches!(job.state, JobState::TimedOut | JobState::Expired)
                || writer
                    .attempt(id, *attempt)?
                    .is_some_and(|a| a.state == AttemptState::TimedOut);
            let to = if late {
                JobState::CompletedLate
            } else {
                JobState::Succeeded
            };
            let cause = format!("worker recorded success of attempt {attempt}: {result_ref}");
            let success = Move::new(to, *at, &cause).with(TerminalRecord {
                result_ref: Some(result_ref),
                ..TerminalRecord::default()
            });
            if asked.terminal(writer, &success)? {
                writer.set_attempt_state(id, *attempt, AttemptState::Succeeded, *at)?;
            }
        }
        Event::JobFailed {
            attempt,
            at,
            cause,
            permanent,
            ..
        } => {
            let kind = match permanent {
                Some(true) => "permanent",
                Some(false) => "transient",
                None => "unclassified",
            };
            writer.set_attempt_state(id, *attempt, AttemptState::Failed, *at)?;
            let note = format!("worker recorded {kind} failure of attempt {attempt}: {cause}");
            let failure = Move::new(JobState::Failed, *at, &note).with(TerminalRecord {
                failure_cause: Some(cause),
                failure_permanent: *permanent,
                ..TerminalRecord::default()
            });
            if *attempt < job.latest_attempt {
                // A superseded attempt failing says nothing about the replacement
                // still at work (as table row 10).
                asked.not_taken(writer, &failure);
                return Ok(());
            }
            asked.terminal(writer, &failure)?;
        }
        Event::JobExpired { at, .. } => {
            asked.terminal(writer, &Move::new(JobState::Expired, *at, "expired"))?;
        }
        Event::OutputStored {
            reference,
            at,
            retention_until,
            ..
        } => {
            let fact = Downstream::OutputStored {
                reference,
                stored_at: *at,
                retention_until: *retention_until,
            };
            writer.insert_downstream(id, &fact, seq)?;
        }
        Event::OutputChecked { at, exists, .. } => {
            let fact = Downstream::OutputChecked {
                at: *at,
                exists: *exists,
            };
            writer.insert_downstream(id, &fact, seq)?;
        }
        Event::NotificationSent { kind, at, .. } => {
            let fact = Downstream::NotificationSent { kind, at: *at };
            writer.insert_downstream(id, &fact, seq)?;
        }
        Event::Decision {
            decision_id,
            action,
            at,
            route,
            ..
        } => {
            let decision = NewDecision {
                decision_id,
                job_id: id,
                action,
                route: route.as_deref(),
                at: *at,
            };
            writer.insert_decision(&decision, seq)?;
        }
    }
    Ok(())
}

/// A move an event asks of its job: to a state, at a time, for a cause, with what a
/// terminal move records.
struct Move<'a> {
    to: JobState,
    at: Timestamp,
    cause: &'a str,
    record: TerminalRecord<'a>,
}

impl<'a> Move<'a> {
    fn new(to: JobState, at: Timestamp, cause: &'a str) -> Self {
        Move {
            to,
            at,
            cause,
            record: TerminalRecord::default(),
        }
    }

    fn with(self, record: TerminalRecord<'a>) -> Self {
        Move { record, ..self }
    }
}

/// The job an event is about, as it was read, and the input line the event came on.
#[derive(Clone, Copy)]
struct Asked<'a> {
    job: &'a JobRow,
    seq: i64,
}

impl Asked<'_> {
    /// A terminal record from a worker or an operator: taken only while the job is
    /// open (or, for a late success, expired); otherwise kept in the history beside
    /// the state that stands. Returns whether it was taken.
    fn terminal(self, writer: &mut Writer<'_>, step: &Move<'_>) -> Result<bool, StoreError> {
        let state = self.job.state;
        let may =
            state.is_open() || (state == JobState::Expired && step.to == JobState::CompletedLate);
        if !may {
            self.not_taken(writer, step);
            return Ok(false);
        }
        self.take(writer, step)
    }

    /// A move the ledger did not take: kept in the job's history beside the state
    /// that stands.
    fn not_taken(self, writer: &mut Writer<'_>, step: &Move<'_>) {
        writer.history(&HistoryEntry {
            job_id: &self.job.job_id,
            at: step.at,
            from: Some(self.job.state),
            to: step.to,
            applied: false,
            cause: step.cause,
            line_seq: Some(self.seq),
            callback_seq: None,
        });
    }

    /// The conditional transition of the job from the state it was read in.
    fn take(self, writer: &mut Writer<'_>, step: &Move<'_>) -> Result<bool, StoreError> {
        writer.transition(
            &Transition {
                job_id: &self.job.job_id,
                from: self.job.state,
                to: step.to,
                at: step.at,
                cause: step.cause,
                line_seq: Some(self.seq),
                callback_seq: None,
            },
            step.record,
        )
    }
}
