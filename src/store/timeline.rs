//! A job's whole story in time order, as facts: what happened, with its values.
//! How each fact is worded is the console's business (`console/timeline.rs`).

use rusqlite::{Connection, Row};

use super::jobs::job_state;
use super::{Ledger, StoreError, bad_value};
use crate::clock::Timestamp;
use crate::decision::{Disposition, JobState, Outcome, ReasonCode};

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
    AttemptStarted {
        attempt: i64,
        created_by: String,
        timeout_at: Option<Timestamp>,
    },
    AttemptTimedOut {
        attempt: i64,
    },
    Callback {
        seq: i64,
        outcome: Option<Outcome>,
        attempt: Option<i64>,
        disposition: Disposition,
        reason: ReasonCode,
    },
    Answer {
        callback_seq: i64,
        verdict: String,
        reviewer: String,
        note: String,
    },
    OutputStored {
        reference: String,
        retention_until: Option<Timestamp>,
    },
    OutputChecked {
        exists: bool,
    },
    NotificationSent {
        kind: String,
    },
    OwnerSet {
        owner: String,
        set_by: String,
        escalate_at: Option<Timestamp>,
    },
    Requested {
        request: String,
        requested_by: String,
        status: String,
    },
}

/// One read per kind of entry: the time (column 0) and the fact's columns after it.
type Part = (&'static str, fn(&Row<'_>) -> rusqlite::Result<TimelineFact>);

/// In this order: entries at the same time keep it (the sort is stable).
const PARTS: [Part; 10] = [
    (
        "SELECT at, from_state, to_state, applied, cause FROM job_history WHERE job_id = ?1",
        |row| {
            Ok(TimelineFact::Moved {
                from: row
                    .get_ref(1)?
                    .as_str_or_null()?
                    .map(job_state)
                    .transpose()?,
                to: job_state(row.get_ref(2)?.as_str()?)?,
                applied: row.get(3)?,
                cause: row.get(4)?,
            })
        },
    ),
    (
        "SELECT started_at, attempt, created_by, timeout_at FROM attempts WHERE job_id = ?1",
        |row| {
            Ok(TimelineFact::AttemptStarted {
                attempt: row.get(1)?,
                created_by: row.get(2)?,
                timeout_at: row.get(3)?,
            })
        },
    ),
    (
        "SELECT timed_out_at, attempt FROM attempts
         WHERE job_id = ?1 AND timed_out_at IS NOT NULL",
        |row| {
            Ok(TimelineFact::AttemptTimedOut {
                attempt: row.get(1)?,
            })
        },
    ),
    (
        "SELECT coalesce(c.arrived_at, l.ingested_at), c.seq, c.outcome, c.attempt,
                c.disposition, c.reason
         FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq WHERE c.job_id = ?1",
        |row| {
            let outcome = row.get_ref(2)?.as_str_or_null()?;
            let disposition = row.get_ref(4)?.as_str()?;
            let reason = row.get_ref(5)?.as_str()?;
            Ok(TimelineFact::Callback {
                seq: row.get(1)?,
                outcome: outcome
                    .map(|o| Outcome::parse(o).ok_or_else(|| bad_value("outcome", o)))
                    .transpose()?,
                attempt: row.get(3)?,
                disposition: Disposition::parse(disposition)
                    .ok_or_else(|| bad_value("disposition", disposition))?,
                reason: ReasonCode::parse(reason).ok_or_else(|| bad_value("reason", reason))?,
            })
        },
    ),
    (
        "SELECT a.answered_at, a.callback_seq, a.verdict, a.reviewer, a.note
         FROM answers a JOIN callbacks c ON c.seq = a.callback_seq WHERE c.job_id = ?1",
        |row| {
            Ok(TimelineFact::Answer {
                callback_seq: row.get(1)?,
                verdict: row.get(2)?,
                reviewer: row.get(3)?,
                note: row.get(4)?,
            })
        },
    ),
    (
        "SELECT stored_at, ref, retention_until FROM outputs WHERE job_id = ?1",
        |row| {
            Ok(TimelineFact::OutputStored {
                reference: row.get(1)?,
                retention_until: row.get(2)?,
            })
        },
    ),
    (
        "SELECT checked_at, object_exists FROM output_checks WHERE job_id = ?1",
        |row| {
            Ok(TimelineFact::OutputChecked {
                exists: row.get(1)?,
            })
        },
    ),
    (
        "SELECT sent_at, kind FROM notifications WHERE job_id = ?1",
        |row| Ok(TimelineFact::NotificationSent { kind: row.get(1)? }),
    ),
    (
        "SELECT set_at, owner, set_by, escalate_at FROM owner_assignments WHERE job_id = ?1",
        |row| {
            Ok(TimelineFact::OwnerSet {
                owner: row.get(1)?,
                set_by: row.get(2)?,
                escalate_at: row.get(3)?,
            })
        },
    ),
    (
        "SELECT requested_at, request, requested_by, status FROM outbox WHERE job_id = ?1",
        |row| {
            Ok(TimelineFact::Requested {
                request: row.get(1)?,
                requested_by: row.get(2)?,
                status: row.get(3)?,
            })
        },
    ),
];

fn timeline(conn: &Connection, job_id: &str) -> rusqlite::Result<Vec<TimelineEntry>> {
    let mut entries = Vec::new();
    for (sql, fact) in PARTS {
        let mut st = conn.prepare_cached(sql)?;
        let rows = st.query_map([job_id], |row| {
            Ok(TimelineEntry {
                at: row.get(0)?,
                fact: fact(row)?,
            })
        })?;
        for entry in rows {
            entries.push(entry?);
        }
    }
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
