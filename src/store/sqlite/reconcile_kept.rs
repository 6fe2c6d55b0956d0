//! The reconciliation's glance as the ledger keeps it: the jobs each finding names and
//! their counts, and the jobs of each clock hour by state (schema 19). Each read is a
//! range read: the console's first screen costs the same at a million jobs as at a
//! thousand.
//!
//! A [`super::Writer`] notes the jobs a transaction touches ([`ReconcileDeltas`]) and,
//! at commit, judges each once more by [`Finding::holds`], the rule of the walk over
//! every job: a job's findings are rows added or removed, their counts and the
//! hours' counts are added to. A job whose every event comes in one transaction is
//! judged once, at its end.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, params};

use super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::store::{Finding, FindingKept, HourKept, JobAccount};

type Result<T> = std::result::Result<T, StoreError>;

/// The findings kept as rows (the first, no terminal record, is a job's state alone).
const KEPT: [Finding; 4] = [
    Finding::MissingOutput,
    Finding::MissingNotification,
    Finding::DivergentDecisions,
    Finding::ConflictingSubmissions,
];

/// The name of a `reconcile_hours` count by its place: each state's (`jobs.<state>`),
/// then the two findings counted by hour.
fn hour_name(i: usize) -> String {
    match JobState::ALL.get(i) {
        Some(state) => format!("jobs.{}", state.as_str()),
        None if i == JobState::ALL.len() => Finding::DivergentDecisions.as_str().to_owned(),
        None => Finding::ConflictingSubmissions.as_str().to_owned(),
    }
}

fn state_name(state: JobState) -> usize {
    JobState::ALL.iter().position(|s| *s == state).unwrap_or(0)
}

/// What a transaction changed that the reconciliation keeps, written at commit.
#[derive(Debug, Default)]
pub(super) struct ReconcileDeltas {
    /// Jobs whose findings may have changed, judged again at commit: whether each was
    /// accepted in this transaction (then no finding can name it yet).
    touched: BTreeMap<String, bool>,
    /// What to add to each count of `reconcile_hours`, by the hour's start (in
    /// milliseconds) and the count's place in [`hour_name`].
    hours: BTreeMap<(i64, usize), i64>,
}

impl ReconcileDeltas {
    /// A job was accepted at `at`.
    pub fn accepted(&mut self, job_id: &str, at: Timestamp) {
        self.add_hour(at, state_name(JobState::Accepted), 1);
        self.touched.insert(job_id.to_owned(), true);
    }

    /// A job accepted at `at` moved from one state to another.
    pub fn moved(&mut self, job_id: &str, at: Timestamp, from: JobState, to: JobState) {
        self.add_hour(at, state_name(from), -1);
        self.add_hour(at, state_name(to), 1);
        self.touched(job_id);
    }

    /// Something that may decide a job's findings was written (an output, a check, a
    /// notification, a decision, a resubmission).
    pub fn touched(&mut self, job_id: &str) {
        if !self.touched.contains_key(job_id) {
            self.touched.insert(job_id.to_owned(), false);
        }
    }

    /// A job row copied as it is (its state, accepted at `at`): as a job accepted.
    pub fn copied(&mut self, job_id: &str, at: Timestamp, state: JobState) {
        self.add_hour(at, state_name(state), 1);
        self.touched.insert(job_id.to_owned(), true);
    }

    fn add_hour(&mut self, at: Timestamp, name: usize, n: i64) {
        let start = at.millis().div_euclid(3_600_000) * 3_600_000;
        *self.hours.entry((start, name)).or_default() += n;
    }

