//! Large lists read off the console's thread, one at a time ([`Search`]): a search of a
//! new filter, or a refresh's recount, each from a copy of its list's page, and what
//! comes back put on screen only while its list still wants it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex};

use super::App;
use super::reads::LedgerRows;
use crate::console::layout;
use crate::console::model::counts::Count;
use crate::console::model::{Flash, ListId, TabPage};
use crate::store::{Canceller, Ledger, StoreError};
/// A list of at least this many rows (a view's, or a finding's jobs) searches its
/// filter on another thread: a search of a million rows may take longer than a
/// keystroke should wait.
pub(super) const SEARCH_OFF_THREAD_ROWS: i64 = 10_000;

/// What a search sends back: first its page of rows, then their count (the rows are
/// what the person looks at, the count what they can wait for); or why it could not.
enum Found {
    Rows(TabPage),
    Count(Count),
}

/// What a run off the console's thread reads of its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// A filter a person set: the first rows under it, then their count.
    Search,
    /// A refresh of the list on screen: its page again, then its count.
    Reread,
    /// A refresh of a list whose rows are not read here (not on screen, or read in
    /// place): its count alone.
    Recount,
    /// The page on screen again, its count standing: a refresh's page came back after
    /// a key moved the page, and went unused.
    Rows,
}

/// One list to read off the console's thread, from a copy of its page.
#[derive(Clone)]
pub(super) struct Job {
    /// The ledger, read on a connection of the run's own.
    pub location: crate::store::Location,
    /// The list read.
    pub list: ListId,
    /// Its filter text when the copy was taken: what comes back goes to the list only
    /// while it still has this text.
    pub text: Option<String>,
    /// The page's revision when the copy was taken: a refresh's rows go back only over
    /// it (keys pressed meanwhile moved the page, and win).
    pub revision: u64,
    /// The copy read.
    pub page: TabPage,
    /// What is read of it.
    pub reading: Reading,
    /// The clock the rows are read at.
    pub now: crate::clock::Timestamp,
    /// Rows a page holds.
    pub height: usize,
    /// The list's count from before is not current (a refresh's recount of it was
    /// dropped): a search counts every row, even when its page holds all it keeps.
    pub count_whole: bool,
}

/// The run going on, and how far it got.
struct Running {
    /// The list read.
    list: ListId,
    /// The filter text it read.
    text: Option<String>,
    /// The revision of the page it copied.
    revision: u64,
    /// What it reads.
    reading: Reading,
    /// Its page, then its count.
    found: Receiver<Result<Found, StoreError>>,
    /// Its page is back (its count may not be yet).
    rows_back: bool,
    /// The job again, to run later should a person's search stop it (a refresh's).
    again: Option<Job>,
}

/// Reads large lists off the console's thread, one at a time: a person's search of a
/// new filter, and a refresh's recounts, which wait in a queue behind it.
///
/// One reader and a queue rather than a second thread for refreshes: the two never
/// read at once, so a recount never takes the core or the disk a typed search needs
/// to answer each key (a reviewer's machine may have two cores), and there is one
/// connection to keep and one place that decides what stops what. A search starts at once: it stops
/// what runs (a refresh's recount of another list goes back to the head of the queue,
/// one of its own list is dropped, as the search counts the list anew). A refresh
/// stops the recounts of the refresh before it (what they would count is older) and
/// leaves a search running; its list is not recounted, the search's count stands.
/// Whatever comes back goes to its list only while that list is still there with the
/// filter text it was read under (see [`take_search`]).
pub(super) struct Search {
    /// The run going on.
    running: Option<Running>,
    /// Recounts waiting for the run going on to end, the list on screen first.
    queue: VecDeque<Job>,
    /// How to stop the search running.
    stop: Stop,
    /// Views of at least this many rows are searched here rather than in place.
    pub off_thread_rows: i64,
    /// Runs stopped before they ended: by a newer one, or as their list closed.
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
            queue: VecDeque::new(),
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
    /// Starts a person's search: it stops the run going on; a refresh's recount of
    /// another list waits in the queue to run again after it.
    pub(super) fn search(&mut self, mut job: Job) {
        if let Some(again) = self.stop_running() {
            self.queue.push_front(again);
        }
        let list = job.list;
        job.count_whole = self.queue.iter().any(|queued| queued.list == list);
        self.queue.retain(|queued| queued.list != list);
        self.start(job);
    }

