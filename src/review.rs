//! Reviewers' answers: checked against the verdicts the question takes (declared in the
//! core, [`crate::decision::Verdict`]), and written once.
//!
//! An answer is appended, never changes a job's state by itself, and is refused
//! when someone else answered the same row since the reviewer looked at it. Many
//! answers at once ([`bulk`]) go through the same write, in one transaction.

pub mod bulk;
pub mod claims;
pub mod decisions;
pub mod looks;

pub use crate::decision::{CaseKind, Verdict};

use crate::clock::Timestamp;
use crate::decision::{Decision, Disposition, Unusable};
use crate::event::{self, Parsed};
use crate::ingest;
use crate::store::{AnswerRow, CallbackRow, Ledger, NewAnswer, StoreError, Writer};

/// Why an answer was not written.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("there is no callback #{0}")]
    NoSuchCallback(i64),
    #[error(
        "callback #{seq} was given `{disposition}`; only held and quarantined callbacks take answers"
    )]
    NotACase { seq: i64, disposition: Disposition },
    #[error("`{verdict}` is not a verdict for a {kind} callback; use one of: {allowed}")]
    UnknownVerdict {
        verdict: String,
        kind: &'static str,
        allowed: String,
    },
    #[error("`linked` needs the job id the callback belongs to (--job JOB)")]
    LinkNeedsJob,
    #[error("only `linked` takes a job id")]
    JobWithoutLink,
    #[error("no job {0:?} is in the ledger; nothing was written")]
    UnknownJob(String),
    #[error("callback #{seq} cannot be linked: {why}; answer `noise` or `needs_remote_check`")]
    CannotLink { seq: i64, why: String },
    #[error("callback #{} was answered meanwhile by {} at {}: {}{}; nothing was written. Read it, then answer again stating you saw it (answer {})",
        .0.callback_seq, .0.reviewer, .0.answered_at.short(), .0.verdict,
        if .0.note.is_empty() { String::new() } else { format!(" ({})", crate::inert::inert(&.0.note)) }, .0.id)]
    AnsweredMeanwhile(Box<AnswerRow>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A reviewer's answer, as given.
#[derive(Debug, Clone)]
pub struct AnswerRequest<'a> {
    pub seq: i64,
    pub verdict: &'a str,
    pub note: &'a str,
    pub reviewer: &'a str,
    /// For `linked`: the job the callback belongs to.
    pub link_job: Option<&'a str>,
    /// The id of the latest answer the reviewer saw on this row (`None`: saw none).
    pub seen_answer: Option<i64>,
}

/// What answering wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerWritten {
    pub answer_id: i64,
    /// For `linked`: the new callback row and the table's decision for it.
    pub linked: Option<(i64, Decision)>,
}

/// Checks an answer against the closed set for the callback's kind of question.
pub fn validate(
    row: &CallbackRow,
    verdict: &str,
    link_job: Option<&str>,
) -> Result<Verdict, AnswerError> {
    let kind = CaseKind::of(row.disposition, row.reason).ok_or(AnswerError::NotACase {
        seq: row.seq,
        disposition: row.disposition,
    })?;
    let chosen = Verdict::parse(verdict)
        .filter(|v| kind.verdicts().contains(v))
        .ok_or_else(|| AnswerError::UnknownVerdict {
            verdict: verdict.to_owned(),
            kind: kind.as_str(),
            allowed: kind
                .verdicts()
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    match (chosen.needs_job(), link_job) {
        (true, None) => Err(AnswerError::LinkNeedsJob),
        (false, Some(_)) => Err(AnswerError::JobWithoutLink),
        _ => Ok(chosen),
    }
}

/// Writes an answer at once, in one transaction; refuses if the row was answered
/// since the reviewer saw it.
pub fn answer(
    ledger: &mut Ledger,
    request: &AnswerRequest<'_>,
    now: Timestamp,
) -> Result<AnswerWritten, AnswerError> {
    let mut writer = ledger.writer()?;
    let row = writer
        .callback(request.seq)?
        .ok_or(AnswerError::NoSuchCallback(request.seq))?;
    let written = answer_row(&mut writer, &row, request, now)?;
    writer.commit()?;
    Ok(written)
}

/// Checks and appends an answer on `row` (the callback `request.seq`, as read in
/// `writer`'s transaction), without committing: the one way an answer is written,
/// alone ([`answer`]) or among many ([`bulk`]).
pub(crate) fn answer_row(
    writer: &mut Writer<'_>,
    row: &CallbackRow,
    request: &AnswerRequest<'_>,
    now: Timestamp,
) -> Result<AnswerWritten, AnswerError> {
    let verdict = validate(row, request.verdict, request.link_job)?;
    // The row was read in this transaction with its standing answer: nothing can
    // have come between (a second look was a statement prepared again per answer).
    let standing = row.answer.clone();
    if let Some(theirs) = &standing
        && Some(theirs.id) != request.seen_answer
    {
        return Err(AnswerError::AnsweredMeanwhile(Box::new(theirs.clone())));
    }
    let linked = match request.link_job {
        Some(job_id) => {
            if !writer.job_exists(job_id)? {
                return Err(AnswerError::UnknownJob(job_id.to_owned()));
            }
            let raw = writer.raw_line(row.line_seq)?.unwrap_or_default();
            let Parsed::Callback(mut report) = event::parse_line(&raw) else {
                return Err(AnswerError::CannotLink {
                    seq: row.seq,
                    why: "its line is not a readable callback".to_owned(),
                });
            };
            report.job_id = Some(job_id.to_owned());
            report
                .problems
                .retain(|(why, _)| *why != Unusable::MissingJobId);
            Some(ingest::judge(
                writer,
                &report,
                row.line_seq,
                Some(row.seq),
                now,
            )?)
        }
        None => None,
    };
    let answer_id = writer.insert_answer(&NewAnswer {
        callback_seq: request.seq,
        verdict,
        note: request.note,
        reviewer: request.reviewer,
        answered_at: now,
        linked_job_id: request.link_job,
        previous_answer: standing.map(|a| a.id),
    })?;
    Ok(AnswerWritten { answer_id, linked })
}
