//! The rows the tabs list and where they are read from: the keyset each kind of row
//! is read by (`PageRow`), the reads a page asks for (`RowSource`), and the rows of
//! each list. [`super::page::Page`] walks any of them through these traits alone, so
//! adding a kind of row touches this file, not the page.

use crate::clock::Timestamp;
use crate::decision::Disposition;
use crate::filter::{self, Scope, Sort, SortColumn};
use crate::store::{
    AgedJobRow, AnswerRow, CallbackKey, CallbackRow, FailedJobRow, JobKey, JobOrder, OutboxRow,
    PageRequest, RejectedLine, SortValue, StoreError,
};
use crate::store::{Finding, FindingJob};

use super::counts::Count;
use super::detail::DetailKey;

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

    /// What the list is sorted by (when it aged, in its own order), then the id.
    fn key(&self) -> JobKey {
        (self.order.clone(), self.job_id.clone())
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
        (JobOrder::At(self.accepted_at), self.row.job_id.clone())
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
