//! The bundle as JSON, for scripts: keys in alphabetical order, as every report
//! prints them; the callbacks as `callbacks --json` lists them, each with its raw
//! line; answers, the owner and requests as `answer --json`, `owner --json` and
//! `outbox --json` print them. Times in the ledger's form. Written through
//! [`crate::report::write_json`], which escapes every character that could drive a
//! terminal; text is kept exact otherwise.

use serde::{Serialize, Serializer};

use crate::clock::{Timestamp, format_gap};
use crate::decision::{DecisionVerdict, JobState};
use crate::evidence::compare::{Comparison, pairs};
use crate::evidence::timeline;
use crate::store::{AnswerRow, AttemptState, CallbackRow, OutboxRow, OwnerRow};

use super::{Bundle, Message, Subject, TIMES};

#[derive(Serialize)]
struct BundleJson<'a> {
    answers: &'a [AnswerRow],
    attempts: Vec<AttemptJson<'a>>,
    callbacks: Vec<MessageJson<'a>>,
    /// The job has more callbacks than `callbacks` lists.
    callbacks_cut: bool,
    comparisons: Vec<ComparisonJson>,
    decision_answers: Vec<DecisionAnswerJson<'a>>,
    exported_at: Timestamp,
    job: Option<JobJson<'a>>,
    job_id: Option<&'a str>,
    owner: Option<&'a OwnerRow>,
    owner_history: Vec<OwnerChangeJson<'a>>,
    requests: &'a [OutboxRow],
    subject: SubjectJson<'a>,
    timeline: Vec<TimelineLineJson>,
}

#[derive(Serialize)]
struct SubjectJson<'a> {
    callback: Option<i64>,
    job: Option<&'a str>,
}

#[derive(Serialize)]
struct AttemptJson<'a> {
    attempt: i64,
    created_by: &'a str,
    started_at: Timestamp,
    state: AttemptState,
    timed_out_at: Option<Timestamp>,
    timeout_at: Option<Timestamp>,
}

#[derive(Serialize)]
struct JobJson<'a> {
    accepted_at: Timestamp,
    attempt_budget: i64,
    expected_age_s: i64,
    failure_cause: Option<&'a str>,
    failure_permanent: Option<bool>,
    input_digest: Option<&'a str>,
    job_id: &'a str,
    latest_attempt: i64,
    model_digest: Option<&'a str>,
    output: OutputJson<'a>,
    policy_revision: Option<&'a str>,
    result_ref: Option<&'a str>,
    state: JobState,
    state_changed_at: Timestamp,
    timeout_s: Option<i64>,
}

#[derive(Serialize)]
struct OutputJson<'a> {
    exists: bool,
    last_check_exists: Option<bool>,
    reference: Option<&'a str>,
    retention_until: Option<Timestamp>,
}

/// A callback as `callbacks --json` lists it, with its raw line.
#[derive(Serialize)]
struct MessageJson<'a> {
    #[serde(flatten)]
    row: &'a CallbackRow,
    raw: Option<RawJson>,
}

#[derive(Serialize)]
struct RawJson {
    /// The whole line's length in bytes.
    bytes: i64,
    /// Only the first bytes are in `text`.
    cut: bool,
    line: i64,
    text: String,
    /// `false`: the line is not UTF-8, and `text` writes each byte outside it `\xNN`.
    utf8: bool,
}

#[derive(Serialize)]
struct ComparisonJson {
    counterparts: Vec<SideJson>,
    /// Arrival after (`+`) or before (`-`) the attempt's timeout.
    gap: Option<String>,
    held: i64,
    reading: String,
}

#[derive(Serialize)]
struct SideJson {
    fields: Vec<PairJson>,
    title: String,
}

#[derive(Serialize)]
struct PairJson {
    differs: bool,
    held: Option<String>,
    name: String,
    same: bool,
    theirs: Option<String>,
}

#[derive(Serialize)]
struct DecisionAnswerJson<'a> {
    answered_at: Timestamp,
    note: &'a str,
    reviewer: &'a str,
    verdict: DecisionVerdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    written_by: Option<&'a str>,
}

