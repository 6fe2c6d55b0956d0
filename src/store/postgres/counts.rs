//! Counts kept, not counted: callbacks by disposition and jobs by state
//! (`ledger_counts`), the jobs each finding names (`reconcile_counts`), and the jobs
//! of each clock hour by state and by the two findings counted by hour
//! (`reconcile_hours`).
//!
//! A [`Writer`] notes what each write adds or moves ([`CountDeltas`]) and adds it to
//! those tables in the same transaction, at commit, with one statement a table, its
//! rows in key order: they are locked from then to the commit only, so writers at
//! once queue there briefly, never for a whole batch, and always take them in one
//! order.

use std::collections::BTreeMap;

use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{Disposition, JobState};
use crate::store::{DispositionCounts, Finding, StoreError};

/// The findings kept as rows of `reconcile_findings`, counted in `reconcile_counts`
/// (the first finding, no terminal record, is a job's state alone).
const KEPT_FINDINGS: [Finding; 4] = [
    Finding::MissingOutput,
    Finding::MissingNotification,
    Finding::DivergentDecisions,
    Finding::ConflictingSubmissions,
];

/// What a transaction has added to each count so far.
#[derive(Debug, Default)]
pub(super) struct CountDeltas {
    dispositions: [i64; Disposition::ALL.len()],
    states: [i64; JobState::ALL.len()],
    /// By finding, in [`KEPT_FINDINGS`] order.
    findings: [i64; KEPT_FINDINGS.len()],
    /// By the hour's start (its ledger text) and the count's name (`jobs.<state>`, or
    /// a finding counted by hour).
    hours: BTreeMap<(String, String), i64>,
}

/// The start of the clock hour of `at`, as the ledger writes times.
fn hour_of(at: Timestamp) -> String {
    let start = at.millis().div_euclid(3_600_000) * 3_600_000;
    Timestamp::from_millis(start).unwrap_or(at).to_ledger_text()
}

fn state_name(state: JobState) -> String {
    format!("jobs.{}", state.as_str())
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

    /// A job was accepted at `at`, in `state` (a job copied keeps the state it has).
    pub fn job(&mut self, at: Timestamp, state: JobState) {
        self.states[state_index(state)] += 1;
        self.add_hour(hour_of(at), state_name(state), 1);
    }

    /// A job accepted at `at` moved from one state to another.
    pub fn moved(&mut self, at: Timestamp, from: JobState, to: JobState) {
        self.states[state_index(from)] -= 1;
        self.states[state_index(to)] += 1;
        let hour = hour_of(at);
        self.add_hour(hour.clone(), state_name(from), -1);
        self.add_hour(hour, state_name(to), 1);
    }

    /// A job row copied as it is, accepted at `at` and in `state`: its hour counts it
    /// (the jobs by state come with the copied `ledger_counts`).
    pub fn copied_job(&mut self, at: Timestamp, state: JobState) {
        self.add_hour(hour_of(at), state_name(state), 1);
    }

    /// A finding came to name (`n` = 1) or stopped naming (-1) a job accepted in the
    /// hour starting at `hour` (its ledger text).
    pub fn finding(&mut self, finding: Finding, hour: String, n: i64) {
        if let Some(i) = KEPT_FINDINGS.iter().position(|f| *f == finding) {
            self.findings[i] += n;
        }
        if matches!(
            finding,
            Finding::DivergentDecisions | Finding::ConflictingSubmissions
        ) {
            self.add_hour(hour, finding.as_str().to_owned(), n);
        }
    }

    fn add_hour(&mut self, hour: String, name: String, n: i64) {
        *self.hours.entry((hour, name)).or_default() += n;
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
        if !deltas.is_empty() {
            let names: Vec<&str> = deltas.keys().map(String::as_str).collect();
            let ns: Vec<i64> = deltas.values().copied().collect();
            writer.execute_direct(
                "INSERT INTO ledger_counts (name, n)
                 SELECT name, n FROM unnest($1::text[], $2::bigint[]) AS d (name, n) ORDER BY name
                 ON CONFLICT (name) DO UPDATE SET n = ledger_counts.n + excluded.n",
                &[&names, &ns],
            )?;
        }
        let findings: BTreeMap<&str, i64> = KEPT_FINDINGS
            .iter()
            .map(|f| f.as_str())
            .zip(self.findings)
            .filter(|(_, delta)| *delta != 0)
            .collect();
        if !findings.is_empty() {
            let names: Vec<&str> = findings.keys().copied().collect();
            let ns: Vec<i64> = findings.values().copied().collect();
            writer.execute_direct(
                "INSERT INTO reconcile_counts (finding, n)
                 SELECT finding, n FROM unnest($1::text[], $2::bigint[]) AS d (finding, n)
                  ORDER BY finding
                 ON CONFLICT (finding) DO UPDATE SET n = reconcile_counts.n + excluded.n",
                &[&names, &ns],
            )?;
        }
        self.flush_hours(writer)
    }

    /// Adds the hours' deltas to `reconcile_hours`; a count brought to zero loses its
    /// row (a ledger that never counted it has none).
    fn flush_hours(&self, writer: &Writer<'_>) -> Result<(), StoreError> {
        let (mut hours, mut names, mut ns) = (Vec::new(), Vec::new(), Vec::new());
        for ((hour, name), n) in &self.hours {
            if *n != 0 {
                hours.push(hour.as_str());
                names.push(name.as_str());
                ns.push(*n);
            }
        }
        if hours.is_empty() {
            return Ok(());
        }
        let emptied = writer.rows_direct(
            "WITH added AS (
                 INSERT INTO reconcile_hours (hour, name, n)
                 SELECT hour, name, n FROM unnest($1::text[], $2::text[], $3::bigint[])
                                          AS d (hour, name, n)
                  ORDER BY hour, name
                 ON CONFLICT (hour, name) DO UPDATE SET n = reconcile_hours.n + excluded.n
                 RETURNING hour, name, n)
             SELECT hour, name FROM added WHERE n = 0",
            &[&hours, &names, &ns],
        )?;
        if emptied.is_empty() {
            return Ok(());
        }
        let hours: Vec<String> = emptied.iter().map(|row| row.get(0)).collect();
        let names: Vec<String> = emptied.iter().map(|row| row.get(1)).collect();
        writer.execute_direct(
            "DELETE FROM reconcile_hours h
              USING unnest($1::text[], $2::text[]) AS d (hour, name)
              WHERE h.hour = d.hour AND h.name = d.name AND h.n = 0",
            &[&hours, &names],
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
