//! The ledger file (SPEC sec. 7, STYLE "Storage owns SQL"): foreign and newer files are
//! refused and left byte for byte as they were; a new ledger is private, in WAL mode,
//! readable by the `sqlite3` shell and Python; evidence cannot be rewritten.

mod support;

use std::path::Path;
use support::disk::tool;
use support::fixture;

use fixture::{TempLedger, now};
use jobledger::review::{AnswerRequest, answer};
use jobledger::store::{APPLICATION_ID, Ledger, SCHEMA_VERSION, StoreError};
use sha2::{Digest, Sha256};

/// Every file in `dir`: name, length and SHA-256 of its bytes.
fn snapshot(dir: &Path) -> Vec<(String, usize, String)> {
    let mut files: Vec<(String, usize, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let bytes = std::fs::read(entry.path()).unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                bytes.len(),
                format!("{:x}", Sha256::digest(&bytes)),
            )
        })
        .collect();
    files.sort();
    files
}

/// Opens `path` both ways, expecting a refusal each time with the file left as it was.
fn refused(path: &Path) -> Vec<StoreError> {
    let dir = path.parent().unwrap();
    let before = snapshot(dir);
    let read_write = Ledger::open(path).err().expect("open must refuse");
    assert_eq!(
        snapshot(dir),
        before,
        "refusing {} changed or added a file",
        path.display()
    );
    let read_only = Ledger::open_read_only(path)
        .err()
        .expect("read-only open must refuse");
    // A read-only SQLite connection to a WAL file may leave its (empty) -wal and -shm
    // beside it, as the sqlite3 shell does; the file itself must not change.
    let file = |files: Vec<(String, usize, String)>| {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        files.into_iter().find(|f| f.0 == name)
    };
    assert_eq!(file(snapshot(dir)), file(before), "{}", path.display());

    let errors = vec![read_write, read_only];
    for error in &errors {
        let message = error.to_string();
        assert!(message.contains("untouched"), "{message}");
        assert!(
            message.contains(&path.display().to_string()),
            "the message names the file: {message}"
        );
    }
    errors
}

/// [`refused`], each error of the kind `is` picks and saying `words`.
fn refused_as(path: &Path, is: fn(&StoreError) -> bool, words: &str) {
    for error in refused(path) {
        assert!(is(&error), "{error:?}: {error}");
        assert!(error.to_string().contains(words), "{error}");
    }
}

#[test]
fn a_sqlite_file_of_another_application_is_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("photos.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE albums (id INTEGER PRIMARY KEY, title TEXT);
             INSERT INTO albums (title) VALUES ('summer'), ('winter');",
        )
        .unwrap();
    }
    let not_a_ledger = |e: &StoreError| matches!(e, StoreError::NotALedger { .. });
    refused_as(&path, not_a_ledger, "not a jobledger ledger");
}

#[test]
fn a_sqlite_file_with_another_application_id_and_no_tables_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA application_id = 1234;").unwrap();
    }
    for error in refused(&path) {
        assert!(matches!(error, StoreError::NotALedger { .. }), "{error:?}");
    }
}

#[test]
fn a_plain_text_file_is_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // Short and long text, and an event stream passed as the ledger by mistake.
    let texts = [
        "hello\n".to_owned(),
        "x".repeat(70_000),
        fixture::booking_afternoon(),
    ];
    for (i, text) in texts.iter().enumerate() {
        let path = dir.path().join(format!("notes-{i}.txt"));
        std::fs::write(&path, text).unwrap();
        let not_a_database = |e: &StoreError| matches!(e, StoreError::NotADatabase { .. });
        refused_as(&path, not_a_database, "not a SQLite database");
    }
}

#[test]
fn a_ledger_newer_than_this_binary_is_refused_and_untouched() {
    let t = TempLedger::new();
    let TempLedger {
        dir, path, ledger, ..
    } = t;
    drop(ledger);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(&format!("PRAGMA user_version = {};", SCHEMA_VERSION + 1))
            .unwrap();
    }
    for error in refused(&path) {
        let StoreError::NewerSchema { found, known, .. } = &error else {
            panic!("expected NewerSchema, got {error:?}");
        };
        assert_eq!((*found, *known), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        assert!(error.to_string().contains("upgrade jobledger"), "{error}");
    }
    drop(dir);
}

