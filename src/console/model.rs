//! What the console shows, as plain data: one page of rows per view, the counts, the
//! detail pane, the open overlay, the flash and the size. No ledger: the update step
//! fills it in, the views draw it, and a test can build one by hand.

pub mod bulk;
pub mod compare;
pub mod counts;
pub mod decisions;
pub mod detail;
pub mod findings;
pub mod form;
pub mod marks;
pub mod page;
pub mod withdraw;

use crate::clock::{Clock, Timestamp};
use crate::decision::Disposition;
use crate::filter::{FilterError, Scope, Sort, SortColumn};
use crate::review::CaseKind;
use crate::store::{AgedJobRow, CallbackRow, OutboxRow, RejectedLine, SavedView, StoreError};

use super::action::{Action, Move};
use super::context::Context;
use super::field::TextField;
use super::tab::Tab;
use super::theme::Theme;
use counts::{Count, ReconcileSummary};
use detail::{Detail, DetailKey};
use form::Form;
use marks::Marks;
use page::{CallbackItem, CallbackList, FailedItem, Page, PageRow, RowSource};

/// A message in the line above the footer: until the next key, or (a passing one)
/// for a few seconds whatever keys come, then it goes by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    /// What to say.
    pub text: String,
    /// Something was not done (drawn as a warning).
    pub error: bool,
    /// A passing message stays until then, keys or not; `None`: until the next key.
    pub until: Option<std::time::Instant>,
}

impl Flash {
    /// A message that something went as asked, ready to put in [`Model::flash`].
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    pub(crate) fn info(text: impl Into<String>) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: false,
            until: None,
        })
    }

    /// A message that something was written, shown for `lasts` while the reviewer
    /// goes on to the next row: it needs no key to close, and the next key does not
    /// take it away before it could be read.
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    pub(crate) fn passing(text: impl Into<String>, lasts: std::time::Duration) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: false,
            until: Some(std::time::Instant::now() + lasts),
        })
    }

    /// Has its time passed (a passing message), at `now`?
    pub fn gone_at(&self, now: std::time::Instant) -> bool {
        self.until.is_some_and(|until| now >= until)
    }

    /// A message that something was not done, and why.
    #[allow(clippy::unnecessary_wraps)] // every caller assigns an `Option<Flash>`
    pub(crate) fn error(text: impl Into<String>) -> Option<Flash> {
        Some(Flash {
            text: text.into(),
            error: true,
            until: None,
        })
    }
}

/// What has the keyboard above the lists and the detail pane: at most one at a time.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Overlay {
    /// Nothing: the list (or the detail pane, when open) has the keyboard.
    #[default]
    None,
    /// Typing the current view's filter; Esc puts `before` back.
    Filter {
        /// The filter to restore on Esc.
        before: Option<String>,
        /// The filter as typed, with its cursor (each change is the view's filter at once).
        field: TextField,
    },
    /// A form over the view.
    Form(Box<Form>),
    /// The comparison pane of a held callback.
    Compare(Box<compare::Comparison>),
    /// The help screen, scrolled down `scroll` lines.
    Help {
        /// Lines scrolled off the top.
        scroll: usize,
    },
    /// Typing a command after `:` (`save NAME`).
    Command {
        /// The command as typed so far.
        text: TextField,
    },
    /// A change to a saved view that takes another away, asked before it is written.
    ConfirmView(Box<ViewChange>),
    /// The saved views, to recall one.
    SavedViews {
        /// Each name's latest view, in order of name.
        views: Vec<SavedView>,
        /// The view Enter recalls.
        selected: usize,
    },
}

/// A change to the saved views that the reviewer is asked to confirm (y or n).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewChange {
    /// Saving `view` under a name that has `standing` already.
    Replace {
        view: SavedView,
        standing: SavedView,
    },
    /// Deleting the `selected` one of the saved views listed (the list comes back after).
    Delete {
        views: Vec<SavedView>,
        selected: usize,
    },
}

