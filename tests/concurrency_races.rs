//! Concurrency (SPEC sec. 1.2 and 5) between processes racing for one
//! decision: two terminal reports for the same job at once (one wins, the other is
//! kept), and two reviewers answering the same row at once (the second is told).

mod support;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Barrier};

use fixture::{NOW, now};
use jobledger::review::{self, AnswerError, AnswerRequest};
use jobledger::store::Ledger;
use support::concurrent::{assert_not_locked, questions, stream_chunks};
use support::disk::disk_dir;
use support::{binary, fixture};

fn jobledger(db: &Path, args: &[&str]) -> Output {
    binary::run_at(db, NOW, args)
}

/// Lines that open `jobs` running jobs.
fn running_jobs(jobs: usize) -> String {
    let mut text = String::new();
    for i in 0..jobs {
        let _ = write!(
            text,
            "{{\"event\":\"job_accepted\",\"job_id\":\"race-{i}\",\"at\":\"2026-11-27T10:00:00Z\",\"timeout_s\":600}}\n\
             {{\"event\":\"attempt_started\",\"job_id\":\"race-{i}\",\"attempt\":1,\"at\":\"2026-11-27T10:00:01Z\"}}\n"
        );
    }
    text
}

/// Starts both commands together and waits for both.
fn at_once(a: &mut Command, b: &mut Command) -> (Output, Output) {
    let a = a
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let b = b
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (a.wait_with_output().unwrap(), b.wait_with_output().unwrap())
}

fn command(db: &Path, args: &[&str]) -> Command {
    let mut c = binary::command(db, NOW);
    c.args(args);
    c
}

