//! `ingest`: the input checked before anything is opened, the ingest run with its
//! progress on a terminal, and why it stopped, with what to do.

use std::io::{self, BufReader, IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::open::open_to_ingest;
use crate::clock::Timestamp;
use crate::ingest;
use crate::store::{Ledger, StoreError};

/// Why an ingest stopped, with what to do: a re-run finishes it, except on a damaged
/// file, a full disk or an immutable file, where running again cannot help and the
/// message says what can.
pub(super) fn ingest_stopped(
    location: &crate::store::Location,
    e: ingest::IngestError,
) -> anyhow::Error {
    match e {
        ingest::IngestError::Store(
            e @ (StoreError::Damaged { .. }
            | StoreError::ShmFull { .. }
            | StoreError::Immutable { .. }),
        ) => anyhow::Error::from(e),
        e => anyhow::Error::from(e).context(format!(
            "ingest into {location} stopped; committed batches are kept, re-run to finish"
        )),
    }
}

pub(super) fn run_ingest(
    location: &crate::store::Location,
    file: Option<&Path>,
    complete: bool,
    max_line_bytes: usize,
    now: Timestamp,
) -> Result<()> {
    let file = file.filter(|p| *p != Path::new("-"));
    // Read on ingest's reader thread: `Stdin` (not its lock) may move there.
    let (input, metadata): (Box<dyn io::BufRead + Send>, _) = match file {
        None => (
            Box::new(BufReader::with_capacity(1 << 16, io::stdin())),
            stdin_metadata(),
        ),
        Some(p) => {
            refuse_directory_input(p)?;
            let opened = std::fs::File::open(p)
                .with_context(|| format!("cannot read {}", crate::inert::inert_path(p)))?;
            let metadata = opened.metadata().ok();
            (
                Box::new(BufReader::with_capacity(1 << 16, opened)),
                metadata,
            )
        }
    };
    if let (Some(metadata), Some(path)) = (&metadata, location.file()) {
        refuse_own_file(path, file, metadata)?;
    }
    let mut ledger = open_to_ingest(location)?;
    let batching = ingest::Batching {
        complete,
        max_line_bytes,
        ..ingest::Batching::default()
    };
    let report = ingest::ingest_in_batches(&mut ledger, input, now, batching, progress_printer())
        .map_err(|e| ingest_stopped(location, e))?;
    finish_progress();
    // `println!` would panic on a closed standard output.
    writeln!(io::stdout(), "{report}")?;
    if report.cr_line_ends && report.unfinished_bytes > 0 {
        // Not a line still being written: no later run takes it, so the exit says so.
        let (shown, convert) = match file {
            Some(p) => {
                let shown = crate::inert::inert_path(p);
                let convert = format!("tr '\\r' '\\n' < {shown} > {shown}.lf");
                (shown, convert)
            }
            None => ("the input".into(), "tr '\\r' '\\n' < IN > IN.lf".to_owned()),
        };
        bail!(
            "{shown} seems to end its lines in CR alone (old Mac style), and a line ends at LF (or CRLF) here: its last {} bytes, holding CRs and no LF, were read as one line with no end and left unread. Nothing of them was kept, and the input is as it was. Convert its line ends and ingest the result: {convert}",
            report.unfinished_bytes
        );
    }
    Ok(())
}

/// What standard input is, when it is a file that can be looked at (`< FILE`).
pub(super) fn stdin_metadata() -> Option<std::fs::Metadata> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        std::fs::File::from(fd).metadata().ok()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Refuses, writing nothing, to ingest one of the ledger's own files: its bytes would
/// be kept as hundreds of quarantined lines. Told by device and inode, so a link or
/// another spelling of the path is caught too.
pub(super) fn refuse_own_file(
    path: &Path,
    input: Option<&Path>,
    metadata: &std::fs::Metadata,
) -> Result<()> {
    if let Some(what) = Ledger::own_file(path, metadata) {
        let shown = input.map_or_else(|| "standard input".into(), crate::inert::inert_path);
        bail!(
            "{shown} is the same file as {what} {}: an ingest does not read the ledger it writes into (its bytes would be kept as hundreds of quarantined lines). Nothing was read or written; give --db the ledger and ingest a file of events",
            crate::inert::inert_path(path)
        );
    }
    Ok(())
}

/// Refuses a directory given as ingest's input before anything is opened: it opens as
/// a file does, and only the first read fails, which stopped an ingest midway with
/// advice to re-run it.
pub(super) fn refuse_directory_input(input: &Path) -> Result<()> {
    if input.is_dir() {
        bail!(
            "{} is a directory, not a file of events: nothing was read or written; give the path of a file inside it (or `-` to read standard input)",
            crate::inert::inert_path(input)
        );
    }
    Ok(())
}

/// Progress on stderr, when it is a terminal and the work takes more than a moment.
pub(super) fn progress_printer() -> impl FnMut(&ingest::IngestReport) {
    let show = io::stderr().is_terminal();
    let started = std::time::Instant::now();
    move |so_far| {
        if show && started.elapsed().as_millis() > 500 {
            #[allow(clippy::cast_precision_loss)] // a rate shown to a person
            let rate = so_far.lines_read as f64 / started.elapsed().as_secs_f64().max(0.001);
            eprint!(
                "\ringesting: {} lines read ({rate:.0} lines/s)…",
                so_far.lines_read
            );
        }
    }
}

/// Clears the progress line, if one was drawn.
pub(super) fn finish_progress() {
    if io::stderr().is_terminal() {
        eprint!("\r\x1b[K");
    }
}
