//! Answers on a job decided under more than one decision id: which decision stands
//! ([`DecisionVerdict`]), appended like an answer on a held callback, the latest
//! standing, and refused when someone else answered since the reviewer looked.

use crate::clock::Timestamp;
use crate::decision::DecisionVerdict;
use crate::inert::inert;
use crate::store::{DecisionAnswerRow, Ledger, NewDecisionAnswer, StoreError};

/// Why an answer on divergent decisions was not written.
#[derive(Debug, thiserror::Error)]
pub enum DecisionAnswerError {
    #[error(
        "job {0:?} was not decided under more than one decision id; only divergent decisions take these answers (see `reconcile`)"
    )]
    NotDivergent(String),
    #[error("`{verdict}` is not a verdict on divergent decisions; use one of: {allowed}")]
    UnknownVerdict { verdict: String, allowed: String },
    #[error("the decisions of job {job} were answered meanwhile by {} at {}: {}{}; nothing was written. Read it, then answer again stating you saw it (answer {})",
        inert(&.answer.reviewer), .answer.answered_at.short(), .answer.verdict,
        if .answer.note.is_empty() { String::new() } else { format!(" ({})", inert(&.answer.note)) },
        .answer.id, job = inert(.job_id))]
    AnsweredMeanwhile {
        job_id: String,
        answer: Box<DecisionAnswerRow>,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A reviewer's answer on a job's divergent decisions, as given.
#[derive(Debug, Clone)]
pub struct DecisionAnswerRequest<'a> {
    pub job_id: &'a str,
    pub verdict: &'a str,
    pub note: &'a str,
    pub reviewer: &'a str,
    /// The id of the standing answer the reviewer saw (`None`: saw none).
    pub seen_answer: Option<i64>,
}

/// The verdicts, as a list for a message.
pub fn verdict_names() -> String {
    DecisionVerdict::ALL
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes the answer at once, in one transaction; returns its id.
pub fn answer_decisions(
    ledger: &mut Ledger,
    request: &DecisionAnswerRequest<'_>,
    now: Timestamp,
) -> Result<i64, DecisionAnswerError> {
    let verdict = DecisionVerdict::parse(request.verdict).ok_or_else(|| {
        DecisionAnswerError::UnknownVerdict {
            verdict: request.verdict.to_owned(),
            allowed: verdict_names(),
        }
    })?;
    let mut writer = ledger.writer()?;
    if !writer.is_divergent(request.job_id)? {
        return Err(DecisionAnswerError::NotDivergent(request.job_id.to_owned()));
    }
    let standing = writer.decision_answer(request.job_id)?;
    if let Some(theirs) = standing.as_ref()
        && Some(theirs.id) != request.seen_answer
    {
        return Err(DecisionAnswerError::AnsweredMeanwhile {
            job_id: request.job_id.to_owned(),
            answer: Box::new(theirs.clone()),
        });
    }
    let id = writer.insert_decision_answer(&NewDecisionAnswer {
        job_id: request.job_id,
        verdict,
        note: request.note,
        reviewer: request.reviewer,
        answered_at: now,
        previous_answer: standing.map(|a| a.id),
    })?;
    writer.commit()?;
    Ok(id)
}
