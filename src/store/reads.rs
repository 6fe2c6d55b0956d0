//! Named reads: what reports and the console ask of the ledger.
//!
//! Lists are paged by keyset (`seq > after`), never by OFFSET, so a page costs
//! the same at the first row and at the millionth.

use std::fmt::Write as _;

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::rows::{
    AnswerRow, AttemptRow, AttemptState, CallbackRow, JobRow, OutboxRow, OutputFacts, OwnerRow,
    RejectedLine, Replacement, TimelineEntry,
};
use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::decision::{Disposition, JobState, Outcome, ReasonCode};
use crate::review::Verdict;

type Result<T> = std::result::Result<T, StoreError>;

/// Which callbacks a list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackFilter {
    pub disposition: Option<Disposition>,
    /// Kept when the job id or the reason code contains this text.
    pub text: Option<String>,
}

/// One page of a list, by keyset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// Rows strictly after this key (or the first rows, when `None`).
    pub after: Option<i64>,
    /// Rows strictly before this key, read backwards (for paging up); wins over `after`.
    pub before: Option<i64>,
    pub limit: usize,
}

impl PageRequest {
    /// The first `limit` rows.
    pub fn first(limit: usize) -> Self {
        PageRequest {
            after: None,
            before: None,
            limit,
        }
    }
}

fn bad_value(what: &str, value: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Text,
        format!("unexpected {what} {value:?} in the ledger").into(),
    )
}

fn job_state(text: &str) -> rusqlite::Result<JobState> {
    JobState::parse(text).ok_or_else(|| bad_value("job state", text))
}

const JOB_COLUMNS: &str =
    "job_id, state, accepted_at, aged_at, timeout_s, expected_age_s, attempt_budget,
    latest_attempt, input_digest, model_digest, policy_revision, result_ref, failure_cause,
    failure_permanent, state_changed_at";

fn job_from(row: &Row<'_>) -> rusqlite::Result<JobRow> {
    Ok(JobRow {
        job_id: row.get(0)?,
        state: job_state(&row.get::<_, String>(1)?)?,
        accepted_at: row.get(2)?,
        aged_at: row.get(3)?,
        timeout_s: row.get(4)?,
        expected_age_s: row.get(5)?,
        attempt_budget: row.get(6)?,
        latest_attempt: row.get(7)?,
        input_digest: row.get(8)?,
        model_digest: row.get(9)?,
        policy_revision: row.get(10)?,
        result_ref: row.get(11)?,
        failure_cause: row.get(12)?,
        failure_permanent: row.get(13)?,
        state_changed_at: row.get(14)?,
    })
}

pub(super) fn job(conn: &Connection, job_id: &str) -> rusqlite::Result<Option<JobRow>> {
    conn.prepare_cached(&format!("SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1"))?
        .query_row([job_id], job_from)
        .optional()
}

fn attempt_from(row: &Row<'_>) -> rusqlite::Result<AttemptRow> {
    let state: String = row.get(5)?;
    Ok(AttemptRow {
        job_id: row.get(0)?,
        attempt: row.get(1)?,
        created_by: row.get(2)?,
        started_at: row.get(3)?,
        timeout_at: row.get(4)?,
        state: AttemptState::parse(&state).ok_or_else(|| bad_value("attempt state", &state))?,
        timed_out_at: row.get(6)?,
    })
}

const ATTEMPT_COLUMNS: &str =
    "job_id, attempt, created_by, started_at, timeout_at, state, timed_out_at";

pub(super) fn attempt(
    conn: &Connection,
    job_id: &str,
    attempt: i64,
) -> rusqlite::Result<Option<AttemptRow>> {
    conn.prepare_cached(&format!(
        "SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE job_id = ?1 AND attempt = ?2"
    ))?
    .query_row(params![job_id, attempt], attempt_from)
    .optional()
}

