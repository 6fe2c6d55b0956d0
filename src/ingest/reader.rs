//! The reading side of an ingest: lines read, hashed and parsed on a thread of their
//! own, handed to the writer in order.
//!
//! None of this needs the ledger, and it was a sixth of an ingest's time; on a second
//! core it runs while the writer writes. The channel is bounded, so a writer that falls
//! behind stops the reader instead of letting read lines pile up in memory.

mod ahead;
mod line;

use std::io::BufRead;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use sha2::{Digest, Sha256};

use crate::event::{self, Parsed};
use ahead::{Held, ReadAhead};
use line::RawLine;

/// One line of the stream, newline removed, ready for the writer.
pub(crate) struct ReadLine {
    /// The line's bytes; for a line over the limit, only its first ones.
    pub raw: Vec<u8>,
    /// The whole line's length in bytes.
    pub length: u64,
    /// The last line, with no terminator: it may still be being written, so it is left
    /// unread (SPEC sec. 3) unless the input is complete.
    pub unfinished: bool,
    /// The last line, with no LF, holds a CR followed by more of it: the input's lines
    /// seem to end in CR alone (old Mac style), and it was read as one line.
    pub cr_line_ends: bool,
    /// `None` for a blank line (nothing is kept for it).
    pub content: Option<Content>,
    /// Its share of the read-ahead, given back when the writer drops it.
    read_ahead: Held,
}

impl ReadLine {
    /// Gives the line's share of the read-ahead back now: the writer keeps it past its
    /// turn (to write its batch again if the ledger refuses it as busy), and a reader
    /// waiting for room must not wait for that.
    pub fn release_read_ahead(&mut self) {
        self.read_ahead.release();
    }
}

/// What the line alone tells: its identity and what it says.
pub(crate) struct Content {
    pub sha256: [u8; 32],
    /// For a line that ended in CRLF, the identity an earlier jobledger gave it, when the
    /// CR was kept as part of the line: a ledger may hold it under that one.
    pub sha256_with_cr: Option<[u8; 32]>,
    pub parsed: Parsed,
    /// The whole line's length, when `raw` holds only its first bytes (it was over
    /// the limit).
    pub whole_length: Option<u64>,
}

/// Reading stopped: the error, and how many lines of the whole input had been read
/// before it.
pub(crate) struct ReadFailure {
    pub lines_before: u64,
    pub error: std::io::Error,
}

/// Lines travel in chunks: one channel message per line cost more than the parsing.
const CHUNK_LINES: usize = 256;
/// A chunk also ends once it holds this many bytes: a chunk of 256 long lines would
/// hold hundreds of megabytes.
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks read ahead of the writer at most.
const CHUNKS_AHEAD: usize = 16;
/// Bytes of lines read ahead of the writer at most: memory stays within this and a
/// line up to the limit, whatever the lines' sizes ([`ahead`]).
const READ_AHEAD_BYTES: u64 = (CHUNKS_AHEAD * CHUNK_BYTES) as u64;

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

/// Starts reading `input` on a thread of `scope`; the returned [`Lines`] yields what it
/// reads. A line longer than `max_line_bytes` is kept as its first bytes (oversized).
/// Dropping the `Lines` stops the reader at its next chunk.
pub(crate) fn spawn<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    input: impl BufRead + Send + 'scope,
    max_line_bytes: usize,
) -> Lines {
    let (sender, chunks) = sync_channel(CHUNKS_AHEAD);
    scope.spawn(move || read_all(input, max_line_bytes, &sender));
    Lines {
        chunks,
        current: Vec::new().into_iter(),
    }
}