/// A view's page, whatever its rows: what the update step and the footer ask of it.
pub trait List {
    /// The view's filter.
    fn filter(&self) -> Option<&str>;
    /// Sets the view's filter (`None`: no filter); an error says why the text is no
    /// query, and the rows stay those of the last one that was.
    fn set_filter(&mut self, filter: Option<String>) -> Result<(), FilterError>;
    /// Sets the filter's text alone: the rows stay those of the last query searched
    /// (a large view searches when typing pauses).
    fn set_filter_text(&mut self, filter: Option<String>);
    /// Why the filter as typed is not a query (`None`: it is one, or there is none).
    fn invalid(&self) -> Option<&FilterError>;
    /// The kind of list, which says the fields its query may name.
    fn scope(&self) -> Scope;
    /// The columns the list can be sorted by, its own order first.
    fn sorts(&self) -> &'static [SortColumn];
    /// The order of the rows.
    fn sort(&self) -> Sort;
    /// Orders the rows by `sort` (read again from the top on the next reload).
    fn set_sort(&mut self, sort: Sort);
    /// Whether a row is selected (a list with no rows has none).
    fn has_selection(&self) -> bool;
    /// How many rows the page holds.
    fn rows_on_page(&self) -> usize;
    /// Switches a list of questions between the open ones and all; the new setting
    /// (`Some(true)`: open only), or `None` when the view lists no questions.
    fn toggle_open(&mut self) -> Option<bool>;
    /// What the detail pane would show for the selected row.
    fn detail_key(&self) -> Option<DetailKey>;
    /// The job of the selected row, for retries and cancels.
    fn job(&self) -> Option<&str>;
    /// The selected row, when the view lists callbacks.
    fn callback(&self) -> Option<&CallbackRow>;
    /// The selected row, when the view lists aged jobs.
    fn aged(&self) -> Option<&AgedJobRow>;
    /// How many rows the view lists, and how many match its filter.
    fn count(&self) -> Count;
    /// Counts the view's rows again in `rows`.
    fn recount(&mut self, rows: &dyn RowSource) -> Result<(), StoreError>;
    /// Re-reads the page from `rows`, `height` rows tall, keeping the selection.
    fn reload(&mut self, rows: &dyn RowSource, height: usize) -> Result<(), StoreError>;
    /// Moves the selection, reading past the page's edge from `rows` when needed.
    fn step(
        &mut self,
        rows: &dyn RowSource,
        height: usize,
        movement: Move,
    ) -> Result<(), StoreError>;
    /// Selects the `index`th row of the page, if there is one (a click on it).
    fn select(&mut self, index: usize) -> bool;
}

impl<T: PageRow> List for Page<T> {
    fn filter(&self) -> Option<&str> {
        self.filter.as_deref()
    }

    fn select(&mut self, index: usize) -> bool {
        let exists = index < self.rows.len();
        if exists {
            self.selected = index;
        }
        exists
    }

    fn set_filter(&mut self, filter: Option<String>) -> Result<(), FilterError> {
        Page::set_filter(self, filter)
    }

    fn set_filter_text(&mut self, filter: Option<String>) {
        Page::set_filter_text(self, filter);
    }

    fn invalid(&self) -> Option<&FilterError> {
        self.invalid.as_ref()
    }

    fn scope(&self) -> Scope {
        T::SCOPE
    }

