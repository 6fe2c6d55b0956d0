//! The event stream of SPEC sec. 3: one NDJSON line in, one [`Parsed`] value out.
//!
//! Parsing never fails in the Rust sense: a line that cannot be read is a value
//! ([`Parsed::Unparseable`] or [`Parsed::Rejected`]) that ingest keeps with its reason.

use serde_json::{Map, Value};

use crate::clock::Timestamp;
use crate::decision::{Outcome, Unusable};

/// A job entering the ledger; opens attempt 1.
#[derive(Debug, Clone, PartialEq)]
pub struct JobAccepted {
    pub job_id: String,
    pub at: Timestamp,
    pub input_digest: Option<String>,
    pub model_digest: Option<String>,
    pub policy_revision: Option<String>,
    pub timeout_s: Option<i64>,
    pub expected_age_s: Option<i64>,
    pub attempt_budget: Option<i64>,
    pub owner: Option<String>,
}

/// A well-formed event other than a callback.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    JobAccepted(JobAccepted),
    AttemptStarted {
        job_id: String,
        attempt: i64,
        at: Timestamp,
        created_by: String,
        timeout_at: Option<Timestamp>,
    },
    AttemptTimedOut {
        job_id: String,
        attempt: i64,
        at: Timestamp,
    },
    JobCancelled {
        job_id: String,
        at: Timestamp,
        by: String,
    },
    JobSucceeded {
        job_id: String,
        attempt: i64,
        at: Timestamp,
        result_ref: String,
    },
    JobFailed {
        job_id: String,
        attempt: i64,
        at: Timestamp,
        cause: String,
        permanent: Option<bool>,
    },
    JobExpired {
        job_id: String,
        at: Timestamp,
    },
    OutputStored {
        job_id: String,
        reference: String,
        at: Timestamp,
        retention_until: Option<Timestamp>,
    },
    OutputChecked {
        job_id: String,
        at: Timestamp,
        exists: bool,
    },
    NotificationSent {
        job_id: String,
        kind: String,
        at: Timestamp,
    },
    Decision {
        decision_id: String,
        job_id: String,
        action: String,
        at: Timestamp,
    },
}

impl Event {
    /// The `event` name of this kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::JobAccepted(_) => "job_accepted",
            Event::AttemptStarted { .. } => "attempt_started",
            Event::AttemptTimedOut { .. } => "attempt_timed_out",
            Event::JobCancelled { .. } => "job_cancelled",
            Event::JobSucceeded { .. } => "job_succeeded",
            Event::JobFailed { .. } => "job_failed",
            Event::JobExpired { .. } => "job_expired",
            Event::OutputStored { .. } => "output_stored",
            Event::OutputChecked { .. } => "output_checked",
            Event::NotificationSent { .. } => "notification_sent",
            Event::Decision { .. } => "decision",
        }
    }

    /// The job this event is about.
    pub fn job_id(&self) -> &str {
        match self {
            Event::JobAccepted(accepted) => &accepted.job_id,
            Event::AttemptStarted { job_id, .. }
            | Event::AttemptTimedOut { job_id, .. }
            | Event::JobCancelled { job_id, .. }
            | Event::JobSucceeded { job_id, .. }
            | Event::JobFailed { job_id, .. }
            | Event::JobExpired { job_id, .. }
            | Event::OutputStored { job_id, .. }
            | Event::OutputChecked { job_id, .. }
            | Event::NotificationSent { job_id, .. }
            | Event::Decision { job_id, .. } => job_id,
        }
    }
}

/// A callback as reported, before it is judged against the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackReport {
    pub delivery_id: Option<String>,
    pub job_id: Option<String>,
    /// The attempt reported on; a callback that names none reports on attempt 1.
    pub attempt: i64,
    pub outcome: Option<Outcome>,
    /// Arrival time.
    pub at: Option<Timestamp>,
    /// Why this report cannot be judged, found from the line alone, in table order.
    pub problems: Vec<(Unusable, String)>,
}

impl CallbackReport {
    /// The first reason this report cannot be judged, if any.
    pub fn problem(&self) -> Option<&(Unusable, String)> {
        self.problems.first()
    }
}

