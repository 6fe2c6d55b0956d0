//! `callbacks --open`: the queue of questions still open shrinks when a
//! question is answered with a closing verdict, and only then.

mod support;

use jobledger::store::CallbackFilter;
use serde_json::Value;
use support::binary::Workdir;

/// The sequence numbers `callbacks ARGS --json` lists.
fn seqs(w: &Workdir, args: &[&str]) -> Vec<i64> {
    let mut all = vec!["callbacks"];
    all.extend_from_slice(args);
    all.push("--json");
    match w.json(&all) {
        Value::Array(rows) => rows.iter().map(|r| r["seq"].as_i64().unwrap()).collect(),
        other => panic!("not a list: {other}"),
    }
}

/// What `summary --json` says is open.
fn open_questions(w: &Workdir) -> i64 {
    w.json(&["summary", "--json"])["backlog"]["open"]
        .as_i64()
        .unwrap()
}

#[test]
fn the_open_queue_shrinks_by_one_for_a_closing_answer_and_not_for_needs_remote_check() {
    let (w, _) = Workdir::with_demo();
    let held = seqs(&w, &["--disposition", "hold"]);
    let quarantined = seqs(&w, &["--disposition", "quarantine"]);
    let mut questions: Vec<i64> = held.iter().chain(&quarantined).copied().collect();
    questions.sort_unstable();
    // Unanswered, every held and quarantined callback is an open question.
    assert_eq!(seqs(&w, &["--open"]), questions);
    assert_eq!(open_questions(&w), i64::try_from(questions.len()).unwrap());

    let (first, second) = (held[0], held[1]);
    w.ok(&[
        "answer",
        &first.to_string(),
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    let open = seqs(&w, &["--open"]);
    assert_eq!(open.len(), questions.len() - 1, "{open:?}");
    assert!(
        !open.contains(&first),
        "an answered hold stayed open: {open:?}"
    );
    assert_eq!(open_questions(&w), i64::try_from(open.len()).unwrap());

    // `needs_remote_check` leaves the question open.
    w.ok(&[
        "answer",
        &second.to_string(),
        "--verdict",
        "needs_remote_check",
        "--reviewer",
        "ana",
    ]);
    assert_eq!(seqs(&w, &["--open"]), open);
    assert_eq!(seqs(&w, &["--open", "--disposition", "hold"]), [second]);
    // The plain listing is the JSON one's rows (a header, then a line a row).
    let text = w.ok(&["callbacks", "--open"]);
    assert_eq!(text.lines().count(), open.len() + 1, "{text}");

    // The store counts what it lists.
    let ledger = w.ledger();
    let filter = CallbackFilter {
        open: true,
        ..CallbackFilter::default()
    };
    assert_eq!(
        ledger.count_callbacks(&filter).unwrap(),
        i64::try_from(open.len()).unwrap()
    );
}
