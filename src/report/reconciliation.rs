//! `reconcile`: the accounting of every accepted job.

mod divergence;

use std::fmt::Write as _;

use serde::{Serialize, Serializer};

use super::clip;
use super::csv::{self, shown};
use super::summary::backlog_line;
use super::table::{
    self,
    Align::{Left, Right},
    Column,
};
use crate::clock::{Timestamp, format_gap};
use crate::decision::JobState;
use crate::inert::inert;
use crate::reconcile::{AgedJob, Backlog, Reconciliation, Window};
use crate::store::{ConflictingSubmission, DivergentJob};

/// `reconcile --json`: keys in alphabetical order, as the report has always
/// printed them, with whether it is complete and the alarm worked out.
#[derive(Serialize)]
struct ReconciliationJson<'a> {
    accepted: i64,
    aged: &'a [AgedJob],
    backlog: &'a Backlog,
    backlog_alarm: bool,
    complete: bool,
    conflicting_submissions: &'a [ConflictingSubmission],
    divergent_decisions: &'a [DivergentJob],
    missing_notification: &'a [String],
    missing_output: &'a [String],
    missing_terminal: &'a [String],
    now: Timestamp,
    window_s: i64,
    windows: &'a [Window],
}

impl Serialize for Reconciliation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ReconciliationJson {
            accepted: self.accepted,
            aged: &self.aged,
            backlog: &self.backlog,
            backlog_alarm: self.backlog.raised,
            complete: self.complete(),
            conflicting_submissions: &self.conflicting_submissions,
            divergent_decisions: &self.divergent_decisions,
            missing_notification: &self.missing_notification,
            missing_output: &self.missing_output,
            missing_terminal: &self.missing_terminal,
            now: self.now,
            window_s: self.window_s,
            windows: &self.windows,
        }
        .serialize(serializer)
    }
}

impl super::Report for Reconciliation {
    fn text(&self) -> String {
        let r = self;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Reconciliation at {} of {} accepted jobs",
            r.now.short(),
            r.accepted
        );
        if r.complete() {
            let _ = writeln!(
                out,
                "Every accepted job has a terminal record, and every success its output object."
            );
        } else {
            let _ = writeln!(
                out,
                "NOT COMPLETE: accepted jobs without a terminal record: {}; successes without an output object: {}.",
                r.missing_terminal.len(),
                r.missing_output.len()
            );
        }
        let findings: [(&str, &str, &[String]); 3] = [
            (
                "missing_terminal",
                ": accepted, no terminal record yet",
                &r.missing_terminal,
            ),
            (
                "missing_output",
                ": success on record but the output object does not exist (consistency incident)",
                &r.missing_output,
            ),
            (
                "missing_notification",
                ": terminal but never notified (informational; the job itself is fine)",
                &r.missing_notification,
            ),
        ];
        for (title, note, ids) in findings {
            let _ = writeln!(out, "\n{title} ({}){note}", ids.len());
            for id in ids {
                let _ = writeln!(out, "  {}", inert(id));
            }
        }
        divergence::divergent_decisions(&mut out, &r.divergent_decisions);
        divergence::conflicting_submissions(&mut out, &r.conflicting_submissions);
        let _ = writeln!(
            out,
            "\naged ({}): open past their expected age",
            r.aged.len()
        );
        for a in &r.aged {
            out.push_str(&aged_line(a));
        }
        let _ = writeln!(
            out,
            "\nby submission window ({}):",
            format_gap(r.window_s).trim_start_matches('+')
        );
        let _ = writeln!(out, "{}", table::header(&WINDOW_COLUMNS));
        for w in &r.windows {
            let _ = writeln!(out, "{}", table::row(&WINDOW_COLUMNS, w));
        }
        out.push('\n');
        out.push_str(&backlog_line(&r.backlog));
        out
    }
}

/// The aged jobs as CSV, the keys of `reconcile --json`'s `aged`: what an escalation
/// owner takes to a spreadsheet.
const AGED_CSV: [csv::Column<AgedJob>; 9] = [
    csv::Column::new("job_id", |a| Some(a.job_id.clone())),
    csv::Column::new("state", |a| shown(Some(a.state))),
    csv::Column::new("accepted_at", |a| shown(Some(a.accepted_at))),
    csv::Column::new("age_s", |a| shown(Some(a.age_s))),
    csv::Column::new("expected_age_s", |a| shown(Some(a.expected_age_s))),
    csv::Column::new("owner", |a| a.owner.clone()),
    csv::Column::new("escalate_at", |a| shown(a.escalate_at)),
    csv::Column::new("overdue", |a| shown(Some(a.overdue))),
    csv::Column::new("unowned", |a| shown(Some(a.unowned))),
];

/// `reconcile --format csv`: of the report, the aged jobs, a row each (the other
/// findings are lists of job ids, which the table and the JSON give).
impl super::CsvReport for Reconciliation {
    fn csv(&self) -> String {
        csv::list(&AGED_CSV, &self.aged)
    }
}

/// One aged job: a sentence more than a table row, so it has no header.
fn aged_line(a: &AgedJob) -> String {
    let owner = a
        .owner
        .as_deref()
        .map_or_else(|| "UNOWNED".to_owned(), |o| inert(o).into_owned());
    let escalate = a.escalate_at.map_or_else(
        || "no escalation time".to_owned(),
        |t| format!("escalate {}", t.short()),
    );
    format!(
        "  {:<16} {:<10} age {:>8} (expected {:>7})  {:<12} {}{}\n",
        clip(&inert(&a.job_id), 16),
        a.state.as_str(),
        format_gap(a.age_s).trim_start_matches('+'),
        format_gap(a.expected_age_s).trim_start_matches('+'),
        owner,
        escalate,
        if a.overdue { "  OVERDUE" } else { "" }
    )
}

/// Jobs of a window now in `state`.
fn in_state(w: &Window, state: JobState) -> String {
    w.states
        .get(state.as_str())
        .copied()
        .unwrap_or(0)
        .to_string()
}

/// The windows table: the population, the jobs by the state they are in now, then
/// those decided twice and those submitted again with another identity.
const WINDOW_COLUMNS: [Column<Window>; 12] = [
    Column::new("  ", "window start", 16, Left, |w| {
        w.start.short().get(..16).unwrap_or_default().to_owned()
    }),
    Column::new(" ", "accepted", 8, Right, |w| w.accepted.to_string()),
    Column::new(" ", "waiting", 8, Right, |w| {
        in_state(w, JobState::Accepted)
    }),
    Column::new(" ", "running", 8, Right, |w| in_state(w, JobState::Running)),
    Column::new(" ", "succeeded", 9, Right, |w| {
        in_state(w, JobState::Succeeded)
    }),
    Column::new(" ", "late", 9, Right, |w| {
        in_state(w, JobState::CompletedLate)
    }),
    Column::new(" ", "failed", 8, Right, |w| in_state(w, JobState::Failed)),
    Column::new(" ", "timed_out", 9, Right, |w| {
        in_state(w, JobState::TimedOut)
    }),
    Column::new(" ", "expired", 8, Right, |w| in_state(w, JobState::Expired)),
    Column::new(" ", "cancelled", 9, Right, |w| {
        in_state(w, JobState::Cancelled)
    }),
    Column::new(" ", "divergent", 9, Right, |w| {
        w.divergent_decisions.to_string()
    }),
    Column::new(" ", "conflicting", 11, Right, |w| {
        w.conflicting_submissions.to_string()
    }),
];
