//! The reading side of an ingest: lines read, hashed and parsed on a thread of their
//! own, handed to the writer in order.
//!
//! None of this needs the ledger, and it was a sixth of an ingest's time; on a second
//! core it runs while the writer writes. The channel is bounded, so a writer that falls
//! behind stops the reader instead of letting read lines pile up in memory.

use std::io::BufRead;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use sha2::{Digest, Sha256};

use crate::event::{self, Parsed};

/// One line of the stream, newline removed, ready for the writer.
pub(crate) struct ReadLine {
    pub raw: Vec<u8>,
    /// The last line, with no terminator and not a whole JSON value: it may still be
    /// being written, so it is left unread (SPEC sec. 3) unless the input is complete.
    pub unfinished: bool,
    /// `None` for a blank line (nothing is kept for it).
    pub content: Option<Content>,
}

/// What the line alone tells: its identity and what it says.
pub(crate) struct Content {
    pub sha256: [u8; 32],
    /// For a line that ended in CRLF, the identity an earlier jobledger gave it, when the
    /// CR was kept as part of the line: a ledger may hold it under that one.
    pub sha256_with_cr: Option<[u8; 32]>,
    pub parsed: Parsed,
}

/// Reading stopped: the error, and how many lines of the whole input had been read
/// before it.
pub(crate) struct ReadFailure {
    pub lines_before: u64,
    pub error: std::io::Error,
}

/// Lines travel in chunks: one channel message per line cost more than the parsing.
const CHUNK_LINES: usize = 256;
/// Chunks read ahead of the writer at most.
const CHUNKS_AHEAD: usize = 16;

type Chunk = Result<Vec<ReadLine>, ReadFailure>;

/// The writer's end: lines in stream order, then `None` at the end of the input.
pub(crate) struct Lines {
    chunks: Receiver<Chunk>,
    current: std::vec::IntoIter<ReadLine>,
}

impl Lines {
    /// The next line, `Ok(None)` at the end, or why reading stopped.
    pub fn next_line(&mut self) -> Result<Option<ReadLine>, ReadFailure> {
        loop {
            if let Some(line) = self.current.next() {
                return Ok(Some(line));
            }
            match self.chunks.recv() {
                Ok(chunk) => self.current = chunk?.into_iter(),
                // The reader has finished and sent everything.
                Err(_) => return Ok(None),
            }
        }
    }
}

/// Starts reading `input` on a thread of `scope`; the returned [`Lines`] yields what it reads.
/// Dropping the `Lines` stops the reader at its next chunk.
pub(crate) fn spawn<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    input: impl BufRead + Send + 'scope,
) -> Lines {
    let (sender, chunks) = sync_channel(CHUNKS_AHEAD);
    scope.spawn(move || read_all(input, &sender));
    Lines {
        chunks,
        current: Vec::new().into_iter(),
    }
}

fn read_all(mut input: impl BufRead, sender: &SyncSender<Chunk>) {
    let mut lines_read = 0_u64;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK_LINES);
        let mut ended = false;
        while chunk.len() < CHUNK_LINES {
            let mut raw = Vec::new();
            match input.read_until(b'\n', &mut raw) {
                Ok(0) => {
                    ended = true;
                    break;
                }
                Ok(_) => {}
                Err(error) => {
                    // The lines read whole before the failure go first, then the failure.
                    let lines_before = lines_read + chunk.len() as u64;
                    if !chunk.is_empty() && sender.send(Ok(chunk)).is_err() {
                        return;
                    }
                    let _ = sender.send(Err(ReadFailure {
                        lines_before,
                        error,
                    }));
                    return;
                }
            }
            // Read to the end with no LF: the last line, perhaps still being written.
            let unfinished = raw.last() != Some(&b'\n')
                && !raw.iter().all(u8::is_ascii_whitespace)
                && serde_json::from_slice::<serde::de::IgnoredAny>(&raw).is_err();
            // A line is its bytes without its terminator, LF or CRLF (SPEC sec. 3): the
            // same events written with CRLF endings are the same lines.
            let crlf = raw.ends_with(b"\r\n");
            if raw.last() == Some(&b'\n') {
                raw.pop();
            }
            if crlf {
                raw.pop();
            }
            chunk.push(prepare(raw, crlf, unfinished));
        }
        lines_read += chunk.len() as u64;
        if !chunk.is_empty() && sender.send(Ok(chunk)).is_err() {
            return; // the writer stopped
        }
        if ended {
            return;
        }
    }
}

fn prepare(raw: Vec<u8>, crlf: bool, unfinished: bool) -> ReadLine {
    let content = (!raw.iter().all(u8::is_ascii_whitespace)).then(|| Content {
        sha256: Sha256::digest(&raw).into(),
        sha256_with_cr: crlf.then(|| {
            Sha256::new()
                .chain_update(&raw)
                .chain_update(b"\r")
                .finalize()
                .into()
        }),
        parsed: event::parse_line(&raw),
    });
    ReadLine {
        raw,
        unfinished,
        content,
    }
}
