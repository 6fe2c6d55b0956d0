//! Many answers at once, bound to the rows seen: a plan says which of the selected
//! callbacks take the verdict and why the others are left out; the write checks each
//! row again inside its one transaction and records every answer exactly as
//! [`super::answer`] would, alone. Alone, an answer over one the reviewer has not
//! seen is refused; so a plan is marked with the newest answer when it was read, and
//! the write leaves out, and names, every row another reviewer answered after it.

use std::fmt;

use super::{AnswerError, AnswerRequest, CaseKind, Verdict, answer_row};
use crate::clock::Timestamp;
use crate::decision::Disposition;
use crate::store::{AnswerRow, CallbackFilter, CallbackRow, ClaimRow, Ledger, StoreError};

/// Why a selected callback is left out of a bulk answer.
#[derive(Debug, Clone, PartialEq)]
pub enum LeftOutWhy {
    /// Applied or recorded: it asks no question.
    NotAQuestion(Disposition),
    /// The verdict is outside the closed set of its kind of question.
    VerdictNotTaken(CaseKind),
    /// A standing answer closes it already.
    Closed(Box<AnswerRow>),
    /// Another reviewer answered it after the plan was read (`planned`), or with no
    /// plan read at all: the reviewer has not seen that answer, and alone an answer
    /// over it would be refused. It stands.
    AnsweredMeanwhile {
        answer: Box<AnswerRow>,
        planned: bool,
    },
    /// `linked` names one job per callback, so it is given one callback at a time.
    NeedsOwnJob,
    /// No callback has this number (a mark on a row that is not in this ledger).
    Missing,
    /// Another reviewer is on it: their claim stands.
    ClaimedByOther(Box<ClaimRow>),
}

impl fmt::Display for LeftOutWhy {
    /// The reason in plain words, times with their year (as the command line prints
    /// them); it may quote a reviewer's name: show it inert.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.said(Timestamp::short))
    }
}

impl LeftOutWhy {
    /// The reason in plain words, each time written by `time` (the console reads them
    /// at its clock); it may quote a reviewer's name: show it inert.
    pub fn said(&self, time: impl Fn(Timestamp) -> String) -> String {
        match self {
            LeftOutWhy::NotAQuestion(d) => format!("given `{d}`, it asks no question"),
            LeftOutWhy::VerdictNotTaken(kind) => {
                let allowed: Vec<&str> = kind.verdicts().iter().map(|v| v.as_str()).collect();
                format!("a {kind} callback takes {}", allowed.join(", "))
            }
            LeftOutWhy::Closed(a) => format!(
                "closed by answer {}: {} by {} at {}",
                a.id,
                a.verdict,
                a.reviewer,
                time(a.answered_at)
            ),
            LeftOutWhy::AnsweredMeanwhile { answer: a, planned } => {
                let note = if a.note.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", crate::inert::inert(&a.note))
                };
                let (meanwhile, unseen) = if *planned {
                    ("meanwhile ", "given after the plan")
                } else {
                    ("", "no plan showed it: read one with --dry-run")
                };
                format!(
                    "answered {meanwhile}by {} at {}: {}{note}; it stands (answer {}, {unseen})",
                    a.reviewer,
                    time(a.answered_at),
                    a.verdict,
                    a.id
                )
            }
            LeftOutWhy::NeedsOwnJob => {
                "`linked` names the job of each callback: answer it alone".to_owned()
            }
            LeftOutWhy::Missing => "no such callback".to_owned(),
            LeftOutWhy::ClaimedByOther(c) => format!(
                "claimed by {} since {} (until {}): theirs to answer",
                c.reviewer,
                time(c.since),
                time(c.until)
            ),
        }
    }

    /// The reason without what differs from row to row (who closed it, when): rows
    /// left out for the same reason are shown together under it.
    pub fn summary(&self) -> String {
        match self {
            LeftOutWhy::Closed(_) => "closed already by a standing answer".to_owned(),
            LeftOutWhy::AnsweredMeanwhile { planned: true, .. } => {
                "answered meanwhile by another reviewer".to_owned()
            }
            LeftOutWhy::AnsweredMeanwhile { planned: false, .. } => {
                "answered by another reviewer, in no plan read".to_owned()
            }
            LeftOutWhy::ClaimedByOther(c) => format!("claimed by {}", c.reviewer),
            other => other.to_string(),
        }
    }

    /// Is the reason an answer given since the plan was read (`as_of`), which the
    /// reviewer learns of only now? With no plan read, another reviewer's answer is.
    pub fn is_news(&self, as_of: Option<i64>) -> bool {
        match self {
            LeftOutWhy::AnsweredMeanwhile { .. } => true,
            LeftOutWhy::Closed(answer) => as_of.is_some_and(|mark| answer.id > mark),
            _ => false,
        }
    }

    /// The standing answer the reason quotes, if it quotes one.
    pub fn answer(&self) -> Option<&AnswerRow> {
        match self {
            LeftOutWhy::Closed(answer) | LeftOutWhy::AnsweredMeanwhile { answer, .. } => {
                Some(answer)
            }
            _ => None,
        }
    }
}

