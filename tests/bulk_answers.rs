//! Bulk answers (issue 10, item 5) at the store: one transaction whose answers are
//! each recorded exactly as if given alone, rows outside the verdict's closed set or
//! answered meanwhile left out with their reason, and `expect` refusing a wrong count
//! with nothing written.
//!
//! The property: over arbitrary earlier answers, selections (with repeats, rows that
//! ask no question and numbers of no callback) and verdicts, a bulk answer leaves the
//! ledger (every table, the kept counts) equal to the same answers given one by one
//! through `review::answer`. Failures found are kept in
//! `proptest-regressions/bulk_answers.txt`.

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

/// Gives `verdict` on `seq` through the single answer's path, over its standing answer.
fn answer_alone(
    ledger: &mut Ledger,
    seq: i64,
    verdict: Verdict,
    reviewer: &str,
) -> Result<i64, review::AnswerError> {
    let seen = ledger
        .callback(seq)
        .unwrap()
        .and_then(|r| r.answer)
        .map(|a| a.id);
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

        let request = BulkRequest {
            selection: Selection::Seqs(&selection),
            verdict,
            note: "bulk",
            reviewer: "ana",
            expect: None,
        };
        let written = bulk::answer_bulk(&mut in_bulk, &request, now()).unwrap();

        // One by one, in ingest order, each once: a question whose standing answer
        // closes it is not asked again; the single answer refuses the rest itself.
        let mut distinct = selection.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let mut given = Vec::new();
        for seq in distinct {
            let closed = alone
                .callback(seq)
                .unwrap()
                .and_then(|r| r.answer)
                .is_some_and(|a| a.verdict.closes());
            if !closed && answer_alone(&mut alone, seq, verdict, "ana").is_ok() {
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
    // The plan, as the reviewer reads it: only the quarantined take `noise`.
    let plan = bulk::read_plan(&t.ledger, Selection::Seqs(&selection), Verdict::Noise).unwrap();
    let planned: Vec<i64> = plan.answered.iter().map(|r| r.seq).collect();
    assert_eq!(planned, quarantined);
    assert!(
        plan.left_out
            .iter()
            .all(|l| matches!(l.why, LeftOutWhy::VerdictNotTaken(_)))
    );

    // Meanwhile someone closes one quarantined row and leaves another open.
    let closed_meanwhile =
        answer_alone(&mut t.ledger, quarantined[0], Verdict::Noise, "lee").unwrap();
    let still_open = answer_alone(
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
    };
    let written = bulk::answer_bulk(&mut t.ledger, &request, at("2026-11-27T17:05:00Z")).unwrap();
    let answered: Vec<i64> = written.plan.answered.iter().map(|r| r.seq).collect();
    assert_eq!(
        answered,
        quarantined[1..],
        "the row closed meanwhile is left out"
    );
    let why = |seq| {
        written
            .plan
            .left_out
            .iter()
            .find(|l| l.seq == seq)
            .map(|l| l.why.clone())
    };
    assert!(
        matches!(why(quarantined[0]), Some(LeftOutWhy::Closed(a)) if a.id == closed_meanwhile && a.reviewer == "lee")
    );
    assert!(matches!(
        why(duplicate),
        Some(LeftOutWhy::VerdictNotTaken(_))
    ));
    assert_eq!(
        why(conflicting).map(|w| w.to_string()),
        Some("a held, conflicting outcomes callback takes success_stands, failure_stands, needs_remote_check".to_owned())
    );
    // Each answer stands in front of the one it answers over, as if given alone.
    let over_open = t.ledger.answers(quarantined[1]).unwrap();
    let previous = fixture::query_i64(
        &t.path,
        "SELECT previous_answer FROM answers WHERE id = ?1",
        [over_open[1].id],
    );
    assert_eq!(previous, still_open);
    assert_eq!(over_open[1].reviewer, "ana");
    assert_eq!(over_open[1].note, "spam relay");
    assert_eq!(
        t.ledger.answers(quarantined[0]).unwrap().len(),
        1,
        "nothing written over the closed row"
    );
    assert_eq!(
        t.ledger.open_questions().unwrap(),
        2,
        "the two held rows stay open"
    );
}

#[test]
fn expect_refuses_a_wrong_count_with_nothing_written_and_writes_exactly_the_right_one() {
    let mut t = demo();
    let filter = CallbackFilter {
        disposition: Some(Disposition::Quarantine),
        open: true,
        ..CallbackFilter::default()
    };
    let before = t.dump();
    for wrong in [0, 3, 5] {
        let request = BulkRequest {
            selection: Selection::Filter(&filter),
            verdict: Verdict::Noise,
            note: "",
            reviewer: "ana",
            expect: Some(wrong),
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
