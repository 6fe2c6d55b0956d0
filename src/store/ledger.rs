//! The ledger a command or the console works on, whatever engine keeps it: every
//! read and write is passed to the engine ([`sqlite`](super::sqlite) for a file,
//! [`postgres`](super::postgres) for a schema on a server), which gives the same
//! rows for the same ledger.
//!
//! What only a file has (its path, its log, its modes, salvage of a damaged one) is
//! asked of the SQLite engine alone; on a server ledger those calls say what a person
//! does instead.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::LookRow;
use super::lines::KEPT_CLOCK;
use super::{
    AgedJobRow, AnswerRow, AttemptRow, CallbackFilter, CallbackKey, CallbackRow, Cell,
    CheckFinding, ClaimRow, ConflictingSubmission, DecisionAnswerRow, DispositionCounts,
    DivergentJob, FailedJobRow, FileAtPath, Finding, FindingJob, FindingKept, HourKept, JobAccount,
    JobKey, JobRow, Location, OpenMode, OutboxRow, OutputFacts, OwnerRow, PageRequest,
    PendingRequests, RejectedLine, Salvage, SavedView, SortValue, StoreError, Table, TimelineEntry,
    WaitingWriters, Writer,
};
use super::{postgres, sqlite};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::filter::{Query, Sort};

/// Stops what one ledger connection is running, from another thread: a search the
/// person has typed past. The statement running ends with an error, which whoever
/// started it no longer waits for; the connection stays usable.
pub enum Canceller {
    /// SQLite's interrupt of the connection.
    Sqlite(rusqlite::InterruptHandle),
    /// A PostgreSQL cancel request, sent to the server the connection is on.
    Postgres(::postgres::CancelToken, Box<crate::store::ServerAddress>),
}

impl Canceller {
    /// Stops the statement running now, if any. A cancel the server could not be
    /// reached for is dropped: the statement then runs to its end, and its answer is
    /// not waited for anyway.
    pub fn cancel(&self) {
        match self {
            Canceller::Sqlite(handle) => handle.interrupt(),
            Canceller::Postgres(token, address) => {
                let _ = address.cancel(token);
            }
        }
    }
}

/// An open ledger.
pub enum Ledger {
    /// A ledger in a SQLite file.
    Sqlite(sqlite::Ledger),
    /// A ledger in a schema of a PostgreSQL server.
    Postgres(Box<postgres::Ledger>),
}

/// Runs `$call` on the engine's own ledger (or writer), bound to `$e`.
macro_rules! on_engine {
    ($self:ident, $e:ident => $call:expr) => {
        match $self {
            Self::Sqlite($e) => $call,
            Self::Postgres($e) => $call,
        }
    };
}
pub(super) use on_engine;

impl Ledger {
    /// Opens (creating and migrating if needed) the ledger file at `path`.
    pub fn open(path: &Path) -> Result<Ledger, StoreError> {
        sqlite::Ledger::open(path).map(Ledger::Sqlite)
    }

    /// Opens the ledger at `location`: a file, or a schema on a server.
    pub fn open_at(location: &Location, mode: OpenMode) -> Result<Ledger, StoreError> {
        match (location, mode) {
            (Location::File(path), OpenMode::ReadWrite) => Ledger::open(path),
            (Location::File(path), OpenMode::ReadOnly) => Ledger::open_read_only(path),
            (Location::Server(address), mode) => {
                postgres::Ledger::open(address, mode).map(|l| Ledger::Postgres(Box::new(l)))
            }
        }
    }

    /// Opens as [`Ledger::open`] does, but a writer waits `busy_timeout` for another
    /// one: a test sees the timeout in a moment.
    pub fn open_with_busy_timeout(
        path: &Path,
        busy_timeout: std::time::Duration,
    ) -> Result<Ledger, StoreError> {
        sqlite::Ledger::open_with_busy_timeout(path, busy_timeout).map(Ledger::Sqlite)
    }

    /// The schema version of the ledger file at `path`, when opening it read-write
    /// will upgrade it first; `None` when there is nothing to upgrade.
    pub fn upgrade_pending(path: &Path) -> Option<i64> {
        sqlite::Ledger::upgrade_pending(path)
    }

