//! Every read of the ledger the console makes: pages of rows by keyset, the counts,
//! the detail pane's evidence, and the reconciliation summary. (The facts a request is
//! checked against are read by [`crate::outbox::RequestFacts::read`].)
//!
//! What every accepted job misses is what the ledger keeps as it is written (counts
//! and the first jobs of each finding, the recent hours by state): a few range reads
//! at any size, so the first frame already shows the reconciliation.

use std::cell::OnceCell;

use super::App;
use crate::clock::Timestamp;
use crate::console::model::counts::{Count, FIRST_MISSING, RECENT_WINDOWS, ReconcileSummary};
use crate::console::model::detail::{
    Detail, DetailKey, RAW_DETAIL_BYTES, job_id_of_line, raw_message,
};
use crate::console::model::page::{
    CallbackItem, CallbackList, FailedItem, Query, RAW_HEAD_BYTES, RowSource, RowsRead,
};
use crate::console::model::{List, ListId, Model};
use crate::console::tab::Tab;
use crate::decision::Disposition;
use crate::filter::{self, Scope};
use crate::reconcile::{self, Backlog, DEFAULT_REVIEW_CAPACITY};
use crate::review::CaseKind;
use crate::store::{
    AgedJobRow, AnswerRow, CallbackFilter, CallbackKey, CallbackRow, DispositionCounts, JobKey,
    Ledger, MissingCounts, OutboxRow, PageRequest, RejectedLine, StoreError,
};
use crate::store::{Finding, FindingJob};

/// The ledger as the pages read it, at the clock of the model.
pub(super) struct LedgerRows<'a> {
    ledger: &'a Ledger,
    now: Timestamp,
    /// Callbacks by disposition, read once for every callback view counted.
    dispositions: OnceCell<DispositionCounts>,
    /// Questions closed by their standing answer, by disposition, read once likewise.
    closed: OnceCell<DispositionCounts>,
}

impl<'a> LedgerRows<'a> {
    pub fn new(ledger: &'a Ledger, now: Timestamp) -> Self {
        LedgerRows {
            ledger,
            now,
            dispositions: OnceCell::new(),
            closed: OnceCell::new(),
        }
    }

    fn closed(&self) -> Result<DispositionCounts, StoreError> {
        if let Some(counts) = self.closed.get() {
            return Ok(*counts);
        }
        let counts = self.ledger.closed_questions()?;
        Ok(*self.closed.get_or_init(|| counts))
    }

    fn dispositions(&self) -> Result<DispositionCounts, StoreError> {
        if let Some(counts) = self.dispositions.get() {
            return Ok(*counts);
        }
        let counts = self.ledger.disposition_counts()?;
        Ok(*self.dispositions.get_or_init(|| counts))
    }
}

/// A count of `all` rows, and of those `query` keeps when it names any term.
fn count(
    all: i64,
    query: &filter::Query,
    matching: impl FnOnce(&filter::Query) -> Result<i64, StoreError>,
) -> Result<Count, StoreError> {
    Ok(Count {
        all,
        matching: (!query.is_empty()).then(|| matching(query)).transpose()?,
        ..Count::default()
    })
}

/// The job and number of a callback that is a question a person answers: its case
/// answered before is read beside it.
fn question(row: &CallbackRow) -> Option<(&str, i64)> {
    match (&row.job_id, CaseKind::of(row.disposition, row.reason)) {
        (Some(job), Some(_)) => Some((job.as_str(), row.seq)),
        _ => None,
    }
}

