//! The input lines (every line of the stream, kept as it came) and the ledger's own
//! notes.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::filter::{Column, Columns, condition};
use super::query::Select;
use super::{Ledger, StoreError, Writer};
use crate::store::PageRequest;
use crate::store::{NewLine, RejectedLine};

use crate::clock::Timestamp;
use crate::decision::Rejection;
use crate::filter::{Field, Query};

type Result<T> = std::result::Result<T, StoreError>;

/// The columns of [`RejectedLine`].
const REJECTED_COLUMNS: &str = "seq, event, reason, ingested_at";

/// The query fields of the rejected lines: a bare word is looked for in the reason,
/// the event kind and the line itself (where the job id is).
const REJECTED_FIELDS: Columns = Columns {
    field: rejected_field,
    words: &["reason", "event", "CAST(raw AS TEXT)"],
    text_index: None,
};

fn rejected_field(field: Field) -> Option<Column> {
    match field {
        Field::Reason => Some(Column::Text("reason")),
        Field::Age => Some(Column::AgeOf("ingested_at")),
        _ => None,
    }
}

/// The rejected lines, read along their own partial index.
fn rejected(columns: &'static str) -> Select {
    Select::new(columns, "input_lines")
        .indexed_by("input_lines_rejected")
        .filter("status = 'rejected'")
}

fn rejected_from(row: &Row<'_>) -> rusqlite::Result<RejectedLine> {
    let Rejection { code, sentence } =
        Rejection::read(&row.get::<_, Option<String>>(2)?.unwrap_or_default());
    Ok(RejectedLine {
        seq: row.get(0)?,
        event: row.get(1)?,
        code,
        reason: sentence,
        ingested_at: row.get(3)?,
    })
}

fn raw_line(conn: &Connection, line_seq: i64) -> rusqlite::Result<Option<Vec<u8>>> {
    conn.prepare_cached("SELECT raw FROM input_lines WHERE seq = ?1")?
        .query_row([line_seq], |row| row.get(0))
        .optional()
}

impl Ledger {
    /// The raw bytes of an input line, exactly as they arrived (of a line over the
    /// limit, its first bytes: see `whole_length` in migration 008).
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>> {
        self.run(|c| raw_line(c, line_seq))
    }

    /// The first `max_bytes` of an input line, and its whole length in bytes (of the
    /// line that came, even when only its first bytes are kept).
    pub fn raw_head(&self, line_seq: i64, max_bytes: usize) -> Result<Option<(Vec<u8>, i64)>> {
        let max = i64::try_from(max_bytes).unwrap_or(i64::MAX);
        self.run(|c| {
            c.prepare_cached(
                "SELECT substr(raw, 1, ?2), coalesce(whole_length, length(raw)) FROM input_lines WHERE seq = ?1",
            )?
            .query_row(params![line_seq, max], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()
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
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], rejected_from)?
            .collect()
        })
    }

    /// The rejected line kept as input line `seq`, if that line was rejected.
    pub fn rejected_line(&self, seq: i64) -> Result<Option<RejectedLine>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT seq, event, reason, ingested_at FROM input_lines
                 WHERE seq = ?1 AND status = 'rejected'",
            )?
            .query_row([seq], rejected_from)
            .optional()
        })
    }

    /// One page of the rejected lines in ledger order, kept when `query` keeps them
    /// (ages at `now`).
    pub fn rejected_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<i64>,
    ) -> Result<Vec<RejectedLine>> {
        let query = condition(query, &REJECTED_FIELDS, Some(now));
        self.seq_page(
            rejected(REJECTED_COLUMNS),
            "seq",
            &query,
            page,
            rejected_from,
        )
    }

    /// Rejected lines that `query` keeps (ages at `now`).
    pub fn rejected_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64> {
        let query = condition(query, &REJECTED_FIELDS, Some(now));
        self.count_matching(rejected("count(*)"), &query)
    }

    /// Input lines kept so far.
    pub fn line_count(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT coalesce(max(seq), 0) FROM input_lines")?
                .query_row([], |row| row.get(0))
        })
    }

    /// Is every line in this ledger one of `known` (by SHA-256)? Stops at the first stranger.
    pub fn all_lines_among(&self, known: &HashSet<[u8; 32]>) -> Result<bool> {
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

    /// A note about the ledger itself.
    pub fn note(&self, key: &str) -> Result<Option<String>> {
        self.run(|c| {
            c.prepare_cached("SELECT value FROM ledger_notes WHERE key = ?1")?
                .query_row([key], |row| row.get(0))
                .optional()
        })
    }
}

