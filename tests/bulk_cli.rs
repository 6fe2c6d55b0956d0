//! `answer` over a selection: `--dry-run` names the count and
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

/// The command a dry run printed after "to write it: ", as words (none of them
/// quoted here: the ledger's path and the answer hold nothing a shell acts on).
fn command_printed(said: &str) -> Vec<String> {
    let line = said
        .lines()
        .find_map(|line| line.strip_prefix("to write it: "))
        .unwrap_or_else(|| panic!("the dry run printed no command: {said}"));
    assert!(!line.contains('\''), "quoted: {line}");
    line.split_whitespace().map(str::to_owned).collect()
}

/// Runs a printed command as a person would paste it, at the demo's clock.
fn run_printed(w: &Workdir, words: &[String]) -> std::process::Output {
    assert_eq!(words[0], "jobledger");
    support::binary::bare()
        .current_dir(w.dir.path())
        .args(&words[1..])
        .args(["--now", fixture::NOW])
        .output()
        .expect("the binary runs")
}

#[test]
fn a_colleagues_answer_after_the_dry_run_is_left_out_and_named_and_never_written_over() {
    let (w, _) = Workdir::with_demo();
    let planned = w.ok(&with(&["--dry-run", "--reviewer", "ana"]));
    assert!(
        planned.contains("dry run: 4 of 4 open callbacks would be answered noise by ana"),
        "{planned}"
    );
    let words = command_printed(&planned);
    let db = w.db.to_str().unwrap();
    assert_eq!(
        words.join(" "),
        format!(
            "jobledger --db {db} answer --disposition quarantine --verdict noise --reviewer ana --as-of 0 --expect 4"
        )
    );
    let json = w.json(&with(&["--dry-run", "--reviewer", "ana", "--json"]));
    assert_eq!(json["as_of"], 0);
    assert_eq!(json["write_command"], words.join(" ").as_str());

    // A colleague answers #13 after the plan: a remote check, which leaves it open.
    w.ok(&[
        "answer",
        "13",
        "--verdict",
        "needs_remote_check",
        "--note",
        "remote may have charged twice; checking",
        "--reviewer",
        "lee",
    ]);
    let before = fixture::dump(&w.db);
    let lees = "#13 -: answered meanwhile by lee at 2026-11-27 17:00:00: needs_remote_check (remote may have charged twice; checking); it stands (answer 1, given after the plan)";

    // The command as printed: 3 take the verdict now, not 4; nothing is written.
    let refused = run_printed(&w, &words);
    let said = support::binary::refused(
        &refused,
        &[
            "expected 4 callbacks to take `noise`, but 3 of the 4 selected take it now; nothing was written",
        ],
    );
    assert!(said.contains(lees), "{said}");
    assert_eq!(fixture::dump(&w.db), before, "a refused bulk answer wrote");

    // Without the mark, lee's answer was in no plan read: left out and named too.
    let unmarked = w.run(&with(&["--reviewer", "ana", "--expect", "4"]));
    let said = support::binary::refused(
        &unmarked,
        &["but 3 of the 4 selected", "#13 -: answered by lee at"],
    );
    assert!(said.contains("no plan showed it"), "{said}");
    assert_eq!(fixture::dump(&w.db), before, "a refused bulk answer wrote");

    // With the count that holds now, the other three are written and #13 named.
    let mut three = words.clone();
    *three.last_mut().unwrap() = "3".to_owned();
    let written = run_printed(&w, &three);
    let said = support::binary::succeeded(&written, &[]);
    assert!(
        said.starts_with("3 answers written (noise by ana) on 3 of 4 open callbacks"),
        "{said}"
    );
    assert!(said.contains(&format!("left out 1:\n  {lees}")), "{said}");
    let on_13 = w.json(&["callbacks", "--disposition", "quarantine", "--json"]);
    let on_13 = on_13
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["seq"] == 13)
        .expect("#13")["answer"]
        .clone();
    assert_eq!(on_13["reviewer"], "lee", "lee's answer still stands");
    assert_eq!(on_13["verdict"], "needs_remote_check");
    assert_eq!(
        fixture::query_i64(
            &w.db,
            "SELECT count(*) FROM answers WHERE callback_seq = 13",
            []
        ),
        1
    );
}