/// What one input line turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Event(Event),
    Callback(CallbackReport),
    /// A known event other than a callback, malformed: kept with the reason.
    Rejected {
        kind: &'static str,
        reason: String,
    },
    /// Not a JSON object with a known `event`: quarantined with the parse error.
    Unparseable {
        reason: String,
    },
}

const KINDS: [&str; 12] = [
    "job_accepted",
    "attempt_started",
    "attempt_timed_out",
    "job_cancelled",
    "job_succeeded",
    "job_failed",
    "job_expired",
    "output_stored",
    "output_checked",
    "notification_sent",
    "decision",
    "callback",
];

/// Reads one line (without its line terminator; a trailing CR and a leading UTF-8
/// byte order mark are tolerated, as RFC 8259 allows).
pub fn parse_line(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let object = match serde_json::from_slice(line) {
        Ok(TopLevel::Object(object)) => object,
        Ok(TopLevel::DuplicateKey(key)) => {
            return Parsed::Unparseable {
                reason: format!(
                    "the field {key:?} is given more than once; which value is meant cannot be told, so the line is not read"
                ),
            };
        }
        Ok(TopLevel::Other) => {
            return Parsed::Unparseable {
                reason: "not a JSON object".to_owned(),
            };
        }
        Err(error) => {
            return Parsed::Unparseable {
                reason: format!("not valid JSON: {error}"),
            };
        }
    };
    let kind = match object.get("event") {
        Some(Value::String(name)) => match KINDS.iter().find(|k| **k == name.as_str()) {
            Some(kind) => *kind,
            None => {
                return Parsed::Unparseable {
                    reason: format!("unknown event {name:?}"),
                };
            }
        },
        Some(_) => {
            return Parsed::Unparseable {
                reason: "field `event` is not a string".to_owned(),
            };
        }
        None => {
            return Parsed::Unparseable {
                reason: "no `event` field".to_owned(),
            };
        }
    };
    let fields = Fields(&object);
    if kind == "callback" {
        return Parsed::Callback(callback(&fields));
    }
    match event(kind, &fields) {
        Ok(event) => Parsed::Event(event),
        Err(reason) => Parsed::Rejected { kind, reason },
    }
}

fn event(kind: &str, f: &Fields<'_>) -> Result<Event, String> {
    let job_id = f.text("job_id")?;
    Ok(match kind {
        "job_accepted" => Event::JobAccepted(JobAccepted {
            job_id,
            at: f.time("at")?,
            input_digest: f.opt_text("input_digest")?,
            model_digest: f.opt_text("model_digest")?,
            policy_revision: f.opt_text("policy_revision")?,
            timeout_s: f.opt_count("timeout_s")?,
            expected_age_s: f.opt_count("expected_age_s")?,
            attempt_budget: f.opt_count("attempt_budget")?,
            owner: f.opt_text("owner")?,
        }),
        "attempt_started" => Event::AttemptStarted {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
            created_by: creator(f.opt_text("created_by")?)?,
            timeout_at: f.opt_time("timeout_at")?,
        },
        "attempt_timed_out" => Event::AttemptTimedOut {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
        },
        "job_cancelled" => Event::JobCancelled {
            job_id,
            at: f.time("at")?,
            by: f.text("by")?,
        },
        "job_succeeded" => Event::JobSucceeded {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
            result_ref: f.text("result_ref")?,
        },
        "job_failed" => Event::JobFailed {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
            cause: f.text("cause")?,
            permanent: f.opt_bool("permanent")?,
        },
        "job_expired" => Event::JobExpired {
            job_id,
            at: f.time("at")?,
        },
        "output_stored" => Event::OutputStored {
            job_id,
            reference: f.text("ref")?,
            at: f.time("at")?,
            retention_until: f.opt_time("retention_until")?,
        },
        "output_checked" => Event::OutputChecked {
            job_id,
            at: f.time("at")?,
            exists: f.opt_bool("exists")?.ok_or("field `exists` is missing")?,
        },
        "notification_sent" => Event::NotificationSent {
            job_id,
            kind: f.text("kind")?,
            at: f.time("at")?,
        },
        "decision" => Event::Decision {
            decision_id: f.text("decision_id")?,
            job_id,
            action: f.text("action")?,
            at: f.time("at")?,
        },
        other => return Err(format!("unknown event {other:?}")),
    })
}

