//! `restore`: a backup put in the ledger's place, safely. Moved over the ledger by
//! hand, a backup met the ledger's old log, which SQLite would have applied to it; here
//! the old file and its log are set aside together, under one new name, first.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use super::check_backup::{checked_copy, partial_name, place, remove_partial};
use crate::clock::Timestamp;
use crate::inert::inert_path;
use crate::report;
use crate::store::{Ledger, StoreError, with_suffix};

/// Puts a copy of `backup` at the ledger's `path`, the ledger as it was (with its log)
/// kept beside it; says what was done.
pub(super) fn run(
    path: &Path,
    backup: &Path,
    now: Timestamp,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let shown = inert_path(path);
    if let Some(what) = std::fs::metadata(backup)
        .ok()
        .and_then(|m| Ledger::own_file(path, &m))
    {
        bail!(
            "{} is no backup: it is {what} {shown}; give the backup to put in its place. Nothing was changed",
            inert_path(backup)
        );
    }
    if !backup.exists() {
        bail!(
            "there is no backup at {}: give the path of a file `jobledger backup` wrote; nothing was changed",
            inert_path(backup)
        );
    }
    super::refuse_no_ledger(backup).context("nothing was restored")?;
    // The backup must read as a sound ledger before anything is moved.
    let source = Ledger::open_read_only(backup)
        .and_then(|ledger| ledger.damage_probe().map(|()| ledger))
        .map_err(|e| match e {
            StoreError::NotALedger { .. } | StoreError::NotADatabase { .. } => {
                anyhow::Error::from(e).context("restore takes a backup of a ledger")
            }
            e => anyhow::Error::from(e),
        })
        .with_context(|| format!("nothing was restored, and {shown} was left as it was"))?;
    let holders = Ledger::holders(path);
    if !holders.is_empty() {
        let pids: Vec<String> = holders.iter().map(u32::to_string).collect();
        bail!(
            "{} has the ledger {shown} open (process {}): stop it first (Ctrl-C an ingest, quit a console), then restore again; nothing was changed",
            if holders.len() == 1 {
                "another program"
            } else {
                "other programs"
            },
            pids.join(", ")
        );
    }
    // Copied from one snapshot of the backup (its own log included, if it has one),
    // into a file with a token of its own, and checked before the ledger is touched.
    let partial = partial_name(path);
    let copied = checked_copy(&source, backup, &partial, path, Path::new("NEW.db"));
    if let Err(e) = copied {
        remove_partial(&partial);
        return Err(e.context(format!(
            "nothing was restored, and {shown} was left as it was"
        )));
    }
    let aside = aside_name(path, now);
    let kept = if path.exists() {
        Ledger::set_aside(path, &aside)
            .with_context(|| {
                format!(
                    "setting the ledger {shown} aside as {}; nothing was restored",
                    inert_path(&aside)
                )
            })
            .inspect_err(|_| remove_partial(&partial))?
    } else {
        Vec::new()
    };
    if let Err(e) = place(&partial, path) {
        remove_partial(&partial);
        let undone = match kept.first() {
            Some(file) => format!(
                "the ledger as it was is at {}, with its log: move it back with `mv` (and its -wal and -shm likewise)",
                inert_path(file)
            ),
            None => "nothing was changed".to_owned(),
        };
        return Err(e.context(format!("the backup was not restored; {undone}")));
    }
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    writeln!(
        out,
        "restored {shown} from {} ({})",
        inert_path(backup),
        report::megabytes(bytes)
    )?;
    match kept.first() {
        Some(file) => writeln!(
            out,
            "the ledger as it was is kept at {}{}: nothing was deleted",
            inert_path(file),
            if kept.len() > 1 { ", with its log" } else { "" }
        )?,
        None => writeln!(out, "there was no ledger at {shown} before")?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The name the ledger as it was is kept under: beside it, with the time of the restore.
fn aside_name(path: &Path, now: Timestamp) -> PathBuf {
    let time: String = now
        .to_ledger_text()
        .chars()
        .take(19)
        .filter(|c| *c != ':')
        .collect();
    with_suffix(path, &format!(".before-restore-{time}Z"))
}