fn read_all(mut input: impl BufRead, limit: usize, sender: &SyncSender<Chunk>) {
    let ahead = ReadAhead::new(READ_AHEAD_BYTES);
    let mut lines_read = 0_u64;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK_LINES);
        let mut chunk_bytes = 0;
        let mut ended = false;
        while chunk.len() < CHUNK_LINES && chunk_bytes < CHUNK_BYTES {
            let raw = match line::read_line(&mut input, limit) {
                Ok(Some(raw)) => raw,
                Ok(None) => {
                    ended = true;
                    break;
                }
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
            };
            chunk_bytes += raw.bytes.capacity();
            chunk.push(prepare(raw, limit, &ahead));
        }
        lines_read += chunk.len() as u64;
        ahead.wait_for_room(chunk_bytes as u64);
        if !chunk.is_empty() && sender.send(Ok(chunk)).is_err() {
            return; // the writer stopped
        }
        if ended {
            return;
        }
    }
}

fn prepare(line: RawLine, limit: usize, ahead: &Arc<ReadAhead>) -> ReadLine {
    let RawLine {
        bytes,
        crlf,
        terminated,
        oversized,
    } = line;
    let read_ahead = ahead.hold(bytes.capacity());
    // Read to the end with no LF: the last line, perhaps still being written. Whatever
    // it holds, it is not taken: a whole JSON value followed by a space may yet be
    // followed by more (spaces, a second object), and the line taken now would be
    // another line than the one the writer finishes, kept twice (SPEC sec. 3).
    let unfinished = !terminated;
    let (content, length, inner_cr) = match oversized {
        None => {
            let blank = bytes.iter().all(|b| line::is_json_space(*b));
            let content = (!blank).then(|| Content {
                sha256: Sha256::digest(&bytes).into(),
                sha256_with_cr: crlf.then(|| {
                    Sha256::new()
                        .chain_update(&bytes)
                        .chain_update(b"\r")
                        .finalize()
                        .into()
                }),
                parsed: event::parse_line(&bytes),
                whole_length: None,
            });
            (
                content,
                bytes.len() as u64,
                unfinished && line::has_inner_cr(&bytes),
            )
        }
        Some(whole) => {
            let content = (!whole.blank).then(|| Content {
                sha256: whole.sha256,
                sha256_with_cr: whole.sha256_with_cr,
                parsed: super::oversized::parsed(&bytes, whole.length, &whole.sha256, limit),
                whole_length: Some(whole.length),
            });
            (content, whole.length, whole.inner_cr)
        }
    };
    ReadLine {
        raw: bytes,
        length,
        unfinished,
        cr_line_ends: unfinished && inner_cr,
        content,
        read_ahead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// An input that counts the bytes taken from it.
    struct Counted<'a> {
        inner: &'a [u8],
        taken: &'a AtomicU64,
    }

    impl Read for Counted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.taken.fetch_add(n as u64, Ordering::SeqCst);
            Ok(n)
        }
    }

    #[test]
    fn the_reader_keeps_a_bounded_number_of_bytes_ahead_of_a_writer_that_waits() {
        // 30 lines of 3 MiB. In chunks of 256 lines, all of them were read ahead at
        // once; in 16 chunks of a line each, 16 of them.
        const LINES: usize = 30;
        const LINE: usize = 3 << 20;
        let limit = 4 << 20;
        let input = [vec![b' '; LINE], vec![b'\n']].concat().repeat(LINES);
        let taken = AtomicU64::new(0);
        std::thread::scope(|scope| {
            let counted = Counted {
                inner: &input,
                taken: &taken,
            };
            let mut lines = spawn(scope, BufReader::new(counted), limit);
            let mut seen = u64::MAX;
            while taken.load(Ordering::SeqCst) != seen {
                seen = taken.load(Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            // The budget, the chunk being gathered and a line beyond it (a line's
            // buffer is at most the limit).
            let most = READ_AHEAD_BYTES + (CHUNK_BYTES + LINE + limit) as u64;
            assert!(seen <= most, "{seen} bytes read ahead, {most} at most");
            let mut read = 0;
            while let Ok(Some(_)) = lines.next_line() {
                read += 1;
            }
            assert_eq!(read, LINES, "and then every line");
        });
    }
}