    /// Judges every job touched and writes what changed (inside the writer's
    /// transaction, with every row kept behind already written).
    pub fn flush(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let mut counts = [0i64; KEPT.len()];
        let mut judge = conn.prepare_cached(JUDGE)?;
        for (job_id, fresh) in std::mem::take(&mut self.touched) {
            let Some(judged) = judge
                .query_row(params![job_id, fresh], |row| {
                    let mut kept = [false; KEPT.len()];
                    for (i, k) in kept.iter_mut().enumerate() {
                        *k = row.get(6 + i)?;
                    }
                    Ok((
                        JobAccount {
                            job_id: "",
                            state: row.get(0)?,
                            accepted_at: row.get(1)?,
                            notified: row.get(2)?,
                            output_exists: row.get(3)?,
                            divergent_decisions: row.get(4)?,
                            conflicting_submission: row.get(5)?,
                            open: None,
                        },
                        kept,
                    ))
                })
                .optional()?
            else {
                continue;
            };
            let (job, kept) = judged;
            for (i, finding) in KEPT.iter().enumerate() {
                let delta = match (finding.holds(&job), kept[i]) {
                    (true, false) => {
                        conn.prepare_cached(
                            "INSERT INTO reconcile_findings (finding, job_id) VALUES (?1, ?2)",
                        )?
                        .execute(params![finding.as_str(), job_id])?;
                        1
                    }
                    (false, true) => {
                        conn.prepare_cached(
                            "DELETE FROM reconcile_findings WHERE finding = ?1 AND job_id = ?2",
                        )?
                        .execute(params![finding.as_str(), job_id])?;
                        -1
                    }
                    _ => continue,
                };
                counts[i] += delta;
                match finding {
                    Finding::DivergentDecisions => {
                        self.add_hour(job.accepted_at, JobState::ALL.len(), delta);
                    }
                    Finding::ConflictingSubmissions => {
                        self.add_hour(job.accepted_at, JobState::ALL.len() + 1, delta);
                    }
                    _ => {}
                }
            }
        }
        for (finding, n) in KEPT.iter().zip(counts).filter(|(_, n)| *n != 0) {
            conn.prepare_cached("UPDATE reconcile_counts SET n = n + ?2 WHERE finding = ?1")?
                .execute(params![finding.as_str(), n])?;
        }
        for ((start, name), n) in std::mem::take(&mut self.hours) {
            let Some(hour) = Timestamp::from_millis(start).filter(|_| n != 0) else {
                continue;
            };
            conn.prepare_cached(
                "INSERT INTO reconcile_hours (hour, name, n) VALUES (?1, ?2, ?3)
                 ON CONFLICT (hour, name) DO UPDATE SET n = n + excluded.n",
            )?
            .execute(params![hour, hour_name(name), n])?;
            // An hour's count back to nothing is no row, as a ledger that never
            // counted it holds: what a ledger keeps is the same however its stream
            // was cut into batches.
            conn.prepare_cached(
                "DELETE FROM reconcile_hours WHERE hour = ?1 AND name = ?2 AND n = 0",
            )?
            .execute(params![hour, hour_name(name)])?;
        }
        Ok(())
    }
}

/// A job's facts as [`Finding::holds`] reads them (its state, whether it was notified,
/// whether its output exists by the rule of `output_facts`, whether it was decided
/// under two decision ids or submitted again with another identity), and whether each
/// kept finding names it now (in the order of [`KEPT`]; not asked of a job accepted
/// in the transaction, `?2`: none can name it yet).
const JUDGE: &str = "SELECT j.state, j.accepted_at,
        EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id),
        (EXISTS (SELECT 1 FROM outputs o WHERE o.job_id = j.job_id)
         AND coalesce((SELECT c.object_exists FROM output_checks c
              WHERE c.job_id = j.job_id AND c.checked_at >= (SELECT o.stored_at FROM outputs o
                    WHERE o.job_id = j.job_id ORDER BY o.id DESC LIMIT 1)
              ORDER BY c.id DESC LIMIT 1), 1) = 1),
        (SELECT count(*) FROM (SELECT 1 FROM decisions d
              WHERE d.job_id = j.job_id AND d.suppressed = 0 LIMIT 2)) > 1,
        EXISTS (SELECT 1 FROM repeated_submissions r WHERE r.job_id = j.job_id AND r.conflicting = 1),
        CASE WHEN ?2 THEN 0 ELSE EXISTS (SELECT 1 FROM reconcile_findings f
                 WHERE f.finding = 'missing_output' AND f.job_id = j.job_id) END,
        CASE WHEN ?2 THEN 0 ELSE EXISTS (SELECT 1 FROM reconcile_findings f
                 WHERE f.finding = 'missing_notification' AND f.job_id = j.job_id) END,
        CASE WHEN ?2 THEN 0 ELSE EXISTS (SELECT 1 FROM reconcile_findings f
                 WHERE f.finding = 'divergent_decisions' AND f.job_id = j.job_id) END,
        CASE WHEN ?2 THEN 0 ELSE EXISTS (SELECT 1 FROM reconcile_findings f
                 WHERE f.finding = 'conflicting_submissions' AND f.job_id = j.job_id) END
   FROM jobs j WHERE j.job_id = ?1";

