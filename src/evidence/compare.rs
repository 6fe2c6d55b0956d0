//! The comparison of a held callback, as plain data: the held report and what it
//! conflicts with (the other callbacks of the job and attempt, the attempt and its
//! timeout, the replacement attempt, the terminal record), field by field, and the
//! times the console's axis is drawn from. The console's pane (`C`) and the evidence
//! bundle show the same comparison, read by [`read`].

use crate::clock::{TimeForm, Timestamp, format_gap};
use crate::decision::{JobState, Outcome};
use crate::store::{AttemptRow, AttemptState, CallbackRow, JobRow, Ledger, StoreError};

/// Callbacks of the job read beside the held one, at most (a job has a handful).
pub const NEIGHBOURS: usize = 50;

/// The bytes of a raw line read for its payload, or shown: a longer line is named by
/// its length (the ledger keeps all of it).
pub const RAW_SHOWN_BYTES: usize = 16 * 1024;

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

/// Everything the comparison sets side by side, read at once ([`read`]).
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
}

/// Reads the held callback's job, attempts and other callbacks (the first
/// [`NEIGHBOURS`]), with their payloads.
pub fn read(ledger: &Ledger, held: CallbackRow) -> Result<Comparison, StoreError> {
    let report = |row: CallbackRow| -> Result<Report, StoreError> {
        let payload = payload_of(ledger.raw_head(row.line_seq, RAW_SHOWN_BYTES)?);
        Ok(Report { row, payload })
    };
    let (job, attempts, others) = match held.job_id.as_deref() {
        Some(job_id) => (
            ledger.job(job_id)?,
            ledger.attempts(job_id)?,
            ledger.callbacks_of_job(job_id, NEIGHBOURS)?,
        ),
        None => (None, Vec::new(), Vec::new()),
    };
    let others = others
        .into_iter()
        .filter(|c| c.seq != held.seq)
        .map(report)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Comparison {
        held: report(held)?,
        others,
        attempts,
        job,
    })
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
/// side lacks) or are the same (compared on both sides, equal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    pub name: String,
    pub held: Option<String>,
    pub theirs: Option<String>,
    pub differs: bool,
    pub same: bool,
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

