//! The ledger file under hostile conditions: owner-only permissions, a file
//! that is not a ledger, a newer schema, a read-only file and directory, a full disk,
//! a writer that never lets go. Each gets a clear message from `jobledger ingest` and a
//! non-zero exit; no batch is kept in part; and once the cause is gone a re-run
//! completes, giving the same ledger as a clean ingest.
//!
//! Tests run as root here, where permission bits do not stop writes: a read-only file
//! is made with `chattr +i` (immutable, which stops root too) and a full disk with a
//! small tmpfs mounted for the test. Where either is not possible the test fails, saying
//! what is missing (it never passes without checking); it never leaves an immutable file or a mount behind (the guards undo them
//! when dropped, also on a failed assertion).

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};
use support::binary::{refused, succeeded};
use support::disk::{Immutable, SmallDisk, disk_dir};
use support::{binary, fixture};

use fixture::NOW;
use jobledger::store::{BUSY_TIMEOUT, Ledger, SCHEMA_VERSION, StoreError};

fn jobledger(db: &Path, args: &[&str]) -> Output {
    binary::run_at(db, NOW, args)
}

/// Why the library's ingest refuses `bytes` on this ledger: the cause as a value
/// callers can branch on.
fn ingest_refusal(ledger: &mut Ledger, bytes: &[u8], why: &str) -> StoreError {
    match jobledger::ingest::ingest(ledger, bytes, fixture::now(), |_| {}) {
        Err(jobledger::ingest::IngestError::Store(error)) => error,
        Err(other) => panic!("{why}: {other:?}"),
        Ok(report) => panic!("{why}, but it took the batch: {report:?}"),
    }
}

/// The generated stream of `jobs` jobs.
fn stream(jobs: u32) -> Vec<u8> {
    fixture::synthetic_stream(jobs)
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[cfg(unix)]
#[test]
fn a_ledger_made_by_the_command_line_is_private_with_its_wal_and_shm() {
    use std::os::unix::fs::PermissionsExt;
    let dir = disk_dir("ledger-file-");
    let db = dir.path().join("private.db");
    let file = dir.path().join("s.ndjson");
    std::fs::write(&file, stream(20)).unwrap();
    succeeded(&jobledger(&db, &["ingest", file.to_str().unwrap()]), &[]);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&db), 0o600);
    // While a connection is open, the newest pages live in -wal and -shm: same privacy.
    let ledger = Ledger::open(&db).unwrap();
    ledger.data_version().unwrap();
    for suffix in ["db-wal", "db-shm"] {
        let side = db.with_extension(suffix);
        assert!(side.exists(), "{}", side.display());
        assert_eq!(mode(&side), 0o600, "{}", side.display());
    }
}

