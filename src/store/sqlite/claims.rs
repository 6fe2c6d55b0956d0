//! Claims in a ledger file: appended, the latest row of each callback read.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::store::ClaimRow;

type Result<T> = std::result::Result<T, StoreError>;

/// The latest row of each callback in `?1` (a JSON array of numbers), when it is a
/// claim (a release ends it).
const LATEST_OF: &str = "SELECT k.callback_seq, k.reviewer, k.at, k.until, k.written_by
       FROM claims k
      WHERE k.id IN (SELECT max(id) FROM claims
                      WHERE callback_seq IN (SELECT value FROM json_each(?1))
                      GROUP BY callback_seq)
        AND k.action = 'claim'
      ORDER BY k.callback_seq";

fn claim_from(row: &rusqlite::Row<'_>) -> rusqlite::Result<ClaimRow> {
    Ok(ClaimRow {
        callback_seq: row.get(0)?,
        reviewer: row.get(1)?,
        since: row.get(2)?,
        until: row.get(3)?,
        written_by: row.get(4)?,
    })
}

fn latest_of(c: &Connection, seqs: &[i64]) -> rusqlite::Result<Vec<ClaimRow>> {
    let list = serde_json::to_string(seqs).unwrap_or_else(|_| "[]".to_owned());
    let mut st = c.prepare_cached(LATEST_OF)?;
    st.query_map(params![list], claim_from)?.collect()
}

impl Ledger {
    /// The latest claim on each of `seqs` that has not been released (whether it still
    /// stands depends on the time and the answers: [`ClaimRow::stands`]).
    pub fn latest_claims(&self, seqs: &[i64]) -> Result<Vec<ClaimRow>> {
        self.run(|c| latest_of(c, seqs))
    }
}

impl Writer<'_> {
    /// [`Ledger::latest_claims`], as this transaction sees them.
    pub fn latest_claims(&self, seqs: &[i64]) -> Result<Vec<ClaimRow>> {
        self.run(|c| latest_of(c, seqs))
    }

    /// The latest unreleased claim on callback `seq`, as this transaction sees it.
    pub fn latest_claim(&self, seq: i64) -> Result<Option<ClaimRow>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT callback_seq, reviewer, at, until, written_by FROM claims
                  WHERE callback_seq = ?1 AND action = 'claim'
                    AND id = (SELECT max(id) FROM claims WHERE callback_seq = ?1)",
            )?
            .query_row(params![seq], claim_from)
            .optional()
        })
    }

    /// Appends a claim on callback `seq` by `reviewer` at `at`, lasting `until`; with
    /// `until` `None`, a release.
    pub fn insert_claim(
        &mut self,
        seq: i64,
        reviewer: &str,
        at: Timestamp,
        until: Option<Timestamp>,
    ) -> Result<()> {
        let action = if until.is_some() { "claim" } else { "release" };
        self.execute(
            "INSERT INTO claims (callback_seq, action, reviewer, at, until)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            params![seq, action, reviewer, at, until],
        )?;
        Ok(())
    }
}
