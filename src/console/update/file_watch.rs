//! The console keeps to the file at its path, so that what it shows and writes is
//! always the ledger a person finds there, not a file replaced or removed under it.
//!
//! Another program may replace the ledger under an open console (`jobledger demo`
//! removes it and builds a new one; a person may `mv` another ledger over it) or
//! remove it. The console's connection still holds the old file: its rows are the
//! old ones and its writes would land where nobody reads them (the store refuses
//! them: [`crate::store::Ledger::writer`]). On each tick the console looks: a replaced
//! file is reopened and read again, the view and selection kept where their rows are;
//! a removed one leaves what is on screen readable and turns writes off until a ledger
//! is back at the path.

use crate::inert::inert;
use crate::store::{FileAtPath, Ledger, StoreError};

use super::super::model::marks::Marks;
use super::super::model::{Flash, Overlay};
use super::App;

/// Why nothing can be written while the file is gone.
pub(super) const GONE: &str =
    "the ledger file is gone from its path: nothing is written until it is back";

/// Looks at the file at the ledger's path and acts on what changed.
pub(super) fn check(app: &mut App) -> Result<(), StoreError> {
    // The file's name alone: the full path pushed the sentence off an 80-column line.
    let path = std::path::Path::new(&app.model.ledger_path);
    let name = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy();
    let name = inert(&name).into_owned();
    match app.ledger.file_at_path() {
        FileAtPath::Same if app.model.ledger_gone => {
            set_gone(app, false);
            app.model.flash = Flash::info(format!("{name} is back; writes are on again"));
            Ok(())
        }
        FileAtPath::Same => Ok(()),
        FileAtPath::Removed if app.model.ledger_gone => Ok(()),
        FileAtPath::Removed => {
            set_gone(app, true);
            app.model.flash = Flash::error(format!(
                "{name} was removed; writes are off until it is back (the screen stays)"
            ));
            Ok(())
        }
        FileAtPath::Replaced => reopen(app, &name),
    }
}

fn reopen(app: &mut App, name: &str) -> Result<(), StoreError> {
    // Only a file can be replaced at its path; a server ledger never is.
    let Some(path) = app.ledger.file().map(std::path::Path::to_path_buf) else {
        return Ok(());
    };
    // A file that would not open is tried again only once it has changed: each try
    // opens it whole, and a damaged one is counted whole by the probe.
    let stamp = FileStamp::of(&path);
    if app.refused_file.is_some() && app.refused_file == stamp {
        return Ok(());
    }
    app.ledger.leave_the_log_empty();
    let ledger = match open_replacement(&path, !app.model.read_only, stamp.as_ref()) {
        Ok(ledger) => ledger,
        Err(why) => {
            app.refused_file = stamp;
            // Said once: the next ticks find it replaced still, and stay quiet.
            if !app.model.ledger_gone {
                set_gone(app, true);
                app.model.flash = Flash::error(format!(
                    "{name} was replaced by a file that does not open ({why}); writes are off"
                ));
            }
            return Ok(());
        }
    };
    app.refused_file = None;
    app.ledger = ledger;
    app.search.forget_connection();
    app.data_version = app.ledger.data_version()?;
    set_gone(app, false);
    // A form, or marks, name rows of the old file: in the new one a callback's number
    // may be another callback, and a marked job was marked for what the old one said.
    let closed = matches!(app.model.overlay, Overlay::Form(_));
    if closed {
        app.model.overlay = Overlay::None;
    }
    app.model.callback_marks = Marks::default();
    app.model.job_marks = Marks::default();
    app.refresh()?;
    let form = if closed {
        " (and closed the form, read from the old file)"
    } else {
        ""
    };
    app.model.flash = Flash::info(format!(
        "{name} was replaced by another file; reopened it{form}"
    ));
    Ok(())
}

/// Opens the file now at the path as the console opened the first: an empty file is
/// no ledger yet (a demo making one), and is not written into; a damaged one is
/// refused as at start.
fn open_replacement(
    path: &std::path::Path,
    writable: bool,
    stamp: Option<&FileStamp>,
) -> Result<Ledger, String> {
    if stamp.is_some_and(|stamp| stamp.len == 0) {
        return Err("it is empty: no ledger yet".to_owned());
    }
    let opened = if writable {
        Ledger::open(path).and_then(|ledger| {
            ledger.keep_writes_durable()?;
            Ok(ledger)
        })
    } else {
        Ledger::open_read_only(path)
    };
    opened
        .and_then(|ledger| ledger.damage_probe().map(|()| ledger))
        .map_err(|e| e.to_string())
}

/// What a file at the path looked like when it was refused: tried again once any of
/// it changes (a demo fills the same file it made, so the inode alone is not enough).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FileStamp {
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    fn of(path: &std::path::Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(FileStamp {
            inode,
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// Turns writes off while the file is gone ([`Model::writes_off`]), and back to how the
/// console was opened.
///
/// [`Model::writes_off`]: super::super::model::Model::writes_off
fn set_gone(app: &mut App, gone: bool) {
    app.model.ledger_gone = gone;
}