#[test]
fn the_command_line_refuses_files_that_are_not_ledgers_and_leaves_them_as_they_were() {
    let dir = disk_dir("ledger-file-");
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "shopping list\n".repeat(500)).unwrap();
    let other = dir.path().join("photos.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch(
            "CREATE TABLE albums (id INTEGER PRIMARY KEY); INSERT INTO albums VALUES (1);",
        )
        .unwrap();
    let newer = dir.path().join("newer.db");
    drop(Ledger::open(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch(&format!("PRAGMA user_version = {};", SCHEMA_VERSION + 1))
        .unwrap();
    let input = dir.path().join("s.ndjson");
    std::fs::write(&input, stream(5)).unwrap();
    for (path, words) in [
        (&text, &["not a SQLite database", "untouched"][..]),
        (&other, &["not a jobledger ledger", "untouched"]),
        (&newer, &["newer than this jobledger", "upgrade jobledger"]),
    ] {
        let before = file_bytes(path);
        for args in [
            &["ingest", input.to_str().unwrap()][..],
            &["summary"],
            &["answer", "1", "--verdict", "noise"],
        ] {
            let stderr = refused(&jobledger(path, args), words);
            assert!(stderr.contains(&path.display().to_string()), "{stderr}");
        }
        assert_eq!(file_bytes(path), before, "{} was changed", path.display());
    }
}

/// A ledger holding the first `jobs` jobs, and a second stream to ingest into it.
fn ledger_and_more(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let db = dir.join("ledger.db");
    let all = stream(300);
    let lines: Vec<&[u8]> = all.split(|b| *b == b'\n').collect();
    let (first, rest) = lines.split_at(lines.len() / 2);
    let first_file = dir.join("first.ndjson");
    let rest_file = dir.join("rest.ndjson");
    std::fs::write(&first_file, first.join(&b'\n')).unwrap();
    std::fs::write(&rest_file, rest.join(&b'\n')).unwrap();
    succeeded(
        &jobledger(&db, &["ingest", first_file.to_str().unwrap()]),
        &[],
    );
    (db, first_file, rest_file)
}

/// The ledger a clean ingest of both streams gives.
fn clean_ledger(
    dir: &Path,
    first: &Path,
    rest: &Path,
) -> std::collections::BTreeMap<String, Vec<String>> {
    let db = dir.join("clean.db");
    succeeded(&jobledger(&db, &["ingest", first.to_str().unwrap()]), &[]);
    succeeded(&jobledger(&db, &["ingest", rest.to_str().unwrap()]), &[]);
    fixture::dump(&db)
}

#[test]
fn a_read_only_ledger_file_gets_a_clear_message_and_a_rerun_completes_once_writable() {
    let dir = disk_dir("ledger-file-");
    let (db, first, rest) = ledger_and_more(dir.path());
    let (clean, before) = (clean_ledger(dir.path(), &first, &rest), fixture::dump(&db));
    let bytes = file_bytes(&db);
    {
        let _guard = Immutable::set(&db);
        let out = jobledger(&db, &["ingest", rest.to_str().unwrap()]);
        let shown = db.display().to_string();
        let said = refused(&out, &["read-only", "is marked immutable"]);
        // The file that cannot be written, and the fix; a re-run alone cannot help.
        assert!(said.contains(&format!("chattr -i {shown}")), "{said}");
        assert!(!said.contains("re-run"), "{said}");
        // The library says the same, as a value callers can branch on.
        let mut ledger = Ledger::open(&db).unwrap();
        let error = ingest_refusal(
            &mut ledger,
            &b"{}\n"[..],
            "a read-only ledger takes no batch",
        );
        assert!(
            matches!(&error, StoreError::Immutable { file, .. } if *file == db),
            "{error:?}"
        );
        drop(ledger);
        // A reviewer's answer gets the same clear message; reports still work.
        let seq = fixture::query_i64(
            &db,
            "SELECT min(seq) FROM callbacks WHERE disposition = 'hold'",
            [],
        );
        let out = jobledger(
            &db,
            &[
                "answer",
                &seq.to_string(),
                "--verdict",
                "needs_remote_check",
            ],
        );
        refused(&out, &["read-only", &format!("chattr -i {shown}")]);
        succeeded(&jobledger(&db, &["summary"]), &[]);
        assert_eq!(file_bytes(&db), bytes, "the read-only file changed");
    }
    assert_eq!(
        fixture::dump(&db),
        before,
        "nothing of the refused batch is kept"
    );
    succeeded(&jobledger(&db, &["ingest", rest.to_str().unwrap()]), &[]);
    assert_eq!(fixture::dump(&db), clean);
}

#[test]
fn an_immutable_write_ahead_log_is_named_with_its_fix_and_a_rerun_completes_once_writable() {
    let dir = disk_dir("ledger-file-");
    let (db, first, rest) = ledger_and_more(dir.path());
    let (clean, before) = (clean_ledger(dir.path(), &first, &rest), fixture::dump(&db));
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    // A connection that wrote and stays open keeps the log beside the ledger.
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder
        .execute_batch(&format!(
            "PRAGMA wal_autocheckpoint = 0; PRAGMA user_version = {SCHEMA_VERSION};"
        ))
        .unwrap();
    assert!(wal.exists(), "the log is there");
    {
        let _guard = Immutable::set(&wal);
        let fix = format!("chattr -i {}", wal.display());
        for args in [
            &["ingest", rest.to_str().unwrap()][..],
            &["answer", "1", "--verdict", "noise"],
        ] {
            let said = refused(&jobledger(&db, args), &["is marked immutable", &fix]);
            assert!(!said.contains("re-run"), "{args:?}: {said}");
        }
        succeeded(&jobledger(&db, &["summary"]), &[]);
    }
    drop(holder);
    assert_eq!(fixture::dump(&db), before, "nothing was written");
    succeeded(&jobledger(&db, &["ingest", rest.to_str().unwrap()]), &[]);
    assert_eq!(fixture::dump(&db), clean);
}

#[test]
fn a_ledger_in_a_read_only_directory_gets_a_clear_message_and_a_rerun_completes() {
    let dir = disk_dir("ledger-file-");
    let (db, first, rest) = ledger_and_more(dir.path());
    let (clean, before) = (clean_ledger(dir.path(), &first, &rest), fixture::dump(&db));
    let fresh = dir.path().join("fresh.db");
    {
        let _guard = Immutable::set(dir.path());
        // A new ledger cannot be created there.
        let out = jobledger(&fresh, &["ingest", first.to_str().unwrap()]);
        refused(&out, &["cannot create", &fresh.display().to_string()]);
        assert!(!fresh.exists());
        // An existing one cannot take a batch: its write-ahead log cannot be made.
        let out = jobledger(&db, &["ingest", rest.to_str().unwrap()]);
        let stderr = refused(&out, &[&db.display().to_string()]);
        assert!(
            stderr.contains("read-only") || stderr.contains("unable to open"),
            "{stderr}"
        );
    }
    assert_eq!(fixture::dump(&db), before);
    succeeded(&jobledger(&db, &["ingest", rest.to_str().unwrap()]), &[]);
    assert_eq!(fixture::dump(&db), clean);
    succeeded(
        &jobledger(&fresh, &["ingest", first.to_str().unwrap()]),
        &[],
    );
}

#[test]
fn a_full_disk_gets_a_clear_message_keeps_whole_batches_and_a_rerun_completes() {
    let work = disk_dir("ledger-file-");
    // Lines of a stream whose first batch (50,000 lines, mostly blank) fits on the small
    // disk and whose second does not.
    let all = stream(3_000);
    let lines: Vec<&[u8]> = all
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut bytes = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        if i == 200 {
            bytes.extend(std::iter::repeat_n(b'\n', jobledger::ingest::BATCH_LINES));
        }
    }
    let input = work.path().join("s.ndjson");
    std::fs::write(&input, &bytes).unwrap();
    let clean_db = work.path().join("clean.db");
    succeeded(
        &jobledger(&clean_db, &["ingest", input.to_str().unwrap()]),
        &[],
    );
    let clean = fixture::dump(&clean_db);

    // Sized to the schema (schemas 8 and 9 added pages): the empty ledger and the first batch fit.
    // Room for a new ledger's schema (520 KB) and the log of its first batch, not
    // for the whole stream.
    let disk = SmallDisk::mount("2m");
    let db = disk.path().join("ledger.db");
    let out = jobledger(&db, &["ingest", input.to_str().unwrap()]);
    let stderr = refused(&out, &["full", &db.display().to_string()]);
    assert!(
        stderr.contains("re-run"),
        "the message says what to do: {stderr}"
    );
    // What is there is sound and whole: a prefix of the stream, each line with its effects.
    fixture::assert_sound(&db);
    let kept = fixture::kept_prefix(&db, &lines);
    assert!(
        usize::try_from(kept).unwrap() < lines.len(),
        "the disk was not full after all"
    );
    eprintln!("disk full after {kept} of {} lines", lines.len());
    // The library gives the same cause as a value callers can branch on.
    let mut ledger = Ledger::open(&db).unwrap();
    let error = ingest_refusal(&mut ledger, bytes.as_slice(), "the disk is still full");
    assert!(matches!(error, StoreError::DiskFull { .. }), "{error:?}");
    drop(ledger);
    // Once there is space, the same command finishes the job.
    disk.grow("64m");
    succeeded(&jobledger(&db, &["ingest", input.to_str().unwrap()]), &[]);
    assert_eq!(fixture::dump(&db), clean);
}

