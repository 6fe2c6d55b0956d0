//! Callbacks: each judged once, at ingest, and kept with its disposition.

mod selection;

use rusqlite::{Connection, OptionalExtension, params};

use super::answers::closing_verdicts;
use super::columns::{callback_columns, callback_from};
use super::keyset::PageRequest;
use super::query::Select;
use super::rows::{CallbackRow, ClaimHistory, NewCallback};
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::{Disposition, Outcome};

type Result<T> = std::result::Result<T, StoreError>;

/// Callbacks read, in list order.
type Rows = Result<Vec<CallbackRow>>;

/// Which callbacks a list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackFilter {
    pub disposition: Option<Disposition>,
    /// Kept when the job id or the reason code contains this text.
    pub text: Option<String>,
    /// Only open questions: held or quarantined callbacks whose standing answer, if
    /// any, does not close them ([`crate::decision::Verdict::closes`];
    /// `needs_remote_check` leaves one open).
    pub open: bool,
}

/// Kept when the callback (`c`, with its standing answer `a`) is a question still open:
/// held or quarantined, and no standing answer that closes it.
fn open_question() -> String {
    format!(
        "(c.disposition = 'hold' OR c.disposition = 'quarantine') \
         AND (a.verdict IS NULL OR a.verdict NOT IN ({}))",
        closing_verdicts()
    )
}

/// Kept when the job id or the reason code contains the text bound as `?N`.
fn text_match(n: u8) -> String {
    format!("(instr(lower(c.job_id), lower(?{n})) > 0 OR instr(c.reason, lower(?{n})) > 0)")
}

/// The columns of [`CallbackRow`] (with its replacement attempt and standing answer)
/// and the tables they come from. The replacement attempt's live state is read only
/// when `attempt_state` is asked for: the console shows it, reports do not, and looking
/// it up in the attempts table was a third of the time of a long report.
fn callback_select(attempt_state: bool) -> Select {
    let state = if attempt_state { "r.state" } else { "NULL" };
    let select = Select::new(callback_columns(state), "callbacks c");
    let select = if attempt_state {
        select.join(
            "LEFT JOIN attempts r ON r.job_id = c.job_id AND r.attempt = c.replacement_attempt",
        )
    } else {
        select
    };
    select.join(
        "LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)",
    )
}

fn read_callback(conn: &Connection, seq: i64) -> rusqlite::Result<Option<CallbackRow>> {
    conn.prepare_cached(&callback_select(true).filter("c.seq = ?1").sql())?
        .query_row([seq], callback_from)
        .optional()
}

impl Ledger {
    /// One callback with its replacement attempt and standing answer.
    pub fn callback(&self, seq: i64) -> Result<Option<CallbackRow>> {
        self.run(|c| read_callback(c, seq))
    }

    /// The first `limit` callbacks of a job, in ingest order: a held report's
    /// neighbours, as the comparison pane sets them side by side.
    pub fn callbacks_of_job(&self, job_id: &str, limit: usize) -> Rows {
        let sql = callback_select(true)
            .filter("c.job_id = ?1")
            .order_by(&["c.seq"], "ASC")
            .limit(limit)
            .sql();
        self.all_rows(&sql, [job_id], callback_from)
    }

    /// One page of callbacks in ingest order.
    pub fn callbacks_page(&self, filter: &CallbackFilter, page: PageRequest<i64>) -> Rows {
        self.callbacks_page_of(callback_select(true), filter, page)
    }

    /// [`Ledger::callbacks_page`] for a report: the same rows, but a replacement
    /// attempt comes without its state (`Replacement::state` is `None`).
    pub fn callbacks_report_page(&self, filter: &CallbackFilter, page: PageRequest<i64>) -> Rows {
        self.callbacks_page_of(callback_select(false), filter, page)
    }

