//! [`App`] owns the ledger and the [`Model`]; [`update`] is the one step that reads
//! and writes the ledger, and the only place the model changes.

mod answered;
mod bulk;
mod bulk_owner;
mod claims;
mod compare;
mod decisions;
mod dispatch;
mod export;
mod file_watch;
mod findings;
mod looks;
mod open_questions;
mod query;
mod read_only;
mod reader;
mod reads;
mod saved;
mod server_watch;
mod tour;
mod withdraw;
mod writes;

use anyhow::Context as _;

use crate::clock::{Clock, Timestamp};
use crate::inert::inert;
use crate::store::{Ledger, StoreError};

use super::action::{Action, Move};
use super::field::TextField;
use super::keymap::Context;
use super::layout;
use super::model::detail::DetailKey;
use super::model::{Flash, List, Model, Overlay};
use super::tab::Tab;
pub use dispatch::{mouse, press, update};
use reads::LedgerRows;

/// With the system clock, ages move without the ledger changing: recount this often.
const RECOUNT_EVERY_S: i64 = 30;

/// How long a passing message (an answer written) stays on the message line.
const PASSING_FOR: std::time::Duration = std::time::Duration::from_secs(4);

/// Rows looked at, at most, for the next open question after an answer: a list of
/// thousands of closed ones is walked no further, and the cursor stays where it got.
const NEXT_OPEN_WITHIN: usize = 500;

/// The console: the ledger it reviews and the model drawn from it. Built from an open
/// ledger, without a terminal.
pub struct App {
    ledger: Ledger,
    model: Model,
    /// Counts the summary of a large ledger off this thread.
    data_version: i64,
    counted_at: Timestamp,
    quit: bool,
    /// Searches a large view's filter, and recounts it on a refresh, off this thread.
    search: reader::Search,
    /// The file at the path that would not open when the ledger was replaced.
    refused_file: Option<file_watch::FileStamp>,
    /// While the ledger's server is away: when to connect again.
    backoff: Option<server_watch::Backoff>,
    /// How long a passing message stays ([`PASSING_FOR`]; a test sets it short).
    passing_for: std::time::Duration,
    /// Where `e` writes evidence bundles: the directory the console was started in.
    export_dir: std::path::PathBuf,
}

impl App {
    /// Opens the console's state on `ledger` (read-only ledgers need `read_only`).
    pub fn new(
        ledger: Ledger,
        clock: Clock,
        reviewer: String,
        read_only: bool,
    ) -> Result<App, StoreError> {
        let now = clock.now();
        // A reviewer's answers, owners and requests are synced before they are said
        // to be written: nobody can re-run them from a source.
        if !read_only {
            ledger.keep_writes_durable()?;
        }
        let data_version = ledger.data_version()?;
        let path = ledger.location().to_string();
        let mut app = App {
            ledger,
            model: Model::new(path, clock, now, reviewer, read_only),
            data_version,
            counted_at: now,
            quit: false,
            search: reader::Search::default(),
            refused_file: None,
            backoff: None,
            passing_for: PASSING_FOR,
            // Named whole, so that the message line says where a bundle went.
            export_dir: std::env::current_dir().unwrap_or_else(|_| ".".into()),
        };
        looks::read(&mut app)?;
        app.refresh()?;
        Ok(app)
    }

    /// Opens the ledger at `path` (read-only when asked) and the console's state on it.
    pub fn open(
        location: &crate::store::Location,
        clock: Clock,
        reviewer: String,
        read_only: bool,
    ) -> anyhow::Result<App> {
        let mode = if read_only {
            crate::store::OpenMode::ReadOnly
        } else {
            crate::store::OpenMode::ReadWrite
        };
        let ledger = Ledger::open_at(location, mode)
            .with_context(|| format!("opening the ledger {location} for review"))?;
        // A damaged ledger is named before anything is shown or written, so that no
        // reviewer reads or answers rows the file can no longer vouch for.
        ledger.damage_probe()?;
        // A role that may not write (a team ledger's reader) gets the read-only
        // console, as asked of the server's privileges, not of a flag.
        let read_only = read_only || !ledger.may_answer()?;
        // A ledger that keeps a clock of its own (the demo's afternoon) is reviewed at
        // it, unless the caller fixed one (`--now`).
        let clock = match clock {
            Clock::System => ledger.kept_clock()?.map_or(Clock::System, Clock::Fixed),
            fixed @ Clock::Fixed(_) => fixed,
        };
        App::new(ledger, clock, reviewer, read_only).context("reading the ledger")
    }

