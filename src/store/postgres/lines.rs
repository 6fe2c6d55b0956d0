//! The input lines (every line of the stream, kept as it came) and the ledger's own
//! notes, on PostgreSQL.

mod rejected;

use std::collections::HashSet;

use super::ahead::Told;
use super::writer::time_text;
use super::{Ledger, Writer};
use crate::decision::Rejection;
use crate::store::{NewLine, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

impl Ledger {
    /// The raw bytes of an input line, exactly as they arrived (of a line over the
    /// limit, its first bytes).
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>> {
        Ok(self
            .row("SELECT raw FROM input_lines WHERE seq = $1", &[&line_seq])?
            .map(|row| row.get(0)))
    }

    /// The first `max_bytes` of an input line, and its whole length in bytes (of the
    /// line that came, even when only its first bytes are kept).
    pub fn raw_head(&self, line_seq: i64, max_bytes: usize) -> Result<Option<(Vec<u8>, i64)>> {
        let max = i32::try_from(max_bytes).unwrap_or(i32::MAX);
        Ok(self
            .row(
                "SELECT substring(raw FROM 1 FOR $2),
                        coalesce(whole_length, octet_length(raw)::bigint)
                   FROM input_lines WHERE seq = $1",
                &[&line_seq, &max],
            )?
            .map(|row| (row.get(0), row.get(1))))
    }

    /// Input lines kept so far.
    pub fn line_count(&self) -> Result<i64> {
        Ok(self
            .one("SELECT coalesce(max(seq), 0)::bigint FROM input_lines", &[])?
            .get(0))
    }

    /// Is every line in this ledger one of `known` (by SHA-256)? Stops at the first stranger.
    pub fn all_lines_among(&self, known: &HashSet<[u8; 32]>) -> Result<bool> {
        let st = self.statement("SELECT line_sha256 FROM input_lines")?;
        let mut client = self.client();
        let none: [&(dyn postgres::types::ToSql + Sync); 0] = [];
        let mut rows = client.query_raw(&st, none).map_err(|e| self.err(e))?;
        while let Some(row) = postgres::fallible_iterator::FallibleIterator::next(&mut rows)
            .map_err(|e| self.err(e))?
        {
            let sha: &[u8] = row.get(0);
            let Ok(sha) = <[u8; 32]>::try_from(sha) else {
                return Ok(false);
            };
            if !known.contains(&sha) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A note about the ledger itself.
    pub fn note(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .row("SELECT value FROM ledger_notes WHERE key = $1", &[&key])?
            .map(|row| row.get(0)))
    }
}

impl Writer<'_> {
    /// Keeps an input line unless a line with the same SHA-256 is already kept (found
    /// by `(time_key, line_sha256)`: `time_key` is a function of the bytes, see the
    /// migration). Returns its sequence number, or `None` when it was there before.
    ///
    /// One statement: the line is looked for (under the identity it had with a CR
    /// before its LF, when it ended so; and among the lines kept as their first bytes,
    /// when it is whole), and inserted only when absent, its number the next after the
    /// highest kept (`ahead.rs`: the writer holds the ingest turn), given back when it
    /// was there. A line another writer keeps meanwhile is met by the unique identity:
    /// nothing is inserted (`ON CONFLICT DO NOTHING`), and the line counts as kept
    /// before.
    ///
    /// A line told ahead (see `ahead.rs`) was looked for already, and is kept with the
    /// rows written together.
    pub fn insert_line_once(&mut self, line: &NewLine<'_>) -> Result<Option<i64>> {
        match self.keep_told_line(line)? {
            Told::Kept(seq) => return Ok(Some(seq)),
            Told::KeptBefore => return Ok(None),
            Told::No => {}
        }
        if self.is_my_line(line) {
            return Ok(None);
        }
        let whole_length = line
            .whole_length
            .map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        let with_cr: Option<&[u8]> = line.sha256_with_cr.map(|sha| &sha[..]);
        let seq = self.next_seq(true)?;
        let row = self.row_direct(
            "INSERT INTO input_lines (seq, line_sha256, raw, event, status, reason, ingested_at,
                    whole_length)
             SELECT $9::bigint, $1::bytea, $2::bytea, $3::text, $4::text, $5::text, $6::text,
                    $7::bigint
              WHERE NOT EXISTS (
                      SELECT 1 FROM input_lines
                       WHERE time_key = (CASE WHEN octet_length($2::bytea) > 0
                                THEN substring($2::bytea
                                     FROM position('\\x226174223a22'::bytea IN $2::bytea) + 6
                                     FOR 16) END)
                         AND line_sha256 = $1::bytea)
                AND ($8::bytea IS NULL OR NOT EXISTS (
                      SELECT 1 FROM input_lines
                       WHERE time_key = substring(($2::bytea || '\\x0d'::bytea)
                                FROM position('\\x226174223a22'::bytea IN ($2::bytea || '\\x0d'::bytea)) + 6
                                FOR 16)
                         AND line_sha256 = $8::bytea))
                AND ($7::bigint IS NOT NULL OR NOT EXISTS (
                      SELECT 1 FROM input_lines
                       WHERE whole_length IS NOT NULL AND line_sha256 = $1::bytea))
             ON CONFLICT (time_key, line_sha256) DO NOTHING
             RETURNING 1",
            &[
                &&line.sha256[..],
                &line.raw,
                &line.event,
                &line.status.as_str(),
                &line.reason,
                &time_text(line.ingested_at),
                &whole_length,
                &with_cr,
                &seq,
            ],
        )?;
        if row.is_none() {
            self.give_back_line_seq();
            return Ok(None);
        }
        self.note_kept_line(line);
        Ok(Some(seq))
    }

    /// Marks a kept line as a rejected event, with the reason (stored as `code: sentence`).
    pub fn reject_line(&mut self, seq: i64, reason: &Rejection) -> Result<()> {
        if self.reject_kept_line(seq, &reason.to_string()) {
            return Ok(());
        }
        self.execute_direct(
            "UPDATE input_lines SET status = 'rejected', reason = $2 WHERE seq = $1",
            &[&seq, &reason.to_string()],
        )?;
        Ok(())
    }

    /// The raw bytes of an input line.
    pub fn raw_line(&self, line_seq: i64) -> Result<Option<Vec<u8>>> {
        if let Some(raw) = self.kept_line_raw(line_seq) {
            return Ok(Some(raw));
        }
        Ok(self
            .row_direct("SELECT raw FROM input_lines WHERE seq = $1", &[&line_seq])?
            .map(|row| row.get(0)))
    }

    /// Writes a note about the ledger itself (replacing an earlier value).
    pub fn set_note(&mut self, key: &str, value: &str) -> Result<()> {
        self.execute_direct(
            "INSERT INTO ledger_notes (key, value) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&key, &value],
        )?;
        Ok(())
    }
}
