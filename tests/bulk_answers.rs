//! Bulk answers at the store: one transaction whose answers are
//! each recorded exactly as if given alone, rows outside the verdict's closed set or
//! answered by another reviewer since the plan left out with their reason, and
//! `expect` refusing a wrong count with nothing written.
//!
//! The property: over arbitrary earlier answers, selections (with repeats, rows that
//! ask no question and numbers of no callback), verdicts, and answers another
//! reviewer gives between the plan and the write, a bulk answer leaves the ledger
//! (every table, the kept counts) equal to the same answers given one by one through
//! `review::answer`, each stating the standing answer the plan showed. Failures found
//! are kept in `proptest-regressions/bulk_answers.txt`.

mod support;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use jobledger::decision::{Disposition, Verdict};
use jobledger::review::bulk::{self, BulkError, BulkRequest, LeftOutWhy, Selection};
use jobledger::review::{self, AnswerRequest};
use jobledger::store::{CallbackFilter, Ledger};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use support::fixture::{self, TempLedger, at, now};
use tempfile::TempDir;

/// The demo's streams and a generated day of 600 jobs: 38 held (both kinds of
/// question), 8 quarantined, and hundreds of callbacks that ask nothing. Built once;
/// each case works on copies.
static BASE: LazyLock<(TempDir, PathBuf, i64)> = LazyLock::new(|| {
    let mut t = TempLedger::with_demo_streams();
    t.ingest_bytes(&fixture::synthetic_stream(600));
    let callbacks = i64::try_from(t.callbacks(None).len()).unwrap();
    let TempLedger { dir, path, ledger } = t;
    drop(ledger); // closes the file whole (no write-ahead log left beside it)
    (dir, path, callbacks)
});

/// A copy of the base ledger in its own directory.
fn copy_of_base(into: &Path) -> PathBuf {
    let path = into.join("ledger.db");
    std::fs::copy(&BASE.1, &path).unwrap();
    path
}

/// The held and quarantined callbacks of a ledger.
fn questions(ledger: &Ledger) -> Vec<i64> {
    let filter = CallbackFilter {
        open: true,
        ..CallbackFilter::default()
    };
    ledger.callback_seqs(&filter).unwrap()
}

/// The standing answer of `seq`, if any.
fn standing(ledger: &Ledger, seq: i64) -> Option<jobledger::store::AnswerRow> {
    ledger.callback(seq).unwrap().and_then(|r| r.answer)
}

/// Gives `verdict` on `seq` through the single answer's path, over its standing answer.
fn answer_alone(
    ledger: &mut Ledger,
    seq: i64,
    verdict: Verdict,
    reviewer: &str,
) -> Result<i64, review::AnswerError> {
    let seen = standing(ledger, seq).map(|a| a.id);
    answer_seen(ledger, seq, verdict, reviewer, seen)
}

