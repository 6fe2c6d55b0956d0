//! A person answers a job's divergent decisions, from the command line and
//! from the console; the answer shows beside the finding, and an answer closes it
//! unless it is `needs_remote_check`.

mod support;

use jobledger::console::App;
use jobledger::review::decisions::{DecisionAnswerError, DecisionAnswerRequest, answer_decisions};
use jobledger::store::{Finding, Ledger};
use ratatui::crossterm::event::KeyCode;
use support::binary::Workdir;
use support::fixture::{TempLedger, now};
use support::terminal::{key, open_app_at, open_finding, render_at, type_text};

/// Two jobs decided twice (`b`, `a`), one decided once (`c`).
const DECIDED_TWICE: &str = r#"{"event":"job_accepted","job_id":"b","at":"2026-11-27T10:00:00Z"}
{"event":"job_accepted","job_id":"a","at":"2026-11-27T10:01:00Z"}
{"event":"job_accepted","job_id":"c","at":"2026-11-27T10:02:00Z"}
{"event":"decision","decision_id":"b1","job_id":"b","action":"pay","at":"2026-11-27T10:05:00Z","route":"eu-west"}
{"event":"decision","decision_id":"b2","job_id":"b","action":"pay","at":"2026-11-27T10:06:00Z","route":"us-east"}
{"event":"decision","decision_id":"a1","job_id":"a","action":"pay","at":"2026-11-27T10:05:00Z"}
{"event":"decision","decision_id":"a2","job_id":"a","action":"refund","at":"2026-11-27T10:06:00Z"}
{"event":"decision","decision_id":"c1","job_id":"c","action":"pay","at":"2026-11-27T10:05:00Z"}
"#;

fn answer(
    ledger: &mut Ledger,
    job: &str,
    verdict: &str,
    seen: Option<i64>,
) -> Result<i64, DecisionAnswerError> {
    let request = DecisionAnswerRequest {
        job_id: job,
        verdict,
        note: "checked with payments",
        reviewer: "maria",
        seen_answer: seen,
    };
    answer_decisions(ledger, &request, now())
}

fn open_jobs(ledger: &Ledger) -> Vec<String> {
    ledger
        .divergent_decisions()
        .unwrap()
        .into_iter()
        .filter(jobledger::store::DivergentJob::open)
        .map(|j| j.job_id)
        .collect()
}

#[test]
fn an_answer_closes_a_divergent_job_and_needs_remote_check_leaves_it_open() {
    let mut t = TempLedger::new();
    t.ingest(DECIDED_TWICE);
    assert_eq!(open_jobs(&t.ledger), ["a", "b"]);
    let first = answer(&mut t.ledger, "a", "needs_remote_check", None).unwrap();
    assert_eq!(
        open_jobs(&t.ledger),
        ["a", "b"],
        "needs_remote_check keeps it open"
    );
    assert_eq!(t.ledger.divergent_decisions_closed().unwrap(), 0);
    answer(&mut t.ledger, "a", "second_stands", Some(first)).unwrap();
    assert_eq!(open_jobs(&t.ledger), ["b"]);
    assert_eq!(t.ledger.divergent_decisions_closed().unwrap(), 1);
    // Append-only: the latest stands, the earlier is kept.
    let standing = t.ledger.decision_answer("a").unwrap().unwrap();
    assert_eq!(standing.verdict.as_str(), "second_stands");
    assert!(standing.id > first);
}

#[test]
fn an_answer_is_refused_on_a_job_decided_once_for_an_unknown_verdict_and_over_an_unseen_one() {
    let mut t = TempLedger::new();
    t.ingest(DECIDED_TWICE);
    assert!(matches!(
        answer(&mut t.ledger, "c", "first_stands", None),
        Err(DecisionAnswerError::NotDivergent(_))
    ));
    assert!(matches!(
        answer(&mut t.ledger, "b", "single_effect", None),
        Err(DecisionAnswerError::UnknownVerdict { .. })
    ));
    answer(&mut t.ledger, "b", "first_stands", None).unwrap();
    assert!(matches!(
        answer(&mut t.ledger, "b", "both_intended", None),
        Err(DecisionAnswerError::AnsweredMeanwhile { .. })
    ));
}

/// A job done in full (terminal, output, notification) but decided twice.
const DONE_BUT_DECIDED_TWICE: &str = r#"{"event":"job_accepted","job_id":"x","at":"2026-11-27T16:00:00Z","timeout_s":120,"expected_age_s":3600,"attempt_budget":3}
{"event":"attempt_started","job_id":"x","attempt":1,"at":"2026-11-27T16:00:01Z"}
{"event":"decision","decision_id":"x1","job_id":"x","action":"pay","at":"2026-11-27T16:00:05Z"}
{"event":"decision","decision_id":"x2","job_id":"x","action":"pay","at":"2026-11-27T16:00:06Z"}
{"event":"callback","delivery_id":"d-x","job_id":"x","attempt":1,"outcome":"success","at":"2026-11-27T16:00:30Z","payload":{}}
{"event":"output_stored","job_id":"x","ref":"r/x.pdf","at":"2026-11-27T16:00:40Z","retention_until":"2027-02-27T00:00:00Z"}
{"event":"notification_sent","job_id":"x","kind":"done","at":"2026-11-27T16:00:41Z"}
"#;

