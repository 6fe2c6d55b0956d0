//! One page of a view's rows, read by keyset: exactly the rows that fit on screen.
//!
//! A page never holds more than the list area shows, so drawing costs the same at the
//! first row and the millionth. Moving past its edge reads the next row (or page) by
//! key; a refresh re-reads the page from its first key and finds the selected row again
//! by key, not by index, so rows arriving underneath never move the selection.

use crate::clock::Timestamp;
use crate::decision::Disposition;
use crate::filter::{self, FilterError, Scope, Sort, SortColumn};
use crate::store::{
    AgedJobRow, AnswerRow, CallbackKey, CallbackRow, FailedJobRow, JobKey, Keyset, OutboxRow,
    PageRequest, RejectedLine, SortValue, StoreError,
};
use crate::store::{Finding, FindingJob};

use super::counts::Count;
use super::detail::DetailKey;
use crate::console::action::Move;

/// Rows read for a page, or why not.
pub type RowsRead<T> = Result<Vec<T>, StoreError>;

/// Which rows of which list, in which order: the list, the view's query and its sort.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a, S> {
    /// The list (e.g. the disposition of a callback view).
    pub list: S,
    /// Only rows the view's query keeps (all of them when it is empty).
    pub filter: &'a filter::Query,
    /// The order of the rows.
    pub sort: Sort,
}

