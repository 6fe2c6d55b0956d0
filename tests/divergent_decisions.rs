//! A job decided under more than one decision id, and a job id submitted
//! again with another identity. What ingest keeps, what the timeline shows, and what
//! reconciliation lists.

mod support;

use jobledger::console::App;
use jobledger::filter::{Query, Scope};
use jobledger::reconcile::account;
use jobledger::store::{Finding, Keyset, Ledger, PageRequest, TimelineFact};
use ratatui::crossterm::event::KeyCode;
use support::binary::Workdir;
use support::fixture::{TempLedger, now};
use support::terminal::{key, open_app_at, open_finding};

/// Both divergences in one small stream: j1 submitted twice with different inputs,
/// decided as d1 (pay), d2 (refund), then d1 again.
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
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Each rejected line as `code: sentence`.
fn rejected_reasons(ledger: &Ledger) -> Vec<String> {
    ledger
        .rejected_lines(100)
        .unwrap()
        .into_iter()
        .map(|r| format!("{}: {}", r.code, r.reason))
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
        accepted(
            "j1",
            "10:00:00",
            r#","input_digest":"sha256:a","model_digest":"m1""#,
        ),
        accepted(
            "j1",
            "10:00:09",
            r#","policy_revision":"r8","model_digest":"m1""#,
        ),
        accepted("j1", "10:00:19", ""),
    ]));
    let reasons = rejected_reasons(&t.ledger);
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons
            .iter()
            .all(|r| !r.starts_with("conflicting_submission")),
        "{reasons:?}"
    );
    assert!(t.ledger.conflicting_submissions().unwrap().is_empty());
}

