//! `ingest --follow FILE`: a file read as it grows, as `tail -F` reads it.
//!
//! [`Follow`] is a [`Read`] that hands out whole lines only (bytes up to the last LF
//! in the file) and says "end" as soon as it has caught up. [`ingest_following`] runs
//! one ordinary ingest ([`super::ingest_in_batches`]) per stretch of new lines, so
//! each stretch is committed once it is read, and waits between them. Reading, batching,
//! the unfinished-line rule and what a kill leaves are those of a plain ingest.
//!
//! Why rounds and not one ingest over a source that blocks at its end: the reader
//! thread sends lines in chunks of hundreds, so a line that arrived alone would wait
//! in a half-filled chunk, unseen by the writer, until more came.

use std::fs::{File, Metadata};
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Batching, IngestError, IngestReport, ingest_in_batches};
use crate::clock::Timestamp;
use crate::store::Ledger;

/// How often a caught-up follower looks for growth, truncation, rotation and a stop.
pub const POLL: Duration = Duration::from_millis(100);

/// How long the path may be missing before the follower says it waits for it: a
/// rotation (rename, then create) leaves it missing for a moment, which is no news.
const MISSING_GRACE: Duration = Duration::from_secs(1);

/// Bytes looked at in one go while looking for the end of a line.
const SCAN_PIECE: usize = 1 << 16;

/// Something a person following the file should know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// The path names no file: the follower waits for one.
    Missing,
    /// A file is at the path again; it is read from its start.
    Appeared,
    /// The file is shorter than what was read: it is read again from its start.
    Truncated,
    /// The path names another file now: the old one is read to its end, then the new
    /// one from its start.
    Rotated,
    /// Stopped: the bytes not read yet (whole lines and perhaps the start of one) are
    /// read now, and then no more.
    Stopping(u64),
    /// The file left behind by a rotation ended in a line with no end (its size): left
    /// unread, as a plain ingest leaves it.
    OldFileUnfinished(u64),
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::Missing => write!(f, "no file there; waiting for one to appear"),
            Notice::Appeared => write!(f, "a file appeared; reading it from its start"),
            Notice::Truncated => write!(
                f,
                "the file was truncated; reading it again from its start (lines already ingested are skipped)"
            ),
            Notice::Rotated => write!(
                f,
                "the path names another file now (rotated): reading the old one to its end, then the new one from its start"
            ),
            Notice::Stopping(0) => write!(f, "stopping"),
            Notice::Stopping(bytes) => write!(
                f,
                "stopping once the {bytes} bytes not read yet are in (a second Ctrl-C stops at once; committed batches are kept)"
            ),
            Notice::OldFileUnfinished(bytes) => write!(
                f,
                "the old file ended in a line with no end ({bytes} bytes), left unread (a plain ingest of that file with --complete keeps it)"
            ),
        }
    }
}

/// What a follower tells as it goes.
#[derive(Debug, Clone, Copy)]
pub enum Following<'a> {
    /// The counts so far, after a commit.
    Committed(&'a IngestReport),
    /// A change of the file at the path.
    Notice(Notice),
}

/// Where the follower is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Whole lines only, "end" when caught up.
    Following,
    /// The path names another file: the old one is read to its very end, an unfinished
    /// last line included, and then left.
    LeavingOld,
    /// Stopped: the file is read to its very end, once, and then nothing more.
    Stopping,
    Finished,
}

/// The file being read.
struct Opened {
    file: File,
    id: Option<(u64, u64)>,
    /// Bytes handed out.
    pos: u64,
    /// Just past the last LF found: bytes before it are whole lines.
    whole_end: u64,
    /// How far the file has been looked at for LFs.
    scanned: u64,
    /// Where a file being left or stopped at ends: its size then. A writer that goes on
    /// writing cannot keep the follower from ending.
    last_end: u64,
}

