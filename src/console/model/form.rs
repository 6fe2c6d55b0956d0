//! The forms a reviewer fills in: an answer, an owner, a request to the outside.
//!
//! A form holds what was typed and what the row looked like when it opened; the
//! writes themselves happen in [`crate::console::update()`]. Once written (or refused) the form
//! stays open showing the outcome until the reviewer closes it.

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::outbox::{self, RequestFacts, RequestKind};
use crate::review::{CaseKind, Verdict};
use crate::store::{AnswerRow, AttemptState, JobRow, PendingRequests};

use crate::console::field::{Outcome, TextField};

/// The fields of the answer form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerField {
    Verdict,
    LinkJob,
    Note,
}

/// Answering a held or quarantined callback.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerForm {
    pub seq: i64,
    pub job_id: Option<String>,
    pub kind: CaseKind,
    /// Index into `kind.verdicts()`.
    pub verdict: usize,
    pub link_job: TextField,
    pub note: TextField,
    pub field: AnswerField,
    /// The answer standing when the row was loaded (the one the reviewer saw).
    pub seen: Option<AnswerRow>,
    /// A problem to fix before writing (the form stays editable).
    pub error: Option<String>,
    pub outcome: Option<Outcome>,
}

impl AnswerForm {
    pub fn new(seq: i64, job_id: Option<String>, kind: CaseKind, seen: Option<AnswerRow>) -> Self {
        AnswerForm {
            seq,
            job_id,
            kind,
            verdict: 0,
            link_job: TextField::default(),
            note: TextField::default(),
            field: AnswerField::Verdict,
            seen,
            error: None,
            outcome: None,
        }
    }

    /// The verdict picked.
    pub fn chosen(&self) -> Verdict {
        let verdicts = self.kind.verdicts();
        verdicts[self.verdict.min(verdicts.len() - 1)]
    }

    /// The fields in tab order; the job id only when the verdict needs one.
    pub fn fields(&self) -> Vec<AnswerField> {
        if self.chosen().needs_job() {
            vec![
                AnswerField::Verdict,
                AnswerField::LinkJob,
                AnswerField::Note,
            ]
        } else {
            vec![AnswerField::Verdict, AnswerField::Note]
        }
    }

    pub fn pick(&mut self, delta: isize) {
        let n = self.kind.verdicts().len();
        self.verdict = (self.verdict + n).saturating_add_signed(delta) % n;
    }

    pub fn focused_text(&mut self) -> Option<&mut TextField> {
        match self.field {
            AnswerField::Verdict => None,
            AnswerField::LinkJob => Some(&mut self.link_job),
            AnswerField::Note => Some(&mut self.note),
        }
    }
}

/// The fields of the owner form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerField {
    Owner,
    EscalateAt,
}

/// Setting the owner and escalation time of an aged job.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnerForm {
    pub job_id: String,
    pub owner: TextField,
    pub escalate_at: TextField,
    pub field: OwnerField,
    pub error: Option<String>,
    pub outcome: Option<Outcome>,
}

impl OwnerForm {
    pub fn focused_text(&mut self) -> &mut TextField {
        match self.field {
            OwnerField::Owner => &mut self.owner,
            OwnerField::EscalateAt => &mut self.escalate_at,
        }
    }
}

/// One check of SPEC sec. 6, as the confirmation shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckLine {
    pub name: &'static str,
    pub passes: bool,
    pub finding: String,
}

/// Confirming a retry or cancel: the checks it will face, then its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestForm {
    pub kind: RequestKind,
    pub job_id: String,
    pub checks: Vec<CheckLine>,
    /// What the checks say now (the write checks again, against the ledger as it is then).
    pub expected: Result<(), String>,
    pub outcome: Option<Outcome>,
}

