//! The binary under test, hard-linked once per test process into a directory of its
//! own, for tests that run it many times over minutes (crash, concurrency).
//!
//! The target directory is shared: a build while a long test runs would otherwise
//! replace the binary between two of its runs (it happened: a migration appeared in
//! the middle of a crash test). A test process cannot remove its link when it ends, so
//! each one removes the links of test processes that have ended.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use jobledger::store::Ledger;
use serde_json::Value;
use tempfile::TempDir;

use super::fixture::{self, NOW};

const PREFIX: &str = "jobledger-bin-";

/// The binary under test, hard-linked for this test process.
pub fn bin() -> &'static Path {
    static LINKED: OnceLock<PathBuf> = OnceLock::new();
    LINKED.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        if Path::new("/proc/self").exists()
            && let Ok(entries) = std::fs::read_dir(tmp)
        {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let Some(pid) = name.strip_prefix(PREFIX)
                    && !Path::new("/proc").join(pid).exists()
                {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        let dir = tmp.join(format!("{PREFIX}{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("jobledger");
        let _ = std::fs::remove_file(&path);
        let built = env!("CARGO_BIN_EXE_jobledger");
        if std::fs::hard_link(built, &path).is_err() {
            std::fs::copy(built, &path).unwrap();
        }
        path
    })
}

/// The binary on no input, with no ledger or reviewer taken from the environment.
pub fn bare() -> Command {
    let mut command = Command::new(bin());
    command
        .env_remove("JOBLEDGER_DB")
        .env_remove("JOBLEDGER_REVIEWER")
        .stdin(Stdio::null());
    command
}

/// `jobledger --db DB --now NOW`: the caller adds the arguments.
pub fn command(db: impl AsRef<std::ffi::OsStr>, now: &str) -> Command {
    let mut command = bare();
    command.arg("--db").arg(db).args(["--now", now]);
    command
}

/// Runs `jobledger --db DB --now NOW ARGS...` on no input, as a user would, and waits
/// (`DB` a file or a server's URL).
pub fn run_at(db: impl AsRef<std::ffi::OsStr>, now: &str, args: &[&str]) -> Output {
    command(db, now)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin().display()))
}

/// Runs `jobledger --db DB --now NOW ARGS...` as [`run_at`] does, stopped after
/// `seconds` (by coreutils' `timeout`): a command that would wait for ever fails the
/// test instead of hanging it.
pub fn run_at_within(db: &Path, now: &str, args: &[&str], seconds: u32) -> Output {
    let out = Command::new("timeout")
        .args(["-s", "KILL", &seconds.to_string()])
        .arg(bin())
        .arg("--db")
        .arg(db)
        .args(["--now", now])
        .args(args)
        .env_remove("JOBLEDGER_DB")
        .env_remove("JOBLEDGER_REVIEWER")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running `timeout` (install coreutils): {e}"));
    assert_ne!(
        out.status.code(),
        Some(137),
        "{args:?} was still running after {seconds} s"
    );
    out
}

/// A run that succeeded without a panic; its standard output.
pub fn succeeded(output: &Output, args: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?} failed: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    String::from_utf8(output.stdout.clone()).expect("standard output is UTF-8")
}

/// A run that failed clearly: non-zero exit, no panic, a message; its standard error.
pub fn failed(output: &Output, args: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "{args:?} should fail");
    assert_ne!(
        output.status.code(),
        Some(101),
        "{args:?} panicked: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(!stderr.trim().is_empty(), "{args:?} failed without a word");
    stderr
}

/// A refusal: exit code 1, no panic, and a message holding each of `words`.
pub fn refused(out: &Output, words: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "it should have failed: {stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for word in words {
        assert!(
            stderr.contains(word),
            "the message lacks {word:?}: {stderr}"
        );
    }
    stderr
}

/// A temporary directory with a ledger path in it; runs the binary against that ledger
/// at the demo's clock, from that directory.
pub struct Workdir {
    pub dir: TempDir,
    pub db: PathBuf,
}

impl Workdir {
    /// An empty directory; the ledger is not there yet.
    pub fn new() -> Workdir {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("ledger.db");
        Workdir { dir, db }
    }

    /// A ledger holding the worked example (ingested through the binary).
    pub fn with_afternoon() -> Workdir {
        let w = Workdir::new();
        let file = w.file("afternoon.ndjson", fixture::booking_afternoon().as_bytes());
        w.ok(&["ingest", file.to_str().unwrap()]);
        w
    }

    /// A demo ledger built by `demo --print`, and what it printed.
    pub fn with_demo() -> (Workdir, String) {
        let w = Workdir::new();
        let out = w.ok(&["demo", "--print"]);
        (w, out)
    }

    /// Writes a file into the directory.
    pub fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// The binary, run from the directory, with nothing taken from the environment.
    pub fn command(&self) -> Command {
        let mut command = bare();
        command.current_dir(self.dir.path());
        command
    }

    /// Runs `jobledger --db LEDGER --now NOW ARGS...`.
    pub fn run(&self, args: &[&str]) -> Output {
        command(&self.db, NOW)
            .current_dir(self.dir.path())
            .args(args)
            .output()
            .expect("the binary runs")
    }

    /// Runs and expects success; returns standard output.
    pub fn ok(&self, args: &[&str]) -> String {
        succeeded(&self.run(args), args)
    }

    /// Runs and expects a clear failure; returns standard error.
    pub fn fails(&self, args: &[&str]) -> String {
        failed(&self.run(args), args)
    }

    /// Runs and expects JSON on standard output.
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.ok(args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"))
    }

    /// The ledger, opened read-only.
    pub fn ledger(&self) -> Ledger {
        Ledger::open_read_only(&self.db).expect("the ledger opens")
    }
}