/// A file at a path, read as it grows: see the module documentation.
pub struct Follow {
    path: PathBuf,
    opened: Option<Opened>,
    stage: Stage,
    stop: Arc<AtomicBool>,
    missing_since: Option<Instant>,
    missing_told: bool,
    piece: Vec<u8>,
}

impl Follow {
    /// Follows the file at `path` until `stop` is set. A missing file is waited for; a
    /// path that names no regular file, or a file that cannot be read, is an error.
    pub fn new(path: &Path, stop: Arc<AtomicBool>) -> io::Result<Follow> {
        let mut follow = Follow {
            path: path.to_path_buf(),
            opened: None,
            stage: Stage::Following,
            stop,
            missing_since: None,
            missing_told: false,
            piece: vec![0; SCAN_PIECE],
        };
        follow.opened = follow.open()?;
        Ok(follow)
    }

    /// The file at the path, from its start; `None` while there is none.
    fn open(&self) -> io::Result<Option<Opened>> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "--follow reads a regular file, and this is none",
            ));
        }
        Ok(Some(Opened {
            file,
            id: file_id(&meta),
            pos: 0,
            whole_end: 0,
            scanned: 0,
            last_end: 0,
        }))
    }

    /// Waits until there is something to read (new whole lines, or the rest of a file
    /// being left or stopped at): `true`; `false` once stopped and read to the end.
    pub fn wait_for_more(&mut self, mut notice: impl FnMut(Notice)) -> io::Result<bool> {
        loop {
            match self.stage {
                Stage::Finished => return Ok(false),
                Stage::Stopping => {
                    self.stage = Stage::Finished;
                    return Ok(false);
                }
                Stage::LeavingOld => {
                    self.stage = Stage::Following;
                    self.opened = self.open()?;
                }
                Stage::Following => {}
            }
            if self.stop.load(Ordering::Relaxed) {
                // One last stretch: the whole lines not read yet and an unfinished line.
                self.stage = Stage::Stopping;
                let rest = match &mut self.opened {
                    Some(opened) => opened.end_here()?,
                    None => 0,
                };
                notice(Notice::Stopping(rest));
                return Ok(rest > 0);
            }
            if self.opened.is_none() {
                self.opened = self.open()?;
                if self.opened.is_some() && std::mem::take(&mut self.missing_told) {
                    notice(Notice::Appeared);
                }
                self.missing_since = None;
            }
            if let Some(opened) = &mut self.opened {
                if opened.file.metadata()?.len() < opened.scanned {
                    notice(Notice::Truncated);
                    opened.pos = 0;
                    opened.whole_end = 0;
                    opened.scanned = 0;
                }
                if opened.find_whole_lines(&mut self.piece)? {
                    return Ok(true);
                }
            }
            // Caught up: has the path been given to another file, or taken away?
            match std::fs::metadata(&self.path) {
                Ok(meta) => {
                    self.missing_since = None;
                    self.missing_told = false;
                    if let Some(opened) = &mut self.opened
                        && file_id(&meta) != opened.id
                    {
                        self.stage = Stage::LeavingOld;
                        notice(Notice::Rotated);
                        if opened.end_here()? > 0 {
                            return Ok(true);
                        }
                        continue;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    let since = *self.missing_since.get_or_insert_with(Instant::now);
                    // With no file at all there is nothing to read meanwhile: say so now.
                    let nothing = self.opened.is_none();
                    if !self.missing_told && (nothing || since.elapsed() >= MISSING_GRACE) {
                        self.missing_told = true;
                        notice(Notice::Missing);
                    }
                }
                Err(e) => return Err(e),
            }
            std::thread::sleep(POLL);
        }
    }
}

impl Opened {
    /// Ends the file where it ends now; the bytes left to read.
    fn end_here(&mut self) -> io::Result<u64> {
        self.last_end = self.file.metadata()?.len();
        Ok(self.last_end.saturating_sub(self.pos))
    }

