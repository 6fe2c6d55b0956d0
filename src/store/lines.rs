//! Input lines: what became of each, and the lines rejected.

use crate::clock::Timestamp;
use crate::closed_set::closed_set;
use crate::decision::RejectionCode;
use serde::Serialize;

/// A new input line about to be kept.
#[derive(Debug, Clone, Copy)]
pub struct NewLine<'a> {
    pub sha256: &'a [u8; 32],
    /// The identity the line had when a CR before its LF was kept as part of it (lines
    /// that ended in CRLF): kept under that one by an earlier jobledger, it is no new line.
    pub sha256_with_cr: Option<&'a [u8; 32]>,
    /// The line's bytes; for a line over the limit, only its first ones.
    pub raw: &'a [u8],
    /// The whole line's length, when `raw` holds only its first bytes.
    pub whole_length: Option<u64>,
    pub event: Option<&'a str>,
    pub status: LineStatus,
    pub reason: Option<&'a str>,
    pub ingested_at: Timestamp,
}

/// A line an ingest is about to write, as told to the writer before: what identifies it.
#[derive(Debug, Clone, Copy)]
pub struct LineAhead<'a> {
    pub sha256: &'a [u8; 32],
    pub sha256_with_cr: Option<&'a [u8; 32]>,
    pub raw: &'a [u8],
    /// The line is whole (not kept as its first bytes).
    pub whole: bool,
}

/// The note that holds the clock a ledger is read at when the caller fixes none (the
/// demo's afternoon, for a ledger the demo built), in the ledger's form of time.
pub(super) const KEPT_CLOCK: &str = "kept_clock";

closed_set! {
    /// What became of an input line.
    pub enum LineStatus("line status") {
        /// A well-formed event, kept in the tables of its kind.
        Applied,
        /// A malformed event or one for an unknown job, kept with its reason.
        Rejected,
        /// A callback (or an unparseable line): see the callbacks table.
        Callback,
    }
}

/// A rejected input line (`rejected --json` prints it as it is).
///
/// Fields in alphabetical order of their JSON keys, the order reports have
/// always printed them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RejectedLine {
    /// Why it was rejected, as one of a closed set of names.
    pub code: RejectionCode,
    pub event: Option<String>,
    pub ingested_at: Timestamp,
    /// The line's sequence number in the ledger.
    #[serde(rename = "line")]
    pub seq: i64,
    /// The particulars, in a sentence (without the code).
    pub reason: String,
}
