//! Turns at the write lock: an ingest holds its transaction for seconds
//! when no one else wants to write, and commits within a few dozen lines when a writer
//! says it waits (`store/sqlite/waiting_writers.rs`).
//!
//! The ingest here reads a stream that does not end until the waiting writer is in (or
//! a minute has passed), with no limit of its own on how long a batch holds the lock:
//! only the waiting writer's word can make it commit meanwhile.

mod support;

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use jobledger::ingest::{Batching, ingest_in_batches};
use jobledger::store::Ledger;

/// The longest the stream runs: far past any wait the turns should cause.
const STREAM_LIMIT: Duration = Duration::from_secs(60);

/// An endless stream of accepted jobs, ended by `stop` or [`STREAM_LIMIT`].
struct Endless<'a> {
    next_job: u64,
    pending: Vec<u8>,
    stop: &'a AtomicBool,
    /// Set when the stream ended at [`STREAM_LIMIT`], not by `stop`.
    ran_out: &'a AtomicBool,
    produced: &'a AtomicU64,
    started: Instant,
}

impl Read for Endless<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(0);
            }
            if self.started.elapsed() > STREAM_LIMIT {
                self.ran_out.store(true, Ordering::Relaxed);
                return Ok(0);
            }
            for _ in 0..16 {
                self.next_job += 1;
                let line = format!(
                    "{{\"event\":\"job_accepted\",\"job_id\":\"turn-{}\",\"at\":\"2026-11-27T13:00:00Z\",\"timeout_s\":120,\"expected_age_s\":3600,\"attempt_budget\":3}}\n",
                    self.next_job
                );
                self.pending.extend_from_slice(line.as_bytes());
            }
            self.produced.fetch_add(16, Ordering::Relaxed);
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

#[test]
fn a_waiting_writer_gets_the_lock_while_a_long_batch_runs() {
    let support::fixture::TempLedger {
        dir: _dir,
        path: db,
        ledger,
    } = support::fixture::TempLedger::new();
    drop(ledger);
    let stop = AtomicBool::new(false);
    let ran_out = AtomicBool::new(false);
    let produced = AtomicU64::new(0);
    let (committed_tx, committed_rx) = mpsc::channel::<u64>();
    let batching = Batching {
        lines: usize::MAX,
        max_hold: Duration::MAX,
        ..Batching::default()
    };
    let (report, person) = std::thread::scope(|scope| {
        let ingest = scope.spawn(|| {
            let mut ledger = Ledger::open(&db).expect("ledger");
            let input = std::io::BufReader::new(Endless {
                next_job: 0,
                pending: Vec::new(),
                stop: &stop,
                ran_out: &ran_out,
                produced: &produced,
                started: Instant::now(),
            });
            ingest_in_batches(
                &mut ledger,
                input,
                support::fixture::now(),
                batching,
                |report| {
                    let _ = committed_tx.send(report.lines_read);
                },
            )
            .expect("ingest")
        });
        // The person comes once the ingest is well into its (first) batch.
        while produced.load(Ordering::Relaxed) < 2_000 {
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut ledger =
            Ledger::open_with_busy_timeout(&db, STREAM_LIMIT * 2).expect("person's ledger");
        let asked = Instant::now();
        let mut writer = ledger.writer().expect("the person gets the lock");
        let waited = asked.elapsed();
        writer.set_note("turns-test", "written").expect("note");
        writer.commit().expect("commit");
        let ran_out_first = ran_out.load(Ordering::Relaxed);
        stop.store(true, Ordering::Relaxed);
        (
            ingest.join().expect("ingest thread"),
            (waited, ran_out_first),
        )
    });
    let (waited, ran_out_first) = person;
    let commits: Vec<u64> = committed_rx.try_iter().collect();
    assert!(
        !ran_out_first,
        "the person waited {waited:?}: the ingest did not give way before its stream ran out"
    );
    assert!(
        commits.len() >= 2,
        "the ingest committed once for the waiting person and once at the end: {commits:?}"
    );
    assert!(
        commits[0] < report.lines_read,
        "the first commit came before the stream ended: {commits:?} of {}",
        report.lines_read
    );
    let ledger = Ledger::open(&db).expect("ledger");
    assert_eq!(
        ledger.note("turns-test").expect("note").as_deref(),
        Some("written"),
        "the person's write is kept beside the ingest's"
    );
}
