//! The console's state and [`update`], the one place it reads and writes the ledger.

mod counts;
mod glance;
mod writes;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::clock::{Clock, Timestamp};
use crate::decision::Disposition;
use crate::store::{AgedJobRow, Ledger, StoreError};

pub(crate) use counts::{Counts, Glance};
use glance::GlanceWorker;

use super::action::Action;
use super::detail::{Detail, Subject};
use super::form::Form;
use super::keymap::Context;
use super::page::{CallbackItem, CallbackList, FailedItem, Move, Page, Reader};
use super::tab::Tab;
use super::view;

/// With the system clock, ages move without the ledger changing: recount this often.
const RECOUNT_EVERY_S: i64 = 30;

/// A message in the line above the footer, until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    pub text: String,
    pub error: bool,
}

impl Flash {
    /// A message that something went as asked, ready to put in [`App::flash`].
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    fn info(text: impl Into<String>) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: false,
        })
    }

    /// A message that something was not done, and why.
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    fn error(text: impl Into<String>) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: true,
        })
    }
}

/// The filter being typed, and the one to put back on Esc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilterEdit {
    pub before: Option<String>,
}

/// The whole state of the console. Built from an open ledger, without a terminal.
pub struct App {
    pub(crate) ledger: Ledger,
    pub(crate) clock: Clock,
    pub(crate) now: Timestamp,
    pub(crate) reviewer: String,
    pub(crate) read_only: bool,
    pub(crate) tab: Tab,
    pub(crate) held: Page<CallbackItem>,
    pub(crate) quarantined: Page<CallbackItem>,
    pub(crate) aged: Page<AgedJobRow>,
    pub(crate) failed: Page<FailedItem>,
    pub(crate) callbacks: Page<CallbackItem>,
    pub(crate) reconcile_scroll: usize,
    pub(crate) counts: Counts,
    pub(crate) glance: Glance,
    /// Counts the glance of a large ledger off this thread.
    pub(crate) glance_worker: GlanceWorker,
    /// The detail pane, open when `Some`; it has the keyboard while open.
    pub(crate) detail: Option<Detail>,
    pub(crate) form: Option<Form>,
    /// The help screen's scroll, open when `Some`.
    pub(crate) help: Option<usize>,
    pub(crate) filter_edit: Option<FilterEdit>,
    pub(crate) flash: Option<Flash>,
    pub(crate) size: (u16, u16),
    data_version: i64,
    counted_at: Timestamp,
    quit: bool,
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
        let data_version = ledger.data_version()?;
        let glance_worker = GlanceWorker::new(ledger.path().to_path_buf());
        let callbacks_of = |disposition, raw_head| {
            Page::new(CallbackList {
                disposition,
                raw_head,
            })
        };
        let mut app = App {
            ledger,
            clock,
            now,
            reviewer,
            read_only,
            tab: Tab::Held,
            held: callbacks_of(Some(Disposition::Hold), false),
            quarantined: callbacks_of(Some(Disposition::Quarantine), true),
            aged: Page::new(()),
            failed: Page::new(()),
            callbacks: callbacks_of(None, false),
            reconcile_scroll: 0,
            counts: Counts::default(),
            glance: Glance::default(),
            glance_worker,
            detail: None,
            form: None,
            help: None,
            filter_edit: None,
            flash: None,
            size: (160, 48),
            data_version,
            counted_at: now,
            quit: false,
        };
        app.refresh()?;
        Ok(app)
    }

    /// Has the reviewer asked to leave?
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// The view shown.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// The message shown above the footer, if any.
    pub fn flash(&self) -> Option<&Flash> {
        self.flash.as_ref()
    }

    /// The ledger the console reviews (for tests and the caller).
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Where the keyboard is.
    pub fn context(&self) -> Context {
        if self.help.is_some() {
            Context::Help
        } else if let Some(form) = &self.form {
            match form {
                _ if form.outcome().is_some() => Context::Outcome,
                Form::Request(_) => Context::Confirm,
                _ => Context::Form,
            }
        } else if self.filter_edit.is_some() {
            Context::Filter
        } else if self.detail.is_some() {
            Context::Detail
        } else {
            Context::List
        }
    }

    /// The current view's filter.
    pub(crate) fn filter(&self) -> Option<&str> {
        match self.tab {
            Tab::Held => self.held.filter.as_deref(),
            Tab::Quarantined => self.quarantined.filter.as_deref(),
            Tab::Aged => self.aged.filter.as_deref(),
            Tab::Failed => self.failed.filter.as_deref(),
            Tab::Callbacks => self.callbacks.filter.as_deref(),
            Tab::Reconcile => None,
        }
    }

    fn filter_mut(&mut self) -> Option<&mut Option<String>> {
        match self.tab {
            Tab::Held => Some(&mut self.held.filter),
            Tab::Quarantined => Some(&mut self.quarantined.filter),
            Tab::Aged => Some(&mut self.aged.filter),
            Tab::Failed => Some(&mut self.failed.filter),
            Tab::Callbacks => Some(&mut self.callbacks.filter),
            Tab::Reconcile => None,
        }
    }

    /// The callback page of the current view, if it lists callbacks.
    pub(crate) fn callback_page(&self) -> Option<&Page<CallbackItem>> {
        match self.tab {
            Tab::Held => Some(&self.held),
            Tab::Quarantined => Some(&self.quarantined),
            Tab::Callbacks => Some(&self.callbacks),
            _ => None,
        }
    }

    /// What the detail pane would show for the selected row.
    fn selected_subject(&self) -> Option<Subject> {
        match self.tab {
            Tab::Aged => self.aged.current().map(|r| Subject::Job(r.job_id.clone())),
            Tab::Failed => self
                .failed
                .current()
                .map(|r| Subject::Job(r.row.job_id.clone())),
            Tab::Reconcile => None,
            _ => self
                .callback_page()
                .and_then(Page::current)
                .map(|item| Subject::Callback(item.row.seq)),
        }
    }

    /// The job of the selected row, for owners and requests.
    fn selected_job(&self) -> Option<String> {
        match self.tab {
            Tab::Aged => self.aged.current().map(|r| r.job_id.clone()),
            Tab::Failed => self.failed.current().map(|r| r.row.job_id.clone()),
            _ => None,
        }
    }

    /// Does `action` apply here and now? (Footer hints show only those that do.)
    pub fn offers(&self, action: Action) -> bool {
        match action {
            Action::Answer => !self.read_only && self.answerable().is_ok(),
            Action::Owner => {
                !self.read_only && self.tab == Tab::Aged && self.aged.current().is_some()
            }
            Action::Retry | Action::Cancel => !self.read_only && self.selected_job().is_some(),
            Action::OpenDetail => self.selected_subject().is_some(),
            Action::Filter => self.tab != Tab::Reconcile,
            _ => true,
        }
    }

    /// Runs a page operation on the current view's list with the reader it needs.
    fn with_page(
        &mut self,
        op: impl Fn(&mut dyn PageOps, &Reader<'_>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let reader = Reader {
            ledger: &self.ledger,
            now: self.now,
            height: view::list_capacity(self.size, self.detail.is_some()),
        };
        match self.tab {
            Tab::Held => op(&mut self.held, &reader),
            Tab::Quarantined => op(&mut self.quarantined, &reader),
            Tab::Aged => op(&mut self.aged, &reader),
            Tab::Failed => op(&mut self.failed, &reader),
            Tab::Callbacks => op(&mut self.callbacks, &reader),
            Tab::Reconcile => Ok(()),
        }
    }

    /// Re-reads counts, the current page and the open detail.
    pub(crate) fn refresh(&mut self) -> Result<(), StoreError> {
        self.counts = Counts::read(self)?;
        self.read_glance()?;
        self.counted_at = self.now;
        self.with_page(|page, reader| page.reload(reader))?;
        self.reload_detail()
    }

    fn reload_detail(&mut self) -> Result<(), StoreError> {
        let Some(open) = &self.detail else {
            return Ok(());
        };
        let Some(subject) = self.selected_subject() else {
            self.detail = None;
            return Ok(());
        };
        let scroll = if open.subject == subject {
            open.scroll
        } else {
            0
        };
        let mut detail = Detail::load(&self.ledger, subject)?;
        detail.scroll = scroll;
        self.detail = Some(detail);
        Ok(())
    }

    fn tick(&mut self) -> Result<(), StoreError> {
        self.take_glance();
        self.now = self.clock.now();
        let version = self.ledger.data_version()?;
        let clock_moved = self.now.seconds_since(self.counted_at) >= RECOUNT_EVERY_S;
        if version != self.data_version || clock_moved {
            self.data_version = version;
            self.refresh()?;
        }
        Ok(())
    }

    fn show_tab(&mut self, tab: Tab) -> Result<(), StoreError> {
        self.tab = tab;
        self.detail = None;
        self.with_page(|page, reader| page.reload(reader))
    }

    fn step(&mut self, movement: Move) -> Result<(), StoreError> {
        if self.tab == Tab::Reconcile {
            self.reconcile_scroll = scrolled(self.reconcile_scroll, movement, 10, usize::MAX);
            return Ok(());
        }
        self.with_page(|page, reader| page.step(reader, movement))?;
        self.reload_detail()
    }

    fn scroll_detail(&mut self, movement: Move) {
        let width = self.size.0;
        let page = view::detail_capacity(self.size).max(1);
        if let Some(detail) = &mut self.detail {
            let lines = super::views::detail::lines(detail, width).len();
            let max = lines.saturating_sub(page);
            detail.scroll = scrolled(detail.scroll.min(max), movement, page, max);
        }
    }

    fn open_detail(&mut self) -> Result<(), StoreError> {
        let Some(subject) = self.selected_subject() else {
            self.flash = Flash::info("no row selected");
            return Ok(());
        };
        self.detail = Some(Detail::load(&self.ledger, subject)?);
        // The list got shorter: keep the selected row on it.
        self.with_page(|page, reader| page.reload(reader))?;
        self.reload_detail()
    }

    fn close_detail(&mut self) -> Result<(), StoreError> {
        self.detail = None;
        self.with_page(|page, reader| page.reload(reader))
    }

    fn set_filter(&mut self, filter: Option<String>) -> Result<(), StoreError> {
        if let Some(slot) = self.filter_mut() {
            *slot = filter.filter(|f| !f.is_empty());
        }
        self.counts = Counts::read(self)?;
        self.with_page(|page, reader| page.reload(reader))?;
        self.reload_detail()
    }

    fn edit_filter(&mut self, edit: impl FnOnce(&mut String)) -> Result<(), StoreError> {
        let mut text = self.filter().unwrap_or_default().to_owned();
        edit(&mut text);
        self.set_filter(Some(text))
    }

    fn back(&mut self) -> Result<(), StoreError> {
        if self.detail.is_some() {
            self.close_detail()
        } else if self.filter().is_some() {
            self.set_filter(None)?;
            self.flash = Flash::info("filter cleared");
            Ok(())
        } else {
            self.quit = true;
            Ok(())
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

/// The page operations `update` needs, whatever the rows are.
trait PageOps {
    fn reload(&mut self, reader: &Reader<'_>) -> Result<(), StoreError>;
    fn step(&mut self, reader: &Reader<'_>, movement: Move) -> Result<(), StoreError>;
}

impl<T: super::page::PageRow> PageOps for Page<T> {
    fn reload(&mut self, reader: &Reader<'_>) -> Result<(), StoreError> {
        Page::reload(self, reader)
    }

    fn step(&mut self, reader: &Reader<'_>, movement: Move) -> Result<(), StoreError> {
        Page::step(self, reader, movement)
    }
}

fn movement(action: Action) -> Option<Move> {
    Some(match action {
        Action::Up => Move::Up,
        Action::Down => Move::Down,
        Action::PageUp => Move::PageUp,
        Action::PageDown => Move::PageDown,
        Action::Home => Move::Home,
        Action::End => Move::End,
        _ => return None,
    })
}

/// Turns a key press into its action through the key table, and carries it out.
pub fn press(app: &mut App, key: &KeyEvent) {
    if let Some(action) = super::keymap::action_for_key(app.context(), key) {
        update(app, action);
    }
}

/// Turns a mouse event (the wheel) into its action, and carries it out.
pub fn mouse(app: &mut App, event: &MouseEvent) {
    if let Some(action) = super::keymap::action_for_mouse(app.context(), event) {
        update(app, action);
    }
}

/// Carries out `action`: every read and write of the console happens here.
/// A failure is shown to the reviewer, never a reason to stop.
pub fn update(app: &mut App, action: Action) {
    if !matches!(action, Action::Tick | Action::Resize { .. }) {
        app.flash = None;
    }
    if let Err(e) = dispatch(app, action) {
        app.flash = Flash::error(e.to_string());
    }
}

fn dispatch(app: &mut App, action: Action) -> Result<(), StoreError> {
    match action {
        Action::Quit => {
            app.quit = true;
            return Ok(());
        }
        Action::Tick => return app.tick(),
        Action::Resize { width, height } => {
            app.size = (width, height);
            app.with_page(|page, reader| page.reload(reader))?;
            return Ok(());
        }
        _ => {}
    }
    match app.context() {
        Context::Help => {
            match action {
                Action::Back | Action::Help => app.help = None,
                other => {
                    if let (Some(at), Some(m)) = (app.help, movement(other)) {
                        let last = view::help_last_scroll(app.size);
                        let page = view::list_capacity(app.size, false);
                        app.help = Some(scrolled(at.min(last), m, page, last));
                    }
                }
            }
            Ok(())
        }
        Context::Form | Context::Confirm | Context::Outcome => writes::form_action(app, action),
        Context::Filter => match action {
            Action::Input(c) => app.edit_filter(|f| f.push(c)),
            Action::Erase => app.edit_filter(|f| {
                f.pop();
            }),
            Action::Submit => {
                app.filter_edit = None;
                Ok(())
            }
            Action::Back => {
                let before = app.filter_edit.take().and_then(|e| e.before);
                app.set_filter(before)
            }
            _ => Ok(()),
        },
        Context::Detail => match action {
            Action::Back => app.close_detail(),
            Action::ShowTab(tab) => app.show_tab(tab),
            Action::NextRow => app.step(Move::Down),
            Action::PrevRow => app.step(Move::Up),
            Action::Help => {
                app.help = Some(0);
                Ok(())
            }
            Action::Answer | Action::Owner | Action::Retry | Action::Cancel => {
                writes::open_form(app, action)
            }
            other => {
                if let Some(m) = movement(other) {
                    app.scroll_detail(m);
                }
                Ok(())
            }
        },
        Context::List | Context::Everywhere => match action {
            Action::Back => app.back(),
            Action::NextTab => app.show_tab(app.tab.next()),
            Action::PrevTab => app.show_tab(app.tab.prev()),
            Action::ShowTab(tab) => app.show_tab(tab),
            Action::OpenDetail => app.open_detail(),
            Action::Filter => {
                if app.tab == Tab::Reconcile {
                    app.flash = Flash::info("the Reconcile view has nothing to filter");
                } else {
                    app.filter_edit = Some(FilterEdit {
                        before: app.filter().map(str::to_owned),
                    });
                }
                Ok(())
            }
            Action::Help => {
                app.help = Some(0);
                Ok(())
            }
            Action::Answer | Action::Owner | Action::Retry | Action::Cancel => {
                writes::open_form(app, action)
            }
            other => match movement(other) {
                Some(m) => app.step(m),
                None => Ok(()),
            },
        },
    }
}
