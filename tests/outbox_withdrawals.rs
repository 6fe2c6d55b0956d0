//! Withdrawing a pending request: append-only (a row of its own,
//! the request's row unchanged), once, with who and when; a withdrawn request is no
//! longer pending for the checks, the counts and the reports; a refusal writes nothing.

mod support;

use fixture::{TempLedger, at, now};
use jobledger::outbox::{
    Refusal, RequestError, RequestKind, RequestStatus, WithdrawError, request, withdraw,
};
use jobledger::store::{TimelineFact, Withdrawal};
use support::binary::{Workdir, refused};
use support::fixture;

const LATER: &str = "2026-11-27T17:05:00Z";

fn retry_1043(t: &mut TempLedger) -> i64 {
    request(
        &mut t.ledger,
        RequestKind::Retry,
        "booking-1043",
        "ops:maria",
        now(),
    )
    .expect("the retry is allowed")
    .id
}

#[test]
fn a_withdrawal_is_kept_beside_the_request_and_ends_its_pending() {
    let mut t = TempLedger::with_demo_streams();
    let id = retry_1043(&mut t);
    let asked = t.ledger.outbox().unwrap();
    assert_eq!(t.ledger.outbox_pending().unwrap(), 1);

    let row = withdraw(&mut t.ledger, id, "ops:lee", "wrong job", at(LATER)).unwrap();
    let withdrawal = Withdrawal {
        withdrawn_by: "ops:lee".into(),
        withdrawn_at: at(LATER),
        note: "wrong job".into(),
        written_by: None,
    };
    assert_eq!(row.status, RequestStatus::Withdrawn);
    assert_eq!(row.withdrawal.as_ref(), Some(&withdrawal));
    // Everything asked stays as asked: only the status and the withdrawal differ.
    let mut expected = asked[0].clone();
    expected.status = RequestStatus::Withdrawn;
    expected.withdrawal = Some(withdrawal);
    assert_eq!(t.ledger.outbox().unwrap(), [expected]);
    assert_eq!(t.ledger.outbox_pending().unwrap(), 0);
    assert_eq!(
        t.ledger.pending_requests("booking-1043").unwrap().retries,
        0
    );
    // The request's own row is never changed.
    let stored = fixture::query_i64(
        &t.path,
        "SELECT count(*) FROM outbox WHERE id = ?1 AND status = 'pending'",
        [id],
    );
    assert_eq!(stored, 1);
    let dump = t.dump();
    assert_eq!(dump["request_withdrawals"].len(), 1, "{dump:?}");
}

#[test]
fn a_request_is_withdrawn_once_and_a_refusal_writes_nothing() {
    let mut t = TempLedger::with_demo_streams();
    let id = retry_1043(&mut t);
    withdraw(&mut t.ledger, id, "ops:lee", "", at(LATER)).unwrap();
    let before = t.dump();
    for (case, id, by) in [
        ("twice", id, "ops:kim"),
        ("unknown", id + 41, "ops:kim"),
        ("nobody", id, " "),
    ] {
        let error = withdraw(&mut t.ledger, id, by, "", now()).expect_err(case);
        let message = error.to_string();
        match (case, error) {
            ("twice", WithdrawError::AlreadyWithdrawn { withdrawal, .. }) => {
                assert_eq!(withdrawal.withdrawn_by, "ops:lee");
                assert!(
                    message.contains("already withdrawn by ops:lee"),
                    "{message}"
                );
            }
            ("unknown", WithdrawError::NoSuchRequest(n)) => {
                assert_eq!(n, id);
                assert!(message.contains(&format!("no request {id}")), "{message}");
            }
            ("nobody", WithdrawError::NoWithdrawer) => {}
            (case, other) => panic!("{case}: {other:?}"),
        }
        assert_eq!(t.dump(), before, "{case}: a refused withdrawal wrote");
    }
}

