//! How each row type is read from a statement on PostgreSQL: the columns asked for
//! and the function that turns them into the value (the SQLite engine's
//! `columns.rs`, column for column, so the two read the same rows alike).
//!
//! A time is stored as its ledger text and a closed set as its name, as on SQLite;
//! [`Time`] and [`Name`] read them, and a text that is neither is an error naming
//! what it should have been (through `postgres::Error`, so every reader, a ledger's
//! or a writer's, reports it as it reports the server's own errors).

use postgres::Row;
use postgres::types::{FromSql, Type};

use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::closed_set::ClosedSet;
use crate::decision::Rejection;
use crate::store::{
    AgedJobRow, AnswerRow, AttemptRow, CallbackRow, FailedJobRow, JobOrder, JobRow, OutboxRow,
    OwnerRow, RejectedLine, Replacement, Withdrawal,
};

/// What a reader gives: the row's value, or the column that could not be read.
pub(super) type Read<T> = Result<T, postgres::Error>;

type Failure = Box<dyn std::error::Error + Sync + Send>;

/// A time, read from its ledger text.
pub(super) struct Time(pub Timestamp);

impl<'a> FromSql<'a> for Time {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Failure> {
        let text = <&str as FromSql>::from_sql(ty, raw)?;
        Timestamp::from_ledger_text(text)
            .map(Time)
            .ok_or_else(|| format!("not a ledger time: {text:?}").into())
    }

    fn accepts(ty: &Type) -> bool {
        <&str as FromSql>::accepts(ty)
    }
}

/// A name of the closed set `T`.
pub(super) struct Name<T>(pub T);

impl<'a, T: ClosedSet> FromSql<'a> for Name<T> {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Failure> {
        let text = <&str as FromSql>::from_sql(ty, raw)?;
        T::parse(text)
            .map(Name)
            .ok_or_else(|| format!("unexpected {} {text:?} in the ledger", T::WHAT).into())
    }

    fn accepts(ty: &Type) -> bool {
        <&str as FromSql>::accepts(ty)
    }
}

pub(super) fn time(row: &Row, i: usize) -> Read<Timestamp> {
    Ok(row.try_get::<_, Time>(i)?.0)
}

pub(super) fn some_time(row: &Row, i: usize) -> Read<Option<Timestamp>> {
    Ok(row.try_get::<_, Option<Time>>(i)?.map(|t| t.0))
}

pub(super) fn name<T: ClosedSet>(row: &Row, i: usize) -> Read<T> {
    Ok(row.try_get::<_, Name<T>>(i)?.0)
}

pub(super) fn some_name<T: ClosedSet>(row: &Row, i: usize) -> Read<Option<T>> {
    Ok(row.try_get::<_, Option<Name<T>>>(i)?.map(|n| n.0))
}

/// A 0/1 flag (`smallint`), or NULL.
pub(super) fn some_flag(row: &Row, i: usize) -> Read<Option<bool>> {
    Ok(row.try_get::<_, Option<i16>>(i)?.map(|v| v != 0))
}

#[allow(dead_code)] // read by the other families' statements
pub(super) const JOB_COLUMNS: &str =
    "job_id, state, accepted_at, aged_at, timeout_s, expected_age_s, attempt_budget,
    latest_attempt, input_digest, model_digest, policy_revision, result_ref, failure_cause,
    failure_permanent, state_changed_at";

/// A [`JobRow`] from [`JOB_COLUMNS`].
#[allow(dead_code)] // read by the other families' statements
pub(super) fn job_from(row: &Row) -> Read<JobRow> {
    Ok(JobRow {
        job_id: row.try_get(0)?,
        state: name(row, 1)?,
        accepted_at: time(row, 2)?,
        aged_at: time(row, 3)?,
        timeout_s: row.try_get(4)?,
        expected_age_s: row.try_get(5)?,
        attempt_budget: row.try_get(6)?,
        latest_attempt: row.try_get(7)?,
        input_digest: row.try_get(8)?,
        model_digest: row.try_get(9)?,
        policy_revision: row.try_get(10)?,
        result_ref: row.try_get(11)?,
        failure_cause: row.try_get(12)?,
        failure_permanent: some_flag(row, 13)?,
        state_changed_at: time(row, 14)?,
    })
}

