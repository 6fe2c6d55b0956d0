//! The pages the tabs list, typed by their rows: [`TabPage`] has one variant per kind
//! of row, [`Lists`] one page per tab, and [`List`] is what every page offers the
//! update step and the footer, whatever its rows.

use crate::console::action::Move;
use crate::console::tab::Tab;
use crate::decision::Disposition;
use crate::filter::{FilterError, Scope, Sort, SortColumn};
use crate::store::{
    AgedJobRow, CallbackRow, Finding, FindingJob, OutboxRow, RejectedLine, StoreError,
};

use super::counts::Count;
use super::detail::DetailKey;
use super::page::{CallbackItem, CallbackList, FailedItem, Page, PageRow, RowSource};

/// A view's page, whatever its rows: what the update step and the footer ask of it.
pub trait List {
    /// The view's filter.
    fn filter(&self) -> Option<&str>;
    /// Sets the view's filter (`None`: no filter); an error says why the text is no
    /// query, and the rows stay those of the last one that was.
    /// `owner:me` is `me`'s own queue.
    fn set_filter(&mut self, filter: Option<String>, me: &str) -> Result<(), FilterError>;
    /// Sets the filter's text alone: the rows stay those of the last query searched
    /// (a large view searches when typing pauses).
    fn set_filter_text(&mut self, filter: Option<String>, me: &str);
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
    /// Does the query standing keep fewer rows than the list holds (its count of
    /// them is a read of the rows, not a count the ledger keeps)?
    fn filtered(&self) -> bool;
    /// How many times the rows, the selection, the filter or the order changed
    /// ([`Page::revision`]).
    fn revision(&self) -> u64;
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
    /// Says the count is being made elsewhere: the rows may be read before it comes.
    fn await_count(&mut self);
    /// Takes a count made elsewhere.
    fn set_count(&mut self, count: Count);
    /// Counts the rows from the page, when a count is awaited and the page holds
    /// every row the filter keeps (nothing lies beyond either edge): whether it did.
    fn count_from_page(&mut self) -> bool;
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
            self.revision += 1;
        }
        exists
    }

    fn set_filter(&mut self, filter: Option<String>, me: &str) -> Result<(), FilterError> {
        Page::set_filter(self, filter, me)
    }

    fn set_filter_text(&mut self, filter: Option<String>, me: &str) {
        Page::set_filter_text(self, filter, me);
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
        self.revision += 1;
        T::toggle_open(&mut self.source)
    }

    fn filtered(&self) -> bool {
        !self.query.is_empty()
    }

    fn revision(&self) -> u64 {
        self.revision
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

    fn await_count(&mut self) {
        self.count.counting = true;
    }

    fn set_count(&mut self, count: Count) {
        self.count = count;
    }

    fn count_from_page(&mut self) -> bool {
        if !self.count.counting || self.more_before || self.more_after {
            return false;
        }
        // The rows of the whole list, and those still open, do not depend on the
        // filter: they stand.
        self.count.matching =
            (!self.query.is_empty()).then(|| i64::try_from(self.rows.len()).unwrap_or(i64::MAX));
        self.count.counting = false;
        true
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
    /// The jobs behind a Reconcile finding. The opened finding keeps its own page
    /// (`Findings::jobs`); it is a `TabPage` while a search reads a copy of it, so
    /// that the search of a tab's filter reads it too.
    FindingJobs(Page<FindingJob>),
}

/// Which list a page is: a tab's, or the jobs behind the finding the Reconcile view
/// opened, that opening of it (the same finding opened again is another list: a
/// search begun in the first must not fill the second).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListId {
    /// The page `Lists` keeps for the tab.
    Tab(Tab),
    /// The jobs of `finding`, in the drill-down opened `opened`th.
    FindingJobs { finding: Finding, opened: u64 },
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
    FindingJob => FindingJobs,
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
