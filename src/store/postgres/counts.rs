//! Counts kept, not counted: callbacks by disposition and jobs by state.
//!
//! A [`Writer`] notes what each write adds or moves ([`CountDeltas`]) and adds it to
//! the `ledger_counts` table in the same transaction, at commit, with one statement:
//! its rows are locked from then to the commit only, so writers at once queue there
//! briefly, never for a whole batch.

use std::collections::BTreeMap;

use super::{Ledger, Writer};
use crate::decision::{Disposition, JobState};
use crate::store::{DispositionCounts, StoreError};

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

    /// Adds the deltas to `ledger_counts` (inside the writer's transaction), in one
    /// statement, the rows in name order (writers at once lock them in one order).
    pub fn flush(&self, writer: &Writer<'_>) -> Result<(), StoreError> {
        let deltas: BTreeMap<String, i64> = Disposition::ALL
            .iter()
            .map(|d| format!("callbacks.{}", d.as_str()))
            .zip(self.dispositions)
            .chain(
                JobState::ALL
                    .iter()
                    .map(|s| format!("jobs.{}", s.as_str()))
                    .zip(self.states),
            )
            .filter(|(_, delta)| *delta != 0)
            .collect();
        if deltas.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = deltas.keys().map(String::as_str).collect();
        let ns: Vec<i64> = deltas.values().copied().collect();
        writer.execute_direct(
            "INSERT INTO ledger_counts (name, n)
             SELECT name, n FROM unnest($1::text[], $2::bigint[]) AS d (name, n) ORDER BY name
             ON CONFLICT (name) DO UPDATE SET n = ledger_counts.n + excluded.n",
            &[&names, &ns],
        )?;
        Ok(())
    }
}

impl Ledger {
    /// Every kept count by name (`callbacks.<disposition>`, `jobs.<state>`).
    fn kept_counts(&self) -> Result<BTreeMap<String, i64>, StoreError> {
        Ok(self
            .rows("SELECT name, n FROM ledger_counts", &[])?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect())
    }

    /// Callbacks counted by disposition (kept counts: one small read).
    pub fn disposition_counts(&self) -> Result<DispositionCounts, StoreError> {
        let kept = self.kept_counts()?;
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

    /// Jobs counted by state, every state present (kept counts: one small read).
    pub fn job_state_counts(&self) -> Result<BTreeMap<JobState, i64>, StoreError> {
        let kept = self.kept_counts()?;
        Ok(JobState::ALL
            .iter()
            .map(|s| {
                let n = kept.get(&format!("jobs.{}", s.as_str())).copied();
                (*s, n.unwrap_or(0))
            })
            .collect())
    }

    /// Accepted jobs (kept counts).
    pub fn job_count(&self) -> Result<i64, StoreError> {
        Ok(self.job_state_counts()?.values().sum())
    }
}
