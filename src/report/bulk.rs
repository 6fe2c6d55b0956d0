//! What a bulk `answer` planned (`--dry-run`) or wrote: how many, the first rows, and
//! the rows left out with the reason for each (first those answered since the plan);
//! a dry run adds the command that writes exactly its plan.

use std::fmt::Write as _;

use serde::Serialize;

use crate::inert::inert;
use crate::review::bulk::Plan;
use crate::store::AnswerRow;

/// Rows listed in the text before "and N more".
const LISTED: usize = 10;

/// A bulk answer as a report: its plan, and the answers written (none on a dry run).
#[derive(Debug, Serialize)]
pub struct BulkReport<'a> {
    pub dry_run: bool,
    pub verdict: &'a str,
    pub reviewer: &'a str,
    /// Open callbacks the selection kept.
    pub selected: usize,
    /// Callbacks answered (or, on a dry run, that would be).
    pub answered: usize,
    /// The plan's mark: the newest answer when it was read (on a write, the mark
    /// given; `null`, none).
    pub as_of: Option<i64>,
    /// On a dry run: the command that writes this plan, with its mark and its count.
    pub write_command: Option<String>,
    pub rows: Vec<BulkRow<'a>>,
    pub left_out: Vec<LeftOutRow<'a>>,
}

/// One callback answered (or to be answered).
#[derive(Debug, Serialize)]
pub struct BulkRow<'a> {
    pub seq: i64,
    pub job_id: Option<&'a str>,
    pub reason: &'static str,
    /// The answer written (`None` on a dry run).
    pub answer_id: Option<i64>,
    /// The standing answer this one is (or would be) given over.
    pub over_answer: Option<&'a AnswerRow>,
}

/// One callback left out, and why.
#[derive(Debug, Serialize)]
pub struct LeftOutRow<'a> {
    pub seq: i64,
    pub job_id: Option<&'a str>,
    pub why: String,
    /// The standing answer the reason quotes (who answered, when, what).
    pub answer: Option<&'a AnswerRow>,
    /// Answered since the plan was read: news to the reviewer.
    pub since_plan: bool,
}

impl<'a> BulkReport<'a> {
    /// The report of `plan`; `answer_ids` are the answers written, in the plan's
    /// order (`None`: a dry run, nothing written, and `write_command` writes it).
    pub fn new(
        plan: &'a Plan,
        reviewer: &'a str,
        answer_ids: Option<&[i64]>,
        write_command: Option<String>,
    ) -> Self {
        let rows = plan
            .answered
            .iter()
            .enumerate()
            .map(|(i, row)| BulkRow {
                seq: row.seq,
                job_id: row.job_id.as_deref(),
                reason: row.reason.as_str(),
                answer_id: answer_ids.and_then(|ids| ids.get(i).copied()),
                over_answer: row.answer.as_ref(),
            })
            .collect();
        let mut left_out: Vec<LeftOutRow> = plan
            .left_out
            .iter()
            .map(|l| LeftOutRow {
                seq: l.seq,
                job_id: l.job_id.as_deref(),
                why: l.why.to_string(),
                answer: l.why.answer(),
                since_plan: l.why.is_news(plan.as_of),
            })
            .collect();
        // What changed since the plan first: it is what the reviewer has not read.
        left_out.sort_by_key(|l| !l.since_plan);
        BulkReport {
            dry_run: answer_ids.is_none(),
            verdict: plan.verdict.as_str(),
            reviewer,
            selected: plan.selected(),
            answered: plan.answered.len(),
            as_of: plan.as_of,
            write_command,
            rows,
            left_out,
        }
    }
}

fn job(id: Option<&str>) -> String {
    id.map_or_else(|| "-".to_owned(), |id| inert(id).into_owned())
}

impl super::Report for BulkReport<'_> {
    fn text(&self) -> String {
        let mut out = String::new();
        let (n, of, verdict) = (self.answered, self.selected, self.verdict);
        let who = inert(self.reviewer);
        if self.dry_run {
            let _ = writeln!(
                out,
                "dry run: {n} of {of} open callbacks would be answered {verdict} by {who}; nothing was written"
            );
        } else {
            let _ = writeln!(
                out,
                "{n} answers written ({verdict} by {who}) on {n} of {of} open callbacks, in one transaction"
            );
        }
        if !self.rows.is_empty() {
            let shown = self.rows.len().min(LISTED);
            let _ = writeln!(out, "first {shown} of {n}:");
            for row in &self.rows[..shown] {
                let answer = row
                    .answer_id
                    .map_or_else(String::new, |id| format!("  answer {id}"));
                let over = row.over_answer.map_or_else(String::new, |a| {
                    format!(
                        "  over {} by {} (answer {})",
                        a.verdict,
                        inert(&a.reviewer),
                        a.id
                    )
                });
                let _ = writeln!(
                    out,
                    "  #{} {} {}{answer}{over}",
                    row.seq,
                    job(row.job_id),
                    row.reason
                );
            }
        }
        if !self.left_out.is_empty() {
            let _ = writeln!(out, "left out {}:", self.left_out.len());
            for row in self.left_out.iter().take(LISTED) {
                let _ = writeln!(
                    out,
                    "  #{} {}: {}",
                    row.seq,
                    job(row.job_id),
                    inert(&row.why)
                );
            }
            if self.left_out.len() > LISTED {
                let _ = writeln!(out, "  … and {} more", self.left_out.len() - LISTED);
            }
        }
        if let Some(command) = &self.write_command {
            let _ = writeln!(out, "to write it: {}", inert(command));
        }
        out
    }
}
