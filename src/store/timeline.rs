//! A job's whole story in time order, as facts: what happened, with its values.
//! How each fact is worded is the console's business (`console/timeline.rs`).

use rusqlite::{Connection, Row};

use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::decision::{Disposition, JobState, Outcome, ReasonCode};
use crate::outbox::{RequestKind, RequestStatus};
use crate::review::Verdict;

/// One entry of a job's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEntry {
    pub at: Timestamp,
    pub fact: TimelineFact,
}

/// What a timeline entry says happened.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineFact {
    /// A move of the job's state, taken (`applied`) or kept beside the state that stood.
    Moved {
        /// The state that stood (`None` before acceptance).
        from: Option<JobState>,
        to: JobState,
        applied: bool,
        cause: String,
    },
    /// An attempt began (its timeout time, when it has one).
    AttemptStarted {
        attempt: i64,
        created_by: String,
        timeout_at: Option<Timestamp>,
    },
    /// An attempt ran past its timeout.
    AttemptTimedOut { attempt: i64 },
    /// A callback arrived, and the disposition the table gave it.
    Callback {
        seq: i64,
        outcome: Option<Outcome>,
        attempt: Option<i64>,
        disposition: Disposition,
        reason: ReasonCode,
    },
    /// A reviewer answered one of the job's callbacks.
    Answer {
        callback_seq: i64,
        verdict: Verdict,
        reviewer: String,
        note: String,
    },
    /// The job's output object was stored (kept until a time, or for good).
    OutputStored {
        reference: String,
        retention_until: Option<Timestamp>,
    },
    /// Someone checked whether the output object still exists.
    OutputChecked { exists: bool },
    /// A notification about the job was sent.
    NotificationSent { kind: String },
    /// The job was given an owner (and a time to escalate).
    OwnerSet {
        owner: String,
        set_by: String,
        escalate_at: Option<Timestamp>,
    },
    /// A request (retry, cancel) was put in the outbox.
    Requested {
        request: RequestKind,
        requested_by: String,
        status: RequestStatus,
    },
}

/// Every entry of a job's story, one arm per kind: the kind (column 0), the time
/// (column 1) and the fact's values after it. Arms come out in this order, and the
/// sort by time is stable, so entries at the same time keep it.
const TIMELINE: &str = "
    SELECT 0, at, from_state, to_state, applied, cause, NULL
      FROM job_history WHERE job_id = ?1
    UNION ALL SELECT 1, started_at, attempt, created_by, timeout_at, NULL, NULL
      FROM attempts WHERE job_id = ?1
    UNION ALL SELECT 2, timed_out_at, attempt, NULL, NULL, NULL, NULL
      FROM attempts WHERE job_id = ?1 AND timed_out_at IS NOT NULL
    UNION ALL SELECT 3, coalesce(c.arrived_at, l.ingested_at), c.seq, c.outcome, c.attempt,
           c.disposition, c.reason
      FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq WHERE c.job_id = ?1
    UNION ALL SELECT 4, a.answered_at, a.callback_seq, a.verdict, a.reviewer, a.note, NULL
      FROM answers a JOIN callbacks c ON c.seq = a.callback_seq WHERE c.job_id = ?1
    UNION ALL SELECT 5, stored_at, ref, retention_until, NULL, NULL, NULL
      FROM outputs WHERE job_id = ?1
    UNION ALL SELECT 6, checked_at, object_exists, NULL, NULL, NULL, NULL
      FROM output_checks WHERE job_id = ?1
    UNION ALL SELECT 7, sent_at, kind, NULL, NULL, NULL, NULL
      FROM notifications WHERE job_id = ?1
    UNION ALL SELECT 8, set_at, owner, set_by, escalate_at, NULL, NULL
      FROM owner_assignments WHERE job_id = ?1
    UNION ALL SELECT 9, requested_at, request, requested_by, status, NULL, NULL
      FROM outbox WHERE job_id = ?1";

fn fact(row: &Row<'_>) -> rusqlite::Result<TimelineFact> {
    Ok(match row.get::<_, i64>(0)? {
        0 => TimelineFact::Moved {
            from: row.get(2)?,
            to: row.get(3)?,
            applied: row.get(4)?,
            cause: row.get(5)?,
        },
        1 => TimelineFact::AttemptStarted {
            attempt: row.get(2)?,
            created_by: row.get(3)?,
            timeout_at: row.get(4)?,
        },
        2 => TimelineFact::AttemptTimedOut {
            attempt: row.get(2)?,
        },
        3 => TimelineFact::Callback {
            seq: row.get(2)?,
            outcome: row.get(3)?,
            attempt: row.get(4)?,
            disposition: row.get(5)?,
            reason: row.get(6)?,
        },
        4 => TimelineFact::Answer {
            callback_seq: row.get(2)?,
            verdict: row.get(3)?,
            reviewer: row.get(4)?,
            note: row.get(5)?,
        },
        5 => TimelineFact::OutputStored {
            reference: row.get(2)?,
            retention_until: row.get(3)?,
        },
        6 => TimelineFact::OutputChecked {
            exists: row.get(2)?,
        },
        7 => TimelineFact::NotificationSent { kind: row.get(2)? },
        8 => TimelineFact::OwnerSet {
            owner: row.get(2)?,
            set_by: row.get(3)?,
            escalate_at: row.get(4)?,
        },
        // 9, the last arm of `TIMELINE`: the kinds are this file's own numbers.
        _ => TimelineFact::Requested {
            request: row.get(2)?,
            requested_by: row.get(3)?,
            status: row.get(4)?,
        },
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
    /// notifications, owners, requests.
    pub fn timeline(&self, job_id: &str) -> Result<Vec<TimelineEntry>, StoreError> {
        self.run(|c| timeline(c, job_id))
    }
}