/// Gives `verdict` on `seq` through the single answer's path, stating the standing
/// answer the reviewer saw.
fn answer_seen(
    ledger: &mut Ledger,
    seq: i64,
    verdict: Verdict,
    reviewer: &str,
    seen: Option<i64>,
) -> Result<i64, review::AnswerError> {
    let request = AnswerRequest {
        seq,
        verdict: verdict.as_str(),
        note: "bulk",
        reviewer,
        link_job: None,
        seen_answer: seen,
    };
    review::answer(ledger, &request, now()).map(|w| w.answer_id)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(32),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/bulk_answers.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_bulk_answer_leaves_the_ledger_as_the_same_answers_given_one_by_one(
        earlier in proptest::collection::vec((0usize..64, 0usize..7), 0..10),
        picked in proptest::collection::vec(0usize..64, 0..24),
        others in proptest::collection::vec(1i64..700, 0..6),
        verdict in 0usize..7,
        meanwhile in proptest::collection::vec((0usize..64, 0usize..7), 0..6),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        std::fs::create_dir_all(&one).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        let (bulk_path, alone_path) = (copy_of_base(&one), copy_of_base(&two));
        let mut in_bulk = Ledger::open(&bulk_path).unwrap();
        let mut alone = Ledger::open(&alone_path).unwrap();
        let asked = questions(&in_bulk);
        // The same earlier answers in both, some closing, some not, some refused.
        for (i, v) in &earlier {
            let seq = asked[i % asked.len()];
            let v = Verdict::ALL[*v];
            let first = answer_alone(&mut in_bulk, seq, v, "earlier").is_ok();
            let second = answer_alone(&mut alone, seq, v, "earlier").is_ok();
            prop_assert_eq!(first, second);
        }
        // Questions, callbacks that ask none, numbers of no callback, and repeats.
        let mut selection: Vec<i64> = picked.iter().map(|i| asked[i % asked.len()]).collect();
        selection.extend(others.iter().map(|n| n * BASE.2 / 600));
        let verdict = Verdict::ALL[verdict];
        // The plan ana reads, and what it shows of each row she then answers alone.
        let plan = bulk::read_plan(&in_bulk, Selection::Seqs(&selection), verdict, "ana", now()).unwrap();
        let mut distinct = selection.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let shown: Vec<(i64, Option<jobledger::store::AnswerRow>)> =
            distinct.iter().map(|&seq| (seq, standing(&alone, seq))).collect();
        // Between the plan and the write, lee answers some rows, in both ledgers.
        for (i, v) in &meanwhile {
            let seq = asked[i % asked.len()];
            let v = Verdict::ALL[*v];
            let first = answer_alone(&mut in_bulk, seq, v, "lee").is_ok();
            let second = answer_alone(&mut alone, seq, v, "lee").is_ok();
            prop_assert_eq!(first, second);
        }

        let request = BulkRequest {
            selection: Selection::Seqs(&selection),
            verdict,
            note: "bulk",
            reviewer: "ana",
            expect: None,
            as_of: plan.as_of,
        };
        let written = bulk::answer_bulk(&mut in_bulk, &request, now()).unwrap();

        // One by one, in ingest order, each once: a question the plan showed closed
        // is not asked again; the single answer, told the standing answer the plan
        // showed, refuses the rest itself (lee's answers since among them).
        let mut given = Vec::new();
        for (seq, seen) in shown {
            let closed = seen.as_ref().is_some_and(|a| a.verdict.closes());
            let seen = seen.map(|a| a.id);
            if !closed && answer_seen(&mut alone, seq, verdict, "ana", seen).is_ok() {
                given.push(seq);
            }
        }
        let answered: Vec<i64> = written.plan.answered.iter().map(|r| r.seq).collect();
        prop_assert_eq!(&answered, &given);
        prop_assert_eq!(written.answer_ids.len(), given.len());
        drop((in_bulk, alone));
        prop_assert_eq!(fixture::dump(&bulk_path), fixture::dump(&alone_path));
    }
}

/// The demo ledger; held #2 asks about a possible duplicate, held #11 about
/// conflicting outcomes; #5, #13, #14 and #15 are quarantined.
fn demo() -> TempLedger {
    TempLedger::with_demo_streams()
}

fn held(t: &TempLedger) -> Vec<i64> {
    t.callbacks(Some(Disposition::Hold))
        .iter()
        .map(|r| r.seq)
        .collect()
}

