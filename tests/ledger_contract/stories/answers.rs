//! Answers: written at once, append-only, never over one the reviewer has not seen.

use jobledger::decision::{Disposition, JobState, Verdict};
use jobledger::review::{AnswerError, AnswerRequest, answer};
use jobledger::store::{CallbackFilter, PageRequest};
use serde_json::Value;

use super::{callbacks, list, seq_of, with_afternoon, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::{at, now};

/// The standing answer of callback `seq`, as `callbacks --json` shows it.
fn standing(location: &Location, seq: i64) -> Value {
    callbacks(location)
        .into_iter()
        .find(|c| c["seq"] == seq)
        .map_or_else(|| panic!("no callback #{seq}"), |c| c["answer"].clone())
}

/// The sequence numbers of the open questions (`callbacks --open`).
fn open_questions(location: &Location) -> Vec<i64> {
    list(location.json(&["callbacks", "--open", "--json"]))
        .iter()
        .map(|c| c["seq"].as_i64().expect("a number"))
        .collect()
}

/// Ann answers C2; Bob, who had not seen her answer, is refused and told whose answer
/// stands and how to answer over it; once he says he saw it, his answer is appended
/// and stands, hers kept beneath. No answer moves the job.
pub fn a_second_answer_over_an_unseen_one_is_refused(location: &Location) {
    with_afternoon(location);
    let seq = seq_of(location, "d-1042-a");
    let seq_text = seq.to_string();
    assert!(open_questions(location).contains(&seq));

    let ann = location.json(&[
        "answer",
        &seq_text,
        "--verdict",
        "single_effect",
        "--note",
        "checked with the hotel",
        "--reviewer",
        "ann",
        "--json",
    ]);
    assert_eq!(ann["callback_seq"], seq);
    assert_eq!(ann["verdict"], "single_effect");
    assert_eq!(ann["reviewer"], "ann");
    assert_eq!(ann["note"], "checked with the hotel");
    assert_eq!(ann["answered_at"], "2026-11-27T17:00:00.000Z");
    let ann_id = ann["id"].as_i64().expect("an answer id");
    let shown = standing(location, seq);
    assert_eq!(shown["id"], ann_id);
    assert_eq!(shown["reviewer"], "ann");
    assert!(
        !open_questions(location).contains(&seq),
        "the answer closes it"
    );

    let stderr = location.refused(
        &[
            "answer",
            &seq_text,
            "--verdict",
            "duplicate_effect",
            "--reviewer",
            "bob",
        ],
        &[
            "answered meanwhile by ann",
            "nothing was written",
            &format!("--seen {ann_id}"),
        ],
    );
    assert!(stderr.contains("single_effect"), "{stderr}");
    assert_eq!(standing(location, seq), shown, "Ann's answer stands");

    let bob = location.json(&[
        "answer",
        &seq_text,
        "--verdict",
        "duplicate_effect",
        "--reviewer",
        "bob",
        "--seen",
        &ann_id.to_string(),
        "--json",
    ]);
    assert_ne!(bob["id"], ann_id);
    assert_eq!(standing(location, seq)["reviewer"], "bob");

    let ledger = location.open_read_only();
    let kept: Vec<(String, Verdict)> = ledger
        .answers(seq)
        .unwrap()
        .into_iter()
        .map(|a| (a.reviewer, a.verdict))
        .collect();
    assert_eq!(
        kept,
        [
            ("ann".to_owned(), Verdict::SingleEffect),
            ("bob".to_owned(), Verdict::DuplicateEffect)
        ],
        "append-only, oldest first"
    );
    assert_eq!(
        ledger.job("booking-1042").unwrap().expect("the job").state,
        JobState::Running,
        "an answer never moves a job"
    );
}

/// The library and the binary refuse each other's unseen answers alike: an answer
/// written through the API is one the binary must be told it saw, and the other way
/// round. `needs_remote_check` leaves the question open.
pub fn an_answer_is_written_through_the_api_and_read_by_the_binary(location: &Location) {
    with_afternoon(location);
    let seq = seq_of(location, "d-9999-a");
    let carol = {
        let mut ledger = location.open();
        answer(
            &mut ledger,
            &AnswerRequest {
                seq,
                verdict: "needs_remote_check",
                note: "asked the relay",
                reviewer: "carol",
                link_job: None,
                seen_answer: None,
            },
            at("2026-11-27T16:00:00Z"),
        )
        .expect("the first answer is written")
    };
    assert_eq!(carol.linked, None);
    let shown = standing(location, seq);
    assert_eq!(shown["id"], carol.answer_id);
    assert_eq!(shown["verdict"], "needs_remote_check");
    assert_eq!(shown["answered_at"], "2026-11-27T16:00:00.000Z");
    assert!(
        open_questions(location).contains(&seq),
        "needs_remote_check leaves the question open"
    );

    let seq_text = seq.to_string();
    location.refused(
        &[
            "answer",
            &seq_text,
            "--verdict",
            "noise",
            "--reviewer",
            "dan",
        ],
        &["answered meanwhile by carol"],
    );
    let dan = location.json(&[
        "answer",
        &seq_text,
        "--verdict",
        "noise",
        "--reviewer",
        "dan",
        "--seen",
        &carol.answer_id.to_string(),
        "--json",
    ]);
    assert!(!open_questions(location).contains(&seq), "noise closes it");

    let mut ledger = location.open();
    let refused = answer(
        &mut ledger,
        &AnswerRequest {
            seq,
            verdict: "needs_remote_check",
            note: "",
            reviewer: "carol",
            link_job: None,
            seen_answer: Some(carol.answer_id),
        },
        now(),
    );
    match refused {
        Err(AnswerError::AnsweredMeanwhile(theirs)) => {
            assert_eq!(theirs.id, dan["id"].as_i64().expect("an answer id"));
            assert_eq!(theirs.reviewer, "dan");
            assert_eq!(theirs.verdict, Verdict::Noise);
        }
        other => panic!("an answer over Dan's unseen one: {other:?}"),
    }
    assert_eq!(ledger.answers(seq).unwrap().len(), 2, "nothing was written");
}

/// A question is open as its standing answer leaves it, however the reading asks: a
/// closing answer closes it, a later `needs_remote_check` over that one opens it
/// again, and another closing answer closes it once more. The held open questions
/// under a search are the same in a page, in their count and in the selection a bulk
/// answer is given, and that selection, read as it stood at an earlier answer, judges
/// by the answer standing then.
pub fn a_question_closed_then_asked_again_is_open_by_its_standing_answer(location: &Location) {
    with_afternoon(location);
    let seq = seq_of(location, "d-1042-a");
    let mut ledger = location.open();
    let mut write = |verdict: &'static str, reviewer: &'static str, seen, when| {
        answer(
            &mut ledger,
            &AnswerRequest {
                seq,
                verdict,
                note: "",
                reviewer,
                link_job: None,
                seen_answer: seen,
            },
            at(when),
        )
        .expect("the answer is written")
        .answer_id
    };
    let closed = write("single_effect", "ann", None, "2026-11-27T16:00:00Z");
    let asked_again = write(
        "needs_remote_check",
        "bob",
        Some(closed),
        "2026-11-27T16:05:00Z",
    );
    let open_under = |answers_as_of| {
        let filter = CallbackFilter {
            disposition: Some(Disposition::Hold),
            open: true,
            answers_as_of,
            ..CallbackFilter::default()
        }
        .with_query("1042", now(), "ann")
        .expect("a query");
        let ledger = location.open();
        let page: Vec<i64> = ledger
            .callbacks_page(&filter, PageRequest::first(50))
            .expect("a page")
            .iter()
            .map(|row| row.seq)
            .collect();
        let counted = ledger.count_callbacks(&filter).expect("a count");
        let selected = ledger.callback_seqs(&filter).expect("a selection");
        (page, counted, selected)
    };
    let (page, counted, selected) = open_under(None);
    assert!(page.contains(&seq), "asked again, it is open: {page:?}");
    assert_eq!(usize::try_from(counted).unwrap(), page.len());
    assert_eq!(selected, page);
    let (_, counted_then, selected_then) = open_under(Some(closed));
    assert!(
        !selected_then.contains(&seq),
        "as it stood at the closing answer, it was closed"
    );
    assert_eq!(counted_then, counted - 1);
    assert_eq!(open_under(Some(asked_again)).2, selected);

    write(
        "duplicate_effect",
        "ann",
        Some(asked_again),
        "2026-11-27T16:10:00Z",
    );
    let (page, counted, selected) = open_under(None);
    assert!(!page.contains(&seq), "closed again: {page:?}");
    assert_eq!(usize::try_from(counted).unwrap(), page.len());
    assert_eq!(selected, page);
}

/// A quarantined callback linked to a job is judged against it by the table (a new row,
/// the quarantined one kept as it was); a link to no job is refused.
pub fn a_linked_answer_judges_the_callback_against_the_job(location: &Location) {
    with_demo_streams(location);
    let seq = seq_of(location, "d-anon-1");
    let seq_text = seq.to_string();
    let before = location.json(&["summary", "--json"]);

    location.refused(
        &[
            "answer",
            &seq_text,
            "--verdict",
            "linked",
            "--job",
            "booking-7777",
            "--reviewer",
            "ann",
        ],
        &["booking-7777", "nothing was written"],
    );
    assert_eq!(location.json(&["summary", "--json"]), before);

    // booking-1056 timed out: a success for it is a late success.
    let linked = location.json(&[
        "answer",
        &seq_text,
        "--verdict",
        "linked",
        "--job",
        "booking-1056",
        "--reviewer",
        "ann",
        "--json",
    ]);
    assert_eq!(linked["linked_job_id"], "booking-1056");
    assert_eq!(linked["linked"]["disposition"], "apply");
    assert_eq!(linked["linked"]["reason"], "late_success");
    let new_seq = linked["linked"]["seq"].as_i64().expect("the new callback");

    let rows = callbacks(location);
    let original = rows.iter().find(|c| c["seq"] == seq).expect("kept");
    assert_eq!(original["disposition"], "quarantine");
    assert_eq!(original["job_id"], Value::Null);
    assert_eq!(original["answer"]["verdict"], "linked");
    let judged = rows
        .iter()
        .find(|c| c["seq"] == new_seq)
        .expect("the new row");
    assert_eq!(judged["job_id"], "booking-1056");
    assert_eq!(judged["linked_from_seq"], seq);
    assert_eq!(judged["disposition"], "apply");

    let after = location.json(&["summary", "--json"]);
    assert_eq!(
        after["callbacks"],
        before["callbacks"].as_i64().unwrap() + 1
    );
    assert_eq!(after["applied"], before["applied"].as_i64().unwrap() + 1);
    let ledger = location.open_read_only();
    assert_eq!(
        ledger.job("booking-1056").unwrap().expect("the job").state,
        JobState::CompletedLate
    );
}

/// Ann plans to call every quarantined callback noise; Bob answers one of them before
/// she writes. Her plan's count no longer holds, so `--expect` writes nothing and names
/// Bob's row; written without it, the plan leaves Bob's row out, his answer standing.
pub fn a_bulk_answer_leaves_out_rows_answered_since_its_plan(location: &Location) {
    with_demo_streams(location);
    let bulk = [
        "answer",
        "--disposition",
        "quarantine",
        "--verdict",
        "noise",
        "--reviewer",
        "ann",
    ];
    let plan = location.json(&[&bulk[..], &["--dry-run", "--json"]].concat());
    assert_eq!(plan["selected"], 4);
    assert_eq!(plan["answered"], 4);
    let as_of = plan["as_of"].as_i64().expect("the plan's newest answer");
    let planned: Vec<i64> = plan["rows"]
        .as_array()
        .expect("the planned rows")
        .iter()
        .map(|r| r["seq"].as_i64().expect("a number"))
        .collect();
    assert_eq!(planned.len(), 4);

    let bobs_row = seq_of(location, "d-anon-1");
    let bob = location.json(&[
        "answer",
        &bobs_row.to_string(),
        "--verdict",
        "needs_remote_check",
        "--reviewer",
        "bob",
        "--json",
    ]);
    let before = callbacks(location);

    let as_of = as_of.to_string();
    let written = [&bulk[..], &["--as-of", &as_of]].concat();
    location.refused(
        &[&written[..], &["--expect", "4"]].concat(),
        &[
            "nothing was written",
            &format!("#{bobs_row}"),
            "answered meanwhile by bob",
        ],
    );
    assert_eq!(callbacks(location), before, "a refused plan writes nothing");

    let report = location.json(&[&written[..], &["--json"]].concat());
    assert_eq!(report["answered"], 3);
    let left_out = report["left_out"].as_array().expect("the rows left out");
    assert_eq!(left_out.len(), 1, "{report}");
    assert_eq!(left_out[0]["seq"], bobs_row);
    assert_eq!(left_out[0]["since_plan"], true);
    for seq in planned {
        let answer = standing(location, seq);
        let expected = if seq == bobs_row { "bob" } else { "ann" };
        assert_eq!(answer["reviewer"], expected, "#{seq}: {answer}");
    }
    assert_eq!(standing(location, bobs_row)["id"], bob["id"]);
}

/// The case answered before on each question's job, read for a whole page at once, is
/// what asking each row alone gives: the latest answer on another callback of the
/// same job, none for a job with no other answer.
pub fn earlier_answers_on_a_page_are_those_asked_one_by_one(location: &Location) {
    use jobledger::store::{CallbackFilter, PageRequest};
    with_demo_streams(location);
    for (delivery, verdict) in [
        ("d-1042-a", "single_effect"),
        ("d-1054-b", "needs_remote_check"),
    ] {
        let seq = seq_of(location, delivery).to_string();
        location.ok(&["answer", &seq, "--verdict", verdict, "--reviewer", "ann"]);
    }
    let ledger = location.open_read_only();
    let rows = ledger
        .callbacks_page(&CallbackFilter::default(), PageRequest::first(10_000))
        .unwrap();
    let asked: Vec<(&str, i64)> = rows
        .iter()
        .filter_map(|row| row.job_id.as_deref().map(|job| (job, row.seq)))
        .collect();
    let one_by_one: Vec<_> = asked
        .iter()
        .map(|&(job, seq)| ledger.earlier_answer_on_job(job, seq).unwrap())
        .collect();
    assert!(
        one_by_one.iter().any(Option::is_some) && one_by_one.iter().any(Option::is_none),
        "d-1054-a's job has an answer on d-1054-b; most jobs have none"
    );
    assert_eq!(ledger.earlier_answers_on_jobs(&asked).unwrap(), one_by_one);
    assert_eq!(ledger.earlier_answers_on_jobs(&[]).unwrap(), Vec::new());
}