/// The columns of [`CallbackRow`] (with its replacement attempt and standing answer)
/// and the tables they come from. The replacement attempt's live state is read only
/// when `attempt_state` is asked for: the console shows it, reports do not, and looking
/// it up in the attempts table was a third of the time of a long report.
fn callback_select(attempt_state: bool) -> String {
    let (state, attempts) = if attempt_state {
        (
            "r.state",
            "LEFT JOIN attempts r ON r.job_id = c.job_id AND r.attempt = c.replacement_attempt",
        )
    } else {
        ("NULL", "")
    };
    format!(
        "SELECT c.seq, c.line_seq, c.delivery_id, c.job_id, c.attempt,
            c.outcome, c.arrived_at, c.timeout_at, c.disposition, c.reason, c.detail,
            c.first_report_seq, c.linked_from_seq, c.judged_at,
            c.replacement_attempt, c.replacement_created_by, c.replacement_started_at, {state},
            a.id, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id
        FROM callbacks c
        {attempts}
        LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)"
    )
}

fn callback_from(row: &Row<'_>) -> rusqlite::Result<CallbackRow> {
    // Names read in place: a `String` each was a tenth of listing held callbacks.
    let outcome = row.get_ref(5)?.as_str_or_null()?;
    let disposition = row.get_ref(8)?.as_str()?;
    let reason = row.get_ref(9)?.as_str()?;
    let replacement = match (
        row.get::<_, Option<i64>>(14)?,
        row.get::<_, Option<String>>(15)?,
        row.get::<_, Option<Timestamp>>(16)?,
    ) {
        (Some(attempt), Some(created_by), Some(started_at)) => Some(Replacement {
            attempt,
            created_by,
            started_at,
            state: row
                .get_ref(17)?
                .as_str_or_null()?
                .and_then(AttemptState::parse),
        }),
        _ => None,
    };
    let answer = match row.get::<_, Option<i64>>(18)? {
        Some(id) => Some(AnswerRow {
            id,
            callback_seq: row.get(0)?,
            verdict: row.get(19)?,
            note: row.get(20)?,
            reviewer: row.get(21)?,
            answered_at: row.get(22)?,
            linked_job_id: row.get(23)?,
        }),
        None => None,
    };
    Ok(CallbackRow {
        seq: row.get(0)?,
        line_seq: row.get(1)?,
        delivery_id: row.get(2)?,
        job_id: row.get(3)?,
        attempt: row.get(4)?,
        outcome: outcome.and_then(Outcome::parse),
        arrived_at: row.get(6)?,
        timeout_at: row.get(7)?,
        disposition: Disposition::parse(disposition)
            .ok_or_else(|| bad_value("disposition", disposition))?,
        reason: ReasonCode::parse(reason).ok_or_else(|| bad_value("reason", reason))?,
        detail: row.get(10)?,
        first_report_seq: row.get(11)?,
        linked_from_seq: row.get(12)?,
        judged_at: row.get(13)?,
        replacement,
        answer,
    })
}

pub(super) fn callback(conn: &Connection, seq: i64) -> rusqlite::Result<Option<CallbackRow>> {
    conn.prepare_cached(&format!("{} WHERE c.seq = ?1", callback_select(true)))?
        .query_row([seq], callback_from)
        .optional()
}

pub(super) fn raw_line(conn: &Connection, line_seq: i64) -> rusqlite::Result<Option<Vec<u8>>> {
    conn.prepare_cached("SELECT raw FROM input_lines WHERE seq = ?1")?
        .query_row([line_seq], |row| row.get(0))
        .optional()
}

const ANSWER_COLUMNS: &str =
    "a.id, a.callback_seq, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id";

fn answer_from(row: &Row<'_>) -> rusqlite::Result<AnswerRow> {
    Ok(AnswerRow {
        id: row.get(0)?,
        callback_seq: row.get(1)?,
        verdict: row.get(2)?,
        note: row.get(3)?,
        reviewer: row.get(4)?,
        answered_at: row.get(5)?,
        linked_job_id: row.get(6)?,
    })
}

