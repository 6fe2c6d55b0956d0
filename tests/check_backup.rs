//! `jobledger check` and `jobledger backup`: a fresh ledger
//! passes every check; each broken promise of the ledger is found and named, with
//! exit 3; a backup taken while ingest goes on is whole, owner-only, passes the check
//! and holds a prefix of the stream; an existing file is never written over.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::Value;
use support::binary::{self, Workdir};
use support::fixture::{self, NOW};

/// Runs `check --json` on `db`: its exit code and report.
fn check(db: &Path) -> (Option<i32>, Value) {
    let out = binary::run_at(db, NOW, &["check", "--json"]);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "check --json printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), report)
}

/// The names of the checks that failed, each with its problems.
fn failed_checks(report: &Value) -> Vec<(String, String)> {
    report["checks"]
        .as_array()
        .expect("a list of checks")
        .iter()
        .filter(|c| !c["problems"].as_array().unwrap().is_empty())
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_owned(),
                c["problems"].to_string(),
            )
        })
        .collect()
}

/// Writes to the ledger behind jobledger's back, as a person with `sqlite3` might.
fn tamper(db: &Path, sql: &str) {
    let conn = Connection::open(db).unwrap();
    conn.execute_batch(&format!("PRAGMA foreign_keys = OFF; {sql}"))
        .unwrap();
}

/// Asserts that `check` failed with exit 3, `check` among the failures, naming `word`.
fn finds(db: &Path, check_name: &str, word: &str) {
    let (code, report) = check(db);
    assert_eq!(code, Some(3), "{report}");
    assert_eq!(report["ok"], false);
    let failed = failed_checks(&report);
    assert!(
        failed
            .iter()
            .any(|(name, problems)| name == check_name && problems.contains(word)),
        "{check_name} should name {word:?}: {failed:?}"
    );
}

#[test]
fn a_fresh_demo_ledger_passes_every_check() {
    let (w, _) = Workdir::with_demo();
    let (code, report) = check(&w.db);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["ok"], true);
    let names: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(names, jobledger::store::CHECKS);
    let text = w.ok(&["check"]);
    assert!(text.contains("passed every check"), "{text}");
    assert!(text.contains("integrity            ok"), "{text}");
}

#[test]
fn check_reads_only() {
    let (w, _) = Workdir::with_demo();
    fixture::fold_log(&w.db);
    let before = std::fs::read(&w.db).unwrap();
    w.ok(&["check"]);
    // No connection is open here, so a write by `check` would have been folded into
    // the file when it closed, or left in its log.
    fixture::fold_log(&w.db);
    assert!(
        std::fs::read(&w.db).unwrap() == before,
        "check wrote to the ledger"
    );
}

#[test]
fn a_kept_count_that_differs_from_its_rows_is_found() {
    let (w, _) = Workdir::with_demo();
    tamper(
        &w.db,
        "UPDATE ledger_counts SET n = n + 2 WHERE name = 'callbacks.hold'",
    );
    finds(&w.db, "kept_counts", "callbacks.hold: kept");
    let text = String::from_utf8(w.run(&["check"]).stdout).unwrap();
    assert!(text.contains("kept_counts          WRONG"), "{text}");
    assert!(text.contains("failed 1 of"), "{text}");
}

#[test]
fn a_broken_foreign_key_is_found() {
    let (w, _) = Workdir::with_demo();
    tamper(
        &w.db,
        "INSERT INTO owner_assignments (job_id, owner, set_by, set_at)
         VALUES ('no-such-job', 'ops:lee', 'test', '2026-11-27T17:00:00.000Z')",
    );
    finds(&w.db, "foreign_keys", "owner_assignments row");
}

#[test]
fn a_line_kept_twice_is_found() {
    let (w, _) = Workdir::with_demo();
    // The same SHA-256 with another time key: the unique index lets it in.
    tamper(
        &w.db,
        "INSERT INTO input_lines (line_sha256, raw, event, status, ingested_at)
         SELECT line_sha256, CAST('{\"at\":\"2031-01-01T00:00:00Z\"}' AS BLOB), event,
                'applied', ingested_at
           FROM input_lines WHERE status = 'applied' ORDER BY seq LIMIT 1",
    );
    finds(&w.db, "line_identity", "is kept 2 times");
}

