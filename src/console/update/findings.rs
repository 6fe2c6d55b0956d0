//! Enter on a Reconcile finding lists the jobs behind it; Esc goes back to the findings.

use crate::store::StoreError;

use super::super::model::Flash;
use super::App;

/// Opens the selected finding: its jobs, counted and read from the first.
pub(super) fn open(app: &mut App) -> Result<(), StoreError> {
    app.model.findings.open();
    super::reads::recount(&app.ledger, &mut app.model)?;
    app.reload_page()?;
    let finding = app.model.findings.selected;
    if app.model.list().is_some_and(|jobs| !jobs.has_selection()) {
        app.model.flash = Flash::info(format!("{}: no job", finding.label()));
    }
    Ok(())
}

/// Back from the jobs of a finding to the findings.
pub(super) fn close(app: &mut App) {
    app.model.findings.jobs = None;
    app.model.flash = Flash::info("back to the findings");
}