#[allow(dead_code)] // read by the other families' statements
pub(super) const ATTEMPT_COLUMNS: &str =
    "job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at";

/// An [`AttemptRow`] from [`ATTEMPT_COLUMNS`].
#[allow(dead_code)] // read by the other families' statements
pub(super) fn attempt_from(row: &Row) -> Read<AttemptRow> {
    Ok(AttemptRow {
        job_id: row.try_get(0)?,
        attempt: row.try_get(1)?,
        created_by: row.try_get(2)?,
        started_at: time(row, 3)?,
        timeout_at: some_time(row, 4)?,
        state: name(row, 5)?,
        timed_out_at: some_time(row, 6)?,
    })
}

#[allow(dead_code)] // read by the other families' statements
pub(super) const ANSWER_COLUMNS: &str =
    "a.id, a.callback_seq, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id,
    a.written_by";

/// An [`AnswerRow`] from [`ANSWER_COLUMNS`].
#[allow(dead_code)] // read by the other families' statements
pub(super) fn answer_from(row: &Row) -> Read<AnswerRow> {
    Ok(AnswerRow {
        id: row.try_get(0)?,
        callback_seq: row.try_get(1)?,
        verdict: name(row, 2)?,
        note: row.try_get(3)?,
        reviewer: row.try_get(4)?,
        answered_at: time(row, 5)?,
        linked_job_id: row.try_get(6)?,
        written_by: row.try_get(7)?,
    })
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

/// A [`CallbackRow`] from [`callback_columns`] (on `callbacks c`, with the standing
/// answer `a`).
pub(super) fn callback_from(row: &Row) -> Read<CallbackRow> {
    let replacement = match (
        row.try_get::<_, Option<i64>>(14)?,
        row.try_get::<_, Option<String>>(15)?,
        some_time(row, 16)?,
    ) {
        (Some(attempt), Some(created_by), Some(started_at)) => Some(Replacement {
            attempt,
            created_by,
            started_at,
            state: some_name(row, 17)?,
        }),
        _ => None,
    };
    let answer = match row.try_get::<_, Option<i64>>(18)? {
        Some(id) => Some(AnswerRow {
            id,
            callback_seq: row.try_get(0)?,
            verdict: name(row, 19)?,
            note: row.try_get(20)?,
            reviewer: row.try_get(21)?,
            answered_at: time(row, 22)?,
            linked_job_id: row.try_get(23)?,
            written_by: row.try_get(24)?,
        }),
        None => None,
    };
    Ok(CallbackRow {
        seq: row.try_get(0)?,
        line_seq: row.try_get(1)?,
        delivery_id: row.try_get(2)?,
        job_id: row.try_get(3)?,
        attempt: row.try_get(4)?,
        outcome: some_name(row, 5)?,
        arrived_at: some_time(row, 6)?,
        timeout_at: some_time(row, 7)?,
        disposition: name(row, 8)?,
        reason: name(row, 9)?,
        detail: row.try_get(10)?,
        first_report_seq: row.try_get(11)?,
        linked_from_seq: row.try_get(12)?,
        judged_at: time(row, 13)?,
        replacement,
        answer,
        claim: None,
    })
}

/// The outbox joined to its withdrawals: the status a request has now is derived
/// from the withdrawal row, since the request's own row is never changed.
pub(super) const OUTBOX_TABLE: &str =
    "outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id";

/// The columns [`outbox_from`] reads, on [`OUTBOX_TABLE`].
pub(super) const OUTBOX_COLUMNS: &str = "o.id, o.job_id, o.request, o.attempt, o.input_digest,
    o.model_digest, o.policy_revision, o.requested_by, o.requested_at,
    (CASE WHEN w.id IS NULL THEN o.status ELSE 'withdrawn' END), w.withdrawn_by, w.withdrawn_at,
    w.note, w.written_by, o.written_by";

/// An [`OutboxRow`] from [`OUTBOX_COLUMNS`].
pub(super) fn outbox_from(row: &Row) -> Read<OutboxRow> {
    let withdrawal = match row.try_get::<_, Option<String>>(10)? {
        Some(withdrawn_by) => Some(Withdrawal {
            withdrawn_by,
            withdrawn_at: time(row, 11)?,
            note: row.try_get(12)?,
            written_by: row.try_get(13)?,
        }),
        None => None,
    };
    Ok(OutboxRow {
        id: row.try_get(0)?,
        job_id: row.try_get(1)?,
        request: name(row, 2)?,
        attempt: row.try_get(3)?,
        input_digest: row.try_get(4)?,
        model_digest: row.try_get(5)?,
        policy_revision: row.try_get(6)?,
        requested_by: row.try_get(7)?,
        requested_at: time(row, 8)?,
        status: name(row, 9)?,
        withdrawal,
        written_by: row.try_get(14)?,
    })
}

/// The columns [`rejected_from`] reads, on `input_lines`.
pub(super) const REJECTED_COLUMNS: &str = "seq, event, reason, ingested_at";

/// A [`RejectedLine`] from [`REJECTED_COLUMNS`].
pub(super) fn rejected_from(row: &Row) -> Read<RejectedLine> {
    let Rejection { code, sentence } =
        Rejection::read(&row.try_get::<_, Option<String>>(2)?.unwrap_or_default());
    Ok(RejectedLine {
        seq: row.try_get(0)?,
        event: row.try_get(1)?,
        code,
        reason: sentence,
        ingested_at: time(row, 3)?,
    })
}

/// An [`AgedJobRow`]: `job_id, state, accepted_at, aged_at, expected_age_s`, then the
/// latest owner assignment's `owner, escalate_at, set_by, set_at, written_by`.
pub(super) fn aged_from(row: &Row) -> Read<AgedJobRow> {
    let owner = match row.try_get::<_, Option<String>>(5)? {
        Some(owner) => Some(OwnerRow {
            owner,
            escalate_at: some_time(row, 6)?,
            set_by: row.try_get(7)?,
            set_at: time(row, 8)?,
            written_by: row.try_get(9)?,
        }),
        None => None,
    };
    Ok(AgedJobRow {
        job_id: row.try_get(0)?,
        state: name(row, 1)?,
        accepted_at: time(row, 2)?,
        aged_at: time(row, 3)?,
        expected_age_s: row.try_get(4)?,
        owner,
        order: JobOrder::At(time(row, 3)?),
        pending: None,
    })
}

/// A [`FailedJobRow`]: `job_id, failed_at, cause, permanent, attempts_used,
/// attempt_budget`, then the time the list is ordered by.
pub(super) fn failed_from(row: &Row) -> Read<(FailedJobRow, Timestamp)> {
    let failed = FailedJobRow {
        job_id: row.try_get(0)?,
        failed_at: time(row, 1)?,
        cause: row.try_get(2)?,
        permanent: some_flag(row, 3)?,
        attempts_used: row.try_get(4)?,
        attempt_budget: row.try_get(5)?,
    };
    Ok((failed, time(row, 6)?))
}

impl Ledger {
    /// Every row of `sql` (built for this call), each read by `from_row`.
    pub(super) fn read_rows<T>(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
        from_row: fn(&Row) -> Read<T>,
    ) -> Result<Vec<T>, StoreError> {
        let rows = self.rows_of(sql, params)?;
        rows.iter()
            .map(|row| from_row(row).map_err(|e| self.err(e)))
            .collect()
    }
}
