//! A job's whole story in time order on PostgreSQL: the SQLite engine's
//! `sqlite/timeline.rs`, the same entries in the same order.

use std::error::Error;

use postgres::Row;
use postgres::types::{FromSql, Type};

use super::Ledger;
use crate::clock::Timestamp;
use crate::closed_set::ClosedSet;
use crate::store::{StoreError, TimelineEntry, TimelineFact};

/// A stored name of the closed set `T`, read from a text column; a name the set does
/// not know is an error naming the set, as in the SQLite engine.
pub(super) struct Name<T>(pub T);

impl<'a, T: ClosedSet> FromSql<'a> for Name<T> {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        let name = <&str as FromSql>::from_sql(ty, raw)?;
        T::parse(name)
            .map(Name)
            .ok_or_else(|| format!("unexpected {} {name:?} in the ledger", T::WHAT).into())
    }

    fn accepts(ty: &Type) -> bool {
        <&str as FromSql>::accepts(ty)
    }
}

/// A time in its ledger text (`2026-11-27T13:16:45.000Z`), read from a text column.
pub(super) struct Time(pub Timestamp);

impl<'a> FromSql<'a> for Time {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        let text = <&str as FromSql>::from_sql(ty, raw)?;
        Timestamp::from_ledger_text(text)
            .map(Time)
            .ok_or_else(|| format!("not a ledger time: {text:?}").into())
    }

    fn accepts(ty: &Type) -> bool {
        <&str as FromSql>::accepts(ty)
    }
}

/// Every entry of a job's story, one arm per kind: the arm's number (`b`, column 0),
/// the kind (column 1), the time (column 2), then the fact's values, typed: `n1` to
/// `n3` integers (a 0/1 flag as one), `t1` to `t3` texts; each arm puts its values in
/// them as [`fact`] reads them; `w` the database role that wrote a person's row (NULL
/// for what ingest wrote). Then the order of rows within an arm, as SQLite's twin
/// writes it (`k1` to `k4`, NULLs first, as SQLite sorts them). A UNION ALL keeps no
/// order of its own on PostgreSQL: the ORDER BY is what makes it SQLite's.
const TIMELINE: &str = "
    SELECT 0::bigint AS b, 0::bigint AS kind, at,
           NULL::bigint AS n1, applied::bigint AS n2, NULL::bigint AS n3,
           from_state AS t1, to_state AS t2, cause AS t3, NULL::text AS w,
           id AS k1, NULL::text AS k2, NULL::bigint AS k3, NULL::bigint AS k4
      FROM job_history WHERE job_id = $1
    UNION ALL SELECT 1, 1, started_at, attempt, NULL, NULL, created_by, timeout_at, NULL, NULL,
           attempt, NULL, NULL, NULL
      FROM attempts WHERE job_id = $1
    UNION ALL SELECT 2, 2, timed_out_at, attempt, NULL, NULL, NULL, NULL, NULL, NULL,
           attempt, NULL, NULL, NULL
      FROM attempts WHERE job_id = $1 AND timed_out_at IS NOT NULL
    UNION ALL SELECT 3, 3, coalesce(c.arrived_at, l.ingested_at), c.seq, c.attempt, NULL,
           c.outcome, c.disposition, c.reason, NULL,
           c.attempt, c.outcome, c.seq, NULL
      FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq WHERE c.job_id = $1
    UNION ALL SELECT 4, 4, a.answered_at, a.callback_seq, NULL, NULL,
           a.verdict, a.reviewer, a.note, a.written_by,
           c.attempt, c.outcome, c.seq, a.id
      FROM answers a JOIN callbacks c ON c.seq = a.callback_seq WHERE c.job_id = $1
    UNION ALL SELECT 5, 5, stored_at, NULL, NULL, NULL, ref, retention_until, NULL, NULL,
           id, NULL, NULL, NULL
      FROM outputs WHERE job_id = $1
    UNION ALL SELECT 6, 6, checked_at, object_exists, NULL, NULL, NULL, NULL, NULL, NULL,
           id, NULL, NULL, NULL
      FROM output_checks WHERE job_id = $1
    UNION ALL SELECT 7, 7, sent_at, NULL, NULL, NULL, kind, NULL, NULL, NULL,
           id, NULL, NULL, NULL
      FROM notifications WHERE job_id = $1
    UNION ALL SELECT 8, 8, set_at, NULL, NULL, NULL, owner, set_by, escalate_at, written_by,
           id, NULL, NULL, NULL
      FROM owner_assignments WHERE job_id = $1
    UNION ALL SELECT 9, 9, o.requested_at, NULL, NULL, NULL, o.request, o.requested_by,
           CASE WHEN w.id IS NULL THEN o.status ELSE 'withdrawn' END, o.written_by,
           o.id, NULL, NULL, NULL
      FROM outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id WHERE o.job_id = $1
    UNION ALL SELECT 10, 10, w.withdrawn_at, w.request_id, NULL, NULL,
           o.request, w.withdrawn_by, w.note, w.written_by,
           o.id, NULL, w.id, NULL
      FROM request_withdrawals w JOIN outbox o ON o.id = w.request_id WHERE o.job_id = $1
    UNION ALL SELECT 11, 11, accepted_at, accepted_line, NULL, NULL,
           input_digest, model_digest, policy_revision, NULL,
           NULL, NULL, NULL, NULL
      FROM jobs WHERE job_id = $1
        AND EXISTS (SELECT 1 FROM repeated_submissions WHERE job_id = $1)
    UNION ALL SELECT 12, 11, submitted_at, line_seq, conflicting, NULL,
           input_digest, model_digest, policy_revision, NULL,
           line_seq, NULL, NULL, NULL
      FROM repeated_submissions WHERE job_id = $1
    UNION ALL SELECT 13, 12, at, suppressed, NULL, NULL, decision_id, action, route, NULL,
           id, NULL, NULL, NULL
      FROM decisions WHERE job_id = $1
    UNION ALL SELECT 14, 13, answered_at, NULL, NULL, NULL, verdict, reviewer, note, written_by,
           id, NULL, NULL, NULL
      FROM decision_answers WHERE job_id = $1
    ORDER BY b, k1 NULLS FIRST, k2 NULLS FIRST, k3 NULLS FIRST, k4 NULLS FIRST";

