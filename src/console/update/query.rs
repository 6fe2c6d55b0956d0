//! The query and the order of the current view: sorting, and counting only the view a
//! filter changed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex};

use super::App;
use super::reads::LedgerRows;
use crate::console::action::Action;
use crate::console::layout;
use crate::console::model::counts::Count;
use crate::console::model::{Flash, ListId, Overlay, TabPage};
use crate::filter::Scope;
use crate::inert::inert;
use crate::store::{Canceller, Ledger, StoreError};

/// Says that the filter set is no query, and why. While the reviewer types it the
/// list says so in its place, whole, and the prompt points there: a message line cut
/// at the width of the screen hid the why.
pub(super) fn not_a_query(app: &mut App, e: &crate::filter::FilterError) {
    if !matches!(app.model.overlay, Overlay::Filter { .. }) {
        let view = app.model.tab.title();
        app.model.flash = Flash::error(inert(&format!("{view} filter {e}")));
    }
}

/// A list of at least this many rows (a view's, or a finding's jobs) searches its
/// filter on another thread: a search of a million rows may take longer than a
/// keystroke should wait.
pub(super) const SEARCH_OFF_THREAD_ROWS: i64 = 10_000;

/// Takes the filter text typed, at every key: searched at once in a small view; in a
/// large one a search starts on another thread, and stops the one the key before
/// started (no pause is waited for).
pub(super) fn type_filter(app: &mut App, text: String) -> Result<(), StoreError> {
    apply_filter(app, Some(text))
}

/// Sets the current list's filter to `text`: read at once in a small list; a large
/// one (a view's, or the jobs of a large finding) is searched on another thread
/// ([`Search`]), so no key waits for a million rows, and its page is put back when
/// the search ends.
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
    app.search
        .start(app.ledger.location(), id, text, page, app.model.now, height);
    // The title, the message line and the dimmed rows say it until the rows come.
    app.model.searching = Some(id);
    Ok(())
}

/// What a search sends back: first its page of rows, then their count (the rows are
/// what the person looks at, the count what they can wait for); or why it could not.
enum Found {
    Rows(TabPage),
    Count(Count),
}

/// The search running, and how far it got.
struct Running {
    /// The list searched.
    list: ListId,
    /// The filter text it searched.
    text: Option<String>,
    /// Its page, then its count.
    found: Receiver<Result<Found, StoreError>>,
    /// Its page is back (its count may not be yet).
    rows_back: bool,
}

/// The search of a large view's filter, off the console's thread: at most one runs;
/// a newer one stops the older one, whose page or count nobody wants any more.
pub(super) struct Search {
    /// The search running.
    running: Option<Running>,
    /// How to stop the search running.
    stop: Stop,
    /// Views of at least this many rows are searched here rather than in place.
    pub off_thread_rows: i64,
    /// Searches stopped by a newer one before they ended.
    pub stopped: usize,
    /// Pages and counts taken back from searches, so the loop knows to draw.
    pub taken: u64,
    /// The connection of the last search that ended, kept for the next one: opening
    /// one per key cost its setup each time, and each began with a cold page cache.
    spare: Arc<Mutex<Option<Ledger>>>,
    /// Connections opened for searches.
    pub opened: Arc<std::sync::atomic::AtomicUsize>,
}

impl Default for Search {
    fn default() -> Self {
        Search {
            running: None,
            stop: Stop::default(),
            off_thread_rows: SEARCH_OFF_THREAD_ROWS,
            stopped: 0,
            taken: 0,
            spare: Arc::default(),
            opened: Arc::default(),
        }
    }
}

/// How one search is stopped: a flag it reads before each statement, and the
/// canceller of its connection once it has one (set under the lock, so a stop never
/// falls between the two).
#[derive(Default, Clone)]
struct Stop {
    stopped: Arc<AtomicBool>,
    canceller: Arc<Mutex<Option<Canceller>>>,
}

impl Stop {
    /// Stops the search: it starts no statement, and the one it runs ends.
    fn stop(&self) {
        let canceller = self
            .canceller
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.stopped.store(true, Ordering::SeqCst);
        if let Some(canceller) = canceller.as_ref() {
            canceller.cancel();
        }
    }

    /// Has the search been stopped?
    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// Takes the search's connection back once it has ended: whether it may serve
    /// another search (a search stopped meanwhile may have a cancel on its way to it).
    fn ended(&self) -> bool {
        let mut canceller = self
            .canceller
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *canceller = None;
        !self.stopped()
    }

    /// Hands the search's connection over, unless the search was stopped already:
    /// whether it is to go on.
    fn go_on_with(&self, ledger: &Ledger) -> bool {
        let mut canceller = self
            .canceller
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.stopped() {
            return false;
        }
        *canceller = Some(ledger.canceller());
        true
    }
}