fn report_side(title: String, report: &Report, times: TimeForm) -> Side {
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
                |t| format!("arrived {}", times.of(t)),
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
    /// The held callback, as the left side (times written in `times`).
    pub fn held_side(&self, times: TimeForm) -> Side {
        let row = &self.held.row;
        report_side(format!("held callback #{}", row.seq), &self.held, times)
    }

    /// The attempt the held callback reports on.
    pub fn held_attempt(&self) -> Option<&AttemptRow> {
        let n = self.held.row.attempt?;
        self.attempts.iter().find(|a| a.attempt == n)
    }

    /// What the held callback conflicts with, in the order a reviewer checks it: the
    /// other callbacks of the same attempt, then those of the job's other attempts
    /// (the replacement's first), the attempt and its timeout, each later attempt (the
    /// replacement), the terminal record. Times are written in `times`.
    pub fn counterparts(&self, times: TimeForm) -> Vec<Side> {
        let held_attempt = self.held.row.attempt;
        let mut sides: Vec<Side> = self
            .siblings()
            .into_iter()
            .map(|o| {
                report_side(
                    format!("callback #{} · {}", o.row.seq, self.relation(o)),
                    o,
                    times,
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
                (true, Some(at), _) => format!("timed out {}", times.of(at)),
                (true, None, Some(due)) => format!("due to time out {}", times.of(due)),
                (true, None, None) => "no timeout set".to_owned(),
                (false, _, _) => format!("started {}", times.of(attempt.started_at)),
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
                        format!("{} {}", job.state, times.of(job.state_changed_at)),
                    ),
                    Field::shown("result", result),
                ],
            });
        }
        sides
    }

    /// The job's other callbacks in the order they are set beside the held one: the
    /// same attempt's, then later attempts' (the replacement's), then the rest, each
    /// group in ingest order.
    pub fn siblings(&self) -> Vec<&Report> {
        let held = self.held.row.attempt;
        let group = |o: &&Report| match (o.row.attempt, held) {
            (a, h) if a == h => 0,
            (Some(a), Some(h)) if a > h => 1,
            _ => 2,
        };
        let mut siblings: Vec<&Report> = self.others.iter().collect();
        siblings.sort_by_key(|o| (group(o), o.row.seq));
        siblings
    }

    /// How another callback stands to the held one: `same job and attempt`,
    /// `attempt 2, the replacement`, `attempt 1, earlier`, `no attempt named`.
    fn relation(&self, other: &Report) -> String {
        match (other.row.attempt, self.held.row.attempt) {
            (a, h) if a == h => "same job and attempt".to_owned(),
            (Some(a), Some(h)) if a > h => format!("attempt {a}, the replacement"),
            (Some(a), Some(_)) => format!("attempt {a}, earlier"),
            (Some(a), None) => format!("attempt {a}"),
            (None, _) => "no attempt named".to_owned(),
        }
    }

    /// What the job's other callbacks report beside the held one, in one line and
    /// without deciding: what each reported, which payload fields it shares with the
    /// held one and whether each is the same or different (the held one's value
    /// first). `#41 (replacement, attempt 2): success; confirmation same "HX-20977"`
    /// reads as one effect reported twice; `ref differs "…/1" ≠ "…/2"` as two. Values are the payload's, raw: made inert when drawn.
    pub fn reading(&self) -> String {
        let siblings = self.siblings();
        if siblings.is_empty() {
            return "no other callback of this job to set beside it".to_owned();
        }
        let Payload::Fields(held) = &self.held.payload else {
            return format!(
                "{} other callback(s) of the job; this one's payload cannot be compared ({})",
                siblings.len(),
                match &self.held.payload {
                    Payload::Unread(why) => why.as_str(),
                    _ => "it has none",
                }
            );
        };
        let parts: Vec<String> = siblings
            .iter()
            .map(|o| {
                let relation = match (o.row.attempt, self.held.row.attempt) {
                    (a, h) if a == h => "same attempt".to_owned(),
                    (Some(a), Some(h)) if a > h => format!("replacement, attempt {a}"),
                    (Some(a), _) => format!("attempt {a}"),
                    (None, _) => "no attempt".to_owned(),
                };
                let who = format!(
                    "#{} ({relation}): {}",
                    o.row.seq,
                    o.row.outcome.map_or("no outcome", |x| x.as_str())
                );
                let Payload::Fields(theirs) = &o.payload else {
                    return format!("{who}, no payload to compare");
                };
                let mut said = Vec::new();
                for (name, value) in held {
                    let Some((_, other)) = theirs.iter().find(|(n, _)| n == name) else {
                        continue;
                    };
                    let name = if name.is_empty() { "payload" } else { name };
                    said.push(if other == value {
                        format!("{name} same {value}")
                    } else {
                        format!("{name} differs {value} ≠ {other}")
                    });
                }
                if said.is_empty() {
                    format!("{who}, no payload field in common")
                } else {
                    format!("{who}; {}", said.join(", "))
                }
            })
            .collect();
        parts.join("; ")
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
            let compared = match (&h, &t) {
                (Some(h), Some(t)) => h.compared.clone().zip(t.compared.clone()),
                _ => None,
            };
            let differs = match (&h, &t) {
                (Some(_), Some(_)) => compared.as_ref().is_some_and(|(a, b)| a != b),
                // A payload field one report has and the other lacks.
                _ => has_payload && name.starts_with("payload."),
            };
            Pair {
                name: name.to_owned(),
                held: h.map(|f| f.value),
                theirs: t.map(|f| f.value),
                differs,
                same: compared.is_some_and(|(a, b)| a == b),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Disposition, ReasonCode};
    use crate::store::CallbackRow;

    fn report(seq: i64, attempt: i64, payload: &[(&str, &str)]) -> Report {
        Report {
            row: CallbackRow {
                seq,
                line_seq: seq,
                delivery_id: None,
                job_id: Some("job-29".to_owned()),
                attempt: Some(attempt),
                outcome: Some(Outcome::Success),
                arrived_at: None,
                timeout_at: None,
                disposition: Disposition::Hold,
                reason: ReasonCode::PossibleDuplicateEffect,
                detail: None,
                first_report_seq: None,
                linked_from_seq: None,
                judged_at: Timestamp::parse("2026-11-27T13:00:00Z").unwrap(),
                replacement: None,
                answer: None,
                claim: None,
            },
            payload: Payload::Fields(
                payload
                    .iter()
                    .map(|(n, v)| ((*n).to_owned(), format!("{v:?}")))
                    .collect(),
            ),
        }
    }

    fn comparison(held: Report, others: Vec<Report>) -> Comparison {
        Comparison {
            held,
            others,
            attempts: Vec::new(),
            job: None,
        }
    }

    #[test]
    fn one_confirmation_reported_by_both_attempts_reads_as_the_same() {
        let c = comparison(
            report(2, 1, &[("confirmation", "HX-20977")]),
            vec![report(7, 2, &[("confirmation", "HX-20977")])],
        );
        assert_eq!(
            c.reading(),
            r#"#7 (replacement, attempt 2): success; confirmation same "HX-20977""#
        );
    }

    #[test]
    fn two_different_references_read_as_different_with_both_values() {
        let c = comparison(
            report(5, 1, &[("ref", "job-29/1"), ("note", "x")]),
            vec![
                report(9, 2, &[("ref", "job-29/2")]),
                report(4, 1, &[("other", "y")]),
            ],
        );
        // The same attempt's report first, then the replacement's.
        assert_eq!(
            c.reading(),
            "#4 (same attempt): success, no payload field in common; \
             #9 (replacement, attempt 2): success; ref differs \"job-29/1\" ≠ \"job-29/2\""
        );
        let titles: Vec<String> = c
            .counterparts(TimeForm::Readable(c.held.row.judged_at))
            .into_iter()
            .map(|s| s.title)
            .collect();
        assert_eq!(
            titles,
            [
                "callback #4 · same job and attempt",
                "callback #9 · attempt 2, the replacement"
            ]
        );
    }

    #[test]
    fn a_lone_callback_says_there_is_nothing_beside_it() {
        let c = comparison(report(2, 1, &[("ref", "a")]), Vec::new());
        assert_eq!(
            c.reading(),
            "no other callback of this job to set beside it"
        );
    }

    #[test]
    fn equal_compared_fields_are_marked_the_same() {
        let c = comparison(
            report(2, 1, &[("confirmation", "HX-1")]),
            vec![report(7, 2, &[("confirmation", "HX-1")])],
        );
        let now = TimeForm::Readable(c.held.row.judged_at);
        let pairs = pairs(&c.held_side(now), &c.counterparts(now)[0]);
        let find = |name: &str| pairs.iter().find(|p| p.name == name).unwrap();
        assert!(find("payload.confirmation").same && !find("payload.confirmation").differs);
        assert!(find("attempt").differs && !find("attempt").same);
        assert!(!find("time").same && !find("time").differs);
    }
}