/// The columns of [`TIMELINE`] by name.
const N1: usize = 3;
const N2: usize = 4;
const T1: usize = 6;
const T2: usize = 7;
const T3: usize = 8;
const W: usize = 9;

/// A name of the set `T` from column `i`.
fn name<T: ClosedSet>(row: &Row, i: usize) -> Result<T, postgres::Error> {
    Ok(row.try_get::<_, Name<T>>(i)?.0)
}

/// A name of the set `T` from column `i`, or none.
fn maybe_name<T: ClosedSet>(row: &Row, i: usize) -> Result<Option<T>, postgres::Error> {
    Ok(row.try_get::<_, Option<Name<T>>>(i)?.map(|n| n.0))
}

/// A time from column `i`, or none.
fn maybe_time(row: &Row, i: usize) -> Result<Option<Timestamp>, postgres::Error> {
    Ok(row.try_get::<_, Option<Time>>(i)?.map(|t| t.0))
}

/// A 0/1 flag from column `i` (any integer but 0 is true, as SQLite reads a bool).
fn flag(row: &Row, i: usize) -> Result<bool, postgres::Error> {
    Ok(row.try_get::<_, i64>(i)? != 0)
}

fn fact(row: &Row) -> Result<TimelineFact, postgres::Error> {
    use crate::store::TimelineFact as F;
    let text = |i: usize| row.try_get::<_, String>(i);
    let maybe_text = |i: usize| row.try_get::<_, Option<String>>(i);
    let int = |i: usize| row.try_get::<_, i64>(i);
    // Each fact's values, from the columns its arm of `TIMELINE` puts them in.
    Ok(match row.try_get::<_, i64>(1)? {
        0 => F::Moved {
            from: maybe_name(row, T1)?,
            to: name(row, T2)?,
            applied: flag(row, N2)?,
            cause: text(T3)?,
        },
        1 => F::AttemptStarted {
            attempt: int(N1)?,
            created_by: text(T1)?,
            timeout_at: maybe_time(row, T2)?,
        },
        2 => F::AttemptTimedOut { attempt: int(N1)? },
        3 => F::Callback {
            seq: int(N1)?,
            outcome: maybe_name(row, T1)?,
            attempt: row.try_get(N2)?,
            disposition: name(row, T2)?,
            reason: name(row, T3)?,
        },
        4 => F::Answer {
            callback_seq: int(N1)?,
            verdict: name(row, T1)?,
            reviewer: text(T2)?,
            note: text(T3)?,
            written_by: maybe_text(W)?,
        },
        5 => F::OutputStored {
            reference: text(T1)?,
            retention_until: maybe_time(row, T2)?,
        },
        6 => F::OutputChecked {
            exists: flag(row, N1)?,
        },
        7 => F::NotificationSent { kind: text(T1)? },
        8 => F::OwnerSet {
            owner: maybe_text(T1)?,
            set_by: text(T2)?,
            escalate_at: maybe_time(row, T3)?,
            written_by: maybe_text(W)?,
        },
        9 => F::Requested {
            request: name(row, T1)?,
            requested_by: text(T2)?,
            status: name(row, T3)?,
            written_by: maybe_text(W)?,
        },
        10 => F::Withdrawn {
            request_id: int(N1)?,
            request: name(row, T1)?,
            withdrawn_by: text(T2)?,
            note: text(T3)?,
            written_by: maybe_text(W)?,
        },
        11 => F::Submitted {
            line_seq: int(N1)?,
            input_digest: maybe_text(T1)?,
            model_digest: maybe_text(T2)?,
            policy_revision: maybe_text(T3)?,
            conflicting: row.try_get::<_, Option<i64>>(N2)?.map(|c| c != 0),
        },
        12 => F::Decision {
            decision_id: text(T1)?,
            action: text(T2)?,
            route: maybe_text(T3)?,
            suppressed: flag(row, N1)?,
        },
        // 13, the last arm of `TIMELINE`: the kinds are this file's own numbers.
        _ => F::DecisionAnswer {
            verdict: name(row, T1)?,
            reviewer: text(T2)?,
            note: text(T3)?,
            written_by: maybe_text(W)?,
        },
    })
}

impl Ledger {
    /// A job's whole story in time order: history, attempts, callbacks, answers, outputs,
    /// notifications, owners, requests, submissions, decisions and answers on them.
    pub fn timeline(&self, job_id: &str) -> Result<Vec<TimelineEntry>, StoreError> {
        let rows = self.rows(TIMELINE, &[&job_id])?;
        let mut entries = rows
            .iter()
            .map(|row| {
                Ok(TimelineEntry {
                    at: row.try_get::<_, Time>(2)?.0,
                    fact: fact(row)?,
                })
            })
            .collect::<Result<Vec<_>, postgres::Error>>()
            .map_err(|e| self.err(e))?;
        // Stable: entries at the same time keep the order of `TIMELINE`.
        entries.sort_by_key(|e| e.at);
        Ok(entries)
    }
}
