//! Several people and programs at work on one ledger on PostgreSQL at once, as a team
//! would (SPEC sec. 8): two ingesters, two reviewers and a reader. What each one writes
//! is kept once, nothing is lost, the kept counts add up, the ledger passes `check`, and
//! nobody is shown an error: a writer that had to wait for another (a lock, a
//! serialization failure, a deadlock the server broke) waits or tries again by itself.
//!
//! The mixed run goes on for `JOBLEDGER_TEST_WORKLOAD_SECS` seconds (10 by default;
//! the issue's run is 30); nothing asserted depends on how far it got.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::postgres::PgServer;
use support::reports::{self, Numbers, jobledger, quiet_ok};

/// The demo's generated stream of `jobs` jobs, shuffled (each job's events in order),
/// as its lines.
fn stream_lines(jobs: u32) -> Vec<String> {
    let out = support::binary::bare()
        .args(["demo", "--jobs", &jobs.to_string(), "--seed", "7"])
        .args(["--stream-only", "--order", "shuffled"])
        .output()
        .expect("the binary runs");
    support::binary::succeeded(&out, &["demo --stream-only"])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Writes `lines` to `path`, each followed by `blanks` blank lines (blank lines count
/// towards a batch, so a short stream spans several transactions).
fn write_lines(path: &Path, lines: &[String], blanks: usize) -> PathBuf {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push_str(&"\n".repeat(blanks + 1));
    }
    std::fs::write(path, text).unwrap();
    path.to_owned()
}

/// The lines of `lines` split in two by job: each job's lines all in one half (lines
/// naming no job in the first), so the halves hold disjoint sets of jobs.
fn split_by_job(lines: &[String]) -> (Vec<String>, Vec<String>) {
    lines.iter().cloned().partition(|line| {
        let job = serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|v| v["job_id"].as_str().map(str::to_owned));
        job.is_none_or(|job| job.bytes().map(u32::from).sum::<u32>() % 2 == 0)
    })
}

/// The distinct non-blank lines among `lines`.
fn distinct(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .collect::<BTreeSet<_>>()
        .len()
}

