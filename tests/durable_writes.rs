//! A person's write survives a power cut: an answer, an owner or a
//! request cannot be re-run from a source, so it is synced before the command says it
//! is written. Seen with `strace`: after the last write to the `-wal` file, an `fsync`
//! (or `fdatasync`) of it comes before the message on standard output. (A command's
//! connection syncs each commit, and also closes, with a synced checkpoint, before its
//! buffered output is written; the console, whose connection stays open, is checked in
//! `console_writes.rs`.)

mod support;

use std::process::Command;

use support::binary::Workdir;
use support::disk::require_strace;

/// The system calls of `args` run on `w`'s ledger, one per line, files named (`-y`).
fn calls(w: &Workdir, args: &[&str]) -> Vec<String> {
    let log = w.dir.path().join("strace.log");
    let status = Command::new("strace")
        .args([
            "-f",
            "-y",
            "-e",
            "trace=pwrite64,write,fsync,fdatasync",
            "-o",
        ])
        .arg(&log)
        .arg(support::binary::bin())
        .args(["--db"])
        .arg(&w.db)
        .args(["--now", support::fixture::NOW])
        .args(args)
        .env_clear()
        .output()
        .expect("strace runs")
        .status;
    assert!(status.success(), "{args:?} failed under strace");
    std::fs::read_to_string(&log)
        .expect("the strace log")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Is the last write to the WAL synced before the first write to standard output?
fn synced_before_said(calls: &[String]) -> bool {
    let said = calls
        .iter()
        .position(|c| c.contains(" write(1<"))
        .expect("the command said something");
    let Some(last_wal_write) = calls[..said]
        .iter()
        .rposition(|c| c.contains("pwrite64(") && c.contains("-wal>"))
    else {
        return false;
    };
    calls[last_wal_write..said]
        .iter()
        .any(|c| (c.contains("fsync(") || c.contains("fdatasync(")) && c.contains("-wal>"))
}

#[test]
fn an_owner_set_from_the_command_line_is_synced_before_it_is_said_written() {
    require_strace();
    let (w, _) = Workdir::with_demo();
    let log = calls(
        &w,
        &["owner", "booking-1043", "--owner", "ops:kim", "--by", "ana"],
    );
    assert!(synced_before_said(&log), "{}", log.join("\n"));
}

#[test]
fn a_request_and_an_answer_are_synced_before_they_are_said_written() {
    require_strace();
    let (w, _) = Workdir::with_demo();
    for args in [
        &["request", "retry", "booking-1043", "--by", "ana"][..],
        &[
            "answer",
            "2",
            "--verdict",
            "single_effect",
            "--reviewer",
            "ana",
        ][..],
    ] {
        let log = calls(&w, args);
        assert!(synced_before_said(&log), "{args:?}:\n{}", log.join("\n"));
    }
}
