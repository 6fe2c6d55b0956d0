//! Callbacks written by an ingest on PostgreSQL, and what a writer reads of them.

use postgres::Row;

use crate::decision::Outcome;
use crate::store::StoreError;
use crate::store::postgres::Writer;
use crate::store::postgres::writer::Values;
use crate::store::{AnswerRow, CallbackRow, ClaimHistory, Location, NewCallback, Replacement};

type Result<T> = std::result::Result<T, StoreError>;

/// One callback, as [`callback_from`] reads it: with its replacement attempt (and that
/// attempt's state now) and its standing answer.
const CALLBACK: &str = "SELECT c.seq, c.line_seq, c.delivery_id, c.job_id, c.attempt,
        c.outcome, c.arrived_at, c.timeout_at, c.disposition, c.reason, c.detail,
        c.first_report_seq, c.linked_from_seq, c.judged_at,
        c.replacement_attempt, c.replacement_created_by, c.replacement_started_at, r.state,
        a.id, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id, a.written_by
   FROM callbacks c
   LEFT JOIN attempts r ON r.job_id = c.job_id AND r.attempt = c.replacement_attempt
   LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)
  WHERE c.seq = $1";

fn callback_from(row: &Row, location: &Location) -> Result<CallbackRow> {
    let v = Values { row, location };
    let replacement = match (
        v.get::<Option<i64>>(14)?,
        v.get::<Option<String>>(15)?,
        v.opt_time(16)?,
    ) {
        (Some(attempt), Some(created_by), Some(started_at)) => Some(Replacement {
            attempt,
            created_by,
            started_at,
            state: v.opt_name(17)?,
        }),
        _ => None,
    };
    let seq: i64 = v.get(0)?;
    let answer = match v.get::<Option<i64>>(18)? {
        Some(id) => Some(AnswerRow {
            verdict: v.name(19)?,
            note: v.get(20)?,
            reviewer: v.get(21)?,
            answered_at: v.time(22)?,
            linked_job_id: v.get(23)?,
            written_by: v.get(24)?,
            id,
            callback_seq: seq,
        }),
        None => None,
    };
    Ok(CallbackRow {
        seq,
        line_seq: v.get(1)?,
        delivery_id: v.get(2)?,
        job_id: v.get(3)?,
        attempt: v.get(4)?,
        outcome: v.opt_name(5)?,
        arrived_at: v.opt_time(6)?,
        timeout_at: v.opt_time(7)?,
        disposition: v.name(8)?,
        reason: v.name(9)?,
        detail: v.get(10)?,
        first_report_seq: v.get(11)?,
        linked_from_seq: v.get(12)?,
        judged_at: v.time(13)?,
        replacement,
        answer,
        claim: None,
    })
}

impl Writer<'_> {
    /// What earlier callbacks claimed about this job and attempt.
    pub fn claim_history(
        &self,
        job_id: &str,
        attempt: i64,
        outcome: Outcome,
    ) -> Result<ClaimHistory> {
        let mut history = ClaimHistory::default();
        let mut claim = |seq: i64, claimed: Option<&str>| {
            if claimed == Some(outcome.as_str()) {
                history.first_same = Some(history.first_same.map_or(seq, |s| s.min(seq)));
            } else {
                history.opposite = true;
            }
        };
        // Read ahead with the job, and kept up to date by this writer's callbacks.
        if let Some(claims) = self.ahead.borrow().claims(job_id, attempt) {
            for &(seq, claimed) in claims {
                claim(seq, claimed);
            }
            return Ok(history);
        }
        // Callbacks kept ahead are written first, so that they are read too.
        let rows = self.rows(
            "SELECT seq, outcome FROM callbacks
              WHERE job_id = $1 AND attempt = $2 AND disposition <> 'quarantine'",
            &[&job_id, &attempt],
        )?;
        for row in &rows {
            claim(row.get(0), row.get::<_, Option<&str>>(1));
        }
        Ok(history)
    }

    /// Keeps a judged callback; returns its sequence number.
    pub fn insert_callback(&mut self, cb: &NewCallback<'_>) -> Result<i64> {
        // Written with the other rows kept ahead, before any statement that reads it.
        let seq = self.keep_callback(cb)?;
        self.counts.callback(cb.disposition);
        Ok(seq)
    }

    /// The callback with this sequence number.
    pub fn callback(&mut self, seq: i64) -> Result<Option<CallbackRow>> {
        // The row shows its replacement attempt, which may be kept behind: `row`
        // writes it first.
        self.row(CALLBACK, &[&seq])?
            .map(|row| callback_from(&row, self.location()))
            .transpose()
    }
}