    /// Queues a refresh's recounts (`jobs`, the list on screen first) in place of any
    /// the refresh before queued or runs; a search running goes on, and its list is
    /// not recounted.
    pub fn recount(&mut self, mut jobs: Vec<Job>) {
        let searched = self.searching();
        if searched.is_none() {
            self.stop_running();
        }
        jobs.retain(|job| Some(job.list) != searched);
        self.queue = jobs.into();
        if self.running.is_none() {
            self.start_next();
        }
    }

    /// Queues the recount of one list whose query changed in place (`O`), or a read of
    /// its rows again, in place of any waiting for it.
    fn enqueue(&mut self, job: Job) {
        self.queue.retain(|queued| queued.list != job.list);
        self.queue.push_back(job);
        if self.running.is_none() {
            self.start_next();
        }
    }

    /// Stops and forgets whatever runs or waits for a list `gone` says is gone (a
    /// finding's jobs closed), or was read in place meanwhile: whether a refresh's
    /// count of one was dropped (its count from before is not current).
    fn forget(&mut self, gone: impl Fn(ListId) -> bool) -> bool {
        let queued = self.queue.len();
        self.queue.retain(|job| !gone(job.list));
        let mut dropped = self.queue.len() != queued;
        if self.running.as_ref().is_some_and(|r| gone(r.list)) {
            dropped |= self.stop_running().is_some();
            self.start_next();
        }
        dropped
    }

    /// The list a person's search reads, while one runs.
    pub fn searching(&self) -> Option<ListId> {
        self.running
            .as_ref()
            .filter(|r| r.reading == Reading::Search)
            .map(|r| r.list)
    }

    /// Stops the run going on, if any: its page or count is dropped unread. Gives back
    /// a refresh's job, to run again.
    fn stop_running(&mut self) -> Option<Job> {
        let running = self.running.take()?;
        self.stop.stop();
        self.stopped += 1;
        running.again
    }

    /// Starts the job waiting first, if any.
    fn start_next(&mut self) {
        if let Some(job) = self.queue.pop_front() {
            self.start(job);
        }
    }

