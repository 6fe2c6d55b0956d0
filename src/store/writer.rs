//! One write transaction on the ledger, whatever engine keeps it: every write is
//! passed to the engine's own writer, and nothing is kept unless it is committed.

use super::LookRow;
use super::ledger::on_engine;
use super::{
    AttemptRow, AttemptState, CallbackFilter, CallbackRow, Cell, ClaimHistory, ClaimRow,
    DecisionAnswerRow, Downstream, HistoryEntry, JobDefaults, JobRow, LineAhead, NewAnswer,
    NewAttempt, NewCallback, NewDecision, NewDecisionAnswer, NewLine, NewRepeat, OutboxRow,
    OutputFacts, OwnerRow, PendingRequests, Reads, SavedView, StoreError, Table, TerminalRecord,
    Transition,
};
use super::{postgres, sqlite};
use crate::clock::Timestamp;
use crate::decision::{Outcome, Rejection, RequestKind};
use crate::event::JobAccepted;

/// An open write transaction. Dropped without [`Writer::commit`], it rolls back.
#[allow(clippy::large_enum_variant)] // one per transaction, on the stack for its length
pub enum Writer<'conn> {
    /// On a SQLite file.
    Sqlite(sqlite::Writer<'conn>),
    /// On a PostgreSQL server.
    Postgres(postgres::Writer<'conn>),
}

impl Writer<'_> {
    /// Makes everything written through this writer durable, at once.
    pub fn commit(self) -> Result<(), StoreError> {
        on_engine!(self, e => e.commit())
    }

    /// Writes `rows` of `table` (of the tables a copy moves) as they are, ids
    /// included.
    pub fn insert_rows(&mut self, table: &Table, rows: &[Vec<Cell>]) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_rows(table, rows))
    }

    /// After rows were written with their own ids, the next row written gets the
    /// number after the highest (SQLite does so by itself).
    pub fn continue_identities(&mut self) -> Result<(), StoreError> {
        match self {
            Writer::Sqlite(_) => Ok(()),
            Writer::Postgres(w) => w.continue_identities(),
        }
    }

    pub fn insert_answer(&mut self, answer: &NewAnswer<'_>) -> Result<i64, StoreError> {
        on_engine!(self, e => e.insert_answer(answer))
    }
    pub fn claim_history(
        &self,
        job_id: &str,
        attempt: i64,
        outcome: Outcome,
    ) -> Result<ClaimHistory, StoreError> {
        on_engine!(self, e => e.claim_history(job_id, attempt, outcome))
    }
    pub fn insert_callback(&mut self, cb: &NewCallback<'_>) -> Result<i64, StoreError> {
        on_engine!(self, e => e.insert_callback(cb))
    }
    /// The callback `seq` with its standing answer, as this transaction sees it. A
    /// writer reads it to answer it: on PostgreSQL the callback is locked first (to the
    /// end of the transaction), so an answer another reviewer is writing on it is
    /// committed and read here, never answered over unseen (`postgres/answers.rs`).
    pub fn callback(&mut self, seq: i64) -> Result<Option<CallbackRow>, StoreError> {
        match self {
            Writer::Sqlite(e) => e.callback(seq),
            Writer::Postgres(e) => {
                e.lock_callbacks(&[seq])?;
                e.callback(seq)
            }
        }
    }
    /// The callbacks `seqs` with their standing answers, locked first on PostgreSQL
    /// as [`Writer::callback`] is.
    pub fn callbacks_numbered(&mut self, seqs: &[i64]) -> Result<Vec<CallbackRow>, StoreError> {
        match self {
            Writer::Sqlite(e) => e.callbacks_numbered(seqs),
            Writer::Postgres(e) => {
                e.lock_callbacks(seqs)?;
                e.callbacks_numbered(seqs)
            }
        }
    }
    pub fn callback_seqs(&mut self, filter: &CallbackFilter) -> Result<Vec<i64>, StoreError> {
        on_engine!(self, e => e.callback_seqs(filter))
    }
    pub fn is_divergent(&self, job_id: &str) -> Result<bool, StoreError> {
        on_engine!(self, e => e.is_divergent(job_id))
    }
    pub fn decision_answer(&self, job_id: &str) -> Result<Option<DecisionAnswerRow>, StoreError> {
        on_engine!(self, e => e.decision_answer(job_id))
    }
    pub fn insert_decision_answer(
        &mut self,
        answer: &NewDecisionAnswer<'_>,
    ) -> Result<i64, StoreError> {
        on_engine!(self, e => e.insert_decision_answer(answer))
    }
    pub fn job(&mut self, job_id: &str) -> Result<Option<JobRow>, StoreError> {
        on_engine!(self, e => e.job(job_id))
    }
    pub fn attempt(
        &mut self,
        job_id: &str,
        attempt: i64,
    ) -> Result<Option<AttemptRow>, StoreError> {
        on_engine!(self, e => e.attempt(job_id, attempt))
    }
    pub fn insert_job(
        &mut self,
        job: &JobAccepted,
        defaults: JobDefaults,
        line_seq: i64,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_job(job, defaults, line_seq))
    }
    pub fn insert_attempt(&mut self, new: &NewAttempt<'_>) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_attempt(new))
    }
    pub fn restart_attempt(
        &mut self,
        job_id: &str,
        attempt: i64,
        started_at: Timestamp,
        timeout_at: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.restart_attempt(job_id, attempt, started_at, timeout_at))
    }
    pub fn set_attempt_state(
        &mut self,
        job_id: &str,
        attempt: i64,
        state: AttemptState,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.set_attempt_state(job_id, attempt, state, at))
    }
    pub fn transition(
        &mut self,
        t: &Transition<'_>,
        record: TerminalRecord<'_>,
    ) -> Result<bool, StoreError> {
        on_engine!(self, e => e.transition(t, record))
    }
    pub fn job_exists(&self, job_id: &str) -> Result<bool, StoreError> {
        on_engine!(self, e => e.job_exists(job_id))
    }
    /// Tells the writer the lines it is about to be given and the jobs they name, so
    /// that it can read what it needs of them at once rather than line by line.
    pub fn look_ahead(&mut self, lines: &[LineAhead<'_>], jobs: &[&str]) -> Result<(), StoreError> {
        match self {
            // A file's pages are read as they are needed, from its own page cache.
            Writer::Sqlite(_) => Ok(()),
            Writer::Postgres(w) => w.look_ahead(lines, jobs),
        }
    }
    /// Does another writer wait for this transaction to end? A file's writers are told
    /// by [`super::WaitingWriters`] instead: this says no there.
    pub fn others_wait(&self) -> Result<bool, StoreError> {
        match self {
            Writer::Sqlite(_) => Ok(false),
            Writer::Postgres(w) => w.others_wait(),
        }
    }
    pub fn insert_line_once(&mut self, line: &NewLine<'_>) -> Result<Option<i64>, StoreError> {
        on_engine!(self, e => e.insert_line_once(line))
    }
    pub fn reject_line(&mut self, seq: i64, reason: &Rejection) -> Result<(), StoreError> {
        on_engine!(self, e => e.reject_line(seq, reason))
    }
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>, StoreError> {
        on_engine!(self, e => e.raw_line(line_seq))
    }
    pub fn set_note(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        on_engine!(self, e => e.set_note(key, value))
    }
    /// Keeps `at` as the ledger's own clock ([`super::Ledger::kept_clock`]).
    pub fn keep_clock(&mut self, at: Timestamp) -> Result<(), StoreError> {
        self.set_note(super::lines::KEPT_CLOCK, &at.to_ledger_text())
    }
    pub fn pending_requests(&self, job_id: &str) -> Result<PendingRequests, StoreError> {
        on_engine!(self, e => e.pending_requests(job_id))
    }
    pub fn outbox_request(&self, id: i64) -> Result<Option<OutboxRow>, StoreError> {
        on_engine!(self, e => e.outbox_request(id))
    }
    pub fn insert_withdrawal(
        &mut self,
        request_id: i64,
        withdrawn_by: &str,
        withdrawn_at: Timestamp,
        note: &str,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_withdrawal(request_id, withdrawn_by, withdrawn_at, note))
    }
    pub fn insert_request(
        &mut self,
        job: &JobRow,
        request: RequestKind,
        attempt: Option<i64>,
        requested_by: &str,
        requested_at: Timestamp,
    ) -> Result<i64, StoreError> {
        on_engine!(self, e => e.insert_request(job, request, attempt, requested_by, requested_at))
    }
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts, StoreError> {
        on_engine!(self, e => e.output_facts(job_id))
    }
    pub fn insert_downstream(
        &mut self,
        job_id: &str,
        fact: &Downstream<'_>,
        line_seq: i64,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_downstream(job_id, fact, line_seq))
    }
    pub fn insert_decision(
        &mut self,
        decision: &NewDecision<'_>,
        line_seq: i64,
    ) -> Result<bool, StoreError> {
        on_engine!(self, e => e.insert_decision(decision, line_seq))
    }
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>, StoreError> {
        on_engine!(self, e => e.owner(job_id))
    }
    pub fn insert_look(&mut self, look: &LookRow) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_look(look))
    }
    pub fn latest_claims(&self, seqs: &[i64]) -> Result<Vec<ClaimRow>, StoreError> {
        on_engine!(self, e => e.latest_claims(seqs))
    }
    pub fn latest_claim(&self, seq: i64) -> Result<Option<ClaimRow>, StoreError> {
        on_engine!(self, e => e.latest_claim(seq))
    }
    pub fn insert_claim(
        &mut self,
        seq: i64,
        reviewer: &str,
        at: Timestamp,
        until: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_claim(seq, reviewer, at, until))
    }
    pub fn assign_owner(
        &mut self,
        job_id: &str,
        owner: &str,
        escalate_at: Option<Timestamp>,
        set_by: &str,
        set_at: Timestamp,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.assign_owner(job_id, owner, escalate_at, set_by, set_at))
    }
    pub fn clear_owner(
        &mut self,
        job_id: &str,
        set_by: &str,
        set_at: Timestamp,
    ) -> Result<(), StoreError> {
        on_engine!(self, e => e.clear_owner(job_id, set_by, set_at))
    }
    pub fn insert_repeat(&mut self, repeat: &NewRepeat<'_>) -> Result<(), StoreError> {
        on_engine!(self, e => e.insert_repeat(repeat))
    }
    pub fn save_view(&mut self, view: &SavedView) -> Result<(), StoreError> {
        on_engine!(self, e => e.save_view(view))
    }
    pub fn delete_view(
        &mut self,
        name: &str,
        deleted_by: &str,
        at: Timestamp,
    ) -> Result<Option<SavedView>, StoreError> {
        on_engine!(self, e => e.delete_view(name, deleted_by, at))
    }
    pub fn history(&mut self, entry: &HistoryEntry<'_>) {
        on_engine!(self, e => e.history(entry));
    }
}

impl Reads for &super::Ledger {
    fn job(&mut self, job_id: &str) -> Result<Option<JobRow>, StoreError> {
        super::Ledger::job(self, job_id)
    }

    fn attempt(&mut self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>, StoreError> {
        super::Ledger::attempt(self, job_id, attempt)
    }

    fn output_facts(&self, job_id: &str) -> Result<OutputFacts, StoreError> {
        super::Ledger::output_facts(self, job_id)
    }

    fn pending_requests(&self, job_id: &str) -> Result<PendingRequests, StoreError> {
        super::Ledger::pending_requests(self, job_id)
    }
}

impl Reads for Writer<'_> {
    fn job(&mut self, job_id: &str) -> Result<Option<JobRow>, StoreError> {
        Writer::job(self, job_id)
    }

    fn attempt(&mut self, job_id: &str, attempt: i64) -> Result<Option<AttemptRow>, StoreError> {
        Writer::attempt(self, job_id, attempt)
    }

    fn output_facts(&self, job_id: &str) -> Result<OutputFacts, StoreError> {
        Writer::output_facts(self, job_id)
    }

    fn pending_requests(&self, job_id: &str) -> Result<PendingRequests, StoreError> {
        Writer::pending_requests(self, job_id)
    }
}
