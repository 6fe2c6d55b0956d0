//! The query and the order of the current view: sorting, and counting only the view a
//! filter changed.

use super::App;
use super::reads::LedgerRows;
use crate::console::action::Action;
use crate::console::model::Flash;
use crate::filter::Scope;
use crate::store::StoreError;

/// Counts the current view again under its filter: only its query changed, and every
/// other view's count still stands (a keystroke costs one count, not eight).
pub(super) fn recount_shown(app: &mut App) -> Result<(), StoreError> {
    let rows = LedgerRows::new(&app.ledger, app.model.now);
    match app.model.lists.of_mut(app.model.tab) {
        Some(list) => list.recount(&rows),
        None => Ok(()),
    }
}

impl App {
    /// `s` sorts the current view by its next column, `S` reverses the order; the list
    /// is read again from its top, by key.
    pub(super) fn sort(&mut self, action: Action) -> Result<(), StoreError> {
        let title = self.model.tab.title();
        let Some(list) = self.model.lists.of_mut(self.model.tab) else {
            self.model.flash = Flash::info(format!("the {title} view has nothing to sort"));
            return Ok(());
        };
        let columns = list.sorts();
        // Only callback lists are read both ways; the job, request and rejected-line
        // lists keep the one order their indexes give.
        if list.scope() != Scope::Callbacks {
            self.model.flash = Flash::info(format!("the {title} view keeps its own order"));
            return Ok(());
        }
        if columns.len() < 2 && action == Action::SortNext {
            self.model.flash = Flash::info(format!(
                "the {title} view sorts only in ledger order (S reverses it)"
            ));
            return Ok(());
        }
        let sort = list.sort();
        let sort = if action == Action::SortReverse {
            sort.reversed()
        } else {
            sort.next_column(columns)
        };
        list.set_sort(sort);
        self.model.flash = Flash::info(
            sort.label()
                .unwrap_or_else(|| "back in ledger order".to_owned()),
        );
        self.reload_page()?;
        self.reload_detail()
    }
}
