//! `check` and `backup`: what the checks found, and what a backup copied.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use super::Report;
use crate::inert::{inert, inert_path};
use crate::store::{CheckFinding, Lost, Salvage};

/// Every check's finding, and whether the ledger passed them all.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub ledger: String,
    pub ok: bool,
    pub checks: Vec<CheckFinding>,
    /// The schema of a ledger on a PostgreSQL server (`None`: a SQLite file). What the
    /// report says was looked at, and what to do about a failure, is the engine's.
    #[serde(skip)]
    pub server_schema: Option<String>,
}

impl CheckReport {
    /// The report of `checks` run on the ledger file at `ledger`.
    pub fn new(ledger: &std::path::Path, checks: Vec<CheckFinding>) -> CheckReport {
        CheckReport {
            ledger: ledger.display().to_string(),
            ok: checks.iter().all(CheckFinding::ok),
            checks,
            server_schema: None,
        }
    }

    /// The report of `checks` run on the ledger in `schema` of the server at `ledger`.
    pub fn on_server(ledger: String, schema: &str, checks: Vec<CheckFinding>) -> CheckReport {
        CheckReport {
            ledger,
            ok: checks.iter().all(CheckFinding::ok),
            checks,
            server_schema: Some(schema.to_owned()),
        }
    }

    /// What to do about a failed check, in one sentence (after what failed).
    fn advice(&self, ledger: &str, failed: usize) -> String {
        let checks = self.checks.len();
        if let Some(schema) = &self.server_schema {
            // A server keeps its own pages: what fails is the ledger's rows, foreign keys
            // or triggers, changed behind jobledger's back. No salvage reads around it.
            let schema = inert(schema);
            return format!(
                "the ledger {ledger} failed {failed} of {checks} checks: its rows, foreign keys or triggers were changed other than by jobledger. The check wrote nothing. Keep the schema as it is before anything else writes to it (`pg_dump --schema={schema}`); then restore a dump taken before the change (`pg_restore`), or copy a sound ledger (a backup file, another schema) into a new schema with `jobledger copy --from GOOD --to URL?schema=NEW`"
            );
        }
        if self.checks.iter().any(|c| c.check == "open") {
            format!(
                "the ledger {ledger} could not be opened: SQLite cannot read where it begins, so nothing can be copied or saved from it. Keep the file as it is (cp), and restore an earlier backup"
            )
        } else if self
            .checks
            .iter()
            .all(|c| c.ok() || c.check == "kept_reconciliation")
        {
            format!(
                "the ledger {ledger} failed {failed} of {checks} checks: what it keeps for the reconciliation's glance (the Reconcile tab) is not what its rows say, job by job; its pages, rows and kept counts are sound. `jobledger --db {ledger} backup --salvage NEW.db` makes what is kept again from the rows, and `jobledger --db {ledger} restore NEW.db` puts that ledger in its place"
            )
        } else if self
            .checks
            .iter()
            .all(|c| c.ok() || REFERENCES.contains(&c.check))
        {
            format!(
                "the ledger {ledger} failed {failed} of {checks} checks: it holds rows that refer to rows it does not hold, as a salvage of a damaged ledger leaves them (it keeps every row it could read). Its pages and kept counts are sound: `jobledger --db {ledger} backup NEW.db` copies it as it is"
            )
        } else {
            format!(
                "the ledger {ledger} failed {failed} of {checks} checks. Keep a copy of the file as it is before anything else writes to it; `jobledger --db {ledger} backup --salvage NEW.db` saves what SQLite can still read into a new ledger, table by table, and lists what it could not"
            )
        }
    }
}

/// The width of the report's first column: the longest check's name, and a space.
const NAME_WIDTH: usize = "kept_reconciliation".len() + 1;

/// The checks that a row referring to a row not in the ledger fails, and nothing
/// else: what a salvage that lost rows leaves in its new ledger.
const REFERENCES: [&str; 4] = [
    "foreign_keys",
    "callback_lines",
    "latest_attempts",
    "answers",
];

/// What each check looked at, for the readable report (`on_server`: of a ledger on
/// PostgreSQL, whose identity is its `ledger_meta` row).
fn examined(check: &str, n: i64, on_server: bool) -> String {
    let what = match check {
        "identity" if on_server => "ledger_meta's application and schema version",
        "identity" => "application id and schema version",
        "integrity" => "pages",
        "foreign_keys" => "tables",
        "constraints" => "CHECK constraints",
        "kept_counts" => "kept counts",
        "line_identity" => "lines",
        "callback_lines" => "callbacks",
        "latest_attempts" => "jobs",
        "answers" => "answers",
        "text_index" => "callbacks in the text index",
        "kept_reconciliation" => "jobs walked",
        "triggers" => "triggers",
        "open" => "the file",
        // A check this report has no word for: its count alone.
        _ => "",
    };
    if check == "identity" || check == "open" {
        what.to_owned()
    } else if what.is_empty() {
        n.to_string()
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
                "{:<NAME_WIDTH$} {verdict:<6} {} ({:.1} s)",
                c.check,
                examined(c.check, c.examined, self.server_schema.is_some()),
                c.seconds
            );
            for problem in &c.problems {
                let _ = writeln!(text, "{:<w$}{}", "", inert(problem), w = NAME_WIDTH + 8);
            }
        }
        let failed = self.checks.iter().filter(|c| !c.ok()).count();
        let ledger = inert(&self.ledger);
        if failed == 0 {
            let _ = writeln!(text, "the ledger {ledger} passed every check");
        } else {
            let _ = writeln!(text, "{}", self.advice(&ledger, failed));
        }
        text
    }
}