    /// Shows the console in `theme` from the next frame on.
    pub fn set_theme(&mut self, theme: crate::console::Theme) {
        self.model.theme = theme;
    }

    /// What a frame is drawn from.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Has the reviewer asked to leave?
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// The view shown.
    pub fn tab(&self) -> Tab {
        self.model.tab
    }

    /// The message shown above the footer, if any.
    pub fn flash(&self) -> Option<&Flash> {
        self.model.flash.as_ref()
    }

    /// Takes the text waiting for the terminal's clipboard, if any: the terminal loop
    /// writes it (see `terminal::write_clipboard`).
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.model.clipboard.take()
    }

    /// How long a passing message (an answer written) stays on the message line: four
    /// seconds, unless a test that watches it go sets it short.
    pub fn pass_messages_after(&mut self, lasts: std::time::Duration) {
        self.passing_for = lasts;
    }

    /// Writes the evidence bundles `e` makes into `dir` (the directory the console was
    /// started in, unless a test names another).
    pub fn export_to(&mut self, dir: impl Into<std::path::PathBuf>) {
        self.export_dir = dir.into();
    }

    /// Views of at least `rows` rows search their filter on another thread, and a
    /// refresh counts them there under a filter (10,000 by default; a test sets it low
    /// to watch a search or a recount run).
    pub fn search_off_thread_from(&mut self, rows: i64) {
        self.search.off_thread_rows = rows;
    }

    /// How many searches and recounts were stopped before they ended (by a newer one,
    /// or as their list closed).
    pub fn searches_stopped(&self) -> usize {
        self.search.stopped
    }

    /// Is a search of a view's filter, or a refresh's count, running on another thread
    /// (rows or a count still to come)?
    pub fn searching(&self) -> bool {
        self.search.busy()
    }

    /// Are the rows of a search running on another thread still to come? (Its count
    /// comes after them.)
    pub fn search_rows_pending(&self) -> bool {
        self.search.rows_pending()
    }

    /// How many connections searches have opened (a search takes the one the last
    /// search that ended kept).
    pub fn search_connections_opened(&self) -> usize {
        self.search.opened.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// How many pages and counts have been taken back from searches: a change means
    /// the screen has something new to draw.
    pub fn searches_taken(&self) -> u64 {
        self.search.taken
    }

    /// The ledger the console reviews (for tests and the caller).
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Where the keyboard is.
    pub fn context(&self) -> Context {
        self.model.context()
    }

    /// Does `action` apply here and now?
    pub fn offers(&self, action: Action) -> bool {
        self.model.offers(action)
    }

    /// Runs `op` on the current view's page with the rows it reads from, and how many
    /// rows a page holds: as many as fit the list's room, or, while its count is being
    /// made (its room is sized by the rows it holds), as many as the list can show.
    fn with_page(
        &mut self,
        op: impl FnOnce(&mut dyn List, &LedgerRows<'_>, usize) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let height = if self.model.list().is_some_and(|list| list.count().counting) {
            layout::search_capacity(&self.model)
        } else {
            layout::list_capacity(&self.model)
        };
        let rows = LedgerRows::new(&self.ledger, self.model.now);
        match self.model.list_mut() {
            Some(page) => op(page, &rows, height),
            None => Ok(()),
        }
    }

    fn reload_page(&mut self) -> Result<(), StoreError> {
        self.with_page(|page, rows, height| page.reload(rows, height))
    }

    /// Re-reads counts, the current page and the open detail, after the console's own
    /// write or a new ledger: the page in place, as the person waits for what they did.
    pub(crate) fn refresh(&mut self) -> Result<(), StoreError> {
        self.refresh_with(false)
    }

    /// Re-reads counts, the current page and the open detail. A long count (a large
    /// list under a filter, a large finding's jobs) is read off the console's thread
    /// and says so until it comes; with `rows_elsewhere` (a refresh nobody asked for:
    /// the ledger changed, or the clock moved) so is the page on screen when its count
    /// is, as its rows may take as long (a filter that keeps few of a million rows).
    fn refresh_with(&mut self, rows_elsewhere: bool) -> Result<(), StoreError> {
        // A job's other callbacks may have come or been answered: read them again.
        self.model.beside = None;
        let searched = self.search.searching();
        let off_thread_rows = self.search.off_thread_rows;
        let elsewhere = reads::recount(&self.ledger, &mut self.model, off_thread_rows, searched)?;
        looks::recount(self)?;
        self.read_summary()?;
        self.counted_at = self.model.now;
        let shown = self.model.list_id();
        let reread = rows_elsewhere && elsewhere.contains(&shown);
        // A search running for the list on screen brings its rows.
        if !reread && searched != Some(shown) {
            self.reload_page()?;
        }
        reader::recount_elsewhere(self, &elsewhere, reread);
        self.reload_detail()
    }

    fn reload_detail(&mut self) -> Result<(), StoreError> {
        let Some(open) = &self.model.detail else {
            return Ok(());
        };
        let Some(detail_key) = self.model.list().and_then(List::detail_key) else {
            self.model.detail = None;
            return Ok(());
        };
        let scroll = if open.detail_key == detail_key {
            open.scroll
        } else {
            0
        };
        let mut detail = reads::detail(&self.ledger, detail_key)?;
        detail.scroll = scroll;
        self.model.detail = Some(detail);
        Ok(())
    }

    fn tick(&mut self) -> Result<(), StoreError> {
        if self.model.server_away {
            // Nothing else is read until the server is back.
            return server_watch::try_again(self);
        }
        if self
            .model
            .flash
            .as_ref()
            .is_some_and(|f| f.gone_at(std::time::Instant::now()))
        {
            self.model.flash = None;
        }
        file_watch::check(self)?;
        reader::take_search(self)?;
        self.model.now = self.model.clock.now();
        let version = self.ledger.data_version()?;
        let clock_moved = self.model.now.seconds_since(self.counted_at) >= RECOUNT_EVERY_S;
        if version != self.data_version || clock_moved {
            self.data_version = version;
            self.refresh_with(true)?;
        }
        Ok(())
    }

    fn show_tab(&mut self, tab: Tab) -> Result<(), StoreError> {
        if tab != self.model.tab {
            looks::leave(self, self.model.tab)?;
        }
        self.model.tab = tab;
        // A finding's jobs close: nothing read of them is waited for any more.
        findings::forget(self);
        self.model.findings.jobs = None;
        self.model.detail = None;
        self.reload_page()
    }

    fn step(&mut self, movement: Move) -> Result<(), StoreError> {
        // ↑↓ pick a finding; past either end, and on the other keys, the view scrolls.
        let picks = matches!(movement, Move::Up | Move::Down);
        if picks && self.model.on_findings() && self.model.findings.select(movement == Move::Down) {
            return Ok(());
        }
        if self.model.on_findings() {
            let last = layout::reconcile_last_scroll(&self.model);
            self.model.reconcile_scroll =
                scrolled(self.model.reconcile_scroll.min(last), movement, 10, last);
            return Ok(());
        }
        self.with_page(|page, rows, height| page.step(rows, height, movement))?;
        self.reload_detail()
    }

    fn scroll_detail(&mut self, movement: Move) {
        let page = layout::detail_capacity(&self.model).max(1);
        let Some(max) = (self.model.detail.as_ref())
            .map(|detail| layout::detail_last_scroll(&self.model, detail))
        else {
            return;
        };
        if let Some(detail) = &mut self.model.detail {
            detail.scroll = scrolled(detail.scroll.min(max), movement, page, max);
        }
    }

    fn open_detail(&mut self) -> Result<(), StoreError> {
        if self.model.on_findings() {
            return findings::open(self);
        }
        let Some(detail_key) = self.model.list().and_then(List::detail_key) else {
            self.model.flash = Flash::info("no row selected");
            return Ok(());
        };
        self.model.detail = Some(reads::detail(&self.ledger, detail_key)?);
        // The list got shorter: keep the selected row on it.
        self.reload_page()?;
        self.reload_detail()
    }

    fn close_detail(&mut self) -> Result<(), StoreError> {
        self.model.detail = None;
        self.reload_page()
    }

    fn set_filter(&mut self, filter: Option<String>) -> Result<(), StoreError> {
        let me = self.model.reviewer.clone();
        if let Some(page) = self.model.list_mut()
            && let Err(e) = page.set_filter(filter.filter(|f| !f.is_empty()), &me)
        {
            query::not_a_query(self, &e);
            return Ok(());
        }
        // Read in place: the rows are this filter's at once, and nothing read
        // elsewhere of the list before is waited for.
        let id = self.model.list_id();
        let stale = self.stop_reading(|list| list == id);
        // The page first, as a search on another thread reads it (as many rows as
        // fill the list's room, which the previous filter's count sized): a page that
        // holds every row the filter keeps is their count, and only a longer list is
        // counted (on a server, a statement of its own to plan and run).
        let height = layout::search_capacity(&self.model);
        let rows = LedgerRows::new(&self.ledger, self.model.now);
        if let Some(page) = self.model.list_mut() {
            page.await_count();
            page.reload(&rows, height)?;
            // A count from before a refresh whose recount was dropped is not current:
            // every row is counted then.
            if stale || !page.count_from_page() {
                page.recount(&rows)?;
            }
        }
        self.reload_detail()
    }

    /// Edits the filter being typed; a changed text is the view's filter at once (a
    /// move of the cursor searches nothing).
    fn edit_filter(&mut self, edit: impl FnOnce(&mut TextField)) -> Result<(), StoreError> {
        let Overlay::Filter { field, .. } = &mut self.model.overlay else {
            return Ok(());
        };
        let before = field.text().to_owned();
        edit(field);
        if field.text() == before {
            return Ok(());
        }
        let text = field.text().to_owned();
        query::type_filter(self, text)
    }

    /// Esc closes and clears, and never leaves: pressed once too often it used to
    /// quit the console under a reviewer's hands. Only `q` at the top level, `:q` and
    /// Ctrl-C leave.
    fn back(&mut self) -> Result<(), StoreError> {
        if self.model.detail.is_some() {
            self.close_detail()
        } else if self.model.filter().is_some() {
            self.set_filter(None)?;
            self.model.flash = Flash::info("filter cleared");
            Ok(())
        } else if self.model.tab == Tab::Reconcile && self.model.findings.jobs.is_some() {
            findings::close(self);
            Ok(())
        } else {
            self.model.flash = Flash::info("nothing to close (q leaves)");
            Ok(())
        }
    }

    /// After an answer on the selected row (`answered`) was written: the cursor goes
    /// on to the next row `open` says is a question still open. In a list of open
    /// questions the answered row left and the cursor is on the one after it already;
    /// in a list of all of them (or when the answer leaves the question open) it moves
    /// down past the answered row and past closed ones.
    fn go_on_to_next_open_row(
        &mut self,
        answered: &DetailKey,
        open: fn(&Model) -> bool,
    ) -> Result<(), StoreError> {
        let selected = |model: &Model| model.list().and_then(List::detail_key);
        if selected(&self.model).as_ref() != Some(answered) {
            return Ok(());
        }
        for _ in 0..NEXT_OPEN_WITHIN {
            let before = selected(&self.model);
            self.step(Move::Down)?;
            if selected(&self.model) == before || open(&self.model) {
                break;
            }
        }
        Ok(())
    }

    fn help(&mut self, action: Action) {
        let Overlay::Help { scroll } = self.model.overlay else {
            return;
        };
        match action {
            Action::Back | Action::Help => self.model.overlay = Overlay::None,
            Action::Move(m) => {
                let last = layout::help_last_scroll(&self.model);
                let page = layout::body_capacity(&self.model);
                let scroll = scrolled(scroll.min(last), m, page, last);
                self.model.overlay = Overlay::Help { scroll };
            }
            _ => {}
        }
    }

    fn filter_action(&mut self, action: Action) -> Result<(), StoreError> {
        match action {
            Action::Input(c) => self.edit_filter(|f| f.push(c)),
            Action::Edit(request) => self.edit_filter(|f| f.edit(request)),
            // Enter keeps only a query: text that is none stays in the prompt, with why,
            // rather than leaving the view under a filter its rows do not match.
            Action::Submit if let Some(e) = self.model.invalid_filter() => {
                self.model.flash =
                    Flash::error(format!("not kept: not a query yet, at column {}", e.column));
                Ok(())
            }
            // Every key searched already: Enter keeps what was typed.
            Action::Submit => {
                self.model.overlay = Overlay::None;
                Ok(())
            }
            Action::Back => match std::mem::take(&mut self.model.overlay) {
                Overlay::Filter { before, .. } => query::apply_filter(self, before),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Asks the terminal to copy the selected row's job or delivery id, and says what
    /// was copied (inert: the id is outside text), or why nothing was.
    fn copy(&mut self, action: Action) {
        let delivery = action == Action::CopyDeliveryId;
        let what = if delivery { "delivery id" } else { "job id" };
        let list = self.model.list();
        let view = self.model.tab.title();
        // A callback row gives both ids; any other row copies the job its detail opens.
        let id = match (
            list.is_some_and(List::has_selection),
            list.and_then(List::callback),
            list.and_then(List::detail_key),
        ) {
            (false, _, _) => Err("no row selected: nothing copied".to_owned()),
            (true, Some(callback), _) if delivery => Ok(callback.delivery_id.clone()),
            (true, Some(callback), _) => Ok(callback.job_id.clone()),
            (true, None, Some(DetailKey::Job(_))) if delivery => Err(format!(
                "the {view} view lists jobs, which have no delivery id: nothing copied"
            )),
            (true, None, Some(DetailKey::Job(job))) => Ok(Some(job)),
            (true, None, _) => Err(format!(
                "a row of the {view} view names no job: nothing copied"
            )),
        }
        .and_then(|id| id.ok_or_else(|| format!("this row has no {what}: nothing copied")));
        match id {
            Ok(id) => {
                self.model.flash = Flash::info(format!("copied {what} {}", inert(&id)));
                self.model.clipboard = Some(id);
            }
            Err(why) => self.model.flash = Flash::error(why),
        }
    }

    /// Selects the tab or the list row drawn at (`column`, `row`); elsewhere nothing.
    fn click(&mut self, column: u16, row: u16) -> Result<(), StoreError> {
        if let Some(tab) = layout::tab_at(&self.model, column, row) {
            return self.show_tab(tab);
        }
        let Some(index) = layout::list_row_at(&self.model, column, row) else {
            return Ok(());
        };
        let selected = self.model.list_mut().is_some_and(|page| page.select(index));
        if selected {
            self.reload_detail()
        } else {
            Ok(())
        }
    }

    fn start_filter(&mut self) {
        if self.model.list().is_none() {
            let title = self.model.tab.title();
            self.model.flash = Flash::info(format!("the {title} view has nothing to filter"));
        } else {
            // The filter standing is selected: typing starts a new one, a move edits it.
            let before = self.model.filter().map(str::to_owned);
            self.model.overlay = Overlay::Filter {
                field: TextField::with(before.as_deref().unwrap_or_default()),
                before,
            };
        }
    }
}

/// A scroll position moved by `movement`, within `0..=max`.
fn scrolled(at: usize, movement: Move, page: usize, max: usize) -> usize {
    match movement {
        Move::Up => at.saturating_sub(1),
        Move::Down => at.saturating_add(1).min(max),
        Move::PageUp => at.saturating_sub(page),
        Move::PageDown => at.saturating_add(page).min(max),
        Move::Home => 0,
        Move::End => max,
    }
}
