//! Two reviewers on two machines answering the same held callback of a ledger on
//! PostgreSQL: exactly one answer is written, and the other reviewer is refused as on
//! SQLite ("answered meanwhile", naming the answer they did not see). SQLite has one
//! writer at a time; on PostgreSQL the writer locks the callback before reading its
//! answer (`src/store/postgres/answers.rs`), and this is what these tests hold it to.
//! The other check-then-append writes of a person (an owner set or cleared, a request
//! withdrawn, a view deleted) are held to the same: the second writer waits, then sees
//! the first one's row.

mod support;

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use jobledger::review::{self, AnswerError, AnswerRequest};
use jobledger::store::{Ledger, Location, NewAnswer, OpenMode};
use support::fixture::{TempLedger, booking_afternoon, now};
use support::postgres::PgServer;

/// A ledger on a fresh database of the shared test server, and its URL.
fn server_ledger(test: &str) -> (Ledger, String) {
    let server = PgServer::shared();
    let url = server.url(&server.fresh_database(test));
    (open(&url), url)
}

fn open(url: &str) -> Ledger {
    let location = Location::parse(url.as_ref()).expect("a server URL");
    Ledger::open_at(&location, OpenMode::ReadWrite).expect("the ledger on the server opens")
}

/// The held callbacks of the booking afternoon (read from a SQLite ledger of the same
/// stream: both engines number callbacks alike) and a verdict each takes.
fn held_callbacks() -> Vec<(i64, &'static str)> {
    let mut t = TempLedger::new();
    t.ingest(&booking_afternoon());
    let held = t.callbacks(Some(jobledger::decision::Disposition::Hold));
    assert!(!held.is_empty(), "the booking afternoon holds callbacks");
    held.iter()
        .map(|row| {
            let kind = review::CaseKind::of(row.disposition, row.reason).unwrap();
            let verdict = kind
                .verdicts()
                .iter()
                .map(|v| v.as_str())
                .find(|v| *v != "linked")
                .unwrap();
            (row.seq, verdict)
        })
        .collect()
}

fn ingest_afternoon(ledger: &mut Ledger) {
    jobledger::ingest::ingest(ledger, booking_afternoon().as_bytes(), now(), |_| {})
        .expect("the booking afternoon is ingested");
}

fn answers_on(url: &str, seq: i64) -> i64 {
    // The ledger's schema is on the search path of the ledger's own connection only.
    let mut client = postgres::Client::connect(url, postgres::NoTls).expect("a connection");
    client
        .query_one(
            "SELECT count(*) FROM jobledger.answers WHERE callback_seq = $1",
            &[&seq],
        )
        .expect("answers are counted")
        .get(0)
}

fn request<'a>(seq: i64, verdict: &'a str, who: &'a str) -> AnswerRequest<'a> {
    AnswerRequest {
        seq,
        verdict,
        note: who,
        reviewer: who,
        link_job: None,
        seen_answer: None,
    }
}

/// Ana's answer is written and not yet committed when Bob answers the same callback,
/// having seen no answer: Bob waits for Ana's transaction, then reads her answer and
/// is refused. Returns what Bob was told, and the answers the callback has after.
fn bob_answers_while_ana_writes(
    ana: &mut Ledger,
    mut bob: Ledger,
    seq: i64,
    verdict: &'static str,
) -> String {
    let mut writer = ana.writer().unwrap();
    let row = writer.callback(seq).unwrap().expect("the held callback");
    assert!(row.answer.is_none(), "#{seq} is not answered yet");
    writer
        .insert_answer(&NewAnswer {
            callback_seq: seq,
            verdict: jobledger::decision::Verdict::parse(verdict).unwrap(),
            note: "ana",
            reviewer: "ana",
            answered_at: now(),
            linked_job_id: None,
            previous_answer: None,
        })
        .unwrap();
    let bobs = thread::spawn(move || {
        review::answer(&mut bob, &request(seq, verdict, "bob"), now()).map(|w| w.answer_id)
    });
    thread::sleep(Duration::from_millis(700));
    assert!(
        !bobs.is_finished(),
        "#{seq}: Bob's answer waits while Ana's is being written, got {:?}",
        bobs.join().unwrap()
    );
    writer.commit().unwrap();
    match bobs.join().unwrap() {
        Err(refused @ AnswerError::AnsweredMeanwhile(_)) => {
            let AnswerError::AnsweredMeanwhile(theirs) = &refused else {
                unreachable!()
            };
            assert_eq!(theirs.reviewer, "ana");
            refused.to_string()
        }
        other => panic!("#{seq}: Bob is refused, Ana's answer unseen; got {other:?}"),
    }
}

#[test]
fn an_answer_over_one_being_written_waits_and_is_refused_as_on_sqlite() {
    let (mut ana, url) = server_ledger("an_answer_over_one_being_written");
    ingest_afternoon(&mut ana);
    let bob = open(&url);
    let (seq, verdict) = held_callbacks()[0];
    let told_on_server = bob_answers_while_ana_writes(&mut ana, bob, seq, verdict);
    assert_eq!(answers_on(&url, seq), 1, "#{seq}: one answer is written");

    // The same on SQLite, whose writer lock does the same: the same words.
    let mut t = TempLedger::new();
    t.ingest(&booking_afternoon());
    let bob = Ledger::open(&t.path).unwrap();
    let told_on_file = bob_answers_while_ana_writes(&mut t.ledger, bob, seq, verdict);
    assert_eq!(told_on_server, told_on_file);
    assert!(
        told_on_server.contains("answered meanwhile by ana"),
        "{told_on_server}"
    );
}

