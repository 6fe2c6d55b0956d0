//! The comparison pane of a held callback (`C`), as plain data: the held report and
//! what it conflicts with (the other callbacks of the job and attempt, the attempt and
//! its timeout, the replacement attempt, the terminal record), field by field, and the
//! times the axis above them is drawn from.

use crate::clock::{Timestamp, format_gap};
use crate::decision::{JobState, Outcome};
use crate::store::{AttemptRow, AttemptState, CallbackRow, JobRow};

/// The payload of a callback, as its top-level fields (values as compact JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// The fields of the payload object, by name.
    Fields(Vec<(String, String)>),
    /// The line had no payload.
    None,
    /// Not shown, and why (not an object, the line too long, not JSON).
    Unread(String),
}

/// A callback of the job, with its payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub row: CallbackRow,
    pub payload: Payload,
}

/// Everything the comparison pane shows, read when it opens.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The held callback.
    pub held: Report,
    /// The job's other callbacks, in ingest order.
    pub others: Vec<Report>,
    /// Every attempt of the job, in order.
    pub attempts: Vec<AttemptRow>,
    /// The job, for its terminal record.
    pub job: Option<JobRow>,
    /// Lines of the comparison scrolled off the top.
    pub scroll: usize,
}

/// One field of one side: its name, its value as shown, and the value it is
/// compared by (`None`: shown, not compared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub value: String,
    pub compared: Option<String>,
}

impl Field {
    fn shown(name: &str, value: impl Into<String>) -> Field {
        Field {
            name: name.to_owned(),
            value: value.into(),
            compared: None,
        }
    }

    fn compared(name: &str, value: impl Into<String>, by: Option<&str>) -> Field {
        Field {
            compared: by.map(str::to_owned),
            ..Field::shown(name, value)
        }
    }
}

/// One side of the comparison: what it is, and its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    pub title: String,
    pub fields: Vec<Field>,
}

/// A row of a comparison: a field, its value on the held side and on the other, and
/// whether they differ (only fields compared on both sides, or a payload field one
/// side lacks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    pub name: String,
    pub held: Option<String>,
    pub theirs: Option<String>,
    pub differs: bool,
}

/// `success` and `failure`: what a callback, an attempt or a job says of the work.
fn said(outcome: Outcome) -> &'static str {
    outcome.as_str()
}

fn attempt_says(state: AttemptState) -> Option<&'static str> {
    match state {
        AttemptState::Succeeded => Some(said(Outcome::Success)),
        AttemptState::Failed => Some(said(Outcome::Failure)),
        AttemptState::Running | AttemptState::TimedOut => None,
    }
}

fn job_says(state: JobState) -> Option<&'static str> {
    if state.has_success() {
        Some(said(Outcome::Success))
    } else if state == JobState::Failed {
        Some(said(Outcome::Failure))
    } else {
        None
    }
}

fn report_side(title: String, report: &Report, now: Timestamp) -> Side {
    let row = &report.row;
    let outcome = row.outcome.map(said);
    let attempt = row.attempt.map(|a| a.to_string());
    let mut fields = vec![
        Field::compared(
            "attempt",
            attempt.clone().unwrap_or_else(|| "-".to_owned()),
            attempt.as_deref(),
        ),
        Field::compared("outcome", outcome.unwrap_or("-"), outcome),
        Field::shown(
            "time",
            row.arrived_at.map_or_else(
                || "arrival unknown".to_owned(),
                |t| format!("arrived {}", t.readable(now)),
            ),
        ),
        Field::shown("delivery", row.delivery_id.as_deref().unwrap_or("-")),
        Field::shown("disposition", format!("{} {}", row.disposition, row.reason)),
    ];
    match &report.payload {
        Payload::Fields(payload) => {
            fields.extend(payload.iter().map(|(name, value)| {
                Field::compared(&format!("payload.{name}"), value, Some(value))
            }));
        }
        Payload::None => fields.push(Field::shown("payload", "none")),
        Payload::Unread(why) => fields.push(Field::shown("payload", why.clone())),
    }
    Side { title, fields }
}

impl Comparison {
    /// The held callback, as the left side (times read at `now`).
    pub fn held_side(&self, now: Timestamp) -> Side {
        let row = &self.held.row;
        report_side(format!("held callback #{}", row.seq), &self.held, now)
    }

    /// The attempt the held callback reports on.
    pub fn held_attempt(&self) -> Option<&AttemptRow> {
        let n = self.held.row.attempt?;
        self.attempts.iter().find(|a| a.attempt == n)
    }

