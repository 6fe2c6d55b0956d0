//! Answers on PostgreSQL: a reviewer's verdicts on held and quarantined callbacks,
//! appended, the latest standing. The statements are the SQLite engine's
//! (`sqlite/answers.rs`), row for row.
//!
//! Also here: how this family (and the other families of a person's writes: decision
//! answers, owners, the outbox, saved views) reads the ledger's stored names and times,
//! and the locks that keep two people's writes from crossing.
//!
//! # Why a person's writes take a lock here
//!
//! A person's write is "read what stands, check it is what they saw, append": an
//! answer is refused when the callback was answered since the reviewer looked
//! (`review::answer_row`), a clearing is written only when an owner stands, a view is
//! deleted only when one stands. On SQLite the ledger has one writer at a time, so
//! nothing commits between the read and the append. On PostgreSQL two transactions (two
//! reviewers on two machines) can both read "no answer yet" under `READ COMMITTED` and
//! both append: two answers, each over an answer its writer never saw. So each such
//! read first takes a lock on what it reads, held until the transaction ends: the
//! second writer waits for the first to commit, and its read, a statement after the
//! wait, sees the first one's row and refuses as SQLite would. The lock is a statement
//! of its own before the read: a `SELECT ... FOR UPDATE` that joins other tables
//! re-reads only the locked row after the wait, not the joined ones (PostgreSQL's
//! `EvalPlanQual`), so locking in the read itself would still miss the new answer.
//!
//! - Answers, per callback: the callback's row, `FOR NO KEY UPDATE` (`lock_callbacks`).
//!   A row lock lives in the row, not in the server's lock table, so a bulk answer
//!   over thousands of callbacks takes thousands without running out of lock slots;
//!   the rows are locked in `seq` order, so two bulk answers cannot deadlock. Callbacks
//!   are never updated and the foreign keys that name them take `FOR KEY SHARE`, which
//!   `FOR NO KEY UPDATE` does not block: nothing but another answer waits for it.
//! - Decision answers, owners, requests, per job; saved views, per name: a
//!   transaction-scoped advisory lock on a key made of the ledger's schema, the family
//!   and the job id (or name) (`lock_key`). There is no row to lock for a view name
//!   never saved, and a job's row is updated by every ingest batch that moves the
//!   job: locking it would make a reviewer wait for an ingest batch (and an ingest
//!   batch for a reviewer). Each of these transactions takes one such lock. Two keys
//!   that hash alike only make two writers wait for each other, never write wrongly.
//! - A withdrawal, per request: the request's row in the outbox, `FOR NO KEY UPDATE`
//!   (`Writer::outbox_request`), so a second withdrawal reads the first and is refused
//!   (`already withdrawn`) rather than failing on the table's unique request id.
//!
//! This relies on the writer's transaction being `READ COMMITTED` (PostgreSQL's
//! default): a statement after the wait reads what committed meanwhile.

use std::sync::LazyLock;

use postgres::Row;

use super::writer::{Values, time_text};
use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::closed_set::ClosedSet;
use crate::decision::{Disposition, Verdict};
use crate::store::{AnswerRow, DispositionCounts, Location, NewAnswer, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

/// Column `i` of `row`, read as the SQLite engine reads its twin: a type the column
/// does not hold is the engine's error.
pub(super) fn value_at<'a, T: postgres::types::FromSql<'a>>(
    location: &Location,
    row: &'a Row,
    i: usize,
) -> Result<T> {
    row.try_get(i).map_err(|e| super::classify(location, e))
}

/// A stored name of the set `T` (an unknown name says the ledger is damaged).
pub(super) fn name_at<T: ClosedSet>(location: &Location, row: &Row, i: usize) -> Result<T> {
    Values { row, location }.name(i)
}

/// A stored time (`2026-11-27T13:16:45.000Z`).
pub(super) fn time_at(location: &Location, row: &Row, i: usize) -> Result<Timestamp> {
    Values { row, location }.time(i)
}

/// A stored time that may be `NULL`.
pub(super) fn time_or_null_at(
    location: &Location,
    row: &Row,
    i: usize,
) -> Result<Option<Timestamp>> {
    Values { row, location }.opt_time(i)
}

/// The id an `INSERT ... RETURNING id` gave.
pub(super) fn inserted_id(location: &Location, row: Option<Row>) -> Result<i64> {
    match row {
        Some(row) => value_at(location, &row, 0),
        None => Err(StoreError::Damaged {
            ledger: location.clone(),
            detail: "an insert gave back no id".to_owned(),
        }),
    }
}

/// The advisory lock of one job's (or one view name's) writes in `family`, on this
/// ledger's schema, taken until the transaction ends: see the module's notes.
pub(super) fn lock_key(writer: &Writer<'_>, family: &str, key: &str) -> Result<()> {
    writer.row(
        "SELECT pg_advisory_xact_lock(hashtextextended(
                    current_schema() || ' ' || $1::text || ' ' || $2::text, 0))",
        &[&family, &key],
    )?;
    Ok(())
}

