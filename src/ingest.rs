//! Ingest: the event stream into the ledger, line by line, in batches.
//!
//! Each line is identified by its SHA-256; a line already in the ledger is
//! skipped, so a crashed ingest is simply re-run. A batch is one transaction:
//! after a crash the ledger holds whole batches only, a prefix of the stream.

mod apply;
mod callback;
pub mod follow;
mod oversized;
mod reader;

use std::borrow::Cow;
use std::io::BufRead;
use std::time::{Duration, Instant};

use crate::clock::Timestamp;
use crate::decision::Disposition;
use crate::event::{CallbackReport, Parsed};
use crate::store::{
    DispositionCounts, JobDefaults, Ledger, LineAhead, LineStatus, NewLine, StoreError,
    WaitingWriters, Writer,
};

pub(crate) use callback::judge;
pub use oversized::{
    MAX_LINE_BYTES, MAX_LINE_BYTES_CEILING, MIN_MAX_LINE_BYTES, parse_max_line_bytes,
};

/// Lines per transaction: large enough to amortise the commit, small enough to lose little.
pub const BATCH_LINES: usize = 50_000;

/// The longest one batch holds the ledger's write lock when no other writer waits for
/// it; a batch ends after [`BATCH_LINES`] lines or this long, whichever comes first.
///
/// Each commit writes every page its lines changed to the log. Lines of jobs far apart
/// in the ledger change pages all over its job-keyed tables, so a commit every second
/// wrote nearly the same pages each time: a shuffled million-line stream wrote 6.9 KB a
/// line (BENCHMARKS.md). A reviewer's answer does not wait for it: a writer waiting for the
/// lock says so, and the batch ends at once ([`GIVE_WAY_AFTER`]).
pub const BATCH_MAX_HOLD: Duration = Duration::from_secs(5);

/// How long a batch holds the write lock at least before it commits for another writer
/// that waits for the lock (`store::WaitingWriters`). A reviewer's answer waits about
/// this long plus one commit; a reviewer answering again and again still leaves the
/// ingest batches of a quarter of a second, not of a few lines.
pub const GIVE_WAY_AFTER: Duration = Duration::from_millis(250);

/// The pause between two batches. It is longer than a waiting writer's retry interval,
/// so an answer waiting for the lock gets it instead of starving until the ingest ends.
pub const BATCH_PAUSE: Duration = Duration::from_millis(10);

/// Failures that stop an ingest (bad data never does).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error(transparent)]
    Store(#[from] StoreError),
    // The cause is in the sentence and not also a `source`: shown with its chain
    // (`{:#}`), it was said twice.
    #[error("reading the input failed after line {line}: {cause}")]
    Read { line: u64, cause: std::io::Error },
}

/// What an ingest did. The counts add up: `lines_read = blank + already_ingested +
/// events_applied + events_rejected + callbacks.total()`; a last line left unread
/// (`unfinished_bytes`) is not among the lines read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct IngestReport {
    /// The size of a last line left unread: it had no end (LF) yet, so it may still be
    /// being written (0: none). `ingest --complete` takes it as it is.
    pub unfinished_bytes: u64,
    /// The last line, with no LF, held a CR followed by more of it: the input's lines
    /// seem to end in CR alone (old Mac style), which ends no line here, so all of it
    /// after its last LF was read as that one line.
    pub cr_line_ends: bool,
    /// Lines kept as their first bytes, their length and the SHA-256 of the whole:
    /// they were over the limit. Counted again among the rejected or the callbacks.
    pub oversized: u64,
    pub lines_read: u64,
    pub blank: u64,
    pub already_ingested: u64,
    pub events_applied: u64,
    pub events_rejected: u64,
    pub callbacks: DispositionCounts,
}

impl IngestReport {
    /// True when every line read is accounted for exactly once.
    pub fn adds_up(&self) -> bool {
        let callbacks = u64::try_from(self.callbacks.total()).unwrap_or(u64::MAX);
        self.lines_read
            == self.blank
                + self.already_ingested
                + self.events_applied
                + self.events_rejected
                + callbacks
    }
}

