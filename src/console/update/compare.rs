//! `C` on a held callback: reads what the comparison pane sets side by side, and
//! scrolls or closes it.

use crate::decision::Disposition;
use crate::evidence::compare::read;
use crate::store::StoreError;

use super::super::action::Action;
use super::super::model::compare::{Beside, ComparePane};
use super::super::model::{Flash, List, Overlay};
use super::App;

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
    app.model.overlay = Overlay::Compare(Box::new(ComparePane {
        comparison,
        scroll: 0,
    }));
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

/// Scrolls the comparison, or closes it.
pub(super) fn action(app: &mut App, action: Action) {
    let (body, now) = (super::layout::body_area(&app.model), app.model.now);
    let Overlay::Compare(pane) = &mut app.model.overlay else {
        return;
    };
    match action {
        Action::Back => app.model.overlay = Overlay::None,
        Action::Move(movement) => {
            let last = super::super::views::compare::last_scroll(body, &pane.comparison, now);
            pane.scroll = super::scrolled(pane.scroll.min(last), movement, 10, last);
        }
        _ => {}
    }
}
