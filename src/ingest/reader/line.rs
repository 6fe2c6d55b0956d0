//! One line off the input, never more than the limit of it in memory.
//!
//! A line up to the limit is read whole. A longer one is read as it streams past: its
//! SHA-256 and length are taken over every byte, and only its first bytes are kept.
//! `BufRead::read_until` would hold the whole line, and a line of a gigabyte took
//! two gigabytes and then ended the ingest (SQLite keeps no blob that large).

use std::io::{self, BufRead};

use sha2::{Digest, Sha256};

/// The bytes kept of a line over the limit. Enough for a person to tell what the line
/// was (its event, its job, the start of its payload) and for ingest to find its
/// `event` name; small enough that a stream of such lines costs little. Never more
/// than the limit: what is kept of a line over it is less than a line within it.
pub(crate) const OVERSIZED_PREFIX_BYTES: usize = 64 * 1024;

/// A line as it was read.
pub(crate) struct RawLine {
    /// The line's bytes without its terminator; for an oversized line, its first bytes.
    pub bytes: Vec<u8>,
    /// It ended in CRLF (the CR is not among its bytes).
    pub crlf: bool,
    /// It ended in LF; `false` for a last line cut off by the end of the input.
    pub terminated: bool,
    /// What the whole was, when `bytes` holds only the first of it.
    pub oversized: Option<Whole>,
}

/// An oversized line, as a whole.
pub(crate) struct Whole {
    /// Its length in bytes, without its terminator.
    pub length: u64,
    pub sha256: [u8; 32],
    /// Its identity with the CR of a CRLF kept, as an earlier jobledger gave it.
    pub sha256_with_cr: Option<[u8; 32]>,
    /// Nothing but JSON's white space: a blank line, however long.
    pub blank: bool,
    /// It holds a CR followed by more of the line: see [`has_inner_cr`].
    pub inner_cr: bool,
}

/// JSON's white space: space, tab, CR and LF, and nothing else. A line of only these
/// holds no JSON value and nothing else: it is blank. Any other byte (a form feed, a
/// vertical tab, a NUL) makes it a line, kept and quarantined like any line that is no
/// JSON.
pub(crate) fn is_json_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// Does `line` hold a CR followed by a byte that is not JSON white space? A file whose
/// lines end in CR alone (old Mac style), read as one line, does: each CR is followed
/// by the next record. In a line of JSON a CR is white space at most, and no JSON
/// writer puts a bare one before a value.
pub(crate) fn has_inner_cr(line: &[u8]) -> bool {
    memchr::memchr_iter(b'\r', line).any(|at| line.get(at + 1).is_some_and(|b| !is_json_space(*b)))
}

/// Reads the next line, `Ok(None)` at the end of the input. A line longer than `limit`
/// bytes (terminator not counted) is read streaming and comes back oversized.
pub(crate) fn read_line(input: &mut impl BufRead, limit: usize) -> io::Result<Option<RawLine>> {
    let mut bytes = Vec::new();
    let mut streamed: Option<Streamed> = None;
    let mut any = false;
    let mut terminated = false;
    while !terminated {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        any = true;
        let (piece, used) = match memchr::memchr(b'\n', buf) {
            Some(at) => (&buf[..at], at + 1),
            None => (buf, buf.len()),
        };
        terminated = used > piece.len();
        if let Some(streamed) = &mut streamed {
            streamed.take(piece);
        } else {
            append_within(&mut bytes, piece, limit);
            // Past the limit even if its last byte is the CR of a CRLF.
            if bytes.len() > limit.saturating_add(1) {
                streamed = Some(Streamed::from(&bytes, limit));
                bytes = Vec::new();
            }
        }
        input.consume(used);
    }
    if !any {
        return Ok(None);
    }
    // A line is its bytes without its terminator, LF or CRLF (SPEC sec. 3); a CR
    // with no LF after it, at the end of the input, is one of its bytes.
    if let Some(streamed) = streamed {
        return Ok(Some(streamed.finish(terminated)));
    }
    let crlf = terminated && bytes.last() == Some(&b'\r');
    if bytes.len() - usize::from(crlf) > limit {
        // The CR goes in too: the streamed line tells a CRLF by it.
        return Ok(Some(Streamed::from(&bytes, limit).finish(terminated)));
    }
    if crlf {
        bytes.pop();
    }
    Ok(Some(RawLine {
        bytes,
        crlf,
        terminated,
        oversized: None,
    }))
}

/// Appends `piece`, growing `bytes` to no more than the limit (and a CRLF) when the
/// line fits: doubling would take up to twice the limit for a line just within it.
fn append_within(bytes: &mut Vec<u8>, piece: &[u8], limit: usize) {
    let needed = bytes.len() + piece.len();
    if needed > bytes.capacity() {
        let doubled = bytes.capacity().saturating_mul(2).max(needed);
        let within = doubled.min(limit.saturating_add(2)).max(needed);
        bytes.reserve_exact(within - bytes.len());
    }
    bytes.extend_from_slice(piece);
}

/// An oversized line as it streams past.
struct Streamed {
    prefix: Vec<u8>,
    keep: usize,
    hasher: Sha256,
    length: u64,
    blank: bool,
    inner_cr: bool,
    /// A CR read last: part of the line, or the start of its CRLF, as the next byte tells.
    held_cr: bool,
}

