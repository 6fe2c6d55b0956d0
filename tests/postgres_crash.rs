//! An ingest into PostgreSQL killed at random moments (SIGKILL: the connection drops
//! mid-transaction, as when a machine dies) keeps whole batches only, a prefix of the
//! stream; re-run to the end, it leaves the ledger one clean ingest of the same stream
//! into a SQLite file would: the same reports, row for row.
//!
//! The stream is the demo's generated one, shuffled, each line followed by blank lines:
//! blank lines count towards a batch's lines but are not kept, so a short stream spans
//! several batches (the command line has no batch size) and kills land before, inside
//! and between commits within seconds. The kill moments come from a seeded generator
//! (`JOBLEDGER_CRASH_SEED` changes the seed); nothing asserted depends on where a kill
//! lands, and one kill is placed after the first commit a reader sees, so that at least
//! one lands between two commits whatever the machine's speed.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use jobledger::ingest::BATCH_LINES;
use support::crash::Rng;
use support::postgres::PgServer;
use support::reports::{self, Numbers, jobledger, quiet_ok};

/// The demo's generated stream of `jobs` jobs in shuffled order, each line followed by
/// `blanks` blank lines, written to `dir`; and its distinct non-blank lines in the
/// order a clean ingest keeps them.
fn padded_stream(dir: &Path, jobs: u32, blanks: usize) -> (PathBuf, Vec<Vec<u8>>) {
    let out = support::binary::bare()
        .args(["demo", "--jobs", &jobs.to_string(), "--seed", "7"])
        .args(["--stream-only", "--order", "shuffled"])
        .output()
        .expect("the binary runs");
    let stream = support::binary::succeeded(&out, &["demo --stream-only"]);
    let mut bytes = Vec::new();
    let mut order: Vec<Vec<u8>> = Vec::new();
    let mut seen = BTreeSet::new();
    for line in stream.lines().filter(|l| !l.trim().is_empty()) {
        if seen.insert(line) {
            order.push(line.as_bytes().to_vec());
        }
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend(std::iter::repeat_n(b'\n', blanks + 1));
    }
    let path = dir.join(format!("shuffled-{jobs}-{blanks}.ndjson"));
    std::fs::write(&path, bytes).unwrap();
    (path, order)
}

