//! What the writing commands (`answer`, `owner`, `request`) say they wrote.

use std::fmt::Write as _;

use crate::clock::Timestamp;
use crate::decision::{DecisionVerdict, Disposition, ReasonCode};
use crate::escalation::{Cleared, OwnerSet};
use crate::inert::inert;
use crate::outbox::{RequestKind, RequestWritten};
use crate::review::{AnswerWritten, Verdict};
use crate::signed::signed;
use crate::store::{AnswerRow, OutboxRow, OwnerRow};

/// After `answer`: the answer written, and for `linked` how the table judged it.
pub fn answer_written(
    seq: i64,
    verdict: &str,
    reviewer: &str,
    link_job: Option<&str>,
    written: &AnswerWritten,
) -> String {
    let mut out = format!(
        "answer {} written on callback #{seq}: {verdict} by {}\n",
        written.answer_id,
        inert(reviewer)
    );
    if let Some((new_seq, decision)) = written.linked {
        let _ = writeln!(
            out,
            "linked: judged against job {} as callback #{new_seq}: {} ({})",
            inert(link_job.unwrap_or_default()),
            decision.disposition,
            decision.reason
        );
    }
    out
}

/// After `answer --decisions`.
pub fn decisions_answered(id: i64, job_id: &str, verdict: &str, reviewer: &str) -> String {
    format!(
        "answer {id} written on the divergent decisions of job {}: {verdict} by {}\n",
        inert(job_id),
        inert(reviewer)
    )
}

/// After `owner`.
pub fn owner_set(job: &str, owner: &str, escalate_at: Option<Timestamp>) -> String {
    let when = escalate_at.map_or_else(
        || "no escalation time".to_owned(),
        |t| format!("escalates at {t}"),
    );
    format!("{} is owned by {}; {when}\n", inert(job), inert(owner))
}

/// After `claim`: the claim taken, or (`None`) released.
pub fn claim_said(seq: i64, claim: Option<&crate::store::ClaimRow>) -> String {
    match claim {
        Some(c) => format!(
            "callback #{seq} is claimed by {} since {} until {}; answering it or `claim {seq} --release` ends the claim\n",
            inert(&c.reviewer),
            c.since.short(),
            c.until.short()
        ),
        None => format!("callback #{seq}: your claim is released\n"),
    }
}

/// `owner --where --json`: the plan, and whether it was written.
#[derive(Debug, serde::Serialize)]
pub struct OwnerPlanJson<'a> {
    pub assigned: &'a [String],
    pub escalate_at: Option<Timestamp>,
    pub owner: &'a str,
    pub unchanged: &'a [String],
    pub written: bool,
}

impl<'a> OwnerPlanJson<'a> {
    pub fn new(plan: &'a crate::escalation::bulk::OwnerPlan, written: bool) -> Self {
        OwnerPlanJson {
            assigned: &plan.assigned,
            escalate_at: plan.escalate_at,
            owner: &plan.owner,
            unchanged: &plan.unchanged,
            written,
        }
    }
}

/// `claim --json`: the callback and its claim (null once released).
#[derive(Debug, serde::Serialize)]
pub struct ClaimJson {
    pub claim: Option<crate::store::ClaimRow>,
    pub seq: i64,
}

/// After `owner --clear`.
pub fn owner_cleared(job: &str, cleared: &Cleared) -> String {
    format!("{}\n", cleared.sentence(job))
}

/// After `owner`, when that owner and escalation time stood already.
pub fn owner_unchanged(job: &str, standing: &OwnerRow) -> String {
    let when = standing.escalate_at.map_or_else(
        || "no escalation time".to_owned(),
        |t| format!("escalates at {t}"),
    );
    format!(
        "{} is owned by {} already ({when}; set by {} at {}): nothing changed, nothing written\n",
        inert(job),
        inert(&standing.owner),
        inert(&standing.set_by),
        standing.set_at
    )
}

/// After `request`.
pub fn request_written(kind: RequestKind, job: &str, written: &RequestWritten) -> String {
    let attempt = written
        .attempt
        .map_or_else(String::new, |a| format!(" as attempt {a}"));
    format!(
        "{kind} of {} is in the outbox (request {}){attempt}\n",
        inert(job),
        written.id
    )
}

/// After `request withdraw`: the request as it stands now (`--json`: its `outbox --json`
/// row).
#[derive(Debug, serde::Serialize)]
#[serde(transparent)]
pub struct Withdrawn(pub OutboxRow);

