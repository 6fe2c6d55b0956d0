//! Jobs decided under more than one decision id (a retry re-scored, a region recovered
//! and decided again), and people's answers on them.
//!
//! A decision acted on is one not suppressed; acted-on decision ids are unique
//! (`decisions_acted_once`), so a job with two acted-on rows has two decision ids.
//! These jobs are few: they are read in one statement over the index of acted-on
//! decisions by job (`decisions_acted_by_job`), never looked up job by job.

use crate::store::{DecisionAnswerRow, DecisionRow, DivergentJob, NewDecisionAnswer};
use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::columns::from_columns;
use super::{Ledger, StoreError, Writer};
use crate::decision::DecisionVerdict;

type Result<T> = std::result::Result<T, StoreError>;

/// The jobs with more than one decision acted on, as a condition on a job id column.
pub(super) const DIVERGENT_JOB_IDS: &str =
    "SELECT job_id FROM decisions WHERE suppressed = 0 GROUP BY job_id HAVING count(*) > 1";

const ANSWER_COLUMNS: &str = "answered_at, id, note, reviewer, verdict, written_by";

fn answer_from(row: &Row<'_>) -> rusqlite::Result<DecisionAnswerRow> {
    Ok(from_columns!(row, 0 => DecisionAnswerRow {
        answered_at, id, note, reviewer, verdict, written_by
    }))
}

const LATEST_ANSWER: &str =
    "SELECT answered_at, id, note, reviewer, verdict, written_by FROM decision_answers
     WHERE job_id = ?1 ORDER BY id DESC LIMIT 1";

/// The standing answer on a job's divergent decisions, read by a ledger and by a writer.
fn latest_answer(conn: &Connection, job_id: &str) -> rusqlite::Result<Option<DecisionAnswerRow>> {
    conn.prepare_cached(LATEST_ANSWER)?
        .query_row([job_id], answer_from)
        .optional()
}

/// The ids of the standing answers, one per answered job. In one grouped pass: a
/// correlated `max(id)` per answer read the table once per answer (20,000 answers: 5.3 s
/// against 12 ms; the table has no index on `job_id`).
const STANDING_ANSWER_IDS: &str = "SELECT max(id) FROM decision_answers GROUP BY job_id";

impl Ledger {
    /// Every job with decisions acted on under more than one decision id, in job id
    /// order (bytewise), each with its decisions and its standing answer.
    pub fn divergent_decisions(&self) -> Result<Vec<DivergentJob>> {
        self.run(|c| {
            let mut answers: HashMap<String, DecisionAnswerRow> = HashMap::new();
            let mut st = c.prepare_cached(&format!(
                "SELECT job_id, {ANSWER_COLUMNS} FROM decision_answers
                  WHERE id IN ({STANDING_ANSWER_IDS})"
            ))?;
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                answers.insert(
                    row.get(0)?,
                    from_columns!(row, 1 => DecisionAnswerRow {
                        answered_at, id, note, reviewer, verdict, written_by
                    }),
                );
            }
            let mut st = c.prepare_cached(&format!(
                "SELECT job_id, action, at, decision_id, route FROM decisions
                  WHERE suppressed = 0 AND job_id IN ({DIVERGENT_JOB_IDS})
                  ORDER BY job_id, at, id"
            ))?;
            let mut jobs: Vec<DivergentJob> = Vec::new();
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                let job_id = row.get_ref(0)?.as_str()?;
                let decision =
                    from_columns!(row, 1 => DecisionRow { action, at, decision_id, route });
                match jobs.last_mut() {
                    Some(job) if job.job_id == job_id => {
                        job.actions_agree &= job.decisions[0].action == decision.action;
                        job.decisions.push(decision);
                    }
                    _ => jobs.push(DivergentJob {
                        actions_agree: true,
                        answer: answers.remove(job_id),
                        decisions: vec![decision],
                        job_id: job_id.to_owned(),
                    }),
                }
            }
            Ok(jobs)
        })
    }

    /// How many divergent jobs a standing answer closes: the open ones are the
    /// finding's count less these (a walk over the answers, a person's work, so few).
    pub fn divergent_decisions_closed(&self) -> Result<i64> {
        let closing: Vec<String> = DecisionVerdict::ALL
            .iter()
            .filter(|v| v.closes())
            .map(|v| format!("'{}'", v.as_str()))
            .collect();
        self.run(|c| {
            c.prepare_cached(&format!(
                "SELECT count(*) FROM decision_answers
                  WHERE id IN ({STANDING_ANSWER_IDS}) AND verdict IN ({})",
                closing.join(", ")
            ))?
            .query_row([], |row| row.get(0))
        })
    }

    /// The standing answer on a divergent job.
    pub fn decision_answer(&self, job_id: &str) -> Result<Option<DecisionAnswerRow>> {
        self.run(|c| latest_answer(c, job_id))
    }
}

impl Writer<'_> {
    /// Does the job have decisions acted on under more than one decision id?
    pub fn is_divergent(&self, job_id: &str) -> Result<bool> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT count(*) > 1 FROM decisions WHERE job_id = ?1 AND suppressed = 0",
            )?
            .query_row([job_id], |row| row.get(0))
        })
    }

    /// The standing answer on a divergent job, as this transaction sees it.
    pub fn decision_answer(&self, job_id: &str) -> Result<Option<DecisionAnswerRow>> {
        self.run(|c| latest_answer(c, job_id))
    }

    /// Appends an answer on a divergent job; returns its id.
    pub fn insert_decision_answer(&mut self, answer: &NewDecisionAnswer<'_>) -> Result<i64> {
        self.execute(
            "INSERT INTO decision_answers (job_id, verdict, note, reviewer, answered_at, previous_answer)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                answer.job_id,
                answer.verdict,
                answer.note,
                answer.reviewer,
                answer.answered_at,
                answer.previous_answer
            ],
        )?;
        Ok(self.last_insert_rowid())
    }
}