/// How many lines the ledger on the server keeps, after checking that they are the
/// first lines of `order`, in order: what a kill leaves is whole batches only, a prefix
/// of the stream. 0 while the database holds no ledger yet.
fn kept_prefix(server: &PgServer, db: &str, order: &[Vec<u8>]) -> usize {
    let mut client = server.connect(db);
    let has_ledger: bool = client
        .query_one(
            "SELECT to_regclass('jobledger.input_lines') IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    if !has_ledger {
        return 0;
    }
    let kept: Vec<Vec<u8>> = client
        .query("SELECT raw FROM jobledger.input_lines ORDER BY seq", &[])
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(
        kept.len() <= order.len(),
        "{} lines kept, more than the stream's {}",
        kept.len(),
        order.len()
    );
    for (i, (kept, expected)) in kept.iter().zip(order).enumerate() {
        assert!(
            kept == expected,
            "line {} kept is not the stream's line {}: {}",
            i + 1,
            i + 1,
            String::from_utf8_lossy(kept)
        );
    }
    let orphans: i64 = client
        .query_one(
            "SELECT count(*) FROM jobledger.callbacks c
              WHERE NOT EXISTS (SELECT 1 FROM jobledger.input_lines l WHERE l.seq = c.line_seq)",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(orphans, 0, "callbacks kept without their line");
    kept.len()
}

fn spawn_ingest(url: &str, stream: &Path) -> Child {
    jobledger(url, &["ingest", &stream.to_string_lossy()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Waits for an ingest not killed; fails unless it succeeded without a word on stderr.
fn finished(child: Child) {
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "an unkilled ingest failed: {stderr}");
    assert!(
        stderr.trim().is_empty(),
        "an unkilled ingest said: {stderr}"
    );
}

fn ingest_to_the_end(url: &str, stream: &Path) {
    finished(spawn_ingest(url, stream));
}

/// The ledger on the server passes `check` (which says how far it got on stderr).
fn checked(url: &str) {
    let said = support::binary::succeeded(&reports::run(url, &["check"]), &["check"]);
    assert!(said.contains("passed every check"), "{said}");
}

/// The ledger on the server reports the rows of the reference, in its order, and its
/// reports are the reference's byte for byte (numbers and all: a batch rolled back
/// leaves no gap).
fn same_as_the_reference(url: &str, s: &Setup, what: &str) {
    reports::assert_rows_equal(
        &reports::rows(url, Numbers::Ranked, &[]),
        &s.reference,
        what,
    );
    reports::assert_same_bytes(url, &s.file, what);
}

#[derive(Debug, Default)]
struct KillTally {
    killed: u32,
    /// Kills after which more lines were kept than before the run.
    killed_after_a_commit: u32,
    /// Kills that left a strict, non-empty prefix of the stream.
    between_commits: u32,
    /// Runs that ended before their kill came.
    finished_first: u32,
}

/// A stream and its reference: the same stream ingested whole into a SQLite file.
struct Setup {
    _dir: tempfile::TempDir,
    stream: PathBuf,
    order: Vec<Vec<u8>>,
    file: String,
    /// The reference's reports, numbers ranked.
    reference: BTreeMap<&'static str, serde_json::Value>,
}

fn setup(jobs: u32, blanks: usize) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (stream, order) = padded_stream(dir.path(), jobs, blanks);
    let lines = order.len() * (blanks + 1);
    assert!(
        lines.div_ceil(BATCH_LINES) >= 3,
        "the stream must span several batches ({lines} lines)"
    );
    let file = dir.path().join("whole.db").to_string_lossy().into_owned();
    quiet_ok(&file, &["ingest", &stream.to_string_lossy()]);
    let reference = reports::rows(&file, Numbers::Ranked, &[]);
    Setup {
        _dir: dir,
        stream,
        order,
        file,
        reference,
    }
}

/// Starts an ingest on an empty database and kills it as soon as a reader sees its
/// first commit; returns the lines the reader saw kept (more may follow before the kill
/// lands). Fails if the run ended before a commit was seen.
fn kill_after_the_first_commit(server: &PgServer, db: &str, s: &Setup) -> usize {
    let mut child = spawn_ingest(&server.url(db), &s.stream);
    let began = Instant::now();
    let seen = loop {
        let seen = kept_prefix(server, db, &s.order);
        if seen > 0 {
            break seen;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the ingest finished before a reader saw a commit"
        );
        assert!(began.elapsed() < Duration::from_secs(60), "no commit seen");
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    let _ = child.wait();
    seen
}

#[test]
fn an_ingest_killed_at_random_moments_resumes_to_one_clean_ingest() {
    let began = Instant::now();
    let server = PgServer::shared();
    // 200 jobs: about 1,000 lines, each followed by 150 blank lines: 150,000 lines, so
    // three or four batches of a few hundred kept lines each.
    let s = setup(200, 150);

    // A clean run on the server, timed: the kills land anywhere within one.
    let clean_db = server.fresh_database("crash_clean");
    let started = Instant::now();
    ingest_to_the_end(&server.url(&clean_db), &s.stream);
    let window = started.elapsed();
    assert_eq!(kept_prefix(server, &clean_db, &s.order), s.order.len());

    let db = server.fresh_database("crash_killed");
    let url = server.url(&db);
    let mut tally = KillTally::default();
    // Random moments may all miss the time between two commits; this kill does not.
    let seen = kill_after_the_first_commit(server, &db, &s);
    let kept = kept_prefix(server, &db, &s.order);
    assert!(kept >= seen, "a kill lost committed lines");
    assert!(
        kept < s.order.len(),
        "the ingest ended before its kill: give it a longer stream"
    );
    tally.killed += 1;
    tally.between_commits += 1;

    // Then runs killed at random moments, each resuming where the last one stopped.
    // A re-run reads past what is kept without writing it, so it ends well before a
    // clean run's time: the kills land within its first quarter.
    let mut rng = Rng::seeded(11);
    for _ in 0..6 {
        let before = kept_prefix(server, &db, &s.order);
        let mut child = spawn_ingest(&url, &s.stream);
        std::thread::sleep(rng.delay(window / 4));
        if child.try_wait().unwrap().is_some() {
            finished(child);
            tally.finished_first += 1;
            continue;
        }
        child.kill().unwrap(); // SIGKILL
        let _ = child.wait();
        tally.killed += 1;
        let after = kept_prefix(server, &db, &s.order);
        assert!(after >= before, "a kill lost committed lines");
        if after > before {
            tally.killed_after_a_commit += 1;
        }
        if after > 0 && after < s.order.len() {
            tally.between_commits += 1;
        }
    }
    ingest_to_the_end(&url, &s.stream);
    assert_eq!(kept_prefix(server, &db, &s.order), s.order.len());
    checked(&url);
    same_as_the_reference(&url, &s, "killed again and again, then re-run");
    eprintln!(
        "{} kept lines, a clean run on the server {window:?}: {tally:?}, in {:?}",
        s.order.len(),
        began.elapsed()
    );
    assert!(tally.killed >= 3, "too few runs were killed: {tally:?}");
}

/// Starts an ingest on an empty database and kills it inside its first batch: once it
/// holds the ledger's ingest turn (an advisory lock, seen from outside its transaction)
/// and has nothing committed.
fn kill_inside_the_first_batch(server: &PgServer, db: &str, s: &Setup) {
    let mut child = spawn_ingest(&server.url(db), &s.stream);
    let mut client = server.connect(db);
    let began = Instant::now();
    loop {
        let writing: bool = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted)",
                &[],
            )
            .is_ok_and(|row| row.get(0));
        if writing {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the ingest finished before its first batch was seen"
        );
        assert!(began.elapsed() < Duration::from_secs(60), "no line seen");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    let _ = child.wait();
    assert_eq!(
        kept_prefix(server, db, &s.order),
        0,
        "the first batch was committed"
    );
}

#[test]
fn an_ingest_killed_and_re_run_numbers_its_callbacks_as_one_clean_ingest() {
    let server = PgServer::shared();
    let s = setup(300, 100);
    let db = server.fresh_database("crash_numbers");
    let url = server.url(&db);
    kill_inside_the_first_batch(server, &db, &s);
    ingest_to_the_end(&url, &s.stream);
    reports::assert_same_bytes(&url, &s.file, "killed inside its first batch, then re-run");
}
