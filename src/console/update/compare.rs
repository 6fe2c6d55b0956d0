//! `C` on a held callback: reads what the comparison pane sets side by side, and
//! scrolls or closes it.

use crate::decision::Disposition;
use crate::store::{CallbackRow, Ledger, StoreError};

use super::super::action::Action;
use super::super::model::compare::{Beside, Comparison, Report, payload_of};
use super::super::model::detail::RAW_DETAIL_BYTES;
use super::super::model::{Flash, List, Overlay};
use super::App;

/// Callbacks of the job read beside the held one, at most (a job has a handful).
const NEIGHBOURS: usize = 50;

/// Opens the comparison of the selected held callback (in the list or its detail).
pub(super) fn open(app: &mut App) -> Result<(), StoreError> {
    let selected = app
        .model
        .list()
        .and_then(List::callback)
        .or_else(|| app.model.detail.as_ref().and_then(|d| d.callback.as_ref()))
        .cloned();
    let Some(held) = selected.filter(|c| c.disposition == Disposition::Hold) else {
        app.model.flash =
            Flash::error("the comparison is of a held callback (view 1): select one first");
        return Ok(());
    };
    let comparison = read(&app.ledger, held)?;
    app.model.overlay = Overlay::Compare(Box::new(comparison));
    Ok(())
}

/// Reads what the job's other callbacks report beside the selected held callback,
/// when the selection has come to one not read yet (a read a selection, not a key).
pub(super) fn read_beside(app: &mut App) -> Result<(), StoreError> {
    let Some(held) = app
        .model
        .selected_callback()
        .filter(|c| c.disposition == Disposition::Hold)
    else {
        return Ok(());
    };
    if app.model.beside(held.seq).is_some() {
        return Ok(());
    }
    let held = held.clone();
    let seq = held.seq;
    let reading = read(&app.ledger, held)?.reading();
    app.model.beside = Some(Beside { seq, reading });
    Ok(())
}

/// Reads the held callback's job, attempts and other callbacks, with their payloads.
fn read(ledger: &Ledger, held: CallbackRow) -> Result<Comparison, StoreError> {
    let report = |row: CallbackRow| -> Result<Report, StoreError> {
        let payload = payload_of(ledger.raw_head(row.line_seq, RAW_DETAIL_BYTES)?);
        Ok(Report { row, payload })
    };
    let (job, attempts, others) = match held.job_id.as_deref() {
        Some(job_id) => (
            ledger.job(job_id)?,
            ledger.attempts(job_id)?,
            ledger.callbacks_of_job(job_id, NEIGHBOURS)?,
        ),
        None => (None, Vec::new(), Vec::new()),
    };
    let others = others
        .into_iter()
        .filter(|c| c.seq != held.seq)
        .map(report)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Comparison {
        held: report(held)?,
        others,
        attempts,
        job,
        scroll: 0,
    })
}

/// Scrolls the comparison, or closes it.
pub(super) fn action(app: &mut App, action: Action) {
    let (body, now) = (super::layout::body_area(&app.model), app.model.now);
    let Overlay::Compare(comparison) = &mut app.model.overlay else {
        return;
    };
    match action {
        Action::Back => app.model.overlay = Overlay::None,
        Action::Move(movement) => {
            let last = super::super::views::compare::last_scroll(body, comparison, now);
            comparison.scroll = super::scrolled(comparison.scroll.min(last), movement, 10, last);
        }
        _ => {}
    }
}