fn creator(created_by: Option<String>) -> Result<String, String> {
    match created_by {
        None => Ok("system".to_owned()),
        Some(who) if who == "system" => Ok(who),
        Some(who)
            if who
                .strip_prefix("staff:")
                .is_some_and(|name| !name.is_empty()) =>
        {
            Ok(who)
        }
        Some(who) => Err(format!(
            "field `created_by` must be \"system\" or \"staff:NAME\", not {who:?}"
        )),
    }
}

fn callback(f: &Fields<'_>) -> CallbackReport {
    let mut problems = Vec::new();
    let mut note = |why: Unusable, detail: String| problems.push((why, detail));
    let at = f
        .time("at")
        .map_err(|e| note(Unusable::Unparseable, e))
        .ok();
    let delivery_id = f
        .opt_text("delivery_id")
        .map_err(|e| note(Unusable::Unparseable, e))
        .ok()
        .flatten();
    let job_id = match f.opt_text("job_id") {
        Ok(Some(id)) if !id.trim().is_empty() => Some(id),
        Ok(_) => {
            note(Unusable::MissingJobId, "no `job_id`".to_owned());
            None
        }
        Err(e) => {
            note(Unusable::MissingJobId, e);
            None
        }
    };
    let outcome = match f.0.get("outcome") {
        Some(Value::String(name)) => {
            let outcome = Outcome::parse(name);
            if outcome.is_none() {
                note(
                    Unusable::InvalidOutcome,
                    format!("outcome {name:?} is neither \"success\" nor \"failure\""),
                );
            }
            outcome
        }
        Some(_) => {
            note(
                Unusable::InvalidOutcome,
                "field `outcome` is not a string".to_owned(),
            );
            None
        }
        None => {
            note(Unusable::InvalidOutcome, "no `outcome`".to_owned());
            None
        }
    };
    let attempt = match f.0.get("attempt") {
        None | Some(Value::Null) => 1,
        Some(_) => f.attempt().unwrap_or_else(|e| {
            note(Unusable::UnknownAttempt, e);
            0
        }),
    };
    CallbackReport {
        delivery_id,
        job_id,
        attempt,
        outcome,
        at,
        problems,
    }
}

/// The top level of a line.
///
/// `serde_json::Value` keeps the last of two equal keys without a word, so
/// `{"job_id":"a","job_id":"b"}` would be read as job `b` by jobledger and as job `a`
/// by a tool that keeps the first: a way to smuggle a report past one of them. The
/// top-level object is therefore read here, with a repeated key noticed.
enum TopLevel {
    Object(Map<String, Value>),
    /// The first key given twice (the rest of the line is still checked as JSON).
    DuplicateKey(String),
    /// Valid JSON, but not an object.
    Other,
}

impl<'de> serde::Deserialize<'de> for TopLevel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

impl<'de> serde::de::Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut object = Map::new();
        let mut duplicate = None;
        while let Some(key) = map.next_key::<String>()? {
            if duplicate.is_some() {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else if object.contains_key(&key) {
                map.next_value::<serde::de::IgnoredAny>()?;
                duplicate = Some(key);
            } else {
                let value = map.next_value::<Value>()?;
                object.insert(key, value);
            }
        }
        Ok(duplicate.map_or(TopLevel::Object(object), TopLevel::DuplicateKey))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(TopLevel::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_unit<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }
}