#[test]
fn a_new_ledger_is_marked_as_ours_at_the_current_schema() {
    let t = TempLedger::new();
    let pragma = |name: &str| fixture::query_i64(&t.path, &format!("PRAGMA {name}"), []);
    assert_eq!(pragma("application_id"), i64::from(APPLICATION_ID));
    assert_eq!(pragma("user_version"), SCHEMA_VERSION);
    assert_eq!(pragma("page_size"), jobledger::store::PAGE_SIZE);
    // Opening again changes nothing about that.
    drop(Ledger::open(&t.path).unwrap());
    assert_eq!(pragma("user_version"), SCHEMA_VERSION);
}

#[test]
fn an_empty_file_becomes_a_ledger() {
    // An empty file is an empty SQLite database: version 0, migrated from there.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("touched.db");
    std::fs::write(&path, b"").unwrap();
    let mut ledger = Ledger::open(&path).expect("an empty file is migrated");
    let report = fixture::ingest_afternoon(&mut ledger);
    assert_eq!(report.callbacks.total(), 5);
    assert_eq!(
        fixture::query_i64(&path, "PRAGMA user_version", []),
        SCHEMA_VERSION
    );
}

#[cfg(unix)]
#[test]
fn a_new_ledger_and_its_write_ahead_log_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mut t = TempLedger::new();
    t.ingest(&fixture::booking_afternoon());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&t.path), 0o600, "{}", t.path.display());
    // While the ledger is open its newest pages live in the WAL: same privacy.
    let wal = t.path.with_extension("db-wal");
    assert!(wal.exists(), "an open WAL ledger has a -wal file");
    assert_eq!(mode(&wal), 0o600, "{}", wal.display());
}

