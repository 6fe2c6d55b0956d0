//! The detail pane's evidence for one row, read when the row is selected.

use crate::store::{
    AnswerRow, AttemptRow, CallbackRow, JobRow, OutputFacts, OwnerRow, RejectedLine, TimelineEntry,
};

/// The raw message shown whole is cut after this many bytes (the ledger keeps all of
/// it): as much as the comparison reads a payload from, and the evidence bundle shows.
pub(crate) const RAW_DETAIL_BYTES: usize = crate::evidence::compare::RAW_SHOWN_BYTES;

/// What the detail pane is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DetailKey {
    /// A callback, by sequence number.
    Callback(i64),
    /// A job, by id.
    Job(String),
    /// A rejected event line, by its sequence number.
    Rejected(i64),
}

/// The raw input line of a callback, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct RawMessage {
    /// Pretty-printed JSON when the line parses, else the bytes as they arrived.
    pub text: Vec<u8>,
    pub pretty: bool,
    /// The whole line's length in bytes.
    pub len: i64,
    /// Only the first 16 KiB were read.
    pub cut: bool,
}

/// Everything the detail pane shows about the selected row.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub detail_key: DetailKey,
    pub callback: Option<CallbackRow>,
    /// The rejected line the pane is about, with its code and reason.
    pub rejected: Option<RejectedLine>,
    /// The job id the rejected line names, when its raw line can be read for one.
    pub rejected_job_id: Option<String>,
    /// Every answer on this callback, oldest first.
    pub answers: Vec<AnswerRow>,
    /// The latest answer on another callback of the same job: the case answered before.
    pub earlier: Option<AnswerRow>,
    pub raw: Option<RawMessage>,
    pub job: Option<JobRow>,
    pub attempts: Vec<AttemptRow>,
    pub owner: Option<OwnerRow>,
    pub output: OutputFacts,
    pub timeline: Vec<TimelineEntry>,
    /// Lines scrolled off the top.
    pub scroll: usize,
}

impl Detail {
    /// A pane about `detail_key` with nothing read yet (the update step fills it in).
    pub fn empty(detail_key: DetailKey) -> Detail {
        Detail {
            detail_key,
            callback: None,
            rejected: None,
            rejected_job_id: None,
            answers: Vec::new(),
            earlier: None,
            raw: None,
            job: None,
            attempts: Vec::new(),
            owner: None,
            output: OutputFacts::default(),
            timeline: Vec::new(),
            scroll: 0,
        }
    }
}

/// The job id a raw event line names: its `job_id` string, when the line is one whole
/// JSON object (a line kept as its first bytes only names none that can be trusted).
pub(crate) fn job_id_of_line(raw: &RawMessage) -> Option<String> {
    if raw.cut {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(&raw.text).ok()?;
    let id = value.get("job_id")?.as_str()?;
    (!id.trim().is_empty()).then(|| id.to_owned())
}

/// The raw line's first `bytes` of `len` in all, pretty-printed when it is one JSON value.
pub(crate) fn raw_message(bytes: Vec<u8>, len: i64) -> RawMessage {
    let cut = usize::try_from(len).is_ok_and(|len| len > bytes.len());
    let pretty = if cut { None } else { pretty_json(&bytes) };
    match pretty {
        Some(text) => RawMessage {
            text: text.into_bytes(),
            pretty: true,
            len,
            cut,
        },
        None => RawMessage {
            text: bytes,
            pretty: false,
            len,
            cut,
        },
    }
}

/// Indents a JSON text without re-encoding it: keys keep their order and strings keep
/// their escapes exactly as they arrived. `None` when the bytes are not one JSON value.
pub(crate) fn pretty_json(bytes: &[u8]) -> Option<String> {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).ok()?;
    let text = std::str::from_utf8(bytes).ok()?.trim();
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                // Keep empty containers on one line.
                while chars.peek().is_some_and(char::is_ascii_whitespace) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}' | ']')) {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_ascii_whitespace() => {}
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::pretty_json;

    #[test]
    fn pretty_json_keeps_order_and_escapes() {
        let raw = br#"{"b":1,"a":{"note":"\u001b[2J, ok","list":[1, 2],"none":{}}}"#;
        assert_eq!(
            pretty_json(raw).as_deref(),
            Some(
                "{\n  \"b\": 1,\n  \"a\": {\n    \"note\": \"\\u001b[2J, ok\",\n    \"list\": [\n      1,\n      2\n    ],\n    \"none\": {}\n  }\n}"
            )
        );
        assert_eq!(pretty_json(b"not json"), None);
    }
}