impl RowSource for LedgerRows<'_> {
    fn callbacks(
        &self,
        query: Query<'_, CallbackList>,
        page: PageRequest<CallbackKey>,
    ) -> RowsRead<CallbackItem> {
        let filter = self.callback_filter(query);
        let (mut rows, sort_values): (Vec<_>, Vec<_>) = self
            .ledger
            .callbacks_sorted_page(&filter, query.sort, &page)?
            .into_iter()
            .unzip();
        // Who is on each case, one read for the page.
        crate::review::claims::attach(self.ledger, &mut rows, self.now)?;
        // The case answered before on each question's job, one read for the page
        // (callbacks by job, then answers by callback), whatever the ledger's size.
        let asked: Vec<(&str, i64)> = rows.iter().filter_map(question).collect();
        let mut answers = self.ledger.earlier_answers_on_jobs(&asked)?.into_iter();
        let earlier_of: Vec<Option<AnswerRow>> = rows
            .iter()
            .map(|row| question(row).and_then(|_| answers.next().flatten()))
            .collect();
        rows.into_iter()
            .zip(sort_values)
            .zip(earlier_of)
            .map(|((row, sort_value), earlier)| {
                let raw_head = if query.list.raw_head {
                    self.ledger.raw_head(row.line_seq, RAW_HEAD_BYTES)?
                } else {
                    None
                };
                Ok(CallbackItem {
                    row,
                    raw_head,
                    earlier,
                    sort_value,
                })
            })
            .collect()
    }

    fn aged_jobs(&self, query: Query<'_, ()>, page: PageRequest<JobKey>) -> RowsRead<AgedJobRow> {
        let mut rows =
            self.ledger
                .aged_jobs_sorted_page(self.now, query.filter, query.sort, &page)?;
        // What was already asked of each job shown: one indexed read a row.
        for row in &mut rows {
            row.pending = Some(self.ledger.pending_requests(&row.job_id)?);
        }
        Ok(rows)
    }

    fn failed_jobs(&self, query: Query<'_, ()>, page: PageRequest<JobKey>) -> RowsRead<FailedItem> {
        Ok(self
            .ledger
            .failed_jobs_page(self.now, query.filter, &page)?
            .into_iter()
            .map(|(row, accepted_at)| FailedItem { row, accepted_at })
            .collect())
    }

    fn count_callbacks(&self, query: Query<'_, CallbackList>) -> Result<Count, StoreError> {
        let dispositions = self.dispositions()?;
        let all = query
            .list
            .disposition
            .map_or(dispositions.total(), |d| dispositions.get(d));
        let mut count = count(all, query.filter, |_| {
            self.ledger.count_callbacks(&self.callback_filter(query))
        })?;
        if let Some(d @ (Disposition::Hold | Disposition::Quarantine)) = query.list.disposition {
            count.open = Some(all - self.closed()?.get(d));
            count.open_only = query.list.open;
        }
        Ok(count)
    }

    fn count_aged_jobs(&self, query: Query<'_, ()>) -> Result<Count, StoreError> {
        let all = self.ledger.aged_count(self.now)?;
        count(all, query.filter, |q| {
            self.ledger.aged_count_matching(self.now, q)
        })
    }

    fn count_failed_jobs(&self, query: Query<'_, ()>) -> Result<Count, StoreError> {
        let all = self
            .ledger
            .failed_count_matching(self.now, &filter::Query::all(Scope::FailedJobs))?;
        count(all, query.filter, |q| {
            self.ledger.failed_count_matching(self.now, q)
        })
    }

    fn outbox(&self, query: Query<'_, ()>, page: PageRequest<i64>) -> RowsRead<OutboxRow> {
        self.ledger.outbox_page(self.now, query.filter, &page)
    }

    fn count_outbox(&self, query: Query<'_, ()>) -> Result<Count, StoreError> {
        let all = self
            .ledger
            .outbox_count_matching(self.now, &filter::Query::all(Scope::Requests))?;
        count(all, query.filter, |q| {
            self.ledger.outbox_count_matching(self.now, q)
        })
    }

    fn rejected(&self, query: Query<'_, ()>, page: PageRequest<i64>) -> RowsRead<RejectedLine> {
        self.ledger.rejected_page(self.now, query.filter, &page)
    }

    fn count_rejected(&self, query: Query<'_, ()>) -> Result<Count, StoreError> {
        let all = self.ledger.rejected_count()?;
        count(all, query.filter, |q| {
            self.ledger.rejected_count_matching(self.now, q)
        })
    }

    fn finding_jobs(
        &self,
        query: Query<'_, Finding>,
        page: PageRequest<String>,
    ) -> RowsRead<FindingJob> {
        self.ledger
            .finding_jobs_page(query.list, self.now, query.filter, &page)
    }

    fn count_finding_jobs(&self, query: Query<'_, Finding>) -> Result<Count, StoreError> {
        let all = self.ledger.finding_count_matching(
            query.list,
            self.now,
            &filter::Query::all(Scope::FindingJobs),
        )?;
        count(all, query.filter, |q| {
            self.ledger.finding_count_matching(query.list, self.now, q)
        })
    }
}

impl LedgerRows<'_> {
    /// The store's filter for a callback view's query.
    fn callback_filter(&self, query: Query<'_, CallbackList>) -> CallbackFilter {
        callback_filter(query, self.now)
    }
}

/// The store's filter for a callback view's query, with ages counted at `now`.
pub(super) fn callback_filter(query: Query<'_, CallbackList>, now: Timestamp) -> CallbackFilter {
    CallbackFilter {
        disposition: query.list.disposition,
        query: query.filter.clone(),
        now: Some(now),
        open: query.list.open,
        answers_as_of: None,
    }
}

/// Is list `id`'s count a read long enough to make a key wait: a list of at least
/// `off_thread_rows` rows (the size a filter is searched off the console's thread
/// at) whose count reads its rows (under a filter; a finding's jobs, always)? Any
/// other count is one the ledger keeps, or a small list's.
pub(super) fn counts_elsewhere(id: ListId, list: &dyn List, off_thread_rows: i64) -> bool {
    list.count().all >= off_thread_rows
        && (list.filtered() || matches!(id, ListId::FindingJobs { .. }))
}