    fn callbacks_page_of(
        &self,
        select: Select,
        filter: &CallbackFilter,
        page: PageRequest<i64>,
    ) -> Rows {
        let review = filter.open
            || matches!(
                filter.disposition,
                Some(Disposition::Hold | Disposition::Quarantine)
            );
        let keyset = page.keyset;
        let backwards = keyset.backwards();
        // The first and last pages still name a bound: the plan stays a range read.
        let comparison = keyset
            .comparison()
            .unwrap_or(if backwards { "<" } else { ">" });
        let key = keyset
            .key()
            .copied()
            .unwrap_or(if backwards { i64::MAX } else { 0 });
        // A review list reads its own partial index, which holds every column shown.
        let select = if review {
            select.indexed_by("callbacks_review_list")
        } else {
            select
        };
        let sql = select
            .filter(format!("c.seq {comparison} ?1"))
            .filter_if(filter.disposition.is_some(), "c.disposition = ?2")
            .filter_if(
                review,
                "(c.disposition = 'hold' OR c.disposition = 'quarantine')",
            )
            .filter_if(filter.text.is_some(), text_match(3))
            .filter_if(filter.open, open_question())
            .order_by(&["c.seq"], keyset.direction())
            .limit(page.limit)
            .sql();
        let mut rows: Vec<CallbackRow> = self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let disposition = filter.disposition;
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

    /// Callbacks that pass `filter` (for tab counts under a filter, and open questions).
    pub fn count_callbacks(&self, filter: &CallbackFilter) -> Result<i64> {
        if filter.text.is_none() && !filter.open {
            let counts = self.disposition_counts()?;
            return Ok(filter.disposition.map_or(counts.total(), |d| counts.get(d)));
        }
        let select = Select::new("count(*)", "callbacks c");
        let select = if filter.open {
            select.join(
                "LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)",
            )
        } else {
            select
        };
        let sql = select
            .filter_if(filter.text.is_some(), text_match(1))
            .filter_if(filter.disposition.is_some(), "c.disposition = ?2")
            .filter_if(filter.open, open_question())
            .sql();
        self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let text = filter.text.as_deref();
            let disposition = filter.disposition;
            let mut params: Vec<(&str, &dyn rusqlite::ToSql)> = Vec::new();
            if filter.text.is_some() {
                params.push(("?1", &text));
            }
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
}

impl Writer<'_> {
    /// What earlier callbacks claimed about this job and attempt.
    pub fn claim_history(
        &self,
        job_id: &str,
        attempt: i64,
        outcome: Outcome,
    ) -> Result<ClaimHistory> {
        self.run(|c| {
            let mut history = ClaimHistory::default();
            // No ORDER BY: the index yields (outcome, seq) order, and sorting would
            // cost a temporary b-tree per callback; the minimum is taken below.
            let mut st = c.prepare_cached(
                "SELECT seq, outcome FROM callbacks
                 WHERE job_id = ?1 AND attempt = ?2 AND disposition <> 'quarantine'",
            )?;
            let mut rows = st.query(params![job_id, attempt])?;
            while let Some(row) = rows.next()? {
                let seq: i64 = row.get(0)?;
                // Read in place (`sql_values.rs`): no `String` per earlier claim.
                if row.get::<_, Outcome>(1)? == outcome {
                    history.first_same = Some(history.first_same.map_or(seq, |s| s.min(seq)));
                } else {
                    history.opposite = true;
                }
            }
            Ok(history)
        })
    }

    /// Keeps a judged callback; returns its sequence number.
    pub fn insert_callback(&mut self, cb: &NewCallback<'_>) -> Result<i64> {
        self.execute(
            "INSERT INTO callbacks (line_seq, delivery_id, job_id, attempt, outcome, arrived_at,
                    timeout_at, disposition, reason, detail, job_state_before, replacement_attempt,
                    first_report_seq, linked_from_seq, judged_at, replacement_created_by,
                    replacement_started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            params![
                cb.line_seq,
                cb.delivery_id,
                cb.job_id,
                cb.attempt,
                cb.outcome,
                cb.arrived_at,
                cb.timeout_at,
                cb.disposition,
                cb.reason,
                cb.detail,
                cb.job_state_before,
                cb.replacement_attempt,
                cb.first_report_seq,
                cb.linked_from_seq,
                cb.judged_at,
                cb.replacement_started.as_ref().map(|r| r.0.as_str()),
                cb.replacement_started.as_ref().map(|r| r.1)
            ],
        )?;
        self.counts.callback(cb.disposition);
        Ok(self.last_insert_rowid())
    }

    /// The callback with this sequence number.
    pub fn callback(&mut self, seq: i64) -> Result<Option<CallbackRow>> {
        // The row shows its replacement attempt, which may be kept behind.
        read_callback(self.flushed()?, seq).map_err(|e| self.err(e))
    }
}