impl Writer<'_> {
    /// Keeps an input line unless a line with the same SHA-256 is already kept (found
    /// by `(time_key, line_sha256)`: `time_key` is a function of the bytes, see
    /// migration 005).
    /// Returns its sequence number, or `None` when it was there before.
    pub fn insert_line_once(&mut self, line: &NewLine<'_>) -> Result<Option<i64>> {
        if let Some(with_cr) = line.sha256_with_cr {
            // Found by the identity it had with its CR (the same time key: the CR is
            // the last byte, past the 16 after "at":", but for a line shorter than that).
            let mut raw_with_cr = line.raw.to_vec();
            raw_with_cr.push(b'\r');
            let kept_before: bool = self.run(|c| {
                c.prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM input_lines
                      WHERE time_key = substr(?1, instr(?1, X'226174223A22') + 6, 16)
                        AND line_sha256 = ?2)",
                )?
                .query_row(params![raw_with_cr, &with_cr[..]], |row| row.get(0))
            })?;
            if kept_before {
                return Ok(None);
            }
        }
        if line.whole_length.is_none() && self.kept_as_first_bytes(line.sha256)? {
            return Ok(None);
        }
        let inserted = self.execute(
            "INSERT INTO input_lines (line_sha256, raw, event, status, reason, ingested_at, whole_length)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (time_key, line_sha256) DO NOTHING",
            params![
                &line.sha256[..],
                line.raw,
                line.event,
                line.status,
                line.reason,
                line.ingested_at,
                line.whole_length.map(|n| i64::try_from(n).unwrap_or(i64::MAX))
            ],
        )?;
        if inserted == 1 && line.whole_length.is_some() {
            self.keeps_oversized = Some(true);
        }
        Ok((inserted == 1).then(|| self.last_insert_rowid()))
    }

    /// Is this line, read whole, kept already as its first bytes (it was over the limit
    /// of an earlier ingest)? Its time key was taken from those bytes, which may not
    /// reach its `"at"`, so the unique index may not find it. Lines kept so are few and
    /// indexed apart (migration 008); a ledger with none is asked once a transaction.
    fn kept_as_first_bytes(&mut self, sha256: &[u8; 32]) -> Result<bool> {
        let keeps = if let Some(keeps) = self.keeps_oversized {
            keeps
        } else {
            let keeps = self.run(|c| {
                c.prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM input_lines WHERE whole_length IS NOT NULL)",
                )?
                .query_row([], |row| row.get(0))
            })?;
            self.keeps_oversized = Some(keeps);
            keeps
        };
        if !keeps {
            return Ok(false);
        }
        self.run(|c| {
            c.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM input_lines
                  WHERE whole_length IS NOT NULL AND line_sha256 = ?1)",
            )?
            .query_row([&sha256[..]], |row| row.get(0))
        })
    }

    /// Marks a kept line as a rejected event, with the reason (stored as `code: sentence`).
    pub fn reject_line(&mut self, seq: i64, reason: &Rejection) -> Result<()> {
        self.execute(
            "UPDATE input_lines SET status = 'rejected', reason = ?2 WHERE seq = ?1",
            params![seq, reason.to_string()],
        )?;
        Ok(())
    }

    /// The raw bytes of an input line.
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>> {
        self.run(|c| raw_line(c, line_seq))
    }

    /// Writes a note about the ledger itself (replacing an earlier value).
    pub fn set_note(&mut self, key: &str, value: &str) -> Result<()> {
        self.execute(
            "INSERT INTO ledger_notes (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }
}
