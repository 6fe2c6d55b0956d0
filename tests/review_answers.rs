//! Reviewers' answers (SPEC sec. 5): the closed verdict sets, linking a quarantined
//! callback to a job, two reviewers on one row, open questions, and answers that never
//! move a job.

mod support;

use fixture::{TempLedger, at, line_with, now};
use jobledger::decision::{Disposition, ReasonCode};
use jobledger::review::{AnswerError, AnswerRequest, AnswerWritten, answer};
use support::fixture;

/// An answer with no job link, from a reviewer who saw no earlier answer.
fn request<'a>(seq: i64, verdict: &'a str, reviewer: &'a str) -> AnswerRequest<'a> {
    AnswerRequest {
        seq,
        verdict,
        note: "",
        reviewer,
        link_job: None,
        seen_answer: None,
    }
}

fn give(t: &mut TempLedger, request: &AnswerRequest<'_>) -> Result<AnswerWritten, AnswerError> {
    answer(&mut t.ledger, request, now())
}

/// Answers `request` and checks it was refused without a byte of the ledger changing.
fn refused(t: &mut TempLedger, request: &AnswerRequest<'_>) -> AnswerError {
    let before = t.dump();
    let error = give(t, request).expect_err("the answer must be refused");
    assert_eq!(t.dump(), before, "a refused answer wrote to the ledger");
    error
}

#[test]
fn each_kind_of_question_takes_only_its_closed_set_of_verdicts() {
    let mut t = TempLedger::with_demo_streams();
    let duplicate = t.by_delivery("d-1042-a").seq;
    let conflict = t.by_delivery("d-1054-b").seq;
    let quarantined = t.by_delivery("d-9999-a").seq;
    let applied = t.by_delivery("d-1041-a").seq;

    let for_duplicate = ["single_effect", "duplicate_effect", "needs_remote_check"];
    let for_conflict = ["success_stands", "failure_stands", "needs_remote_check"];
    let for_quarantined = ["linked", "noise", "needs_remote_check"];
    for (seq, verdict, allowed) in [
        (duplicate, "success_stands", for_duplicate),
        (duplicate, "linked", for_duplicate),
        (conflict, "single_effect", for_conflict),
        (quarantined, "single_effect", for_quarantined),
        (quarantined, "NOISE", for_quarantined),
    ] {
        let error = refused(&mut t, &request(seq, verdict, "ana"));
        let AnswerError::UnknownVerdict {
            verdict: given,
            allowed: listed,
            ..
        } = &error
        else {
            panic!("{verdict} on #{seq}: expected UnknownVerdict, got {error:?}");
        };
        assert_eq!(given, verdict);
        assert_eq!(*listed, allowed.join(", "));
        let message = error.to_string();
        for name in allowed {
            assert!(message.contains(name), "{message}");
        }
    }

    // Applied and recorded callbacks ask no question.
    let error = refused(&mut t, &request(applied, "single_effect", "ana"));
    assert!(
        matches!(
            error,
            AnswerError::NotACase {
                disposition: Disposition::Apply,
                ..
            }
        ),
        "{error:?}"
    );
    let error = refused(&mut t, &request(9_999, "noise", "ana"));
    assert!(
        matches!(error, AnswerError::NoSuchCallback(9_999)),
        "{error:?}"
    );
}

#[test]
fn linked_needs_a_job_and_only_linked_takes_one() {
    let mut t = TempLedger::with_demo_streams();
    let c5 = t.by_delivery("d-9999-a").seq;

    let error = refused(&mut t, &request(c5, "linked", "ana"));
    assert!(matches!(error, AnswerError::LinkNeedsJob), "{error:?}");
    assert!(error.to_string().contains("--job"), "{error}");

    let noise_with_job = AnswerRequest {
        link_job: Some("booking-1041"),
        ..request(c5, "noise", "ana")
    };
    let error = refused(&mut t, &noise_with_job);
    assert!(matches!(error, AnswerError::JobWithoutLink), "{error:?}");

    let unknown_job = AnswerRequest {
        link_job: Some("booking-0000"),
        ..request(c5, "linked", "ana")
    };
    let error = refused(&mut t, &unknown_job);
    assert!(
        matches!(&error, AnswerError::UnknownJob(job) if job == "booking-0000"),
        "{error:?}"
    );
}