#[test]
fn two_reviewers_answering_at_once_one_answer_is_written() {
    let (mut ledger, url) = server_ledger("two_reviewers_answering_at_once");
    ingest_afternoon(&mut ledger);
    for (seq, verdict) in held_callbacks() {
        let barrier = Arc::new(Barrier::new(2));
        let results: Vec<Result<i64, AnswerError>> = ["ana", "bob"]
            .map(|who| {
                let (url, barrier) = (url.clone(), Arc::clone(&barrier));
                thread::spawn(move || {
                    let mut ledger = open(&url);
                    barrier.wait();
                    review::answer(&mut ledger, &request(seq, verdict, who), now())
                        .map(|w| w.answer_id)
                })
            })
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        let written = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(written, 1, "#{seq}: {results:?}");
        let refused = results.iter().find_map(|r| r.as_ref().err()).unwrap();
        assert!(
            matches!(refused, AnswerError::AnsweredMeanwhile(_)),
            "#{seq}: {refused:?}"
        );
        assert_eq!(answers_on(&url, seq), 1, "#{seq}");
    }
}

/// Runs `theirs` on a connection of its own while `ours` (an open transaction that has
/// read what stands and appended over it) is not yet committed: `theirs` must wait for
/// it, then see it. Returns what `theirs` gave.
fn while_written<T: Send + 'static>(
    ours: jobledger::store::Writer<'_>,
    url: &str,
    theirs: impl FnOnce(&mut Ledger) -> T + Send + 'static,
) -> T {
    let url = url.to_owned();
    let theirs = thread::spawn(move || theirs(&mut open(&url)));
    thread::sleep(Duration::from_millis(700));
    assert!(
        !theirs.is_finished(),
        "the second writer waits while the first one's row is being written"
    );
    ours.commit().unwrap();
    theirs.join().unwrap()
}

#[test]
fn owners_requests_and_views_written_at_once_are_written_once() {
    use jobledger::escalation::{self, Cleared, OwnerSet};
    use jobledger::outbox::{self as requests, WithdrawError};
    use jobledger::store::SavedView;

    let (mut ana, url) = server_ledger("owners_requests_and_views");
    ingest_afternoon(&mut ana);
    let job = "booking-1045";

    // Two people setting the same owner: the second finds it standing, writes nothing.
    let mut w = ana.writer().unwrap();
    assert_eq!(w.owner(job).unwrap(), None);
    w.assign_owner(job, "ops:lee", None, "ana", now()).unwrap();
    let set = while_written(w, &url, move |bob| {
        escalation::set_owner(bob, job, "ops:lee", None, "bob", now()).unwrap()
    });
    assert!(
        matches!(&set, OwnerSet::Unchanged(standing) if standing.set_by == "ana"),
        "{set:?}"
    );

    // Two people clearing it: the second finds no owner, writes nothing.
    let mut w = ana.writer().unwrap();
    assert!(w.owner(job).unwrap().is_some());
    w.clear_owner(job, "ana", now()).unwrap();
    let cleared = while_written(w, &url, move |bob| {
        escalation::clear_owner(bob, job, "bob", now()).unwrap()
    });
    assert_eq!(cleared, Cleared::HadNone);

    // Two people withdrawing one request: the second is told it was withdrawn.
    let asked = ana.outbox().unwrap().len();
    assert_eq!(asked, 0);
    let id = {
        let mut w = ana.writer().unwrap();
        let row = w.job(job).unwrap().unwrap();
        let id = w
            .insert_request(
                &row,
                jobledger::decision::RequestKind::Cancel,
                None,
                "ana",
                now(),
            )
            .unwrap();
        w.commit().unwrap();
        id
    };
    let mut w = ana.writer().unwrap();
    assert!(w.outbox_request(id).unwrap().unwrap().withdrawal.is_none());
    w.insert_withdrawal(id, "ana", now(), "mine").unwrap();
    let withdrawn = while_written(w, &url, move |bob| {
        requests::withdraw(bob, id, "bob", "", now()).map(|row| row.id)
    });
    assert!(
        matches!(&withdrawn, Err(WithdrawError::AlreadyWithdrawn { withdrawal, .. }) if withdrawal.withdrawn_by == "ana"),
        "{withdrawn:?}"
    );

    // Two people deleting one view: the second finds none, writes nothing.
    let mut w = ana.writer().unwrap();
    w.save_view(&SavedView {
        name: "late".to_owned(),
        tab: "Held".to_owned(),
        query: "gap>1h".to_owned(),
        saved_by: "ana".to_owned(),
        saved_at: now(),
        written_by: None,
    })
    .unwrap();
    w.commit().unwrap();
    let mut w = ana.writer().unwrap();
    assert!(w.delete_view("late", "ana", now()).unwrap().is_some());
    let deleted = while_written(w, &url, move |bob| {
        let mut w = bob.writer().unwrap();
        let deleted = w.delete_view("late", "bob", now()).unwrap();
        w.commit().unwrap();
        deleted
    });
    assert_eq!(deleted, None);

    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut count = |sql: &str| -> i64 { client.query_one(sql, &[]).unwrap().get(0) };
    assert_eq!(
        count("SELECT count(*) FROM jobledger.owner_assignments WHERE set_by IN ('ana', 'bob')"),
        2
    );
    assert_eq!(
        count("SELECT count(*) FROM jobledger.request_withdrawals"),
        1
    );
    assert_eq!(
        count("SELECT count(*) FROM jobledger.saved_views WHERE deleted = 1"),
        1
    );
}