/// What the reviewer was shown before a bulk answer: which standing answers they saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown<'a> {
    /// The newest answer when the plan was read (`None`: no plan was read).
    pub as_of: Option<i64>,
    /// Who answers: their own answers are never news to them.
    pub reviewer: &'a str,
}

impl Shown<'_> {
    /// Has the reviewer not seen `answer`? Another reviewer's answer given after the
    /// plan was read, or any other reviewer's when no plan was read.
    pub fn missed(&self, answer: &AnswerRow) -> bool {
        answer.reviewer != self.reviewer && self.as_of.is_none_or(|mark| answer.id > mark)
    }
}

/// A selected callback the bulk answer leaves out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    pub seq: i64,
    pub job_id: Option<String>,
    pub why: LeftOutWhy,
}

/// What a bulk answer would write: the callbacks it answers, in ingest order, and
/// those it leaves out.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub verdict: Verdict,
    /// The newest answer when the plan was read (on a write: the mark it was given;
    /// `None`, none given): a later answer by another reviewer was not seen.
    pub as_of: Option<i64>,
    /// The callbacks answered, as read when the plan was made.
    pub answered: Vec<CallbackRow>,
    pub left_out: Vec<LeftOut>,
}

impl Plan {
    /// How many callbacks were selected.
    pub fn selected(&self) -> usize {
        self.answered.len() + self.left_out.len()
    }

    /// The rows left out, grouped by [`LeftOutWhy::summary`] in the order first met.
    pub fn left_out_by_reason(&self) -> Vec<(String, Vec<i64>)> {
        let mut groups: Vec<(String, Vec<i64>)> = Vec::new();
        for left in &self.left_out {
            let why = left.why.summary();
            match groups.iter_mut().find(|(summary, _)| *summary == why) {
                Some((_, seqs)) => seqs.push(left.seq),
                None => groups.push((why, vec![left.seq])),
            }
        }
        groups
    }

    /// The rows left out for an answer given since the plan was read: what changed.
    pub fn changed(&self) -> impl Iterator<Item = &LeftOut> {
        self.left_out
            .iter()
            .filter(|left| left.why.is_news(self.as_of))
    }
}

/// Why `row` takes no `verdict` now from the reviewer `shown` the plan, or `None`
/// when it does: the one rule the plan and the write share.
pub fn left_out_why(row: &CallbackRow, verdict: Verdict, shown: Shown<'_>) -> Option<LeftOutWhy> {
    let Some(kind) = CaseKind::of(row.disposition, row.reason) else {
        return Some(LeftOutWhy::NotAQuestion(row.disposition));
    };
    if !kind.verdicts().contains(&verdict) {
        return Some(LeftOutWhy::VerdictNotTaken(kind));
    }
    if verdict.needs_job() {
        return Some(LeftOutWhy::NeedsOwnJob);
    }
    match &row.answer {
        Some(standing) if shown.missed(standing) => Some(LeftOutWhy::AnsweredMeanwhile {
            answer: Box::new(standing.clone()),
            planned: shown.as_of.is_some(),
        }),
        Some(standing) if standing.verdict.closes() => {
            Some(LeftOutWhy::Closed(Box::new(standing.clone())))
        }
        _ => crate::review::claims::claimed_by_other(row, shown.reviewer)
            .map(|c| LeftOutWhy::ClaimedByOther(Box::new(c.clone()))),
    }
}

