//! How each row type is read from a statement: the columns asked for and the
//! function that turns them into the value. A column list and its reader change
//! together (and with `rows.rs`), so they sit side by side, whichever table
//! family's statement uses them.

use rusqlite::Row;

use super::rows::{
    AgedJobRow, AnswerRow, AttemptRow, CallbackRow, FailedJobRow, JobRow, OutboxRow, OwnerRow,
    Replacement,
};
use crate::clock::Timestamp;

pub(super) const JOB_COLUMNS: &str =
    "job_id, state, accepted_at, aged_at, timeout_s, expected_age_s, attempt_budget,
    latest_attempt, input_digest, model_digest, policy_revision, result_ref, failure_cause,
    failure_permanent, state_changed_at";

pub(super) fn job_from(row: &Row<'_>) -> rusqlite::Result<JobRow> {
    Ok(JobRow {
        job_id: row.get(0)?,
        state: row.get(1)?,
        accepted_at: row.get(2)?,
        aged_at: row.get(3)?,
        timeout_s: row.get(4)?,
        expected_age_s: row.get(5)?,
        attempt_budget: row.get(6)?,
        latest_attempt: row.get(7)?,
        input_digest: row.get(8)?,
        model_digest: row.get(9)?,
        policy_revision: row.get(10)?,
        result_ref: row.get(11)?,
        failure_cause: row.get(12)?,
        failure_permanent: row.get(13)?,
        state_changed_at: row.get(14)?,
    })
}

pub(super) fn attempt_from(row: &Row<'_>) -> rusqlite::Result<AttemptRow> {
    Ok(AttemptRow {
        job_id: row.get(0)?,
        attempt: row.get(1)?,
        created_by: row.get(2)?,
        started_at: row.get(3)?,
        timeout_at: row.get(4)?,
        state: row.get(5)?,
        timed_out_at: row.get(6)?,
    })
}

pub(super) const ATTEMPT_COLUMNS: &str =
    "job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at";

pub(super) const ANSWER_COLUMNS: &str =
    "a.id, a.callback_seq, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id";

pub(super) fn answer_from(row: &Row<'_>) -> rusqlite::Result<AnswerRow> {
    Ok(AnswerRow {
        id: row.get(0)?,
        callback_seq: row.get(1)?,
        verdict: row.get(2)?,
        note: row.get(3)?,
        reviewer: row.get(4)?,
        answered_at: row.get(5)?,
        linked_job_id: row.get(6)?,
    })
}

pub(super) fn callback_from(row: &Row<'_>) -> rusqlite::Result<CallbackRow> {
    // Names are read in place (`sql_values.rs`): a `String` each was a tenth of
    // listing held callbacks.
    let replacement = match (
        row.get::<_, Option<i64>>(14)?,
        row.get::<_, Option<String>>(15)?,
        row.get::<_, Option<Timestamp>>(16)?,
    ) {
        (Some(attempt), Some(created_by), Some(started_at)) => Some(Replacement {
            attempt,
            created_by,
            started_at,
            state: row.get(17)?,
        }),
        _ => None,
    };
    let answer = match row.get::<_, Option<i64>>(18)? {
        Some(id) => Some(AnswerRow {
            id,
            callback_seq: row.get(0)?,
            verdict: row.get(19)?,
            note: row.get(20)?,
            reviewer: row.get(21)?,
            answered_at: row.get(22)?,
            linked_job_id: row.get(23)?,
        }),
        None => None,
    };
    Ok(CallbackRow {
        seq: row.get(0)?,
        line_seq: row.get(1)?,
        delivery_id: row.get(2)?,
        job_id: row.get(3)?,
        attempt: row.get(4)?,
        outcome: row.get(5)?,
        arrived_at: row.get(6)?,
        timeout_at: row.get(7)?,
        disposition: row.get(8)?,
        reason: row.get(9)?,
        detail: row.get(10)?,
        first_report_seq: row.get(11)?,
        linked_from_seq: row.get(12)?,
        judged_at: row.get(13)?,
        replacement,
        answer,
    })
}

/// The columns [`callback_from`] reads, `state` the replacement attempt's state (or
/// `NULL` when it is not asked for).
pub(super) fn callback_columns(state: &str) -> String {
    format!(
        "c.seq, c.line_seq, c.delivery_id, c.job_id, c.attempt,
            c.outcome, c.arrived_at, c.timeout_at, c.disposition, c.reason, c.detail,
            c.first_report_seq, c.linked_from_seq, c.judged_at,
            c.replacement_attempt, c.replacement_created_by, c.replacement_started_at, {state},
            a.id, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id"
    )
}

pub(super) const OUTBOX_COLUMNS: &str = "id, job_id, request, attempt, input_digest, model_digest,
    policy_revision, requested_by, requested_at, status";

pub(super) fn outbox_from(row: &Row<'_>) -> rusqlite::Result<OutboxRow> {
    Ok(OutboxRow {
        id: row.get(0)?,
        job_id: row.get(1)?,
        request: row.get(2)?,
        attempt: row.get(3)?,
        input_digest: row.get(4)?,
        model_digest: row.get(5)?,
        policy_revision: row.get(6)?,
        requested_by: row.get(7)?,
        requested_at: row.get(8)?,
        status: row.get(9)?,
    })
}

pub(super) fn aged_from(row: &Row<'_>) -> rusqlite::Result<AgedJobRow> {
    let owner = match row.get::<_, Option<String>>(5)? {
        Some(owner) => Some(OwnerRow {
            owner,
            escalate_at: row.get(6)?,
            set_by: row.get(7)?,
            set_at: row.get(8)?,
        }),
        None => None,
    };
    Ok(AgedJobRow {
        job_id: row.get(0)?,
        state: row.get(1)?,
        accepted_at: row.get(2)?,
        aged_at: row.get(3)?,
        expected_age_s: row.get(4)?,
        owner,
    })
}

pub(super) fn failed_from(row: &Row<'_>) -> rusqlite::Result<(FailedJobRow, Timestamp)> {
    Ok((
        FailedJobRow {
            job_id: row.get(0)?,
            failed_at: row.get(1)?,
            cause: row.get(2)?,
            permanent: row.get(3)?,
            attempts_used: row.get(4)?,
            attempt_budget: row.get(5)?,
        },
        row.get(6)?,
    ))
}