    /// Opens an existing ledger file without ever writing to it.
    pub fn open_read_only(path: &Path) -> Result<Ledger, StoreError> {
        sqlite::Ledger::open_read_only(path).map(Ledger::Sqlite)
    }

    /// Opens an existing ledger file to save what can be read of it.
    pub fn open_to_salvage(path: &Path) -> Result<Ledger, StoreError> {
        sqlite::Ledger::open_to_salvage(path).map(Ledger::Sqlite)
    }

    /// The mode of the ledger file at `path` when its group or others may read it.
    pub fn shared_mode(path: &Path) -> Option<u32> {
        sqlite::Ledger::shared_mode(path)
    }

    /// Refuses, with what to do, a path where no ledger file can be.
    pub fn refuse_unopenable(path: &Path) -> Result<(), StoreError> {
        sqlite::Ledger::refuse_unopenable(path)
    }

    /// Which of the files of the ledger at `path` the file `other` is.
    pub fn own_file(path: &Path, other: &std::fs::Metadata) -> Option<&'static str> {
        sqlite::Ledger::own_file(path, other)
    }

    /// Removes the ledger file at `path` with the files beside it.
    pub fn remove_with_sidecars(path: &Path) -> std::io::Result<()> {
        sqlite::Ledger::remove_with_sidecars(path)
    }

    /// Renames the ledger file at `path` to `to`, with the files beside it.
    pub fn set_aside(path: &Path, to: &Path) -> std::io::Result<Vec<PathBuf>> {
        sqlite::Ledger::set_aside(path, to)
    }

    /// The other processes that have the ledger file at `path` open (Linux).
    pub fn holders(path: &Path) -> Vec<u32> {
        sqlite::Ledger::holders(path)
    }

    /// Where the ledger is, as a person named it (no password).
    /// What stops a statement this connection runs, from another thread.
    pub fn canceller(&self) -> Canceller {
        on_engine!(self, e => e.canceller())
    }

    pub fn location(&self) -> Location {
        match self {
            Ledger::Sqlite(l) => Location::File(l.path().to_path_buf()),
            Ledger::Postgres(l) => l.location().clone(),
        }
    }

    /// The file the ledger lives in; `None` on a server.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Ledger::Sqlite(l) => Some(l.path()),
            Ledger::Postgres(_) => None,
        }
    }

    /// Is the ledger still where it was opened? Always so on a server.
    pub fn file_at_path(&self) -> FileAtPath {
        match self {
            Ledger::Sqlite(l) => l.file_at_path(),
            Ledger::Postgres(_) => FileAtPath::Same,
        }
    }

    /// Runs `reads` so that they all see the ledger at one moment, whatever is
    /// committed meanwhile. Nothing is written.
    pub fn in_one_snapshot<T>(
        &self,
        reads: impl FnOnce(&Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match self {
            Ledger::Sqlite(l) => l.in_one_snapshot(|_| reads(self)),
            Ledger::Postgres(l) => l.in_one_snapshot(|_| reads(self)),
        }
    }

    /// Starts a write transaction; nothing is kept unless it is committed.
    pub fn writer(&mut self) -> Result<Writer<'_>, StoreError> {
        match self {
            Ledger::Sqlite(l) => l.writer().map(Writer::Sqlite),
            Ledger::Postgres(l) => l.writer().map(Writer::Postgres),
        }
    }

    /// Runs the ledger's checks, calling `before` with each one's name as it starts.
    pub fn check(&self, before: impl FnMut(&'static str)) -> Vec<CheckFinding> {
        on_engine!(self, e => e.check(before))
    }

    /// Calls `f` with every job's account, for the reconciliation.
    pub fn for_each_job_account(&self, f: impl FnMut(&JobAccount<'_>)) -> Result<(), StoreError> {
        on_engine!(self, e => e.for_each_job_account(f))
    }

    /// Calls `f` with every row of `table` (of the tables a copy moves), in the order
    /// of its key; `f`'s error stops the walk.
    pub fn for_each_row(
        &self,
        table: &Table,
        f: impl FnMut(Vec<Cell>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.for_each_row(table, f))
    }

    /// How many rows `table` (of the tables a copy moves) holds.
    pub fn row_count(&self, table: &Table) -> Result<i64, StoreError> {
        on_engine!(self, e => e.row_count(table))
    }

    /// Connects again to a ledger server that went away (a file needs nothing).
    pub fn reconnect(&self) -> Result<(), StoreError> {
        match self {
            Ledger::Sqlite(_) => Ok(()),
            Ledger::Postgres(l) => l.reconnect(),
        }
    }

    /// May this connection write what a person writes (answers, owners, requests,
    /// views)? A file opened read-write may; on a server, the role's privileges say.
    pub fn may_answer(&self) -> Result<bool, StoreError> {
        match self {
            Ledger::Sqlite(_) => Ok(true),
            Ledger::Postgres(l) => l.may_answer(),
        }
    }

    /// Creates the roles of a team ledger and grants them on its schema; a file has
    /// none.
    pub fn apply_roles(&self) -> Result<(), StoreError> {
        match self {
            Ledger::Sqlite(_) => Err(StoreError::Unsupported {
                ledger: self.location(),
                what: "a ledger file has no roles".to_owned(),
            }),
            Ledger::Postgres(l) => l.apply_roles(),
        }
    }

    /// Saves what can be read of this damaged ledger file into the new one `into`.
    pub fn salvage_into(
        &self,
        into: &Ledger,
        before: impl FnMut(&str),
    ) -> Result<Salvage, StoreError> {
        match (self, into) {
            (Ledger::Sqlite(from), Ledger::Sqlite(into)) => from.salvage_into(into, before),
            _ => Err(StoreError::Unsupported {
                ledger: self.location(),
                what: "salvage reads a damaged SQLite file page by page; a server keeps its own pages (use its backups)".to_owned(),
            }),
        }
    }

    pub fn leave_the_log_empty(&self) {
        on_engine!(self, e => e.leave_the_log_empty());
    }
    pub fn waiting_writers(&self) -> Option<WaitingWriters> {
        on_engine!(self, e => e.waiting_writers())
    }
    pub fn use_bulk_cache(&self) -> Result<(), StoreError> {
        on_engine!(self, e => e.use_bulk_cache())
    }
    pub fn keep_writes_durable(&self) -> Result<(), StoreError> {
        on_engine!(self, e => e.keep_writes_durable())
    }
    pub fn writes_are_durable(&self) -> Result<bool, StoreError> {
        on_engine!(self, e => e.writes_are_durable())
    }
    pub fn data_version(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.data_version())
    }
    pub fn work_counts(&self) -> Result<(i64, i64, i64), StoreError> {
        on_engine!(self, e => e.work_counts())
    }
    pub fn answers_between(&self, since: Timestamp, until: Timestamp) -> Result<i64, StoreError> {
        on_engine!(self, e => e.answers_between(since, until))
    }
    pub fn open_questions(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.open_questions())
    }
    pub fn closed_questions(&self) -> Result<DispositionCounts, StoreError> {
        on_engine!(self, e => e.closed_questions())
    }
    pub fn earlier_answer_on_job(
        &self,
        job_id: &str,
        except_seq: i64,
    ) -> Result<Option<AnswerRow>, StoreError> {
        on_engine!(self, e => e.earlier_answer_on_job(job_id, except_seq))
    }
    /// For each `(job, callback)` asked, in order, the latest answer given on another
    /// callback of the same job ([`Ledger::earlier_answer_on_job`]), read for a whole
    /// page at once.
    pub fn earlier_answers_on_jobs(
        &self,
        asked: &[(&str, i64)],
    ) -> Result<Vec<Option<AnswerRow>>, StoreError> {
        on_engine!(self, e => e.earlier_answers_on_jobs(asked))
    }
    pub fn newest_answer_id(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.newest_answer_id())
    }
    pub fn answers(&self, callback_seq: i64) -> Result<Vec<AnswerRow>, StoreError> {
        on_engine!(self, e => e.answers(callback_seq))
    }
    pub fn callback(&self, seq: i64) -> Result<Option<CallbackRow>, StoreError> {
        on_engine!(self, e => e.callback(seq))
    }
    pub fn callbacks_of_job(
        &self,
        job_id: &str,
        limit: usize,
    ) -> Result<Vec<CallbackRow>, StoreError> {
        on_engine!(self, e => e.callbacks_of_job(job_id, limit))
    }
    pub fn callbacks_page(
        &self,
        filter: &CallbackFilter,
        page: PageRequest<i64>,
    ) -> Result<Vec<CallbackRow>, StoreError> {
        on_engine!(self, e => e.callbacks_page(filter, page))
    }
    /// Every callback `filter` keeps, in ingest order, as a report lists them (a
    /// replacement attempt without its state), handed to `each` up to `batch` rows at
    /// a time as they are read: a list of millions never sits in memory.
    pub fn callbacks_report<E: From<StoreError>>(
        &self,
        filter: &CallbackFilter,
        batch: usize,
        each: impl FnMut(&mut Vec<CallbackRow>) -> Result<(), E>,
    ) -> Result<(), E> {
        on_engine!(self, e => e.callbacks_report(filter, batch, each))
    }
    pub fn callbacks_sorted_page(
        &self,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
    ) -> Result<Vec<(CallbackRow, SortValue)>, StoreError> {
        on_engine!(self, e => e.callbacks_sorted_page(filter, sort, page))
    }
    pub fn count_callbacks(&self, filter: &CallbackFilter) -> Result<i64, StoreError> {
        on_engine!(self, e => e.count_callbacks(filter))
    }
    pub fn review_arrivals_between(
        &self,
        since: Timestamp,
        until: Timestamp,
    ) -> Result<i64, StoreError> {
        on_engine!(self, e => e.review_arrivals_between(since, until))
    }
    /// For each window `(since, until]`, the review arrivals and the answers in it.
    pub fn review_counts(
        &self,
        windows: &[(Timestamp, Timestamp)],
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        match self {
            // A file answers each count from its own pages at once.
            Ledger::Sqlite(e) => windows
                .iter()
                .map(|&(since, until)| {
                    Ok((
                        e.review_arrivals_between(since, until)?,
                        e.answers_between(since, until)?,
                    ))
                })
                .collect(),
            Ledger::Postgres(e) => e.review_counts(windows),
        }
    }
    pub fn callback_seqs(&self, filter: &CallbackFilter) -> Result<Vec<i64>, StoreError> {
        on_engine!(self, e => e.callback_seqs(filter))
    }
    pub fn callbacks_numbered(&self, seqs: &[i64]) -> Result<Vec<CallbackRow>, StoreError> {
        on_engine!(self, e => e.callbacks_numbered(seqs))
    }
    pub fn damage_probe(&self) -> Result<(), StoreError> {
        on_engine!(self, e => e.damage_probe())
    }
    pub fn kept_for(&self, filter: &CallbackFilter) -> Result<Option<i64>, StoreError> {
        on_engine!(self, e => e.kept_for(filter))
    }
    pub fn confirm_listed(&self, listed: i64, before: i64, after: i64) -> Result<(), StoreError> {
        on_engine!(self, e => e.confirm_listed(listed, before, after))
    }
    pub fn copy_into(&self, dest: &Path) -> Result<(), StoreError> {
        on_engine!(self, e => e.copy_into(dest))
    }
    pub fn copy_problems(&self) -> Result<Vec<String>, StoreError> {
        on_engine!(self, e => e.copy_problems())
    }
    pub fn size_bytes(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.size_bytes())
    }
    pub fn disposition_counts(&self) -> Result<DispositionCounts, StoreError> {
        on_engine!(self, e => e.disposition_counts())
    }
    pub fn job_state_counts(&self) -> Result<BTreeMap<JobState, i64>, StoreError> {
        on_engine!(self, e => e.job_state_counts())
    }
    pub fn job_count(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.job_count())
    }
    pub fn divergent_decisions(&self) -> Result<Vec<DivergentJob>, StoreError> {
        on_engine!(self, e => e.divergent_decisions())
    }
    pub fn divergent_decisions_closed(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.divergent_decisions_closed())
    }
    pub fn decision_answer(&self, job_id: &str) -> Result<Option<DecisionAnswerRow>, StoreError> {
        on_engine!(self, e => e.decision_answer(job_id))
    }
    pub fn finding_jobs_page(
        &self,
        finding: Finding,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<String>,
    ) -> Result<Vec<FindingJob>, StoreError> {
        on_engine!(self, e => e.finding_jobs_page(finding, now, query, page))
    }
    /// How many jobs `finding` names that `query` keeps (ages at `now`). Every job it
    /// names is a kept count: counting a finding over every job took 650 ms at a
    /// million jobs each time its drill-down opened.
    pub fn finding_count_matching(
        &self,
        finding: Finding,
        now: Timestamp,
        query: &Query,
    ) -> Result<i64, StoreError> {
        if query.is_empty() {
            return Ok(self.finding_kept(finding, 0)?.count);
        }
        on_engine!(self, e => e.finding_count_matching(finding, now, query))
    }
    /// How many jobs `finding` names and the first `keep` of them, as the ledger keeps
    /// them (a range read, whatever the number of jobs).
    pub fn finding_kept(&self, finding: Finding, keep: usize) -> Result<FindingKept, StoreError> {
        on_engine!(self, e => e.finding_kept(finding, keep))
    }
    /// The latest `hours` clock hours that hold accepted jobs, newest first, as the
    /// ledger keeps them.
    pub fn recent_hours_kept(&self, hours: usize) -> Result<Vec<HourKept>, StoreError> {
        on_engine!(self, e => e.recent_hours_kept(hours))
    }
    pub fn job(&self, job_id: &str) -> Result<Option<JobRow>, StoreError> {
        on_engine!(self, e => e.job(job_id))
    }
    pub fn attempts(&self, job_id: &str) -> Result<Vec<AttemptRow>, StoreError> {
        on_engine!(self, e => e.attempts(job_id))
    }
    pub fn attempt(&self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>, StoreError> {
        on_engine!(self, e => e.attempt(job_id, attempt))
    }
    /// Open jobs past their expected age at `now`.
    ///
    /// The open jobs are kept counts, and those not aged yet are the newest, usually
    /// few: they are counted (up to half the open jobs) and taken away, in one
    /// statement, so both are read at one moment. When more than half are not aged
    /// yet, the aged ones are counted instead. Counting the aged ones every time read
    /// 64,000 index entries at each start of the console at a million jobs.
    pub fn aged_count(&self, now: Timestamp) -> Result<i64, StoreError> {
        match on_engine!(self, e => e.open_and_not_aged(now))? {
            (open, younger, at_most) if younger < at_most => Ok(open - younger),
            _ => on_engine!(self, e => e.aged_count(now)),
        }
    }
    pub fn aged_jobs_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<AgedJobRow>, StoreError> {
        on_engine!(self, e => e.aged_jobs_page(now, query, page))
    }
    pub fn aged_jobs_sorted_page(
        &self,
        now: Timestamp,
        query: &Query,
        sort: Sort,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<AgedJobRow>, StoreError> {
        on_engine!(self, e => e.aged_jobs_sorted_page(now, query, sort, page))
    }
    pub fn failed_jobs_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<(FailedJobRow, Timestamp)>, StoreError> {
        on_engine!(self, e => e.failed_jobs_page(now, query, page))
    }
    pub fn aged_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64, StoreError> {
        on_engine!(self, e => e.aged_count_matching(now, query))
    }
    /// Failed jobs that `query` keeps (ages at `now`); every failed job is a kept count.
    pub fn failed_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64, StoreError> {
        if query.is_empty() {
            let counts = self.job_state_counts()?;
            return Ok(counts.get(&JobState::Failed).copied().unwrap_or(0));
        }
        on_engine!(self, e => e.failed_count_matching(now, query))
    }
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>, StoreError> {
        on_engine!(self, e => e.raw_line(line_seq))
    }
    pub fn raw_head(
        &self,
        line_seq: i64,
        max_bytes: usize,
    ) -> Result<Option<(Vec<u8>, i64)>, StoreError> {
        on_engine!(self, e => e.raw_head(line_seq, max_bytes))
    }
    pub fn rejected_count(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.rejected_count())
    }
    pub fn rejected_lines(&self, limit: usize) -> Result<Vec<RejectedLine>, StoreError> {
        on_engine!(self, e => e.rejected_lines(limit))
    }
    pub fn rejected_line(&self, seq: i64) -> Result<Option<RejectedLine>, StoreError> {
        on_engine!(self, e => e.rejected_line(seq))
    }
    pub fn rejected_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<i64>,
    ) -> Result<Vec<RejectedLine>, StoreError> {
        on_engine!(self, e => e.rejected_page(now, query, page))
    }
    pub fn rejected_count_matching(
        &self,
        now: Timestamp,
        query: &Query,
    ) -> Result<i64, StoreError> {
        on_engine!(self, e => e.rejected_count_matching(now, query))
    }
    pub fn line_count(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.line_count())
    }
    pub fn all_lines_among(&self, known: &HashSet<[u8; 32]>) -> Result<bool, StoreError> {
        on_engine!(self, e => e.all_lines_among(known))
    }
    pub fn note(&self, key: &str) -> Result<Option<String>, StoreError> {
        on_engine!(self, e => e.note(key))
    }
    /// The time this ledger is read at when no clock is fixed by the caller (`--now`):
    /// a ledger the demo built lives at the demo's afternoon, so that reopened later it
    /// still says "3 h ago" where the demo did, not "4 d ago". `None`: the system's.
    pub fn kept_clock(&self) -> Result<Option<Timestamp>, StoreError> {
        Ok(self
            .note(KEPT_CLOCK)?
            .as_deref()
            .and_then(Timestamp::from_ledger_text))
    }
    pub fn outbox_pending(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.outbox_pending())
    }
    pub fn outbox(&self) -> Result<Vec<OutboxRow>, StoreError> {
        on_engine!(self, e => e.outbox())
    }
    pub fn outbox_request(&self, id: i64) -> Result<Option<OutboxRow>, StoreError> {
        on_engine!(self, e => e.outbox_request(id))
    }
    /// Every request made for a job, withdrawn or not, oldest first.
    pub fn requests_of_job(&self, job_id: &str) -> Result<Vec<OutboxRow>, StoreError> {
        on_engine!(self, e => e.requests_of_job(job_id))
    }
    pub fn outbox_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<i64>,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        on_engine!(self, e => e.outbox_page(now, query, page))
    }
    pub fn outbox_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64, StoreError> {
        on_engine!(self, e => e.outbox_count_matching(now, query))
    }
    pub fn pending_requests(&self, job_id: &str) -> Result<PendingRequests, StoreError> {
        on_engine!(self, e => e.pending_requests(job_id))
    }
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts, StoreError> {
        on_engine!(self, e => e.output_facts(job_id))
    }
    pub fn decisions_suppressed(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.decisions_suppressed())
    }
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>, StoreError> {
        on_engine!(self, e => e.owner(job_id))
    }
    pub fn last_look(&self, reviewer: &str, list: &str) -> Result<Option<LookRow>, StoreError> {
        on_engine!(self, e => e.last_look(reviewer, list))
    }
    pub fn newest_callback_seq(&self) -> Result<i64, StoreError> {
        on_engine!(self, e => e.newest_callback_seq())
    }
    pub fn count_new_since(
        &self,
        disposition: crate::decision::Disposition,
        look: &LookRow,
        me: &str,
    ) -> Result<i64, StoreError> {
        on_engine!(self, e => e.count_new_since(disposition, look, me))
    }
    pub fn latest_claims(&self, seqs: &[i64]) -> Result<Vec<ClaimRow>, StoreError> {
        on_engine!(self, e => e.latest_claims(seqs))
    }
    pub fn conflicting_submissions(&self) -> Result<Vec<ConflictingSubmission>, StoreError> {
        on_engine!(self, e => e.conflicting_submissions())
    }
    pub fn timeline(&self, job_id: &str) -> Result<Vec<TimelineEntry>, StoreError> {
        on_engine!(self, e => e.timeline(job_id))
    }
    pub fn saved_views(&self) -> Result<Vec<SavedView>, StoreError> {
        on_engine!(self, e => e.saved_views())
    }
    pub fn saved_view(&self, name: &str) -> Result<Option<SavedView>, StoreError> {
        on_engine!(self, e => e.saved_view(name))
    }
}
