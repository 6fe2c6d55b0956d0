//! `export`: the evidence bundle of a callback or a job, printed or written to a file.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};

use super::check_backup::is_the_ledgers_own;
use super::open::open_to_read;
use crate::clock::Clock;
use crate::evidence::bundle::{self, Bundle, BundleFormat, Subject};
use crate::inert::inert_path;
use crate::report;
use crate::store::Location;

/// What `export` was asked for.
pub(super) struct Export {
    pub(super) subject: Subject,
    pub(super) format: BundleFormat,
    /// `-o FILE`; standard output when `None`.
    pub(super) output: Option<PathBuf>,
    /// Replace FILE when it is there.
    pub(super) force: bool,
}

/// Reads the bundle and prints it to `stdout` (kept whole: a bundle that fails midway
/// prints nothing), or writes it to the file asked and says so on `said`.
pub(super) fn run(
    location: &Location,
    export: &Export,
    clock: Clock,
    stdout: &mut impl Write,
    said: &mut impl Write,
) -> Result<()> {
    // Even with --force: a bundle in the ledger's place would take the ledger away.
    if let (Some(file), Location::File(ledger)) = (&export.output, location)
        && is_the_ledgers_own(ledger, file)
    {
        bail!(
            "{} is the ledger {} or one of its own files: nothing written; name a file of the bundle's own with -o",
            inert_path(file),
            inert_path(ledger)
        );
    }
    let ledger = open_to_read(location)?;
    let now = super::reading_time(&ledger, clock)?;
    let bundle = Bundle::read(&ledger, &export.subject, now)?;
    let mut text = Vec::new();
    match export.format {
        BundleFormat::Md => text.extend_from_slice(bundle::markdown::markdown(&bundle).as_bytes()),
        BundleFormat::Json => report::write_json(&mut text, &bundle)?,
    }
    let Some(file) = &export.output else {
        stdout.write_all(&text)?;
        return Ok(());
    };
    let shown = inert_path(file);
    match bundle::file::write(file, &text, export.force) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => bail!(
            "{shown} is there already: nothing written (--force replaces it, or name another file with -o)"
        ),
        written => written.with_context(|| format!("writing the evidence bundle to {shown}"))?,
    }
    let what = match &export.subject {
        Subject::Callback(seq) => format!("callback #{seq}"),
        Subject::Job(job) => format!("job {}", crate::inert::inert(job)),
    };
    let format = match export.format {
        BundleFormat::Md => "Markdown",
        BundleFormat::Json => "JSON",
    };
    writeln!(
        said,
        "wrote the evidence bundle of {what} to {shown} ({format}, {} bytes)",
        text.len()
    )?;
    Ok(())
}
