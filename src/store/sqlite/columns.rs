//! How each row type is read from a statement: the columns asked for and the
//! function that turns them into the value. A column list and its reader change
//! together (and with the row types, `src/store/<family>.rs`), so they sit side by
//! side, whichever table
//! family's statement uses them.

use rusqlite::Row;

use crate::clock::Timestamp;
use crate::store::{
    AgedJobRow, AnswerRow, AttemptRow, CallbackRow, FailedJobRow, JobOrder, JobRow, OutboxRow,
    OwnerRow, Replacement, Withdrawal,
};

/// Builds a struct (or an enum variant) from consecutive columns of `row`, its
/// fields named in column order: `from_columns!(row, 2 => OwnerRow { owner,
/// escalate_at, set_by, set_at })` reads `owner` from column 2, `escalate_at` from
/// column 3, and so on. Fields after a `;` are given as values.
macro_rules! from_columns {
    ($row:expr, $first:expr => $($name:ident)::+ {
        $($field:ident),+ $(; $($given:ident: $value:expr),+)?
    }) => {{
        #[allow(unused_assignments)] // the last column read moves the count past it
        let value = {
            let mut column: usize = $first;
            $($name)::+ {
                $($field: {
                    column += 1;
                    $row.get(column - 1)?
                },)+
                $($($given: $value),+)?
            }
        };
        value
    }};
}

pub(super) use from_columns;

pub(super) const JOB_COLUMNS: &str =
    "job_id, state, accepted_at, aged_at, timeout_s, expected_age_s, attempt_budget,
    latest_attempt, input_digest, model_digest, policy_revision, result_ref, failure_cause,
    failure_permanent, state_changed_at";

pub(super) fn job_from(row: &Row<'_>) -> rusqlite::Result<JobRow> {
    Ok(from_columns!(row, 0 => JobRow {
        job_id, state, accepted_at, aged_at, timeout_s, expected_age_s, attempt_budget,
        latest_attempt, input_digest, model_digest, policy_revision, result_ref, failure_cause,
        failure_permanent, state_changed_at
    }))
}

pub(super) fn attempt_from(row: &Row<'_>) -> rusqlite::Result<AttemptRow> {
    Ok(from_columns!(row, 0 => AttemptRow {
        job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at
    }))
}

pub(super) const ATTEMPT_COLUMNS: &str =
    "job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at";

pub(super) const ANSWER_COLUMNS: &str =
    "a.id, a.callback_seq, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id,
    a.written_by";

pub(super) fn answer_from(row: &Row<'_>) -> rusqlite::Result<AnswerRow> {
    Ok(from_columns!(row, 0 => AnswerRow {
        id, callback_seq, verdict, note, reviewer, answered_at, linked_job_id, written_by
    }))
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
        Some(id) => Some(from_columns!(row, 19 => AnswerRow {
            verdict, note, reviewer, answered_at, linked_job_id, written_by;
            id: id, callback_seq: row.get(0)?
        })),
        None => None,
    };
    Ok(from_columns!(row, 0 => CallbackRow {
        seq, line_seq, delivery_id, job_id, attempt, outcome, arrived_at, timeout_at,
        disposition, reason, detail, first_report_seq, linked_from_seq, judged_at;
        replacement: replacement, answer: answer, claim: None
    }))
}

/// The columns [`callback_from`] reads, `state` the replacement attempt's state (or
/// `NULL` when it is not asked for); a sorted list adds its sort value after them, at
/// [`CALLBACK_SORT_COLUMN`].
pub(super) fn callback_columns(state: &str) -> String {
    format!(
        "c.seq, c.line_seq, c.delivery_id, c.job_id, c.attempt,
            c.outcome, c.arrived_at, c.timeout_at, c.disposition, c.reason, c.detail,
            c.first_report_seq, c.linked_from_seq, c.judged_at,
            c.replacement_attempt, c.replacement_created_by, c.replacement_started_at, {state},
            a.id, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id, a.written_by"
    )
}

/// Where a sorted list's sort value is, after the columns of [`callback_columns`].
pub(super) const CALLBACK_SORT_COLUMN: usize = 25;

/// The outbox joined to its withdrawals: the status a request has now is derived
/// from the withdrawal row, since the request's own row is never changed.
pub(super) const OUTBOX_TABLE: &str =
    "outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id";

pub(super) const OUTBOX_COLUMNS: &str = "o.id, o.job_id, o.request, o.attempt, o.input_digest,
    o.model_digest, o.policy_revision, o.requested_by, o.requested_at,
    iif(w.id IS NULL, o.status, 'withdrawn'), w.withdrawn_by, w.withdrawn_at, w.note,
    w.written_by, o.written_by";

pub(super) fn outbox_from(row: &Row<'_>) -> rusqlite::Result<OutboxRow> {
    let withdrawal = match row.get::<_, Option<String>>(10)? {
        Some(withdrawn_by) => Some(from_columns!(row, 11 => Withdrawal {
            withdrawn_at, note, written_by; withdrawn_by: withdrawn_by
        })),
        None => None,
    };
    Ok(from_columns!(row, 0 => OutboxRow {
        id, job_id, request, attempt, input_digest, model_digest, policy_revision, requested_by,
        requested_at, status; withdrawal: withdrawal, written_by: row.get(14)?
    }))
}

pub(super) fn aged_from(row: &Row<'_>) -> rusqlite::Result<AgedJobRow> {
    let owner = match row.get::<_, Option<String>>(5)? {
        Some(owner) => Some(from_columns!(row, 6 => OwnerRow {
            escalate_at, set_by, set_at, written_by; owner: owner
        })),
        None => None,
    };
    Ok(from_columns!(row, 0 => AgedJobRow {
        job_id, state, accepted_at, aged_at, expected_age_s;
        owner: owner, order: JobOrder::At(row.get(3)?), pending: None
    }))
}

pub(super) fn failed_from(row: &Row<'_>) -> rusqlite::Result<(FailedJobRow, Timestamp)> {
    let failed = from_columns!(row, 0 => FailedJobRow {
        job_id, failed_at, cause, permanent, attempts_used, attempt_budget
    });
    Ok((failed, row.get(6)?))
}