#[test]
fn a_resubmission_with_another_digest_is_kept_as_a_conflict_naming_both_values() {
    let mut t = TempLedger::new();
    t.ingest(ISSUE);
    let reasons = rejected_reasons(&t.ledger);
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].starts_with("conflicting_submission"),
        "{reasons:?}"
    );
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
    // A whole line, its LF included: a last line with no LF is not taken.
    t.ingest(&(accepted("j1", "10:00:30", r#","input_digest":"sha256:a""#) + "\n"));
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

/// Job ids of the divergent-decision finding, as the detail list has them.
fn divergent(ledger: &Ledger) -> Vec<(String, bool)> {
    ledger
        .divergent_decisions()
        .unwrap()
        .into_iter()
        .map(|j| (j.job_id, j.actions_agree))
        .collect()
}

#[test]
fn two_decision_ids_for_one_job_diverge_whether_or_not_the_actions_agree() {
    let mut t = TempLedger::new();
    t.ingest(&stream(&[
        accepted("same", "10:00:00", ""),
        accepted("differ", "10:00:01", ""),
        accepted("once", "10:00:02", ""),
        decision("s1", "same", "pay", "10:05:00", None),
        decision("s2", "same", "pay", "10:06:00", None),
        decision("d1", "differ", "pay", "10:05:00", None),
        decision("d2", "differ", "refund", "10:06:00", None),
        decision("o1", "once", "pay", "10:05:00", None),
    ]));
    assert_eq!(
        divergent(&t.ledger),
        [("differ".to_owned(), false), ("same".to_owned(), true)]
    );
}

#[test]
fn a_repeated_decision_id_is_suppressed_not_divergent() {
    let mut t = TempLedger::new();
    t.ingest(&stream(&[
        accepted("j1", "10:00:00", ""),
        decision("d1", "j1", "pay", "10:05:00", None),
        decision("d1", "j1", "pay", "10:07:00", None),
        decision("d1", "j1", "pay", "10:09:00", Some("us-east")),
    ]));
    assert!(divergent(&t.ledger).is_empty());
    assert_eq!(t.ledger.decisions_suppressed().unwrap(), 2);
    let accounts = account(&t.ledger, 3600, usize::MAX, None).unwrap();
    assert_eq!(accounts.divergent_decisions.count, 0);
}

#[test]
fn decisions_across_a_retry_and_across_routes_diverge_with_their_routes_in_time_order() {
    let mut t = TempLedger::new();
    t.ingest(&stream(&[
        accepted("b-7", "10:00:00", r#","timeout_s":120"#),
        r#"{"event":"attempt_started","job_id":"b-7","attempt":1,"at":"2026-11-27T10:00:01Z"}"#
            .to_owned(),
        decision(
            "b-7-eu",
            "b-7",
            "charge_deposit",
            "10:01:00",
            Some("eu-west"),
        ),
        r#"{"event":"attempt_timed_out","job_id":"b-7","attempt":1,"at":"2026-11-27T10:02:01Z"}"#
            .to_owned(),
        r#"{"event":"attempt_started","job_id":"b-7","attempt":2,"at":"2026-11-27T10:03:00Z"}"#
            .to_owned(),
        decision(
            "b-7-us",
            "b-7",
            "charge_deposit",
            "10:04:00",
            Some("us-east"),
        ),
    ]));
    let found = t.ledger.divergent_decisions().unwrap();
    assert_eq!(found.len(), 1);
    let job = &found[0];
    assert!(job.actions_agree);
    let seen: Vec<(&str, Option<&str>)> = job
        .decisions
        .iter()
        .map(|d| (d.decision_id.as_str(), d.route.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [("b-7-eu", Some("eu-west")), ("b-7-us", Some("us-east"))]
    );
}

/// The jobs of a finding read a page at a time, as the console's drill-down reads them.
fn drilled(ledger: &Ledger, finding: Finding) -> Vec<String> {
    let query = Query::all(Scope::FindingJobs);
    let mut ids: Vec<String> = Vec::new();
    let mut keyset = Keyset::First;
    loop {
        let page = ledger
            .finding_jobs_page(finding, now(), &query, &PageRequest::at(keyset, 3))
            .unwrap();
        ids.extend(page.iter().map(|j| j.job_id.clone()));
        match page.last() {
            Some(last) if page.len() == 3 => keyset = Keyset::After(last.job_id.clone()),
            _ => return ids,
        }
    }
}

/// A stream with divergent and conflicting jobs spread over ids and windows, in an
/// order that is not the id order.
fn mixed() -> String {
    let mut lines = Vec::new();
    for (i, job) in ["k9", "a1", "m5", "b2", "z0", "c3", "y8"]
        .iter()
        .enumerate()
    {
        let at = format!("1{i}:00:00");
        lines.push(accepted(job, &at, r#","input_digest":"sha256:first""#));
        if i % 2 == 0 {
            lines.push(decision(
                &format!("{job}-1"),
                job,
                "pay",
                &format!("1{i}:01:00"),
                Some("eu-west"),
            ));
            lines.push(decision(
                &format!("{job}-2"),
                job,
                "pay",
                &format!("1{i}:02:00"),
                Some("us-east"),
            ));
        }
        if i % 3 == 0 {
            lines.push(accepted(
                job,
                &format!("1{i}:03:00"),
                r#","input_digest":"sha256:other""#,
            ));
        }
    }
    stream(&lines)
}

#[test]
fn the_walk_the_detail_lists_and_the_drill_down_name_the_same_jobs_in_id_order() {
    let mut t = TempLedger::new();
    t.ingest(&mixed());
    let accounts = account(&t.ledger, 3600, usize::MAX, None).unwrap();
    let details: Vec<String> = t
        .ledger
        .divergent_decisions()
        .unwrap()
        .into_iter()
        .map(|j| j.job_id)
        .collect();
    assert_eq!(details, ["k9", "m5", "y8", "z0"]);
    assert_eq!(accounts.divergent_decisions.first, details);
    assert_eq!(drilled(&t.ledger, Finding::DivergentDecisions), details);
    let conflicts: Vec<String> = t
        .ledger
        .conflicting_submissions()
        .unwrap()
        .into_iter()
        .map(|c| c.job_id)
        .collect();
    assert_eq!(conflicts, ["b2", "k9", "y8"]);
    assert_eq!(accounts.conflicting_submissions.first, conflicts);
    assert_eq!(
        drilled(&t.ledger, Finding::ConflictingSubmissions),
        conflicts
    );
    for finding in [Finding::DivergentDecisions, Finding::ConflictingSubmissions] {
        let count = t
            .ledger
            .finding_count_matching(finding, now(), &Query::all(Scope::FindingJobs))
            .unwrap();
        assert_eq!(
            usize::try_from(count).unwrap(),
            drilled(&t.ledger, finding).len()
        );
    }
    // Counted by submission window: each job in the window it was accepted in.
    let by_window: Vec<(i64, i64)> = accounts
        .windows
        .iter()
        .map(|w| (w.divergent_decisions, w.conflicting_submissions))
        .collect();
    assert_eq!(
        by_window,
        [(1, 1), (0, 0), (1, 0), (0, 1), (1, 0), (0, 0), (1, 1)]
    );
}

/// The job ids a text section lists: its lines indented by two, not four.
fn text_section(text: &str, heading: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with(heading))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("    "))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_owned())
        .collect()
}

fn json_ids(report: &serde_json::Value, key: &str) -> Vec<String> {
    report[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["job_id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every job the console lists for `finding`, walked with ↓ from the first.
fn console_ids(app: &mut App, finding: Finding) -> Vec<String> {
    open_finding(app, finding);
    let selected = |app: &App| app.model().list().and_then(|l| l.job()).unwrap().to_owned();
    let mut seen = vec![selected(app)];
    loop {
        key(app, KeyCode::Down);
        let job = selected(app);
        if seen.last() == Some(&job) {
            key(app, KeyCode::Esc);
            return seen;
        }
        seen.push(job);
    }
}

#[test]
fn the_text_report_the_json_and_the_console_list_the_same_jobs_in_id_order() {
    let w = Workdir::new();
    let stream = w.file("mixed.ndjson", mixed().as_bytes());
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let text = w.ok(&["reconcile"]);
    let json = w.json(&["reconcile", "--json"]);
    let mut app = open_app_at(&w.db, "ana", now());
    for (key_name, heading, finding) in [
        (
            "divergent_decisions",
            "divergent_decisions (",
            Finding::DivergentDecisions,
        ),
        (
            "conflicting_submissions",
            "conflicting_submissions (",
            Finding::ConflictingSubmissions,
        ),
    ] {
        let from_json = json_ids(&json, key_name);
        assert!(
            from_json.len() > 1 && from_json.is_sorted(),
            "{key_name}: {from_json:?}"
        );
        assert_eq!(
            text_section(&text, heading),
            from_json,
            "{key_name}: text\n{text}"
        );
        assert_eq!(
            console_ids(&mut app, finding),
            from_json,
            "{key_name}: console"
        );
    }
    // Counted by submission window, in the JSON as in the walk.
    let by_window: i64 = json["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["divergent_decisions"].as_i64().unwrap())
        .sum();
    assert_eq!(by_window, 4);
}