impl RequestForm {
    /// Lays out the checks for `kind` against `facts` as the ledger holds them at `now`.
    pub fn new(kind: RequestKind, facts: &RequestFacts, now: Timestamp) -> Self {
        let (job, output, pending) = (&facts.job, &facts.output, facts.pending);
        let retry = kind == RequestKind::Retry;
        let used = job.latest_attempt + if retry { pending.retries } else { 0 };
        let budget = CheckLine {
            name: "attempt budget",
            passes: !retry || used < job.attempt_budget,
            finding: if retry {
                format!(
                    "{used} of {} attempts used or requested",
                    job.attempt_budget
                )
            } else {
                format!(
                    "{used} of {} attempts used; a cancel takes none",
                    job.attempt_budget
                )
            },
        };
        let success = CheckLine {
            name: "success on record",
            passes: !job.state.has_success(),
            finding: if job.state.has_success() {
                format!("yes: the job is {}", job.state)
            } else {
                format!("none: the job is {}", job.state)
            },
        };
        let exists = output.exists();
        let output_line = CheckLine {
            name: "output exists",
            passes: !exists,
            finding: match (&output.reference, exists) {
                (Some(reference), true) => format!("yes: {reference}"),
                (Some(reference), false) => format!("stored as {reference} but found missing"),
                (None, _) => "no output object stored".to_owned(),
            },
        };
        let expired = output.retention_until.is_some_and(|until| until <= now);
        let retention = CheckLine {
            name: "retention",
            passes: !(expired && retry),
            finding: match output.retention_until {
                Some(until) if expired => format!("expired at {}", until.readable(now)),
                Some(until) => format!("kept until {}", until.readable(now)),
                None => "no retention limit on record".to_owned(),
            },
        };
        let mut checks = vec![budget, success, output_line, retention];
        if retry {
            checks.push(permanence(job));
        }
        checks.push(CheckLine {
            name: "pending requests",
            passes: pending.waiting(kind).is_none(),
            finding: waiting(pending),
        });
        if retry {
            checks.push(CheckLine {
                name: "latest attempt",
                passes: facts.latest_attempt != Some(AttemptState::Running),
                finding: match facts.latest_attempt {
                    Some(state) => format!("attempt {} is {state}", job.latest_attempt),
                    None => format!("attempt {} is not on record", job.latest_attempt),
                },
            });
        }
        let expected = outbox::check(kind, facts, now).map_err(|refusal| refusal.to_string());
        RequestForm {
            kind,
            job_id: job.job_id.clone(),
            checks,
            expected,
            outcome: None,
        }
    }

    /// The checks say it would be refused: nothing to confirm.
    pub fn would_be_refused(&self) -> bool {
        self.expected.is_err()
    }
}

/// What waits in the outbox for the job: `1 retry and 1 cancel waiting …`.
fn waiting(pending: PendingRequests) -> String {
    let count = |n: i64, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let counts: Vec<String> = [
        count(pending.retries, "retry", "retries"),
        count(pending.cancels, "cancel", "cancels"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if counts.is_empty() {
        "none waiting in the outbox".to_owned()
    } else {
        format!(
            "{} waiting in the outbox; one at a time",
            counts.join(" and ")
        )
    }
}

/// Whether the job's failure (if any) was called permanent by its worker.
fn permanence(job: &JobRow) -> CheckLine {
    let cause = job.failure_cause.as_deref().unwrap_or("no cause given");
    CheckLine {
        name: "permanent failure",
        passes: !outbox::failed_permanently(job),
        finding: match (job.state, job.failure_permanent) {
            (JobState::Failed, Some(true)) => format!("yes: {cause}"),
            (JobState::Failed, Some(false)) => format!("no: transient ({cause})"),
            (JobState::Failed, None) => format!("no: not classified ({cause})"),
            (state, _) => format!("no: the job is {state}"),
        },
    }
}

/// The form open over the view.
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    Answer(AnswerForm),
    Owner(OwnerForm),
    Request(RequestForm),
    /// Withdrawing a pending request.
    Withdraw(super::withdraw::WithdrawForm),
    /// Answering the marked rows at once.
    Bulk(super::bulk::BulkForm),
    /// Giving the marked aged jobs an owner at once.
    BulkOwner(super::bulk_owner::BulkOwnerForm),
    /// Answering a job's divergent decisions.
    Decisions(super::decisions::DecisionsForm),
}

impl Form {
    /// What came of submitting it, once it was submitted.
    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            Form::Answer(f) => f.outcome.as_ref(),
            Form::Owner(f) => f.outcome.as_ref(),
            Form::Request(f) => f.outcome.as_ref(),
            Form::Withdraw(f) => f.outcome.as_ref(),
            Form::Bulk(f) => f.outcome.as_ref(),
            Form::BulkOwner(f) => f.outcome.as_ref(),
            Form::Decisions(f) => f.outcome.as_ref(),
        }
    }
}