impl super::Report for Withdrawn {
    fn text(&self) -> String {
        let row = &self.0;
        let attempt = row
            .attempt
            .map_or_else(String::new, |a| format!(" (attempt {a})"));
        format!(
            "request {} withdrawn: {} of {}{attempt}, asked by {} at {}; {}\n",
            row.id,
            row.request,
            inert(&row.job_id),
            inert(&row.requested_by),
            row.requested_at.short(),
            withdrawn_line(row).unwrap_or_default()
        )
    }
}

/// `withdrawn by ops:lee at 2026-11-27 17:00:00 (note)`, for a withdrawn request.
pub fn withdrawn_line(row: &OutboxRow) -> Option<String> {
    let w = row.withdrawal.as_ref()?;
    let note = if w.note.is_empty() {
        String::new()
    } else {
        format!(" ({})", inert(&w.note))
    };
    Some(format!(
        "withdrawn by {} at {}{note}",
        signed(&w.withdrawn_by, w.written_by.as_deref()),
        w.withdrawn_at.short()
    ))
}

/// `answer SEQ --json`: the answer as written, with the keys of the `answer` object of
/// `callbacks --json`, and for `linked` the callback it made and how the table judged it.
#[derive(Debug, serde::Serialize)]
pub struct AnswerJson<'a> {
    pub answered_at: Timestamp,
    pub callback_seq: i64,
    pub id: i64,
    pub linked: Option<LinkedJson>,
    pub linked_job_id: Option<&'a str>,
    pub note: &'a str,
    pub reviewer: &'a str,
    pub verdict: Verdict,
    /// The database role that wrote it, when the ledger knows it (a server's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<&'a str>,
}

/// The callback a `linked` answer made, judged against the job it names.
#[derive(Debug, serde::Serialize)]
pub struct LinkedJson {
    pub disposition: Disposition,
    pub reason: ReasonCode,
    pub seq: i64,
}

impl<'a> AnswerJson<'a> {
    /// The JSON of `answer` as read back, and what [`AnswerWritten`] says it linked.
    pub fn new(answer: &'a AnswerRow, written: &AnswerWritten) -> Self {
        AnswerJson {
            answered_at: answer.answered_at,
            callback_seq: answer.callback_seq,
            id: answer.id,
            linked: written.linked.map(|(seq, decision)| LinkedJson {
                disposition: decision.disposition,
                reason: decision.reason,
                seq,
            }),
            linked_job_id: answer.linked_job_id.as_deref(),
            note: &answer.note,
            reviewer: &answer.reviewer,
            verdict: answer.verdict,
            written_by: answer.written_by.as_deref(),
        }
    }
}

/// `answer --decisions JOB --json`: the answer written, with the keys of the `answer`
/// of a divergent job in `reconcile --json`, and the job it answers.
#[derive(Debug, serde::Serialize)]
pub struct DecisionsAnsweredJson<'a> {
    pub answered_at: Timestamp,
    pub id: i64,
    pub job_id: &'a str,
    pub note: &'a str,
    pub reviewer: &'a str,
    pub verdict: DecisionVerdict,
    /// The database role that wrote it, when the ledger knows it (a server's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<&'a str>,
}

/// `owner --json`: the assignment written (keys in alphabetical order); `owner` is
/// null when the owner was cleared.
#[derive(Debug, serde::Serialize)]
pub struct OwnerJson<'a> {
    pub escalate_at: Option<Timestamp>,
    pub job_id: &'a str,
    pub owner: Option<&'a str>,
    pub set_at: Timestamp,
    pub set_by: &'a str,
    /// False when nothing was written: that owner and escalation time stood already
    /// (the assignment is the one standing), or a clearing found no owner to clear.
    pub written: bool,
    /// The database role that wrote the assignment shown, when the ledger knows it (a
    /// server's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<&'a str>,
}

impl<'a> OwnerJson<'a> {
    /// The JSON of `set`, the assignment written for `job_id` (or the one standing).
    pub fn new(job_id: &'a str, set: &'a OwnerSet) -> Self {
        let (OwnerSet::Written(row) | OwnerSet::Unchanged(row)) = set;
        OwnerJson {
            escalate_at: row.escalate_at,
            job_id,
            owner: Some(&row.owner),
            set_at: row.set_at,
            set_by: &row.set_by,
            written: matches!(set, OwnerSet::Written(_)),
            written_by: row.written_by.as_deref(),
        }
    }

    /// The JSON of a clearing of `job_id`'s owner by `set_by` at `set_at`.
    pub fn cleared(job_id: &'a str, cleared: &Cleared, set_by: &'a str, set_at: Timestamp) -> Self {
        OwnerJson {
            escalate_at: None,
            job_id,
            owner: None,
            set_at,
            set_by,
            written: matches!(cleared, Cleared::Was(_)),
            written_by: None,
        }
    }
}