#[test]
fn rows_outside_the_closed_set_and_rows_answered_meanwhile_are_left_out_with_their_reason() {
    let mut t = demo();
    let held = held(&t);
    let (duplicate, conflicting) = (held[0], held[1]);
    let quarantined: Vec<i64> = t
        .callbacks(Some(Disposition::Quarantine))
        .iter()
        .map(|r| r.seq)
        .collect();
    let mut selection = vec![duplicate, conflicting];
    selection.extend(&quarantined);
    // Before the plan lee asks for a remote check on one row: the plan shows it.
    let shown_in_plan = answer_alone(
        &mut t.ledger,
        quarantined[2],
        Verdict::NeedsRemoteCheck,
        "lee",
    )
    .unwrap();
    // The plan, as the reviewer reads it: only the quarantined take `noise`.
    let plan = bulk::read_plan(
        &t.ledger,
        Selection::Seqs(&selection),
        Verdict::Noise,
        "ana",
        now(),
    )
    .unwrap();
    let planned: Vec<i64> = plan.answered.iter().map(|r| r.seq).collect();
    assert_eq!(planned, quarantined);
    assert!(
        plan.left_out
            .iter()
            .all(|l| matches!(l.why, LeftOutWhy::VerdictNotTaken(_)))
    );

    assert_eq!(plan.as_of, Some(shown_in_plan));
    // Meanwhile lee closes one quarantined row and asks for a check on another.
    let closed_meanwhile =
        answer_alone(&mut t.ledger, quarantined[0], Verdict::Noise, "lee").unwrap();
    let checked_meanwhile = answer_alone(
        &mut t.ledger,
        quarantined[1],
        Verdict::NeedsRemoteCheck,
        "lee",
    )
    .unwrap();

    let request = BulkRequest {
        selection: Selection::Seqs(&selection),
        verdict: Verdict::Noise,
        note: "spam relay",
        reviewer: "ana",
        expect: None,
        as_of: plan.as_of,
    };
    let written = bulk::answer_bulk(&mut t.ledger, &request, at("2026-11-27T17:05:00Z")).unwrap();
    let answered: Vec<i64> = written.plan.answered.iter().map(|r| r.seq).collect();
    assert_eq!(
        answered,
        quarantined[2..],
        "the rows lee answered after the plan are left out"
    );
    let why = |seq| {
        written
            .plan
            .left_out
            .iter()
            .find(|l| l.seq == seq)
            .map(|l| l.why.clone())
    };
    for (seq, id) in [
        (quarantined[0], closed_meanwhile),
        (quarantined[1], checked_meanwhile),
    ] {
        let named = why(seq);
        assert!(
            matches!(&named, Some(LeftOutWhy::AnsweredMeanwhile { answer, planned: true }) if answer.id == id && answer.reviewer == "lee"),
            "#{seq}: {named:?}"
        );
        let said = named.unwrap().to_string();
        assert!(
            said.starts_with("answered meanwhile by lee at 2026-11-27 17:00:00: "),
            "#{seq}: {said}"
        );
    }
    let changed: Vec<i64> = written.plan.changed().map(|l| l.seq).collect();
    assert_eq!(changed, quarantined[..2]);
    assert!(matches!(
        why(duplicate),
        Some(LeftOutWhy::VerdictNotTaken(_))
    ));
    assert_eq!(
        why(conflicting).map(|w| w.to_string()),
        Some("a held, conflicting outcomes callback takes success_stands, failure_stands, needs_remote_check".to_owned())
    );
    // An answer the plan showed is answered over, the new one standing in front of
    // it, as if given alone.
    let over_shown = t.ledger.answers(quarantined[2]).unwrap();
    let previous = fixture::query_i64(
        &t.path,
        "SELECT previous_answer FROM answers WHERE id = ?1",
        [over_shown[1].id],
    );
    assert_eq!(previous, shown_in_plan);
    assert_eq!(over_shown[1].reviewer, "ana");
    assert_eq!(over_shown[1].note, "spam relay");
    for seq in &quarantined[..2] {
        let answers = t.ledger.answers(*seq).unwrap();
        assert_eq!(
            answers.len(),
            1,
            "nothing written over lee's answer on #{seq}"
        );
        assert_eq!(answers[0].reviewer, "lee");
    }
    assert_eq!(
        t.ledger.open_questions().unwrap(),
        3,
        "the two held rows and lee's remote check stay open"
    );
}

#[test]
fn expect_refuses_a_wrong_count_with_nothing_written_and_writes_exactly_the_right_one() {
    let mut t = demo();
    let filter = open_quarantined();
    let before = t.dump();
    for wrong in [0, 3, 5] {
        let request = BulkRequest {
            selection: Selection::Filter(&filter),
            verdict: Verdict::Noise,
            note: "",
            reviewer: "ana",
            expect: Some(wrong),
            as_of: None,
        };
        let refused = bulk::answer_bulk(&mut t.ledger, &request, now()).unwrap_err();
        assert!(
            matches!(&refused, BulkError::NotAsExpected { expected, plan } if *expected == wrong && plan.answered.len() == 4),
            "{refused}"
        );
        assert!(
            refused.to_string().contains("nothing was written"),
            "{refused}"
        );
        assert_eq!(t.dump(), before, "a refused bulk answer wrote");
    }
    let request = BulkRequest {
        selection: Selection::Filter(&filter),
        verdict: Verdict::Noise,
        note: "",
        reviewer: "ana",
        expect: Some(4),
        as_of: None,
    };
    let written = bulk::answer_bulk(&mut t.ledger, &request, now()).unwrap();
    assert_eq!(written.answer_ids.len(), 4);
    assert_eq!(
        fixture::query_i64(&t.path, "SELECT count(*) FROM answers", []),
        4
    );
    // Read again inside the transaction: the same selection is empty now.
    let again = bulk::answer_bulk(&mut t.ledger, &request, now()).unwrap_err();
    assert!(matches!(again, BulkError::NotAsExpected { plan, .. } if plan.selected() == 0));
}

