//! Rejected lines on PostgreSQL: the list, its pages and counts (the SQLite engine's
//! in `lines.rs`).
//!
//! A bare word is looked for in the line itself too, and SQLite reads the line's
//! bytes as text whatever they are (`CAST(raw AS TEXT)`, invalid UTF-8 and NUL bytes
//! included, folded as `String::from_utf8_lossy` reads them). PostgreSQL's text cannot
//! hold such bytes (`convert_from` refuses them), so a query with a bare word is
//! judged here, in Rust, row by row in list order, exactly as SQLite's function
//! judges it; every other query is a condition in SQL. Rejected lines are few beside
//! the stream (a line the ingest could not use), and only such a query reads them so.

use postgres::Row;

use crate::clock::Timestamp;
use crate::filter::{Field, Query, Test, Value, lowered};
use crate::store::postgres::Ledger;
use crate::store::postgres::columns::{REJECTED_COLUMNS, Read, rejected_from, time};
use crate::store::postgres::filter::{Column, Columns, Params, condition};
use crate::store::postgres::keyset::{backwards, comparison, direction, key};
use crate::store::postgres::query::Select;
use crate::store::{Keyset, PageRequest, RejectedLine, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

/// The query fields of the rejected lines when no bare word is asked for (a bare word
/// is looked for in the reason, the event kind and the line: see [`kept`]).
const REJECTED_FIELDS: Columns = Columns {
    field: rejected_field,
    words: &[],
    text_index: None,
};

fn rejected_field(field: Field) -> Option<Column> {
    match field {
        Field::Reason => Some(Column::Text("reason")),
        Field::Age => Some(Column::AgeOf("ingested_at")),
        _ => None,
    }
}

/// The rejected lines.
fn rejected(columns: &'static str) -> Select {
    Select::new(columns, "input_lines").filter("status = 'rejected'")
}

/// Does `query` look for a bare word (in the line's bytes)?
fn has_words(query: &Query) -> bool {
    query
        .terms()
        .iter()
        .any(|term| matches!(term.test, Test::Words(_)))
}

/// Rows read at a time when a query is judged here.
const BATCH: usize = 500;

/// A rejected line with what a query reads of it.
struct Candidate {
    line: RejectedLine,
    reason: Option<String>,
    ingested_at: String,
    raw: Vec<u8>,
}

fn candidate_from(row: &Row) -> Read<Candidate> {
    Ok(Candidate {
        line: rejected_from(row)?,
        reason: row.try_get(2)?,
        ingested_at: {
            time(row, 3)?;
            row.try_get(3)?
        },
        raw: row.try_get(4)?,
    })
}

/// Whether `query` keeps `line`, as SQLite's statement decides: each term
/// `coalesce(test, 0)` (NOT of it when negated), a NULL test keeping nothing.
fn kept(query: &Query, line: &Candidate, now: Timestamp) -> bool {
    query.terms().iter().all(|term| {
        let holds = test(&term.test, line, now).unwrap_or(false);
        holds != term.negated
    })
}

/// A term's test on one line: `None` where SQL gives NULL.
fn test(test: &Test, line: &Candidate, now: Timestamp) -> Option<bool> {
    match test {
        Test::Words(text) => {
            let needle = lowered(text);
            let event = line.line.event.as_deref();
            let tests = [
                line.reason
                    .as_deref()
                    .map(|r| contains_lowered(r.as_bytes(), &needle)),
                event.map(|e| contains_lowered(e.as_bytes(), &needle)),
                Some(contains_lowered(&line.raw, &needle)),
            ];
            // SQL's OR: true if any is, else NULL if any is NULL.
            if tests.contains(&Some(true)) {
                Some(true)
            } else if tests.contains(&None) {
                None
            } else {
                Some(false)
            }
        }
        Test::Is(Field::Reason, Value::Text(text)) => line
            .reason
            .as_deref()
            .map(|r| contains_lowered(r.as_bytes(), &lowered(text))),
        Test::Is(Field::Reason, Value::Nothing) => Some(line.reason.is_none()),
        Test::Compare(Field::Age, op, crate::filter::Bound::Seconds(s)) => {
            let start = now.plus_seconds(s.saturating_neg()).to_ledger_text();
            let at = line.ingested_at.as_str();
            Some(match op.flipped() {
                crate::filter::Comparison::Less => at < start.as_str(),
                crate::filter::Comparison::LessOrEqual => at <= start.as_str(),
                crate::filter::Comparison::Greater => at > start.as_str(),
                crate::filter::Comparison::GreaterOrEqual => at >= start.as_str(),
            })
        }
        _ => Some(false),
    }
}

/// Whether `haystack`, lowered, contains `needle` (lowered already): the SQLite
/// engine's `jobledger_contains_lowered`, bytes read as it reads them.
fn contains_lowered(haystack: &[u8], needle: &str) -> bool {
    let needle = needle.as_bytes();
    if needle.is_empty() {
        return true;
    }
    if haystack.is_ascii() {
        return needle.is_ascii()
            && haystack.windows(needle.len()).any(|w| {
                w.iter()
                    .zip(needle)
                    .all(|(h, n)| h.to_ascii_lowercase() == *n)
            });
    }
    let haystack = lowered(&String::from_utf8_lossy(haystack));
    let needle = String::from_utf8_lossy(needle);
    haystack.contains(needle.as_ref())
}

impl Ledger {
    /// Input lines kept as rejected events.
    pub fn rejected_count(&self) -> Result<i64> {
        let row = self.one(
            "SELECT count(*) FROM input_lines WHERE status = 'rejected'",
            &[],
        )?;
        Ok(row.get(0))
    }

    /// The first rejected lines, oldest first.
    pub fn rejected_lines(&self, limit: usize) -> Result<Vec<RejectedLine>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.rows(
            "SELECT seq, event, reason, ingested_at FROM input_lines
              WHERE status = 'rejected' ORDER BY seq LIMIT $1",
            &[&limit],
        )?;
        rows.iter()
            .map(|row| rejected_from(row).map_err(|e| self.err(e)))
            .collect()
    }

    /// The rejected line kept as input line `seq`, if that line was rejected.
    pub fn rejected_line(&self, seq: i64) -> Result<Option<RejectedLine>> {
        let row = self.row(
            "SELECT seq, event, reason, ingested_at FROM input_lines
              WHERE seq = $1 AND status = 'rejected'",
            &[&seq],
        )?;
        row.map(|row| rejected_from(&row).map_err(|e| self.err(e)))
            .transpose()
    }

    /// One page of the rejected lines in ledger order, kept when `query` keeps them
    /// (ages at `now`).
    pub fn rejected_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<i64>,
    ) -> Result<Vec<RejectedLine>> {
        if has_words(query) {
            return self.rejected_judged(now, query, page.keyset, page.limit);
        }
        let mut params = Params::new();
        let query = condition(query, &REJECTED_FIELDS, Some(now), &mut params);
        self.seq_page(
            rejected(REJECTED_COLUMNS),
            "seq",
            query,
            params,
            page,
            rejected_from,
        )
    }

    /// Rejected lines that `query` keeps (ages at `now`).
    pub fn rejected_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64> {
        if has_words(query) {
            let kept = self.rejected_judged(now, query, Keyset::First, usize::MAX)?;
            return Ok(i64::try_from(kept.len()).unwrap_or(i64::MAX));
        }
        let mut params = Params::new();
        let query = condition(query, &REJECTED_FIELDS, Some(now), &mut params);
        self.count_matching(rejected("count(*)"), query, &params)
    }

    /// Up to `limit` rejected lines from `keyset` on that `query` keeps, judged here,
    /// read a batch at a time in list order; in ledger order.
    fn rejected_judged(
        &self,
        now: Timestamp,
        query: &Query,
        keyset: Keyset<i64>,
        limit: usize,
    ) -> Result<Vec<RejectedLine>> {
        let mut keyset = keyset;
        let mut kept = Vec::new();
        while kept.len() < limit {
            let mut params = Params::new();
            let select = rejected("seq, event, reason, ingested_at, raw");
            let select = match (comparison(&keyset), key(&keyset)) {
                (Some(op), Some(k)) => {
                    let k = params.bind(*k);
                    select.filter(format!("seq {op} {k}::bigint"))
                }
                _ => select,
            };
            let sql = select
                .order_by(&["seq"], direction(&keyset))
                .limit(BATCH)
                .sql();
            let batch = self.read_rows(&sql, &params.refs(), candidate_from)?;
            let Some(last) = batch.last().map(|c| c.line.seq) else {
                break;
            };
            let full = batch.len() == BATCH;
            for line in batch {
                if kept.len() < limit && self::kept(query, &line, now) {
                    kept.push(line.line);
                }
            }
            if !full {
                break;
            }
            keyset = if backwards(&keyset) {
                Keyset::Before(last)
            } else {
                Keyset::After(last)
            };
        }
        if backwards(&keyset) {
            kept.reverse();
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::contains_lowered;
    use crate::filter::lowered;

    #[test]
    fn a_lines_bytes_are_matched_as_sqlite_reads_them() {
        let holds = |haystack: &[u8], needle: &str| contains_lowered(haystack, &lowered(needle));
        assert!(holds("Job-ÜBER-1".as_bytes(), "über"));
        assert!(holds("\u{212A}ELVIN".as_bytes(), "kel"));
        assert!(holds(b"{\"job\":\"A\xffB\"}", "a\u{fffd}b"));
        assert!(holds(b"x\0JOB-1", "job-1"));
        assert!(!holds(b"uber", "über"));
        assert!(holds(b"x", ""));
    }
}