/// Everything schema 19 keeps, made again from the rows the ledger holds (the same
/// statements as the migration): for a ledger whose rows were written without a
/// writer keeping them (a salvage).
pub(super) const REBUILD: &str = "
    DELETE FROM reconcile_findings;
    DELETE FROM reconcile_hours;
    INSERT INTO reconcile_findings (finding, job_id)
        SELECT 'missing_output', j.job_id FROM jobs j
         WHERE (j.state = 'succeeded' OR j.state = 'completed_late')
           AND NOT (EXISTS (SELECT 1 FROM outputs o WHERE o.job_id = j.job_id)
                AND coalesce((SELECT c.object_exists FROM output_checks c
                     WHERE c.job_id = j.job_id AND c.checked_at >= (SELECT o.stored_at FROM outputs o
                           WHERE o.job_id = j.job_id ORDER BY o.id DESC LIMIT 1)
                     ORDER BY c.id DESC LIMIT 1), 1) = 1);
    INSERT INTO reconcile_findings (finding, job_id)
        SELECT 'missing_notification', j.job_id FROM jobs j
         WHERE NOT (j.state = 'accepted' OR j.state = 'running' OR j.state = 'timed_out')
           AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id);
    INSERT INTO reconcile_findings (finding, job_id)
        SELECT 'divergent_decisions', job_id FROM decisions
         WHERE suppressed = 0 AND job_id IN (SELECT job_id FROM jobs)
         GROUP BY job_id HAVING count(*) > 1;
    INSERT INTO reconcile_findings (finding, job_id)
        SELECT DISTINCT 'conflicting_submissions', job_id FROM repeated_submissions
         WHERE conflicting = 1 AND job_id IN (SELECT job_id FROM jobs);
    UPDATE reconcile_counts SET n = 0;
    INSERT INTO reconcile_counts (finding, n)
        SELECT finding, count(*) FROM reconcile_findings WHERE true GROUP BY finding
        ON CONFLICT (finding) DO UPDATE SET n = excluded.n;
    INSERT INTO reconcile_hours (hour, name, n)
        SELECT substr(accepted_at, 1, 13) || ':00:00.000Z', 'jobs.' || state, count(*)
          FROM jobs WHERE true GROUP BY 1, 2;
    INSERT INTO reconcile_hours (hour, name, n)
        SELECT substr(j.accepted_at, 1, 13) || ':00:00.000Z', f.finding, count(*)
          FROM reconcile_findings f JOIN jobs j ON j.job_id = f.job_id
         WHERE f.finding = 'divergent_decisions' OR f.finding = 'conflicting_submissions'
         GROUP BY 1, 2;";

impl Ledger {
    /// How many jobs `finding` names and the first `keep` of them in job id order.
    pub fn finding_kept(&self, finding: Finding, keep: usize) -> Result<FindingKept> {
        let limit = i64::try_from(keep).unwrap_or(i64::MAX);
        if finding == Finding::MissingTerminal {
            // A job's state alone decides it: the jobs by state are kept counts, and
            // `jobs_open_by_id` lists the open jobs by id (the same condition, word for
            // word, so that SQLite reads that index).
            let count = self
                .job_state_counts()?
                .into_iter()
                .filter(|(state, _)| state.is_open())
                .map(|(_, n)| n)
                .sum();
            let first = self.run(|c| {
                c.prepare_cached(
                    "SELECT job_id FROM jobs
                      WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out')
                      ORDER BY job_id LIMIT ?1",
                )?
                .query_map([limit], |row| row.get(0))?
                .collect()
            })?;
            return Ok(FindingKept { count, first });
        }
        self.run(|c| {
            let count = c
                .prepare_cached("SELECT n FROM reconcile_counts WHERE finding = ?1")?
                .query_row([finding.as_str()], |row| row.get(0))?;
            let first = c
                .prepare_cached(
                    "SELECT job_id FROM reconcile_findings WHERE finding = ?1
                      ORDER BY job_id LIMIT ?2",
                )?
                .query_map(rusqlite::params![finding.as_str(), limit], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(FindingKept { count, first })
        })
    }

    /// The latest `hours` clock hours that hold accepted jobs, newest first.
    pub fn recent_hours_kept(&self, hours: usize) -> Result<Vec<HourKept>> {
        self.run(|c| {
            let mut st =
                c.prepare_cached("SELECT hour, name, n FROM reconcile_hours ORDER BY hour DESC")?;
            let mut rows = st.query([])?;
            let mut kept: Vec<HourKept> = Vec::new();
            while let Some(row) = rows.next()? {
                let hour = row.get(0)?;
                if kept.last().is_none_or(|h: &HourKept| h.start != hour) {
                    // An hour has rows once a job is accepted in it, and jobs stay.
                    if kept.len() == hours {
                        break;
                    }
                    kept.push(HourKept::at(hour));
                }
                if let Some(last) = kept.last_mut() {
                    last.add(row.get_ref(1)?.as_str()?, row.get(2)?);
                }
            }
            Ok(kept)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_open_jobs_are_listed_by_their_own_index() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        let plan: Vec<String> = ledger
            .conn
            .prepare(
                "EXPLAIN QUERY PLAN SELECT job_id FROM jobs
                  WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out')
                  ORDER BY job_id LIMIT 8",
            )
            .unwrap()
            .query_map([], |row| row.get(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(
            plan.iter().any(|step| step.contains("jobs_open_by_id")),
            "{plan:?}"
        );
        assert!(
            !plan.iter().any(|step| step.contains("TEMP B-TREE")),
            "{plan:?}"
        );
    }
}