#[test]
fn a_row_a_colleague_closes_after_the_plan_stays_in_a_filtered_selection_named_and_counted() {
    let mut t = demo();
    let filter = open_quarantined();
    let plan = bulk::read_plan(
        &t.ledger,
        Selection::Filter(&filter),
        Verdict::Noise,
        "ana",
        now(),
    )
    .unwrap();
    assert_eq!(plan.answered.len(), 4);
    let closed = plan.answered[1].seq;
    // lee closes one: the open questions the filter keeps now are three.
    answer_alone(&mut t.ledger, closed, Verdict::Noise, "lee").unwrap();
    let before = t.dump();
    let request = BulkRequest {
        selection: Selection::Filter(&filter),
        verdict: Verdict::Noise,
        note: "",
        reviewer: "ana",
        expect: Some(4),
        as_of: plan.as_of,
    };
    let refused = bulk::answer_bulk(&mut t.ledger, &request, now()).unwrap_err();
    let said = refused.to_string();
    assert!(
        said.contains("but 3 of the 4 selected take it now; nothing was written"),
        "{said}"
    );
    assert!(
        said.contains(&format!("#{closed} ")) && said.contains("answered meanwhile by lee"),
        "the row is named with who answered it: {said}"
    );
    assert_eq!(t.dump(), before, "a refused bulk answer wrote");
    let request = BulkRequest {
        expect: Some(3),
        ..request
    };
    let written = bulk::answer_bulk(&mut t.ledger, &request, now()).unwrap();
    assert_eq!(written.answer_ids.len(), 3);
    let named: Vec<i64> = written.plan.changed().map(|l| l.seq).collect();
    assert_eq!(named, [closed]);
    assert_eq!(t.ledger.answers(closed).unwrap()[0].reviewer, "lee");
    assert_eq!(t.ledger.answers(closed).unwrap().len(), 1);
}

#[test]
fn with_no_plan_read_a_colleagues_standing_answer_leaves_its_row_out_but_ones_own_does_not() {
    let mut t = demo();
    let quarantined: Vec<i64> = t
        .callbacks(Some(Disposition::Quarantine))
        .iter()
        .map(|r| r.seq)
        .collect();
    answer_alone(
        &mut t.ledger,
        quarantined[0],
        Verdict::NeedsRemoteCheck,
        "lee",
    )
    .unwrap();
    answer_alone(
        &mut t.ledger,
        quarantined[1],
        Verdict::NeedsRemoteCheck,
        "ana",
    )
    .unwrap();
    let filter = open_quarantined();
    let request = BulkRequest {
        selection: Selection::Filter(&filter),
        verdict: Verdict::Noise,
        note: "",
        reviewer: "ana",
        expect: None,
        as_of: None,
    };
    let written = bulk::answer_bulk(&mut t.ledger, &request, now()).unwrap();
    let answered: Vec<i64> = written.plan.answered.iter().map(|r| r.seq).collect();
    assert_eq!(answered, quarantined[1..]);
    assert!(matches!(
        &written.plan.left_out[..],
        [left] if left.seq == quarantined[0]
            && matches!(&left.why, LeftOutWhy::AnsweredMeanwhile { planned: false, answer } if answer.reviewer == "lee")
    ));
    assert_eq!(t.ledger.answers(quarantined[0]).unwrap().len(), 1);
}

#[test]
fn a_plan_and_its_mark_are_read_in_one_snapshot() {
    let t = demo();
    let quarantined = t.callbacks(Some(Disposition::Quarantine))[0].seq;
    let path = t.path.clone();
    // An answer committed by another connection while the plan is being read is in
    // neither the plan nor its mark: both see the ledger at one moment.
    let (before, after, standing) = t
        .ledger
        .in_one_snapshot(|ledger| {
            let before = ledger.newest_answer_id()?;
            let mut other = Ledger::open(&path).unwrap();
            answer_alone(&mut other, quarantined, Verdict::Noise, "lee").unwrap();
            let after = ledger.newest_answer_id()?;
            Ok((
                before,
                after,
                ledger.callback(quarantined)?.and_then(|r| r.answer),
            ))
        })
        .unwrap();
    assert_eq!(
        (before, after),
        (0, 0),
        "the mark moved within the snapshot"
    );
    assert_eq!(
        standing, None,
        "the row read within the snapshot shows the answer"
    );
    assert_eq!(
        t.ledger.newest_answer_id().unwrap(),
        1,
        "seen once it is over"
    );
}

/// The open quarantined callbacks: the selection these tests answer in bulk.
fn open_quarantined() -> CallbackFilter {
    CallbackFilter {
        disposition: Some(Disposition::Quarantine),
        open: true,
        ..CallbackFilter::default()
    }
}