    fn sorts(&self) -> &'static [SortColumn] {
        T::sorts(self.source)
    }

    fn sort(&self) -> Sort {
        self.sort
    }

    fn set_sort(&mut self, sort: Sort) {
        Page::set_sort(self, sort);
    }

    fn has_selection(&self) -> bool {
        self.current().is_some()
    }

    fn rows_on_page(&self) -> usize {
        self.rows.len()
    }

    fn toggle_open(&mut self) -> Option<bool> {
        T::toggle_open(&mut self.source)
    }

    fn detail_key(&self) -> Option<DetailKey> {
        self.current().and_then(PageRow::detail_key)
    }

    fn job(&self) -> Option<&str> {
        self.current().and_then(PageRow::job)
    }

    fn callback(&self) -> Option<&CallbackRow> {
        self.current().and_then(PageRow::callback)
    }

    fn aged(&self) -> Option<&AgedJobRow> {
        self.current().and_then(PageRow::aged)
    }

    fn count(&self) -> Count {
        self.count
    }

    fn recount(&mut self, rows: &dyn RowSource) -> Result<(), StoreError> {
        self.count = T::count(rows, self.query())?;
        Ok(())
    }

    fn reload(&mut self, rows: &dyn RowSource, height: usize) -> Result<(), StoreError> {
        Page::reload(self, rows, height)
    }

    fn step(
        &mut self,
        rows: &dyn RowSource,
        height: usize,
        movement: Move,
    ) -> Result<(), StoreError> {
        Page::step(self, rows, height, movement)
    }
}

/// The page a tab lists, typed by its rows: one variant per kind of row, so a view
/// reaches the rows it draws by matching, never by guessing a type.
#[derive(Clone)]
pub enum TabPage {
    /// Callbacks (Held, Quarantined, All callbacks).
    Callbacks(Page<CallbackItem>),
    /// Open jobs past their expected age.
    Aged(Page<AgedJobRow>),
    /// Failed jobs.
    Failed(Page<FailedItem>),
    /// Requests to the outside.
    Outbox(Page<OutboxRow>),
    /// Event lines not taken.
    Rejected(Page<RejectedLine>),
}

/// A kind of row a tab can list: where its page sits in a [`TabPage`].
pub trait TabRow: PageRow {
    /// The page of these rows, when `page` holds them.
    fn page(page: &TabPage) -> Option<&Page<Self>>;
    /// [`TabRow::page`], to change.
    fn page_mut(page: &mut TabPage) -> Option<&mut Page<Self>>;
}

/// Binds each kind of row to its [`TabPage`] variant, and the page, whatever its rows,
/// to what every list offers.
macro_rules! tab_rows {
    ($($row:ty => $variant:ident),* $(,)?) => {
        impl TabPage {
            /// The page, as what every list offers.
            pub fn list(&self) -> &dyn List {
                match self {
                    $(TabPage::$variant(page) => page,)*
                }
            }

            /// [`TabPage::list`], to change.
            pub fn list_mut(&mut self) -> &mut dyn List {
                match self {
                    $(TabPage::$variant(page) => page,)*
                }
            }
        }

        $(impl TabRow for $row {
            fn page(page: &TabPage) -> Option<&Page<Self>> {
                match page {
                    TabPage::$variant(page) => Some(page),
                    _ => None,
                }
            }

            fn page_mut(page: &mut TabPage) -> Option<&mut Page<Self>> {
                match page {
                    TabPage::$variant(page) => Some(page),
                    _ => None,
                }
            }
        })*
    };
}

tab_rows! {
    CallbackItem => Callbacks,
    AgedJobRow => Aged,
    FailedItem => Failed,
    OutboxRow => Outbox,
    RejectedLine => Rejected,
}

/// A new, empty page of the rows `tab` lists (`None`: it lists no rows).
fn new_page(tab: Tab) -> Option<TabPage> {
    match tab {
        Tab::Held => Some(callbacks(Some(Disposition::Hold), false)),
        Tab::Quarantined => Some(callbacks(Some(Disposition::Quarantine), true)),
        Tab::Aged => Some(TabPage::Aged(Page::new(()))),
        Tab::Failed => Some(TabPage::Failed(Page::new(()))),
        Tab::Callbacks => Some(callbacks(None, false)),
        Tab::Reconcile => None,
        Tab::Outbox => Some(TabPage::Outbox(Page::new(()))),
        Tab::Rejected => Some(TabPage::Rejected(Page::new(()))),
    }
}

