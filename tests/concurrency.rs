//! Concurrency (SPEC sec. 1.2 and 5; issue 5): an ingest writer, two reviewers, a
//! reader paging like the console and the console itself at work on one ledger at once; racing terminal reports; two
//! reviewers answering the same row.
//!
//! Nothing here asserts a duration. The mixed run goes on for a few seconds by default
//! and for 30 seconds in its `#[ignore]`d long version (`cargo test --release --test
//! concurrency -- --ignored --nocapture`); what it checks holds however far it got.

#[path = "support/binary.rs"]
mod binary;
#[path = "support/fixture.rs"]
mod fixture;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use binary::bin;
use fixture::{NOW, now};
use jobledger::review::{self, AnswerError, AnswerRequest};
use jobledger::store::{CallbackFilter, Ledger, PageRequest};
use tempfile::TempDir;

fn disk_dir() -> TempDir {
    tempfile::Builder::new()
        .prefix("concurrency-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

fn jobledger(db: &Path, args: &[&str]) -> Output {
    binary::run_at(db, NOW, args)
}

/// A person must never see these: waiting for another writer is jobledger's job.
fn assert_not_locked(what: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    for word in ["locked", "busy"] {
        assert!(
            !stderr.to_lowercase().contains(word),
            "{what}: a user was told {stderr:?}"
        );
    }
}

/// The synthetic stream of `jobs` jobs, split into files of at most `lines` lines.
fn stream_chunks(dir: &Path, jobs: u32, lines: usize) -> Vec<PathBuf> {
    let stream = fixture::synthetic_stream(jobs);
    let all: Vec<&[u8]> = stream.split(|b| *b == b'\n').collect();
    all.chunks(lines)
        .enumerate()
        .map(|(i, chunk)| {
            let path = dir.join(format!("chunk-{i:03}.ndjson"));
            std::fs::write(&path, chunk.join(&b'\n')).unwrap();
            path
        })
        .collect()
}

/// Held and quarantined callbacks: (seq, verdict to give).
fn questions(db: &Path) -> Vec<(i64, &'static str)> {
    let ledger = Ledger::open_read_only(db).unwrap();
    let mut out = Vec::new();
    for disposition in [
        jobledger::decision::Disposition::Hold,
        jobledger::decision::Disposition::Quarantine,
    ] {
        let rows = ledger
            .callbacks_page(
                &CallbackFilter {
                    disposition: Some(disposition),
                    text: None,
                },
                PageRequest::first(10_000),
            )
            .unwrap();
        for row in rows {
            let kind = review::CaseKind::of(row.disposition, row.reason).unwrap();
            out.push((row.seq, kind.verdicts()[0].name));
        }
    }
    out.into_iter()
        .map(|(seq, verdict)| {
            // `linked` needs a job; `needs_remote_check` fits every kind of question.
            (
                seq,
                if verdict == "linked" {
                    "noise"
                } else {
                    verdict
                },
            )
        })
        .collect()
}

#[derive(Debug, Default)]
struct Figures {
    ingest_runs: u32,
    lines_ingested: u64,
    answers_written: u32,
    told_answered_meanwhile: u32,
    reader_pages: u32,
    reader_saw_changes: u32,
    console_frames: u32,
    console_saw_changes: u32,
}

/// One reviewer: answers the questions in its own order, each time over the answer it
/// last read (as the console does), until told to stop. A refusal because the other
/// reviewer answered meanwhile is expected; anything else is a failure.
fn reviewer(
    db: &Path,
    name: &'static str,
    questions: &[(i64, &'static str)],
    stop: &AtomicBool,
) -> (Vec<(i64, String)>, u32) {
    let mut written = Vec::new();
    let mut refused = 0;
    let mut round = 0;
    while !stop.load(Ordering::Relaxed) {
        for (seq, verdict) in questions {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let seen = {
                let ledger = Ledger::open_read_only(db).unwrap();
                ledger.answers(*seq).unwrap().last().map(|a| a.id)
            };
            let note = format!("{name} round {round} on #{seq}");
            let mut args = vec![
                "answer".to_owned(),
                seq.to_string(),
                "--verdict".to_owned(),
                (*verdict).to_owned(),
                "--note".to_owned(),
                note.clone(),
                "--reviewer".to_owned(),
                name.to_owned(),
            ];
            if let Some(seen) = seen {
                args.extend(["--seen".to_owned(), seen.to_string()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = jobledger(db, &args);
            assert_not_locked(name, &out);
            if out.status.success() {
                written.push((*seq, note));
            } else {
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    stderr.contains("answered meanwhile"),
                    "{name}: answer failed: {stderr}"
                );
                refused += 1;
            }
        }
        round += 1;
    }
    (written, refused)
}

/// A console-style reader: pages through every callback by keyset and watches
/// `data_version`, checking that what it reads is consistent.
fn reader(db: &Path, stop: &AtomicBool) -> (u32, u32) {
    let ledger = Ledger::open_read_only(db).unwrap();
    let mut version = ledger.data_version().unwrap();
    let (mut pages, mut changes) = (0, 0);
    let mut last_total = 0;
    while !stop.load(Ordering::Relaxed) {
        let counts = ledger.disposition_counts().unwrap();
        assert!(counts.total() >= last_total, "callbacks disappeared");
        last_total = counts.total();
        let filter = CallbackFilter::default();
        let mut page = PageRequest::first(200);
        let mut previous = 0;
        loop {
            let rows = ledger.callbacks_page(&filter, page).unwrap();
            pages += 1;
            for row in &rows {
                assert!(row.seq > previous, "keyset paging went back");
                previous = row.seq;
            }
            match rows.last() {
                Some(last) if rows.len() == page.limit => page.after = Some(last.seq),
                _ => break,
            }
        }
        let now_version = ledger.data_version().unwrap();
        if now_version != version {
            changes += 1;
            version = now_version;
        }
    }
    (pages, changes)
}

/// The console itself, read-only, refreshing on every tick as it does in a terminal
/// and drawing each view in turn: it must never show an error while others write.
fn console_reader(db: &Path, stop: &AtomicBool) -> (u32, u32) {
    use jobledger::clock::Clock;
    use jobledger::console::{self, Action, App, Tab, update};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let ledger = Ledger::open_read_only(db).unwrap();
    let mut app = App::new(ledger, Clock::Fixed(now()), "carol".to_owned(), true).unwrap();
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 48,
        },
    );
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let (mut frames, mut refreshed) = (0u32, 0u32);
    let mut version = app.ledger().data_version().unwrap();
    while !stop.load(Ordering::Relaxed) {
        update(&mut app, Action::Tick);
        if let Some(flash) = app.flash() {
            assert!(!flash.error, "the console showed an error: {}", flash.text);
        }
        let tab = Tab::ALL[usize::try_from(frames).unwrap() % Tab::ALL.len()];
        update(&mut app, Action::ShowTab(tab));
        terminal
            .draw(|frame| console::view::draw(frame, app.model()))
            .unwrap();
        frames += 1;
        let now_version = app.ledger().data_version().unwrap();
        if now_version != version {
            refreshed += 1;
            version = now_version;
        }
    }
    (frames, refreshed)
}

fn run_together(run_for: Duration, jobs: u32, chunk_lines: usize) -> Figures {
    let dir = disk_dir();
    let db = dir.path().join("ledger.db");
    let chunks = stream_chunks(dir.path(), jobs, chunk_lines);
    // The first chunk is in before anyone starts: it holds the questions.
    let out = jobledger(&db, &["ingest", chunks[0].to_str().unwrap()]);
    assert!(out.status.success());
    let asked = questions(&db);
    assert!(asked.len() >= 10, "{asked:?}");
    let mut reversed = asked.clone();
    reversed.reverse();

    let stop = Arc::new(AtomicBool::new(false));
    let reviewers = [("ana", asked), ("bob", reversed)].map(|(name, qs)| {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        std::thread::spawn(move || reviewer(&db, name, &qs, &stop))
    });
    let reading = {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        std::thread::spawn(move || reader(&db, &stop))
    };
    let console = {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        std::thread::spawn(move || console_reader(&db, &stop))
    };
    let mut figures = Figures::default();
    let started = Instant::now();
    let mut next = 1;
    // The writer: chunk after chunk, then the whole stream again (all already there),
    // until the time is up and at least one new chunk went in.
    while started.elapsed() < run_for || next < 2 {
        let chunk = &chunks[next % chunks.len()];
        let out = jobledger(&db, &["ingest", chunk.to_str().unwrap()]);
        assert_not_locked("ingest", &out);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        figures.ingest_runs += 1;
        next += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let mut written = Vec::new();
    for handle in reviewers {
        let (mine, refused) = handle.join().expect("a reviewer panicked");
        figures.told_answered_meanwhile += refused;
        written.extend(mine);
    }
    let (pages, changes) = reading.join().expect("the reader panicked");
    let (frames, console_changes) = console.join().expect("the console panicked");
    figures.console_frames = frames;
    figures.console_saw_changes = console_changes;
    figures.reader_pages = pages;
    figures.reader_saw_changes = changes;
    figures.answers_written = u32::try_from(written.len()).unwrap();

    // No answer lost: each one reported written is in the ledger, once.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stored: BTreeMap<String, i64> = conn
        .prepare("SELECT note, callback_seq FROM answers")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored.len(), written.len(), "answers lost or invented");
    for (seq, note) in &written {
        assert_eq!(stored.get(note), Some(seq), "answer {note:?} lost");
    }
    // Nobody answered over an answer they had not seen: each answer names the one
    // before it on its row, so the answers of a row form one chain.
    let forks: i64 = conn
        .query_row(
            "SELECT count(*) FROM answers a WHERE a.previous_answer IS NOT
               (SELECT max(b.id) FROM answers b WHERE b.callback_seq = a.callback_seq AND b.id < a.id)",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(
        forks, 0,
        "an answer overwrote one its reviewer had not seen"
    );
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    figures.lines_ingested = u64::try_from(fixture::query_i64(
        &db,
        "SELECT count(*) FROM input_lines",
        [],
    ))
    .unwrap();
    let totals = Ledger::open_read_only(&db)
        .unwrap()
        .disposition_counts()
        .unwrap();
    assert_eq!(
        totals.total(),
        fixture::query_i64(&db, "SELECT count(*) FROM callbacks", [])
    );
    eprintln!("together for {:?}: {figures:?}", started.elapsed());
    figures
}

#[test]
fn a_writer_two_reviewers_and_a_reader_at_once_lose_nothing() {
    let figures = run_together(Duration::from_secs(4), 2_000, 2_000);
    assert!(figures.answers_written > 0 && figures.ingest_runs >= 2);
}

#[test]
#[ignore = "long: 30 seconds of a writer with full 50,000-line batches, two reviewers and a reader"]
fn a_writer_two_reviewers_and_a_reader_for_30_seconds_lose_nothing() {
    let figures = run_together(Duration::from_secs(30), 30_000, 60_000);
    assert!(figures.answers_written > 0 && figures.ingest_runs >= 2);
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
    let mut c = Command::new(bin());
    c.arg("--db")
        .arg(db)
        .args(["--now", NOW])
        .args(args)
        .env_remove("JOBLEDGER_DB")
        .stdin(Stdio::null());
    c
}

#[test]
fn racing_terminal_reports_from_two_processes_one_wins_the_other_is_kept() {
    const JOBS: usize = 12;
    let dir = disk_dir();
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
            assert!(out.status.success());
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
    let dir = disk_dir();
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
