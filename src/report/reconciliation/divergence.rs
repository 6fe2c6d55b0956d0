//! The two findings that list more than job ids: jobs decided under more than one
//! decision id (each with its decisions and the answer on it), and job ids submitted
//! again with another identity (each with the first identity and the conflicting ones).

use std::fmt::Write as _;

use crate::inert::inert;
use crate::signed::signed;
use crate::store::{ConflictingSubmission, DivergentJob, SubmittedIdentity};

/// The `divergent_decisions` section: its heading with how many are still open, then
/// each job, its decisions in time order and its standing answer.
pub(super) fn divergent_decisions(out: &mut String, jobs: &[DivergentJob]) {
    let open = jobs.iter().filter(|j| j.open()).count();
    let _ = writeln!(
        out,
        "\ndivergent_decisions ({}, {open} open): decided under more than one decision id; acting on each would act twice",
        jobs.len()
    );
    for job in jobs {
        let agree = if job.actions_agree {
            "the actions agree"
        } else {
            "the actions DIFFER"
        };
        let _ = writeln!(
            out,
            "  {}  {} decisions, {agree}{}",
            inert(&job.job_id),
            job.decisions.len(),
            if job.open() { "" } else { "  (answered)" }
        );
        for d in &job.decisions {
            let route = d
                .route
                .as_deref()
                .map_or_else(|| "no route".to_owned(), |r| format!("via {}", inert(r)));
            let _ = writeln!(
                out,
                "    {}  {}  {}  {route}",
                d.at.short(),
                inert(&d.decision_id),
                inert(&d.action)
            );
        }
        if let Some(a) = &job.answer {
            let note = if a.note.is_empty() {
                String::new()
            } else {
                format!(" - {}", inert(&a.note))
            };
            let _ = writeln!(
                out,
                "    answer: {} by {} at {}{note}",
                a.verdict,
                signed(&a.reviewer, a.written_by.as_deref()),
                a.answered_at.short()
            );
        }
    }
}

/// The `conflicting_submissions` section: each job id, the identity that stands and
/// each conflicting one.
pub(super) fn conflicting_submissions(out: &mut String, jobs: &[ConflictingSubmission]) {
    let _ = writeln!(
        out,
        "\nconflicting_submissions ({}): a job id submitted again with another identity; the first stands",
        jobs.len()
    );
    for job in jobs {
        let _ = writeln!(out, "  {}", inert(&job.job_id));
        identity_line(out, "first", &job.first);
        for again in &job.conflicting {
            identity_line(out, "again", again);
        }
    }
}

fn identity_line(out: &mut String, which: &str, id: &SubmittedIdentity) {
    let shown = |v: &Option<String>| {
        v.as_deref()
            .map_or_else(|| "-".to_owned(), |v| inert(v).into_owned())
    };
    let _ = writeln!(
        out,
        "    {which}  {}  line {}  input {}  model {}  policy {}",
        id.submitted_at.short(),
        id.line_seq,
        shown(&id.input_digest),
        shown(&id.model_digest),
        shown(&id.policy_revision)
    );
}
