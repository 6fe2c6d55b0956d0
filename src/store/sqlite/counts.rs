//! Counts kept, not counted: callbacks by disposition and jobs by state.
//!
//! A [`super::Writer`] notes what each write adds or moves ([`CountDeltas`]) and adds
//! it to the `ledger_counts` table in the same transaction, at commit. Reading a count
//! is then one small read, however large the ledger: the summary, the console's tabs
//! and the reconciliation all start from these.

use std::collections::BTreeMap;

use rusqlite::{Connection, params};

use super::{Ledger, StoreError};
use crate::decision::{Disposition, JobState};
use crate::store::DispositionCounts;

/// What a transaction has added to each count so far.
#[derive(Debug, Default)]
pub(super) struct CountDeltas {
    dispositions: [i64; Disposition::ALL.len()],
    states: [i64; JobState::ALL.len()],
}

fn disposition_index(d: Disposition) -> usize {
    Disposition::ALL.iter().position(|x| *x == d).unwrap_or(0)
}

fn state_index(s: JobState) -> usize {
    JobState::ALL.iter().position(|x| *x == s).unwrap_or(0)
}

impl CountDeltas {
    /// A callback was kept with this disposition.
    pub fn callback(&mut self, disposition: Disposition) {
        self.dispositions[disposition_index(disposition)] += 1;
    }

    /// A job was accepted.
    pub fn job(&mut self, state: JobState) {
        self.states[state_index(state)] += 1;
    }

    /// A job moved from one state to another.
    pub fn moved(&mut self, from: JobState, to: JobState) {
        self.states[state_index(from)] -= 1;
        self.states[state_index(to)] += 1;
    }

    /// Adds the deltas to `ledger_counts` (inside the writer's transaction).
    pub fn flush(&self, conn: &Connection) -> rusqlite::Result<()> {
        let names = Disposition::ALL
            .iter()
            .map(|d| format!("callbacks.{}", d.as_str()))
            .zip(self.dispositions)
            .chain(
                JobState::ALL
                    .iter()
                    .map(|s| format!("jobs.{}", s.as_str()))
                    .zip(self.states),
            );
        for (name, delta) in names.filter(|(_, delta)| *delta != 0) {
            conn.prepare_cached(
                "INSERT INTO ledger_counts (name, n) VALUES (?1, ?2)
                 ON CONFLICT (name) DO UPDATE SET n = n + excluded.n",
            )?
            .execute(params![name, delta])?;
        }
        Ok(())
    }
}

/// Every kept count recounted from its table's own b-tree (`NOT INDEXED`: an index may
/// be whole where the table is not), as rows of (name, n): what `check` compares the
/// kept counts with, and what a salvage keeps for the rows it saved.
pub(super) const RECOUNT: &str =
    "SELECT 'callbacks.' || disposition AS name, count(*) AS n FROM callbacks NOT INDEXED GROUP BY 1
     UNION ALL
     SELECT 'jobs.' || state, count(*) FROM jobs NOT INDEXED GROUP BY 1";

/// Every kept count by name (`callbacks.<disposition>`, `jobs.<state>`).
pub(super) fn kept_counts(conn: &Connection) -> rusqlite::Result<BTreeMap<String, i64>> {
    conn.prepare_cached("SELECT name, n FROM ledger_counts")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect()
}

/// Callbacks counted by disposition, as kept (as of the last commit).
pub(super) fn disposition_counts(conn: &Connection) -> rusqlite::Result<DispositionCounts> {
    let kept = kept_counts(conn)?;
    let get = |d: Disposition| {
        kept.get(&format!("callbacks.{}", d.as_str()))
            .copied()
            .unwrap_or(0)
    };
    Ok(DispositionCounts {
        applied: get(Disposition::Apply),
        held: get(Disposition::Hold),
        recorded: get(Disposition::Record),
        quarantined: get(Disposition::Quarantine),
    })
}

impl Ledger {
    fn kept_counts(&self) -> Result<BTreeMap<String, i64>, StoreError> {
        kept_counts(&self.conn).map_err(|e| self.err(e))
    }

    /// Callbacks counted by disposition (kept counts: one small read).
    pub fn disposition_counts(&self) -> Result<DispositionCounts, StoreError> {
        disposition_counts(&self.conn).map_err(|e| self.err(e))
    }

    /// Jobs counted by state, every state present (kept counts: one small read).
    pub fn job_state_counts(&self) -> Result<BTreeMap<JobState, i64>, StoreError> {
        let kept = self.kept_counts()?;
        Ok(JobState::ALL
            .into_iter()
            .map(|s| {
                let n = kept.get(&format!("jobs.{}", s.as_str())).copied();
                (s, n.unwrap_or(0))
            })
            .collect())
    }

    /// Accepted jobs (kept counts).
    pub fn job_count(&self) -> Result<i64, StoreError> {
        Ok(self.job_state_counts()?.values().sum())
    }
}
