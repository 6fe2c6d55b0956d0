//! What a line over the limit is taken for, from its first bytes alone.
//!
//! Only its first bytes are kept, so it is never parsed: its `event` name, when those
//! bytes show one, says whether it is a callback (quarantined, `oversized`) or another
//! known event (rejected, `oversized`). A line that shows no known event is, like any
//! line with no known event, quarantined (SPEC sec. 3).

use std::fmt::Write as _;

use crate::decision::{Rejection, RejectionCode, Unusable};
use crate::event::{CallbackReport, EventKind, Parsed};

/// The longest line kept whole by default (16 MiB): far beyond any event, small enough
/// that a few such lines in memory at once do no harm.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The largest limit taken (256 MiB). A line within the limit is held whole, parsed
/// and kept in one SQLite value, which holds at most 1,000,000,000 bytes: no limit
/// taken lets SQLite refuse a line.
pub const MAX_LINE_BYTES_CEILING: usize = 256 * 1024 * 1024;

/// The smallest limit taken (64 KiB): far above any ordinary event line.
///
/// A line over the limit is kept as its first bytes for good: its SHA-256 is its
/// identity, so a later ingest with a larger limit finds it kept and does not take it
/// again. Taking it then would not give what one ingest at that limit gives either: the
/// lines after it were judged without it (events of a job whose acceptance was cut
/// were rejected), and those judgements are kept. So no limit is taken that ordinary
/// lines reach: `--max-line-bytes 64` kept 76 jobs' acceptances as stubs, for ever.
/// It is also what is kept of an oversized line, so every such line keeps 64 KiB.
pub const MIN_MAX_LINE_BYTES: usize = 64 * 1024;

/// Reads `ingest --max-line-bytes`: a whole number of bytes, from
/// [`MIN_MAX_LINE_BYTES`] to [`MAX_LINE_BYTES_CEILING`].
pub fn parse_max_line_bytes(text: &str) -> Result<usize, String> {
    let bytes: usize = text.trim().parse().map_err(|_| {
        format!("{text:?} is not a whole number of bytes (the default is {MAX_LINE_BYTES}, 16 MiB)")
    })?;
    if bytes < MIN_MAX_LINE_BYTES {
        return Err(format!(
            "{bytes} bytes is under the smallest limit, {MIN_MAX_LINE_BYTES} (64 KiB): a line over the limit is kept as its first bytes for good (a later ingest with a larger limit finds it by its SHA-256 and does not take it again), so a limit that ordinary lines reach would lose them; nothing was read or written (the default is {MAX_LINE_BYTES}, 16 MiB)"
        ));
    }
    if bytes > MAX_LINE_BYTES_CEILING {
        return Err(format!(
            "{bytes} bytes is over the largest limit, {MAX_LINE_BYTES_CEILING} (256 MiB): a line within the limit is held in memory and kept whole in one SQLite value"
        ));
    }
    Ok(bytes)
}

/// What an oversized line is taken for: `prefix` is what is kept of it, `length` and
/// `sha256` are of the whole, `limit` is the one it was over.
pub(crate) fn parsed(prefix: &[u8], length: u64, sha256: &[u8; 32], limit: usize) -> Parsed {
    let mut hex = String::with_capacity(64);
    for byte in sha256 {
        let _ = write!(hex, "{byte:02x}");
    }
    let detail = format!(
        "the line is {length} bytes, over the limit of {limit} (ingest --max-line-bytes): only its first {} bytes are kept; SHA-256 of the whole line: {hex}",
        prefix.len()
    );
    match event_name(prefix).and_then(EventKind::parse) {
        Some(kind) => Parsed::Rejected {
            kind,
            reason: Rejection::new(RejectionCode::Oversized, detail),
        },
        // A callback, or no event that can be told.
        None => Parsed::Callback(CallbackReport {
            problems: vec![(Unusable::Oversized, detail)],
            ..CallbackReport::unparseable("")
        }),
    }
}

/// The value of the first `"event": "name"` in `prefix`, if it is there whole and has
/// no escapes (a name with escapes is no known event's).
fn event_name(prefix: &[u8]) -> Option<&str> {
    memchr::memmem::find_iter(prefix, b"\"event\"").find_map(|at| {
        let rest = skip_space(&prefix[at + 7..]).strip_prefix(b":")?;
        let rest = skip_space(rest).strip_prefix(b"\"")?;
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        (rest[end] == b'"')
            .then(|| std::str::from_utf8(&rest[..end]).ok())
            .flatten()
    })
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_name_is_read_from_the_first_bytes() {
        assert_eq!(
            event_name(br#"{"event" : "job_accepted","job_id":"#),
            Some("job_accepted")
        );
        assert_eq!(
            event_name(br#"{"payload":"x","event":"callback","#),
            Some("callback")
        );
        assert_eq!(event_name(br#"{"event":"callb"#), None, "cut off");
        assert_eq!(event_name(br#"{"event":"call\"back"}"#), None);
        assert_eq!(event_name(br#"{"event":1,"x":"#), None);
        assert_eq!(event_name(b"\xff\xfe"), None);
    }

    #[test]
    fn a_known_event_is_rejected_and_anything_else_quarantined() {
        let sha = [0xab; 32];
        let Parsed::Rejected { kind, reason } =
            parsed(br#"{"event":"job_accepted","job"#, 100, &sha, 50)
        else {
            panic!("a known event is rejected");
        };
        assert_eq!(kind, EventKind::JobAccepted);
        assert!(
            reason
                .to_string()
                .starts_with("oversized: the line is 100 bytes"),
            "{reason}"
        );
        assert!(reason.sentence.contains(&"ab".repeat(32)), "{reason}");
        for prefix in [
            &br#"{"event":"callback","job"#[..],
            br#"{"event":"nonsense"#,
            b"[1,2,",
        ] {
            let Parsed::Callback(report) = parsed(prefix, 100, &sha, 50) else {
                panic!("quarantined");
            };
            assert_eq!(report.problem().map(|p| p.0), Some(Unusable::Oversized));
            assert_eq!(report.job_id, None);
        }
    }
}
