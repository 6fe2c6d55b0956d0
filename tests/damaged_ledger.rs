//! A damaged ledger (issue 11, findings 7 and 9): every command that meets one says the
//! ledger is damaged, names `check` and `backup`, never advises running it again, and
//! leaves the file's bytes as they were. Two cases: a truncated file (SQLite's
//! `CORRUPT` at once), and two bytes changed in a callbacks leaf page, which SQLite
//! reads without an error (a listing came out 48 rows short with exit 0, and answer
//! and ingest wrote on).

mod support;

use std::path::Path;

use rusqlite::Connection;
use support::binary::{self, Workdir};
use support::fixture::{self, NOW};

/// A ledger of the generated stream of 1,000 jobs (931 callbacks), its WAL folded in.
fn ledger() -> (Workdir, std::path::PathBuf) {
    let w = Workdir::new();
    let stream = w.file("stream.ndjson", &fixture::synthetic_stream(1000));
    w.ok(&["ingest", stream.to_str().unwrap()]);
    fixture::fold_log(&w.db);
    (w, stream)
}

/// The ledger's bytes, and the offset in them of the root page of table or index `name`.
fn file_and_root(db: &Path, name: &str) -> (Vec<u8>, usize) {
    let conn = Connection::open(db).unwrap();
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap();
    drop(conn);
    assert_eq!(jobledger::store::PAGE_SIZE, 8192);
    let offset = (usize::try_from(root).unwrap() - 1) * PAGE;
    (std::fs::read(db).unwrap(), offset)
}

/// The size of a ledger's pages (a new ledger's; the tests make theirs new).
const PAGE: usize = 8192;

/// Changes two bytes of the first leaf of the callbacks table, found from its root
/// (an interior page: its first cell begins with the left-most child's number): its
/// count of cells says 6, so the rows after the sixth are no longer read, and no error
/// says so.
fn damage_a_callbacks_leaf(db: &Path) {
    let (mut file, root) = file_and_root(db, "callbacks");
    assert_eq!(file[root], 0x05, "the callbacks root is an interior page");
    let cell = root + usize::from(u16::from_be_bytes([file[root + 12], file[root + 13]]));
    let leaf = (u32::from_be_bytes(file[cell..cell + 4].try_into().unwrap()) as usize - 1) * PAGE;
    assert_eq!(file[leaf], 0x0D, "a leaf of the callbacks table");
    let cells = u16::from_be_bytes([file[leaf + 3], file[leaf + 4]]);
    assert!(cells > 40, "a full leaf ({cells} cells)");
    file[leaf + 3..leaf + 5].copy_from_slice(&[0x00, 0x06]);
    std::fs::write(db, file).unwrap();
}

/// Every command a person or a script runs on a ledger.
fn commands(stream: &Path, w: &Workdir) -> Vec<Vec<String>> {
    let copy = w.dir.path().join("copy.db");
    [
        vec!["summary"],
        vec!["summary", "--json"],
        vec!["callbacks"],
        vec!["callbacks", "--json"],
        vec!["callbacks", "--disposition", "hold", "--json"],
        vec!["reconcile", "--json"],
        vec!["outbox"],
        vec!["rejected"],
        vec!["views"],
        vec!["answer", "5", "--verdict", "noise", "--reviewer", "ana"],
        vec![
            "answer",
            "--disposition",
            "quarantine",
            "--verdict",
            "noise",
        ],
        vec!["owner", "job-0000001", "--owner", "ops:lee", "--by", "ana"],
        vec!["request", "retry", "job-0000001", "--by", "ana"],
        vec!["request", "withdraw", "1", "--by", "ana"],
        vec!["ingest", stream.to_str().unwrap()],
        vec!["backup", copy.to_str().unwrap()],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_owned).collect())
    .collect()
}

/// Runs every command on the damaged ledger: each fails, says "damaged", names
/// `check` and `backup`, never advises a re-run, and writes nothing into the file.
fn every_command_says_damaged(w: &Workdir, stream: &Path) {
    let before = std::fs::read(&w.db).unwrap();
    for args in commands(stream, w) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = w.run(&args);
        let stderr = binary::failed(&out, &args);
        for word in ["damaged", "check", "backup"] {
            assert!(stderr.contains(word), "{args:?} lacks {word:?}: {stderr}");
        }
        let lower = stderr.to_lowercase();
        assert!(
            !lower.contains("re-run") && !lower.contains("error code"),
            "{args:?}: {stderr}"
        );
        assert!(
            std::fs::read(&w.db).unwrap() == before,
            "{args:?} changed the ledger file"
        );
    }
    let out = w.run(&["check"]);
    assert_eq!(out.status.code(), Some(3));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        report.contains("WRONG") && report.contains("backup"),
        "{report}"
    );
    assert!(
        std::fs::read(&w.db).unwrap() == before,
        "check changed the file"
    );
}

