//! The query and the order of the current view: sorting, and counting only the view a
//! filter changed.

use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use super::App;
use super::reads::LedgerRows;
use crate::console::action::Action;
use crate::console::layout;
use crate::console::model::{Flash, Overlay, TabPage};
use crate::console::tab::Tab;
use crate::filter::Scope;
use crate::inert::inert;
use crate::store::{Ledger, StoreError};

/// Counts the current view again under its filter: only its query changed, and every
/// other view's count still stands (a keystroke costs one count, not eight).
pub(super) fn recount_shown(app: &mut App) -> Result<(), StoreError> {
    let rows = LedgerRows::new(&app.ledger, app.model.now);
    match app.model.lists.of_mut(app.model.tab) {
        Some(list) => list.recount(&rows),
        None => Ok(()),
    }
}

/// Says that the filter set is no query, and why. While the reviewer types it the
/// list says so in its place, whole, and the prompt points there: a message line cut
/// at the width of the screen hid the why.
pub(super) fn not_a_query(app: &mut App, e: &crate::filter::FilterError) {
    if !matches!(app.model.overlay, Overlay::Filter { .. }) {
        let view = app.model.tab.title();
        app.model.flash = Flash::error(inert(&format!("{view} filter {e}")));
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
    let large = app.search.off_thread_rows;
    let me = app.model.reviewer.clone();
    let Some(list) = app.model.lists.of_mut(app.model.tab) else {
        return Ok(());
    };
    if list.count().all < large {
        return app.set_filter(Some(text));
    }
    list.set_filter_text(Some(text).filter(|t| !t.is_empty()), &me);
    app.filter_typed_at = Some(Instant::now());
    app.model.searching = Some(app.model.tab);
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
    apply_filter(app, text)
}

/// Sets the current view's filter to `text`: read at once in a small view; a large
/// one is searched on another thread ([`Search`]), so no key waits for a million
/// rows, and its page is put back when the search ends.
pub(super) fn apply_filter(app: &mut App, text: Option<String>) -> Result<(), StoreError> {
    let tab = app.model.tab;
    let me = app.model.reviewer.clone();
    let Some(page) = app.model.lists.tab_page_mut(tab) else {
        return app.set_filter(text);
    };
    let list = page.list_mut();
    if list.count().all < app.search.off_thread_rows {
        return app.set_filter(text);
    }
    let text = text.filter(|t| !t.is_empty());
    if let Err(e) = list.set_filter(text.clone(), &me) {
        not_a_query(app, &e);
        return Ok(());
    }
    // A copy of the page, searched on another thread and put back.
    let page = page.clone();
    let height = layout::list_capacity(&app.model);
    app.search.start(
        app.ledger.location(),
        tab,
        text,
        page,
        app.model.now,
        height,
    );
    // The title, the message line and the dimmed rows say it until the rows come.
    app.model.searching = Some(tab);
    Ok(())
}

/// A finished search: the page it read, or why it could not.
type Searched = Result<TabPage, StoreError>;

/// The search of a large view's filter, off the console's thread: at most one runs;
/// a newer one makes the older one's page unwanted.
pub(super) struct Search {
    /// The search running: the view, the filter text it searched, and its answer.
    running: Option<(Tab, Option<String>, Receiver<Searched>)>,
    /// Views of at least this many rows are searched here rather than in place.
    pub off_thread_rows: i64,
}

impl Default for Search {
    fn default() -> Self {
        Search {
            running: None,
            off_thread_rows: SEARCH_ON_PAUSE_ROWS,
        }
    }
}

impl Search {
    /// Starts reading `page` of `tab` under `text` on its own read-only connection.
    fn start(
        &mut self,
        location: crate::store::Location,
        tab: Tab,
        text: Option<String>,
        mut page: TabPage,
        now: crate::clock::Timestamp,
        height: usize,
    ) {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let searched =
                Ledger::open_at(&location, crate::store::OpenMode::ReadOnly).and_then(|ledger| {
                    let rows = LedgerRows::new(&ledger, now);
                    page.list_mut().recount(&rows)?;
                    page.list_mut().reload(&rows, height)?;
                    Ok(page)
                });
            // The console may have left meanwhile; then nobody needs the answer.
            let _ = tx.send(searched);
        });
        self.running = Some((tab, text, rx));
    }

    /// Is a search running?
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }
}

/// On a tick: puts back the page a finished search read, if its view still wants it
/// (the same filter text), and reads the detail pane again.
pub(super) fn take_search(app: &mut App) -> Result<(), StoreError> {
    let Some((tab, text, rx)) = &app.search.running else {
        return Ok(());
    };
    let searched = match rx.try_recv() {
        Ok(searched) => searched,
        Err(TryRecvError::Empty) => return Ok(()),
        Err(TryRecvError::Disconnected) => {
            app.search.running = None;
            return Ok(());
        }
    };
    let (tab, text) = (*tab, text.clone());
    app.search.running = None;
    let page = match searched {
        Ok(page) => page,
        Err(e) => {
            app.model.searching = None;
            return Err(e);
        }
    };
    let wanted = app
        .model
        .lists
        .of(tab)
        .is_some_and(|list| list.filter() == text.as_deref());
    if wanted {
        let found = page.list().count();
        app.model.lists.put(tab, page);
        if app.model.searching == Some(tab) {
            app.model.searching = None;
        }
        if app.model.tab == tab {
            app.model.flash = Flash::info(match found.matching {
                Some(_) => format!("{} rows match", found.shown_of_all()),
                None => format!("all {} rows", found.all),
            });
            app.reload_detail()?;
        }
    }
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
