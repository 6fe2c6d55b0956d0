//! The demo ledger: an afternoon of a booking tool with a 120 s timeout.
//!
//! `booking_afternoon.ndjson` holds the five callbacks of the worked example
//! (1 applied, 1 held, 2 recorded, 1 quarantined), a booking whose retry in another
//! region decided again (booking-1045) and a job id submitted again for another input
//! (booking-1043); `demo_queue.ndjson` adds a small
//! queue with a dropped notification, a dropped output upload, a staff retry, a
//! conflicting pair, failures, an expiry, aged jobs, and some bad input.

use std::collections::HashSet;
use std::path::Path;

pub mod synthetic;

use sha2::{Digest, Sha256};

use crate::clock::Timestamp;
use crate::escalation;
use crate::ingest::{self, IngestReport};
use crate::store::Ledger;

/// The worked example of SPEC sec. 2.
pub const BOOKING_AFTERNOON: &str = include_str!("../assets/booking_afternoon.ndjson");
/// The rest of the demo queue.
pub const DEMO_QUEUE: &str = include_str!("../assets/demo_queue.ndjson");
/// The worked example's five callbacks (SPEC sec. 2) as the walkthrough labels them:
/// label, job and delivery id in [`BOOKING_AFTERNOON`]. C1 applied late, C2 held for
/// the staff replacement, C3 and C4 recorded, C5 quarantined. They are found by
/// delivery id, not by sequence number, which depends on the order of ingest; a
/// later delivery of the same id (C1's redelivery in [`DEMO_QUEUE`]) is the same
/// callback again.
pub const WORKED_EXAMPLE: [(&str, &str, &str); 5] = [
    ("C1", "booking-1041", "d-1041-a"),
    ("C2", "booking-1042", "d-1042-a"),
    ("C3", "booking-1043", "d-1043-a"),
    ("C4", "booking-1044", "d-1044-a"),
    ("C5", "booking-9999", "d-9999-a"),
];
/// The demo's clock: late that afternoon, so the stuck jobs have aged.
pub const DEMO_NOW: &str = "2026-11-27T17:00:00Z";
/// Where `jobledger demo` writes unless `--db` says otherwise.
pub const DEFAULT_DEMO_DB: &str = "jobledger-demo.db";

/// The demo's fixed clock.
pub fn demo_now() -> Timestamp {
    Timestamp::parse(DEMO_NOW).unwrap_or_else(|| crate::clock::Clock::System.now())
}

