//! Crash safety of a reviewer's answer (SPEC sec. 1.3): the real binary is
//! killed with SIGKILL while it answers, at random moments and (with `strace`) at each
//! write system call it makes. After every kill the answer is there whole (verdict,
//! note, reviewer, and for `linked` the new callback row) or not at all.
//!
//! The long version is `#[ignore]`d: `cargo test --release --test crash_answers --
//! --ignored --nocapture`. The schedule of kills comes from a seeded generator
//! (`JOBLEDGER_CRASH_SEED` changes the seed).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use fixture::NOW;
use support::crash::{Rng, count_write_calls, ingest_to_the_end, killed_at, write_stream};
use support::disk::{disk_dir, require_strace};
use support::{binary, fixture};
use tempfile::TempDir;

/// A ledger with questions to answer: held and quarantined callbacks of a demo stream.
struct Questions {
    dir: TempDir,
    db: PathBuf,
    /// (callback seq, a verdict for it, the job to link it to for `linked`).
    cases: Vec<(i64, &'static str, Option<String>)>,
}

fn questions() -> Questions {
    let dir = disk_dir("crash-");
    let (stream, _) = write_stream(dir.path(), 300, 0);
    let db = dir.path().join("answers.db");
    ingest_to_the_end(&db, &stream);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let some_job: String = conn
        .query_row("SELECT job_id FROM jobs ORDER BY job_id LIMIT 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    let mut st = conn
        .prepare(
            "SELECT seq, disposition, reason FROM callbacks
             WHERE disposition IN ('hold', 'quarantine') ORDER BY seq",
        )
        .unwrap();
    let cases: Vec<(i64, &'static str, Option<String>)> = st
        .query_map([], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
            ))
        })
        .unwrap()
        .map(|r| {
            let (seq, disposition, reason) = r.unwrap();
            match (disposition.as_str(), reason.as_str()) {
                ("hold", "possible_duplicate_effect") => (seq, "single_effect", None),
                ("hold", _) => (seq, "success_stands", None),
                (_, "no_matching_job") => (seq, "linked", Some(some_job.clone())),
                _ => (seq, "noise", None),
            }
        })
        .collect();
    assert!(
        cases.iter().any(|c| c.1 == "linked") && cases.len() > 10,
        "{cases:?}"
    );
    drop(st);
    drop(conn);
    Questions { dir, db, cases }
}

/// The latest answer's id on a callback, read with plain SQL.
fn standing_answer(db: &Path, seq: i64) -> Option<i64> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(
        "SELECT max(id) FROM answers WHERE callback_seq = ?1",
        [seq],
        |row| row.get(0),
    )
    .unwrap()
}