    /// Looks for the end of a line past what was handed out; true when there is one.
    fn find_whole_lines(&mut self, piece: &mut [u8]) -> io::Result<bool> {
        while self.whole_end <= self.pos {
            let n = read_at(&self.file, piece, self.scanned)?;
            if n == 0 {
                return Ok(false);
            }
            if let Some(last_lf) = piece[..n].iter().rposition(|b| *b == b'\n') {
                self.whole_end = self.scanned + last_lf as u64 + 1;
            }
            self.scanned += n as u64;
        }
        Ok(true)
    }
}

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(opened) = &mut self.opened else {
            return Ok(0);
        };
        let end = match self.stage {
            // Stopped: the stretch ends at the last LF known, where a line ends, even if
            // lines pour in faster than they are read; the last stretch reads the rest.
            Stage::Following if self.stop.load(Ordering::Relaxed) => opened.whole_end,
            Stage::Following => {
                opened.find_whole_lines(&mut self.piece)?;
                opened.whole_end
            }
            // To the end: an unfinished last line is handed out too, so that the
            // reader's rule for it applies (left unread and reported).
            Stage::LeavingOld | Stage::Stopping => opened.last_end,
            Stage::Finished => return Ok(0),
        };
        let room = usize::try_from(end.saturating_sub(opened.pos)).unwrap_or(usize::MAX);
        let room = room.min(buf.len());
        let n = read_at(&opened.file, &mut buf[..room], opened.pos)?;
        opened.pos += n as u64;
        Ok(n)
    }
}

/// Follows `follow` into the ledger until it is stopped: one ingest per stretch of new
/// lines, committed as it is read. `now` is asked at each stretch; `tell` hears of
/// each commit and each change of the file.
pub fn ingest_following(
    ledger: &mut Ledger,
    follow: &mut Follow,
    mut now: impl FnMut() -> Timestamp,
    batching: Batching,
    mut tell: impl FnMut(Following<'_>),
) -> Result<IngestReport, IngestError> {
    let mut report = IngestReport::default();
    let mut last_unfinished = 0;
    let mut last_stretch: Option<Instant> = None;
    while follow
        .wait_for_more(|notice| tell(Following::Notice(notice)))
        .map_err(|cause| IngestError::Read {
            line: report.lines_read,
            cause,
        })?
    {
        // Lines that trickle in are taken a poll's worth at a time, not one commit each.
        if let Some(started) = last_stretch {
            std::thread::sleep(POLL.saturating_sub(started.elapsed()));
        }
        last_stretch = Some(Instant::now());
        let leaving_old = follow.stage == Stage::LeavingOld;
        let before = report;
        let input = BufReader::with_capacity(1 << 16, &mut *follow);
        let stretch = ingest_in_batches(ledger, input, now(), batching, |so_far| {
            let mut total = before;
            total.merge(so_far);
            tell(Following::Committed(&total));
        })?;
        report.merge(&stretch);
        last_unfinished = stretch.unfinished_bytes;
        if leaving_old && stretch.unfinished_bytes > 0 {
            tell(Following::Notice(Notice::OldFileUnfinished(
                stretch.unfinished_bytes,
            )));
            last_unfinished = 0;
        }
    }
    // Only the line the follower stopped at is "the last line" of the report; one a
    // rotated file ended in was told of when it was left.
    report.unfinished_bytes = last_unfinished;
    Ok(report)
}

/// Reads at `offset` without moving anything else (`&File` has its own cursor,
/// shared with nothing here: the follower is the only one reading it).
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// Device and inode: which file a path names, whatever it is called.
#[cfg(unix)]
#[allow(clippy::unnecessary_wraps)] // the same shape as where there is none
fn file_id(meta: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

/// No identity to compare here: a rotation is not noticed (truncation still is).
#[cfg(not(unix))]
fn file_id(_meta: &Metadata) -> Option<(u64, u64)> {
    None
}
