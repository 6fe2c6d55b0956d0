//! A job's whole story in time order, as facts: what happened, with its values.
//! How each fact is worded is the console's business (`console/timeline.rs`).

use crate::store::{TimelineEntry, TimelineFact};
use rusqlite::{Connection, Row};

use super::columns::from_columns;
use super::{Ledger, StoreError};

/// Every entry of a job's story, one arm per kind: the kind (column 0), the time
/// (column 1) and the fact's values after it (columns 2 to 6), the database role that
/// wrote a person's row (`w`, column 7; NULL for what ingest wrote, and for a file's
/// own writes), then the arm's number (`b`) and the
/// order of rows within an arm (`k1` to `k4`). Entries come out ordered by arm, then
/// within each arm as listed (NULLs first), and the sort by time is stable, so
/// entries at the same time keep that order. The order is written out, not left to
/// how the rows happen to be read: it is the order SQLite read them in before it was
/// written out (an arm's rows by its index on the job: callbacks by attempt, outcome
/// and number, an answer after its callback's), and PostgreSQL's twin
/// (`postgres/timeline.rs`) orders them the same way.
const TIMELINE: &str = "
    SELECT 0 AS kind, at, from_state, to_state, applied, cause, NULL, NULL AS w,
           0 AS b, id AS k1, NULL AS k2, NULL AS k3, NULL AS k4
      FROM job_history WHERE job_id = ?1
    UNION ALL SELECT 1, started_at, attempt, created_by, timeout_at, NULL, NULL, NULL,
           1, attempt, NULL, NULL, NULL
      FROM attempts WHERE job_id = ?1
    UNION ALL SELECT 2, timed_out_at, attempt, NULL, NULL, NULL, NULL, NULL,
           2, attempt, NULL, NULL, NULL
      FROM attempts WHERE job_id = ?1 AND timed_out_at IS NOT NULL
    UNION ALL SELECT 3, coalesce(c.arrived_at, l.ingested_at), c.seq, c.outcome, c.attempt,
           c.disposition, c.reason, NULL,
           3, c.attempt, c.outcome, c.seq, NULL
      FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq WHERE c.job_id = ?1
    UNION ALL SELECT 4, a.answered_at, a.callback_seq, a.verdict, a.reviewer, a.note, NULL,
           a.written_by,
           4, c.attempt, c.outcome, c.seq, a.id
      FROM answers a JOIN callbacks c ON c.seq = a.callback_seq WHERE c.job_id = ?1
    UNION ALL SELECT 5, stored_at, ref, retention_until, NULL, NULL, NULL, NULL,
           5, id, NULL, NULL, NULL
      FROM outputs WHERE job_id = ?1
    UNION ALL SELECT 6, checked_at, object_exists, NULL, NULL, NULL, NULL, NULL,
           6, id, NULL, NULL, NULL
      FROM output_checks WHERE job_id = ?1
    UNION ALL SELECT 7, sent_at, kind, NULL, NULL, NULL, NULL, NULL,
           7, id, NULL, NULL, NULL
      FROM notifications WHERE job_id = ?1
    UNION ALL SELECT 8, set_at, owner, set_by, escalate_at, NULL, NULL, written_by,
           8, id, NULL, NULL, NULL
      FROM owner_assignments WHERE job_id = ?1
    UNION ALL SELECT 9, o.requested_at, o.request, o.requested_by,
           iif(w.id IS NULL, o.status, 'withdrawn'), NULL, NULL, o.written_by,
           9, o.id, NULL, NULL, NULL
      FROM outbox o LEFT JOIN request_withdrawals w ON w.request_id = o.id WHERE o.job_id = ?1
    UNION ALL SELECT 10, w.withdrawn_at, w.request_id, o.request, w.withdrawn_by, w.note, NULL,
           w.written_by,
           10, o.id, NULL, w.id, NULL
      FROM request_withdrawals w JOIN outbox o ON o.id = w.request_id WHERE o.job_id = ?1
    UNION ALL SELECT 11, accepted_at, accepted_line, input_digest, model_digest,
           policy_revision, NULL, NULL,
           11, NULL, NULL, NULL, NULL
      FROM jobs WHERE job_id = ?1
        AND EXISTS (SELECT 1 FROM repeated_submissions WHERE job_id = ?1)
    UNION ALL SELECT 11, submitted_at, line_seq, input_digest, model_digest, policy_revision,
           conflicting, NULL,
           12, line_seq, NULL, NULL, NULL
      FROM repeated_submissions WHERE job_id = ?1
    UNION ALL SELECT 12, at, decision_id, action, route, suppressed, NULL, NULL,
           13, id, NULL, NULL, NULL
      FROM decisions WHERE job_id = ?1
    UNION ALL SELECT 13, answered_at, verdict, reviewer, note, NULL, NULL, written_by,
           14, id, NULL, NULL, NULL
      FROM decision_answers WHERE job_id = ?1
    ORDER BY b, k1, k2, k3, k4";

