//! The query and the order of the current view: sorting, and counting only the view a
//! filter changed.

use std::time::{Duration, Instant};

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

/// A view of at least this many rows searches its filter when typing pauses, not at
/// every key: a search of a million rows takes longer than a keystroke should.
pub(super) const SEARCH_ON_PAUSE_ROWS: i64 = 10_000;

/// How long typing pauses before a large view is searched.
const PAUSE: Duration = Duration::from_millis(250);

/// Takes the filter text typed: searched at once in a small view; in a large one the
/// text is kept and searched when typing pauses ([`search_when_paused`]) or on Enter.
pub(super) fn type_filter(app: &mut App, text: String) -> Result<(), StoreError> {
    let Some(list) = app.model.lists.of_mut(app.model.tab) else {
        return Ok(());
    };
    if list.count().all < SEARCH_ON_PAUSE_ROWS {
        return app.set_filter(Some(text));
    }
    list.set_filter_text(Some(text).filter(|t| !t.is_empty()));
    app.filter_typed_at = Some(Instant::now());
    Ok(())
}

/// On a tick: searches the typed filter of a large view once typing has paused.
pub(super) fn search_when_paused(app: &mut App) -> Result<(), StoreError> {
    match app.filter_typed_at {
        Some(at) if at.elapsed() >= PAUSE => search_now(app),
        _ => Ok(()),
    }
}

/// Searches the typed filter now, if one waits (Enter).
pub(super) fn search_now(app: &mut App) -> Result<(), StoreError> {
    if app.filter_typed_at.take().is_none() {
        return Ok(());
    }
    let text = app.model.filter().map(str::to_owned);
    app.set_filter(text)
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