#[test]
fn racing_terminal_reports_from_two_processes_one_wins_the_other_is_kept() {
    const JOBS: usize = 12;
    let dir = disk_dir("concurrency-");
    let db = dir.path().join("race.db");
    let setup = dir.path().join("setup.ndjson");
    std::fs::write(&setup, running_jobs(JOBS)).unwrap();
    assert!(
        jobledger(&db, &["ingest", setup.to_str().unwrap()])
            .status
            .success()
    );
    for i in 0..JOBS {
        // A worker's success and a permanent failure for the same attempt, at once;
        // for half of the jobs as callbacks instead of worker records.
        let (success, failure) = if i % 2 == 0 {
            (
                format!(
                    "{{\"event\":\"job_succeeded\",\"job_id\":\"race-{i}\",\"attempt\":1,\"at\":\"2026-11-27T10:01:00Z\",\"result_ref\":\"s3://r/{i}\"}}\n"
                ),
                format!(
                    "{{\"event\":\"job_failed\",\"job_id\":\"race-{i}\",\"attempt\":1,\"at\":\"2026-11-27T10:01:00Z\",\"cause\":\"oom\",\"permanent\":true}}\n"
                ),
            )
        } else {
            (
                format!(
                    "{{\"event\":\"callback\",\"delivery_id\":\"s-{i}\",\"job_id\":\"race-{i}\",\"outcome\":\"success\",\"at\":\"2026-11-27T10:01:00Z\"}}\n"
                ),
                format!(
                    "{{\"event\":\"callback\",\"delivery_id\":\"f-{i}\",\"job_id\":\"race-{i}\",\"outcome\":\"failure\",\"at\":\"2026-11-27T10:01:00Z\"}}\n"
                ),
            )
        };
        let (a, b) = (
            dir.path().join(format!("s-{i}.ndjson")),
            dir.path().join(format!("f-{i}.ndjson")),
        );
        std::fs::write(&a, success).unwrap();
        std::fs::write(&b, failure).unwrap();
        let (out_a, out_b) = at_once(
            &mut command(&db, &["ingest", a.to_str().unwrap()]),
            &mut command(&db, &["ingest", b.to_str().unwrap()]),
        );
        for out in [&out_a, &out_b] {
            assert_not_locked("racing ingest", out);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    for i in 0..JOBS {
        let job = format!("race-{i}");
        let state: String = conn
            .query_row("SELECT state FROM jobs WHERE job_id = ?1", [&job], |r| {
                r.get(0)
            })
            .unwrap();
        let terminal: Vec<(String, bool)> = conn
            .prepare(
                "SELECT to_state, applied FROM job_history
                 WHERE job_id = ?1 AND to_state IN ('succeeded', 'failed') ORDER BY id",
            )
            .unwrap()
            .query_map([&job], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let won: Vec<_> = terminal.iter().filter(|t| t.1).collect();
        assert_eq!(
            won.len(),
            1,
            "{job}: exactly one transition wins: {terminal:?}"
        );
        assert_eq!(won[0].0, state, "{job}: the winner is the state");
        if i % 2 == 0 {
            // The worker record that lost is kept in the history, not applied.
            assert_eq!(terminal.len(), 2, "{job}: {terminal:?}");
            assert!(terminal.iter().any(|t| !t.1 && t.0 != state), "{job}");
        } else {
            // The callback that came second is held for a person, with no effect.
            let dispositions: Vec<(String, String)> = conn
                .prepare("SELECT disposition, reason FROM callbacks WHERE job_id = ?1 ORDER BY seq")
                .unwrap()
                .query_map([&job], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert_eq!(dispositions.len(), 2, "{job}");
            assert_eq!(dispositions[0].0, "apply", "{job}: {dispositions:?}");
            assert_eq!(
                dispositions[1],
                ("hold".to_owned(), "conflicting_outcomes".to_owned()),
                "{job}"
            );
        }
    }
}

#[test]
fn two_reviewers_answering_the_same_row_at_once_the_second_is_told() {
    let dir = disk_dir("concurrency-");
    let db = dir.path().join("answers.db");
    let chunks = stream_chunks(dir.path(), 400, 100_000);
    assert!(
        jobledger(&db, &["ingest", chunks[0].to_str().unwrap()])
            .status
            .success()
    );
    let asked = questions(&db);
    // Through the command line: two processes at once, neither having seen an answer.
    for (seq, verdict) in asked.iter().take(8) {
        let seq = seq.to_string();
        let args = |who: &'static str| {
            [
                "answer",
                &seq,
                "--verdict",
                verdict,
                "--note",
                who,
                "--reviewer",
                who,
            ]
            .map(str::to_owned)
        };
        let (a, b) = (args("ana"), args("bob"));
        let (out_a, out_b) = at_once(
            &mut command(&db, &a.each_ref().map(String::as_str)),
            &mut command(&db, &b.each_ref().map(String::as_str)),
        );
        assert_not_locked("answer", &out_a);
        assert_not_locked("answer", &out_b);
        assert!(
            out_a.status.success() != out_b.status.success(),
            "#{seq}: exactly one answer is written"
        );
        let loser = if out_a.status.success() {
            &out_b
        } else {
            &out_a
        };
        let told = String::from_utf8_lossy(&loser.stderr);
        assert!(told.contains("answered meanwhile"), "{told}");
        let count = fixture::query_i64(
            &db,
            "SELECT count(*) FROM answers WHERE callback_seq = ?1",
            [seq.parse::<i64>().unwrap()],
        );
        assert_eq!(count, 1);
    }
    // Through the library: two threads released together by a barrier.
    for (seq, verdict) in asked.iter().skip(8).take(8) {
        let barrier = Arc::new(Barrier::new(2));
        let results: Vec<Result<i64, AnswerError>> = ["ana", "bob"]
            .map(|who| {
                let (db, barrier, verdict, seq) =
                    (db.clone(), Arc::clone(&barrier), *verdict, *seq);
                std::thread::spawn(move || {
                    let mut ledger = Ledger::open(&db).unwrap();
                    barrier.wait();
                    review::answer(
                        &mut ledger,
                        &AnswerRequest {
                            seq,
                            verdict,
                            note: who,
                            reviewer: who,
                            link_job: None,
                            seen_answer: None,
                        },
                        now(),
                    )
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
    }
}