impl std::fmt::Display for IngestReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.callbacks;
        write!(
            f,
            "{} lines read: {} already ingested, {} blank, {} events applied, {} rejected, {} callbacks ({} applied, {} held, {} recorded, {} quarantined)",
            self.lines_read,
            self.already_ingested,
            self.blank,
            self.events_applied,
            self.events_rejected,
            c.total(),
            c.applied,
            c.held,
            c.recorded,
            c.quarantined
        )?;
        if self.oversized > 0 {
            write!(
                f,
                "; {} over the line limit (ingest --max-line-bytes), kept as their first bytes, length and SHA-256 (reason oversized)",
                self.oversized
            )?;
        }
        match (self.cr_line_ends, self.unfinished_bytes) {
            (false, 0) => {}
            (false, bytes) => write!(
                f,
                "; the last line ({bytes} bytes) has no line end (LF) yet and was left unread, nothing of it kept: it may still be being written, and the next ingest reads it once it ends (ingest --complete takes it as it is)"
            )?,
            (true, 0) => write!(
                f,
                "; the last line {CR_ALONE}, so it was taken as one line (--complete); {CONVERT}"
            )?,
            (true, bytes) => write!(
                f,
                "; the last line ({bytes} bytes) {CR_ALONE}: it was left unread, nothing of it kept; {CONVERT} (ingest --complete takes it as it is, one line)"
            )?,
        }
        Ok(())
    }
}

/// What the report says of a last line whose lines seem to end in CR alone.
const CR_ALONE: &str = "holds CRs and no LF: the input's lines seem to end in CR alone (old Mac style), which ends no line here";
/// How to convert such lines, said with it.
const CONVERT: &str = "convert the line ends (tr '\\r' '\\n' < IN > OUT) and ingest the result";

/// How a line ended up, for the report.
pub(crate) enum LineFate {
    Applied,
    Rejected,
    Callback(Disposition),
}

/// How an ingest cuts the stream into transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batching {
    /// Lines per transaction at most.
    pub lines: usize,
    /// How long one transaction may hold the write lock at most.
    pub max_hold: Duration,
    /// The pause between two transactions.
    pub pause: Duration,
    /// How long a transaction holds the write lock at least before it gives way to
    /// another writer waiting for it.
    pub give_way_after: Duration,
    /// The input is the whole stream: a last line with no end is taken as it is, not
    /// left for the next run (`ingest --complete`). Without it, such a line is never
    /// taken, whatever it holds and wherever the input comes from: a pipe that closes
    /// proves nothing either (`cat` of a file being written closes its pipe mid-line).
    pub complete: bool,
    /// A line longer than this (in bytes, its terminator not counted) is kept as its
    /// first bytes, its length and its SHA-256 (`ingest --max-line-bytes`), for good;
    /// at most [`MAX_LINE_BYTES_CEILING`]. The command line takes no less than
    /// [`MIN_MAX_LINE_BYTES`]; a smaller one here is for tests of the mechanism.
    pub max_line_bytes: usize,
}

impl Default for Batching {
    fn default() -> Self {
        Batching {
            lines: BATCH_LINES,
            max_hold: BATCH_MAX_HOLD,
            pause: BATCH_PAUSE,
            give_way_after: GIVE_WAY_AFTER,
            complete: false,
            max_line_bytes: MAX_LINE_BYTES,
        }
    }
}

/// Reads `input` to its end into the ledger. `progress` is called after each batch.
///
/// The input is read, hashed and parsed on a second thread ([`reader`]) while this one
/// writes.
pub fn ingest(
    ledger: &mut Ledger,
    input: impl BufRead + Send,
    now: Timestamp,
    progress: impl FnMut(&IngestReport),
) -> Result<IngestReport, IngestError> {
    ingest_in_batches(ledger, input, now, Batching::default(), progress)
}

/// [`ingest`], with the stream cut into transactions as `batching` says.
pub fn ingest_in_batches(
    ledger: &mut Ledger,
    input: impl BufRead + Send,
    now: Timestamp,
    batching: Batching,
    progress: impl FnMut(&IngestReport),
) -> Result<IngestReport, IngestError> {
    ledger.use_bulk_cache()?;
    std::thread::scope(|scope| {
        let limit = batching.max_line_bytes.min(MAX_LINE_BYTES_CEILING);
        let lines = reader::spawn(scope, input, limit);
        write_all(ledger, lines, now, batching, progress)
    })
}

/// Lines told to the writer at once, before it is given them one by one (see
/// `Writer::look_ahead`): a server ledger reads what they need in a few statements
/// rather than a few a line.
const AHEAD_LINES: usize = 1024;

/// A batch refused as busy (on a server: a deadlock, or a line or job another writer
/// kept meanwhile) is done again at most this many times.
const BUSY_TRIES: u32 = 30;

/// The bytes of lines a batch keeps to be done again; past them it ends.
const BATCH_MAX_KEPT_BYTES: usize = 64 << 20;

/// The lines to write: those of a batch to be done again first, then the reader's.
struct Source {
    lines: reader::Lines,
    again: std::collections::VecDeque<reader::ReadLine>,
    ended: bool,
}