/// Why no demo ledger was built.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("{0} holds {1}; it is left untouched. Pick another --db for the demo")]
    NotADemoLedger(String, String),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Ingest(#[from] ingest::IngestError),
    #[error(transparent)]
    Owner(#[from] escalation::OwnerError),
    #[error("writing the demo files failed: {0}")]
    Io(#[from] std::io::Error),
}

fn demo_line_hashes() -> HashSet<[u8; 32]> {
    BOOKING_AFTERNOON
        .lines()
        .chain(DEMO_QUEUE.lines())
        .map(|line| Sha256::digest(line.as_bytes()).into())
        .collect()
}

/// What a demo ledger holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemoData {
    /// The booking afternoon and its small queue (the walkthrough).
    Booking,
    /// A generated stream of this many jobs (see [`synthetic`]).
    Synthetic { jobs: u64, seed: u64 },
}

const BUILT_BY: (&str, &str) = ("built_by", "jobledger demo");
/// The number of input lines the demo wrote: a ledger holding more took lines by hand.
const DEMO_LINES: &str = "demo_lines";

/// When a synthetic stream of `jobs` jobs starts, so that it ends an hour before `now`.
pub fn synthetic_start(jobs: u64, now: Timestamp) -> Timestamp {
    let span = i64::try_from(jobs.saturating_mul(4)).unwrap_or(i64::MAX / 2);
    now.plus_seconds(-span - 3600)
}

/// Builds a fresh demo ledger at `path`. An existing file is replaced only if a
/// demo built it; anything else is refused, never overwritten.
pub fn build(
    path: &Path,
    now: Timestamp,
    data: DemoData,
    progress: impl FnMut(&IngestReport),
) -> Result<IngestReport, DemoError> {
    if path.exists() {
        let ledger = Ledger::open_read_only(path)?;
        // The demo's own ledger holds the lines the demo wrote and no other: the note
        // that a demo built it is not enough, since events may be ingested into it since.
        let built_by_demo = ledger.note(BUILT_BY.0)?.as_deref() == Some(BUILT_BY.1);
        let demo_lines = ledger.note(DEMO_LINES)?.and_then(|n| n.parse::<i64>().ok());
        let lines = ledger.line_count()?;
        let ours = match demo_lines {
            Some(written) => built_by_demo && lines == written,
            None => ledger.all_lines_among(&demo_line_hashes())?,
        };
        drop(ledger);
        if !ours {
            let found = match demo_lines {
                Some(written) if built_by_demo && lines > written => format!(
                    "{} input lines the demo did not write (ingested since)",
                    lines - written
                ),
                _ => "input lines that are not the demo's".to_owned(),
            };
            return Err(DemoError::NotADemoLedger(path.display().to_string(), found));
        }
        // Removed under the old file's write lock: a console writing into it finishes
        // first, and its next write finds the file gone from the path and is refused
        // (`Ledger::writer`), rather than landing in a file nobody reads again.
        let mut old = Ledger::open(path)?;
        let lock = old.writer()?;
        // Judged before the lock was taken: an ingest may have committed since.
        if Ledger::open_read_only(path)?.line_count()? != lines {
            return Err(DemoError::NotADemoLedger(
                path.display().to_string(),
                "input lines ingested while the demo was being rebuilt".to_owned(),
            ));
        }
        Ledger::remove_with_sidecars(path)?;
        drop(lock);
    }
    let mut ledger = Ledger::open(path)?;
    let mut writer = ledger.writer()?;
    writer.set_note(BUILT_BY.0, BUILT_BY.1)?;
    // Reopened later (`review`, plain `jobledger --db`), the demo still reads at its
    // afternoon: "3 h ago" as in the walkthrough, not the days since it was built.
    writer.keep_clock(now)?;
    writer.commit()?;
    let report = fill(&mut ledger, path, now, data, progress)?;
    let lines = ledger.line_count()?;
    let mut writer = ledger.writer()?;
    writer.set_note(DEMO_LINES, &lines.to_string())?;
    writer.commit()?;
    Ok(report)
}

/// What replacing the demo ledger at `path` drops of a person's work on its rows:
/// answers, owner assignments and requests (`None`: no ledger there to replace).
pub fn work_on_replaced_demo(path: &Path) -> Result<Option<(i64, i64, i64)>, DemoError> {
    if !path.exists() {
        return Ok(None);
    }
    let ledger = Ledger::open_read_only(path)?;
    Ok(Some(ledger.work_counts()?))
}

fn fill(
    ledger: &mut Ledger,
    path: &Path,
    now: Timestamp,
    data: DemoData,
    progress: impl FnMut(&IngestReport),
) -> Result<IngestReport, DemoError> {
    match data {
        DemoData::Booking => {
            let mut report = ingest::ingest(ledger, BOOKING_AFTERNOON.as_bytes(), now, |_| {})?;
            let queue = ingest::ingest(ledger, DEMO_QUEUE.as_bytes(), now, |_| {})?;
            report.merge(&queue);
            let at = |text: &str| Timestamp::parse(text);
            escalation::set_owner(
                ledger,
                "booking-1042",
                "ops:maria",
                at("2026-11-27T16:30:00Z"),
                "demo",
                now,
            )?;
            escalation::set_owner(
                ledger,
                "booking-1055",
                "ops:lee",
                at("2026-11-27T17:30:00Z"),
                "demo",
                now,
            )?;
            Ok(report)
        }
        DemoData::Synthetic { jobs, seed } => {
            // Generate into a pipe-like buffer file beside the ledger, then ingest it:
            // memory stays flat whatever the number of jobs.
            let stream_path = crate::store::with_suffix(path, ".ndjson");
            {
                let file = std::fs::File::create(&stream_path)?;
                let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
                synthetic::write_stream(&mut out, jobs, seed, synthetic_start(jobs, now))?;
                std::io::Write::flush(&mut out)?;
            }
            let input =
                std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(&stream_path)?);
            let report = ingest::ingest(ledger, input, now, progress)?;
            synthetic::escalate_owned(ledger, now)?;
            Ok(report)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each callback the walkthrough labels is in the booking afternoon, under its job.
    #[test]
    fn the_worked_example_is_in_the_booking_afternoon() {
        for (label, job, delivery) in WORKED_EXAMPLE {
            let line = BOOKING_AFTERNOON
                .lines()
                .find(|l| l.contains(&format!("\"delivery_id\":\"{delivery}\"")))
                .unwrap_or_else(|| panic!("{label}: no delivery {delivery}"));
            assert!(
                line.contains("\"event\":\"callback\"")
                    && line.contains(&format!("\"job_id\":\"{job}\"")),
                "{label}: {line}"
            );
        }
    }
}