#[derive(Serialize)]
struct OwnerChangeJson<'a> {
    escalate_at: Option<Timestamp>,
    /// `null`: the owner was cleared.
    owner: Option<&'a str>,
    set_at: Timestamp,
    set_by: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    written_by: Option<&'a str>,
}

#[derive(Serialize)]
struct TimelineLineJson {
    at: Timestamp,
    text: String,
}

fn message(m: &Message) -> MessageJson<'_> {
    MessageJson {
        row: &m.row,
        raw: m.raw.as_ref().map(|raw| {
            let (text, utf8) = raw.text();
            RawJson {
                bytes: raw.len,
                cut: raw.cut(),
                line: raw.line_seq,
                text,
                utf8,
            }
        }),
    }
}

fn comparison(c: &Comparison) -> ComparisonJson {
    let held = c.held_side(TIMES);
    ComparisonJson {
        counterparts: c
            .counterparts(TIMES)
            .into_iter()
            .map(|side| SideJson {
                fields: pairs(&held, &side)
                    .into_iter()
                    .map(|p| PairJson {
                        differs: p.differs,
                        held: p.held,
                        name: p.name,
                        same: p.same,
                        theirs: p.theirs,
                    })
                    .collect(),
                title: side.title,
            })
            .collect(),
        gap: c
            .held
            .row
            .arrived_at
            .zip(c.held.row.timeout_at)
            .map(|(a, t)| format_gap(a.seconds_since(t))),
        held: c.held.row.seq,
        reading: c.reading(),
    }
}

impl Serialize for Bundle {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let output = &self.output;
        BundleJson {
            answers: &self.answers,
            attempts: self
                .attempts
                .iter()
                .map(|a| AttemptJson {
                    attempt: a.attempt,
                    created_by: &a.created_by,
                    started_at: a.started_at,
                    state: a.state,
                    timed_out_at: a.timed_out_at,
                    timeout_at: a.timeout_at,
                })
                .collect(),
            callbacks: self.messages.iter().map(message).collect(),
            callbacks_cut: self.more_messages,
            comparisons: self.comparisons.iter().map(comparison).collect(),
            decision_answers: self
                .decision_answers()
                .into_iter()
                .map(|d| DecisionAnswerJson {
                    answered_at: d.at,
                    note: d.note,
                    reviewer: d.reviewer,
                    verdict: d.verdict,
                    written_by: d.written_by,
                })
                .collect(),
            exported_at: self.exported_at,
            job: self.job.as_ref().map(|j| JobJson {
                accepted_at: j.accepted_at,
                attempt_budget: j.attempt_budget,
                expected_age_s: j.expected_age_s,
                failure_cause: j.failure_cause.as_deref(),
                failure_permanent: j.failure_permanent,
                input_digest: j.input_digest.as_deref(),
                job_id: &j.job_id,
                latest_attempt: j.latest_attempt,
                model_digest: j.model_digest.as_deref(),
                output: OutputJson {
                    exists: output.exists(),
                    last_check_exists: output.last_check_exists,
                    reference: output.reference.as_deref(),
                    retention_until: output.retention_until,
                },
                policy_revision: j.policy_revision.as_deref(),
                result_ref: j.result_ref.as_deref(),
                state: j.state,
                state_changed_at: j.state_changed_at,
                timeout_s: j.timeout_s,
            }),
            job_id: self.job_id.as_deref(),
            owner: self.owner.as_ref(),
            owner_history: self
                .owner_history()
                .into_iter()
                .map(|o| OwnerChangeJson {
                    escalate_at: o.escalate_at,
                    owner: o.owner,
                    set_at: o.at,
                    set_by: o.set_by,
                    written_by: o.written_by,
                })
                .collect(),
            requests: &self.requests,
            subject: match &self.subject {
                Subject::Callback(seq) => SubjectJson {
                    callback: Some(*seq),
                    job: None,
                },
                Subject::Job(job) => SubjectJson {
                    callback: None,
                    job: Some(job),
                },
            },
            timeline: timeline::lines(&self.timeline, TIMES)
                .into_iter()
                .map(|(at, text)| TimelineLineJson { at, text })
                .collect(),
        }
        .serialize(serializer)
    }
}
