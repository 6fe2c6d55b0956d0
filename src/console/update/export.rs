//! `e` on a callback or a job: its evidence bundle (as `jobledger export SEQ` or
//! `export --job JOB` prints it) written to a Markdown file in the console's
//! directory, under a name no file has: the message line says where it went.

use crate::evidence::bundle::{Bundle, BundleError, Subject, file, markdown};
use crate::inert::{inert, inert_path};
use crate::store::StoreError;

use super::super::model::Flash;
use super::App;

/// Writes the bundle of the selected callback (in the list or its detail), or else of
/// the selected row's job (Aged, Failed, a finding's jobs).
pub(super) fn case(app: &mut App) -> Result<(), StoreError> {
    let subject = if let Some(callback) = app.model.selected_callback() {
        Subject::Callback(callback.seq)
    } else if let Some(job) = app.model.list().and_then(|l| l.job()) {
        Subject::Job(job.to_owned())
    } else {
        app.model.flash =
            Flash::error("the evidence bundle is of a callback or a job: select one first");
        return Ok(());
    };
    let bundle = match Bundle::read(&app.ledger, &subject, app.model.now) {
        Ok(bundle) => bundle,
        Err(BundleError::Store(e)) => return Err(e),
        Err(other) => {
            app.model.flash = Flash::error(other.to_string());
            return Ok(());
        }
    };
    let text = markdown::markdown(&bundle);
    let (stem, named) = match &subject {
        Subject::Callback(seq) => (format!("jobledger-case-{seq}"), format!("#{seq}")),
        Subject::Job(job) => (
            format!("jobledger-job-{}", file::safe_stem(job)),
            format!("job {}", inert(job)),
        ),
    };
    app.model.flash = match file::write_new(&app.export_dir, &stem, "md", text.as_bytes()) {
        Ok(path) => {
            let taken = if path.file_name() == Some(std::ffi::OsStr::new(&format!("{stem}.md"))) {
                String::new()
            } else {
                format!(" ({} is taken)", inert(&format!("{stem}.md")))
            };
            Flash::info(format!(
                "evidence bundle of {named} written to {}{taken}",
                inert_path(&path)
            ))
        }
        Err(e) => Flash::error(format!(
            "the evidence bundle of {named} was not written in {}: {e}",
            inert_path(&app.export_dir)
        )),
    };
    Ok(())
}
