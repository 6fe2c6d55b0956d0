//! What the writing commands (`answer`, `owner`, `request`) say they wrote.

use std::fmt::Write as _;

use crate::clock::Timestamp;
use crate::inert::inert;
use crate::outbox::{RequestKind, RequestWritten};
use crate::review::AnswerWritten;

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

/// After `owner`.
pub fn owner_set(job: &str, owner: &str, escalate_at: Option<Timestamp>) -> String {
    let when = escalate_at.map_or_else(
        || "no escalation time".to_owned(),
        |t| format!("escalates at {t}"),
    );
    format!("{} is owned by {}; {when}\n", inert(job), inert(owner))
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