/// The plan for answering the selected callbacks `verdict`, by the reviewer `shown`
/// what they saw: each given by its number and the row read for it (`None`: there
/// is no such callback).
pub fn plan(
    verdict: Verdict,
    selected: impl IntoIterator<Item = (i64, Option<CallbackRow>)>,
    shown: Shown<'_>,
) -> Plan {
    let mut plan = Plan {
        verdict,
        as_of: shown.as_of,
        answered: Vec::new(),
        left_out: Vec::new(),
    };
    for (seq, row) in selected {
        let Some(row) = row else {
            plan.left_out.push(LeftOut {
                seq,
                job_id: None,
                why: LeftOutWhy::Missing,
            });
            continue;
        };
        match left_out_why(&row, verdict, shown) {
            None => plan.answered.push(row),
            Some(why) => plan.left_out.push(LeftOut {
                seq,
                job_id: row.job_id,
                why,
            }),
        }
    }
    plan
}

/// Which callbacks a bulk answer is given.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'a> {
    /// These callbacks (the rows marked in the console).
    Seqs(&'a [i64]),
    /// Every callback the filter keeps when the answers are written, judged by the
    /// answers as they stood at the plan's mark: a row answered since is named.
    Filter(&'a CallbackFilter),
}

/// A bulk answer, as given.
#[derive(Debug, Clone, Copy)]
pub struct BulkRequest<'a> {
    pub selection: Selection<'a>,
    pub verdict: Verdict,
    pub note: &'a str,
    pub reviewer: &'a str,
    /// Write only if exactly this many callbacks take the verdict when written.
    pub expect: Option<usize>,
    /// The plan's mark ([`Plan::as_of`]): a row another reviewer answered after it is
    /// left out and named. `None` (no plan read): every row another reviewer answered.
    pub as_of: Option<i64>,
}

/// What a bulk answer wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkWritten {
    /// The plan as it stood inside the transaction.
    pub plan: Plan,
    /// The answer written on each callback of `plan.answered`, in the same order.
    pub answer_ids: Vec<i64>,
}

