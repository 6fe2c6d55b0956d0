//! Requests to the outside (SPEC sec. 6): only a person writes to the outbox, every
//! refusal says why, and a retry carries the job's pinned digests and next attempt.

mod support;

use fixture::{TempLedger, booking_afternoon, demo_queue, now};
use jobledger::console::model::form::RequestForm;
use jobledger::outbox::{
    Refusal, RequestError, RequestFacts, RequestKind, RequestWritten, request,
};
use jobledger::review::{AnswerRequest, answer};
use jobledger::store::OutboxRow;
use support::fixture;

/// Jobs that exist only to be refused: an output that exists without a success, an
/// output whose retention is over, a budget of one attempt, all used, a permanent
/// failure, and a budget of two with one attempt timed out.
const REFUSABLE: &str = r#"{"event":"job_accepted","job_id":"out-1","at":"2026-11-27T15:00:00Z","timeout_s":120,"attempt_budget":3}
{"event":"attempt_started","job_id":"out-1","attempt":1,"at":"2026-11-27T15:00:01Z"}
{"event":"job_failed","job_id":"out-1","attempt":1,"at":"2026-11-27T15:00:30Z","cause":"upload acknowledged late","permanent":false}
{"event":"output_stored","job_id":"out-1","ref":"bookings/out-1.pdf","at":"2026-11-27T15:00:40Z","retention_until":"2027-02-27T00:00:00Z"}
{"event":"job_accepted","job_id":"kept-1","at":"2026-11-27T15:05:00Z","timeout_s":120,"attempt_budget":3}
{"event":"attempt_started","job_id":"kept-1","attempt":1,"at":"2026-11-27T15:05:01Z"}
{"event":"attempt_timed_out","job_id":"kept-1","attempt":1,"at":"2026-11-27T15:07:01Z"}
{"event":"output_stored","job_id":"kept-1","ref":"bookings/kept-1.pdf","at":"2026-11-27T15:07:30Z","retention_until":"2026-11-27T16:00:00Z"}
{"event":"job_accepted","job_id":"once-1","at":"2026-11-27T15:10:00Z","timeout_s":120,"attempt_budget":1}
{"event":"attempt_started","job_id":"once-1","attempt":1,"at":"2026-11-27T15:10:01Z"}
{"event":"attempt_timed_out","job_id":"once-1","attempt":1,"at":"2026-11-27T15:12:01Z"}
{"event":"job_accepted","job_id":"perm-1","at":"2026-11-27T15:15:00Z","timeout_s":120,"attempt_budget":3}
{"event":"attempt_started","job_id":"perm-1","attempt":1,"at":"2026-11-27T15:15:01Z"}
{"event":"job_failed","job_id":"perm-1","attempt":1,"at":"2026-11-27T15:15:30Z","cause":"card declined","permanent":true}
{"event":"job_accepted","job_id":"twice-1","at":"2026-11-27T15:20:00Z","timeout_s":120,"attempt_budget":2}
{"event":"attempt_started","job_id":"twice-1","attempt":1,"at":"2026-11-27T15:20:01Z"}
{"event":"attempt_timed_out","job_id":"twice-1","attempt":1,"at":"2026-11-27T15:22:01Z"}
"#;

fn demo_with_refusable_jobs() -> TempLedger {
    let mut t = TempLedger::with_demo_streams();
    let report = t.ingest(REFUSABLE);
    assert_eq!(report.events_rejected, 0, "{report}");
    t
}

fn ask(t: &mut TempLedger, kind: RequestKind, job: &str) -> Result<RequestWritten, RequestError> {
    request(&mut t.ledger, kind, job, "ops:maria", now())
}

