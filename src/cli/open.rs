//! Opening the ledger for each kind of command: to read (never written, upgraded
//! first when its schema is older), to ingest, or for a person's write (each commit
//! synced); refused with a sentence where no ledger can be.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Result, bail};

use crate::store::{Ledger, Location, OpenMode, StoreError};

/// Opens the ledger for a person's write (an answer, an owner, a request): each commit
/// is synced before the command says it is written ([`Ledger::keep_writes_durable`]).
pub(super) fn open_for_a_person(location: &Location) -> Result<Ledger> {
    let ledger = open_existing(location)?;
    // Asked of the server before anything is read or checked: a reader is told so
    // whatever it tried, not told what it could not have written anyway.
    if !ledger.may_answer()? {
        bail!(
            "the ledger {location} is read-only for the role this connects as (it may read, not write what a person writes): nothing was written. Connect as a role granted jobledger_reviewer to answer"
        );
    }
    ledger.keep_writes_durable()?;
    Ok(ledger)
}

/// Opens an existing ledger read-write: refused with a sentence when there is none,
/// upgraded if need be, and refused when damaged.
pub(super) fn open_existing(location: &Location) -> Result<Ledger> {
    let Location::File(path) = location else {
        // A server's ledger that is not there is named by the read-only open.
        drop(Ledger::open_at(location, OpenMode::ReadOnly)?);
        return open_to_ingest(location);
    };
    refuse_no_ledger(path)?;
    open_to_ingest(location)
}

/// Refuses, with a sentence, a path where no ledger can be: nothing, a dangling link,
/// a directory, an empty file.
pub(super) fn refuse_no_ledger(path: &Path) -> Result<()> {
    Ledger::refuse_unopenable(path)?;
    let shown = crate::inert::inert_path(path);
    if !path.exists() {
        bail!(
            "no ledger at {shown} (create one with `jobledger ingest FILE`, or try `jobledger demo`)"
        );
    }
    // An empty file is no ledger yet: a command that only reads or answers must not
    // write a schema into it (ingest makes one).
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        bail!(
            "{shown} is an empty file, not a ledger yet (create one with `jobledger ingest FILE`); it was left untouched"
        );
    }
    Ok(())
}

/// Opens the ledger read-write, saying so first when that upgrades its schema.
pub(super) fn open_upgrading(path: &Path) -> Result<Ledger, StoreError> {
    note_upgrade(path);
    Ledger::open(path).inspect(|_| warn_if_shared(path))
}

/// Opens the ledger for a report: read-only, so that a command that only reads never
/// writes the file (a read-write connection checkpoints the log into the file as it
/// closes). A ledger whose schema is older is upgraded first, which the person is told.
pub(super) fn open_to_read(location: &Location) -> Result<Ledger> {
    let Location::File(path) = location else {
        let ledger = Ledger::open_at(location, OpenMode::ReadOnly)?;
        ledger.damage_probe()?;
        return Ok(ledger);
    };
    refuse_no_ledger(path)?;
    if Ledger::upgrade_pending(path).is_some() {
        note_upgrade(path);
        match Ledger::open(path) {
            // Where the upgrade cannot be written, the read-only open says what to do.
            Err(StoreError::DirectoryNotWritable { .. }) => {}
            upgraded => drop(upgraded?),
        }
    }
    let ledger = Ledger::open_read_only(path)?;
    warn_if_shared(path);
    ledger.damage_probe()?;
    Ok(ledger)
}

/// Warns, on stderr, when others may read the ledger: it holds other people's payloads.
pub(super) fn warn_if_shared(path: &Path) {
    if let Some(mode) = Ledger::shared_mode(path) {
        let shown = crate::inert::inert_path(path);
        let _ = writeln!(
            io::stderr(),
            "warning: the ledger {shown} can be read by others (mode {mode:o}), and it holds other people's payloads; make it owner-only: chmod 600 {shown}"
        );
    }
}

/// Tells the person when opening `path` will upgrade it: on a ledger of millions of
/// lines that takes a minute, once, and a silent pause looks like a hang.
pub(super) fn note_upgrade(path: &Path) {
    if let Some(version) = Ledger::upgrade_pending(path) {
        let _ = writeln!(
            io::stderr(),
            "upgrading the ledger {} from schema {version} to {} (once; on a ledger of millions of lines this takes a minute or two)…",
            crate::inert::inert_path(path),
            crate::store::SCHEMA_VERSION
        );
    }
}

/// Opens the ledger an ingest writes into: upgraded if need be, and refused when damaged.
pub(super) fn open_to_ingest(location: &Location) -> Result<Ledger> {
    let ledger = match location {
        Location::File(path) => open_upgrading(path)?,
        Location::Server(_) => Ledger::open_at(location, OpenMode::ReadWrite)?,
    };
    ledger.damage_probe()?;
    Ok(ledger)
}