/// Why a bulk answer wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum BulkError {
    #[error("{}", not_as_expected(*.expected, .plan))]
    NotAsExpected { expected: usize, plan: Box<Plan> },
    #[error(transparent)]
    Answer(#[from] AnswerError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Rows named in a refused count before "and N more".
const CHANGED_NAMED: usize = 10;

/// Why a count was refused: the counts, then the rows whose answers changed since the
/// plan, each with who answered and when.
fn not_as_expected(expected: usize, plan: &Plan) -> String {
    use std::fmt::Write as _;
    let mut said = format!(
        "expected {expected} callbacks to take `{}`, but {} of the {} selected take it now; nothing was written",
        plan.verdict,
        plan.answered.len(),
        plan.selected()
    );
    let changed: Vec<&LeftOut> = plan.changed().collect();
    if changed.is_empty() {
        said.push_str(". ");
    } else {
        said.push_str(". Since the plan:");
        for left in changed.iter().take(CHANGED_NAMED) {
            let job = left.job_id.as_deref().unwrap_or("-");
            let _ = write!(said, "\n  #{} {job}: {}", left.seq, left.why);
        }
        if changed.len() > CHANGED_NAMED {
            let _ = write!(said, "\n  … and {} more", changed.len() - CHANGED_NAMED);
        }
        said.push('\n');
    }
    said.push_str("Read the plan again and write with the count it gives.");
    said
}

/// Reads the plan for `selection` as the ledger holds it now, marked with the newest
/// answer (both read in one snapshot, so the mark covers exactly the answers the plan
/// shows); writes nothing (the console's plan screen, the command line's `--dry-run`).
pub fn read_plan(
    ledger: &Ledger,
    selection: Selection<'_>,
    verdict: Verdict,
    reviewer: &str,
    now: Timestamp,
) -> Result<Plan, StoreError> {
    ledger.in_one_snapshot(|ledger| {
        let as_of = ledger.newest_answer_id()?;
        let seqs = match selection {
            Selection::Seqs(seqs) => distinct(seqs),
            Selection::Filter(filter) => ledger.callback_seqs(filter)?,
        };
        let mut rows = ledger.callbacks_numbered(&seqs)?;
        super::claims::attach(ledger, &mut rows, now)?;
        let shown = Shown {
            as_of: Some(as_of),
            reviewer,
        };
        Ok(plan(verdict, numbered(seqs, rows), shown))
    })
}

/// Writes the answers of a bulk answer in one transaction: the selection and every
/// row are read again inside it, so a row another reviewer answered after the plan's
/// mark (or, with no mark, at all) is left out and named, a row closed meanwhile is
/// left out, and `expect` is checked against what is really written.
pub fn answer_bulk(
    ledger: &mut Ledger,
    request: &BulkRequest<'_>,
    now: Timestamp,
) -> Result<BulkWritten, BulkError> {
    let mut writer = ledger.writer()?;
    let seqs = match request.selection {
        Selection::Seqs(seqs) => distinct(seqs),
        // A filter on answers (open questions, `-answered:yes`) reads them as they were
        // at the mark: a row answered since then stays selected, so it is named.
        Selection::Filter(filter) => writer.callback_seqs(&CallbackFilter {
            answers_as_of: request.as_of,
            ..filter.clone()
        })?,
    };
    let mut rows = writer.callbacks_numbered(&seqs)?;
    super::claims::attach_in(&writer, &mut rows, now)?;
    let shown = Shown {
        as_of: request.as_of,
        reviewer: request.reviewer,
    };
    let plan = plan(request.verdict, numbered(seqs, rows), shown);
    if let Some(expected) = request.expect
        && expected != plan.answered.len()
    {
        // The writer is dropped unused: the transaction rolls back, nothing written.
        return Err(BulkError::NotAsExpected {
            expected,
            plan: Box::new(plan),
        });
    }
    let mut answer_ids = Vec::with_capacity(plan.answered.len());
    for row in &plan.answered {
        let written = answer_row(
            &mut writer,
            row,
            &AnswerRequest {
                seq: row.seq,
                verdict: request.verdict.as_str(),
                note: request.note,
                reviewer: request.reviewer,
                link_job: None,
                // The plan answers a row only over a standing answer the reviewer
                // saw (or gave): the one [`Shown`] says they were shown.
                seen_answer: row.answer.as_ref().map(|a| a.id),
            },
            now,
        )?;
        answer_ids.push(written.answer_id);
    }
    writer.commit()?;
    Ok(BulkWritten { plan, answer_ids })
}

/// Each number with its row (`None`: no callback has it); both in ingest order.
fn numbered(seqs: Vec<i64>, rows: Vec<CallbackRow>) -> Vec<(i64, Option<CallbackRow>)> {
    let mut rows = rows.into_iter().peekable();
    seqs.into_iter()
        .map(|seq| (seq, rows.next_if(|row| row.seq == seq)))
        .collect()
}

/// The numbers in ingest order, each once (a selection may name a row twice).
fn distinct(seqs: &[i64]) -> Vec<i64> {
    let mut seqs = seqs.to_vec();
    seqs.sort_unstable();
    seqs.dedup();
    seqs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::ReasonCode;

    fn row(seq: i64, disposition: Disposition, reason: ReasonCode) -> CallbackRow {
        CallbackRow {
            seq,
            line_seq: seq,
            delivery_id: None,
            job_id: Some(format!("job-{seq}")),
            attempt: Some(1),
            outcome: None,
            arrived_at: None,
            timeout_at: None,
            disposition,
            reason,
            detail: None,
            first_report_seq: None,
            linked_from_seq: None,
            judged_at: Timestamp::from_millis(0).unwrap_or_else(|| unreachable!()),
            replacement: None,
            answer: None,
            claim: None,
        }
    }

    fn answered(row: CallbackRow, verdict: Verdict) -> CallbackRow {
        answered_by(row, verdict, 7, "lee")
    }

    fn answered_by(mut row: CallbackRow, verdict: Verdict, id: i64, by: &str) -> CallbackRow {
        row.answer = Some(AnswerRow {
            answered_at: row.judged_at,
            callback_seq: row.seq,
            id,
            linked_job_id: None,
            note: String::new(),
            reviewer: by.to_owned(),
            verdict,
            written_by: None,
        });
        row
    }

    /// A plan read by ana when answer 7 was the newest.
    const SHOWN: Shown<'static> = Shown {
        as_of: Some(7),
        reviewer: "ana",
    };

    #[test]
    fn the_plan_leaves_out_rows_outside_the_closed_set_closed_or_missing() {
        use Disposition::{Apply, Hold, Quarantine};
        use ReasonCode::PossibleDuplicateEffect as Dup;
        let rows = vec![
            (1, Some(row(1, Hold, Dup))),
            (2, Some(row(2, Apply, ReasonCode::OnTimeSuccess))),
            (3, Some(row(3, Quarantine, ReasonCode::NoMatchingJob))),
            (4, Some(answered(row(4, Hold, Dup), Verdict::SingleEffect))),
            (
                5,
                Some(answered(row(5, Hold, Dup), Verdict::NeedsRemoteCheck)),
            ),
            (6, None),
        ];
        let plan = plan(Verdict::SingleEffect, rows, SHOWN);
        let answered: Vec<i64> = plan.answered.iter().map(|r| r.seq).collect();
        assert_eq!(
            answered,
            [1, 5],
            "needs_remote_check leaves a question open"
        );
        let why: Vec<(i64, &LeftOutWhy)> = plan.left_out.iter().map(|l| (l.seq, &l.why)).collect();
        assert!(matches!(why[0], (2, LeftOutWhy::NotAQuestion(Apply))));
        assert!(matches!(
            why[1],
            (3, LeftOutWhy::VerdictNotTaken(CaseKind::Quarantined))
        ));
        assert!(matches!(why[2], (4, LeftOutWhy::Closed(_))));
        assert!(matches!(why[3], (6, LeftOutWhy::Missing)));
        assert_eq!(plan.selected(), 6);
        let groups = plan.left_out_by_reason();
        assert_eq!(groups.len(), 4);
        assert_eq!(
            groups[2],
            ("closed already by a standing answer".to_owned(), vec![4])
        );
    }

    #[test]
    fn another_reviewers_answer_after_the_mark_or_with_no_mark_leaves_the_row_out() {
        use Verdict::{NeedsRemoteCheck, SingleEffect};
        let held = || row(1, Disposition::Hold, ReasonCode::PossibleDuplicateEffect);
        let why = |row: &CallbackRow, shown| left_out_why(row, SingleEffect, shown);
        let lees_after = answered_by(held(), NeedsRemoteCheck, 8, "lee");
        assert!(matches!(
            why(&lees_after, SHOWN),
            Some(LeftOutWhy::AnsweredMeanwhile { planned: true, ref answer }) if answer.id == 8
        ));
        let lees_before = answered_by(held(), NeedsRemoteCheck, 7, "lee");
        assert_eq!(why(&lees_before, SHOWN), None, "in the plan: seen");
        let anas_after = answered_by(held(), NeedsRemoteCheck, 8, "ana");
        assert_eq!(why(&anas_after, SHOWN), None, "her own answer is no news");
        let closed_after = answered_by(held(), SingleEffect, 8, "lee");
        assert!(matches!(
            why(&closed_after, SHOWN),
            Some(LeftOutWhy::AnsweredMeanwhile { .. })
        ));
        let unplanned = Shown {
            as_of: None,
            ..SHOWN
        };
        assert!(matches!(
            why(&lees_before, unplanned),
            Some(LeftOutWhy::AnsweredMeanwhile { planned: false, .. })
        ));
        assert_eq!(why(&anas_after, unplanned), None);
        assert_eq!(why(&held(), unplanned), None, "no answer, nothing unseen");
    }

    #[test]
    fn linked_is_never_given_in_bulk() {
        let quarantined = row(1, Disposition::Quarantine, ReasonCode::NoMatchingJob);
        assert_eq!(
            left_out_why(&quarantined, Verdict::Linked, SHOWN),
            Some(LeftOutWhy::NeedsOwnJob)
        );
    }
}