    /// Starts reading `job` on its own read-only connection (the one the last run
    /// that ended kept, if any).
    fn start(&mut self, job: Job) {
        let (tx, rx) = mpsc::channel();
        let stop = Stop::default();
        self.stop = stop.clone();
        let spare = Arc::clone(&self.spare);
        let opened = Arc::clone(&self.opened);
        let again = (job.reading != Reading::Search).then(|| job.clone());
        self.running = Some(Running {
            list: job.list,
            text: job.text.clone(),
            revision: job.revision,
            reading: job.reading,
            found: rx,
            rows_back: false,
            again,
        });
        let Job {
            location,
            mut page,
            reading,
            now,
            height,
            count_whole,
            ..
        } = job;
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
            let counted = CountedBy {
                reading,
                whole: count_whole,
            };
            match read(&ledger, &mut page, counted, now, height, &stop, &send) {
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

    /// Are a search's rows (or a refresh's of the list on screen) still to come?
    pub fn rows_pending(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| r.reading != Reading::Recount && !r.rows_back)
    }
}

/// What a run reads, and whether it counts every row whatever its page holds.
struct CountedBy {
    reading: Reading,
    whole: bool,
}

/// Reads `page` on `ledger` as `reading` asks: sends its first rows (unless only its
/// count is asked), then (unless stopped meanwhile) their count.
fn read(
    ledger: &Ledger,
    page: &mut TabPage,
    CountedBy {
        reading,
        whole: count_whole,
    }: CountedBy,
    now: crate::clock::Timestamp,
    height: usize,
    stop: &Stop,
    send: &dyn Fn(Result<Found, StoreError>),
) -> Result<(), StoreError> {
    let rows = LedgerRows::new(ledger, now);
    let list = page.list_mut();
    if reading == Reading::Rows {
        list.reload(&rows, height)?;
        send(Ok(Found::Rows(page.clone())));
        return Ok(());
    }
    list.await_count();
    if reading != Reading::Recount {
        list.reload(&rows, height)?;
        // A page that holds every row a new filter keeps is their count: it comes
        // with its rows. (A refresh counts them all again: the rows of the whole
        // list may have changed too.)
        let counted = reading == Reading::Search && !count_whole && list.count_from_page();
        send(Ok(Found::Rows(page.clone())));
        if counted || stop.stopped() {
            return Ok(());
        }
    }
    let list = page.list_mut();
    list.recount(&rows)?;
    send(Ok(Found::Count(list.count())));
    Ok(())
}

/// Reads the counts of `lists` off the console's thread (a refresh found them long to
/// count: [`super::reads::counts_elsewhere`]), the list on screen first; with
/// `reread_shown`, the page on screen is read there again too, before its count. Each
/// says it is being counted until its count comes.
pub(super) fn recount_elsewhere(app: &mut App, lists: &[ListId], reread_shown: bool) {
    let shown = app.model.list_id();
    let jobs = lists
        .iter()
        .filter_map(|&id| {
            let reading = if reread_shown && id == shown {
                Reading::Reread
            } else {
                Reading::Recount
            };
            job(app, id, reading)
        })
        .collect();
    app.search.recount(jobs);
}

/// Counts list `id` again after its query changed in place (`O`): in place when
/// that is cheap, else off the console's thread, in place of any count of it under
/// way.
pub(super) fn recount_list(app: &mut App, id: ListId) -> Result<(), StoreError> {
    app.stop_reading(|list| list == id);
    let off_thread_rows = app.search.off_thread_rows;
    let rows = LedgerRows::new(&app.ledger, app.model.now);
    let Some(list) = app.model.list_of_mut(id) else {
        return Ok(());
    };
    if !super::reads::counts_elsewhere(id, list, off_thread_rows) {
        return list.recount(&rows);
    }
    list.await_count();
    if let Some(job) = job(app, id, Reading::Recount) {
        app.search.enqueue(job);
    }
    Ok(())
}

/// What reads `reading` of list `id` elsewhere: a copy of its page as it is now.
fn job(app: &App, id: ListId, reading: Reading) -> Option<Job> {
    let page = app.model.page_of(id)?;
    let list = page.list();
    Some(Job {
        location: app.ledger.location(),
        list: id,
        text: list.filter().map(str::to_owned),
        revision: list.revision(),
        reading,
        page,
        now: app.model.now,
        // Its count is being made: the list's room now is sized by the rows it holds.
        height: layout::search_capacity(&app.model),
        count_whole: true,
    })
}

impl App {
    /// Stops whatever is read elsewhere of the lists `gone` names (a finding's jobs
    /// closed, a list read in place meanwhile): nothing of theirs is waited for.
    /// Whether a refresh's count of one was dropped (its count from before is not
    /// current).
    pub(super) fn stop_reading(&mut self, gone: impl Fn(ListId) -> bool) -> bool {
        let dropped = self.search.forget(&gone);
        if self.model.searching.is_some_and(&gone) {
            self.model.searching = None;
        }
        dropped
    }
}

/// Takes the next thing the run going on sent, if any: its page, put back if its
/// list still wants it (it is still there, a finding's jobs in the same opening of
/// it, with the same filter text; a refresh's, not moved by a key meanwhile), with
/// the detail pane read again; or, at a later call, its count, taken if the list
/// still waits for it. One a call, so the rows are drawn before the count is taken
/// even when both have come. A run that ended starts the next one waiting.
pub(super) fn take_search(app: &mut App) -> Result<(), StoreError> {
    let Some(running) = &mut app.search.running else {
        return Ok(());
    };
    let found = match running.found.try_recv() {
        Ok(found) => found,
        Err(TryRecvError::Empty) => return Ok(()),
        Err(TryRecvError::Disconnected) => {
            app.search.running = None;
            app.search.start_next();
            return Ok(());
        }
    };
    app.search.taken += 1;
    let (id, text, reading) = (running.list, running.text.clone(), running.reading);
    let list = app.model.list_of(id);
    let wanted = list.is_some_and(|list| list.filter() == text.as_deref());
    let unmoved = list.is_some_and(|list| list.revision() == running.revision);
    match found {
        Err(e) => {
            app.search.running = None;
            app.search.start_next();
            if app.model.searching == Some(id) {
                app.model.searching = None;
            }
            return Err(e);
        }
        Ok(Found::Rows(page)) => {
            running.rows_back = true;
            match reading {
                Reading::Search if wanted => rows_found(app, id, page)?,
                Reading::Reread | Reading::Rows if wanted && unmoved => {
                    reread_found(app, id, page)?;
                }
                // Keys moved the page meanwhile and it stays where they took it; its
                // rows are read again from there (else they would be the ones from
                // before the refresh until the next).
                Reading::Reread | Reading::Rows if wanted => {
                    if let Some(job) = job(app, id, Reading::Rows) {
                        app.search.enqueue(job);
                    }
                }
                _ => {}
            }
        }
        Ok(Found::Count(count)) => {
            app.search.running = None;
            app.search.start_next();
            if wanted {
                count_found(app, id, count, reading == Reading::Search);
            }
        }
    }
    Ok(())
}

/// Puts a refresh's page of the list on screen back, with the count the list has (a
/// count comes on its own); what the message line says stays (an answer just
/// written, say).
fn reread_found(app: &mut App, id: ListId, mut page: TabPage) -> Result<(), StoreError> {
    if let Some(list) = app.model.list_of(id) {
        page.list_mut().set_count(list.count());
    }
    app.model.put_page(id, page);
    if app.model.list_id() == id {
        app.reload_detail()?;
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

/// Takes a count read elsewhere, unless the list was counted again meanwhile (in
/// place). A search's is said on the message line; a refresh's is said there only in
/// place of the count said before it, which it makes untrue (any other message, an
/// answer just written, stays).
fn count_found(app: &mut App, id: ListId, count: Count, searched: bool) {
    let Some(list) = app.model.list_of_mut(id) else {
        return;
    };
    if !list.count().counting {
        return;
    }
    let said_before = found_flash(list.count()).map(|flash| flash.text);
    list.set_count(count);
    let says_before = app.model.flash.as_ref().map(|flash| &flash.text) == said_before.as_ref();
    if app.model.list_id() == id && (searched || says_before) {
        app.model.flash = found_flash(count);
    }
}

#[cfg(test)]
mod tests {
    use super::{Job, Reading, Search, Stop};
    use crate::console::model::{ListId, Lists};
    use crate::console::tab::Tab;
    use crate::demo::{self, DemoData};
    use crate::store::Location;

    /// The lists a search's reader runs, then those waiting, in order.
    fn runs(search: &Search) -> (Option<ListId>, Vec<ListId>) {
        (
            search.running.as_ref().map(|r| r.list),
            search.queue.iter().map(|job| job.list).collect(),
        )
    }

    #[test]
    fn a_search_stops_a_recount_of_another_list_which_runs_again_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.db");
        demo::build(&path, demo::demo_now(), DemoData::Booking, |_| {}).unwrap();
        let location = Location::File(path);
        let lists = Lists::new();
        let job = |tab: Tab, reading: Reading| Job {
            location: location.clone(),
            list: ListId::Tab(tab),
            text: None,
            revision: 0,
            page: lists.tab_page(tab).cloned().unwrap(),
            reading,
            now: demo::demo_now(),
            height: 10,
            count_whole: false,
        };
        let (all, held) = (ListId::Tab(Tab::Callbacks), ListId::Tab(Tab::Held));
        let mut search = Search::default();
        search.recount(vec![
            job(Tab::Callbacks, Reading::Reread),
            job(Tab::Held, Reading::Recount),
        ]);
        assert_eq!(runs(&search), (Some(all), vec![held]));
        // A person's search of Held: the recount of All callbacks stops and waits to
        // run again; Held's is dropped (the search counts it, every row).
        search.search(job(Tab::Held, Reading::Search));
        assert_eq!(runs(&search), (Some(held), vec![all]));
        assert_eq!(search.searching(), Some(held));
        assert_eq!(search.stopped, 1);
        // The next refresh leaves the search running and recounts the other lists.
        search.recount(vec![
            job(Tab::Callbacks, Reading::Reread),
            job(Tab::Held, Reading::Recount),
        ]);
        assert_eq!(runs(&search), (Some(held), vec![all]));
        assert_eq!(search.stopped, 1);
        // A list gone: nothing of it runs or waits.
        assert!(search.forget(|id| id == all), "a recount was dropped");
        assert_eq!(runs(&search), (Some(held), vec![]));
        assert!(!search.forget(|id| id == held), "a search is no recount");
        assert_eq!(runs(&search), (None, vec![]));
        assert_eq!(search.stopped, 2);
    }

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