/// One request at a time: a pending retry refuses a cancel; withdrawn, it no longer does.
#[test]
fn a_withdrawn_retry_no_longer_blocks_a_new_request() {
    let mut t = TempLedger::with_demo_streams();
    let id = retry_1043(&mut t);
    let blocked = request(
        &mut t.ledger,
        RequestKind::Cancel,
        "booking-1043",
        "ops:kim",
        now(),
    );
    assert!(
        matches!(
            blocked,
            Err(RequestError::Refused {
                refusal: Refusal::AlreadyRequested { .. },
                ..
            })
        ),
        "{blocked:?}"
    );
    withdraw(&mut t.ledger, id, "ops:maria", "", now()).unwrap();
    let again = retry_1043(&mut t);
    let written = t.ledger.outbox().unwrap();
    assert_eq!(written.len(), 2);
    // The withdrawn retry no longer counts against the budget: the new one runs as 2 too.
    assert_eq!(written[0].attempt, written[1].attempt);
    assert_eq!(written[1].id, again);
    assert_eq!(written[1].status, RequestStatus::Pending);
}

#[test]
fn request_withdraw_from_the_command_line_plain_and_json() {
    let (w, _) = Workdir::with_demo();
    w.ok(&["request", "retry", "booking-1043", "--by", "ops:maria"]);
    let out = w.ok(&[
        "request",
        "withdraw",
        "1",
        "--note",
        "wrong job",
        "--reviewer",
        "ops:lee",
    ]);
    assert_eq!(
        out,
        "request 1 withdrawn: retry of booking-1043 (attempt 2), asked by ops:maria at \
         2026-11-27 17:00:00; withdrawn by ops:lee at 2026-11-27 17:00:00 (wrong job)\n"
    );
    let table = w.ok(&["outbox"]);
    assert!(
        table.contains("withdrawn by ops:lee at 2026-11-27 17:00:00 (wrong job)"),
        "{table}"
    );
    let rows = w.json(&["outbox", "--json"]);
    assert_eq!(rows[0]["status"], "withdrawn");
    assert_eq!(rows[0]["withdrawal"]["withdrawn_by"], "ops:lee");
    assert_eq!(rows[0]["withdrawal"]["note"], "wrong job");
    assert_eq!(w.json(&["summary", "--json"])["outbox"], 0);

    // --json prints the request as `outbox --json` lists it; `--by` names the person too.
    w.ok(&["request", "cancel", "booking-1043", "--by", "ops:maria"]);
    let row = w.json(&["request", "withdraw", "2", "--by", "ops:kim", "--json"]);
    assert_eq!(row, w.json(&["outbox", "--json"])[1]);
    assert_eq!(
        row["withdrawal"]["withdrawn_at"],
        "2026-11-27T17:00:00.000Z"
    );
}

#[test]
fn request_withdraw_of_an_unknown_or_withdrawn_request_is_refused_with_nothing_written() {
    let (w, _) = Workdir::with_demo();
    w.ok(&["request", "retry", "booking-1043", "--by", "ops:maria"]);
    w.ok(&["request", "withdraw", "1", "--reviewer", "ops:lee"]);
    let before = fixture::dump(&w.db);
    for (id, why) in [
        ("1", "request 1 was already withdrawn by ops:lee"),
        ("7", "no request 7 is in the outbox"),
    ] {
        let out = w.run(&["request", "withdraw", id, "--reviewer", "ops:kim"]);
        refused(&out, &[why]);
        assert!(out.stdout.is_empty(), "{id} printed a result");
    }
    assert_eq!(fixture::dump(&w.db), before);
}

/// The job's timeline tells the withdrawal beside the request, with who and why.
#[test]
fn the_timeline_tells_the_withdrawal() {
    let mut t = TempLedger::with_demo_streams();
    let id = retry_1043(&mut t);
    withdraw(&mut t.ledger, id, "ops:lee", "wrong job", at(LATER)).unwrap();
    let facts: Vec<_> = t
        .ledger
        .timeline("booking-1043")
        .unwrap()
        .into_iter()
        .filter(|e| e.at >= now())
        .map(|e| e.fact)
        .collect();
    assert_eq!(
        facts,
        [
            TimelineFact::Requested {
                request: RequestKind::Retry,
                requested_by: "ops:maria".into(),
                status: RequestStatus::Withdrawn,
                written_by: None,
            },
            TimelineFact::Withdrawn {
                request_id: id,
                request: RequestKind::Retry,
                withdrawn_by: "ops:lee".into(),
                note: "wrong job".into(),
                written_by: None,
            },
        ]
    );
}