impl Streamed {
    /// Starts with the bytes read so far (which may end in a CR).
    fn from(bytes: &[u8], limit: usize) -> Self {
        let keep = OVERSIZED_PREFIX_BYTES.min(limit);
        let mut streamed = Streamed {
            prefix: Vec::with_capacity(keep),
            keep,
            hasher: Sha256::new(),
            length: 0,
            blank: true,
            inner_cr: false,
            held_cr: false,
        };
        streamed.take(bytes);
        streamed
    }

    /// The next bytes of the line (no LF among them).
    fn take(&mut self, piece: &[u8]) {
        let Some((&last, _)) = piece.split_last() else {
            return;
        };
        if self.held_cr {
            self.inner_cr = self.inner_cr || !is_json_space(piece[0]);
            self.add(b"\r");
        }
        self.held_cr = last == b'\r';
        let body = if self.held_cr {
            &piece[..piece.len() - 1]
        } else {
            piece
        };
        self.inner_cr = self.inner_cr || has_inner_cr(piece);
        self.add(body);
    }

    fn add(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.length += bytes.len() as u64;
        self.blank = self.blank && bytes.iter().all(|b| is_json_space(*b));
        let room = self.keep - self.prefix.len();
        self.prefix
            .extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    fn finish(mut self, terminated: bool) -> RawLine {
        let crlf = terminated && self.held_cr;
        if self.held_cr && !terminated {
            self.add(b"\r");
        }
        let sha256_with_cr =
            crlf.then(|| self.hasher.clone().chain_update(b"\r").finalize().into());
        RawLine {
            bytes: self.prefix,
            crlf,
            terminated,
            oversized: Some(Whole {
                length: self.length,
                sha256: self.hasher.finalize().into(),
                sha256_with_cr,
                blank: self.blank,
                inner_cr: self.inner_cr,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<RawLine> {
        let mut input = io::BufReader::with_capacity(7, input);
        std::iter::from_fn(|| read_line(&mut input, limit).unwrap()).collect()
    }

    #[test]
    fn a_line_within_the_limit_is_read_whole_without_its_terminator() {
        let read = lines(b"abc\r\nde\nfg\r", 3);
        let got: Vec<_> = read
            .iter()
            .map(|l| {
                (
                    l.bytes.as_slice(),
                    l.crlf,
                    l.terminated,
                    l.oversized.is_some(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (&b"abc"[..], true, true, false),
                (b"de", false, true, false),
                // A CR at the end of the input is no terminator: the line is 3 bytes.
                (b"fg\r", false, false, false),
            ]
        );
    }

    #[test]
    fn a_line_over_the_limit_keeps_its_first_bytes_its_length_and_its_sha256() {
        // Every split of the CR and LF across buffer refills (capacity 7).
        for len in 4_u64..40 {
            let line: Vec<u8> = (0..len)
                .map(|i| b'a' + u8::try_from(i % 26).unwrap())
                .collect();
            for (ending, crlf) in [(&b"\n"[..], false), (b"\r\n", true)] {
                let mut input = line.clone();
                input.extend_from_slice(ending);
                input.extend_from_slice(b"ok\n");
                let read = lines(&input, 3);
                let whole = read[0].oversized.as_ref().expect("oversized");
                assert_eq!(read[0].bytes, line[..3], "{len}");
                assert_eq!(whole.length, len);
                assert_eq!(whole.sha256, <[u8; 32]>::from(Sha256::digest(&line)));
                assert_eq!(read[0].crlf, crlf);
                let with_cr = [line.as_slice(), b"\r"].concat();
                assert_eq!(
                    whole.sha256_with_cr,
                    crlf.then(|| <[u8; 32]>::from(Sha256::digest(&with_cr)))
                );
                assert_eq!(read[1].bytes, b"ok");
            }
        }
    }

    #[test]
    fn a_cr_inside_an_oversized_line_is_one_of_its_bytes() {
        let read = lines(b"ab\rcd\r\rx\r", 2);
        let whole = read[0].oversized.as_ref().unwrap();
        assert_eq!(whole.length, 9);
        assert!(!read[0].terminated && !read[0].crlf);
        assert_eq!(
            whole.sha256,
            <[u8; 32]>::from(Sha256::digest(b"ab\rcd\r\rx\r"))
        );
    }

    #[test]
    fn a_cr_before_more_of_the_line_is_told_in_a_line_read_whole_or_streamed() {
        let mac = b"{\"a\":1}\r{\"b\":2}\r{\"c\":3}\r";
        assert!(has_inner_cr(mac));
        // Every split across buffer refills (capacity 7) of a streamed line.
        for limit in [2, 5, 9] {
            assert!(lines(mac, limit)[0].oversized.as_ref().unwrap().inner_cr);
        }
        // A CR at the end, or before white space only, is no line end of another style.
        for line in [
            &b"{\"a\":1}\r"[..],
            b"{\"a\":1}\r ",
            b"{\"a\":\r\n1}",
            b"ab",
        ] {
            assert!(!has_inner_cr(line), "{line:?}");
            assert!(!lines(line, 1)[0].oversized.as_ref().unwrap().inner_cr);
        }
        // A form feed is no JSON white space: a line of one is no blank line.
        assert!(
            !is_json_space(0x0c)
                && !lines(b"\x0c\x0c\x0c\n", 2)[0]
                    .oversized
                    .as_ref()
                    .unwrap()
                    .blank
        );
    }

    #[test]
    fn a_line_of_the_limit_and_a_crlf_is_within_it() {
        let read = lines(b"abc\r\nabcd\r\n", 3);
        assert!(read[0].oversized.is_none());
        assert_eq!(read[0].bytes, b"abc");
        assert_eq!(read[1].oversized.as_ref().unwrap().length, 4);
    }
}
