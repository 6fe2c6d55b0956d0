//! The console keeps to the file at its path (issue 11, item 5).
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
    let path = app.ledger.path().to_path_buf();
    app.ledger.leave_the_log_empty();
    let opened = if app.writable {
        Ledger::open(&path).and_then(|ledger| {
            ledger.keep_writes_durable()?;
            Ok(ledger)
        })
    } else {
        Ledger::open_read_only(&path)
    };
    let ledger = match opened {
        Ok(ledger) => ledger,
        Err(e) => {
            // Said once: the next ticks find it replaced still, and stay quiet.
            if !app.model.ledger_gone {
                set_gone(app, true);
                app.model.flash = Flash::error(format!(
                    "{name} was replaced by a file that does not open ({e}); writes are off"
                ));
            }
            return Ok(());
        }
    };
    app.ledger = ledger;
    app.data_version = app.ledger.data_version()?;
    set_gone(app, false);
    // A form, or marks, name rows by their number in the old file: in the new one
    // that number may be another callback.
    let closed = matches!(app.model.overlay, Overlay::Form(_));
    if closed {
        app.model.overlay = Overlay::None;
    }
    app.model.marks = Marks::default();
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

/// Turns writes off while the file is gone, and back to how the console was opened.
fn set_gone(app: &mut App, gone: bool) {
    app.model.ledger_gone = gone;
    app.model.read_only = gone || !app.writable;
}
