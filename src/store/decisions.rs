//! Jobs decided under more than one decision id, and people's answers on them.

use crate::clock::Timestamp;
use crate::decision::DecisionVerdict;
use serde::Serialize;

/// One decision acted on (fields in JSON key order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionRow {
    pub action: String,
    pub at: Timestamp,
    pub decision_id: String,
    /// The region or path that produced it, when the line said.
    pub route: Option<String>,
}

/// A person's answer on a divergent job (fields in JSON key order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionAnswerRow {
    pub answered_at: Timestamp,
    pub id: i64,
    pub note: String,
    pub reviewer: String,
    pub verdict: DecisionVerdict,
    /// The database role that wrote the row, when the ledger knows it (see
    /// [`crate::store::AnswerRow::written_by`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
}

/// A job decided under more than one decision id (fields in JSON key order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DivergentJob {
    /// Every decision acted on names the same action.
    pub actions_agree: bool,
    /// The standing (latest) answer, if a person gave one.
    pub answer: Option<DecisionAnswerRow>,
    /// Its decisions acted on, in time order.
    pub decisions: Vec<DecisionRow>,
    pub job_id: String,
}

impl DivergentJob {
    /// No standing answer closes it yet.
    pub fn open(&self) -> bool {
        !self.answer.as_ref().is_some_and(|a| a.verdict.closes())
    }
}

/// A reviewer's answer on a divergent job, about to be appended.
#[derive(Debug, Clone, Copy)]
pub struct NewDecisionAnswer<'a> {
    pub job_id: &'a str,
    pub verdict: DecisionVerdict,
    pub note: &'a str,
    pub reviewer: &'a str,
    pub answered_at: Timestamp,
    /// The answer this one follows (the standing one when it was written).
    pub previous_answer: Option<i64>,
}