/// `reconcile --exit-code` counts unanswered divergent decisions on a ledger that is
/// otherwise complete, and stops counting them once an answer closes them.
#[test]
fn reconcile_exit_code_waits_for_an_answer_on_divergent_decisions() {
    let w = Workdir::new();
    let stream = w.file("decided.ndjson", DONE_BUT_DECIDED_TWICE.as_bytes());
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let code = || w.run(&["reconcile", "--exit-code"]).status.code();
    let text = w.ok(&["reconcile"]);
    assert!(!text.contains("NOT COMPLETE"), "{text}");
    assert_eq!(code(), Some(5), "{text}");
    let answer = [
        "answer",
        "--decisions",
        "x",
        "--reviewer",
        "lee",
        "--verdict",
    ];
    w.ok(&[&answer[..], &["needs_remote_check"]].concat());
    assert_eq!(code(), Some(5), "needs_remote_check leaves it open");
    w.ok(&[&answer[..], &["first_stands", "--seen", "1"]].concat());
    assert_eq!(code(), Some(0));
}

#[test]
fn the_command_line_answers_and_reconcile_shows_the_answer_in_text_and_json() {
    let w = Workdir::new();
    let stream = w.file("decided.ndjson", DECIDED_TWICE.as_bytes());
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let said = w.ok(&[
        "answer",
        "--decisions",
        "b",
        "--verdict",
        "first_stands",
        "--reviewer",
        "lee",
    ]);
    assert!(
        said.contains("divergent decisions of job b: first_stands by lee"),
        "{said}"
    );
    // `--json`: the answer written, as `reconcile --json` shows it on the job, with
    // the job it answers.
    let written = w.json(&[
        "answer",
        "--decisions",
        "a",
        "--verdict",
        "needs_remote_check",
        "--reviewer",
        "kim",
        "--json",
    ]);
    let standing = w.json(&["reconcile", "--json"])["divergent_decisions"][0]["answer"].clone();
    let mut expected = standing.clone();
    expected["job_id"] = "a".into();
    assert_eq!(written, expected, "{standing}");
    assert_eq!(written["verdict"], "needs_remote_check");
    let refused = w.fails(&["answer", "--decisions", "c", "--verdict", "first_stands"]);
    assert!(
        refused.contains("not decided under more than one decision id"),
        "{refused}"
    );

    let text = w.ok(&["reconcile"]);
    assert!(text.contains("divergent_decisions (2, 1 open)"), "{text}");
    assert!(text.contains("answer: first_stands by lee"), "{text}");
    let json = w.json(&["reconcile", "--json"]);
    let jobs = json["divergent_decisions"].as_array().unwrap();
    let ids: Vec<&str> = jobs.iter().map(|j| j["job_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(jobs[0]["answer"]["verdict"], "needs_remote_check");
    assert_eq!(jobs[1]["answer"]["verdict"], "first_stands");
    assert_eq!(jobs[1]["answer"]["reviewer"], "lee");
    assert_eq!(jobs[0]["actions_agree"], false);
    assert_eq!(jobs[1]["actions_agree"], true);
    assert_eq!(jobs[1]["decisions"][1]["route"], "us-east");

    let help = w.ok(&["answer", "--help"]);
    assert!(help.contains("--decisions <JOB>"), "{help}");
    for verdict in ["first_stands", "second_stands", "both_intended"] {
        assert!(help.contains(verdict), "{help}");
    }
}

/// Opens the divergent-decisions finding in the console.
fn open_divergent(app: &mut App) {
    open_finding(app, Finding::DivergentDecisions);
}

#[test]
fn the_console_answers_a_divergent_job_from_its_list_and_the_finding_counts_it_answered() {
    let mut t = TempLedger::new();
    t.ingest(DECIDED_TWICE);
    let mut app = open_app_at(&t.path, "ana", now());
    open_divergent(&mut app);
    let screen = render_at(&app, 100, 30);
    assert!(screen.contains("open (a answers)"), "{screen}");
    // The list is in job id order; `a` answers the selected job.
    key(&mut app, KeyCode::Char('a'));
    let screen = render_at(&app, 100, 30);
    assert!(
        screen.contains("Answer the divergent decisions of a"),
        "{screen}"
    );
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "refund was intended");
    key(&mut app, KeyCode::Enter);
    // One key: the form closed, the cursor went on to the next open job, and the
    // message line says what was written.
    let screen = render_at(&app, 100, 30);
    assert!(
        screen.contains("Answer 1 written on the divergent decisions of a: both_intended by ana."),
        "{screen}"
    );
    assert!(app.model().form().is_none(), "the form stayed open");
    assert_eq!(app.model().list().and_then(|l| l.job()), Some("b"));
    let standing = t.ledger.decision_answer("a").unwrap().unwrap();
    assert_eq!(standing.verdict.as_str(), "both_intended");
    assert_eq!(standing.note, "refund was intended");
    assert_eq!(standing.reviewer, "ana");
    // Back on the findings: one of the two is still open.
    key(&mut app, KeyCode::Esc);
    let screen = render_at(&app, 100, 30);
    assert!(
        screen.contains("divergent decisions  decided under more than one decision id; 1 open"),
        "{screen}"
    );
}

#[test]
fn the_console_says_when_the_decisions_were_answered_meanwhile_and_writes_nothing() {
    let mut t = TempLedger::new();
    t.ingest(DECIDED_TWICE);
    let mut app = open_app_at(&t.path, "ana", now());
    open_divergent(&mut app);
    key(&mut app, KeyCode::Char('a'));
    // Maria answers job a from the command line while Ana's form is open.
    answer(&mut t.ledger, "a", "first_stands", None).unwrap();
    key(&mut app, KeyCode::Enter);
    let screen = render_at(&app, 160, 48);
    assert!(screen.contains("Refused. Nothing was written."), "{screen}");
    assert!(
        screen.contains("maria answered these decisions meanwhile: first_stands"),
        "{screen}"
    );
    assert!(screen.contains("open the form again (a)"), "{screen}");
    assert!(!screen.contains("--seen"), "{screen}");
    let standing = t.ledger.decision_answer("a").unwrap().unwrap();
    assert_eq!(standing.reviewer, "maria", "Ana's answer was not written");
}
