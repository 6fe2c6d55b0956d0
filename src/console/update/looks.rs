//! New since you looked: the reviewer's last looks are read when the console opens,
//! each list's new rows counted on its tab, and a look recorded when the reviewer
//! leaves a list (another tab, or the console).

use crate::review::looks::{self, AGED, HELD, QUARANTINED};
use crate::store::StoreError;

use super::super::tab::Tab;
use super::App;
use crate::decision::Disposition;

/// The name a list's looks are kept under.
fn list_of(tab: Tab) -> Option<&'static str> {
    match tab {
        Tab::Held => Some(HELD),
        Tab::Quarantined => Some(QUARANTINED),
        Tab::Aged => Some(AGED),
        _ => None,
    }
}

/// Reads the reviewer's last look at each list.
pub(super) fn read(app: &mut App) -> Result<(), StoreError> {
    for tab in Tab::ALL {
        if let Some(list) = list_of(*tab)
            && let Some(look) = app.ledger.last_look(&app.model.reviewer, list)?
        {
            app.model.looks.insert(*tab, look);
        }
    }
    Ok(())
}

/// Counts each list's rows new since the reviewer's last look at it.
pub(super) fn recount(app: &mut App) -> Result<(), StoreError> {
    let me = app.model.reviewer.clone();
    let now = app.model.now;
    for (tab, look) in &app.model.looks {
        let n = match tab {
            Tab::Held => app.ledger.count_new_since(Disposition::Hold, look, &me)?,
            Tab::Quarantined => app
                .ledger
                .count_new_since(Disposition::Quarantine, look, &me)?,
            Tab::Aged => app
                .ledger
                .aged_count_matching(now, &looks::became_overdue(look))?,
            _ => 0,
        };
        app.model.new_counts.insert(*tab, n);
    }
    Ok(())
}

/// The reviewer leaves `tab`: what it holds now is what they saw. Nothing is written
/// on a console that writes nothing.
pub(super) fn leave(app: &mut App, tab: Tab) -> Result<(), StoreError> {
    let Some(list) = list_of(tab) else {
        return Ok(());
    };
    if app.model.writes_off() {
        return Ok(());
    }
    let look = looks::record(&mut app.ledger, &app.model.reviewer, list, app.model.now)?;
    app.model.looks.insert(tab, look);
    app.model.new_counts.insert(tab, 0);
    Ok(())
}

/// `n` / `N`: the selection goes on to the next (or previous) row new since the last
/// look, within `within` rows.
pub(super) fn step_to_new(app: &mut App, down: bool, within: usize) -> Result<(), StoreError> {
    use super::super::action::Move;
    use super::super::model::List;
    let movement = if down { Move::Down } else { Move::Up };
    let selected = |app: &App| app.model.list().and_then(List::detail_key);
    let start = selected(app);
    for _ in 0..within {
        let before = selected(app);
        app.step(movement)?;
        if selected(app) == before {
            break;
        }
        let list = app.model.list();
        let new = list.is_some_and(|l| app.model.is_new(l.callback(), l.aged()));
        if new {
            return Ok(());
        }
    }
    // None further: the cursor goes back where it was, and says so.
    while selected(app) != start {
        let before = selected(app);
        app.step(if down { Move::Up } else { Move::Down })?;
        if selected(app) == before {
            break;
        }
    }
    let open_only = app.model.list().is_some_and(|l| l.count().open_only);
    let said = match (down, open_only) {
        (true, false) => "no new row below",
        (false, false) => "no new row above",
        // A colleague's closing answer takes its row out of the open questions.
        (true, true) => "no new open question below (O shows the answered ones too)",
        (false, true) => "no new open question above (O shows the answered ones too)",
    };
    app.model.flash = super::super::model::Flash::info(said);
    Ok(())
}