/// Typed access to an event's fields, each error a sentence a person can act on.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn opt_text(&self, name: &str) -> Result<Option<String>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!(
                "field `{name}` must be a string, not {}",
                type_name(other)
            )),
        }
    }

    fn text(&self, name: &str) -> Result<String, String> {
        match self.opt_text(name)? {
            Some(text) if !text.trim().is_empty() => Ok(text),
            Some(_) => Err(format!("field `{name}` is empty")),
            None => Err(format!("field `{name}` is missing")),
        }
    }

    fn opt_time(&self, name: &str) -> Result<Option<Timestamp>, String> {
        match self.opt_text(name)? {
            None => Ok(None),
            Some(text) => Timestamp::parse(&text)
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "field `{name}` is not an RFC 3339 time in the years 0000 to 9999 (UTC): {text:?}"
                    )
                }),
        }
    }

    fn time(&self, name: &str) -> Result<Timestamp, String> {
        self.opt_time(name)?
            .ok_or_else(|| format!("field `{name}` is missing"))
    }

    fn opt_count(&self, name: &str) -> Result<Option<i64>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(count) if count > 0 => Ok(Some(count)),
                _ => Err(format!(
                    "field `{name}` must be a positive whole number, not {n}"
                )),
            },
            Some(other) => Err(format!(
                "field `{name}` must be a number, not {}",
                type_name(other)
            )),
        }
    }

    fn attempt(&self) -> Result<i64, String> {
        let attempt = self
            .opt_count("attempt")?
            .ok_or("field `attempt` is missing")?;
        if attempt > i64::from(u32::MAX) {
            return Err(format!("field `attempt` is implausibly large: {attempt}"));
        }
        Ok(attempt)
    }

    fn opt_bool(&self, name: &str) -> Result<Option<bool>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(format!(
                "field `{name}` must be true or false, not {}",
                type_name(other)
            )),
        }
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parsed {
        parse_line(text.as_bytes())
    }

    #[test]
    fn reads_a_callback_and_defaults_to_attempt_one() {
        let Parsed::Callback(cb) = parse(
            r#"{"event":"callback","job_id":"b-1","outcome":"success","at":"2026-11-27T13:04:13Z"}"#,
        ) else {
            panic!("not a callback")
        };
        assert_eq!(cb.job_id.as_deref(), Some("b-1"));
        assert_eq!(cb.attempt, 1);
        assert_eq!(cb.outcome, Some(Outcome::Success));
        assert!(cb.problems.is_empty());
    }

    #[test]
    fn callback_problems_name_the_table_reason() {
        let cases = [
            (
                r#"{"event":"callback","outcome":"success","at":"2026-11-27T13:04:13Z"}"#,
                Unusable::MissingJobId,
            ),
            (
                r#"{"event":"callback","job_id":"b","outcome":"maybe","at":"2026-11-27T13:04:13Z"}"#,
                Unusable::InvalidOutcome,
            ),
            (
                r#"{"event":"callback","job_id":"b","outcome":"success","at":"noon"}"#,
                Unusable::Unparseable,
            ),
            (
                r#"{"event":"callback","job_id":"b","attempt":"two","outcome":"success","at":"2026-11-27T13:04:13Z"}"#,
                Unusable::UnknownAttempt,
            ),
        ];
        for (line, expected) in cases {
            let Parsed::Callback(cb) = parse(line) else {
                panic!("not a callback: {line}")
            };
            assert_eq!(cb.problem().map(|p| p.0), Some(expected), "{line}");
        }
    }

    #[test]
    fn lines_without_a_known_event_are_unparseable() {
        for line in [
            "",
            "not json",
            "[1,2]",
            r#"{"event":"party"}"#,
            r#"{"job_id":"x"}"#,
            r#"{"event":7}"#,
        ] {
            assert!(matches!(parse(line), Parsed::Unparseable { .. }), "{line}");
        }
    }

    #[test]
    fn malformed_known_events_are_rejected_with_a_reason() {
        let Parsed::Rejected { kind, reason } = parse(
            r#"{"event":"attempt_started","job_id":"b","attempt":0,"at":"2026-11-27T13:00:00Z"}"#,
        ) else {
            panic!("expected a rejection")
        };
        assert_eq!(kind, "attempt_started");
        assert!(reason.contains("attempt"), "{reason}");
    }

    #[test]
    fn staff_creators_need_a_name() {
        let line = r#"{"event":"attempt_started","job_id":"b","attempt":2,"at":"2026-11-27T13:00:00Z","created_by":"staff:"}"#;
        assert!(matches!(parse(line), Parsed::Rejected { .. }));
    }
}
