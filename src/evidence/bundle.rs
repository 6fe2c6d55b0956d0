//! An evidence bundle: everything the ledger holds on one case (a callback) or one job,
//! gathered into one document a person attaches to an incident ticket. The case's raw
//! message and those of the job's other callbacks, the comparison of each held one
//! ([`super::compare`]), the job and its attempts, the timeline, every answer with its
//! reviewer, time and note, the owner and its history, and the requests made.
//!
//! [`Bundle`] is read from the ledger at once and is plain data; [`markdown`] writes it
//! for people, and its `Serialize` (in [`json`]) for scripts. Both are the same from a
//! file and from a server holding the same rows, and name no ledger: a bundle says
//! what is known of a case, not where a copy of it was kept.

pub mod file;
mod json;
pub mod markdown;

use crate::clock::{TimeForm, Timestamp};
use crate::closed_set::closed_set;
use crate::decision::DecisionVerdict;
use crate::store::{
    AnswerRow, AttemptRow, CallbackRow, JobRow, Ledger, OutboxRow, OutputFacts, OwnerRow,
    StoreError, TimelineEntry, TimelineFact,
};

use super::compare::{self, Comparison, NEIGHBOURS, RAW_SHOWN_BYTES};

/// Times inside a bundle's sentences always carry their year: it may be read long
/// after it was written.
const TIMES: TimeForm = TimeForm::Dated;

closed_set! {
    /// How a bundle is written: Markdown for people, JSON for scripts.
    pub enum BundleFormat("bundle format") {
        Md,
        Json,
    }
}

/// What a bundle is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// One callback, by sequence number: the case.
    Callback(i64),
    /// One job, by id, with all its callbacks.
    Job(String),
}

/// Why no bundle was made.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("there is no callback #{0} in the ledger (see `jobledger callbacks`)")]
    NoSuchCallback(i64),
    #[error("no job {:?} is in the ledger (see `jobledger reconcile`)", crate::inert::inert(.0))]
    NoSuchJob(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A raw input line as the ledger keeps it: its first bytes, and its whole length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLine {
    /// The line's sequence number in the ledger.
    pub line_seq: i64,
    /// Its first [`RAW_SHOWN_BYTES`] at most.
    pub bytes: Vec<u8>,
    /// The whole line's length in bytes (of the line that came, even when the ledger
    /// kept only its first bytes).
    pub len: i64,
}

impl RawLine {
    /// Only the first bytes of the line are here.
    pub fn cut(&self) -> bool {
        usize::try_from(self.len).is_ok_and(|len| len > self.bytes.len())
    }

    /// The bytes as text: exact when they are UTF-8 (a character cut in two by the
    /// limit is left out), and `false` beside it when they are not, each byte outside
    /// UTF-8 then written `\xNN` ([`crate::inert::inert_bytes`]; every other control
    /// character is left for the writer to make inert).
    pub fn text(&self) -> (String, bool) {
        match std::str::from_utf8(&self.bytes) {
            Ok(text) => (text.to_owned(), true),
            // Incomplete at the very end of a cut line: the limit split a character.
            Err(e) if self.cut() && e.error_len().is_none() => (
                String::from_utf8_lossy(&self.bytes[..e.valid_up_to()]).into_owned(),
                true,
            ),
            Err(_) => (crate::inert::inert_bytes(&self.bytes), false),
        }
    }
}

/// A callback of the bundle with its raw message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub row: CallbackRow,
    /// `None`: the line is not in the ledger (it always is, unless damaged).
    pub raw: Option<RawLine>,
}

/// Everything a bundle shows, read from the ledger at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub subject: Subject,
    /// When it was made (the clock of the command or the console).
    pub exported_at: Timestamp,
    /// The job the callbacks name (for a callback naming no job, `None`).
    pub job_id: Option<String>,
    /// The job, when the ledger has it.
    pub job: Option<JobRow>,
    pub attempts: Vec<AttemptRow>,
    pub output: OutputFacts,
    /// The case first (a callback's bundle), then the job's other callbacks in ingest
    /// order: at most [`NEIGHBOURS`] of them.
    pub messages: Vec<Message>,
    /// The job has more callbacks than the bundle shows.
    pub more_messages: bool,
    /// The comparison of each held callback among the messages, in their order.
    pub comparisons: Vec<Comparison>,
    pub timeline: Vec<TimelineEntry>,
    /// Every answer on the bundle's callbacks, oldest first.
    pub answers: Vec<AnswerRow>,
    /// The owner that stands (its history is in the timeline).
    pub owner: Option<OwnerRow>,
    /// Every request made for the job, withdrawn ones too, oldest first.
    pub requests: Vec<OutboxRow>,
}

/// An owner assignment, or its clearing, from the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnerChange<'a> {
    pub at: Timestamp,
    /// `None`: the owner was cleared.
    pub owner: Option<&'a str>,
    pub escalate_at: Option<Timestamp>,
    pub set_by: &'a str,
    pub written_by: Option<&'a str>,
}

/// An answer on the job's divergent decisions, from the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionAnswer<'a> {
    pub at: Timestamp,
    pub verdict: DecisionVerdict,
    pub reviewer: &'a str,
    pub note: &'a str,
    pub written_by: Option<&'a str>,
}