/// One line: what a backup wrote, how large, how long it took, and that it was checked.
pub fn backup_written(dest: &std::path::Path, bytes: u64, took: Duration) -> String {
    format!(
        "backup written to {} ({} in {:.1} s; the copy passed SQLite's quick_check, and its kept counts match its rows)\n",
        inert_path(dest),
        megabytes(bytes),
        took.as_secs_f64(),
    )
}

/// How many of a table's lost rows or ranges are listed before they are only counted.
const LOST_LISTED: usize = 10;

/// What a salvage saved: a line per table (rows saved, and what could not be), then
/// what it comes to.
pub fn salvage_written(
    source: &std::path::Path,
    dest: &std::path::Path,
    salvage: &Salvage,
    bytes: u64,
    took: Duration,
) -> String {
    let mut text = String::new();
    let width = salvage
        .tables
        .iter()
        .map(|t| t.table.len())
        .max()
        .unwrap_or(0);
    for t in &salvage.tables {
        let _ = write!(text, "{:<width$}  {} rows saved", inert(&t.table), t.saved);
        if !t.lost.is_empty() {
            // The same loss met again (a damaged page's cells, each read as row 0) is
            // said once with its count, so it does not crowd out the rowids lost.
            let mut said: Vec<(String, usize)> = Vec::new();
            for loss in t.lost.iter().map(lost) {
                match said.iter_mut().find(|(text, _)| *text == loss) {
                    Some((_, n)) => *n += 1,
                    None => said.push((loss, 1)),
                }
            }
            let listed: Vec<String> = said
                .iter()
                .take(LOST_LISTED)
                .map(|(text, n)| match n {
                    1 => text.clone(),
                    n => format!("{text} ({n} times)"),
                })
                .collect();
            let _ = write!(text, "; not saved: {}", inert(&listed.join("; ")));
            if said.len() > LOST_LISTED {
                let _ = write!(text, "; and {} more", said.len() - LOST_LISTED);
            }
        }
        text.push('\n');
    }
    for (what, counted, saved) in &salvage.counted {
        let _ = writeln!(
            text,
            "the ledger counted {counted} {what}; {saved} of them could be read and are saved"
        );
    }
    let (dest_shown, source_shown) = (inert_path(dest), inert_path(source));
    let size = format!("{} in {:.1} s", megabytes(bytes), took.as_secs_f64());
    if salvage.complete() {
        let _ = writeln!(
            text,
            "salvage written to {dest_shown} ({size}): every row of {source_shown} was read and saved, and the new ledger passed SQLite's quick_check and its kept counts. The ledger {source_shown} was only read and is as it was"
        );
        return text;
    }
    let _ = writeln!(
        text,
        "salvage written to {dest_shown} ({size}) without the rows listed above, which could not be read; it holds every other row, and passed SQLite's quick_check and its kept counts (recounted from the rows saved). The ledger {source_shown} was only read and is as it was: keep it, other tools may read more of it"
    );
    if !salvage.dangling.is_empty() {
        let total: i64 = salvage.dangling.iter().map(|(_, n)| n).sum();
        let by_table: Vec<String> = salvage
            .dangling
            .iter()
            .map(|(table, n)| format!("{n} in {}", inert(table)))
            .collect();
        let _ = writeln!(
            text,
            "{total} rows saved refer to rows that were lost ({}): they are kept as they were read, and `jobledger --db {dest_shown} check` names them",
            by_table.join(", ")
        );
    }
    text
}

/// One loss of a table, in words.
fn lost(lost: &Lost) -> String {
    let rowids = |first: i64, last: i64| {
        if first == last {
            format!("rowid {first}")
        } else {
            format!("rowids {first}-{last}")
        }
    };
    match lost {
        Lost::Unreadable { first, last } => {
            format!("{} could not be read", rowids(*first, *last))
        }
        Lost::Tail { after: Some(after) } => format!(
            "the rows after rowid {after} could not be read (how many there were is unknown)"
        ),
        Lost::Tail { after: None } => {
            "no row could be read (how many there were is unknown)".to_owned()
        }
        Lost::Missing { first, last } => format!(
            "{} are missing between rows read (the ledger never deletes a row: a damaged page dropped them without an error)",
            rowids(*first, *last)
        ),
        Lost::Refused { row, why } => {
            format!("row {row} was read, but its values do not fit its table ({why})")
        }
        Lost::Between {
            after: Some(after),
            before: Some(before),
        } => format!("the rows between keys {after} and {before} could not be read"),
        Lost::Between {
            after: Some(after),
            before: None,
        } => format!("the rows after key {after} could not be read"),
        Lost::Between {
            after: None,
            before: Some(before),
        } => format!("the rows before key {before} could not be read"),
        Lost::Between {
            after: None,
            before: None,
        } => "no row could be read".to_owned(),
    }
}

/// A file's size for a person, in MB (2^20 bytes) to one decimal.
pub fn megabytes(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // a size shown to a person
    let mb = bytes as f64 / 1_048_576.0;
    format!("{mb:.1} MB")
}
