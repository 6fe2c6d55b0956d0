//! Jobs decided under more than one decision id, and people's answers on them, on
//! PostgreSQL: the SQLite engine's statements (`sqlite/decisions.rs`), row for row.

use std::collections::HashMap;
use std::sync::LazyLock;

use postgres::Row;

use super::answers::{inserted_id, lock_key, name_at, time_at, value_at};
use super::writer::time_text;
use super::{Ledger, Writer};
use crate::decision::DecisionVerdict;
use crate::store::{
    DecisionAnswerRow, DecisionRow, DivergentJob, Location, NewDecisionAnswer, StoreError,
};

type Result<T> = std::result::Result<T, StoreError>;

/// Columns `first..` of `row`: `answered_at, id, note, reviewer, verdict, written_by`.
fn answer_from(location: &Location, row: &Row, first: usize) -> Result<DecisionAnswerRow> {
    Ok(DecisionAnswerRow {
        answered_at: time_at(location, row, first)?,
        id: value_at(location, row, first + 1)?,
        note: value_at(location, row, first + 2)?,
        reviewer: value_at(location, row, first + 3)?,
        verdict: name_at::<DecisionVerdict>(location, row, first + 4)?,
        written_by: value_at(location, row, first + 5)?,
    })
}

const LATEST_ANSWER: &str = "SELECT answered_at, id, note, reviewer, verdict, written_by
     FROM decision_answers
     WHERE job_id = $1 ORDER BY id DESC LIMIT 1";

/// The standing answers, one per answered job (the latest of each).
const STANDING_ANSWERS: &str = "SELECT job_id, answered_at, id, note, reviewer, verdict, written_by
     FROM decision_answers WHERE id IN (SELECT max(id) FROM decision_answers GROUP BY job_id)";

/// The decisions acted on of every job with more than one, by job id (bytewise), then
/// time, then id.
const DIVERGENT_DECISIONS: &str = "SELECT job_id, action, at, decision_id, route FROM decisions
     WHERE suppressed = 0 AND job_id IN (SELECT job_id FROM decisions WHERE suppressed = 0
                                          GROUP BY job_id HAVING count(*) > 1)
     ORDER BY job_id, at, id";

static CLOSED: LazyLock<String> = LazyLock::new(|| {
    let closing: Vec<String> = DecisionVerdict::ALL
        .iter()
        .filter(|v| v.closes())
        .map(|v| format!("'{}'", v.as_str()))
        .collect();
    format!(
        "SELECT count(*) FROM decision_answers
          WHERE id IN (SELECT max(id) FROM decision_answers GROUP BY job_id)
            AND verdict IN ({})",
        closing.join(", ")
    )
});

impl Ledger {
    /// Every job with decisions acted on under more than one decision id, in job id
    /// order (bytewise), each with its decisions and its standing answer.
    pub fn divergent_decisions(&self) -> Result<Vec<DivergentJob>> {
        let l = self.location();
        let mut answers: HashMap<String, DecisionAnswerRow> = HashMap::new();
        for row in self.rows(STANDING_ANSWERS, &[])? {
            answers.insert(value_at(l, &row, 0)?, answer_from(l, &row, 1)?);
        }
        let mut jobs: Vec<DivergentJob> = Vec::new();
        for row in self.rows(DIVERGENT_DECISIONS, &[])? {
            let job_id: &str = value_at(l, &row, 0)?;
            let decision = DecisionRow {
                action: value_at(l, &row, 1)?,
                at: time_at(l, &row, 2)?,
                decision_id: value_at(l, &row, 3)?,
                route: value_at(l, &row, 4)?,
            };
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
    }

    /// How many divergent jobs a standing answer closes.
    pub fn divergent_decisions_closed(&self) -> Result<i64> {
        let row = self.one(CLOSED.as_str(), &[])?;
        value_at(self.location(), &row, 0)
    }

    /// The standing answer on a divergent job.
    pub fn decision_answer(&self, job_id: &str) -> Result<Option<DecisionAnswerRow>> {
        self.row(LATEST_ANSWER, &[&job_id])?
            .map(|row| answer_from(self.location(), &row, 0))
            .transpose()
    }
}

impl Writer<'_> {
    /// Does the job have decisions acted on under more than one decision id?
    pub fn is_divergent(&self, job_id: &str) -> Result<bool> {
        let row = self.row(
            "SELECT count(*) > 1 FROM decisions WHERE job_id = $1 AND suppressed = 0",
            &[&job_id],
        )?;
        match row {
            Some(row) => value_at(self.location(), &row, 0),
            None => Ok(false),
        }
    }

    /// The standing answer on a divergent job, as this transaction sees it: read after
    /// taking the job's lock for decision answers (held to the end of the transaction),
    /// so an answer another reviewer is writing on the job is committed and read here,
    /// not written over unseen (see `answers.rs`).
    pub fn decision_answer(&self, job_id: &str) -> Result<Option<DecisionAnswerRow>> {
        lock_key(self, "decision_answers", job_id)?;
        self.row(LATEST_ANSWER, &[&job_id])?
            .map(|row| answer_from(self.location(), &row, 0))
            .transpose()
    }

    /// Appends an answer on a divergent job; returns its id.
    pub fn insert_decision_answer(&mut self, answer: &NewDecisionAnswer<'_>) -> Result<i64> {
        let row = self.row(
            "INSERT INTO decision_answers (job_id, verdict, note, reviewer, answered_at,
                                           previous_answer)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            &[
                &answer.job_id,
                &answer.verdict.as_str(),
                &answer.note,
                &answer.reviewer,
                &time_text(answer.answered_at),
                &answer.previous_answer,
            ],
        )?;
        inserted_id(self.location(), row)
    }
}