pub(super) fn latest_answer(
    conn: &Connection,
    callback_seq: i64,
) -> rusqlite::Result<Option<AnswerRow>> {
    conn.prepare_cached(&format!(
        "SELECT {ANSWER_COLUMNS} FROM answers a WHERE a.callback_seq = ?1 ORDER BY a.id DESC LIMIT 1"
    ))?
    .query_row([callback_seq], answer_from)
    .optional()
}

pub(super) fn output_facts(conn: &Connection, job_id: &str) -> rusqlite::Result<OutputFacts> {
    let stored: Option<(String, Option<Timestamp>, Timestamp)> = conn
        .prepare_cached(
            "SELECT ref, retention_until, stored_at FROM outputs WHERE job_id = ?1 ORDER BY id DESC LIMIT 1",
        )?
        .query_row([job_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .optional()?;
    let Some((reference, retention_until, stored_at)) = stored else {
        return Ok(OutputFacts::default());
    };
    let last_check_exists = conn
        .prepare_cached(
            "SELECT object_exists FROM output_checks WHERE job_id = ?1 AND checked_at >= ?2
             ORDER BY id DESC LIMIT 1",
        )?
        .query_row(params![job_id, stored_at], |row| row.get(0))
        .optional()?;
    Ok(OutputFacts {
        reference: Some(reference),
        retention_until,
        last_check_exists,
    })
}

impl Ledger {
    fn run<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        f(&self.conn).map_err(|e| self.err(e))
    }

    /// The job, if the ledger has it.
    pub fn job(&self, job_id: &str) -> Result<Option<JobRow>> {
        self.run(|c| job(c, job_id))
    }

    /// Every attempt of a job, in order.
    pub fn attempts(&self, job_id: &str) -> Result<Vec<AttemptRow>> {
        self.run(|c| {
            c.prepare_cached(&format!(
                "SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE job_id = ?1 ORDER BY attempt"
            ))?
            .query_map([job_id], attempt_from)?
            .collect()
        })
    }

    /// One callback with its replacement attempt and standing answer.
    pub fn callback(&self, seq: i64) -> Result<Option<CallbackRow>> {
        self.run(|c| callback(c, seq))
    }

    /// The raw bytes of an input line, exactly as they arrived.
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>> {
        self.run(|c| raw_line(c, line_seq))
    }

    /// What the ledger knows about a job's output object.
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts> {
        self.run(|c| output_facts(c, job_id))
    }

    /// Pending requests in the outbox.
    pub fn outbox_pending(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT count(*) FROM outbox WHERE status = 'pending'")?
                .query_row([], |row| row.get(0))
        })
    }

    /// Every request in the outbox, oldest first.
    pub fn outbox(&self) -> Result<Vec<OutboxRow>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT id, job_id, request, attempt, input_digest, model_digest, policy_revision,
                    requested_by, requested_at, status FROM outbox ORDER BY id",
            )?
            .query_map([], |row| {
                Ok(OutboxRow {
                    id: row.get(0)?,
                    job_id: row.get(1)?,
                    request: row.get(2)?,
                    attempt: row.get(3)?,
                    input_digest: row.get(4)?,
                    model_digest: row.get(5)?,
                    policy_revision: row.get(6)?,
                    requested_by: row.get(7)?,
                    requested_at: row.get(8)?,
                    status: row.get(9)?,
                })
            })?
            .collect()
        })
    }

    /// Repeated decisions that were suppressed.
    pub fn decisions_suppressed(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT count(*) FROM decisions WHERE suppressed = 1")?
                .query_row([], |row| row.get(0))
        })
    }

    /// Input lines kept as rejected events.
    pub fn rejected_count(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT count(*) FROM input_lines WHERE status = 'rejected'")?
                .query_row([], |row| row.get(0))
        })
    }

    /// The first rejected lines, oldest first.
    pub fn rejected_lines(&self, limit: usize) -> Result<Vec<RejectedLine>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT seq, event, reason, ingested_at FROM input_lines
                 WHERE status = 'rejected' ORDER BY seq LIMIT ?1",
            )?
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
                Ok(RejectedLine {
                    seq: row.get(0)?,
                    event: row.get(1)?,
                    reason: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    ingested_at: row.get(3)?,
                })
            })?
            .collect()
        })
    }

    /// Input lines kept so far.
    pub fn line_count(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT coalesce(max(seq), 0) FROM input_lines")?
                .query_row([], |row| row.get(0))
        })
    }

    /// One page of callbacks in ingest order.
    pub fn callbacks_page(
        &self,
        filter: &CallbackFilter,
        page: PageRequest,
    ) -> Result<Vec<CallbackRow>> {
        self.callbacks_page_of(callback_select(true), filter, page)
    }

    /// [`Ledger::callbacks_page`] for a report: the same rows, but a replacement
    /// attempt comes without its state (`Replacement::state` is `None`).
    pub fn callbacks_report_page(
        &self,
        filter: &CallbackFilter,
        page: PageRequest,
    ) -> Result<Vec<CallbackRow>> {
        self.callbacks_page_of(callback_select(false), filter, page)
    }

    fn callbacks_page_of(
        &self,
        select: String,
        filter: &CallbackFilter,
        page: PageRequest,
    ) -> Result<Vec<CallbackRow>> {
        let review = matches!(
            filter.disposition,
            Some(Disposition::Hold | Disposition::Quarantine)
        );
        // A review list reads its own partial index, which holds every column shown.
        let mut sql = if review {
            select.replacen(
                "FROM callbacks c",
                "FROM callbacks c INDEXED BY callbacks_review_list",
                1,
            )
        } else {
            select
        };
        let backwards = page.before.is_some();
        sql.push_str(if backwards {
            " WHERE c.seq < ?1"
        } else {
            " WHERE c.seq > ?1"
        });
        if filter.disposition.is_some() {
            sql.push_str(" AND c.disposition = ?2");
        }
        if review {
            sql.push_str(" AND (c.disposition = 'hold' OR c.disposition = 'quarantine')");
        }
        if filter.text.is_some() {
            sql.push_str(
                " AND (instr(lower(c.job_id), lower(?3)) > 0 OR instr(c.reason, lower(?3)) > 0)",
            );
        }
        // The limit is written into the statement: bound as a parameter, it made SQLite
        // prepare the statement again on every page (a third of a page's time).
        let limit = i64::try_from(page.limit).unwrap_or(i64::MAX);
        let _ = write!(
            sql,
            " ORDER BY c.seq {} LIMIT {limit}",
            if backwards { "DESC" } else { "ASC" }
        );
        let key = page
            .before
            .or(page.after)
            .unwrap_or(if backwards { i64::MAX } else { 0 });
        let mut rows: Vec<CallbackRow> = self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let disposition = filter.disposition.map(Disposition::as_str);
            let text = filter.text.as_deref();
            let mut params: Vec<(&str, &dyn rusqlite::ToSql)> = vec![("?1", &key)];
            if filter.disposition.is_some() {
                params.push(("?2", &disposition));
            }
            if filter.text.is_some() {
                params.push(("?3", &text));
            }
            st.query_map(params.as_slice(), callback_from)?.collect()
        })?;
        if backwards {
            rows.reverse();
        }
        Ok(rows)
    }

    /// Callbacks of each disposition that match a text filter (for tab counts under a filter).
    pub fn count_callbacks(&self, filter: &CallbackFilter) -> Result<i64> {
        if filter.text.is_none() {
            let counts = self.disposition_counts()?;
            return Ok(filter.disposition.map_or(counts.total(), |d| counts.get(d)));
        }
        let mut sql = String::from(
            "SELECT count(*) FROM callbacks c WHERE (instr(lower(c.job_id), lower(?1)) > 0 OR instr(c.reason, lower(?1)) > 0)",
        );
        if filter.disposition.is_some() {
            sql.push_str(" AND c.disposition = ?2");
        }
        self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let text = filter.text.as_deref();
            let disposition = filter.disposition.map(Disposition::as_str);
            let mut params: Vec<(&str, &dyn rusqlite::ToSql)> = vec![("?1", &text)];
            if filter.disposition.is_some() {
                params.push(("?2", &disposition));
            }
            st.query_row(params.as_slice(), |row| row.get(0))
        })
    }

    /// Held and quarantined callbacks that arrived in `(since, until]` (for the backlog alarm).
    /// A callback with no arrival time counts at the time its line was kept.
    pub fn review_arrivals_between(&self, since: Timestamp, until: Timestamp) -> Result<i64> {
        self.run(|c| {
            // Two ranges of one partial index (arrivals, then those without one),
            // instead of a look at every held callback and its input line. Named,
            // because without statistics the planner takes the disposition index.
            c.prepare_cached(
                "SELECT (SELECT count(*) FROM callbacks INDEXED BY callbacks_review_by_arrival
                          WHERE (disposition = 'hold' OR disposition = 'quarantine')
                            AND arrived_at > ?1 AND arrived_at <= ?2)
                      + (SELECT count(*) FROM callbacks c INDEXED BY callbacks_review_by_arrival
                          JOIN input_lines l ON l.seq = c.line_seq
                          WHERE (c.disposition = 'hold' OR c.disposition = 'quarantine')
                            AND c.arrived_at IS NULL
                            AND l.ingested_at > ?1 AND l.ingested_at <= ?2)",
            )?
            .query_row([since, until], |row| row.get(0))
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
        // The questions, less those whose standing answer closes them: a walk over
        // the answers (a person's work, so few), not over every held callback.
        // Which verdicts close is `Verdict::closes`, not repeated here in SQL.
        let standing: Vec<Verdict> = self.run(|c| {
            c.prepare_cached(
                "SELECT (SELECT verdict FROM answers WHERE callback_seq = c.seq
                         ORDER BY id DESC LIMIT 1)
                 FROM callbacks c
                 WHERE c.seq IN (SELECT callback_seq FROM answers)
                   AND (c.disposition = 'hold' OR c.disposition = 'quarantine')",
            )?
            .query_map([], |row| row.get(0))?
            .collect()
        })?;
        let closed: i64 = standing.iter().map(|v| i64::from(v.closes())).sum();
        Ok(counts.held + counts.quarantined - closed)
    }

    /// Open jobs past their expected age at `now`.
    pub fn aged_count(&self, now: Timestamp) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT count(*) FROM jobs WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out') AND aged_at <= ?1",
            )?
            .query_row([now], |row| row.get(0))
        })
    }

    /// The latest owner assignment of a job.
    pub fn owner(&self, job_id: &str) -> Result<Option<OwnerRow>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT owner, escalate_at, set_by, set_at FROM owner_assignments
                 WHERE job_id = ?1 ORDER BY id DESC LIMIT 1",
            )?
            .query_row([job_id], |row| {
                Ok(OwnerRow {
                    owner: row.get(0)?,
                    escalate_at: row.get(1)?,
                    set_by: row.get(2)?,
                    set_at: row.get(3)?,
                })
            })
            .optional()
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

    /// Every answer to a callback, oldest first.
    pub fn answers(&self, callback_seq: i64) -> Result<Vec<AnswerRow>> {
        self.run(|c| {
            c.prepare_cached(&format!(
                "SELECT {ANSWER_COLUMNS} FROM answers a WHERE a.callback_seq = ?1 ORDER BY a.id"
            ))?
            .query_map([callback_seq], answer_from)?
            .collect()
        })
    }

    /// A job's whole story in time order: history, attempts, callbacks, answers, outputs,
    /// notifications, owners, requests.
    pub fn timeline(&self, job_id: &str) -> Result<Vec<TimelineEntry>> {
        const PARTS: [&str; 9] = [
            "SELECT at, CASE WHEN applied = 1
                    THEN 'state ' || coalesce(from_state, '-') || ' -> ' || to_state || ' (' || cause || ')'
                    ELSE 'not applied: ' || to_state || ' asked by ' || cause || '; ' || coalesce(from_state, '-') || ' stands' END
             FROM job_history WHERE job_id = ?1",
            "SELECT started_at, 'attempt ' || attempt || ' started by ' || created_by ||
                    coalesce(', due to time out ' || timeout_at, '')
             FROM attempts WHERE job_id = ?1",
            "SELECT timed_out_at, 'attempt ' || attempt || ' timed out'
             FROM attempts WHERE job_id = ?1 AND timed_out_at IS NOT NULL",
            "SELECT coalesce(c.arrived_at, l.ingested_at), 'callback #' || c.seq || ' ' || coalesce(c.outcome, '?') ||
                    ' for attempt ' || coalesce(c.attempt, '?') || ': ' || c.disposition || ' (' || c.reason || ')'
             FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq WHERE c.job_id = ?1",
            "SELECT a.answered_at, 'answer on #' || a.callback_seq || ': ' || a.verdict || ' by ' || a.reviewer ||
                    CASE WHEN a.note <> '' THEN ' - ' || a.note ELSE '' END
             FROM answers a JOIN callbacks c ON c.seq = a.callback_seq WHERE c.job_id = ?1",
            "SELECT stored_at, 'output stored: ' || ref || coalesce(' (kept until ' || retention_until || ')', '')
             FROM outputs WHERE job_id = ?1",
            "SELECT checked_at, CASE WHEN object_exists = 1 THEN 'output checked: exists' ELSE 'output checked: MISSING' END
             FROM output_checks WHERE job_id = ?1",
            "SELECT sent_at, 'notification sent: ' || kind FROM notifications WHERE job_id = ?1",
            "SELECT set_at, 'owner ' || owner || ' set by ' || set_by || coalesce(', escalate at ' || escalate_at, '')
             FROM owner_assignments WHERE job_id = ?1
             UNION ALL
             SELECT requested_at, request || ' requested by ' || requested_by || ' (' || status || ')'
             FROM outbox WHERE job_id = ?1",
        ];
        let mut entries = Vec::new();
        self.run(|c| {
            for sql in PARTS {
                let mut st = c.prepare_cached(sql)?;
                let rows = st.query_map([job_id], |row| {
                    Ok(TimelineEntry {
                        at: row.get(0)?,
                        what: row.get(1)?,
                    })
                })?;
                for entry in rows {
                    entries.push(entry?);
                }
            }
            Ok(())
        })?;
        entries.sort_by_key(|e| e.at);
        Ok(entries)
    }
}

impl Ledger {
    /// A note about the ledger itself.
    pub fn note(&self, key: &str) -> Result<Option<String>> {
        self.run(|c| {
            c.prepare_cached("SELECT value FROM ledger_notes WHERE key = ?1")?
                .query_row([key], |row| row.get(0))
                .optional()
        })
    }

    /// Is every line in this ledger one of `known` (by SHA-256)? Stops at the first stranger.
    pub fn all_lines_among(&self, known: &std::collections::HashSet<[u8; 32]>) -> Result<bool> {
        self.run(|c| {
            let mut st = c.prepare_cached("SELECT line_sha256 FROM input_lines")?;
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                let sha: Vec<u8> = row.get(0)?;
                let Ok(sha) = <[u8; 32]>::try_from(sha.as_slice()) else {
                    return Ok(false);
                };
                if !known.contains(&sha) {
                    return Ok(false);
                }
            }
            Ok(true)
        })
    }
}
