//! Reviewers' answers: the closed set of verdicts, and writing an answer once.
//!
//! An answer is appended, never changes a job's state by itself, and is refused
//! when someone else answered the same row since the reviewer looked at it.

use crate::clock::Timestamp;
use crate::decision::{Decision, Disposition, ReasonCode, Unusable};
use crate::event::{self, Parsed};
use crate::ingest;
use crate::store::{AnswerRow, CallbackRow, Ledger, StoreError};

/// The kinds of question a person is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseKind {
    /// Held: success reported while a replacement attempt exists.
    PossibleDuplicate,
    /// Held: the outcomes reported disagree.
    ConflictingOutcomes,
    /// Quarantined: no job to judge the callback against.
    Quarantined,
}

impl CaseKind {
    /// The question a callback asks, if it asks one.
    pub fn of(disposition: Disposition, reason: ReasonCode) -> Option<CaseKind> {
        match (disposition, reason) {
            (Disposition::Hold, ReasonCode::PossibleDuplicateEffect) => {
                Some(CaseKind::PossibleDuplicate)
            }
            (Disposition::Hold, _) => Some(CaseKind::ConflictingOutcomes),
            (Disposition::Quarantine, _) => Some(CaseKind::Quarantined),
            (Disposition::Apply | Disposition::Record, _) => None,
        }
    }

    /// The verdicts this kind of question takes.
    pub fn verdicts(self) -> &'static [Verdict] {
        match self {
            CaseKind::PossibleDuplicate => &DUPLICATE_VERDICTS,
            CaseKind::ConflictingOutcomes => &CONFLICT_VERDICTS,
            CaseKind::Quarantined => &QUARANTINE_VERDICTS,
        }
    }

    /// How the question reads in help text.
    pub fn label(self) -> &'static str {
        match self {
            CaseKind::PossibleDuplicate => "held, possible duplicate effect",
            CaseKind::ConflictingOutcomes => "held, conflicting outcomes",
            CaseKind::Quarantined => "quarantined",
        }
    }

    /// Every kind of question.
    pub const ALL: [CaseKind; 3] = [
        CaseKind::PossibleDuplicate,
        CaseKind::ConflictingOutcomes,
        CaseKind::Quarantined,
    ];
}

/// One verdict of the closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub name: &'static str,
    pub description: &'static str,
    /// `false` for `needs_remote_check`: the question stays open.
    pub closes: bool,
    /// `linked` needs a job id.
    pub needs_job: bool,
}

const REMOTE_CHECK: Verdict = Verdict {
    name: "needs_remote_check",
    description: "only the remote system can tell; the question stays open",
    closes: false,
    needs_job: false,
};

const DUPLICATE_VERDICTS: [Verdict; 3] = [
    Verdict {
        name: "single_effect",
        description: "checked: the work took effect once",
        closes: true,
        needs_job: false,
    },
    Verdict {
        name: "duplicate_effect",
        description: "checked: the work took effect twice; handle it outside",
        closes: true,
        needs_job: false,
    },
    REMOTE_CHECK,
];

const CONFLICT_VERDICTS: [Verdict; 3] = [
    Verdict {
        name: "success_stands",
        description: "the success report is the true one",
        closes: true,
        needs_job: false,
    },
    Verdict {
        name: "failure_stands",
        description: "the failure report is the true one",
        closes: true,
        needs_job: false,
    },
    REMOTE_CHECK,
];

const QUARANTINE_VERDICTS: [Verdict; 3] = [
    Verdict {
        name: "linked",
        description: "belongs to a job you name; the table then judges it against that job",
        closes: true,
        needs_job: true,
    },
    Verdict {
        name: "noise",
        description: "not a report about any job of ours",
        closes: true,
        needs_job: false,
    },
    REMOTE_CHECK,
];

/// Whether a standing answer closes its question.
pub fn closes(verdict: &str) -> bool {
    verdict != REMOTE_CHECK.name
}

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
    let chosen = kind
        .verdicts()
        .iter()
        .find(|v| v.name == verdict)
        .ok_or_else(|| AnswerError::UnknownVerdict {
            verdict: verdict.to_owned(),
            kind: kind.label(),
            allowed: kind
                .verdicts()
                .iter()
                .map(|v| v.name)
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    match (chosen.needs_job, link_job) {
        (true, None) => Err(AnswerError::LinkNeedsJob),
        (false, Some(_)) => Err(AnswerError::JobWithoutLink),
        _ => Ok(*chosen),
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
    validate(&row, request.verdict, request.link_job)?;
    let standing = writer.latest_answer(request.seq)?;
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
                &mut writer,
                &report,
                row.line_seq,
                Some(row.seq),
                now,
            )?)
        }
        None => None,
    };
    let answer_id = writer.insert_answer(
        request.seq,
        request.verdict,
        request.note,
        request.reviewer,
        now,
        request.link_job,
        standing.map(|a| a.id),
    )?;
    writer.commit()?;
    Ok(AnswerWritten { answer_id, linked })
}