#[test]
fn linking_quarantined_c5_judges_a_new_callback_by_the_table_and_keeps_the_original() {
    let mut t = TempLedger::with_demo_streams();
    let c1 = t.by_delivery("d-1041-a");
    let c5 = t.by_delivery("d-9999-a");
    let counts_before = t.ledger.disposition_counts().unwrap();

    let link = AnswerRequest {
        note: "typo in the job id",
        link_job: Some("booking-1041"),
        ..request(c5.seq, "linked", "ana")
    };
    let written = give(&mut t, &link).expect("the link is written");
    let (new_seq, decision) = written.linked.expect("a new callback is judged");

    // booking-1041 already has C1's success for attempt 1: the same claim, a repeat.
    assert_eq!(decision.disposition, Disposition::Record);
    assert_eq!(decision.reason, ReasonCode::RepeatReport);
    let new = t.ledger.callback(new_seq).unwrap().expect("the new row");
    assert_eq!(new.linked_from_seq, Some(c5.seq));
    assert_eq!(new.line_seq, c5.line_seq, "judged from the same raw line");
    assert_eq!(new.job_id.as_deref(), Some("booking-1041"));
    assert_eq!(new.delivery_id.as_deref(), Some("d-9999-a"));
    assert_eq!(
        new.arrived_at, c5.arrived_at,
        "arrival time is the callback's own"
    );
    assert_eq!(new.disposition, Disposition::Record);
    assert_eq!(new.reason, ReasonCode::RepeatReport);
    assert_eq!(new.first_report_seq, Some(c1.seq));

    // The original row stays as it was judged, with the answer beside it.
    let original = t
        .ledger
        .callback(c5.seq)
        .unwrap()
        .expect("the original row");
    assert_eq!(original.disposition, Disposition::Quarantine);
    assert_eq!(original.reason, ReasonCode::NoMatchingJob);
    assert_eq!(original.job_id.as_deref(), Some("booking-9999"));
    let standing = original.answer.expect("the answer shows in the row");
    assert_eq!(standing.id, written.answer_id);
    assert_eq!(standing.verdict.as_str(), "linked");
    assert_eq!(standing.linked_job_id.as_deref(), Some("booking-1041"));
    assert_eq!(standing.note, "typo in the job id");

    let counts_after = t.ledger.disposition_counts().unwrap();
    assert_eq!(counts_after.quarantined, counts_before.quarantined);
    assert_eq!(counts_after.recorded, counts_before.recorded + 1);
    assert_eq!(counts_after.total(), counts_before.total() + 1);
    assert!(t.ledger.outbox().unwrap().is_empty());
}

#[test]
fn a_linked_callback_is_judged_exactly_as_if_it_had_named_the_job() {
    // The anonymous success (missing job id) belongs to booking-1055, still running.
    let mut linked = TempLedger::with_demo_streams();
    let anonymous = linked.by_delivery("d-anon-1");
    assert_eq!(anonymous.reason, ReasonCode::MissingJobId);
    let link = AnswerRequest {
        link_job: Some("booking-1055"),
        ..request(anonymous.seq, "linked", "ana")
    };
    let (new_seq, decision) = give(&mut linked, &link)
        .expect("the link is written")
        .linked
        .expect("a new callback is judged");

    // The same callback, had it carried the job id, ingested at the same point.
    let mut named = TempLedger::with_demo_streams();
    let queue = fixture::demo_queue();
    let line = line_with(&queue, "d-anon-1");
    let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
    value["job_id"] = "booking-1055".into();
    named.ingest(&format!("{value}\n"));
    let direct = named.callbacks(None).pop().expect("the named callback");

    let got = linked
        .ledger
        .callback(new_seq)
        .unwrap()
        .expect("the new row");
    assert_eq!(decision.disposition, direct.disposition);
    assert_eq!(decision.reason, direct.reason);
    assert_eq!(
        (
            got.disposition,
            got.reason,
            got.timeout_at,
            got.arrived_at,
            &got.replacement
        ),
        (
            direct.disposition,
            direct.reason,
            direct.timeout_at,
            direct.arrived_at,
            &direct.replacement
        )
    );
    assert_eq!(got.disposition, Disposition::Apply, "{got:?}");
    assert_eq!(
        linked.ledger.job("booking-1055").unwrap(),
        named.ledger.job("booking-1055").unwrap(),
        "the table's effect is the same either way"
    );
    let original = linked.ledger.callback(anonymous.seq).unwrap().unwrap();
    assert_eq!(original.disposition, Disposition::Quarantine);
    assert_eq!(original.reason, ReasonCode::MissingJobId);
}

