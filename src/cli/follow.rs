//! `ingest --follow FILE` at the command line: the refusals, the signals that stop it,
//! what it shows on standard error while it follows, and the report at the end.

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, bail};

use crate::clock::Clock;
use crate::inert::inert;
use crate::ingest::follow::{Follow, Following, ingest_following};
use crate::ingest::{Batching, IngestReport};

/// Follows `file` into the ledger at `path` until SIGINT or SIGTERM, then prints the
/// report as a plain ingest does.
pub(super) fn run(
    location: &crate::store::Location,
    file: Option<&Path>,
    complete: bool,
    max_line_bytes: usize,
    clock: Clock,
) -> Result<()> {
    let Some(file) = file.filter(|f| *f != Path::new("-")) else {
        bail!(
            "ingest --follow reads a file as it grows; standard input cannot be followed (pipe it into `jobledger ingest -` instead)"
        );
    };
    if complete {
        bail!(
            "ingest --follow and --complete do not go together: a followed file is never complete, its last line may still be being written (stop following, then run `ingest --complete FILE`)"
        );
    }
    if let (Ok(metadata), Some(path)) = (std::fs::metadata(file), location.file()) {
        super::refuse_own_file(path, Some(file), &metadata)?;
    }
    let stop = stop_on_signals().context("cannot watch for Ctrl-C and SIGTERM")?;
    let mut follow =
        Follow::new(file, stop).with_context(|| format!("cannot follow {}", file.display()))?;
    let mut ledger = super::open_to_ingest(location)?;
    let mut shown = Shown::new(&file.display().to_string());
    let report = ingest_following(
        &mut ledger,
        &mut follow,
        || clock.now(),
        Batching {
            max_line_bytes,
            ..Batching::default()
        },
        |event| shown.tell(event),
    )
    .map_err(|e| super::ingest_stopped(location, e))?;
    shown.finish();
    writeln!(io::stdout(), "{report}")?;
    Ok(())
}

/// The first SIGINT or SIGTERM sets the flag: the follower reads what is there to its
/// end, commits and stops. A second one ends the process at once, as a kill would
/// (whole batches kept), for a person who will not wait for a long backlog.
fn stop_on_signals() -> io::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as it was before this signal.
        signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, Arc::clone(&stop))?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// Standard error while following: on a terminal, one line kept up to date; elsewhere
/// (a log), a line at the start and one for each change of the file, nothing per commit.
struct Shown {
    terminal: bool,
    file: String,
    so_far: IngestReport,
}

impl Shown {
    fn new(file: &str) -> Shown {
        let shown = Shown {
            terminal: io::stderr().is_terminal(),
            file: inert(file).into_owned(),
            so_far: IngestReport::default(),
        };
        let _ = writeln!(
            io::stderr(),
            "following {}: whole lines are committed as they arrive; Ctrl-C stops",
            shown.file
        );
        shown.status();
        shown
    }

    fn tell(&mut self, event: Following<'_>) {
        match event {
            Following::Committed(so_far) => self.so_far = *so_far,
            Following::Notice(notice) => {
                let clear = if self.terminal { "\r\x1b[K" } else { "" };
                let _ = writeln!(io::stderr(), "{clear}following {}: {notice}", self.file);
            }
        }
        self.status();
    }

    fn status(&self) {
        if self.terminal {
            let so_far = &self.so_far;
            // Short enough for one line of 80 columns, or `\r` would not redraw it.
            let _ = write!(
                io::stderr(),
                "\r\x1b[K{} lines read, {} held, {} quarantined; waiting for more",
                so_far.lines_read,
                so_far.callbacks.held,
                so_far.callbacks.quarantined
            );
        }
    }

    fn finish(&self) {
        if self.terminal {
            let _ = write!(io::stderr(), "\r\x1b[K");
        }
    }
}
