//! A log that does not belong to the file beside it, and restoring a backup.
//!
//! An ingest killed mid-run leaves its `-wal` beside the ledger. A backup moved over
//! the ledger then met that log, and the first command to close the ledger applied it
//! to the backup: the file grew, broke, and the log was gone. A log copied from another
//! ledger did the same. Here every command refuses such a ledger and leaves the file
//! and the log byte for byte as they were; a command that only reads never writes the
//! file; and `restore` puts a backup in place with the old file and its log kept.

mod support;

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use support::binary::{self, Workdir};
use support::damage::damage_a_callbacks_leaf;
use support::fixture;

/// The ledger's log as it stands after an ingest of `stream` that did not close the
/// ledger (as a killed ingest leaves it): a connection held open meanwhile keeps the
/// ingest from folding its log into the file as it exits. Returns the log's bytes; the
/// ledger itself is then closed, which folds the log in.
fn log_of_an_unfinished_ingest(w: &Workdir, stream: &Path) -> Vec<u8> {
    let holder = Connection::open(&w.db).unwrap();
    holder
        .query_row("SELECT count(*) FROM input_lines", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap();
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let log = std::fs::read(wal(&w.db)).unwrap();
    assert!(log.len() > 32, "the ingest left transactions in the log");
    drop(holder);
    log
}

fn wal(db: &Path) -> PathBuf {
    beside(db, "-wal")
}

fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The ledger's first half of the generated stream, and the second half as a file.
fn half_and_half(w: &Workdir) -> PathBuf {
    let stream = fixture::synthetic_stream(300);
    let lines: Vec<&[u8]> = stream.split_inclusive(|b| *b == b'\n').collect();
    let (first, second) = lines.split_at(lines.len() / 2);
    let first = w.file("first.ndjson", &first.concat());
    w.ok(&["ingest", first.to_str().unwrap()]);
    w.file("second.ndjson", &second.concat())
}

/// Every command, run on the ledger: each is refused naming the log and `restore`,
/// and neither the ledger nor the log changes by a byte.
fn every_command_refuses(w: &Workdir, stream: &Path) {
    let before = (
        std::fs::read(&w.db).unwrap(),
        std::fs::read(wal(&w.db)).unwrap(),
    );
    let backup = w.dir.path().join("another-backup.db");
    for args in [
        vec!["summary"],
        vec!["summary", "--json"],
        vec!["callbacks", "--json"],
        vec!["reconcile"],
        vec!["outbox"],
        vec!["answer", "1", "--verdict", "noise", "--reviewer", "ana"],
        vec!["owner", "job-0000001", "--owner", "ops:lee", "--by", "ana"],
        vec!["ingest", stream.to_str().unwrap()],
        vec!["backup", backup.to_str().unwrap()],
        vec!["check"],
    ] {
        let out = w.run(&args);
        let stderr = binary::failed(&out, &args);
        for word in ["-wal", "not written for this file", "restore"] {
            assert!(stderr.contains(word), "{args:?} lacks {word:?}: {stderr}");
        }
        assert!(out.stdout.is_empty(), "{args:?} printed {:?}", out.stdout);
        let after = (
            std::fs::read(&w.db).unwrap(),
            std::fs::read(wal(&w.db)).unwrap(),
        );
        assert!(after == before, "{args:?} changed the ledger or its log");
    }
    assert!(!backup.exists());
}

#[test]
fn a_backup_moved_over_a_ledger_with_a_log_left_is_refused_untouched() {
    let w = Workdir::new();
    let second = half_and_half(&w);
    let backup = w.dir.path().join("yesterday.db");
    w.ok(&["backup", backup.to_str().unwrap()]);
    let log = log_of_an_unfinished_ingest(&w, &second);
    // The person restores yesterday's backup by hand; the killed ingest's log stays.
    std::fs::rename(&backup, &w.db).unwrap();
    std::fs::write(wal(&w.db), &log).unwrap();
    let _ = std::fs::remove_file(beside(&w.db, "-shm"));
    every_command_refuses(&w, &second);
}

#[test]
fn a_log_copied_from_another_ledger_is_refused_untouched() {
    let other = Workdir::new();
    let second = half_and_half(&other);
    let log = log_of_an_unfinished_ingest(&other, &second);
    let w = Workdir::new();
    half_and_half(&w);
    fixture::fold_log(&w.db);
    std::fs::write(wal(&w.db), &log).unwrap();
    every_command_refuses(&w, &second);
}

#[test]
fn a_report_never_writes_the_ledger_file_even_with_a_log_of_its_own() {
    let w = Workdir::new();
    let second = half_and_half(&w);
    let file_before = std::fs::read(&w.db).unwrap();
    let log = log_of_an_unfinished_ingest(&w, &second);
    let today = w.json(&["summary", "--json"]);
    // The state a killed ingest leaves: the file from before it, its log beside it.
    std::fs::write(&w.db, &file_before).unwrap();
    std::fs::write(wal(&w.db), &log).unwrap();
    let _ = std::fs::remove_file(beside(&w.db, "-shm"));
    assert_eq!(w.json(&["summary", "--json"]), today, "the log is read");
    w.ok(&["callbacks", "--json"]);
    w.ok(&["reconcile", "--json"]);
    w.ok(&["check"]);
    assert!(
        std::fs::read(&w.db).unwrap() == file_before,
        "a report wrote the file"
    );
    assert!(
        std::fs::read(wal(&w.db)).unwrap() == log,
        "a report changed the log"
    );
    // A command that writes takes the log in as its own.
    w.ok(&["owner", "job-0000001", "--owner", "ops:lee", "--by", "ana"]);
    assert!(std::fs::read(&w.db).unwrap() != file_before);
}

#[test]
fn restore_puts_the_backup_in_place_and_keeps_the_old_ledger_with_its_log() {
    let w = Workdir::new();
    let second = half_and_half(&w);
    let backup = w.dir.path().join("yesterday.db");
    w.ok(&["backup", backup.to_str().unwrap()]);
    let yesterday = w.json(&["callbacks", "--json"]);
    let log = log_of_an_unfinished_ingest(&w, &second);
    let today = w.json(&["callbacks", "--json"]);
    assert_ne!(today, yesterday);
    std::fs::write(wal(&w.db), &log).unwrap();
    let said = w.ok(&["restore", backup.to_str().unwrap()]);
    assert!(
        said.contains("restored") && said.contains("nothing was deleted"),
        "{said}"
    );
    assert_eq!(w.json(&["callbacks", "--json"]), yesterday);
    fixture::assert_sound(&w.db);
    // The ledger as it was, with its log, still opens as the ledger of today.
    let kept = w
        .dir
        .path()
        .join("ledger.db.before-restore-2026-11-27T170000Z");
    assert!(kept.exists() && wal(&kept).exists(), "{said}");
    let out = binary::run_at(&kept, fixture::NOW, &["callbacks", "--json"]);
    let kept_rows: serde_json::Value =
        serde_json::from_slice(&binary::succeeded(&out, &["callbacks"]).into_bytes()).unwrap();
    assert_eq!(kept_rows, today);
    // The backup itself is untouched, and the restored file is a file of its own: the
    // backup moved over it later would not take its log.
    w.ok(&["ingest", second.to_str().unwrap()]);
    fixture::assert_sound(&backup);
}

#[test]
fn restore_refuses_while_the_ledger_is_open_and_changes_nothing() {
    let w = Workdir::new();
    half_and_half(&w);
    let backup = w.dir.path().join("b.db");
    w.ok(&["backup", backup.to_str().unwrap()]);
    let mut console = std::process::Command::new("sleep")
        .arg("30")
        .stdin(std::fs::File::open(&w.db).unwrap())
        .spawn()
        .unwrap();
    let before = std::fs::read(&w.db).unwrap();
    let stderr = w.fails(&["restore", backup.to_str().unwrap()]);
    let _ = console.kill();
    let _ = console.wait();
    assert!(
        stderr.contains("open") && stderr.contains(&console.id().to_string()),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&w.db).unwrap(), before);
    let entries = std::fs::read_dir(w.dir.path()).unwrap().count();
    assert!(
        !std::fs::read_dir(w.dir.path()).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("before-restore")),
        "{entries} entries"
    );
}

#[test]
fn restore_refuses_a_damaged_backup_and_changes_nothing() {
    let w = Workdir::new();
    let stream = w.file("stream.ndjson", &fixture::synthetic_stream(1000));
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let backup = w.dir.path().join("b.db");
    w.ok(&["backup", backup.to_str().unwrap()]);
    // The first leaf loses its rows without an error: only a recount shows it.
    damage_a_callbacks_leaf(&backup);
    let before = std::fs::read(&w.db).unwrap();
    let stderr = w.fails(&["restore", backup.to_str().unwrap()]);
    assert!(
        stderr.contains("damaged")
            && stderr.contains("--salvage")
            && stderr.contains("nothing was restored"),
        "{stderr}"
    );
    assert!(
        std::fs::read(&w.db).unwrap() == before,
        "the ledger changed"
    );
    let names: Vec<String> = std::fs::read_dir(w.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.contains("before-restore") || n.contains("partial")),
        "{names:?}"
    );
}
