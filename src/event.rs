//! The event stream of SPEC sec. 3: one NDJSON line in, one [`Parsed`] value out.
//!
//! Parsing never fails in the Rust sense: a line that cannot be read is a value
//! ([`Parsed::Unparseable`] or [`Parsed::Rejected`]) that ingest keeps with its reason.

use serde_json::Value;

use crate::clock::Timestamp;
use crate::closed_set::closed_set;
use crate::decision::{Outcome, Rejection, RejectionCode, Unusable};

mod fields;
mod top_level;

use fields::Fields;
use top_level::TopLevel;

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

closed_set! {
    /// The kinds of event other than a callback, by their `event` name.
    pub enum EventKind("event") {
        JobAccepted,
        AttemptStarted,
        AttemptTimedOut,
        JobCancelled,
        JobSucceeded,
        JobFailed,
        JobExpired,
        OutputStored,
        OutputChecked,
        NotificationSent,
        Decision,
    }
}

/// The `event` name of a callback, read by its own rules (SPEC sec. 2).
pub const CALLBACK: &str = "callback";

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
        /// The region or path that produced it.
        route: Option<String>,
    },
}

impl Event {
    /// The kind of this event (its `event` name).
    pub fn kind(&self) -> EventKind {
        match self {
            Event::JobAccepted(_) => EventKind::JobAccepted,
            Event::AttemptStarted { .. } => EventKind::AttemptStarted,
            Event::AttemptTimedOut { .. } => EventKind::AttemptTimedOut,
            Event::JobCancelled { .. } => EventKind::JobCancelled,
            Event::JobSucceeded { .. } => EventKind::JobSucceeded,
            Event::JobFailed { .. } => EventKind::JobFailed,
            Event::JobExpired { .. } => EventKind::JobExpired,
            Event::OutputStored { .. } => EventKind::OutputStored,
            Event::OutputChecked { .. } => EventKind::OutputChecked,
            Event::NotificationSent { .. } => EventKind::NotificationSent,
            Event::Decision { .. } => EventKind::Decision,
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
    /// The report of a line that is not a JSON object with a known event: no
    /// facts, one problem.
    pub fn unparseable(reason: &str) -> Self {
        CallbackReport {
            delivery_id: None,
            job_id: None,
            attempt: 0,
            outcome: None,
            at: None,
            problems: vec![(Unusable::Unparseable, reason.to_owned())],
        }
    }

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
        kind: EventKind,
        reason: Rejection,
    },
    /// Not a JSON object with a known `event`: quarantined with the parse error.
    Unparseable {
        reason: String,
    },
}

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
    let fields = Fields(&object);
    let kind = match object.get("event") {
        Some(Value::String(name)) if name == CALLBACK => {
            return Parsed::Callback(callback(&fields));
        }
        Some(Value::String(name)) => match EventKind::parse(name) {
            Some(kind) => kind,
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
    match event(kind, &fields) {
        Ok(event) => Parsed::Event(event),
        Err(sentence) => Parsed::Rejected {
            kind,
            reason: Rejection::new(RejectionCode::Malformed, sentence),
        },
    }
}

fn event(kind: EventKind, f: &Fields<'_>) -> Result<Event, String> {
    let job_id = f.id("job_id")?;
    Ok(match kind {
        EventKind::JobAccepted => Event::JobAccepted(JobAccepted {
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
        EventKind::AttemptStarted => Event::AttemptStarted {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
            created_by: creator(f.opt_text("created_by")?)?,
            timeout_at: f.opt_time("timeout_at")?,
        },
        EventKind::AttemptTimedOut => Event::AttemptTimedOut {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
        },
        EventKind::JobCancelled => Event::JobCancelled {
            job_id,
            at: f.time("at")?,
            by: f.text("by")?,
        },
        EventKind::JobSucceeded => Event::JobSucceeded {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
            result_ref: f.text("result_ref")?,
        },
        EventKind::JobFailed => Event::JobFailed {
            job_id,
            attempt: f.attempt()?,
            at: f.time("at")?,
            cause: f.text("cause")?,
            permanent: f.opt_bool("permanent")?,
        },
        EventKind::JobExpired => Event::JobExpired {
            job_id,
            at: f.time("at")?,
        },
        EventKind::OutputStored => Event::OutputStored {
            job_id,
            reference: f.text("ref")?,
            at: f.time("at")?,
            retention_until: f.opt_time("retention_until")?,
        },
        EventKind::OutputChecked => Event::OutputChecked {
            job_id,
            at: f.time("at")?,
            exists: f.opt_bool("exists")?.ok_or("field `exists` is missing")?,
        },
        EventKind::NotificationSent => Event::NotificationSent {
            job_id,
            kind: f.text("kind")?,
            at: f.time("at")?,
        },
        EventKind::Decision => Event::Decision {
            decision_id: f.id("decision_id")?,
            job_id,
            action: f.text("action")?,
            at: f.time("at")?,
            route: f.opt_text("route")?,
        },
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
        .opt_id("delivery_id")
        .map_err(|e| note(Unusable::Unparseable, e))
        .ok()
        .flatten();
    let job_id = match f.opt_id("job_id") {
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
        assert_eq!(kind, EventKind::AttemptStarted);
        assert_eq!(reason.code, RejectionCode::Malformed);
        assert!(reason.sentence.contains("attempt"), "{reason}");
    }

    #[test]
    fn ids_hold_no_nul_and_at_most_1024_bytes() {
        let accepted = |id: &str| {
            parse(&format!(
                r#"{{"event":"job_accepted","job_id":"{id}","at":"2026-11-27T13:00:00Z"}}"#
            ))
        };
        assert!(matches!(accepted(&"j".repeat(1024)), Parsed::Event(_)));
        let Parsed::Rejected { reason, .. } = accepted(&"j".repeat(1025)) else {
            panic!("expected a rejection")
        };
        assert_eq!(reason.code, RejectionCode::Malformed);
        assert!(reason.sentence.contains("at most 1024 bytes"), "{reason}");
        let Parsed::Rejected { reason, .. } = accepted("a\\u0000b") else {
            panic!("expected a rejection")
        };
        assert!(reason.sentence.contains("NUL"), "{reason}");

        let Parsed::Callback(report) = parse(
            r#"{"event":"callback","job_id":"a\u0000b","outcome":"success","at":"2026-11-27T13:00:00Z"}"#,
        ) else {
            panic!("expected a callback")
        };
        assert_eq!(report.job_id, None);
        let (why, detail) = report.problem().expect("a problem");
        assert_eq!(*why, Unusable::MissingJobId);
        assert!(detail.contains("NUL"), "{detail}");
    }

    #[test]
    fn a_decision_takes_an_optional_route_of_text() {
        let at = r#""decision_id":"d1","job_id":"b","action":"pay","at":"2026-11-27T13:00:00Z""#;
        let Parsed::Event(Event::Decision { route, .. }) =
            parse(&format!(r#"{{"event":"decision",{at},"route":"eu-west"}}"#))
        else {
            panic!("expected a decision")
        };
        assert_eq!(route.as_deref(), Some("eu-west"));
        let Parsed::Event(Event::Decision { route, .. }) =
            parse(&format!(r#"{{"event":"decision",{at}}}"#))
        else {
            panic!("expected a decision")
        };
        assert_eq!(route, None);
        let Parsed::Rejected { reason, .. } =
            parse(&format!(r#"{{"event":"decision",{at},"route":7}}"#))
        else {
            panic!("a route that is not text is refused")
        };
        assert!(reason.sentence.contains("route"), "{reason}");
    }

    #[test]
    fn staff_creators_need_a_name() {
        let line = r#"{"event":"attempt_started","job_id":"b","attempt":2,"at":"2026-11-27T13:00:00Z","created_by":"staff:"}"#;
        assert!(matches!(parse(line), Parsed::Rejected { .. }));
    }
}
