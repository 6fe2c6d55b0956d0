//! `e` on a callback: its evidence bundle (as `jobledger export SEQ` prints it) written
//! to a Markdown file in the console's directory, under a name no file has: the
//! message line says where it went.

use crate::evidence::bundle::{Bundle, BundleError, Subject, file, markdown};
use crate::inert::inert_path;
use crate::store::StoreError;

use super::super::model::Flash;
use super::App;

/// Writes the selected callback's bundle (in the list or its detail).
pub(super) fn case(app: &mut App) -> Result<(), StoreError> {
    let Some(seq) = app.model.selected_callback().map(|c| c.seq) else {
        app.model.flash = Flash::error(
            "the evidence bundle is of a callback (views 1, 2 and 5): select one first; for a job, `jobledger export --job JOB`",
        );
        return Ok(());
    };
    let bundle = match Bundle::read(&app.ledger, &Subject::Callback(seq), app.model.now) {
        Ok(bundle) => bundle,
        Err(BundleError::Store(e)) => return Err(e),
        Err(other) => {
            app.model.flash = Flash::error(other.to_string());
            return Ok(());
        }
    };
    let text = markdown::markdown(&bundle);
    let stem = format!("jobledger-case-{seq}");
    app.model.flash = match file::write_new(&app.export_dir, &stem, "md", text.as_bytes()) {
        Ok(path) => {
            let taken = if path.file_name() == Some(std::ffi::OsStr::new(&format!("{stem}.md"))) {
                String::new()
            } else {
                format!(" ({stem}.md is taken)")
            };
            Flash::info(format!(
                "evidence bundle of #{seq} written to {}{taken}",
                inert_path(&path)
            ))
        }
        Err(e) => Flash::error(format!(
            "the evidence bundle of #{seq} was not written in {}: {e}",
            inert_path(&app.export_dir)
        )),
    };
    Ok(())
}