/// Counts every view's rows again, and those matching its filter, in place where
/// that is cheap; not `searched` (a search running counts it). Gives back the lists
/// whose count is long to read ([`counts_elsewhere`]), the one on screen first, each
/// saying its count is being made: they are counted off the console's thread.
pub(super) fn recount(
    ledger: &Ledger,
    model: &mut Model,
    off_thread_rows: i64,
    searched: Option<ListId>,
) -> Result<Vec<ListId>, StoreError> {
    let rows = LedgerRows::new(ledger, model.now);
    let shown = model.list_id();
    // The jobs of an opened finding: counted only while it is open (a full read).
    let ids: Vec<ListId> = Tab::ALL
        .iter()
        .map(|&tab| ListId::Tab(tab))
        .chain(model.finding_jobs_id())
        .filter(|&id| Some(id) != searched)
        .collect();
    let mut elsewhere = Vec::new();
    for id in ids {
        let Some(list) = model.list_of_mut(id) else {
            continue;
        };
        if counts_elsewhere(id, list, off_thread_rows) {
            list.await_count();
            elsewhere.push(id);
        } else {
            list.recount(&rows)?;
        }
    }
    elsewhere.sort_by_key(|&id| id != shown);
    Ok(elsewhere)
}

/// Reads the evidence the detail pane shows for `detail_key`.
pub(super) fn detail(ledger: &Ledger, detail_key: DetailKey) -> Result<Detail, StoreError> {
    let mut detail = Detail::empty(detail_key.clone());
    let job_id = match detail_key {
        DetailKey::Callback(seq) => {
            let Some(row) = ledger.callback(seq)? else {
                return Ok(detail);
            };
            detail.answers = ledger.answers(seq)?;
            detail.raw = ledger
                .raw_head(row.line_seq, RAW_DETAIL_BYTES)?
                .map(|(bytes, len)| raw_message(bytes, len));
            if let Some(job_id) = &row.job_id {
                detail.earlier = ledger.earlier_answer_on_job(job_id, seq)?;
            }
            let job_id = row.job_id.clone();
            detail.callback = Some(row);
            job_id
        }
        DetailKey::Job(job_id) => Some(job_id),
        DetailKey::Rejected(seq) => {
            let Some(row) = ledger.rejected_line(seq)? else {
                return Ok(detail);
            };
            detail.raw = ledger
                .raw_head(row.seq, RAW_DETAIL_BYTES)?
                .map(|(bytes, len)| raw_message(bytes, len));
            detail.rejected_job_id = detail.raw.as_ref().and_then(job_id_of_line);
            detail.rejected = Some(row);
            detail.rejected_job_id.clone()
        }
    };
    if let Some(job_id) = job_id {
        detail.job = ledger.job(&job_id)?;
        if detail.job.is_some() {
            detail.attempts = ledger.attempts(&job_id)?;
            detail.owner = ledger.owner(&job_id)?;
            detail.output = ledger.output_facts(&job_id)?;
            detail.timeline = ledger.timeline(&job_id)?;
        }
    }
    Ok(detail)
}

/// The reconciliation at a glance, counted at `now`.
fn summary(ledger: &Ledger, now: Timestamp) -> Result<ReconcileSummary, StoreError> {
    let accounts = reconcile::kept_accounts(ledger, FIRST_MISSING, RECENT_WINDOWS)?;
    let windows = accounts.windows.iter().rev().cloned().collect();
    Ok(ReconcileSummary {
        missing: MissingCounts {
            accepted: accounts.accepted,
            missing_terminal: accounts.missing_terminal.count,
            missing_output: accounts.missing_output.count,
            missing_notification: accounts.missing_notification.count,
            divergent_decisions: accounts.divergent_decisions.count,
            divergent_open: accounts.divergent_decisions.count
                - ledger.divergent_decisions_closed()?,
            conflicting_submissions: accounts.conflicting_submissions.count,
        },
        first_missing_terminal: accounts.missing_terminal.first,
        first_missing_output: accounts.missing_output.first,
        first_missing_notification: accounts.missing_notification.first,
        first_divergent_decisions: accounts.divergent_decisions.first,
        first_conflicting_submissions: accounts.conflicting_submissions.first,
        windows,
        backlog: Backlog::measure(ledger, now, DEFAULT_REVIEW_CAPACITY)?,
        trend: reconcile::review_trend(ledger, now)?,
        counted: true,
    })
}

impl App {
    /// Re-reads the summary (what the ledger keeps: a few range reads at any size).
    pub(super) fn read_summary(&mut self) -> Result<(), StoreError> {
        self.model.summary = summary(&self.ledger, self.model.now)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::{self, DemoData};

    #[test]
    fn the_summary_is_read_from_what_the_ledger_keeps_and_equals_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.db");
        let now = demo::demo_now();
        demo::build(
            &path,
            now,
            DemoData::Synthetic { jobs: 300, seed: 3 },
            |_| {},
        )
        .unwrap();
        let ledger = Ledger::open(&path).unwrap();
        let kept = summary(&ledger, now).unwrap();
        let walked = reconcile::account(&ledger, 3600, FIRST_MISSING, None).unwrap();
        assert!(kept.counted);
        assert_eq!(kept.missing.accepted, 300);
        assert_eq!(kept.missing.missing_terminal, walked.missing_terminal.count);
        assert_eq!(kept.first_missing_output, walked.missing_output.first);
        let latest: Vec<_> = walked
            .windows
            .iter()
            .rev()
            .take(RECENT_WINDOWS)
            .cloned()
            .collect();
        assert_eq!(kept.windows, latest);
    }
}