/// A page of the callbacks of one disposition (`None`: all of them). Held and
/// quarantined callbacks are questions: their views list the open ones first.
fn callbacks(disposition: Option<Disposition>, raw_head: bool) -> TabPage {
    let open = matches!(
        disposition,
        Some(Disposition::Hold | Disposition::Quarantine)
    );
    TabPage::Callbacks(Page::new(CallbackList {
        disposition,
        raw_head,
        open,
    }))
}

/// The page of each view that lists rows, in the order of the tabs.
pub struct Lists(Vec<Option<TabPage>>);

impl Lists {
    /// Every page empty, each reading the list its tab names.
    pub fn new() -> Lists {
        Lists(Tab::ALL.iter().map(|tab| new_page(*tab)).collect())
    }

    /// The page `tab` shows, typed by its rows (`None`: the view lists no rows).
    pub fn tab_page(&self, tab: Tab) -> Option<&TabPage> {
        self.0.get(tab.index())?.as_ref()
    }

    /// The page `tab` shows (`None`: the view lists no rows).
    pub fn of(&self, tab: Tab) -> Option<&dyn List> {
        self.tab_page(tab).map(TabPage::list)
    }

    /// Puts `page` in place of the one `tab` shows (a search finished elsewhere).
    pub fn put(&mut self, tab: Tab, page: TabPage) {
        if let Some(slot) = self.0.get_mut(tab.index()) {
            *slot = Some(page);
        }
    }

    /// The page `tab` shows, typed by its rows, to change.
    pub fn tab_page_mut(&mut self, tab: Tab) -> Option<&mut TabPage> {
        self.0.get_mut(tab.index())?.as_mut()
    }

    /// The page `tab` shows, to change.
    pub fn of_mut(&mut self, tab: Tab) -> Option<&mut dyn List> {
        self.tab_page_mut(tab).map(TabPage::list_mut)
    }

    /// The page `tab` shows, as the page of rows `T` it is (`None` when it lists
    /// other rows, or none): what a view draws, or a test fills in.
    pub fn page<T: TabRow>(&self, tab: Tab) -> Option<&Page<T>> {
        T::page(self.tab_page(tab)?)
    }

    /// [`Lists::page`], to change.
    pub fn page_mut<T: TabRow>(&mut self, tab: Tab) -> Option<&mut Page<T>> {
        T::page_mut(self.tab_page_mut(tab)?)
    }
}

impl Default for Lists {
    fn default() -> Self {
        Lists::new()
    }
}

/// Everything a frame is drawn from.
pub struct Model {
    /// The view shown.
    pub tab: Tab,
    /// One page of rows per list view.
    pub lists: Lists,
    /// Lines of the Reconcile view scrolled off the top.
    pub reconcile_scroll: usize,
    /// The Reconcile view's selected finding, and the jobs behind it once opened.
    pub findings: findings::Findings,
    /// The reconciliation at a glance.
    pub summary: ReconcileSummary,
    /// The detail pane below the list, open when `Some`; it has the keyboard while no
    /// overlay is open.
    pub detail: Option<Detail>,
    /// The filter being typed, a form, or the help.
    pub overlay: Overlay,
    /// The message above the footer.
    pub flash: Option<Flash>,
    /// Text the terminal is to put on its clipboard (OSC 52): the update step asks,
    /// the terminal loop writes it and takes it away, so drawing stays read-only.
    pub clipboard: Option<String>,
    /// The terminal's width and height.
    pub size: (u16, u16),
    /// The ledger's path, as the status line shows it.
    pub ledger_path: String,
    /// Who answers, as written into the ledger.
    pub reviewer: String,
    /// Fixed or the system's (the status line says which).
    pub clock: Clock,
    /// The time the counts and ages were taken at.
    pub now: Timestamp,
    /// The console was opened read-only (`review --read-only`).
    pub read_only: bool,
    /// The ledger file is gone from its path (removed, or replaced by a file that
    /// does not open): what was read stays, writes are off until it is back.
    pub ledger_gone: bool,
    /// The rows marked in each view, for a bulk answer.
    pub marks: Marks,
    /// The view whose filter is being searched (typed in a large view and waiting for
    /// typing to pause, or read on another thread): until its rows come, those shown
    /// are the previous filter's, and the screen says so.
    pub searching: Option<Tab>,
    /// How colours are shown: a dark palette, a light one, or none.
    pub theme: Theme,
}