#[test]
fn the_ledger_is_in_wal_mode_with_foreign_keys() {
    let t = TempLedger::with_demo_streams();
    let conn = rusqlite::Connection::open(&t.path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    // Every reference in the file holds (the crate writes with foreign keys on).
    fixture::assert_sound(&t.path);
}

#[test]
fn the_ledger_opens_in_the_sqlite3_shell() {
    let t = TempLedger::with_demo_streams();
    let path = t.path.to_str().unwrap().to_owned();
    drop(t.ledger);
    let output = tool(
        "sqlite3",
        &[
            "-readonly",
            &path,
            "select count(*) from callbacks; select state from jobs where job_id = 'booking-1041';",
        ],
        "apt-get install sqlite3",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "15\ncompleted_late\n"
    );
}

#[test]
fn the_ledger_opens_in_pythons_sqlite3_module() {
    let t = TempLedger::with_demo_streams();
    let path = t.path.to_str().unwrap().to_owned();
    let script = "import sqlite3, sys\n\
        db = sqlite3.connect(sys.argv[1])\n\
        print(db.execute('select count(*) from callbacks').fetchone()[0])\n\
        print(db.execute(\"select disposition from callbacks where delivery_id = 'd-1042-a'\").fetchone()[0])\n";
    // Read while the crate still holds the file open, as a person would.
    let output = tool("python3", &["-c", script, &path], "apt-get install python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), "15\nhold\n");
    drop(t);
}

#[test]
fn evidence_cannot_be_rewritten_or_deleted() {
    let mut t = TempLedger::with_demo_streams();
    let c2 = t.by_delivery("d-1042-a").seq;
    let request = AnswerRequest {
        seq: c2,
        verdict: "single_effect",
        note: "checked with the hotel",
        reviewer: "ana",
        link_job: None,
        seen_answer: None,
    };
    answer(&mut t.ledger, &request, now()).unwrap();
    let before = t.dump();

    let conn = rusqlite::Connection::open(&t.path).unwrap();
    for sql in [
        "UPDATE input_lines SET raw = x'00' WHERE seq = 1",
        "UPDATE input_lines SET line_sha256 = zeroblob(32) WHERE seq = 1",
        "DELETE FROM input_lines WHERE seq = 1",
        "UPDATE answers SET verdict = 'duplicate_effect'",
        "DELETE FROM answers",
        "UPDATE job_history SET applied = 0",
        "DELETE FROM job_history",
        "UPDATE callbacks SET disposition = 'apply' WHERE disposition = 'hold'",
    ] {
        let error = conn
            .execute(sql, [])
            .expect_err(&format!("{sql} must be refused"));
        assert!(
            error.to_string().contains("never")
                || error.to_string().contains("append-only")
                || error.to_string().contains("stands"),
            "{sql}: {error}"
        );
    }
    drop(conn);
    assert_eq!(t.dump(), before);
}

/// The shipped migrations, in order, read from the source tree.
fn migration_files() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/sqlite/migrations");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "sql"))
        .map(|path| {
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&path).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The schema of a ledger file, as SQL text, sorted.
fn schema(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut sql: Vec<String> = conn
        .prepare("SELECT coalesce(sql, name) FROM sqlite_schema")
        .and_then(|mut st| st.query_map([], |row| row.get(0))?.collect())
        .unwrap();
    sql.sort();
    sql
}

#[test]
fn migrations_are_numbered_in_order_one_per_schema_version() {
    let files = migration_files();
    assert_eq!(
        i64::try_from(files.len()).unwrap(),
        SCHEMA_VERSION,
        "{files:?}"
    );
    for (index, (name, _)) in files.iter().enumerate() {
        assert!(
            name.starts_with(&format!("{:03}_", index + 1)),
            "migration {} is named {name}",
            index + 1
        );
    }
}

#[test]
fn a_ledger_of_every_earlier_version_migrates_to_the_current_schema_keeping_its_lines() {
    let fresh = TempLedger::new();
    let current = schema(&fresh.path);
    let files = migration_files();
    let raw = fixture::line_with(&fixture::booking_afternoon(), "d-1042-a")
        .as_bytes()
        .to_vec();
    for version in 0..files.len() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("v{version}.db"));
        {
            // What a jobledger of that version left behind, with one line ingested.
            let conn = rusqlite::Connection::open(&path).unwrap();
            // Migration 16 lowers callbacks' text by a function every jobledger
            // connection has.
            conn.create_scalar_function(
                "jobledger_lowered",
                1,
                rusqlite::functions::FunctionFlags::SQLITE_UTF8
                    | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
                |ctx| {
                    Ok(ctx
                        .get::<Option<String>>(0)?
                        .map(|t| jobledger::filter::lowered(&t)))
                },
            )
            .unwrap();
            for (_, sql) in &files[..version] {
                conn.execute_batch(sql).unwrap();
            }
            if version > 0 {
                conn.execute(
                    "INSERT INTO input_lines (line_sha256, raw, event, status, reason, ingested_at)
                     VALUES (?1, ?2, 'callback', 'rejected', 'kept from an old version', ?3)",
                    rusqlite::params![
                        Sha256::digest(&raw).as_slice(),
                        raw,
                        "2026-11-27T13:16:45.000Z"
                    ],
                )
                .unwrap();
                conn.execute_batch(&format!(
                    "PRAGMA user_version = {version}; PRAGMA application_id = {APPLICATION_ID};"
                ))
                .unwrap();
            }
        }
        let mut ledger = Ledger::open(&path)
            .unwrap_or_else(|e| panic!("a version {version} ledger does not open: {e}"));
        assert_eq!(
            fixture::query_i64(&path, "PRAGMA user_version", []),
            SCHEMA_VERSION
        );
        assert_eq!(schema(&path), current, "migrated from version {version}");
        if version > 0 {
            assert_eq!(ledger.raw_line(1).unwrap(), Some(raw.clone()));
        }
        // And it takes new lines: the kept one is recognised by its bytes.
        let report = fixture::ingest_afternoon(&mut ledger);
        assert!(report.adds_up(), "{report}");
        assert_eq!(report.already_ingested, u64::from(version > 0));
    }
}

/// A ledger file at schema `version` holding the rows of `built` (the columns that
/// version had), as a jobledger of that version would have left it.
fn ledger_of_schema(built: &Path, version: usize, path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    // Tables are copied one by one, in any order.
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    for (_, sql) in &migration_files()[..version] {
        conn.execute_batch(sql).unwrap();
    }
    conn.execute("ATTACH DATABASE ?1 AS built", [built.to_str().unwrap()])
        .unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM main.sqlite_schema WHERE type = 'table'")
        .and_then(|mut st| st.query_map([], |row| row.get(0))?.collect())
        .unwrap();
    for table in tables {
        // The columns that version had; later migrations fill in the rest.
        let columns: Vec<String> = conn
            .prepare(&format!("PRAGMA main.table_info(\"{table}\")"))
            .and_then(|mut st| st.query_map([], |row| row.get(1))?.collect())
            .unwrap();
        let columns = columns.join(", ");
        conn.execute_batch(&format!(
            "INSERT OR REPLACE INTO main.\"{table}\" ({columns}) SELECT {columns} FROM built.\"{table}\""
        ))
        .unwrap();
    }
    conn.execute_batch(&format!(
        "DETACH DATABASE built; PRAGMA user_version = {version}; PRAGMA application_id = {APPLICATION_ID};"
    ))
    .unwrap();
}

/// The demo streams' ledger, and a copy of it made at schema `version`, opened (and so
/// migrated) and found row for row the same: the ledger, the copy's path, the copy.
fn migrated_demo(version: usize) -> (TempLedger, std::path::PathBuf, Ledger) {
    let built = TempLedger::with_demo_streams();
    let path = built.dir.path().join(format!("v{version}.db"));
    ledger_of_schema(&built.path, version, &path);
    let ledger = Ledger::open(&path).unwrap();
    assert_eq!(fixture::dump(&path), built.dump());
    (built, path, ledger)
}

#[test]
fn a_full_ledger_of_schema_7_migrates_row_for_row_and_keeps_oversized_lines_apart() {
    // Migration 8 adds the whole length of a line kept as its first bytes.
    let (mut built, path, mut ledger) = migrated_demo(7);
    let kept_whole = fixture::query_i64(
        &path,
        "SELECT count(*) FROM input_lines WHERE whole_length IS NULL",
        [],
    );
    assert_eq!(kept_whole, ledger.line_count().unwrap());
    // A line over the limit goes into both alike, and is kept as evidence.
    let long = format!(
        "{{\"event\":\"callback\",\"at\":\"2026-11-27T13:30:00Z\",\"payload\":\"{}\"}}\n",
        "x".repeat(5000)
    );
    let batching = jobledger::ingest::Batching {
        max_line_bytes: 4096,
        ..jobledger::ingest::Batching::default()
    };
    for target in [&mut ledger, &mut built.ledger] {
        let report =
            jobledger::ingest::ingest_in_batches(target, long.as_bytes(), now(), batching, |_| {})
                .unwrap();
        assert_eq!(report.oversized, 1, "{report}");
    }
    drop(ledger);
    assert_eq!(fixture::dump(&path), built.dump());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let error = conn
        .execute(
            "UPDATE input_lines SET whole_length = 1 WHERE whole_length IS NOT NULL",
            [],
        )
        .expect_err("the whole length is evidence too");
    assert!(error.to_string().contains("never change"), "{error}");
}

#[test]
fn a_full_ledger_of_schema_4_migrates_row_for_row_and_still_finds_its_lines() {
    // Migration 5 rebuilds input_lines, which every other table refers to; migration 6
    // fills in each callback's replacement from the attempts table.
    let (mut built, path, mut ledger) = migrated_demo(4);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let broken = conn
        .prepare("PRAGMA foreign_key_check")
        .unwrap()
        .query_map([], |row| row.get::<_, String>(0))
        .unwrap()
        .count();
    drop(conn);
    assert_eq!(broken, 0, "every reference to a line still finds it");
    for stream in [fixture::booking_afternoon(), fixture::demo_queue()] {
        let report =
            jobledger::ingest::ingest(&mut ledger, stream.as_bytes(), now(), |_| {}).unwrap();
        let lines = report.lines_read - report.blank;
        assert_eq!((report.already_ingested, lines), (lines, lines), "{report}");
    }
    // Ingesting into the migrated ledger and the built one keeps them equal.
    built.ingest_bytes(&fixture::synthetic_stream(40));
    jobledger::ingest::ingest(
        &mut ledger,
        &fixture::synthetic_stream(40)[..],
        now(),
        |_| {},
    )
    .unwrap();
    drop(ledger);
    assert_eq!(fixture::dump(&path), built.dump());
}

#[test]
fn a_ledger_of_schema_10_keeps_every_owner_assignment_in_order_and_can_clear_one() {
    // Migration 11 rebuilds owner_assignments so that an owner can be cleared.
    let mut built = TempLedger::with_demo_streams();
    for (owner, at) in [
        ("ops:kim", "2026-11-27T16:00:00Z"),
        ("ops:lee", "2026-11-27T16:30:00Z"),
    ] {
        jobledger::escalation::set_owner(
            &mut built.ledger,
            "booking-1042",
            owner,
            None,
            "lead",
            fixture::at(at),
        )
        .unwrap();
    }
    let path = built.dir.path().join("v10.db");
    ledger_of_schema(&built.path, 10, &path);
    let mut ledger = Ledger::open(&path).unwrap();
    assert_eq!(fixture::dump(&path), built.dump());
    assert_eq!(
        ledger.owner("booking-1042").unwrap().unwrap().owner,
        "ops:lee"
    );
    jobledger::escalation::clear_owner(&mut ledger, "booking-1042", "lead", now()).unwrap();
    assert_eq!(ledger.owner("booking-1042").unwrap(), None);
    // A clearing carries no escalation time.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let error = conn
        .execute(
            "INSERT INTO owner_assignments (job_id, owner, escalate_at, set_by, set_at)
             VALUES ('booking-1042', NULL, '2026-11-27T18:00:00.000Z', 'x', '2026-11-27T17:00:00.000Z')",
            [],
        )
        .expect_err("no owner, no escalation");
    assert!(error.to_string().contains("CHECK"), "{error}");
}

#[test]
fn a_ledger_of_schema_12_keeps_every_persons_row_and_knows_no_role_that_wrote_them() {
    // Migration 13 adds the database role that wrote a person's row (written_by): a
    // server's to set, NULL for every row a file wrote before and since.
    let mut built = TempLedger::with_demo_streams();
    let held = built.by_delivery("d-1042-a").seq;
    answer(
        &mut built.ledger,
        &AnswerRequest {
            seq: held,
            verdict: "single_effect",
            note: "",
            reviewer: "ann",
            link_job: None,
            seen_answer: None,
        },
        now(),
    )
    .unwrap();
    jobledger::escalation::set_owner(
        &mut built.ledger,
        "booking-1042",
        "ops:kim",
        None,
        "lead",
        now(),
    )
    .unwrap();
    let cancel = jobledger::outbox::request(
        &mut built.ledger,
        jobledger::outbox::RequestKind::Cancel,
        "booking-1042",
        "ops:kim",
        now(),
    )
    .unwrap();
    jobledger::outbox::withdraw(&mut built.ledger, cancel.id, "ops:kim", "", now()).unwrap();
    let path = built.dir.path().join("v12.db");
    ledger_of_schema(&built.path, 12, &path);
    let ledger = Ledger::open(&path).unwrap();
    assert_eq!(fixture::dump(&path), built.dump());
    for table in [
        "answers",
        "decision_answers",
        "owner_assignments",
        "outbox",
        "request_withdrawals",
        "saved_views",
    ] {
        assert_eq!(
            fixture::query_i64(
                &path,
                &format!("SELECT count(*) FROM {table} WHERE written_by IS NOT NULL"),
                []
            ),
            0,
            "{table}"
        );
    }
    assert!(fixture::query_i64(&path, "SELECT count(*) FROM owner_assignments", []) > 1);
    assert_eq!(ledger.answers(held).unwrap()[0].written_by, None);
    assert_eq!(
        ledger.owner("booking-1042").unwrap().unwrap().written_by,
        None
    );
    let outbox = ledger.outbox().unwrap();
    assert_eq!(outbox[0].written_by, None);
    assert_eq!(outbox[0].withdrawal.as_ref().unwrap().written_by, None);
}

#[test]
fn an_upgrade_that_rebuilds_a_table_is_undone_when_a_reference_would_break() {
    // A schema 10 ledger with an owner assignment for a job it does not hold: the
    // rebuild of owner_assignments (migration 11) must not carry the broken reference
    // into the new schema unnoticed.
    let built = TempLedger::with_demo_streams();
    let path = built.dir.path().join("v10.db");
    ledger_of_schema(&built.path, 10, &path);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        conn.execute(
            "INSERT INTO owner_assignments (job_id, owner, escalate_at, set_by, set_at)
             VALUES ('no-such-job', 'ops:kim', NULL, 'x', '2026-11-27T17:00:00.000Z')",
            [],
        )
        .unwrap();
    }
    let before = fixture::dump(&path);
    let Err(error) = Ledger::open(&path) else {
        panic!("the upgrade went ahead over a broken reference");
    };
    assert!(
        matches!(error, StoreError::Damaged { .. })
            && error.to_string().contains("owner_assignments"),
        "{error}"
    );
    assert_eq!(fixture::query_i64(&path, "PRAGMA user_version", []), 10);
    assert_eq!(fixture::dump(&path), before, "the file is as it was");
}