/// The columns [`answer_from`] reads, on `answers a`.
const ANSWER_COLUMNS: &str = "a.id, a.callback_seq, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id, \
     a.written_by";

fn answer_from(location: &Location, row: &Row) -> Result<AnswerRow> {
    Ok(AnswerRow {
        id: value_at(location, row, 0)?,
        callback_seq: value_at(location, row, 1)?,
        verdict: name_at::<Verdict>(location, row, 2)?,
        note: value_at(location, row, 3)?,
        reviewer: value_at(location, row, 4)?,
        answered_at: time_at(location, row, 5)?,
        linked_job_id: value_at(location, row, 6)?,
        written_by: value_at(location, row, 7)?,
    })
}

/// `(c.disposition = 'hold' OR ...)`: the dispositions that wait for a person, as the
/// SQLite engine writes the condition.
fn waiting_c() -> String {
    let terms: Vec<String> = Disposition::ALL
        .into_iter()
        .filter(|d| d.waits_for_a_person())
        .map(|d| format!("c.disposition = '{}'", d.as_str()))
        .collect();
    format!("({})", terms.join(" OR "))
}

/// The verdicts that close a question, as a list for SQL, from [`Verdict::closes`]
/// (the enum's own names, so safe in a statement).
fn closing_verdicts() -> String {
    let closing: Vec<String> = Verdict::ALL
        .iter()
        .filter(|v| v.closes())
        .map(|v| format!("'{}'", v.as_str()))
        .collect();
    closing.join(", ")
}

/// Held and quarantined callbacks whose standing answer closes them, by disposition:
/// read from the answers (each callback's newest), not from every callback waiting
/// for a person with its newest answer looked up one by one. The console counts them
/// at each key of a search in a small view; an empty `answers` was never analyzed,
/// and the planner, taking it for ten pages of rows, went through the 3,520 waiting
/// callbacks of a 50,000-job ledger and their answers one by one (30 ms under EXPLAIN
/// ANALYZE, against 0.1 ms from the answers).
static CLOSED_QUESTIONS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT c.disposition, count(*)
           FROM (SELECT DISTINCT ON (callback_seq) callback_seq, verdict FROM answers
                  ORDER BY callback_seq, id DESC) newest
           JOIN callbacks c ON c.seq = newest.callback_seq
          WHERE {}
            AND newest.verdict IN ({})
          GROUP BY c.disposition",
        waiting_c(),
        closing_verdicts()
    )
});

/// For each `(job, callback)` of `$1` and `$2`, the latest answer on another callback
/// of the same job, with the pair's place (from 1) last.
const EARLIER_ANSWERS_ON_JOBS: &str = "SELECT e.id, e.callback_seq, e.verdict, e.note, \
     e.reviewer, e.answered_at, e.linked_job_id, e.written_by, p.place
     FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS p (job_id, seq, place)
     CROSS JOIN LATERAL (SELECT a.id, a.callback_seq, a.verdict, a.note, a.reviewer,
            a.answered_at, a.linked_job_id, a.written_by
       FROM answers a JOIN callbacks c ON c.seq = a.callback_seq
      WHERE c.job_id = p.job_id AND c.seq <> p.seq ORDER BY a.id DESC LIMIT 1) e";

const ANSWERS_OF: &str = "SELECT a.id, a.callback_seq, a.verdict, a.note, a.reviewer, \
     a.answered_at, a.linked_job_id, a.written_by FROM answers a WHERE a.callback_seq = $1 \
     ORDER BY a.id";