impl Source {
    fn next(&mut self) -> Result<Option<reader::ReadLine>, IngestError> {
        if let Some(line) = self.again.pop_front() {
            return Ok(Some(line));
        }
        if self.ended {
            return Ok(None);
        }
        let line = self
            .lines
            .next_line()
            .map_err(|failure| IngestError::Read {
                line: failure.lines_before,
                cause: failure.error,
            })?;
        self.ended = line.is_none();
        Ok(line)
    }

    fn is_done(&self) -> bool {
        self.ended && self.again.is_empty()
    }

    /// Gives back the lines of a batch that is to be done again, in their order.
    fn put_back(&mut self, lines: Vec<reader::ReadLine>) {
        for line in lines.into_iter().rev() {
            self.again.push_front(line);
        }
    }
}

fn write_all(
    ledger: &mut Ledger,
    lines: reader::Lines,
    now: Timestamp,
    batching: Batching,
    mut progress: impl FnMut(&IngestReport),
) -> Result<IngestReport, IngestError> {
    let waiting = ledger.waiting_writers();
    // On a server, a transaction refused because of another writer (a deadlock, a line
    // or job it kept meanwhile) is done again, never shown. A file's "busy" is a
    // writer holding its lock past the wait: that is said.
    let replay = ledger.file().is_none();
    let mut source = Source {
        lines,
        again: std::collections::VecDeque::new(),
        ended: false,
    };
    let mut report = IngestReport::default();
    loop {
        let mut tries = 0;
        let batch = loop {
            let mut kept = replay.then(Vec::new);
            let mut writer = ledger.writer()?;
            let written = write_batch(
                &mut writer,
                &mut source,
                now,
                batching,
                waiting.as_ref(),
                kept.as_mut(),
            )
            .and_then(|batch| writer.commit().map(|()| batch).map_err(IngestError::from));
            match written {
                Ok(batch) => break batch,
                Err(IngestError::Store(StoreError::Busy { .. }))
                    if replay && tries < BUSY_TRIES =>
                {
                    source.put_back(kept.unwrap_or_default());
                    tries += 1;
                    std::thread::sleep(busy_pause(tries));
                }
                Err(e) => return Err(e),
            }
        };
        report.merge(&batch);
        progress(&report);
        if source.is_done() {
            return Ok(report);
        }
        std::thread::sleep(batching.pause);
    }
}

/// The wait before a batch is done again: growing, and not the same for two writers
/// that met, so that they do not meet again at once.
fn busy_pause(tries: u32) -> Duration {
    let base = Duration::from_millis(10) * 2_u32.pow(tries.min(7));
    // The clock's nanoseconds differ between two writers and between two tries (the
    // time elapsed since an instant just taken would be about zero, the same for all).
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let jitter = u64::from(std::process::id() ^ nanos) % 10;
    base.min(Duration::from_secs(1)) + Duration::from_millis(jitter * 3)
}

/// One batch: lines from `source` until the batch is full or has held the ledger long
/// enough. With `kept`, every line taken goes there (to be done again if the ledger
/// refuses the batch as busy), whatever became of the batch.
fn write_batch(
    writer: &mut Writer<'_>,
    source: &mut Source,
    now: Timestamp,
    batching: Batching,
    waiting: Option<&WaitingWriters>,
    mut kept: Option<&mut Vec<reader::ReadLine>>,
) -> Result<IngestReport, IngestError> {
    let held_since = Instant::now();
    let mut batch = IngestReport::default();
    let mut taken = 0;
    let mut kept_bytes = 0;
    while taken < batching.lines {
        let want = (batching.lines - taken).min(AHEAD_LINES);
        let mut chunk = Vec::with_capacity(want);
        while chunk.len() < want {
            let Some(line) = source.next()? else {
                break;
            };
            chunk.push(line);
        }
        if chunk.is_empty() {
            break;
        }
        taken += chunk.len();
        let written = write_chunk(writer, &chunk, now, batching, &mut batch);
        if let Some(kept) = kept.as_deref_mut() {
            for mut line in chunk {
                line.release_read_ahead();
                kept_bytes += line.raw.len();
                kept.push(line);
            }
        }
        written?;
        if held_since.elapsed() >= batching.max_hold
            || (held_since.elapsed() >= batching.give_way_after
                && (waiting.is_some_and(WaitingWriters::any) || writer.others_wait()?))
            || kept_bytes > BATCH_MAX_KEPT_BYTES
        {
            break;
        }
    }
    Ok(batch)
}