#[test]
fn a_truncated_ledger_is_named_damaged_by_every_command() {
    let (w, stream) = ledger();
    let bytes = std::fs::read(&w.db).unwrap();
    std::fs::write(&w.db, &bytes[..bytes.len() / 2]).unwrap();
    every_command_says_damaged(&w, &stream);
}

#[test]
fn two_bytes_changed_in_a_callbacks_leaf_are_noticed() {
    let (w, stream) = ledger();
    assert_eq!(w.json(&["summary", "--json"])["callbacks"], 931);
    damage_a_callbacks_leaf(&w.db);
    every_command_says_damaged(&w, &stream);
    let (code, report) = {
        let out = binary::run_at(&w.db, NOW, &["check", "--json"]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), report)
    };
    assert_eq!(code, Some(3));
    let failed: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["problems"].as_array().unwrap().is_empty())
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert!(
        failed.contains(&"integrity") && failed.contains(&"kept_counts"),
        "{report}"
    );
}

#[test]
fn a_list_read_short_from_a_damaged_index_fails() {
    let (w, _) = ledger();
    // The held list reads its own index: lose cells of its first leaf.
    let (mut file, page) = file_and_root(&w.db, "callbacks_review_list");
    // A small index may fit its root alone (a leaf, 0x0A); a larger one has an
    // interior root (0x02) whose first cell names the first leaf.
    let leaf = if file[page] == 0x0A {
        page
    } else {
        let cell = page + usize::from(u16::from_be_bytes([file[page + 12], file[page + 13]]));
        (u32::from_be_bytes(file[cell..cell + 4].try_into().unwrap()) as usize - 1) * PAGE
    };
    assert_eq!(file[leaf], 0x0A, "a leaf of the index");
    file[leaf + 3..leaf + 5].copy_from_slice(&[0x00, 0x01]);
    std::fs::write(&w.db, file).unwrap();
    let out = w.run(&["callbacks", "--disposition", "hold", "--json"]);
    let stderr = binary::failed(&out, &["callbacks"]);
    assert!(
        stderr.contains("damaged") && stderr.contains("were read"),
        "{stderr}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&stdout).is_err(),
        "a short list is no valid JSON"
    );
}

#[test]
fn ingest_that_meets_a_damaged_page_midway_never_advises_a_re_run() {
    let (w, stream) = ledger();
    // The line identities' index: summary never reads it, ingest reads it for every line.
    let (mut file, at) = file_and_root(&w.db, "sqlite_autoindex_input_lines_1");
    file[at..at + 2].copy_from_slice(&[0, 0]);
    std::fs::write(&w.db, &file).unwrap();
    w.ok(&["summary"]);
    let stderr = w.fails(&["ingest", stream.to_str().unwrap()]);
    assert!(
        stderr.contains("damaged") && stderr.contains("check"),
        "{stderr}"
    );
    assert!(!stderr.contains("re-run"), "{stderr}");
    assert!(
        std::fs::read(&w.db).unwrap() == file,
        "ingest changed the file"
    );
}

#[test]
fn text_that_is_not_utf8_in_a_column_is_named_damage() {
    let (w, _) = ledger();
    // What a changed byte inside a row's text leaves: a listing printed 330 KB and
    // then "invalid utf-8 sequence of 1 bytes from index 5", naming no damage.
    Connection::open(&w.db)
        .unwrap()
        .execute_batch(
            "DROP TRIGGER callbacks_keep_disposition;
             UPDATE callbacks SET reason = CAST(x'686f6cff64' AS TEXT) WHERE seq = 500;",
        )
        .unwrap();
    let out = w.run(&["callbacks", "--json"]);
    let stderr = binary::failed(&out, &["callbacks", "--json"]);
    assert!(
        stderr.contains("damaged") && stderr.contains("column reason"),
        "{stderr}"
    );
    assert!(
        !stderr.to_lowercase().contains("utf-8 sequence"),
        "{stderr}"
    );
}
