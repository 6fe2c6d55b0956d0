//! A report is printed whole or not at all: one that fails in the middle (here, a row
//! whose text is not UTF-8, as a damaged record holds) exits non-zero and leaves
//! nothing on standard output, never half a JSON document or half a table that a
//! script would take for the whole. (The temporary file that keeps a large report
//! until it is whole is tested in `report::whole`.)

mod support;

use std::io::Read as _;
use std::process::Stdio;

use support::binary::Workdir;
use support::fixture;

/// Every report command, as text and as JSON.
const REPORTS: &[&str] = &[
    "callbacks",
    "outbox",
    "rejected",
    "views",
    "summary",
    "reconcile",
];

/// A ledger of 1,500 generated jobs: more callbacks than one page of a listing (1,000).
fn generated() -> Workdir {
    let w = Workdir::new();
    let stream = w.file("stream.ndjson", &fixture::synthetic_stream(1500));
    w.ok(&["ingest", stream.to_str().unwrap()]);
    w
}

/// Writes bytes that are not UTF-8 into the text of callback `seq`, as damage would.
fn damage_text_of_callback(w: &Workdir, seq: i64) {
    let conn = rusqlite::Connection::open(&w.db).unwrap();
    let sql: String = conn
        .query_row(
            "SELECT sql FROM sqlite_schema WHERE name = 'callbacks_keep_disposition'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    conn.execute_batch("DROP TRIGGER callbacks_keep_disposition")
        .unwrap();
    let changed = conn
        .execute(
            "UPDATE callbacks SET detail = CAST(x'6f6bff2d6e6f74' AS TEXT) WHERE seq = ?1",
            [seq],
        )
        .unwrap();
    assert_eq!(changed, 1, "callback {seq} exists");
    conn.execute_batch(&sql).unwrap();
}

#[test]
fn a_report_that_fails_midway_prints_nothing_and_every_report_is_whole_or_absent() {
    let w = generated();
    let last: i64 = fixture::query_i64(&w.db, "SELECT max(seq) FROM callbacks", []);
    assert!(
        last > 1000,
        "the damaged row is past the first page: {last}"
    );
    damage_text_of_callback(&w, last);
    for command in REPORTS {
        for json in [true, false] {
            let mut args = vec![*command];
            if json {
                args.push("--json");
            }
            let out = w.run(&args);
            let stdout = String::from_utf8_lossy(&out.stdout);
            if out.status.success() {
                if json {
                    serde_json::from_str::<serde_json::Value>(&stdout)
                        .unwrap_or_else(|e| panic!("{args:?}: not whole JSON ({e})"));
                }
            } else {
                support::binary::failed(&out, &args);
                assert!(
                    stdout.is_empty(),
                    "{args:?} failed and printed {} bytes: {}",
                    stdout.len(),
                    &stdout[..stdout.len().min(200)]
                );
            }
            if *command == "callbacks" {
                assert!(!out.status.success(), "{args:?} listed the damaged row");
            }
        }
    }
}

#[test]
fn a_whole_listing_holds_every_callback_and_head_still_ends_quietly() {
    let w = generated();
    let out = w.ok(&["callbacks", "--json"]);
    assert!(
        out.len() > 100_000,
        "a listing of {} bytes is too small to tell",
        out.len()
    );
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kept = fixture::query_i64(&w.db, "SELECT count(*) FROM callbacks", []);
    assert_eq!(
        rows.as_array().unwrap().len(),
        usize::try_from(kept).unwrap()
    );
    // `callbacks | head`: the reader goes away before the report is printed whole.
    let mut child = w
        .command()
        .arg("--db")
        .arg(&w.db)
        .args(["callbacks", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let done = child.wait_with_output().unwrap();
    assert!(done.status.success(), "{:?}", done.status);
    assert!(
        done.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert_eq!(first[0], b'[');
}