/// Where pages read their rows: the update step implements it over the ledger, so a
/// page walks its keyset without holding a ledger (and a test can hand it rows).
pub trait RowSource {
    /// Callbacks of the query, as `page` asks.
    fn callbacks(
        &self,
        query: Query<'_, CallbackList>,
        page: PageRequest<CallbackKey>,
    ) -> RowsRead<CallbackItem>;
    /// Open jobs past their expected age.
    fn aged_jobs(&self, query: Query<'_, ()>, page: PageRequest<JobKey>) -> RowsRead<AgedJobRow>;
    /// Failed jobs.
    fn failed_jobs(&self, query: Query<'_, ()>, page: PageRequest<JobKey>) -> RowsRead<FailedItem>;
    /// How many callbacks the list holds, and how many match the filter.
    fn count_callbacks(&self, query: Query<'_, CallbackList>) -> Result<Count, StoreError>;
    /// How many open jobs are past their expected age, and how many match the filter.
    fn count_aged_jobs(&self, query: Query<'_, ()>) -> Result<Count, StoreError>;
    /// How many jobs failed, and how many match the filter.
    fn count_failed_jobs(&self, query: Query<'_, ()>) -> Result<Count, StoreError>;
    /// Requests in the outbox, in the order they were made.
    fn outbox(&self, query: Query<'_, ()>, page: PageRequest<i64>) -> RowsRead<OutboxRow>;
    /// How many requests the outbox holds, and how many match the filter.
    fn count_outbox(&self, query: Query<'_, ()>) -> Result<Count, StoreError>;
    /// Rejected event lines, in ledger order.
    fn rejected(&self, query: Query<'_, ()>, page: PageRequest<i64>) -> RowsRead<RejectedLine>;
    /// How many lines were rejected, and how many match the filter.
    fn count_rejected(&self, query: Query<'_, ()>) -> Result<Count, StoreError>;
    /// The jobs behind a reconciliation finding, in job id order.
    fn finding_jobs(
        &self,
        query: Query<'_, Finding>,
        page: PageRequest<String>,
    ) -> RowsRead<FindingJob>;
    /// How many jobs the finding names, and how many match the filter.
    fn count_finding_jobs(&self, query: Query<'_, Finding>) -> Result<Count, StoreError>;
}

/// A row that can be read by keyset.
pub trait PageRow: Sized + Clone + Send {
    /// What orders the rows, and finds a row again after a refresh.
    type Key: Clone + PartialEq + Send;
    /// Which list of this kind of row (e.g. the disposition of a callback view).
    type Source: Copy + Send;
    /// The kind of list, which says the fields its query may name.
    const SCOPE: Scope;

    /// The columns the list `source` can be sorted by, its own order first: those its
    /// kind of list has ([`SortColumn::of`]) where an index keeps the order.
    fn sorts(_source: Self::Source) -> &'static [SortColumn] {
        SortColumn::of(Self::SCOPE)
    }

    /// This row's place in its list.
    fn key(&self) -> Self::Key;

    /// What the detail pane shows for this row (`None`: it has no detail).
    fn detail_key(&self) -> Option<DetailKey>;

    /// The job a retry, cancel or owner would be asked for (jobs only).
    fn job(&self) -> Option<&str> {
        None
    }

    /// The callback this row is (callbacks only).
    fn callback(&self) -> Option<&CallbackRow> {
        None
    }

    /// The aged job this row is (the Aged view only).
    fn aged(&self) -> Option<&AgedJobRow> {
        None
    }

    /// Switches a list of questions between the open ones and all (`Some(true)`: open
    /// only now); `None` for a list of other rows.
    fn toggle_open(_source: &mut Self::Source) -> Option<bool> {
        None
    }

    /// Counts the rows of the query in `rows`, and those matching its filter.
    fn count(rows: &dyn RowSource, query: Query<'_, Self::Source>) -> Result<Count, StoreError>;

    /// Reads rows of the query from `rows`, as `page` asks.
    fn fetch(
        rows: &dyn RowSource,
        query: Query<'_, Self::Source>,
        page: PageRequest<Self::Key>,
    ) -> RowsRead<Self>;
}

/// The page a view holds, its filter and its selection.
#[derive(Clone)]
pub struct Page<T: PageRow> {
    /// Which list the page reads.
    pub source: T::Source,
    /// The view's filter as typed, kept while other views are shown.
    pub filter: Option<String>,
    /// The last query typed that parsed: the rows shown are the rows it keeps.
    pub query: filter::Query,
    /// Why the filter as typed is not a query (yet): the rows held are then those of
    /// an earlier text, and must not be shown as if they matched this one.
    pub invalid: Option<FilterError>,
    /// The order of the rows.
    pub sort: Sort,
    /// The rows on screen, no more.
    pub rows: Vec<T>,
    /// The selected row's index in `rows`.
    pub selected: usize,
    /// Rows before the first one shown.
    pub more_before: bool,
    /// Rows after the last one shown.
    pub more_after: bool,
    /// How many rows the list holds, and how many match its filter.
    pub count: Count,
}

impl<T: PageRow> Page<T> {
    /// An empty page of the list `source`, read on the first refresh.
    pub fn new(source: T::Source) -> Self {
        Page {
            source,
            filter: None,
            query: filter::Query::all(T::SCOPE),
            invalid: None,
            sort: Sort::default(),
            rows: Vec::new(),
            selected: 0,
            more_before: false,
            more_after: false,
            count: Count::default(),
        }
    }

    /// The selected row, if the page has any.
    pub fn current(&self) -> Option<&T> {
        self.rows.get(self.selected)
    }

    /// The list the page reads, under its filter.
    pub fn query(&self) -> Query<'_, T::Source> {
        Query {
            list: self.source,
            filter: &self.query,
            sort: self.sort,
        }
    }

    /// Sets the filter to `text`, and the query to what it says when it parses (an
    /// empty text keeps every row). On an error the rows stay those of the last query
    /// that parsed.
    pub fn set_filter(&mut self, text: Option<String>) -> Result<(), FilterError> {
        let parsed = filter::Query::parse(text.as_deref().unwrap_or(""), T::SCOPE);
        self.filter = text;
        self.invalid = parsed.as_ref().err().cloned();
        self.query = parsed?;
        Ok(())
    }

    /// Sets the filter's text alone, keeping the query (and so the rows) of the last
    /// text searched; whether the text is a query is known at once (parsing is cheap).
    pub fn set_filter_text(&mut self, text: Option<String>) {
        self.invalid = filter::Query::parse(text.as_deref().unwrap_or(""), T::SCOPE).err();
        self.filter = text;
    }

    /// Orders the rows by `sort`, from the top of the list.
    pub fn set_sort(&mut self, sort: Sort) {
        self.sort = sort;
        // The keys of the rows held are keys of the old order.
        self.rows.clear();
        self.selected = 0;
    }

    fn fetch(&self, reader: &dyn RowSource, keyset: Keyset<T::Key>, limit: usize) -> RowsRead<T> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        T::fetch(reader, self.query(), PageRequest::at(keyset, limit))
    }

    /// Rows past the page's last row (`forward`) or before its first, at most `limit`
    /// (none when the page is empty).
    fn beyond(&self, reader: &dyn RowSource, forward: bool, limit: usize) -> RowsRead<T> {
        let edge = if forward {
            self.rows.last()
        } else {
            self.rows.first()
        };
        let Some(edge) = edge.map(PageRow::key) else {
            return Ok(Vec::new());
        };
        let keyset = if forward {
            Keyset::After(edge)
        } else {
            Keyset::Before(edge)
        };
        self.fetch(reader, keyset, limit)
    }

    /// Are there rows beyond either edge of the page?
    fn probe(&mut self, reader: &dyn RowSource) -> Result<(), StoreError> {
        // The page holds every row the count knows of: nothing beyond it to look for
        // (under a query that keeps few of a million rows, each look read them all).
        let known = self.count.matching.unwrap_or(self.count.all);
        if usize::try_from(known).is_ok_and(|n| n <= self.rows.len()) {
            self.more_before = false;
            self.more_after = false;
            return Ok(());
        }
        self.more_before = !self.beyond(reader, false, 1)?.is_empty();
        self.more_after = !self.beyond(reader, true, 1)?.is_empty();
        Ok(())
    }

    /// Re-reads the page in place (after a change to the ledger, the filter or the
    /// screen), keeping the selection on the same row when it is still listed.
    pub fn reload(&mut self, reader: &dyn RowSource, height: usize) -> Result<(), StoreError> {
        let height = height.max(1);
        let keep = self.current().map(PageRow::key);
        // Start so that the selected row stays on screen when the page got shorter.
        let start = if self.rows.is_empty() {
            Keyset::First
        } else {
            let top = (self.selected + 1).saturating_sub(height);
            Keyset::From(self.rows[top.min(self.rows.len() - 1)].key())
        };
        let mut rows = self.fetch(reader, start, height)?;
        if rows.len() < height {
            // Fill the page from above, e.g. at the end of a list whose rows left it.
            let above = match rows.first() {
                Some(first) => Keyset::Before(first.key()),
                None => Keyset::Last,
            };
            let mut before = self.fetch(reader, above, height - rows.len())?;
            before.append(&mut rows);
            rows = before;
        }
        if let Some(key) = keep
            .as_ref()
            .filter(|k| !rows.iter().any(|r| r.key() == **k))
        {
            // Rows came back above the selected one (a filter widened): read the page
            // around it, so the cursor stays on its row while it still matches.
            let mut around = self.fetch(reader, Keyset::From(key.clone()), height)?;
            if around.first().is_some_and(|r| r.key() == *key) {
                let mut above = self.fetch(reader, Keyset::Before(key.clone()), self.selected)?;
                above.append(&mut around);
                above.truncate(height);
                rows = above;
            }
        }
        self.rows = rows;
        self.selected = keep
            .and_then(|k| self.rows.iter().position(|r| r.key() == k))
            .unwrap_or_else(|| self.selected.min(self.rows.len().saturating_sub(1)));
        self.probe(reader)
    }

    /// Moves the selection, reading beyond the page's edge when needed.
    pub fn step(
        &mut self,
        reader: &dyn RowSource,
        height: usize,
        movement: Move,
    ) -> Result<(), StoreError> {
        let height = height.max(1);
        let last = self.rows.len().saturating_sub(1);
        match movement {
            Move::Down if self.selected < last => self.selected += 1,
            Move::Up if self.selected > 0 => self.selected -= 1,
            Move::Down => {
                let mut next = self.beyond(reader, true, 1)?;
                if next.is_empty() {
                    return Ok(());
                }
                self.rows.append(&mut next);
                if self.rows.len() > height {
                    let excess = self.rows.len() - height;
                    self.rows.drain(..excess);
                }
                self.selected = self.rows.len() - 1;
            }
            Move::Up => {
                let mut rows = self.beyond(reader, false, 1)?;
                if rows.is_empty() {
                    return Ok(());
                }
                rows.append(&mut self.rows);
                rows.truncate(height);
                self.rows = rows;
                self.selected = 0;
            }
            Move::PageDown | Move::PageUp => {
                let forward = movement == Move::PageDown;
                let page = self.beyond(reader, forward, height)?;
                if page.is_empty() {
                    self.selected = if forward { last } else { 0 };
                    return Ok(());
                }
                self.rows = if page.len() < height {
                    // Short of a page: the list's last (or first) page instead.
                    let end = if forward { Keyset::Last } else { Keyset::First };
                    self.fetch(reader, end, height)?
                } else {
                    page
                };
                self.selected = self.selected.min(self.rows.len().saturating_sub(1));
            }
            Move::Home => {
                self.rows = self.fetch(reader, Keyset::First, height)?;
                self.selected = 0;
            }
            Move::End => {
                self.rows = self.fetch(reader, Keyset::Last, height)?;
                self.selected = self.rows.len().saturating_sub(1);
            }
        }
        self.probe(reader)
    }
}

/// Which callbacks a callback view lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallbackList {
    /// The disposition listed (`None`: every callback).
    pub disposition: Option<Disposition>,
    /// Read the first bytes of each raw line too (the quarantine view shows them).
    pub raw_head: bool,
    /// Only the questions still open (no closing answer); for held and quarantined.
    pub open: bool,
}

/// Bytes of a raw line shown in a quarantined row.
pub const RAW_HEAD_BYTES: usize = 160;

/// A callback row, with the first bytes of its raw line when the view shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackItem {
    /// The callback as the ledger keeps it.
    pub row: CallbackRow,
    /// The first bytes of the raw line, and its whole length.
    pub raw_head: Option<(Vec<u8>, i64)>,
    /// The latest answer given on another callback of the same job: a new case on a
    /// job answered before (read for held and quarantined rows only).
    pub earlier: Option<AnswerRow>,
    /// The value the list is sorted by (the sequence number in ledger order).
    pub sort_value: SortValue,
}

impl PageRow for CallbackItem {
    type Key = CallbackKey;
    type Source = CallbackList;
    const SCOPE: Scope = Scope::Callbacks;

    /// The review lists (held, quarantined) sort by every column, along their partial
    /// indexes; every callback (a million) stays in ledger order, either way: sorted
    /// otherwise, each page would read the whole table.
    fn sorts(source: CallbackList) -> &'static [SortColumn] {
        match source.disposition {
            Some(Disposition::Hold | Disposition::Quarantine) => SortColumn::of(Self::SCOPE),
            _ => &[SortColumn::Ledger],
        }
    }

    fn key(&self) -> CallbackKey {
        CallbackKey {
            value: self.sort_value.clone(),
            seq: self.row.seq,
        }
    }

    fn detail_key(&self) -> Option<DetailKey> {
        Some(DetailKey::Callback(self.row.seq))
    }

    fn callback(&self) -> Option<&CallbackRow> {
        Some(&self.row)
    }

    fn toggle_open(source: &mut CallbackList) -> Option<bool> {
        let questions = matches!(
            source.disposition,
            Some(Disposition::Hold | Disposition::Quarantine)
        );
        questions.then(|| {
            source.open = !source.open;
            source.open
        })
    }

    fn count(rows: &dyn RowSource, query: Query<'_, CallbackList>) -> Result<Count, StoreError> {
        rows.count_callbacks(query)
    }

    fn fetch(
        rows: &dyn RowSource,
        query: Query<'_, CallbackList>,
        page: PageRequest<CallbackKey>,
    ) -> RowsRead<Self> {
        rows.callbacks(query, page)
    }
}

impl PageRow for AgedJobRow {
    type Key = JobKey;
    type Source = ();
    const SCOPE: Scope = Scope::AgedJobs;

    fn key(&self) -> JobKey {
        (self.aged_at, self.job_id.clone())
    }

    fn detail_key(&self) -> Option<DetailKey> {
        Some(DetailKey::Job(self.job_id.clone()))
    }

    fn job(&self) -> Option<&str> {
        Some(&self.job_id)
    }

    fn aged(&self) -> Option<&AgedJobRow> {
        Some(self)
    }

    fn count(rows: &dyn RowSource, query: Query<'_, ()>) -> Result<Count, StoreError> {
        rows.count_aged_jobs(query)
    }

    fn fetch(
        rows: &dyn RowSource,
        query: Query<'_, ()>,
        page: PageRequest<JobKey>,
    ) -> RowsRead<Self> {
        rows.aged_jobs(query, page)
    }
}

/// A failed job, with the acceptance time its list is ordered by.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedItem {
    /// The failure as the ledger keeps it.
    pub row: FailedJobRow,
    /// When the job was accepted: the list's order.
    pub accepted_at: Timestamp,
}

impl PageRow for FailedItem {
    type Key = JobKey;
    type Source = ();
    const SCOPE: Scope = Scope::FailedJobs;

    fn key(&self) -> JobKey {
        (self.accepted_at, self.row.job_id.clone())
    }

    fn detail_key(&self) -> Option<DetailKey> {
        Some(DetailKey::Job(self.row.job_id.clone()))
    }

    fn job(&self) -> Option<&str> {
        Some(&self.row.job_id)
    }

    fn count(rows: &dyn RowSource, query: Query<'_, ()>) -> Result<Count, StoreError> {
        rows.count_failed_jobs(query)
    }

    fn fetch(
        rows: &dyn RowSource,
        query: Query<'_, ()>,
        page: PageRequest<JobKey>,
    ) -> RowsRead<Self> {
        rows.failed_jobs(query, page)
    }
}

impl PageRow for OutboxRow {
    type Key = i64;
    type Source = ();
    const SCOPE: Scope = Scope::Requests;

    fn key(&self) -> i64 {
        self.id
    }

    /// The job the request is for: Enter opens its detail and timeline.
    fn detail_key(&self) -> Option<DetailKey> {
        Some(DetailKey::Job(self.job_id.clone()))
    }

    fn count(rows: &dyn RowSource, query: Query<'_, ()>) -> Result<Count, StoreError> {
        rows.count_outbox(query)
    }

    fn fetch(rows: &dyn RowSource, query: Query<'_, ()>, page: PageRequest<i64>) -> RowsRead<Self> {
        rows.outbox(query, page)
    }
}

impl PageRow for RejectedLine {
    type Key = i64;
    type Source = ();
    const SCOPE: Scope = Scope::RejectedLines;

    fn key(&self) -> i64 {
        self.seq
    }

    /// The line itself: Enter opens its reason, raw line and the job's timeline.
    fn detail_key(&self) -> Option<DetailKey> {
        Some(DetailKey::Rejected(self.seq))
    }

    fn count(rows: &dyn RowSource, query: Query<'_, ()>) -> Result<Count, StoreError> {
        rows.count_rejected(query)
    }

    fn fetch(rows: &dyn RowSource, query: Query<'_, ()>, page: PageRequest<i64>) -> RowsRead<Self> {
        rows.rejected(query, page)
    }
}