impl Model {
    /// Nothing can be written now: opened read-only, or the file is gone from its path.
    pub fn writes_off(&self) -> bool {
        self.read_only || self.ledger_gone
    }

    /// A model with nothing read yet, on a 160×48 screen.
    pub fn new(
        ledger_path: String,
        clock: Clock,
        now: Timestamp,
        reviewer: String,
        read_only: bool,
    ) -> Model {
        Model {
            tab: Tab::Held,
            lists: Lists::new(),
            reconcile_scroll: 0,
            findings: findings::Findings::default(),
            summary: ReconcileSummary::default(),
            detail: None,
            overlay: Overlay::None,
            flash: None,
            clipboard: None,
            size: (160, 48),
            ledger_path,
            reviewer,
            clock,
            now,
            read_only,
            ledger_gone: false,
            marks: Marks::default(),
            searching: None,
            theme: Theme::default(),
        }
    }

    /// Where the keyboard is.
    pub fn context(&self) -> Context {
        match &self.overlay {
            Overlay::Help { .. } => Context::Help,
            Overlay::Compare(_) => Context::Compare,
            Overlay::Form(form) if form.outcome().is_some() => Context::Outcome,
            Overlay::Form(form) if matches!(&**form, Form::Request(f) if f.would_be_refused()) => {
                Context::Refused
            }
            Overlay::Form(form) if matches!(**form, Form::Request(_)) => Context::Confirm,
            Overlay::Form(form) if matches!(**form, Form::Withdraw(_)) => Context::Withdraw,
            Overlay::Form(form) if matches!(&**form, Form::Bulk(f) if f.plan().is_some()) => {
                Context::Plan
            }
            Overlay::Form(form) if matches!(**form, Form::Bulk(_)) => Context::Bulk,
            Overlay::Form(form) if matches!(**form, Form::Owner(_)) => Context::Owner,
            Overlay::Form(_) => Context::Form,
            Overlay::Filter { .. } => Context::Filter,
            Overlay::Command { .. } => Context::Command,
            Overlay::SavedViews { .. } => Context::SavedViews,
            Overlay::ConfirmView(_) => Context::ConfirmView,
            Overlay::None if self.detail.is_some() => Context::Detail,
            Overlay::None => Context::List,
        }
    }

    /// The current view's page, if it lists rows (the Reconcile view: the jobs of an
    /// opened finding).
    pub fn list(&self) -> Option<&dyn List> {
        match (self.tab, &self.findings.jobs) {
            (Tab::Reconcile, Some(jobs)) => Some(jobs),
            _ => self.lists.of(self.tab),
        }
    }

    /// The current view's page, to change.
    pub fn list_mut(&mut self) -> Option<&mut dyn List> {
        match (self.tab, &mut self.findings.jobs) {
            (Tab::Reconcile, Some(jobs)) => Some(jobs),
            _ => self.lists.of_mut(self.tab),
        }
    }

    /// The Reconcile view shows its findings (no finding opened): Enter opens one.
    pub fn on_findings(&self) -> bool {
        self.tab == Tab::Reconcile && self.findings.jobs.is_none()
    }

    /// The count the tab of `tab` shows: its rows (and those matching its filter),
    /// or for the Reconcile view the jobs not accounted for.
    pub fn count(&self, tab: Tab) -> Count {
        self.lists.of(tab).map_or(
            Count {
                all: self.summary.missing.missing_terminal + self.summary.missing.missing_output,
                ..Count::default()
            },
            List::count,
        )
    }