/// A chunk of lines: told to the writer ahead, then written one by one.
fn write_chunk(
    writer: &mut Writer<'_>,
    chunk: &[reader::ReadLine],
    now: Timestamp,
    batching: Batching,
    batch: &mut IngestReport,
) -> Result<(), StoreError> {
    let taken = |line: &reader::ReadLine| !line.unfinished || batching.complete;
    let mut ahead = Vec::with_capacity(chunk.len());
    let mut jobs = Vec::new();
    for line in chunk.iter().filter(|line| taken(line)) {
        let Some(content) = &line.content else {
            continue;
        };
        ahead.push(LineAhead {
            sha256: &content.sha256,
            sha256_with_cr: content.sha256_with_cr.as_ref(),
            raw: &line.raw,
            whole: content.whole_length.is_none(),
        });
        match &content.parsed {
            Parsed::Event(event) => jobs.push(event.job_id()),
            Parsed::Callback(report) => jobs.extend(report.job_id.as_deref()),
            Parsed::Rejected { .. } | Parsed::Unparseable { .. } => {}
        }
    }
    writer.look_ahead(&ahead, &jobs)?;
    let defaults = JobDefaults::default();
    for line in chunk {
        batch.cr_line_ends |= line.cr_line_ends;
        if !taken(line) {
            batch.unfinished_bytes += line.length;
            continue;
        }
        batch.lines_read += 1;
        ingest_line(writer, line, now, defaults, batch)?;
    }
    Ok(())
}

impl IngestReport {
    /// Adds the counts of another run.
    pub fn merge(&mut self, other: &IngestReport) {
        self.unfinished_bytes += other.unfinished_bytes;
        self.cr_line_ends |= other.cr_line_ends;
        self.oversized += other.oversized;
        self.lines_read += other.lines_read;
        self.blank += other.blank;
        self.already_ingested += other.already_ingested;
        self.events_applied += other.events_applied;
        self.events_rejected += other.events_rejected;
        self.callbacks.applied += other.callbacks.applied;
        self.callbacks.held += other.callbacks.held;
        self.callbacks.recorded += other.callbacks.recorded;
        self.callbacks.quarantined += other.callbacks.quarantined;
    }
}

fn ingest_line(
    writer: &mut Writer<'_>,
    line: &reader::ReadLine,
    now: Timestamp,
    defaults: JobDefaults,
    report: &mut IngestReport,
) -> Result<(), StoreError> {
    let Some(reader::Content {
        sha256,
        sha256_with_cr,
        parsed,
        whole_length,
    }) = &line.content
    else {
        report.blank += 1;
        return Ok(());
    };
    // What the line is, as far as the line alone tells; an event may still be
    // rejected once the ledger is consulted.
    let (kind, status, reason) = match parsed {
        Parsed::Event(event) => (Some(event.kind().as_str()), LineStatus::Applied, None),
        // Kept in its stored form: the code, then the sentence.
        Parsed::Rejected { kind, reason } => (
            Some(kind.as_str()),
            LineStatus::Rejected,
            Some(Cow::Owned(reason.to_string())),
        ),
        Parsed::Callback(report) => (
            Some(crate::event::CALLBACK),
            LineStatus::Callback,
            report.problem().map(|p| Cow::Borrowed(p.1.as_str())),
        ),
        Parsed::Unparseable { reason } => (
            None,
            LineStatus::Callback,
            Some(Cow::Borrowed(reason.as_str())),
        ),
    };
    let kept = writer.insert_line_once(&NewLine {
        sha256,
        sha256_with_cr: sha256_with_cr.as_ref(),
        raw: &line.raw,
        whole_length: *whole_length,
        event: kind,
        status,
        reason: reason.as_deref(),
        ingested_at: now,
    })?;
    let Some(seq) = kept else {
        report.already_ingested += 1;
        return Ok(());
    };
    report.oversized += u64::from(whole_length.is_some());
    let fate = match parsed {
        Parsed::Event(event) => apply::event(writer, seq, event, defaults)?,
        Parsed::Rejected { .. } => LineFate::Rejected,
        Parsed::Callback(cb) => {
            LineFate::Callback(judge(writer, cb, seq, None, now)?.1.disposition)
        }
        Parsed::Unparseable { reason } => {
            // Judged like any callback whose line alone says it cannot be judged.
            let cb = CallbackReport::unparseable(reason);
            LineFate::Callback(judge(writer, &cb, seq, None, now)?.1.disposition)
        }
    };
    match fate {
        LineFate::Applied => report.events_applied += 1,
        LineFate::Rejected => report.events_rejected += 1,
        LineFate::Callback(disposition) => report.callbacks.add(disposition),
    }
    Ok(())
}