#[test]
fn a_writer_that_never_lets_go_is_reported_busy_after_the_timeout() {
    // The ledger's own timeout is 10 s; a short one shows the same path in a moment.
    const SHORT: Duration = Duration::from_millis(300);
    let dir = disk_dir("ledger-file-");
    let (db, _, rest) = ledger_and_more(dir.path());
    let before = fixture::dump(&db);
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut ledger = Ledger::open_with_busy_timeout(&db, SHORT).unwrap();
    let started = Instant::now();
    let error = ledger.writer().err().expect("busy");
    let waited = started.elapsed();
    assert!(matches!(error, StoreError::Busy { .. }), "{error:?}");
    assert!(
        waited >= SHORT,
        "gave up after {waited:?}, before the timeout"
    );
    // What the command line prints for it: the file, and what to do.
    let told = error.to_string();
    for words in ["busy", "try again", &db.display().to_string()] {
        assert!(told.contains(words), "{told}");
    }
    let refused = ingest_refusal(&mut ledger, &b"{}\n"[..], "a held ledger takes no batch");
    assert!(matches!(refused, StoreError::Busy { .. }), "{refused:?}");
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(fixture::dump(&db), before, "a refused writer wrote");
    // Once the other writer lets go, the same connection and a re-run both write.
    ledger.writer().expect("free again").commit().unwrap();
    succeeded(&jobledger(&db, &["ingest", rest.to_str().unwrap()]), &[]);
}