impl Bundle {
    /// Reads the bundle of `subject` at `now`, in one snapshot of the ledger: an
    /// answer or a callback written meanwhile is in all of it or in none.
    pub fn read(ledger: &Ledger, subject: &Subject, now: Timestamp) -> Result<Bundle, BundleError> {
        ledger.in_one_snapshot(|ledger| Ok(gather(ledger, subject, now)))?
    }

    /// The case a callback's bundle is about.
    pub fn case(&self) -> Option<&Message> {
        match self.subject {
            Subject::Callback(_) => self.messages.first(),
            Subject::Job(_) => None,
        }
    }

    /// Each owner assignment and clearing, oldest first.
    pub fn owner_history(&self) -> Vec<OwnerChange<'_>> {
        self.timeline
            .iter()
            .filter_map(|entry| match &entry.fact {
                TimelineFact::OwnerSet {
                    owner,
                    set_by,
                    escalate_at,
                    written_by,
                } => Some(OwnerChange {
                    at: entry.at,
                    owner: owner.as_deref(),
                    escalate_at: *escalate_at,
                    set_by,
                    written_by: written_by.as_deref(),
                }),
                _ => None,
            })
            .collect()
    }

    /// Each answer on the job's divergent decisions, oldest first.
    pub fn decision_answers(&self) -> Vec<DecisionAnswer<'_>> {
        self.timeline
            .iter()
            .filter_map(|entry| match &entry.fact {
                TimelineFact::DecisionAnswer {
                    verdict,
                    reviewer,
                    note,
                    written_by,
                } => Some(DecisionAnswer {
                    at: entry.at,
                    verdict: *verdict,
                    reviewer,
                    note,
                    written_by: written_by.as_deref(),
                }),
                _ => None,
            })
            .collect()
    }
}

/// Reads everything the bundle of `subject` shows.
fn gather(ledger: &Ledger, subject: &Subject, now: Timestamp) -> Result<Bundle, BundleError> {
    let (case, job_id) = match subject {
        Subject::Callback(seq) => {
            let row = ledger
                .callback(*seq)?
                .ok_or(BundleError::NoSuchCallback(*seq))?;
            let job_id = row.job_id.clone();
            (Some(row), job_id)
        }
        Subject::Job(job_id) => {
            if ledger.job(job_id)?.is_none() {
                return Err(BundleError::NoSuchJob(job_id.clone()));
            }
            (None, Some(job_id.clone()))
        }
    };
    let case_seq = case.as_ref().map(|c| c.seq);
    // One more than shown: whether the job has more is known without a count.
    let mut of_job = match &job_id {
        Some(job_id) => ledger.callbacks_of_job(job_id, NEIGHBOURS + 1)?,
        None => Vec::new(),
    };
    of_job.retain(|c| Some(c.seq) != case_seq);
    let room = NEIGHBOURS - usize::from(case.is_some());
    let more_messages = of_job.len() > room;
    of_job.truncate(room);
    let rows: Vec<CallbackRow> = case.into_iter().chain(of_job).collect();

    let mut messages = Vec::with_capacity(rows.len());
    let mut answers = Vec::new();
    for row in rows {
        answers.extend(ledger.answers(row.seq)?);
        let raw = ledger
            .raw_head(row.line_seq, RAW_SHOWN_BYTES)?
            .map(|(bytes, len)| RawLine {
                line_seq: row.line_seq,
                bytes,
                len,
            });
        messages.push(Message { row, raw });
    }
    answers.sort_by_key(|a| a.id);
    let comparisons = messages
        .iter()
        .filter(|m| m.row.disposition == crate::decision::Disposition::Hold)
        .map(|m| compare::read(ledger, m.row.clone()))
        .collect::<Result<Vec<_>, _>>()?;

    let job = match &job_id {
        Some(job_id) => ledger.job(job_id)?,
        None => None,
    };
    let (attempts, output, timeline, owner, requests) = match &job {
        Some(job) => (
            ledger.attempts(&job.job_id)?,
            ledger.output_facts(&job.job_id)?,
            ledger.timeline(&job.job_id)?,
            ledger.owner(&job.job_id)?,
            ledger.requests_of_job(&job.job_id)?,
        ),
        None => Default::default(),
    };
    Ok(Bundle {
        subject: subject.clone(),
        exported_at: now,
        job_id,
        job,
        attempts,
        output,
        messages,
        more_messages,
        comparisons,
        timeline,
        answers,
        owner,
        requests,
    })
}

#[cfg(test)]
mod tests {
    use super::RawLine;

    fn raw(bytes: &[u8], len: usize) -> RawLine {
        RawLine {
            line_seq: 1,
            bytes: bytes.to_vec(),
            len: i64::try_from(len).unwrap(),
        }
    }

    #[test]
    fn a_character_cut_by_the_limit_is_left_out_and_the_rest_stays_text() {
        // "é" is two bytes; the limit kept its first one.
        let line = raw(b"{\"note\":\"caf\xc3", 40);
        assert!(line.cut());
        assert_eq!(line.text(), ("{\"note\":\"caf".to_owned(), true));
    }

    #[test]
    fn bytes_outside_utf8_are_written_as_hex_and_said_so() {
        let line = raw(b"ok\xff\x1b[2J", 7);
        assert!(!line.cut());
        assert_eq!(line.text(), ("ok\\xff^[[2J".to_owned(), false));
    }
}
