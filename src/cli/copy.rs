//! `jobledger copy --from A --to B`: a ledger moved from a SQLite file to a
//! PostgreSQL server or back, every row of every table of record as it is (raw lines
//! byte for byte, answers with their reviewers and times, ids kept), into a
//! destination that holds no lines yet; written in one transaction, so a copy that
//! stops leaves nothing behind, and checked before it is said to be done.

use std::io::{IsTerminal as _, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Result, bail};

use super::open::open_to_read;
use crate::store::{Cell, Ledger, Location, OpenMode, TABLES};

/// Rows written to the destination at a time.
const ROWS_PER_WRITE: usize = 5_000;

/// Copies the ledger at `from` into a new ledger at `to`; says what was copied.
pub(super) fn run(from: &Location, to: &Location, out: &mut impl Write) -> Result<ExitCode> {
    if from == to {
        bail!("--from and --to are the same ledger ({from}): nothing was copied");
    }
    let started = Instant::now();
    let source = open_to_read(from)?;
    let mut destination = Ledger::open_at(to, OpenMode::ReadWrite)?;
    let lines = destination.line_count()?;
    if lines > 0 {
        bail!(
            "{to} already holds a ledger with {lines} lines: a copy goes into a new ledger (a file that does not exist yet, or a schema with no ledger: ?schema=NAME). Nothing was copied"
        );
    }
    let show = std::io::stderr().is_terminal();
    let mut copied = 0_i64;
    let mut writer = destination.writer()?;
    for table in TABLES {
        let mut batch: Vec<Vec<Cell>> = Vec::with_capacity(ROWS_PER_WRITE);
        let mut rows = 0_i64;
        source.for_each_row(table, |row| {
            batch.push(row);
            rows += 1;
            if batch.len() == ROWS_PER_WRITE {
                writer.insert_rows(table, &batch)?;
                batch.clear();
                if show {
                    eprint!("\r\x1b[Kcopying {}: {rows} rows…", table.name);
                }
            }
            Ok(())
        })?;
        writer.insert_rows(table, &batch)?;
        copied += rows;
    }
    writer.continue_identities()?;
    writer.commit()?;
    if show {
        eprint!("\r\x1b[K");
    }
    // Every table holds as many rows as the source's, and the copy passes its checks.
    for table in TABLES {
        let (had, has) = (source.row_count(table)?, destination.row_count(table)?);
        if had != has && !table.is_kept_state() {
            bail!(
                "the copy in {to} holds {has} rows of {} where {from} holds {had}: it is not a faithful copy; do not use it",
                table.name
            );
        }
    }
    let findings = destination.check(|_| {});
    let problems: Vec<String> = findings
        .iter()
        .flat_map(|f| f.problems.iter().map(move |p| format!("{}: {p}", f.check)))
        .collect();
    if !problems.is_empty() {
        bail!(
            "the copy in {to} does not pass its checks ({}); do not use it",
            problems.join("; ")
        );
    }
    writeln!(
        out,
        "copied {copied} rows of {} tables from {from} to {to} in {:.1} s; the copy passes its checks",
        TABLES.len(),
        started.elapsed().as_secs_f64()
    )?;
    Ok(ExitCode::SUCCESS)
}