/// Asks, and checks the refusal wrote nothing.
fn refusal(t: &mut TempLedger, kind: RequestKind, job: &str) -> (Refusal, String) {
    let before = t.dump();
    let error = ask(t, kind, job).expect_err("the request must be refused");
    assert_eq!(t.dump(), before, "a refused request wrote to the ledger");
    let message = error.to_string();
    assert!(
        message.contains(job),
        "the message names the job: {message}"
    );
    match error {
        RequestError::Refused { refusal, .. } => (refusal, message),
        other => panic!("{job}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_retry_is_refused_when_the_budget_is_spent() {
    let mut t = demo_with_refusable_jobs();
    let (why, message) = refusal(&mut t, RequestKind::Retry, "once-1");
    assert_eq!(why, Refusal::BudgetSpent { used: 1, budget: 1 });
    assert!(message.contains("budget is spent"), "{message}");
    assert!(message.contains("1 of 1"), "{message}");
}

#[test]
fn a_retry_is_refused_when_the_job_already_succeeded() {
    let mut t = demo_with_refusable_jobs();
    for job in ["booking-1050", "booking-1041"] {
        let (why, message) = refusal(&mut t, RequestKind::Retry, job);
        assert!(matches!(why, Refusal::AlreadySucceeded { .. }), "{why:?}");
        assert!(message.contains("already has a success"), "{message}");
    }
    // booking-1052 succeeded but lost its output: still no retry; it is an incident.
    let (why, _) = refusal(&mut t, RequestKind::Retry, "booking-1052");
    assert!(matches!(why, Refusal::AlreadySucceeded { .. }), "{why:?}");
}

/// A cancel of a job whose work is done says so: a retry's worry (doing the work
/// twice) is not a cancel's, and a person told it would wonder what a cancel repeats.
#[test]
fn a_refused_cancel_says_there_is_nothing_left_to_cancel() {
    let mut t = demo_with_refusable_jobs();
    for (job, says) in [
        ("booking-1050", "already has a success"),
        ("out-1", "output object exists"),
    ] {
        let (_, message) = refusal(&mut t, RequestKind::Cancel, job);
        assert!(message.contains(says), "{job}: {message}");
        assert!(
            message.contains("nothing left to cancel"),
            "{job}: {message}"
        );
        for retry_words in ["retry", "twice", "redo"] {
            assert!(!message.contains(retry_words), "{job}: {message}");
        }
    }
}

/// The console's request form says what the command line says: its expected outcome
/// is the same refusal, in the same words.
#[test]
fn the_console_form_gives_a_refused_cancel_the_same_words() {
    let t = demo_with_refusable_jobs();
    let facts = RequestFacts::read(&t.ledger, "out-1")
        .unwrap()
        .expect("out-1 is in the ledger");
    let form = RequestForm::new(RequestKind::Cancel, &facts, now());
    let expected = form.expected.expect_err("the cancel is refused");
    assert!(expected.contains("nothing left to cancel"), "{expected}");
    assert!(!expected.contains("redo"), "{expected}");
}

/// A retry of a job whose output object exists, or whose retention expired: the
/// work is done, or its result is gone for good.
#[test]
fn a_retry_is_refused_when_the_output_exists_or_the_retention_expired() {
    let exists = Refusal::OutputExists {
        reference: "bookings/out-1.pdf".into(),
        kind: RequestKind::Retry,
    };
    let expired = Refusal::RetentionExpired {
        until: fixture::at("2026-11-27T16:00:00Z"),
    };
    let exists_says = ["output object exists", "bookings/out-1.pdf"];
    let expired_says = ["retention expired"];
    for (case, job, expected, words) in [
        ("output exists", "out-1", exists, &exists_says[..]),
        ("retention expired", "kept-1", expired, &expired_says[..]),
    ] {
        let mut t = demo_with_refusable_jobs();
        let (why, message) = refusal(&mut t, RequestKind::Retry, job);
        assert_eq!(why, expected, "{case}");
        for word in words {
            assert!(message.contains(word), "{case}: {message}");
        }
    }
}

#[test]
fn a_transient_failure_is_retried_with_pinned_digests_and_the_next_attempt() {
    let mut t = TempLedger::with_demo_streams();
    assert!(t.ledger.outbox().unwrap().is_empty());

    let written = ask(&mut t, RequestKind::Retry, "booking-1058").expect("the retry is allowed");
    assert_eq!(written.attempt, Some(2));
    let rows = t.ledger.outbox().unwrap();
    assert_eq!(
        rows,
        [OutboxRow {
            id: written.id,
            job_id: "booking-1058".into(),
            request: RequestKind::Retry,
            attempt: Some(2),
            input_digest: Some("sha256:11aa09".into()),
            model_digest: Some("sha256:51d0b2".into()),
            policy_revision: Some("confirm-v7".into()),
            requested_by: "ops:maria".into(),
            requested_at: now(),
            status: jobledger::outbox::RequestStatus::Pending,
            withdrawal: None,
            written_by: None,
        }]
    );
    assert_eq!(t.ledger.outbox_pending().unwrap(), 1);
    // The request asks the outside; it does not move the job by itself.
    assert_eq!(
        t.ledger
            .job("booking-1058")
            .unwrap()
            .unwrap()
            .latest_attempt,
        1
    );

    // One request at a time: the retry waits in the outbox.
    let (why, _) = refusal(&mut t, RequestKind::Retry, "booking-1058");
    assert_eq!(
        why,
        Refusal::AlreadyRequested {
            kind: RequestKind::Retry
        }
    );
}

/// A pending retry counts against the budget, and a spent budget is said before the
/// pending request: waiting for it would not make room.
#[test]
fn a_pending_retry_counts_against_the_budget() {
    let mut t = demo_with_refusable_jobs();
    let written = ask(&mut t, RequestKind::Retry, "twice-1").expect("the second attempt fits");
    assert_eq!(written.attempt, Some(2));
    let (why, message) = refusal(&mut t, RequestKind::Retry, "twice-1");
    assert_eq!(why, Refusal::BudgetSpent { used: 2, budget: 2 });
    assert!(message.contains("2 of 2"), "{message}");
}

/// Requests must not contradict each other: while any request for a job waits in the
/// outbox, no other retry or cancel of it is taken.
#[test]
fn a_retry_or_cancel_is_refused_while_another_request_is_pending() {
    let pending = |kind| Refusal::AlreadyRequested { kind };
    let mut t = demo_with_refusable_jobs();
    ask(&mut t, RequestKind::Retry, "booking-1058").expect("the retry is allowed");
    for kind in [RequestKind::Retry, RequestKind::Cancel] {
        let (why, message) = refusal(&mut t, kind, "booking-1058");
        assert_eq!(why, pending(RequestKind::Retry), "{kind}");
        assert!(
            message.contains("a retry request for this job is already waiting"),
            "{message}"
        );
        assert!(message.contains("wait until"), "says what to do: {message}");
    }
    ask(&mut t, RequestKind::Cancel, "booking-1043").expect("the cancel is allowed");
    let (why, _) = refusal(&mut t, RequestKind::Retry, "booking-1043");
    assert_eq!(why, pending(RequestKind::Cancel));
    // booking-1055 is still running too; the pending cancel is said first.
    ask(&mut t, RequestKind::Cancel, "booking-1055").expect("the cancel is allowed");
    let (why, _) = refusal(&mut t, RequestKind::Retry, "booking-1055");
    assert_eq!(why, pending(RequestKind::Cancel));
    assert_eq!(t.ledger.outbox().unwrap().len(), 3);
}

/// booking-1042's attempt 2 (staff:maria's replacement) is still at work: a retry now
/// would run the work twice at once. A cancel is still taken.
#[test]
fn a_retry_is_refused_while_the_latest_attempt_is_still_running() {
    let mut t = demo_with_refusable_jobs();
    let (why, message) = refusal(&mut t, RequestKind::Retry, "booking-1042");
    assert_eq!(why, Refusal::StillRunning { attempt: 2 });
    assert!(message.contains("attempt 2 is still running"), "{message}");
    assert!(
        message.contains("wait until it ends or times out"),
        "{message}"
    );
    ask(&mut t, RequestKind::Cancel, "booking-1042").expect("a cancel is allowed");
}

/// A failure its worker called permanent would fail the same way again; a transient one
/// (booking-1058, above) may be retried.
#[test]
fn a_retry_is_refused_after_a_permanent_failure() {
    let mut t = demo_with_refusable_jobs();
    let (why, message) = refusal(&mut t, RequestKind::Retry, "perm-1");
    assert_eq!(why, Refusal::FailedPermanently);
    assert!(message.contains("failed permanently"), "{message}");
    assert!(message.contains("start a new job"), "{message}");
}

#[test]
fn requests_need_a_person_and_a_job() {
    let mut t = TempLedger::with_demo_streams();
    let error = request(
        &mut t.ledger,
        RequestKind::Retry,
        "booking-1058",
        " ",
        now(),
    )
    .expect_err("nobody asked");
    assert!(matches!(error, RequestError::NoRequester), "{error:?}");
    let error = ask(&mut t, RequestKind::Cancel, "booking-0000").expect_err("no such job");
    assert!(
        matches!(&error, RequestError::NoSuchJob(job) if job == "booking-0000"),
        "{error:?}"
    );
    assert!(t.ledger.outbox().unwrap().is_empty());
}

#[test]
fn a_cancel_is_written_once_and_never_for_a_cancelled_job() {
    let mut t = TempLedger::with_demo_streams();
    let written = ask(&mut t, RequestKind::Cancel, "booking-1055").expect("cancel allowed");
    assert_eq!(written.attempt, None);
    let (why, _) = refusal(&mut t, RequestKind::Cancel, "booking-1055");
    assert_eq!(
        why,
        Refusal::AlreadyRequested {
            kind: RequestKind::Cancel
        }
    );
    let (why, _) = refusal(&mut t, RequestKind::Cancel, "booking-1044");
    assert!(matches!(why, Refusal::Closed { .. }), "{why:?}");
    assert_eq!(t.ledger.outbox().unwrap().len(), 1);
}

#[test]
fn ingest_replays_and_answers_never_write_to_the_outbox() {
    let mut t = TempLedger::with_demo_streams();
    assert!(
        t.ledger.outbox().unwrap().is_empty(),
        "ingest wrote a request"
    );

    // A person's request is there; nothing else may add to it.
    ask(&mut t, RequestKind::Retry, "booking-1058").unwrap();
    let requested = t.ledger.outbox().unwrap();

    // Replays: the same lines again, and every callback redelivered later.
    t.ingest(&booking_afternoon());
    t.ingest(&demo_queue());
    let redeliveries: String = (booking_afternoon() + &demo_queue())
        .lines()
        .filter(|l| l.contains(r#""event":"callback""#))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|mut v| {
            v["at"] = "2026-11-27T16:45:00Z".into();
            [v.to_string(), "\n".to_owned()]
        })
        .collect();
    let report = t.ingest(&redeliveries);
    assert!(report.callbacks.total() >= 14, "{report}");
    assert_eq!(t.ledger.outbox().unwrap(), requested);

    // Answers, including a link that applies a callback to a running job.
    let c2 = t.by_delivery("d-1042-a").seq;
    let anonymous = t.by_delivery("d-anon-1").seq;
    for (seq, verdict, link_job) in [
        (c2, "duplicate_effect", None),
        (anonymous, "linked", Some("booking-1055")),
    ] {
        let given = AnswerRequest {
            seq,
            verdict,
            note: "",
            reviewer: "ana",
            link_job,
            seen_answer: None,
        };
        answer(&mut t.ledger, &given, now()).unwrap();
    }
    assert_eq!(t.ledger.outbox().unwrap(), requested);
}