/// The column of [`TIMELINE`] that says which database role wrote a person's row.
const WRITTEN_BY: usize = 7;

fn fact(row: &Row<'_>) -> rusqlite::Result<TimelineFact> {
    use crate::store::TimelineFact as F;
    // Each fact's values from column 2 on, in the order its arm of `TIMELINE` lists them.
    Ok(match row.get::<_, i64>(0)? {
        0 => from_columns!(row, 2 => F::Moved { from, to, applied, cause }),
        1 => from_columns!(row, 2 => F::AttemptStarted { attempt, created_by, timeout_at }),
        2 => from_columns!(row, 2 => F::AttemptTimedOut { attempt }),
        3 => from_columns!(row, 2 => F::Callback { seq, outcome, attempt, disposition, reason }),
        4 => from_columns!(row, 2 => F::Answer {
            callback_seq, verdict, reviewer, note; written_by: row.get(WRITTEN_BY)?
        }),
        5 => from_columns!(row, 2 => F::OutputStored { reference, retention_until }),
        6 => from_columns!(row, 2 => F::OutputChecked { exists }),
        7 => from_columns!(row, 2 => F::NotificationSent { kind }),
        8 => from_columns!(row, 2 => F::OwnerSet {
            owner, set_by, escalate_at; written_by: row.get(WRITTEN_BY)?
        }),
        9 => from_columns!(row, 2 => F::Requested {
            request, requested_by, status; written_by: row.get(WRITTEN_BY)?
        }),
        10 => from_columns!(row, 2 => F::Withdrawn {
            request_id, request, withdrawn_by, note; written_by: row.get(WRITTEN_BY)?
        }),
        11 => from_columns!(row, 2 => F::Submitted {
            line_seq, input_digest, model_digest, policy_revision, conflicting
        }),
        12 => from_columns!(row, 2 => F::Decision { decision_id, action, route, suppressed }),
        // 13, the last arm of `TIMELINE`: the kinds are this file's own numbers.
        _ => from_columns!(row, 2 => F::DecisionAnswer {
            verdict, reviewer, note; written_by: row.get(WRITTEN_BY)?
        }),
    })
}

fn timeline(conn: &Connection, job_id: &str) -> rusqlite::Result<Vec<TimelineEntry>> {
    let mut entries = conn
        .prepare_cached(TIMELINE)?
        .query_map([job_id], |row| {
            Ok(TimelineEntry {
                at: row.get(1)?,
                fact: fact(row)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    entries.sort_by_key(|e| e.at);
    Ok(entries)
}

impl Ledger {
    /// A job's whole story in time order: history, attempts, callbacks, answers, outputs,
    /// notifications, owners, requests, submissions, decisions and answers on them.
    pub fn timeline(&self, job_id: &str) -> Result<Vec<TimelineEntry>, StoreError> {
        self.run(|c| timeline(c, job_id))
    }
}