#[test]
fn a_second_reviewer_is_told_about_the_first_answer_and_nothing_is_written() {
    let mut t = TempLedger::with_demo_streams();
    let c2 = t.by_delivery("d-1042-a").seq;

    let first = give(&mut t, &request(c2, "single_effect", "ana")).expect("first answer");

    let error = refused(&mut t, &request(c2, "duplicate_effect", "bo"));
    let AnswerError::AnsweredMeanwhile(theirs) = &error else {
        panic!("expected AnsweredMeanwhile, got {error:?}");
    };
    assert_eq!(theirs.id, first.answer_id);
    assert_eq!(theirs.reviewer, "ana");
    assert_eq!(theirs.verdict.as_str(), "single_effect");
    let message = error.to_string();
    assert!(
        message.contains("ana") && message.contains("single_effect"),
        "{message}"
    );
    assert_eq!(t.ledger.answers(c2).unwrap().len(), 1);

    // Having read it, the second reviewer may answer over it; both answers are kept.
    let over = AnswerRequest {
        seen_answer: Some(first.answer_id),
        ..request(c2, "duplicate_effect", "bo")
    };
    let second = give(&mut t, &over).expect("answer over the first");
    let answers = t.ledger.answers(c2).unwrap();
    assert_eq!(
        answers
            .iter()
            .map(|a| (a.reviewer.as_str(), a.verdict.as_str()))
            .collect::<Vec<_>>(),
        [("ana", "single_effect"), ("bo", "duplicate_effect")]
    );
    let standing = t.ledger.callback(c2).unwrap().unwrap().answer.unwrap();
    assert_eq!(standing.id, second.answer_id);
    assert_eq!(standing.answered_at, now());

    // A reviewer who saw only the first answer is told about the second.
    let stale = AnswerRequest {
        seen_answer: Some(first.answer_id),
        ..request(c2, "needs_remote_check", "carl")
    };
    let error = refused(&mut t, &stale);
    assert!(
        matches!(&error, AnswerError::AnsweredMeanwhile(theirs) if theirs.id == second.answer_id),
        "{error:?}"
    );
}

#[test]
fn needs_remote_check_leaves_the_question_open_and_a_closing_verdict_closes_it() {
    let mut t = TempLedger::with_demo_streams();
    // Two held and four quarantined in the demo, none answered.
    let open = |t: &TempLedger| t.ledger.open_questions().unwrap();
    assert_eq!(open(&t), 6);

    let c2 = t.by_delivery("d-1042-a").seq;
    let check = give(&mut t, &request(c2, "needs_remote_check", "ana")).unwrap();
    assert_eq!(open(&t), 6, "needs_remote_check keeps the question open");

    let close = AnswerRequest {
        seen_answer: Some(check.answer_id),
        ..request(c2, "single_effect", "ana")
    };
    give(&mut t, &close).unwrap();
    assert_eq!(open(&t), 5);

    let c5 = t.by_delivery("d-9999-a").seq;
    give(&mut t, &request(c5, "needs_remote_check", "bo")).unwrap();
    assert_eq!(open(&t), 5);

    let conflict = t.by_delivery("d-1054-b").seq;
    give(&mut t, &request(conflict, "failure_stands", "bo")).unwrap();
    assert_eq!(open(&t), 4);
}

