//! Issue 12: a job decided under more than one decision id, and a job id submitted
//! again with another identity. What ingest keeps, what the timeline shows, and what
//! reconciliation lists.

mod support;

use jobledger::store::{Ledger, TimelineFact};
use support::fixture::TempLedger;

/// The issue's own example: j1 submitted twice with different inputs, decided as
/// d1 (pay), d2 (refund), then d1 again.
const ISSUE: &str = r#"{"event":"job_accepted","job_id":"j1","at":"2026-11-27T10:00:00Z","input_digest":"sha256:a"}
{"event":"job_accepted","job_id":"j1","at":"2026-11-27T10:00:09Z","input_digest":"sha256:b"}
{"event":"decision","decision_id":"d1","job_id":"j1","action":"pay","at":"2026-11-27T10:05:00Z"}
{"event":"decision","decision_id":"d2","job_id":"j1","action":"refund","at":"2026-11-27T10:06:00Z"}
{"event":"decision","decision_id":"d1","job_id":"j1","action":"pay","at":"2026-11-27T10:07:00Z"}
"#;

fn accepted(job: &str, at: &str, identity: &str) -> String {
    format!(r#"{{"event":"job_accepted","job_id":"{job}","at":"2026-11-27T{at}Z"{identity}}}"#)
}

fn decision(id: &str, job: &str, action: &str, at: &str, route: Option<&str>) -> String {
    let route = route.map_or_else(String::new, |r| format!(r#","route":"{r}""#));
    format!(
        r#"{{"event":"decision","decision_id":"{id}","job_id":"{job}","action":"{action}","at":"2026-11-27T{at}Z"{route}}}"#
    )
}

fn stream(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn rejected_reasons(ledger: &Ledger) -> Vec<String> {
    ledger
        .rejected_lines(100)
        .unwrap()
        .into_iter()
        .map(|r| r.reason)
        .collect()
}

#[test]
fn a_resubmission_with_the_same_identity_is_the_quiet_repeat_it_always_was() {
    let mut t = TempLedger::new();
    let identity = r#","input_digest":"sha256:a","model_digest":"m1","policy_revision":"r7""#;
    t.ingest(&stream(&[
        accepted("j1", "10:00:00", identity),
        accepted("j1", "10:00:09", identity),
    ]));
    let reasons = rejected_reasons(&t.ledger);
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].ends_with("a repeated submission keeps its first identity"),
        "{reasons:?}"
    );
    assert!(t.ledger.conflicting_submissions().unwrap().is_empty());
}

#[test]
fn a_resubmission_that_omits_a_field_does_not_conflict() {
    let mut t = TempLedger::new();
    t.ingest(&stream(&[
        accepted("j1", "10:00:00", r#","input_digest":"sha256:a","model_digest":"m1""#),
        accepted("j1", "10:00:09", r#","policy_revision":"r8","model_digest":"m1""#),
        accepted("j1", "10:00:19", ""),
    ]));
    let reasons = rejected_reasons(&t.ledger);
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons.iter().all(|r| !r.starts_with("conflicting_submission")), "{reasons:?}");
    assert!(t.ledger.conflicting_submissions().unwrap().is_empty());
}

#[test]
fn a_resubmission_with_another_digest_is_kept_as_a_conflict_naming_both_values() {
    let mut t = TempLedger::new();
    t.ingest(ISSUE);
    let reasons = rejected_reasons(&t.ledger);
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(reasons[0].starts_with("conflicting_submission"), "{reasons:?}");
    assert!(
        reasons[0].contains(r#"input_digest "sha256:a" first, "sha256:b" now"#),
        "{reasons:?}"
    );
    let conflicts = t.ledger.conflicting_submissions().unwrap();
    assert_eq!(conflicts.len(), 1);
    let c = &conflicts[0];
    assert_eq!(c.job_id, "j1");
    assert_eq!(c.first.input_digest.as_deref(), Some("sha256:a"));
    assert_eq!(c.conflicting.len(), 1);
    assert_eq!(c.conflicting[0].input_digest.as_deref(), Some("sha256:b"));
    assert!(c.conflicting[0].line_seq > c.first.line_seq);
}

#[test]
fn a_decision_keeps_its_route() {
    let mut t = TempLedger::new();
    t.ingest(&stream(&[
        accepted("j1", "10:00:00", ""),
        decision("d1", "j1", "pay", "10:05:00", Some("eu-west")),
        decision("d2", "j1", "pay", "10:06:00", None),
    ]));
    let found = t.ledger.divergent_decisions().unwrap();
    let routes: Vec<_> = found[0].decisions.iter().map(|d| d.route.clone()).collect();
    assert_eq!(routes, [Some("eu-west".to_owned()), None]);
}

#[test]
fn the_timeline_shows_every_decision_and_every_submission() {
    let mut t = TempLedger::new();
    t.ingest(ISSUE);
    t.ingest(&accepted("j1", "10:00:30", r#","input_digest":"sha256:a""#));
    let timeline = t.ledger.timeline("j1").unwrap();
    let decisions: Vec<(String, bool)> = timeline
        .iter()
        .filter_map(|e| match &e.fact {
            TimelineFact::Decision {
                decision_id,
                suppressed,
                ..
            } => Some((decision_id.clone(), *suppressed)),
            _ => None,
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("d1".to_owned(), false),
            ("d2".to_owned(), false),
            ("d1".to_owned(), true)
        ]
    );
    let submissions: Vec<Option<bool>> = timeline
        .iter()
        .filter_map(|e| match &e.fact {
            TimelineFact::Submitted { conflicting, .. } => Some(*conflicting),
            _ => None,
        })
        .collect();
    assert_eq!(submissions, [None, Some(true), Some(false)]);
}
