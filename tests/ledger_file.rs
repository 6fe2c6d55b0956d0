//! The ledger file under hostile conditions (issue 5): owner-only permissions, a file
//! that is not a ledger, a newer schema, a read-only file and directory, a full disk,
//! a writer that never lets go. Each gets a clear message from `jobledger ingest` and a
//! non-zero exit; no batch is kept in part; and once the cause is gone a re-run
//! completes, giving the same ledger as a clean ingest.
//!
//! Tests run as root here, where permission bits do not stop writes: a read-only file
//! is made with `chattr +i` (immutable, which stops root too) and a full disk with a
//! small tmpfs mounted for the test. Where either is not possible the test says so and
//! skips; it never leaves an immutable file or a mount behind (the guards undo them
//! when dropped, also on a failed assertion).

#[path = "support/binary.rs"]
mod binary;
#[path = "support/fixture.rs"]
mod fixture;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use fixture::NOW;
use jobledger::store::{Ledger, SCHEMA_VERSION, StoreError};
use tempfile::TempDir;

fn jobledger(db: &Path, args: &[&str]) -> Output {
    binary::run_at(db, NOW, args)
}

/// A failed run: non-zero exit, no panic, and a message holding each of `words`.
fn assert_refused(out: &Output, words: &[&str]) -> String {
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

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn disk_dir() -> TempDir {
    tempfile::Builder::new()
        .prefix("ledger-file-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

/// The generated stream of `jobs` jobs.
fn stream(jobs: u32) -> Vec<u8> {
    fixture::synthetic_stream(jobs)
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// `chattr +i` on a path, undone when dropped; `None` (with the reason printed) where
/// the file system or the process cannot do it.
struct Immutable(PathBuf);

impl Immutable {
    fn set(path: &Path) -> Option<Immutable> {
        let done = Command::new("chattr")
            .arg("+i")
            .arg(path)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !done {
            eprintln!(
                "SKIPPED: `chattr +i {}` is not possible here (no chattr, no CAP_LINUX_IMMUTABLE, or a file system without the flag); as root, permission bits alone do not stop writes",
                path.display()
            );
            return None;
        }
        Some(Immutable(path.to_path_buf()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

#[cfg(unix)]
#[test]
fn a_ledger_made_by_the_command_line_is_private_with_its_wal_and_shm() {
    use std::os::unix::fs::PermissionsExt;
    let dir = disk_dir();
    let db = dir.path().join("private.db");
    let file = dir.path().join("s.ndjson");
    std::fs::write(&file, stream(20)).unwrap();
    ok(&jobledger(&db, &["ingest", file.to_str().unwrap()]));
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
    let dir = disk_dir();
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
            let stderr = assert_refused(&jobledger(path, args), words);
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
    ok(&jobledger(&db, &["ingest", first_file.to_str().unwrap()]));
    (db, first_file, rest_file)
}

/// The ledger a clean ingest of both streams gives.
fn clean_ledger(
    dir: &Path,
    first: &Path,
    rest: &Path,
) -> std::collections::BTreeMap<String, Vec<String>> {
    let db = dir.join("clean.db");
    ok(&jobledger(&db, &["ingest", first.to_str().unwrap()]));
    ok(&jobledger(&db, &["ingest", rest.to_str().unwrap()]));
    fixture::dump(&db)
}

#[test]
fn a_read_only_ledger_file_gets_a_clear_message_and_a_rerun_completes_once_writable() {
    let dir = disk_dir();
    let (db, first, rest) = ledger_and_more(dir.path());
    let clean = clean_ledger(dir.path(), &first, &rest);
    let before = fixture::dump(&db);
    let bytes = file_bytes(&db);
    {
        let Some(_guard) = Immutable::set(&db) else {
            return;
        };
        let out = jobledger(&db, &["ingest", rest.to_str().unwrap()]);
        assert_refused(&out, &["read-only", &db.display().to_string()]);
        // The library says the same, as a value callers can branch on.
        let mut ledger = Ledger::open(&db).unwrap();
        let error = jobledger::ingest::ingest(&mut ledger, &b"{}\n"[..], fixture::now(), |_| {})
            .expect_err("a read-only ledger takes no batch");
        assert!(
            matches!(
                error,
                jobledger::ingest::IngestError::Store(StoreError::ReadOnly { .. })
            ),
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
        assert_refused(&out, &["read-only"]);
        ok(&jobledger(&db, &["summary"]));
        assert_eq!(file_bytes(&db), bytes, "the read-only file changed");
    }
    assert_eq!(
        fixture::dump(&db),
        before,
        "nothing of the refused batch is kept"
    );
    ok(&jobledger(&db, &["ingest", rest.to_str().unwrap()]));
    assert_eq!(fixture::dump(&db), clean);
}

#[test]
fn a_ledger_in_a_read_only_directory_gets_a_clear_message_and_a_rerun_completes() {
    let dir = disk_dir();
    let (db, first, rest) = ledger_and_more(dir.path());
    let clean = clean_ledger(dir.path(), &first, &rest);
    let before = fixture::dump(&db);
    let fresh = dir.path().join("fresh.db");
    {
        let Some(_guard) = Immutable::set(dir.path()) else {
            return;
        };
        // A new ledger cannot be created there.
        let out = jobledger(&fresh, &["ingest", first.to_str().unwrap()]);
        assert_refused(&out, &["cannot create", &fresh.display().to_string()]);
        assert!(!fresh.exists());
        // An existing one cannot take a batch: its write-ahead log cannot be made.
        let out = jobledger(&db, &["ingest", rest.to_str().unwrap()]);
        let stderr = assert_refused(&out, &[&db.display().to_string()]);
        assert!(
            stderr.contains("read-only") || stderr.contains("unable to open"),
            "{stderr}"
        );
    }
    assert_eq!(fixture::dump(&db), before);
    ok(&jobledger(&db, &["ingest", rest.to_str().unwrap()]));
    assert_eq!(fixture::dump(&db), clean);
    ok(&jobledger(&fresh, &["ingest", first.to_str().unwrap()]));
}

/// A tmpfs of `size` mounted on a directory, unmounted when dropped; `None` (with the
/// reason printed) where mounting is not possible.
struct SmallDisk {
    dir: TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = disk_dir();
        let done = Command::new("mount")
            .args(["-t", "tmpfs", "-o"])
            .arg(format!("size={size},mode=0700"))
            .arg("tmpfs")
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !done {
            eprintln!(
                "SKIPPED: cannot mount a small tmpfs here (needs root with CAP_SYS_ADMIN) to fill a disk"
            );
            return None;
        }
        Some(SmallDisk { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn grow(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o"])
            .arg(format!("remount,size={size}"))
            .arg(self.dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "remounting larger");
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn a_full_disk_gets_a_clear_message_keeps_whole_batches_and_a_rerun_completes() {
    let work = disk_dir();
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
    ok(&jobledger(&clean_db, &["ingest", input.to_str().unwrap()]));
    let clean = fixture::dump(&clean_db);

    let Some(disk) = SmallDisk::mount("640k") else {
        return;
    };
    let db = disk.path().join("ledger.db");
    let out = jobledger(&db, &["ingest", input.to_str().unwrap()]);
    let stderr = assert_refused(&out, &["full", &db.display().to_string()]);
    assert!(
        stderr.contains("re-run"),
        "the message says what to do: {stderr}"
    );
    // What is there is sound and whole: a prefix of the stream, each line with its effects.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let kept: i64 = conn
        .query_row("SELECT count(*) FROM input_lines", [], |r| r.get(0))
        .unwrap();
    let kept_usize = usize::try_from(kept).unwrap();
    assert!(kept_usize < lines.len(), "the disk was not full after all");
    if kept > 0 {
        let last: Vec<u8> = conn
            .query_row("SELECT raw FROM input_lines WHERE seq = ?1", [kept], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(
            last,
            lines[kept_usize - 1],
            "a prefix of the stream is kept"
        );
        let orphans: i64 = conn
            .query_row(
                "SELECT count(*) FROM callbacks WHERE line_seq > ?1",
                [kept],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphans, 0);
    }
    drop(conn);
    eprintln!("disk full after {kept} of {} lines", lines.len());
    // The library gives the same cause as a value callers can branch on.
    let mut ledger = Ledger::open(&db).unwrap();
    let error = jobledger::ingest::ingest(&mut ledger, bytes.as_slice(), fixture::now(), |_| {})
        .expect_err("the disk is still full");
    assert!(
        matches!(
            error,
            jobledger::ingest::IngestError::Store(StoreError::DiskFull { .. })
        ),
        "{error:?}"
    );
    drop(ledger);
    // Once there is space, the same command finishes the job.
    disk.grow("64m");
    ok(&jobledger(&db, &["ingest", input.to_str().unwrap()]));
    assert_eq!(fixture::dump(&db), clean);
}

#[test]
#[ignore = "waits out the 10 s busy timeout"]
fn a_writer_that_never_lets_go_is_reported_busy_after_the_timeout() {
    let dir = disk_dir();
    let (db, _, rest) = ledger_and_more(dir.path());
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = jobledger(&db, &["ingest", rest.to_str().unwrap()]);
    assert_refused(&out, &["busy", "try again"]);
    let mut ledger = Ledger::open(&db).unwrap();
    let error = ledger.writer().err().expect("busy");
    assert!(matches!(error, StoreError::Busy { .. }), "{error:?}");
    holder.execute_batch("ROLLBACK").unwrap();
    ok(&jobledger(&db, &["ingest", rest.to_str().unwrap()]));
}