fn answer_command(db: &Path, case: &(i64, &str, Option<String>), note: &str) -> Command {
    let (seq, verdict, job) = case;
    let mut command = binary::command(db, NOW);
    command
        .args(["answer", &seq.to_string(), "--verdict", verdict])
        .args(["--note", note, "--reviewer", "crash-test"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(job) = job {
        command.args(["--job", job]);
    }
    if let Some(seen) = standing_answer(db, *seq) {
        command.args(["--seen", &seen.to_string()]);
    }
    command
}

/// After a kill: the file is sound, the answer is there whole or not at all, and every
/// `linked` answer has its callback row (and no callback row lacks its answer).
/// Returns whether the answer was written.
fn answer_is_all_or_nothing(db: &Path, case: &(i64, &str, Option<String>), note: &str) -> bool {
    let conn = rusqlite::Connection::open(db).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let written: Vec<(String, String, String, Option<String>)> = conn
        .prepare("SELECT verdict, note, reviewer, linked_job_id FROM answers WHERE note = ?1")
        .unwrap()
        .query_map([note], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(written.len() <= 1, "the answer was written twice");
    if let Some(answer) = written.first() {
        assert_eq!(
            answer,
            &(
                case.1.to_owned(),
                note.to_owned(),
                "crash-test".to_owned(),
                case.2.clone()
            )
        );
    }
    let unmatched: i64 = conn
        .query_row(
            "SELECT count(*) FROM callbacks c WHERE
               (SELECT count(*) FROM answers a WHERE a.callback_seq = c.seq AND a.verdict = 'linked')
               <> (SELECT count(*) FROM callbacks l WHERE l.linked_from_seq = c.seq)",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(unmatched, 0, "a linked answer and its callback row parted");
    !written.is_empty()
}

/// What became of answers killed at random moments.
#[derive(Debug, Default)]
struct AnswerTally {
    /// Answers found whole after their run.
    written: u32,
    /// Answers not there at all.
    not_written: u32,
    /// Runs that were still going when the kill came and died of it.
    killed: u32,
}

fn kill_answers_at_random(kills: u32, salt: u64) -> AnswerTally {
    let q = questions();
    let case = &q.cases[0];
    let started = Instant::now();
    let status = answer_command(&q.db, case, "timing run").status().unwrap();
    assert!(status.success());
    let window = started.elapsed().mul_f64(1.5);
    let mut rng = Rng::seeded(salt);
    let mut tally = AnswerTally::default();
    for i in 0..kills {
        let case = &q.cases[usize::try_from(i).unwrap() % q.cases.len()];
        let note = format!(
            "crash note {i}: {}",
            "x".repeat(usize::try_from(i).unwrap() * 7)
        );
        let mut child = answer_command(&q.db, case, &note).spawn().unwrap();
        std::thread::sleep(rng.delay(window));
        let finished = child.try_wait().unwrap();
        if finished.is_none() {
            child.kill().unwrap();
        }
        let status = child.wait().unwrap();
        let there = answer_is_all_or_nothing(&q.db, case, &note);
        if finished.is_some() || status.success() {
            assert!(there, "an answer that reported success is missing");
        }
        if std::os::unix::process::ExitStatusExt::signal(&status) == Some(9) {
            tally.killed += 1;
        }
        if there {
            tally.written += 1;
        } else {
            tally.not_written += 1;
        }
    }
    eprintln!(
        "answers killed at random: {tally:?} ({} questions)",
        q.cases.len()
    );
    drop(q.dir);
    tally
}

#[test]
fn an_answer_killed_at_random_moments_is_there_whole_or_not_at_all() {
    let tally = kill_answers_at_random(20, 4);
    assert!(
        tally.killed > 0,
        "no answer was killed while running: {tally:?}"
    );
    assert!(tally.written > 0, "no answer was written: {tally:?}");
}

#[test]
#[ignore = "long: 300 kills"]
fn an_answer_killed_300_times_is_there_whole_or_not_at_all() {
    let tally = kill_answers_at_random(300, 5);
    assert!(
        tally.killed > 0 && tally.written > 0 && tally.not_written > 0,
        "kills must land before and after answers commit: {tally:?}"
    );
}

#[test]
fn an_answer_killed_at_each_write_is_there_whole_or_not_at_all() {
    require_strace();
    let q = questions();
    let linked = q
        .cases
        .iter()
        .find(|c| c.1 == "linked")
        .expect("a quarantined callback")
        .clone();
    let held = q.cases[0].clone();
    let mut kills = 0;
    for (k, case) in [held, linked].iter().enumerate() {
        let counts = count_write_calls(&answer_command(&q.db, case, &format!("probe {k}")));
        assert!(
            counts.get("pwrite64").copied().unwrap_or(0) > 0,
            "{counts:?}"
        );
        for (call, total) in counts {
            for n in 1..=total {
                let note = format!("killed at {call} #{n} ({k})");
                let status = killed_at(&answer_command(&q.db, case, &note), call, n);
                if !status.success() {
                    kills += 1;
                }
                answer_is_all_or_nothing(&q.db, case, &note);
            }
        }
    }
    eprintln!("answers killed at each of {kills} write calls");
    assert!(kills > 10, "{kills}");
}
