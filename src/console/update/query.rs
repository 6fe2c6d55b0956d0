//! The query and the order of the current view: sorting, and counting only the view a
//! filter changed. A large list's filter is read off the console's thread by
//! [`super::reader`].

use super::App;
use super::reader::{Job, Reading};
use crate::console::action::Action;
use crate::console::layout;
use crate::console::model::{Flash, Overlay};
use crate::filter::Scope;
use crate::inert::inert;
use crate::store::StoreError;

/// Says that the filter set is no query, and why. While the reviewer types it the
/// list says so in its place, whole, and the prompt points there: a message line cut
/// at the width of the screen hid the why.
pub(super) fn not_a_query(app: &mut App, e: &crate::filter::FilterError) {
    if !matches!(app.model.overlay, Overlay::Filter { .. }) {
        let view = app.model.tab.title();
        app.model.flash = Flash::error(inert(&format!("{view} filter {e}")));
    }
}

/// Takes the filter text typed, at every key: searched at once in a small view; in a
/// large one a search starts on another thread, and stops the one the key before
/// started (no pause is waited for).
pub(super) fn type_filter(app: &mut App, text: String) -> Result<(), StoreError> {
    apply_filter(app, Some(text))
}

/// Sets the current list's filter to `text`: read at once in a small list; a large
/// one (a view's, or the jobs of a large finding) is searched on another thread
/// ([`super::reader::Search`]), so no key waits for a million rows, and its page is
/// put back when the search ends.
pub(super) fn apply_filter(app: &mut App, text: Option<String>) -> Result<(), StoreError> {
    let id = app.model.list_id();
    let me = app.model.reviewer.clone();
    let off_thread_rows = app.search.off_thread_rows;
    let Some(list) = app.model.list_of_mut(id) else {
        return app.set_filter(text);
    };
    if list.count().all < off_thread_rows {
        return app.set_filter(text);
    }
    let text = text.filter(|t| !t.is_empty());
    if let Err(e) = list.set_filter(text.clone(), &me) {
        not_a_query(app, &e);
        return Ok(());
    }
    // A copy of the page, searched on another thread and put back.
    let Some(page) = app.model.page_of(id) else {
        return Ok(());
    };
    let height = layout::search_capacity(&app.model);
    app.search.search(Job {
        location: app.ledger.location(),
        list: id,
        text,
        revision: page.list().revision(),
        page,
        reading: Reading::Search,
        now: app.model.now,
        height,
        count_whole: false,
    });
    // The title, the message line and the dimmed rows say it until the rows come.
    app.model.searching = Some(id);
    Ok(())
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
        // Callback lists and Aged are read both ways, by any of their columns; the
        // other job, request and rejected-line lists keep the one order their indexes
        // give.
        if !matches!(list.scope(), Scope::Callbacks | Scope::AgedJobs) {
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
