//! Callbacks: gather the facts, ask the table, keep the answer and its effect.

use crate::clock::Timestamp;
use crate::decision::{self, Claim, Decision, EarlierClaims, Effect, Facts, Outcome, Unusable};
use crate::event::CallbackReport;
use crate::store::{AttemptState, NewCallback, StoreError, TerminalRecord, Transition, Writer};

/// Judges a callback against the ledger by the table and writes the callback row and
/// its effect. Returns the new callback's sequence number and the decision.
pub(crate) fn judge(
    writer: &mut Writer<'_>,
    report: &CallbackReport,
    line_seq: i64,
    linked_from: Option<i64>,
    now: Timestamp,
) -> Result<(i64, Decision), StoreError> {
    let mut row = NewCallback {
        line_seq,
        delivery_id: report.delivery_id.as_deref(),
        job_id: report.job_id.as_deref(),
        attempt: Some(report.attempt).filter(|a| *a > 0),
        outcome: report.outcome,
        arrived_at: report.at,
        timeout_at: None,
        disposition: decision::Disposition::Quarantine,
        reason: decision::ReasonCode::Unparseable,
        detail: report.problem().map(|p| p.1.as_str()),
        job_state_before: None,
        replacement_attempt: None,
        replacement_started: None,
        first_report_seq: None,
        linked_from_seq: linked_from,
        judged_at: now,
    };
    let facts = match facts(writer, report, &mut row)? {
        Ok(facts) => facts,
        Err((why, detail)) => {
            let decision = decision::decide(Facts::Unusable(why));
            let detail = row.detail.map_or(detail, str::to_owned);
            row.disposition = decision.disposition;
            row.reason = decision.reason;
            row.detail = Some(&detail);
            let seq = writer.insert_callback(&row)?;
            return Ok((seq, decision));
        }
    };
    let decision = decision::decide(facts);
    row.disposition = decision.disposition;
    row.reason = decision.reason;
    let seq = writer.insert_callback(&row)?;
    if let (Effect::Transition(to), Some(job_id), Some(outcome), Some(from)) = (
        decision.effect,
        row.job_id,
        row.outcome,
        row.job_state_before,
    ) {
        let at = row.arrived_at.unwrap_or(now);
        let cause = format!("callback #{seq}: {}", decision.reason);
        let record = match outcome {
            Outcome::Success => TerminalRecord::default(),
            Outcome::Failure => TerminalRecord {
                failure_cause: Some("failure reported by callback"),
                ..TerminalRecord::default()
            },
        };
        let transition = Transition {
            job_id,
            from,
            to,
            at,
            cause: &cause,
            line_seq: Some(line_seq),
            callback_seq: Some(seq),
        };
        if writer.transition(&transition, record)? {
            let attempt_state = match outcome {
                Outcome::Success => AttemptState::Succeeded,
                Outcome::Failure => AttemptState::Failed,
            };
            writer.set_attempt_state(job_id, report.attempt, attempt_state, at)?;
        }
    }
    Ok((seq, decision))
}

/// The table's facts for a usable report (filling in the row's evidence as it goes),
/// or why the report cannot be judged.
fn facts<'r>(
    writer: &mut Writer<'_>,
    report: &'r CallbackReport,
    row: &mut NewCallback<'r>,
) -> Result<Result<Facts, (Unusable, String)>, StoreError> {
    if let Some((why, detail)) = report.problem() {
        return Ok(Err((*why, detail.clone())));
    }
    let (Some(job_id), Some(outcome)) = (report.job_id.as_deref(), report.outcome) else {
        return Ok(Err((Unusable::Unparseable, "incomplete report".to_owned())));
    };
    let Some(job) = writer.job(job_id)? else {
        return Ok(Err((
            Unusable::NoMatchingJob,
            format!("no job {job_id:?} has been accepted"),
        )));
    };
    row.job_state_before = Some(job.state);
    let Some(attempt) = writer.attempt(job_id, report.attempt)? else {
        return Ok(Err((
            Unusable::UnknownAttempt,
            format!(
                "job {job_id:?} has no attempt {} (latest is {})",
                report.attempt, job.latest_attempt
            ),
        )));
    };
    row.timeout_at = attempt.timed_out_at.or(attempt.timeout_at);
    let replacement = job.latest_attempt > report.attempt;
    if replacement {
        row.replacement_attempt = Some(job.latest_attempt);
        row.replacement_started = writer
            .attempt(job_id, job.latest_attempt)?
            .map(|a| (a.created_by, a.started_at));
    }
    let claims = writer.claim_history(job_id, report.attempt, outcome)?;
    row.first_report_seq = claims.first_same;
    Ok(Ok(Facts::Claim(Claim {
        job: job.state,
        outcome,
        replacement,
        earlier: EarlierClaims {
            same: claims.first_same.is_some(),
            opposite: claims.opposite,
        },
    })))
}