#[test]
fn answers_never_change_job_state_or_anything_but_the_answers() {
    let mut t = TempLedger::with_demo_streams();
    let mut before = t.dump();
    before.remove("answers");

    for (delivery, verdict) in [
        ("d-1042-a", "duplicate_effect"),
        ("d-1054-b", "success_stands"),
        ("d-9999-a", "noise"),
        ("d-anon-1", "needs_remote_check"),
        ("d-9998-a", "noise"),
    ] {
        let seq = t.by_delivery(delivery).seq;
        give(&mut t, &request(seq, verdict, "ana"))
            .unwrap_or_else(|e| panic!("{verdict} on {delivery}: {e}"));
    }
    // The conflicting pair answered the other way round too.
    let conflict = t.by_delivery("d-1054-b").seq;
    let seen = t
        .ledger
        .callback(conflict)
        .unwrap()
        .unwrap()
        .answer
        .unwrap()
        .id;
    give(
        &mut t,
        &AnswerRequest {
            seen_answer: Some(seen),
            ..request(conflict, "failure_stands", "bo")
        },
    )
    .unwrap();

    let mut after = t.dump();
    assert_eq!(after.remove("answers").map(|rows| rows.len()), Some(6));
    assert_eq!(after, before, "an answer wrote outside the answers table");
}

#[test]
fn a_new_case_on_a_job_answered_before_shows_the_earlier_answer() {
    let mut t = TempLedger::with_demo_streams();
    let c2 = t.by_delivery("d-1042-a").seq;
    let first = give(&mut t, &request(c2, "single_effect", "ana")).unwrap();

    // A failure for the same attempt contradicts C2's success: a new question.
    t.ingest(concat!(
        r#"{"event":"callback","delivery_id":"d-1042-z","job_id":"booking-1042","attempt":1,"#,
        r#""outcome":"failure","at":"2026-11-27T16:00:00Z"}"#,
        "\n"
    ));
    let new = t.by_delivery("d-1042-z");
    assert_eq!(new.disposition, Disposition::Hold);
    assert_eq!(new.reason, ReasonCode::ConflictingOutcomes);
    assert_eq!(new.arrived_at, Some(at("2026-11-27T16:00:00Z")));
    let earlier = t
        .ledger
        .earlier_answer_on_job("booking-1042", new.seq)
        .unwrap()
        .expect("the earlier answer is found");
    assert_eq!(earlier.id, first.answer_id);
    assert_eq!(earlier.callback_seq, c2);
}

#[test]
fn the_backlog_trend_counts_each_arrival_and_answer_in_its_own_hour_as_the_alarm_does() {
    use jobledger::reconcile::{Backlog, DEFAULT_REVIEW_CAPACITY, TREND_HOURS, review_trend};
    let mut t = TempLedger::with_demo_streams();
    let quarantined = t.by_delivery("d-9999-a").seq;
    answer(
        &mut t.ledger,
        &request(quarantined, "noise", "ana"),
        at("2026-11-27T16:59:00Z"),
    )
    .unwrap();
    let trend = review_trend(&t.ledger, now()).unwrap();
    assert_eq!(trend.len(), TREND_HOURS);
    assert!(
        trend
            .windows(2)
            .all(|w| w[1].start.seconds_since(w[0].start) == 3600)
    );
    let last = trend.last().unwrap();
    assert_eq!(
        last.start,
        at("2026-11-27T17:00:00Z"),
        "the hour under way is last"
    );
    // Every held and quarantined callback arrived within the day: each is in one hour.
    let held_or_quarantined = fixture::query_i64(
        &t.path,
        "SELECT count(*) FROM callbacks WHERE disposition IN ('hold', 'quarantine')",
        [],
    );
    assert_eq!(
        trend.iter().map(|h| h.arrivals).sum::<i64>(),
        held_or_quarantined
    );
    let answered: Vec<_> = trend.iter().filter(|h| h.answered > 0).collect();
    assert_eq!(answered.len(), 1, "{trend:?}");
    assert_eq!(answered[0].start, at("2026-11-27T16:00:00Z"));
    // The alarm's hour is (16:00, 17:00]; the trend's last two hours cover it.
    let alarm = Backlog::measure(&t.ledger, now(), DEFAULT_REVIEW_CAPACITY).unwrap();
    let tail = &trend[TREND_HOURS - 2..];
    assert_eq!(alarm.arrivals, tail.iter().map(|h| h.arrivals).sum::<i64>());
}