impl Search {
    /// Starts reading `page` of `list` under `text` on its own read-only connection.
    fn start(
        &mut self,
        location: crate::store::Location,
        list: ListId,
        text: Option<String>,
        mut page: TabPage,
        now: crate::clock::Timestamp,
        height: usize,
    ) {
        if self.running.take().is_some() {
            self.stop.stop();
            self.stopped += 1;
        }
        let (tx, rx) = mpsc::channel();
        let stop = Stop::default();
        self.stop = stop.clone();
        let spare = Arc::clone(&self.spare);
        let opened = Arc::clone(&self.opened);
        std::thread::spawn(move || {
            // A stopped search, or a console that left: nobody needs what it sends, and
            // its receiver is gone.
            let send = |found: Result<Found, StoreError>| {
                let _ = tx.send(found);
            };
            let kept = spare
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            let ledger = match kept.map_or_else(
                || {
                    opened.fetch_add(1, Ordering::SeqCst);
                    Ledger::open_at(&location, crate::store::OpenMode::ReadOnly)
                },
                Ok,
            ) {
                Ok(ledger) => ledger,
                Err(e) => return send(Err(e)),
            };
            if !stop.go_on_with(&ledger) {
                return;
            }
            match search(&ledger, &mut page, now, height, &stop, &send) {
                // Kept for the next search, unless a stop may still reach it.
                Ok(()) if stop.ended() => {
                    *spare
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(ledger);
                }
                Ok(()) => {}
                Err(_) if stop.stopped() => {}
                Err(e) => send(Err(e)),
            }
        });
        self.running = Some(Running {
            list,
            text,
            found: rx,
            rows_back: false,
        });
    }

    /// Forgets the kept connection (the ledger it reads was replaced).
    pub fn forget_connection(&self) {
        *self
            .spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    /// Is a search running (its rows or its count still to come)?
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// Are a search's rows still to come?
    pub fn rows_pending(&self) -> bool {
        self.running.as_ref().is_some_and(|r| !r.rows_back)
    }
}

/// Reads `page` on `ledger`: sends its first rows, then (unless stopped meanwhile)
/// their count.
fn search(
    ledger: &Ledger,
    page: &mut TabPage,
    now: crate::clock::Timestamp,
    height: usize,
    stop: &Stop,
    send: &dyn Fn(Result<Found, StoreError>),
) -> Result<(), StoreError> {
    let rows = LedgerRows::new(ledger, now);
    let list = page.list_mut();
    list.await_count();
    list.reload(&rows, height)?;
    // A page that holds every row the filter keeps is their count: it comes with
    // its rows.
    let counted = list.count_from_page();
    send(Ok(Found::Rows(page.clone())));
    if counted || stop.stopped() {
        return Ok(());
    }
    let list = page.list_mut();
    list.recount(&rows)?;
    send(Ok(Found::Count(list.count())));
    Ok(())
}

/// Takes the next thing the running search sent, if any: its page, put back if its
/// list still wants it (it is still there, a finding's jobs in the same opening of
/// it, with the same filter text), with the detail pane read again; or, at a later
/// call, its count, taken if the list still waits for it. One a call, so the rows
/// are drawn before the count is taken even when both have come.
pub(super) fn take_search(app: &mut App) -> Result<(), StoreError> {
    let Some(running) = &mut app.search.running else {
        return Ok(());
    };
    let found = match running.found.try_recv() {
        Ok(found) => found,
        Err(TryRecvError::Empty) => return Ok(()),
        Err(TryRecvError::Disconnected) => {
            app.search.running = None;
            return Ok(());
        }
    };
    app.search.taken += 1;
    let (id, text) = (running.list, running.text.clone());
    let wanted = app
        .model
        .list_of(id)
        .is_some_and(|list| list.filter() == text.as_deref());
    match found {
        Err(e) => {
            app.search.running = None;
            if app.model.searching == Some(id) {
                app.model.searching = None;
            }
            return Err(e);
        }
        Ok(Found::Rows(page)) => {
            running.rows_back = true;
            if wanted {
                rows_found(app, id, page)?;
            }
        }
        Ok(Found::Count(count)) => {
            app.search.running = None;
            if wanted {
                count_found(app, id, count);
            }
        }
    }
    Ok(())
}

/// Puts a search's first rows on screen, with their count when the page held them
/// all (else it is still to come).
fn rows_found(app: &mut App, id: ListId, page: TabPage) -> Result<(), StoreError> {
    let count = page.list().count();
    app.model.put_page(id, page);
    if app.model.searching == Some(id) {
        app.model.searching = None;
    }
    if app.model.list_id() == id {
        // A message from before would stand in for the count being made.
        app.model.flash = if count.counting {
            None
        } else {
            found_flash(count)
        };
        app.reload_detail()?;
    }
    Ok(())
}

/// What a search found, said once its count is known.
fn found_flash(count: Count) -> Option<Flash> {
    Flash::info(match count.matching {
        Some(_) => format!("{} rows match", count.shown_of_all()),
        None => format!("all {} rows", count.all),
    })
}

/// Takes a search's count, unless the list was counted again meanwhile (a refresh).
fn count_found(app: &mut App, id: ListId, count: Count) {
    let Some(list) = app.model.list_of_mut(id) else {
        return;
    };
    if !list.count().counting {
        return;
    }
    list.set_count(count);
    if app.model.list_id() == id {
        app.model.flash = found_flash(count);
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

#[cfg(test)]
mod tests {
    use super::Stop;

    #[test]
    fn a_search_stopped_before_it_ended_keeps_no_connection() {
        // A stop sends its cancel to the connection the search holds: were that
        // connection kept, the cancel could stop the next search on it.
        let ended = Stop::default();
        assert!(
            ended.ended(),
            "a search that ended gives its connection back"
        );
        let stopped = Stop::default();
        stopped.stop();
        assert!(!stopped.ended(), "a stopped search's connection was kept");
    }
}
