//! Killing the binary mid-write: a seeded schedule of kill moments, the streams and
//! commands the crash tests run, and kills placed on chosen system calls with
//! `strace` (see `disk::require_strace`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::binary;
use super::fixture::{self, NOW};

/// A small deterministic generator (splitmix64) for the kill schedule.
pub struct Rng(u64);

impl Rng {
    /// The schedule for one test (`salt`), from `JOBLEDGER_CRASH_SEED` or a fixed seed.
    pub fn seeded(salt: u64) -> Rng {
        let seed = std::env::var("JOBLEDGER_CRASH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x005e_ed1e_d6e7_u64);
        Rng(seed ^ salt)
    }

    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A moment in `[0, max)`.
    pub fn delay(&mut self, max: Duration) -> Duration {
        let micros = u64::try_from(max.as_micros()).unwrap_or(u64::MAX).max(1);
        Duration::from_micros(self.next_u64() % micros)
    }
}

/// The demo ledger's generated stream of N jobs at the fixed clock, each line followed by
/// `blanks` empty lines. Blank lines count towards a batch but are not kept, so a
/// short stream can span several batches and kills land before, in and after commits.
pub fn write_stream(dir: &Path, jobs: u32, blanks: usize) -> (PathBuf, Vec<Vec<u8>>) {
    let stream = fixture::synthetic_stream(jobs);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for line in stream.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        lines.push(line.to_vec());
        lines.extend(std::iter::repeat_n(Vec::new(), blanks));
    }
    let mut bytes = Vec::new();
    for line in &lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    let path = dir.join(format!("stream-{jobs}-{blanks}.ndjson"));
    std::fs::write(&path, bytes).unwrap();
    (path, lines)
}

/// `jobledger ingest STREAM` on `db` at the demo's clock, quiet.
pub fn ingest_command(db: &Path, stream: &Path) -> Command {
    let mut command = binary::command(db, NOW);
    command
        .arg("ingest")
        .arg(stream)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// Ingests the whole stream in one unkilled run; fails if it does not succeed.
pub fn ingest_to_the_end(db: &Path, stream: &Path) {
    let status = ingest_command(db, stream).status().unwrap();
    assert!(status.success(), "ingest into {} failed", db.display());
}

/// System calls that write a ledger: a kill is placed on each of them in turn.
pub const WRITE_CALLS: [&str; 4] = ["pwrite64", "fsync", "fdatasync", "ftruncate"];

/// How many times a command makes each write call, counted with `strace -c`.
pub fn count_write_calls(command: &Command) -> BTreeMap<&'static str, u32> {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary");
    let mut traced = Command::new("strace");
    traced
        .args(["-f", "-c", "-o"])
        .arg(&summary)
        .arg("-e")
        .arg(format!("trace={}", WRITE_CALLS.join(",")))
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    assert!(traced.status().unwrap().success());
    let text = std::fs::read_to_string(&summary).unwrap();
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(call) = WRITE_CALLS.iter().find(|c| words.last() == Some(*c)) {
            // % time, seconds, usecs/call, calls, [errors,] syscall
            counts.insert(*call, words[3].parse().unwrap());
        }
    }
    counts
}

/// Runs `command` under strace, killed (SIGKILL) on entering the `n`th `call`.
pub fn killed_at(command: &Command, call: &str, n: u32) -> std::process::ExitStatus {
    Command::new("strace")
        .args(["-f", "-o", "/dev/null", "-e"])
        .arg(format!("inject={call}:signal=SIGKILL:when={n}"))
        .arg(command.get_program())
        .args(command.get_args())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
}