impl Ledger {
    /// A person's work kept in the ledger: answers, owner assignments (not those the
    /// demo made itself, `demo`, nor those a stream's `job_accepted` named) and
    /// requests.
    pub fn work_counts(&self) -> Result<(i64, i64, i64)> {
        let row = self.one(
            "SELECT (SELECT count(*) FROM answers), (SELECT count(*) FROM owner_assignments
                      WHERE set_by NOT IN ('demo', 'job_accepted')),
                    (SELECT count(*) FROM outbox)",
            &[],
        )?;
        let l = self.location();
        Ok((
            value_at(l, &row, 0)?,
            value_at(l, &row, 1)?,
            value_at(l, &row, 2)?,
        ))
    }

    /// Answers written in `(since, until]`.
    pub fn answers_between(&self, since: Timestamp, until: Timestamp) -> Result<i64> {
        let row = self.one(
            "SELECT count(*) FROM answers WHERE answered_at > $1 AND answered_at <= $2",
            &[&time_text(since), &time_text(until)],
        )?;
        value_at(self.location(), &row, 0)
    }

    /// Held and quarantined callbacks with no closing answer yet.
    pub fn open_questions(&self) -> Result<i64> {
        let counts = self.disposition_counts()?;
        let closed = self.closed_questions()?;
        Ok(counts.held + counts.quarantined - closed.held - closed.quarantined)
    }

    /// Held and quarantined callbacks whose standing answer closes them, counted by
    /// disposition (the other counts stay 0).
    pub fn closed_questions(&self) -> Result<DispositionCounts> {
        let l = self.location();
        let mut closed = DispositionCounts::default();
        for row in self.rows(CLOSED_QUESTIONS.as_str(), &[])? {
            match name_at::<Disposition>(l, &row, 0)? {
                Disposition::Hold => closed.held = value_at(l, &row, 1)?,
                Disposition::Quarantine => closed.quarantined = value_at(l, &row, 1)?,
                Disposition::Apply | Disposition::Record => {}
            }
        }
        Ok(closed)
    }

    /// The latest answer given on another callback of the same job (the page's read
    /// for one pair).
    pub fn earlier_answer_on_job(
        &self,
        job_id: &str,
        except_seq: i64,
    ) -> Result<Option<AnswerRow>> {
        let earlier = self.earlier_answers_on_jobs(&[(job_id, except_seq)])?;
        Ok(earlier.into_iter().next().flatten())
    }

    /// [`Ledger::earlier_answer_on_job`] for each `(job, callback)` of a page, in one
    /// statement: each statement is a round trip to the server, and a page of 48
    /// rows asked once a row made two thirds of the console's first statements.
    pub fn earlier_answers_on_jobs(&self, asked: &[(&str, i64)]) -> Result<Vec<Option<AnswerRow>>> {
        let mut earlier = vec![None; asked.len()];
        if asked.is_empty() {
            return Ok(earlier);
        }
        let (jobs, seqs): (Vec<&str>, Vec<i64>) = asked.iter().copied().unzip();
        for row in self.rows(EARLIER_ANSWERS_ON_JOBS, &[&jobs, &seqs])? {
            let place: i64 = value_at(self.location(), &row, 8)?;
            let slot = usize::try_from(place - 1)
                .ok()
                .and_then(|i| earlier.get_mut(i));
            if let Some(slot) = slot {
                *slot = Some(answer_from(self.location(), &row)?);
            }
        }
        Ok(earlier)
    }

    /// The id of the newest answer (0: none yet).
    pub fn newest_answer_id(&self) -> Result<i64> {
        let row = self.one("SELECT coalesce(max(id), 0) FROM answers", &[])?;
        value_at(self.location(), &row, 0)
    }

    /// Every answer to a callback, oldest first.
    pub fn answers(&self, callback_seq: i64) -> Result<Vec<AnswerRow>> {
        debug_assert!(ANSWERS_OF.contains(ANSWER_COLUMNS));
        self.rows(ANSWERS_OF, &[&callback_seq])?
            .iter()
            .map(|row| answer_from(self.location(), row))
            .collect()
    }
}

impl Writer<'_> {
    /// Locks the callbacks `seqs` (in `seq` order) until this transaction ends, before
    /// their answers are read: another writer answering one of them waits until this
    /// one commits, then reads its answer (see the module's notes). A number no
    /// callback has locks nothing.
    pub fn lock_callbacks(&mut self, seqs: &[i64]) -> Result<()> {
        match seqs {
            [] => {}
            [seq] => {
                self.rows(
                    "SELECT seq FROM callbacks WHERE seq = $1 FOR NO KEY UPDATE",
                    &[seq],
                )?;
            }
            _ => {
                self.rows(
                    "SELECT seq FROM callbacks WHERE seq = ANY($1) ORDER BY seq
                        FOR NO KEY UPDATE",
                    &[&seqs],
                )?;
            }
        }
        Ok(())
    }

    /// Appends an answer; returns its id.
    pub fn insert_answer(&mut self, answer: &NewAnswer<'_>) -> Result<i64> {
        let row = self.row(
            "INSERT INTO answers (callback_seq, verdict, note, reviewer, answered_at,
                                      linked_job_id, previous_answer)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
            &[
                &answer.callback_seq,
                &answer.verdict.as_str(),
                &answer.note,
                &answer.reviewer,
                &time_text(answer.answered_at),
                &answer.linked_job_id,
                &answer.previous_answer,
            ],
        )?;
        inserted_id(self.location(), row)
    }
}