#[test]
fn a_writer_that_lets_go_within_the_timeout_is_waited_for() {
    assert_eq!(BUSY_TIMEOUT, Duration::from_secs(10));
    let dir = disk_dir("ledger-file-");
    let (db, _, rest) = ledger_and_more(dir.path());
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let letting_go = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        holder.execute_batch("ROLLBACK").unwrap();
    });
    // The default timeout, as the command line opens a ledger.
    let out = jobledger(&db, &["ingest", rest.to_str().unwrap()]);
    letting_go.join().unwrap();
    succeeded(&out, &["ingest"]);
}

#[test]
fn memory_and_uri_names_are_refused_with_a_sentence_and_nothing_is_made() {
    let w = support::binary::Workdir::new();
    let stream = w.file("s.ndjson", fixture::booking_afternoon().as_bytes());
    let stream = stream.to_str().unwrap();
    for name in [":memory:", "file:ledger.db?mode=memory", "file:ledger.db"] {
        let output = w
            .command()
            .args(["--db", name, "ingest", stream])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{name}: {said}");
        assert!(said.contains("is not a file name"), "{name}: {said}");
        assert!(said.contains("give the path of a file"), "{name}: {said}");
    }
    let made: Vec<_> = std::fs::read_dir(w.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| {
            n.to_string_lossy().contains("memory") || n.to_string_lossy().starts_with("file:")
        })
        .collect();
    assert!(made.is_empty(), "files made: {made:?}");
}

#[test]
fn read_commands_on_an_empty_file_or_a_directory_say_so_and_write_nothing() {
    let w = support::binary::Workdir::new();
    let empty = w.file("empty.db", b"");
    let dir = w.dir.path().join("a-directory");
    std::fs::create_dir(&dir).unwrap();
    for (db, words) in [(&empty, "is an empty file"), (&dir, "is a directory")] {
        for args in [
            &["summary"][..],
            &["callbacks", "--json"][..],
            &["answer", "1", "--verdict", "noise"][..],
        ] {
            let output = w.command().arg("--db").arg(db).args(args).output().unwrap();
            let said = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "{args:?}: {said}");
            assert!(said.contains(words), "{args:?}: {said}");
        }
    }
    // The empty file is still empty: no schema was written into it.
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
}
