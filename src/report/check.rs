//! `check` and `backup`: what the checks found, and what a backup copied.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use super::Report;
use crate::inert::{inert, inert_path};
use crate::store::CheckFinding;

/// Every check's finding, and whether the ledger passed them all.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub ledger: String,
    pub ok: bool,
    pub checks: Vec<CheckFinding>,
}

impl CheckReport {
    /// The report of `checks` run on the ledger at `ledger`.
    pub fn new(ledger: &std::path::Path, checks: Vec<CheckFinding>) -> CheckReport {
        CheckReport {
            ledger: ledger.display().to_string(),
            ok: checks.iter().all(CheckFinding::ok),
            checks,
        }
    }
}

/// What each check looked at, for the readable report.
fn examined(check: &str, n: i64) -> String {
    let what = match check {
        "identity" => "application id and schema version",
        "integrity" => "pages",
        "foreign_keys" => "tables",
        "constraints" => "CHECK constraints",
        "kept_counts" => "kept counts",
        "line_identity" => "lines",
        "callback_lines" => "callbacks",
        "latest_attempts" => "jobs",
        "answers" => "answers",
        _ => "the file",
    };
    if check == "identity" || check == "open" {
        what.to_owned()
    } else {
        format!("{n} {what}")
    }
}

impl Report for CheckReport {
    fn text(&self) -> String {
        let mut text = String::new();
        for c in &self.checks {
            let verdict = if c.ok() { "ok" } else { "WRONG" };
            let _ = writeln!(
                text,
                "{:<16} {verdict:<6} {} ({:.1} s)",
                c.check,
                examined(c.check, c.examined),
                c.seconds
            );
            for problem in &c.problems {
                let _ = writeln!(text, "{:<23}{}", "", inert(problem));
            }
        }
        let failed = self.checks.iter().filter(|c| !c.ok()).count();
        let ledger = inert(&self.ledger);
        if failed == 0 {
            let _ = writeln!(text, "the ledger {ledger} passed every check");
        } else {
            let _ = writeln!(
                text,
                "the ledger {ledger} failed {failed} of {} checks. Keep a copy of the file as it is before anything else writes to it; `jobledger --db {ledger} backup NEW.db` saves what SQLite can still read",
                self.checks.len()
            );
        }
        text
    }
}

/// One line: what a backup wrote, how large, how long it took.
pub fn backup_written(dest: &std::path::Path, bytes: u64, took: Duration) -> String {
    format!(
        "backup written to {} ({} in {:.1} s)\n",
        inert_path(dest),
        megabytes(bytes),
        took.as_secs_f64(),
    )
}

/// A file's size for a person, in MB (2^20 bytes) to one decimal.
pub fn megabytes(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // a size shown to a person
    let mb = bytes as f64 / 1_048_576.0;
    format!("{mb:.1} MB")
}