    /// The current view's filter.
    pub fn filter(&self) -> Option<&str> {
        self.list().and_then(List::filter)
    }

    /// Is the current view's filter being searched, its rows still the previous one's?
    pub fn searching_shown(&self) -> bool {
        self.searching == Some(self.tab) && self.list().is_some_and(|l| l.invalid().is_none())
    }

    /// Why the current view's filter as typed is not a query yet, if it is not.
    pub fn invalid_filter(&self) -> Option<&FilterError> {
        self.list().and_then(List::invalid)
    }

    /// The open form, if any.
    pub fn form(&self) -> Option<&Form> {
        match &self.overlay {
            Overlay::Form(form) => Some(form),
            _ => None,
        }
    }

    /// The selected callback and its kind of question, or why it takes no answer.
    pub(crate) fn answerable(&self) -> Result<(&CallbackRow, CaseKind), &'static str> {
        let row = self
            .list()
            .and_then(List::callback)
            .ok_or("answers are given on held or quarantined callbacks (views 1 and 2)")?;
        CaseKind::of(row.disposition, row.reason)
            .map(|kind| (row, kind))
            .ok_or("this callback was applied or recorded; only held and quarantined ones take answers")
    }

    /// The job selected in the Reconcile view's list of divergent decisions, when
    /// that list is open (`a` answers it).
    pub fn divergent_job(&self) -> Option<&str> {
        self.findings
            .jobs
            .as_ref()
            .filter(|page| {
                self.tab == Tab::Reconcile
                    && page.source == crate::store::Finding::DivergentDecisions
            })
            .and_then(Page::current)
            .map(|row| row.job_id.as_str())
    }

    /// The selected row is a pending request in the Outbox view.
    fn withdrawable(&self) -> bool {
        self.tab == Tab::Outbox
            && self
                .lists
                .page::<crate::store::OutboxRow>(Tab::Outbox)
                .and_then(Page::current)
                .is_some_and(|row| row.withdrawal.is_none())
    }

    /// The selected row (or the detail pane's callback) is a held callback.
    fn held_selected(&self) -> bool {
        self.list()
            .and_then(List::callback)
            .or_else(|| self.detail.as_ref().and_then(|d| d.callback.as_ref()))
            .is_some_and(|c| c.disposition == crate::decision::Disposition::Hold)
    }

    /// Does the current view list callbacks (which can be marked and answered at once)?
    pub fn lists_callbacks(&self) -> bool {
        self.lists.page::<CallbackItem>(self.tab).is_some()
    }

    /// Does `action` apply here and now? (Footer hints show only those that do.)
    pub fn offers(&self, action: Action) -> bool {
        let job = self.list().and_then(List::job);
        let marked = self.marks.count(self.tab) > 0;
        match action {
            Action::Answer if marked => !self.writes_off(),
            Action::Answer => {
                !self.writes_off() && (self.answerable().is_ok() || self.divergent_job().is_some())
            }
            Action::Mark | Action::MarkAll => self.lists_callbacks(),
            Action::ClearMarks => marked,
            Action::Owner => !self.writes_off() && self.list().and_then(List::aged).is_some(),
            Action::Retry | Action::Cancel => !self.writes_off() && job.is_some(),
            Action::OpenDetail if self.on_findings() => true,
            Action::OpenDetail => self.list().and_then(List::detail_key).is_some(),
            Action::Filter => self.list().is_some(),
            // Enter keeps only a query: not offered while the text typed is none.
            Action::Submit if matches!(self.overlay, Overlay::Filter { .. }) => {
                self.invalid_filter().is_none()
            }
            Action::ToggleOpen => self.list().is_some_and(|l| l.count().open.is_some()),
            Action::Withdraw => !self.writes_off() && self.withdrawable(),
            Action::Compare => self.held_selected(),
            // Offered where there is more than one order to cycle through.
            Action::SortNext => self.list().is_some_and(|l| l.sorts().len() > 1),
            _ => true,
        }
    }
}
