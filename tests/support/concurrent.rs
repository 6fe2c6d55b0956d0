//! What the concurrency tests share: the words a user must never be told, a stream
//! cut into files for a writer to ingest one by one, and the questions reviewers answer.

use std::path::{Path, PathBuf};
use std::process::Output;

use jobledger::review;
use jobledger::store::{CallbackFilter, Ledger, PageRequest};

use super::fixture;

/// A person must never see these: waiting for another writer is jobledger's job.
pub fn assert_not_locked(what: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    for word in ["locked", "busy"] {
        assert!(
            !stderr.to_lowercase().contains(word),
            "{what}: a user was told {stderr:?}"
        );
    }
}

/// The synthetic stream of `jobs` jobs, split into files of at most `lines` lines.
pub fn stream_chunks(dir: &Path, jobs: u32, lines: usize) -> Vec<PathBuf> {
    let stream = fixture::synthetic_stream(jobs);
    let all: Vec<&[u8]> = stream.split(|b| *b == b'\n').collect();
    all.chunks(lines)
        .enumerate()
        .map(|(i, chunk)| {
            let path = dir.join(format!("chunk-{i:03}.ndjson"));
            std::fs::write(&path, chunk.join(&b'\n')).unwrap();
            path
        })
        .collect()
}

/// Held and quarantined callbacks: (seq, verdict to give).
pub fn questions(db: &Path) -> Vec<(i64, &'static str)> {
    let ledger = Ledger::open_read_only(db).unwrap();
    let mut out = Vec::new();
    for disposition in [
        jobledger::decision::Disposition::Hold,
        jobledger::decision::Disposition::Quarantine,
    ] {
        let rows = ledger
            .callbacks_page(
                &CallbackFilter {
                    disposition: Some(disposition),
                    ..CallbackFilter::default()
                },
                PageRequest::first(10_000),
            )
            .unwrap();
        for row in rows {
            let kind = review::CaseKind::of(row.disposition, row.reason).unwrap();
            out.push((row.seq, kind.verdicts()[0].as_str()));
        }
    }
    out.into_iter()
        .map(|(seq, verdict)| {
            // `linked` needs a job; `needs_remote_check` fits every kind of question.
            (
                seq,
                if verdict == "linked" {
                    "noise"
                } else {
                    verdict
                },
            )
        })
        .collect()
}