    /// What the held callback conflicts with, in the order a reviewer checks it: the
    /// other callbacks of the same attempt, the attempt and its timeout, each later
    /// attempt (the replacement), the terminal record. Times are read at `now`.
    pub fn counterparts(&self, now: Timestamp) -> Vec<Side> {
        let held_attempt = self.held.row.attempt;
        let mut sides: Vec<Side> = self
            .others
            .iter()
            .filter(|o| o.row.attempt == held_attempt)
            .map(|o| {
                report_side(
                    format!("callback #{} · same job and attempt", o.row.seq),
                    o,
                    now,
                )
            })
            .collect();
        for attempt in &self.attempts {
            let Some(held) = held_attempt else { break };
            let role = match attempt.attempt.cmp(&held) {
                std::cmp::Ordering::Less => continue,
                std::cmp::Ordering::Equal => "the attempt reported on",
                std::cmp::Ordering::Greater => "the replacement",
            };
            let time = match (
                attempt.attempt == held,
                attempt.timed_out_at,
                attempt.timeout_at,
            ) {
                (true, Some(at), _) => format!("timed out {}", at.readable(now)),
                (true, None, Some(due)) => format!("due to time out {}", due.readable(now)),
                (true, None, None) => "no timeout set".to_owned(),
                (false, _, _) => format!("started {}", attempt.started_at.readable(now)),
            };
            let says = attempt_says(attempt.state);
            sides.push(Side {
                title: format!("attempt {} · {role}", attempt.attempt),
                fields: vec![
                    Field::compared(
                        "attempt",
                        attempt.attempt.to_string(),
                        Some(&attempt.attempt.to_string()),
                    ),
                    Field::compared("outcome", attempt.state.as_str(), says),
                    Field::shown("time", time),
                    Field::shown("by", attempt.created_by.clone()),
                ],
            });
        }
        if let Some(job) = self.job.as_ref().filter(|j| j.state.is_terminal()) {
            let result = job
                .result_ref
                .clone()
                .or_else(|| job.failure_cause.clone())
                .unwrap_or_else(|| "-".to_owned());
            sides.push(Side {
                title: "terminal record of the job".to_owned(),
                fields: vec![
                    Field::compared("outcome", job.state.as_str(), job_says(job.state)),
                    Field::shown(
                        "time",
                        format!("{} {}", job.state, job.state_changed_at.readable(now)),
                    ),
                    Field::shown("result", result),
                ],
            });
        }
        sides
    }

    /// The gap between the held callback's arrival and its attempt's timeout, in
    /// words: `+4m44s (after the timeout)`.
    pub fn gap(&self) -> Option<String> {
        let row = &self.held.row;
        let gap = row.arrived_at?.seconds_since(row.timeout_at?);
        let side = if gap >= 0 { "after" } else { "before" };
        Some(format!("{} ({side} the timeout)", format_gap(gap)))
    }

    /// Every time the axis must hold: starts and timeouts of the attempts, the
    /// arrivals, the terminal record.
    pub fn times(&self) -> Vec<Timestamp> {
        let mut times: Vec<Timestamp> = self
            .attempts
            .iter()
            .flat_map(|a| [Some(a.started_at), a.timeout_at])
            .flatten()
            .collect();
        times.extend(
            std::iter::once(&self.held)
                .chain(&self.others)
                .filter_map(|r| r.row.arrived_at),
        );
        times.extend(
            self.job
                .as_ref()
                .filter(|j| j.state.is_terminal())
                .map(|j| j.state_changed_at),
        );
        times
    }
}

/// The held side and another, field by field: the held fields in their order, then
/// the other's fields the held side lacks.
pub fn pairs(held: &Side, theirs: &Side) -> Vec<Pair> {
    let find = |side: &Side, name: &str| side.fields.iter().find(|f| f.name == name).cloned();
    let mut names: Vec<&str> = held.fields.iter().map(|f| f.name.as_str()).collect();
    for field in &theirs.fields {
        if !names.contains(&field.name.as_str()) {
            names.push(&field.name);
        }
    }
    // A payload differs only from another report's: an attempt or a record has none.
    let has_payload = theirs.fields.iter().any(|f| f.name.starts_with("payload"));
    names
        .into_iter()
        .map(|name| {
            let (h, t) = (find(held, name), find(theirs, name));
            let differs = match (&h, &t) {
                (Some(h), Some(t)) => {
                    matches!((&h.compared, &t.compared), (Some(a), Some(b)) if a != b)
                }
                // A payload field one report has and the other lacks.
                _ => has_payload && name.starts_with("payload."),
            };
            Pair {
                name: name.to_owned(),
                held: h.map(|f| f.value),
                theirs: t.map(|f| f.value),
                differs,
            }
        })
        .collect()
}

/// The top-level fields of a callback line's `payload`, read from its raw bytes.
pub fn payload_of(raw: Option<(Vec<u8>, i64)>) -> Payload {
    let Some((bytes, len)) = raw else {
        return Payload::Unread("the line is not in the ledger".to_owned());
    };
    if usize::try_from(len).is_ok_and(|len| len > bytes.len()) {
        return Payload::Unread(format!("not read: the line is {len} bytes long"));
    }
    let Ok(serde_json::Value::Object(line)) = serde_json::from_slice::<serde_json::Value>(&bytes)
    else {
        return Payload::Unread("not read: the line is not a JSON object".to_owned());
    };
    match line.get("payload") {
        None | Some(serde_json::Value::Null) => Payload::None,
        Some(serde_json::Value::Object(fields)) => Payload::Fields(
            fields
                .iter()
                .map(|(name, value)| (name.clone(), value.to_string()))
                .collect(),
        ),
        Some(other) => Payload::Fields(vec![(String::new(), other.to_string())]),
    }
}
