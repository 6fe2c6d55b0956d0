//! `answer` over a selection (issue 10, item 5): `--dry-run` names the count and
//! writes nothing; `--expect N` refuses a wrong N with nothing written and writes
//! exactly N answers with the right one; the single `answer SEQ` form is unchanged.

mod support;

use support::binary::Workdir;
use support::fixture;

fn answers(w: &Workdir) -> i64 {
    fixture::query_i64(&w.db, "SELECT count(*) FROM answers", [])
}

const HOLD_NOISE: [&str; 5] = [
    "answer",
    "--disposition",
    "quarantine",
    "--verdict",
    "noise",
];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = HOLD_NOISE.to_vec();
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_dry_run_names_the_count_and_the_rows_left_out_and_writes_nothing() {
    let (w, _) = Workdir::with_demo();
    let before = fixture::dump(&w.db);
    let said = w.ok(&[
        "answer",
        "--disposition",
        "hold",
        "--verdict",
        "single_effect",
        "--dry-run",
    ]);
    assert!(
        said.contains("dry run: 1 of 2 open callbacks would be answered single_effect"),
        "{said}"
    );
    assert!(
        said.contains("#2 booking-1042 possible_duplicate_effect"),
        "{said}"
    );
    assert!(
        said.contains(
            "left out 1:\n  #11 booking-1054: a held, conflicting outcomes callback takes"
        ),
        "{said}"
    );
    let json = w.json(&with(&["--dry-run", "--json"]));
    assert_eq!(json["dry_run"], true);
    assert_eq!(json["answered"], 4);
    assert_eq!(json["rows"][0]["answer_id"], serde_json::Value::Null);
    assert_eq!(fixture::dump(&w.db), before, "a dry run wrote");
}

#[test]
fn expect_refuses_a_wrong_count_with_nothing_written_and_writes_exactly_n_with_the_right_one() {
    let (w, _) = Workdir::with_demo();
    let before = fixture::dump(&w.db);
    let refused = w.fails(&with(&["--expect", "3"]));
    assert!(
        refused.contains("expected 3 callbacks to take `noise`, but 4 of the 4 selected take it now; nothing was written"),
        "{refused}"
    );
    assert_eq!(fixture::dump(&w.db), before, "a refused bulk answer wrote");

    let said = w.ok(&with(&[
        "--expect",
        "4",
        "--note",
        "relay spam",
        "--reviewer",
        "ana",
    ]));
    assert!(
        said.starts_with("4 answers written (noise by ana) on 4 of 4 open callbacks"),
        "{said}"
    );
    assert_eq!(answers(&w), 4);
    let notes = fixture::query_i64(
        &w.db,
        "SELECT count(*) FROM answers WHERE note = 'relay spam' AND reviewer = 'ana' AND previous_answer IS NULL",
        [],
    );
    assert_eq!(notes, 4);
    // They are closed now: the same selection is empty, and --expect 4 refuses.
    let again = w.fails(&with(&["--expect", "4"]));
    assert!(again.contains("but 0 of the 0 selected"), "{again}");
    assert_eq!(answers(&w), 4);
}

#[test]
fn the_single_answer_keeps_its_form_and_a_bulk_answer_needs_a_selection() {
    let (w, _) = Workdir::with_demo();
    let said = w.ok(&[
        "answer",
        "2",
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    assert!(
        said.starts_with("answer 1 written on callback #2"),
        "{said}"
    );
    let neither = w.fails(&["answer", "--verdict", "noise"]);
    assert!(neither.contains("--disposition"), "{neither}");
    let both = w.fails(&[
        "answer",
        "5",
        "--disposition",
        "quarantine",
        "--verdict",
        "noise",
    ]);
    assert!(both.contains("cannot be used with"), "{both}");
    let linked = w.fails(&with(&["--job", "booking-1043"]));
    assert!(linked.contains("answer each alone"), "{linked}");
    let seen = w.fails(&with(&["--seen", "1"]));
    assert!(
        seen.contains("--seen names the standing answer of one callback"),
        "{seen}"
    );
    assert_eq!(answers(&w), 1);
}

#[test]
fn answer_where_selects_by_query_and_expect_guards_the_count_of_the_moment() {
    let (w, _) = Workdir::with_demo();
    let open = |w: &Workdir| {
        w.json(&["callbacks", "--open", "--json"])
            .as_array()
            .map_or(0, Vec::len)
    };
    let open_before = open(&w);
    let before = fixture::dump(&w.db);
    let duplicate = [
        "answer",
        "--where",
        "reason:possible_duplicate_effect",
        "--verdict",
        "single_effect",
    ];
    let with_duplicate = |extra: &[&'static str]| {
        let mut args = duplicate.to_vec();
        args.extend_from_slice(extra);
        args
    };
    let planned = w.ok(&with_duplicate(&["--dry-run"]));
    assert!(
        planned.contains("dry run: 1 of 1 open callbacks would be answered single_effect"),
        "{planned}"
    );
    let refused = w.fails(&with_duplicate(&["--expect", "2"]));
    assert!(refused.contains("nothing was written"), "{refused}");
    // A query the language refuses: said where, made inert, nothing written.
    let bad = w.fails(&[
        "answer",
        "--where",
        "verdict:single\u{1b}]0;x\u{7}",
        "--verdict",
        "noise",
    ]);
    assert!(bad.contains("--where"), "{bad}");
    assert!(!bad.contains('\u{1b}'), "{bad:?}");
    assert_eq!(
        fixture::dump(&w.db),
        before,
        "a refused or planned bulk wrote"
    );

    let said = w.ok(&with_duplicate(&["--expect", "1", "--reviewer", "ana"]));
    assert!(said.starts_with("1 answer"), "{said}");
    assert_eq!(answers(&w), 1);
    let on = fixture::query_i64(
        &w.db,
        "SELECT c.seq FROM answers a JOIN callbacks c ON c.seq = a.callback_seq",
        [],
    );
    assert_eq!(on, 2, "the answer is on the held duplicate, #2");
    // A closing verdict: the open queue shrinks by exactly one.
    assert_eq!(open(&w), open_before - 1);
}