#[test]
fn a_callback_missing_from_the_text_index_is_found() {
    let (w, _) = Workdir::with_demo();
    // A search would never find callback #2 again.
    tamper(&w.db, "DELETE FROM callback_text_docsize WHERE id = 2");
    finds(&w.db, "text_index", "callback #2 is not in the text index");
    let text = String::from_utf8(w.run(&["check"]).stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("text_index"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("WRONG"), "{line}");
    assert!(line.contains("callbacks in the text index"), "{line}");
}

#[test]
fn a_callback_on_a_line_that_is_no_callback_is_found() {
    let (w, _) = Workdir::with_demo();
    tamper(
        &w.db,
        "DROP TRIGGER callbacks_keep_disposition;
         UPDATE callbacks SET line_seq = (SELECT min(seq) FROM input_lines WHERE status = 'applied')
          WHERE seq = (SELECT min(seq) FROM callbacks)",
    );
    finds(&w.db, "callback_lines", "a line with status applied");
}

#[test]
fn a_value_breaking_a_check_constraint_is_found() {
    let (w, _) = Workdir::with_demo();
    // SQLite's integrity_check skips CHECK constraints on a file opened read-only.
    tamper(
        &w.db,
        "PRAGMA ignore_check_constraints = ON;
         DROP TRIGGER callbacks_keep_disposition;
         UPDATE callbacks SET outcome = 'maybe' WHERE seq = (SELECT min(seq) FROM callbacks)",
    );
    finds(
        &w.db,
        "constraints",
        "breaks its CHECK (outcome = 'success'",
    );
}

#[test]
fn check_of_a_missing_ledger_fails_with_a_sentence_and_exit_1() {
    let w = Workdir::new();
    let out = w.run(&["check"]);
    binary::refused(&out, &["no ledger at"]);
    assert!(!w.db.exists(), "check created a ledger");
}

/// Runs `backup DEST`.
fn backup(w: &Workdir, dest: &Path) -> Output {
    w.run(&["backup", dest.to_str().unwrap()])
}

#[test]
fn a_backup_is_owner_only_passes_the_check_and_holds_the_same_rows() {
    let (w, _) = Workdir::with_demo();
    w.ok(&["answer", "5", "--verdict", "noise", "--reviewer", "ana"]);
    let dest = w.dir.path().join("copy.db");
    let out = backup(&w, &dest);
    let said = binary::succeeded(&out, &["backup"]);
    assert!(
        said.contains("backup written to") && said.contains(" MB in "),
        "{said}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("copying"), "{stderr}");
    assert_a_whole_private_copy(&w, &dest);
}

#[test]
fn backup_never_writes_over_a_file() {
    let (w, _) = Workdir::with_demo();
    let dest = w.file("taken.db", b"somebody's notes\n");
    let out = backup(&w, &dest);
    binary::refused(&out, &["already exists", "never writes over"]);
    assert_eq!(std::fs::read(&dest).unwrap(), b"somebody's notes\n");
    // The ledger itself is refused as the ledger's own file.
    let out = w.run(&["backup", w.db.to_str().unwrap()]);
    binary::refused(&out, &["one of its own files"]);
    // An empty file given for the copy (made owner-only first) is filled.
    let empty = w.file("empty.db", b"");
    binary::succeeded(&backup(&w, &empty), &["backup"]);
    assert_eq!(check(&empty).0, Some(0));
}

#[test]
fn a_failed_backup_leaves_nothing_under_its_name() {
    let (w, _) = Workdir::with_demo();
    let dest = w.dir.path().join("no-such-dir").join("copy.db");
    let out = backup(&w, &dest);
    binary::failed(&out, &["backup"]);
    assert!(!dest.exists());
}

#[test]
fn a_backup_taken_while_ingest_runs_is_a_whole_prefix_of_the_stream() {
    let w = Workdir::new();
    let stream = fixture::synthetic_stream(20_000);
    let file = w.file("stream.ndjson", &stream);
    let mut ingest = support::crash::ingest_command(&w.db, &file)
        .spawn()
        .unwrap();
    // Wait for the first batches to be committed.
    let started = Instant::now();
    while !(w.db.exists()
        && Connection::open(&w.db)
            .and_then(|c| c.query_row("SELECT count(*) FROM input_lines", [], |r| r.get(0)))
            .is_ok_and(|n: i64| n > 0))
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no batch was committed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let dest = w.dir.path().join("during.db");
    binary::succeeded(&backup(&w, &dest), &["backup"]);
    let still_running = ingest.try_wait().unwrap().is_none();
    assert!(ingest.wait().unwrap().success());
    assert!(
        still_running,
        "the backup should be taken while ingest goes on"
    );
    assert_eq!(check(&dest).0, Some(0));
    let mut seen = std::collections::HashSet::new();
    let order: Vec<&[u8]> = stream
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty() && seen.insert(*l))
        .collect();
    let kept = fixture::kept_prefix(&dest, &order);
    let all = fixture::kept_prefix(&w.db, &order);
    assert!(
        kept > 0 && kept < all,
        "the backup holds {kept} of {all} lines"
    );
}

#[test]
fn backup_and_check_work_on_a_ledger_nobody_may_write() {
    let (w, _) = Workdir::with_demo();
    let before = std::fs::read(&w.db).unwrap();
    let dest = w.dir.path().join("copy.db");
    {
        // Immutable: as root, permission bits alone would not stop a write.
        let _frozen = support::disk::Immutable::set(&w.db);
        binary::succeeded(&backup(&w, &dest), &["backup"]);
        assert_eq!(check(&w.db).0, Some(0));
    }
    assert!(std::fs::read(&w.db).unwrap() == before);
    assert_eq!(check(&dest).0, Some(0));
    assert_eq!(fixture::dump(&dest), fixture::dump(&w.db));
}

#[test]
fn backup_refuses_the_ledger_and_its_own_files_by_name_and_by_identity() {
    let (w, _) = Workdir::with_demo();
    let waiting = w.dir.path().join("ledger.db-waiting");
    assert!(
        waiting.exists(),
        "a write leaves its lock file beside the ledger"
    );
    let linked = w.dir.path().join("other-name.db");
    std::fs::hard_link(&waiting, &linked).unwrap();
    let roundabout = w.dir.path().join(".").join("ledger.db-wal");
    for dest in [
        waiting.clone(),
        w.dir.path().join("ledger.db-shm"),
        roundabout,
        linked,
    ] {
        let out = backup(&w, &dest);
        binary::refused(&out, &["one of its own files"]);
    }
    assert_eq!(
        std::fs::read(&waiting).unwrap(),
        b"",
        "the lock file is as it was"
    );
    assert_eq!(check(&w.db).0, Some(0));
}

#[test]
fn a_backup_removes_what_killed_backups_left_beside_it() {
    let (w, _) = Workdir::with_demo();
    let copy = w.dir.path().join("copy.db");
    // A process id above the kernel's largest (4194304) is never running.
    let stale = w.file(".copy.db.partial-99999999", b"SQLite format 3\0 and more");
    let stale_journal = w.file(".copy.db.partial-99999999-journal", b"");
    let running = format!(".copy.db.partial-{}", std::process::id());
    let live = w.file(&running, b"");
    let someone_elses = w.file(".notes.partial-99999999", b"a person's text");
    binary::succeeded(&backup(&w, &copy), &["backup"]);
    assert!(
        !stale.exists() && !stale_journal.exists(),
        "stale copy left"
    );
    assert!(live.exists(), "a running backup's copy was removed");
    assert!(someone_elses.exists(), "a file that is no copy was removed");
}

#[test]
fn a_backup_onto_a_full_disk_names_that_disk_and_leaves_nothing() {
    let w = Workdir::new();
    let stream = w.file("stream.ndjson", &fixture::synthetic_stream(1000));
    w.ok(&["ingest", stream.to_str().unwrap()]);
    let small = support::disk::SmallDisk::mount("512k");
    let dest = small.path().join("copy.db");
    let out = backup(&w, &dest);
    let stderr = binary::failed(&out, &["backup"]);
    assert!(
        stderr.contains(&format!("the disk holding {} is full", dest.display())),
        "{stderr}"
    );
    assert!(!stderr.contains("interrupted batch"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(small.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_salvage_of_a_sound_ledger_saves_every_row_and_passes_every_check() {
    let (w, _) = Workdir::with_demo();
    w.ok(&["answer", "5", "--verdict", "noise", "--reviewer", "ana"]);
    w.ok(&["owner", "booking-1043", "--owner", "ops:kim"]);
    let dest = w.dir.path().join("saved.db");
    let args = ["backup", "--salvage", dest.to_str().unwrap()];
    let said = binary::succeeded(&w.run(&args), &args);
    assert!(said.contains("salvage written to"), "{said}");
    assert!(said.contains("every row of"), "{said}");
    assert!(!said.contains("not saved"), "{said}");
    assert_a_whole_private_copy(&w, &dest);
    // Like a backup, it never writes over a file.
    binary::refused(&w.run(&args), &["already exists"]);
}

#[test]
fn backup_help_names_the_salvage_and_its_exit_status() {
    let out = binary::bare().args(["backup", "--help"]).output().unwrap();
    let help = binary::succeeded(&out, &["backup", "--help"]);
    assert!(help.contains("--salvage"), "{help}");
    assert!(help.contains("4 with --salvage"), "{help}");
}

/// `dest` is a copy of the ledger that only its owner may read, passes `check`, holds
/// the same rows table by table, and left no partial copy beside it.
fn assert_a_whole_private_copy(w: &Workdir, dest: &Path) {
    let mode = std::fs::metadata(dest).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the copy is owner-only");
    assert_eq!(check(dest).0, Some(0));
    assert_eq!(fixture::dump(dest), fixture::dump(&w.db));
    let leftovers: Vec<_> = std::fs::read_dir(w.dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".partial-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
