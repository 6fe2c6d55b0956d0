//! A reader that stops early (`jobledger callbacks | head`) is not an error: jobledger
//! stops quietly, with no message and no panic.

mod support;

use std::io::Read;
use std::process::Stdio;

use support::binary;

#[test]
fn a_report_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let stream = dir.path().join("s.ndjson");
    let out = binary::bare()
        .args([
            "--now",
            "2026-11-27T17:00:00Z",
            "demo",
            "--jobs",
            "2000",
            "--stream-only",
        ])
        .output()
        .unwrap();
    std::fs::write(&stream, out.stdout).unwrap();
    let ingest = binary::bare()
        .arg("--db")
        .arg(&db)
        .arg("ingest")
        .arg(&stream)
        .output()
        .unwrap();
    assert!(ingest.status.success());
    for args in [&["callbacks"][..], &["callbacks", "--json"]] {
        let mut child = binary::bare()
            .arg("--db")
            .arg(&db)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read the first bytes, as `head -c` would, then close the pipe.
        let mut first = [0u8; 100];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {:?}", out.status);
    }
}
