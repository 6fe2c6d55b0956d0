//! Why an event line was not taken: a closed set of codes, each kept beside the
//! sentence that gives the particulars.
//!
//! A rejection is stored in `input_lines.reason` as `code: sentence`. Lines rejected
//! before the codes existed keep the sentence alone (the ledger never rewrites what it
//! holds); their code is read from the sentence's form, which each version wrote in
//! one of a few fixed shapes ([`Rejection::read`]).

use std::fmt;

use crate::closed_set::closed_set;

closed_set! {
    /// Why an event line was rejected, by the name reports print and filters find.
    pub enum RejectionCode("rejection code") {
        /// A known event with a field missing, empty, or of the wrong form.
        Malformed,
        /// The line was over the limit (`ingest --max-line-bytes`): only its first
        /// bytes are kept, so it was never read as an event.
        Oversized,
        /// An event about a job id no `job_accepted` has opened.
        NoAcceptedJob,
        /// A `job_accepted` for a job id already accepted, with the same identity.
        RepeatedSubmission,
        /// A `job_accepted` for a job id already accepted, with another identity.
        ConflictingSubmission,
        /// An event about an attempt the job does not have.
        UnknownAttempt,
        /// An `attempt_started` for an attempt already started.
        AttemptAlreadyStarted,
        /// An `attempt_timed_out` for an attempt already timed out.
        AttemptAlreadyTimedOut,
        /// A stored reason in no form any version of jobledger wrote: shown as kept.
        Unclassified,
    }
}

/// Why an event line was rejected: the code, and a sentence with the particulars
/// (which job, which field, which values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub code: RejectionCode,
    pub sentence: String,
}

impl Rejection {
    /// A rejection with its code and sentence.
    pub fn new(code: RejectionCode, sentence: impl Into<String>) -> Self {
        Rejection {
            code,
            sentence: sentence.into(),
        }
    }

    /// Reads a stored reason: `code: sentence`, or a sentence stored before the codes
    /// existed, whose code its form tells.
    pub fn read(stored: &str) -> Rejection {
        if let Some((code, sentence)) = stored.split_once(": ")
            && let Some(code) = RejectionCode::parse(code)
            && code != RejectionCode::Unclassified
        {
            return Rejection::new(code, sentence);
        }
        Rejection::new(code_of_sentence(stored), stored)
    }
}

/// The stored form: the code, then the sentence.
impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.sentence)
    }
}

/// The code of a sentence stored without one, by the shapes earlier versions wrote:
///
/// - ``field `NAME` …`` (a malformed event);
/// - `no job "ID" has been accepted`;
/// - `job "ID" was already accepted at TIME; a repeated submission keeps its first identity`;
/// - `job "ID" has no attempt N (latest is M)`;
/// - `attempt N of job "ID" was already started (latest is M)`;
/// - `attempt N of job "ID" already timed out at TIME`.
///
/// `conflicting_submission` and `oversized` were always written with their code first.
/// A job id is quoted with its escapes, so text inside it never passes for the words
/// around it.
fn code_of_sentence(sentence: &str) -> RejectionCode {
    use RejectionCode as C;
    if sentence.starts_with("field `") {
        return C::Malformed;
    }
    if let Some(rest) = sentence.strip_prefix("no job ")
        && after_quoted(rest) == Some(" has been accepted")
    {
        return C::NoAcceptedJob;
    }
    if let Some(rest) = sentence.strip_prefix("job ")
        && let Some(rest) = after_quoted(rest)
    {
        if rest.starts_with(" was already accepted at ")
            && rest.ends_with("; a repeated submission keeps its first identity")
        {
            return C::RepeatedSubmission;
        }
        if rest.starts_with(" has no attempt ") {
            return C::UnknownAttempt;
        }
    }
    if let Some(rest) = sentence.strip_prefix("attempt ")
        && let Some((number, rest)) = rest.split_once(" of job ")
        && number.bytes().all(|b| b.is_ascii_digit())
        && let Some(rest) = after_quoted(rest)
    {
        if rest.starts_with(" was already started ") {
            return C::AttemptAlreadyStarted;
        }
        if rest.starts_with(" already timed out at ") {
            return C::AttemptAlreadyTimedOut;
        }
    }
    C::Unclassified
}

/// What follows a string quoted as Rust's `{:?}` writes it (`"…"` with `\"` and `\\`
/// escaped) at the start of `text`; `None` when `text` does not start with one.
fn after_quoted(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('"')?;
    let mut escaped = false;
    for (i, c) in inner.char_indices() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => return Some(&inner[i + 1..]),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_code_is_read_back_beside_its_sentence() {
        let kept = Rejection::new(
            RejectionCode::NoAcceptedJob,
            r#"no job "b-1" has been accepted"#,
        );
        assert_eq!(
            kept.to_string(),
            r#"no_accepted_job: no job "b-1" has been accepted"#
        );
        assert_eq!(Rejection::read(&kept.to_string()), kept);
    }

    /// Every form a reason was stored in before the codes, with the code it reads as.
    #[test]
    fn sentences_stored_before_the_codes_read_as_their_code() {
        use RejectionCode as C;
        let cases = [
            ("field `at` is missing", C::Malformed),
            (
                "field `attempt` must be a number, not a string",
                C::Malformed,
            ),
            (
                r#"field `created_by` must be "system" or "staff:NAME", not "x""#,
                C::Malformed,
            ),
            (
                r#"no job "booking-0000" has been accepted"#,
                C::NoAcceptedJob,
            ),
            (
                r#"job "b-1" was already accepted at 2026-11-27T13:00:00.000Z; a repeated submission keeps its first identity"#,
                C::RepeatedSubmission,
            ),
            (
                r#"job "b-1" has no attempt 3 (latest is 2)"#,
                C::UnknownAttempt,
            ),
            (
                r#"attempt 2 of job "b-1" was already started (latest is 2)"#,
                C::AttemptAlreadyStarted,
            ),
            (
                r#"attempt 1 of job "b-1" already timed out at 2026-11-27T13:12:01.000Z"#,
                C::AttemptAlreadyTimedOut,
            ),
            (
                r#"conflicting_submission: job "b-1" was submitted again with another identity (input_digest "a" first, "b" now); the first identity stands"#,
                C::ConflictingSubmission,
            ),
            (
                "oversized: the line is 20000000 bytes, over the limit",
                C::Oversized,
            ),
            ("something no version wrote", C::Unclassified),
            ("unclassified: not a code a version writes", C::Unclassified),
        ];
        for (stored, code) in cases {
            assert_eq!(Rejection::read(stored).code, code, "{stored}");
        }
        // The sentence is what follows the code, or all of an old reason.
        assert_eq!(
            Rejection::read("oversized: the line is 20000000 bytes").sentence,
            "the line is 20000000 bytes"
        );
        assert_eq!(
            Rejection::read(r#"no job "b" has been accepted"#).sentence,
            r#"no job "b" has been accepted"#
        );
    }

    #[test]
    fn words_inside_a_job_id_never_pass_for_the_sentence_around_it() {
        let id = r#"x" has been accepted"#;
        let stored = format!("no job {id:?} has no attempt");
        assert_eq!(Rejection::read(&stored).code, RejectionCode::Unclassified);
        let stored = format!("no job {id:?} has been accepted");
        assert_eq!(Rejection::read(&stored).code, RejectionCode::NoAcceptedJob);
    }
}
