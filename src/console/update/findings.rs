//! Enter on a Reconcile finding lists the jobs behind it; Esc goes back to the findings.

use crate::store::StoreError;

use super::super::model::{Flash, List, ListId};
use super::App;
use super::reads::LedgerRows;

/// Opens the selected finding: its jobs, counted and read from the first.
pub(super) fn open(app: &mut App) -> Result<(), StoreError> {
    forget(app);
    app.model.findings.open();
    let rows = LedgerRows::new(&app.ledger, app.model.now);
    if let Some(jobs) = &mut app.model.findings.jobs {
        List::recount(jobs, &rows)?;
    }
    app.reload_page()?;
    let finding = app.model.findings.selected;
    if app.model.list().is_some_and(|jobs| !jobs.has_selection()) {
        app.model.flash = Flash::info(format!("{}: no job", finding.label()));
    }
    Ok(())
}

/// Back from the jobs of a finding to the findings.
pub(super) fn close(app: &mut App) {
    forget(app);
    app.model.findings.jobs = None;
    app.model.flash = Flash::info("back to the findings");
}

/// Stops whatever is read off the console's thread of a finding's jobs (a search of
/// its filter, a refresh's count): they are closed, or about to be, and a count of a
/// million jobs would go on taking a core for nobody.
pub(super) fn forget(app: &mut App) {
    app.stop_reading(|list| matches!(list, ListId::FindingJobs { .. }));
}
