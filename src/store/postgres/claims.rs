//! Claims on PostgreSQL: the SQLite engine's statements (`sqlite/claims.rs`). Two
//! reviewers claiming one case at once take turns on a lock of the case's claims, so
//! the second reads the first's claim before writing.

use postgres::Row;

use super::answers::{lock_key, time_at, value_at};
use super::writer::time_text;
use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::store::{ClaimRow, Location, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

const LATEST_OF: &str = "SELECT k.callback_seq, k.reviewer, k.at, k.until, k.written_by
       FROM claims k
      WHERE k.id IN (SELECT max(id) FROM claims
                      WHERE callback_seq = ANY($1)
                      GROUP BY callback_seq)
        AND k.action = 'claim'
      ORDER BY k.callback_seq";

const LATEST: &str = "SELECT callback_seq, reviewer, at, until, written_by FROM claims
      WHERE callback_seq = $1 AND action = 'claim'
        AND id = (SELECT max(id) FROM claims WHERE callback_seq = $1)";

fn claim_from(location: &Location, row: &Row) -> Result<ClaimRow> {
    Ok(ClaimRow {
        callback_seq: value_at(location, row, 0)?,
        reviewer: value_at(location, row, 1)?,
        since: time_at(location, row, 2)?,
        until: time_at(location, row, 3)?,
        written_by: value_at(location, row, 4)?,
    })
}

impl Ledger {
    /// The latest claim on each of `seqs` that has not been released.
    pub fn latest_claims(&self, seqs: &[i64]) -> Result<Vec<ClaimRow>> {
        self.rows(LATEST_OF, &[&seqs])?
            .iter()
            .map(|row| claim_from(self.location(), row))
            .collect()
    }
}

impl Writer<'_> {
    /// [`Ledger::latest_claims`], as this transaction sees them (no lock taken: a
    /// claim made meanwhile is ended by the answers this transaction writes).
    pub fn latest_claims(&self, seqs: &[i64]) -> Result<Vec<ClaimRow>> {
        self.rows(LATEST_OF, &[&seqs])?
            .iter()
            .map(|row| claim_from(self.location(), row))
            .collect()
    }

    /// The latest unreleased claim on callback `seq`, read after taking the case's
    /// lock for claims (held to the end of the transaction).
    pub fn latest_claim(&self, seq: i64) -> Result<Option<ClaimRow>> {
        lock_key(self, "claims", &seq.to_string())?;
        self.row(LATEST, &[&seq])?
            .map(|row| claim_from(self.location(), &row))
            .transpose()
    }

    /// Appends a claim on callback `seq` (with `until` `None`, a release).
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
                 VALUES ($1, $2, $3, $4, $5)",
            &[
                &seq,
                &action,
                &reviewer,
                &time_text(at),
                &until.map(time_text),
            ],
        )?;
        Ok(())
    }
}
