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

const PREFIX: &str = "jobledger-bin-";

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

/// Runs `jobledger --db DB --now NOW ARGS...` on no input, as a user would, and waits.
#[allow(dead_code)] // not every test file that runs the binary runs it this way
pub fn run_at(db: &Path, now: &str, args: &[&str]) -> Output {
    Command::new(bin())
        .arg("--db")
        .arg(db)
        .args(["--now", now])
        .args(args)
        .env_remove("JOBLEDGER_DB")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}