fn spawn_ingest(url: &str, stream: &Path) -> Child {
    jobledger(url, &["ingest", &stream.to_string_lossy()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// A run that succeeded and said nothing on standard error: no error, no "busy", no
/// "deadlock" shown to anyone.
fn clean(what: &str, out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "{what} ({}) said: {stderr}",
        out.status
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The one number `sql` (a count) reads from the database `db`.
fn count(server: &PgServer, db: &str, sql: &str) -> i64 {
    server.connect(db).query_one(sql, &[]).unwrap().get(0)
}

fn checked(url: &str) {
    let out = reports::run(url, &["check"]);
    let said = support::binary::succeeded(&out, &["check"]);
    assert!(said.contains("passed every check"), "{said}");
}

/// Fails unless the kept counts add up: callbacks by disposition to the callbacks kept,
/// jobs by state to the jobs kept.
fn counts_add_up(server: &PgServer, db: &str) {
    let summary = reports::json(&server.url(db), &["summary", "--json"]);
    let dispositions: i64 = ["applied", "held", "recorded", "quarantined"]
        .iter()
        .map(|d| summary[d].as_i64().unwrap())
        .sum();
    assert_eq!(
        summary["callbacks"].as_i64(),
        Some(dispositions),
        "{summary}"
    );
    let callbacks = count(server, db, "SELECT count(*) FROM jobledger.callbacks");
    assert_eq!(dispositions, callbacks, "{summary}");
    let states: i64 = summary["jobs"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_i64().unwrap())
        .sum();
    let jobs = count(server, db, "SELECT count(*) FROM jobledger.jobs");
    assert_eq!(states, jobs, "{summary}");
}

#[test]
fn one_file_fed_by_two_ingesters_at_once_is_kept_once() {
    let server = PgServer::shared();
    let dir = tempfile::tempdir().unwrap();
    let lines = stream_lines(250);
    // About 1,250 lines, each followed by 120 blank lines: three or four batches.
    let stream = write_lines(&dir.path().join("stream.ndjson"), &lines, 120);
    let file = dir.path().join("once.db").to_string_lossy().into_owned();
    quiet_ok(&file, &["ingest", &stream.to_string_lossy()]);

    let db = server.fresh_database("two_ingesters_one_file");
    let url = server.url(&db);
    let first = spawn_ingest(&url, &stream);
    let second = spawn_ingest(&url, &stream);
    let said = [first, second].map(|child| {
        let out = child.wait_with_output().unwrap();
        clean("an ingester", &out)
    });
    // Each line was taken by one of them; the other found it there.
    let applied = |text: &str, what: &str| -> u64 {
        let words: Vec<&str> = text.split_whitespace().collect();
        let at = words
            .iter()
            .position(|w| w.trim_end_matches(',') == what)
            .unwrap_or_else(|| panic!("no {what:?} in {text}"));
        words[at - 1].parse().unwrap()
    };
    let kept = distinct(&lines) as u64;
    let taken: u64 = said
        .iter()
        .map(|s| applied(s, "events") + applied(s, "rejected") + applied(s, "callbacks"))
        .sum();
    assert_eq!(taken, kept, "lines taken twice or not at all: {said:?}");
    assert_eq!(
        count(server, &db, "SELECT count(*) FROM jobledger.input_lines"),
        i64::try_from(kept).unwrap()
    );
    counts_add_up(server, &db);
    checked(&url);
    reports::assert_same_rows(&url, &file, Numbers::Ranked, &[], "two ingesters, one file");
}

#[test]
fn two_files_of_other_jobs_fed_at_once_report_as_one_serial_ingest() {
    let server = PgServer::shared();
    let dir = tempfile::tempdir().unwrap();
    let (mine, theirs) = split_by_job(&stream_lines(300));
    assert!(mine.len() > 500 && theirs.len() > 500);
    let mine = write_lines(&dir.path().join("mine.ndjson"), &mine, 120);
    let theirs = write_lines(&dir.path().join("theirs.ndjson"), &theirs, 120);
    let file = dir.path().join("serial.db").to_string_lossy().into_owned();
    for stream in [&mine, &theirs] {
        quiet_ok(&file, &["ingest", &stream.to_string_lossy()]);
    }

    let db = server.fresh_database("two_ingesters_two_files");
    let url = server.url(&db);
    let children = [spawn_ingest(&url, &mine), spawn_ingest(&url, &theirs)];
    for child in children {
        clean("an ingester", &child.wait_with_output().unwrap());
    }
    counts_add_up(server, &db);
    checked(&url);
    // The two files' lines are kept interleaved, numbered in the order they came.
    reports::assert_same_rows(
        &url,
        &file,
        Numbers::Ignored,
        &[],
        "two ingesters, two files",
    );
}

#[test]
fn two_ingesters_accepting_the_same_jobs_at_once_keep_every_line_once() {
    let server = PgServer::shared();
    let dir = tempfile::tempdir().unwrap();
    // Each job submitted twice, once to each ingester, under other digests: two lines
    // for one job, the first to arrive stands, the other is a conflicting submission.
    let jobs = 400;
    let submissions = |digest: &str| -> Vec<String> {
        (0..jobs)
            .map(|i| {
                format!(
                    r#"{{"event":"job_accepted","job_id":"shared-{i:04}","at":"2026-11-27T12:00:00Z","input_digest":"sha256:{digest}{i}"}}"#
                )
            })
            .collect()
    };
    let mine = write_lines(&dir.path().join("mine.ndjson"), &submissions("a"), 0);
    let theirs = write_lines(&dir.path().join("theirs.ndjson"), &submissions("b"), 0);

    let db = server.fresh_database("two_ingesters_same_jobs");
    let url = server.url(&db);
    let children = [spawn_ingest(&url, &mine), spawn_ingest(&url, &theirs)];
    for child in children {
        clean("an ingester", &child.wait_with_output().unwrap());
    }
    assert_eq!(
        count(server, &db, "SELECT count(*) FROM jobledger.input_lines"),
        2 * jobs
    );
    assert_eq!(
        count(server, &db, "SELECT count(*) FROM jobledger.jobs"),
        jobs
    );
    counts_add_up(server, &db);
    checked(&url);
    let reconcile = reports::json(&url, &["reconcile", "--json"]);
    let conflicts = reconcile["conflicting_submissions"].as_array().unwrap();
    assert_eq!(
        conflicts.len(),
        usize::try_from(jobs).unwrap(),
        "{reconcile}"
    );
}

/// How long the mixed run goes on: `JOBLEDGER_TEST_WORKLOAD_SECS`, else 10 seconds.
fn workload_time() -> Duration {
    let secs = std::env::var("JOBLEDGER_TEST_WORKLOAD_SECS").map_or(10, |text| {
        text.parse()
            .unwrap_or_else(|_| panic!("JOBLEDGER_TEST_WORKLOAD_SECS={text:?} is no number"))
    });
    Duration::from_secs(secs)
}

/// An ingester: feeds its pieces one after another, each as one `ingest` run, and once
/// through starts again (every line already there) until told to stop; it never stops
/// before its first pass is through. Returns its runs.
fn ingester(url: &str, pieces: &[PathBuf], stop: &AtomicBool) -> u32 {
    let mut runs = 0;
    for piece in pieces.iter().cycle() {
        if runs >= pieces.len() && stop.load(Ordering::Relaxed) {
            break;
        }
        let out = reports::run(url, &["ingest", &piece.to_string_lossy()]);
        clean("an ingest", &out);
        runs += 1;
    }
    u32::try_from(runs).unwrap()
}

/// The verdict that closes a question of this reason.
fn closing_verdict(reason: &str) -> &'static str {
    match reason {
        "possible_duplicate_effect" => "single_effect",
        "conflicting_outcomes" => "success_stands",
        _ => "noise",
    }
}

/// What a reviewer wrote: (callback, answer id or note), and how often it was told
/// another reviewer had answered first.
#[derive(Debug, Default)]
struct Answered {
    written: Vec<(i64, String)>,
    told_answered_meanwhile: u32,
}

/// Ana answers the open questions one by one, as she reads them in the list, until told
/// to stop. Being told that Bob answered first is what a race between two reviewers
/// gives; any other refusal fails.
fn ana(url: &str, stop: &AtomicBool) -> Answered {
    let mut done = Answered::default();
    let mut tried = BTreeSet::new();
    while !stop.load(Ordering::Relaxed) {
        let open = reports::json(url, &["callbacks", "--json", "--open"]);
        let mut answered_any = false;
        for row in open.as_array().unwrap() {
            let seq = row["seq"].as_i64().unwrap();
            if stop.load(Ordering::Relaxed) || !tried.insert(seq) {
                continue;
            }
            let verdict = closing_verdict(row["reason"].as_str().unwrap());
            let note = format!("ana on #{seq}");
            let seq_text = seq.to_string();
            let out = reports::run(
                url,
                &[
                    "answer",
                    &seq_text,
                    "--verdict",
                    verdict,
                    "--note",
                    &note,
                    "--reviewer",
                    "ana",
                ],
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.success() {
                assert!(stderr.trim().is_empty(), "ana was told: {stderr}");
                done.written.push((seq, note));
                answered_any = true;
            } else {
                assert!(
                    stderr.contains("answered meanwhile by bob"),
                    "ana's answer on #{seq} failed: {stderr}"
                );
                done.told_answered_meanwhile += 1;
            }
        }
        if !answered_any {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    done
}

/// Bob answers in bulk: every open question of each kind at once, again and again
/// until told to stop. Rows Ana answered first are left out and named, never written
/// over.
fn bob(url: &str, stop: &AtomicBool) -> Answered {
    let mut done = Answered::default();
    while !stop.load(Ordering::Relaxed) {
        for (query, verdict) in [
            ("reason:possible_duplicate_effect", "duplicate_effect"),
            ("reason:conflicting_outcomes", "failure_stands"),
        ] {
            let said = reports::json(
                url,
                &[
                    "answer",
                    "--where",
                    query,
                    "--verdict",
                    verdict,
                    "--note",
                    "bob, in bulk",
                    "--reviewer",
                    "bob",
                    "--json",
                ],
            );
            for row in said["rows"].as_array().unwrap() {
                let id = row["answer_id"].as_i64().expect("an answer written");
                done.written
                    .push((row["seq"].as_i64().unwrap(), id.to_string()));
            }
            for row in said["left_out"].as_array().unwrap() {
                let why = row.to_string();
                assert!(why.contains("ana"), "bob's bulk left out {why}");
                done.told_answered_meanwhile += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    done
}

/// A reader running reports over and over: each succeeds in silence, its totals add
/// up, and callbacks are never fewer than before. Returns (reports run, times the
/// callbacks were more than before).
fn reader(url: &str, stop: &AtomicBool) -> (u32, u32) {
    let (mut runs, mut more) = (0, 0);
    let mut last = 0;
    while !stop.load(Ordering::Relaxed) {
        let summary = reports::json(url, &["summary", "--json"]);
        let total = summary["callbacks"].as_i64().unwrap();
        let parts: i64 = ["applied", "held", "recorded", "quarantined"]
            .iter()
            .map(|d| summary[d].as_i64().unwrap())
            .sum();
        assert_eq!(total, parts, "the totals do not add up: {summary}");
        assert!(total >= last, "callbacks went from {last} to {total}");
        if total > last {
            more += 1;
        }
        last = total;
        reports::json(url, &["callbacks", "--json", "--open"]);
        reports::json(url, &["reconcile", "--json"]);
        runs += 3;
    }
    (runs, more)
}

#[test]
fn ingesters_reviewers_and_a_reader_at_once_lose_nothing() {
    let run_for = workload_time();
    let began = Instant::now();
    let server = PgServer::shared();
    let dir = tempfile::tempdir().unwrap();
    let (mine, theirs) = split_by_job(&stream_lines(400));
    // Each ingester's half in pieces of 150 lines, one `ingest` run each.
    let pieces = |half: &[String], name: &str| -> Vec<PathBuf> {
        half.chunks(150)
            .enumerate()
            .map(|(i, piece)| {
                write_lines(&dir.path().join(format!("{name}-{i:02}.ndjson")), piece, 0)
            })
            .collect()
    };
    let (my_pieces, their_pieces) = (pieces(&mine, "mine"), pieces(&theirs, "theirs"));
    let file = dir.path().join("serial.db").to_string_lossy().into_owned();
    for (half, name) in [(&mine, "mine"), (&theirs, "theirs")] {
        let whole = write_lines(&dir.path().join(format!("{name}.ndjson")), half, 0);
        quiet_ok(&file, &["ingest", &whole.to_string_lossy()]);
    }

    let db = server.fresh_database("ingesters_reviewers_reader");
    let url = server.url(&db);
    // The ledger is made by a first piece before anyone reads it.
    quiet_ok(&url, &["ingest", &my_pieces[0].to_string_lossy()]);
    let stop = Arc::new(AtomicBool::new(false));
    let spawn = |work: fn(&str, &AtomicBool) -> Answered| {
        let (url, stop) = (url.clone(), Arc::clone(&stop));
        std::thread::spawn(move || work(&url, &stop))
    };
    let reviewers = [spawn(ana), spawn(bob)];
    let reading = {
        let (url, stop) = (url.clone(), Arc::clone(&stop));
        std::thread::spawn(move || reader(&url, &stop))
    };
    let ingesters = [my_pieces, their_pieces].map(|pieces| {
        let (url, stop) = (url.clone(), Arc::clone(&stop));
        std::thread::spawn(move || ingester(&url, &pieces, &stop))
    });
    std::thread::sleep(run_for);
    stop.store(true, Ordering::Relaxed);
    let runs = ingesters.map(|h| h.join().expect("an ingester failed"));
    let (reports_run, reader_saw_more) = reading.join().expect("the reader failed");
    let [ana, bob] = reviewers.map(|h| h.join().expect("a reviewer failed"));
    let ran_for = began.elapsed();

    // Every line kept once.
    let lines = [mine.as_slice(), theirs.as_slice()].concat();
    assert_eq!(
        count(server, &db, "SELECT count(*) FROM jobledger.input_lines"),
        i64::try_from(distinct(&lines)).unwrap()
    );
    counts_add_up(server, &db);
    checked(&url);

    // Each answer said to be written is in the ledger, once; no other answer is; no row
    // was answered twice (nobody answered over an answer they had not seen).
    let mut client = server.connect(&db);
    let stored: Vec<(i64, i64, String, String)> = client
        .query(
            "SELECT id, callback_seq, reviewer, note FROM jobledger.answers ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3)))
        .collect();
    let mut expected: Vec<(i64, String)> = ana.written.clone();
    expected.extend(bob.written.iter().cloned());
    expected.sort();
    let mut found: Vec<(i64, String)> = stored
        .iter()
        .map(|(id, seq, reviewer, note)| {
            let mark = if reviewer == "bob" {
                id.to_string()
            } else {
                note.clone()
            };
            (*seq, mark)
        })
        .collect();
    found.sort();
    assert_eq!(found, expected, "answers lost, doubled or invented");
    let rows: BTreeSet<i64> = stored.iter().map(|a| a.1).collect();
    assert_eq!(rows.len(), stored.len(), "a row was answered twice");

    // The ledger holds what one serial ingest of both halves holds, row for row, the
    // answers and what they move (the backlog) aside.
    reports::assert_same_rows(
        &url,
        &file,
        Numbers::Ignored,
        &[
            "callbacks.answer",
            "summary.backlog",
            "summary.backlog_alarm",
            "reconcile.backlog",
            "reconcile.backlog_alarm",
        ],
        "after the mixed run",
    );
    let figures = BTreeMap::from([
        ("ingest runs", runs.iter().sum::<u32>()),
        ("answers by ana", u32::try_from(ana.written.len()).unwrap()),
        ("answers by bob", u32::try_from(bob.written.len()).unwrap()),
        (
            "told another answered first",
            ana.told_answered_meanwhile + bob.told_answered_meanwhile,
        ),
        ("reports read", reports_run),
        ("reader saw more callbacks", reader_saw_more),
    ]);
    eprintln!("for {run_for:?} ({ran_for:?} in all): {figures:?}");
    assert!(
        !ana.written.is_empty() && !bob.written.is_empty(),
        "both reviewers answered: {figures:?}"
    );
    assert!(
        reader_saw_more > 1,
        "the reader saw the ledger grow: {figures:?}"
    );
}
