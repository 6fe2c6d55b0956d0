//! Answers: a reviewer's verdicts on held and quarantined callbacks, appended, the
//! latest standing.

use rusqlite::{OptionalExtension, params};

use super::closed_sets::WAITING_C;
use super::columns::{ANSWER_COLUMNS, answer_from};
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::{Disposition, Verdict};
use crate::store::{AnswerRow, DispositionCounts, NewAnswer};

type Result<T> = std::result::Result<T, StoreError>;

/// The verdicts that close a question, as a list for SQL (`'single_effect', ...`),
/// named from [`Verdict::closes`], the one place that says which close. They are the
/// enum's own names, so writing them into a statement is safe.
pub(super) fn closing_verdicts() -> String {
    let closing: Vec<String> = Verdict::ALL
        .iter()
        .filter(|v| v.closes())
        .map(|v| format!("'{}'", v.as_str()))
        .collect();
    closing.join(", ")
}

impl Ledger {
    /// A person's work kept in the ledger: answers, owner assignments (not those the
    /// demo made itself, `demo`, nor those a stream's `job_accepted` named) and
    /// requests: what replacing a demo ledger would drop.
    pub fn work_counts(&self) -> Result<(i64, i64, i64)> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT (SELECT count(*) FROM answers), (SELECT count(*) FROM owner_assignments
                          WHERE set_by NOT IN ('demo', 'job_accepted')),
                        (SELECT count(*) FROM outbox)",
            )?
            .query_row([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        })
    }

    /// Answers written in `(since, until]`.
    pub fn answers_between(&self, since: Timestamp, until: Timestamp) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT count(*) FROM answers WHERE answered_at > ?1 AND answered_at <= ?2",
            )?
            .query_row([since, until], |row| row.get(0))
        })
    }

    /// Held and quarantined callbacks with no closing answer yet.
    pub fn open_questions(&self) -> Result<i64> {
        let counts = self.disposition_counts()?;
        let closed = self.closed_questions()?;
        Ok(counts.held + counts.quarantined - closed.held - closed.quarantined)
    }

    /// Held and quarantined callbacks whose standing answer closes them, counted by
    /// disposition (the other counts stay 0): a walk over the answers (a person's
    /// work, so few), not over every held callback. The open questions of a view are
    /// its kept count less these.
    pub fn closed_questions(&self) -> Result<DispositionCounts> {
        self.run(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT c.disposition, count(*) FROM callbacks c
                 WHERE c.seq IN (SELECT callback_seq FROM answers)
                   AND {}
                   AND (SELECT verdict FROM answers WHERE callback_seq = c.seq
                        ORDER BY id DESC LIMIT 1) IN ({})
                 GROUP BY c.disposition",
                *WAITING_C,
                closing_verdicts()
            ))?;
            let mut closed = DispositionCounts::default();
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                match row.get::<_, Disposition>(0)? {
                    Disposition::Hold => closed.held = row.get(1)?,
                    Disposition::Quarantine => closed.quarantined = row.get(1)?,
                    Disposition::Apply | Disposition::Record => {}
                }
            }
            Ok(closed)
        })
    }

    /// The latest answer given on another callback of the same job (a case answered before).
    pub fn earlier_answer_on_job(
        &self,
        job_id: &str,
        except_seq: i64,
    ) -> Result<Option<AnswerRow>> {
        self.run(|c| {
            c.prepare_cached(&format!(
                "SELECT {ANSWER_COLUMNS} FROM answers a JOIN callbacks c ON c.seq = a.callback_seq
                 WHERE c.job_id = ?1 AND c.seq <> ?2 ORDER BY a.id DESC LIMIT 1"
            ))?
            .query_row(params![job_id, except_seq], answer_from)
            .optional()
        })
    }

    /// [`Ledger::earlier_answer_on_job`] for each `(job, callback)` of a page: a
    /// statement is a call in this process, so each is asked on its own.
    pub fn earlier_answers_on_jobs(&self, asked: &[(&str, i64)]) -> Result<Vec<Option<AnswerRow>>> {
        asked
            .iter()
            .map(|&(job_id, seq)| self.earlier_answer_on_job(job_id, seq))
            .collect()
    }

    /// The id of the newest answer (0: none yet). Ids only grow, the table being
    /// append-only, so it marks a moment: a bulk answer's plan is read as of it.
    pub fn newest_answer_id(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT coalesce(max(id), 0) FROM answers")?
                .query_row([], |row| row.get(0))
        })
    }

    /// Every answer to a callback, oldest first.
    pub fn answers(&self, callback_seq: i64) -> Result<Vec<AnswerRow>> {
        let sql = format!(
            "SELECT {ANSWER_COLUMNS} FROM answers a WHERE a.callback_seq = ?1 ORDER BY a.id"
        );
        self.all_rows(&sql, [callback_seq], answer_from)
    }
}

impl Writer<'_> {
    /// Appends an answer; returns its id.
    pub fn insert_answer(&mut self, answer: &NewAnswer<'_>) -> Result<i64> {
        self.execute(
            "INSERT INTO answers (callback_seq, verdict, note, reviewer, answered_at, linked_job_id, previous_answer)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                answer.callback_seq,
                answer.verdict,
                answer.note,
                answer.reviewer,
                answer.answered_at,
                answer.linked_job_id,
                answer.previous_answer
            ],
        )?;
        Ok(self.last_insert_rowid())
    }
}
