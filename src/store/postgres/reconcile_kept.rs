//! The reconciliation's glance as the ledger keeps it, on PostgreSQL: the jobs each
//! finding names (schema 7), their counts and the jobs of each hour by state (schema
//! 9, kept by `counts.rs`). Range reads: the console's first screen does not read
//! every job.
//!
//! A [`Writer`] notes the jobs a transaction touches and, at commit, judges them all
//! in one statement by the rule of the walk over every job (`Finding::holds`, in SQL):
//! a job's findings are rows added or removed. A job whose every event comes in one
//! transaction is judged once, at its end.

use postgres::Row;
use postgres::types::ToSql;

use super::writer::Values;
use super::{Ledger, StoreError, Writer};
use crate::decision::JobState;
use crate::store::{Finding, FindingKept, HourKept, Location};

type Result<T> = std::result::Result<T, StoreError>;

/// How many jobs have no terminal record (the kept counts of the open states, `$1`),
/// and the first `$2` of them by id (`jobs_open_by_id`): one statement, one round trip.
const OPEN_KEPT: &str = "SELECT
        (SELECT coalesce(sum(n), 0)::bigint FROM ledger_counts WHERE name = ANY($1)),
        ARRAY(SELECT job_id FROM jobs
               WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out')
               ORDER BY job_id LIMIT $2)";

/// How many jobs finding `$1` names (kept, schema 9), and the first `$2` of them in job
/// id order: one statement, one round trip.
const FINDING_KEPT: &str = "SELECT
        coalesce((SELECT n FROM reconcile_counts WHERE finding = $1), 0),
        ARRAY(SELECT job_id FROM reconcile_findings WHERE finding = $1
               ORDER BY job_id LIMIT $2)";

/// The latest `$1` hours that hold accepted jobs: each hour's counts by name (as
/// [`HourKept::add`] takes them), newest first, as the ledger keeps them (schema 9):
/// the hours are found by stepping down the key from the latest, then read as one
/// range of it.
pub(super) const RECENT_HOURS: &str = "SELECT hour, name, n FROM reconcile_hours
      WHERE hour >= (SELECT min(hour) FROM (SELECT DISTINCT hour FROM reconcile_hours
                                             ORDER BY hour DESC LIMIT $1) latest)
      ORDER BY hour DESC, name";

/// The hours of [`RECENT_HOURS`]'s rows, newest first.
pub(super) fn hours_of(rows: &[Row], location: &Location) -> Result<Vec<HourKept>> {
    let mut kept: Vec<HourKept> = Vec::new();
    for row in rows {
        let v = Values { row, location };
        let start = v.time(0)?;
        if kept.last().is_none_or(|h| h.start != start) {
            kept.push(HourKept::at(start));
        }
        if let Some(last) = kept.last_mut() {
            last.add(v.get(1)?, v.get(2)?);
        }
    }
    Ok(kept)
}

/// A statement and its parameters to its rows: on the ledger's connection, or inside
/// a snapshot taken for more reads (`check`'s, beside the walk).
pub(super) type Query<'q> =
    dyn FnMut(&'static str, &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> + 'q;

/// How many jobs `finding` names and the first `keep` of them in job id order, read
/// through `query`.
pub(super) fn finding_kept_by(
    finding: Finding,
    keep: usize,
    query: &mut Query<'_>,
) -> Result<FindingKept> {
    let limit = i64::try_from(keep).unwrap_or(i64::MAX);
    let rows = if finding == Finding::MissingTerminal {
        // A job's state alone decides it: the jobs by state are kept counts, and
        // `jobs_open_by_id` lists the open jobs by id.
        let open: Vec<String> = JobState::ALL
            .iter()
            .filter(|s| s.is_open())
            .map(|s| format!("jobs.{}", s.as_str()))
            .collect();
        query(OPEN_KEPT, &[&open, &limit])?
    } else {
        query(FINDING_KEPT, &[&finding.as_str(), &limit])?
    };
    Ok(rows
        .first()
        .map_or_else(FindingKept::default, |row| FindingKept {
            count: row.get(0),
            first: row.get(1),
        }))
}

impl Ledger {
    /// How many jobs `finding` names and the first `keep` of them in job id order.
    pub fn finding_kept(&self, finding: Finding, keep: usize) -> Result<FindingKept> {
        finding_kept_by(finding, keep, &mut |sql, params| self.rows(sql, params))
    }

    /// The latest `hours` clock hours that hold accepted jobs, newest first.
    pub fn recent_hours_kept(&self, hours: usize) -> Result<Vec<HourKept>> {
        let hours = i64::try_from(hours).unwrap_or(i64::MAX);
        hours_of(&self.rows(RECENT_HOURS, &[&hours])?, &self.location)
    }
}

impl Writer<'_> {
    /// Something that may decide a job's findings was written (the job, its state, an
    /// output, a check, a notification, a decision acted on, a conflicting
    /// resubmission): the job is judged again at commit.
    pub(super) fn touch(&mut self, job_id: &str) {
        if !self.touched.contains(job_id) {
            self.touched.insert(job_id.to_owned());
        }
    }

    /// Judges every job touched (with every row kept to write already written): the
    /// findings that name it now are kept, those that no longer do removed, and what
    /// moved is added to the kept counts (by finding, and by the job's hour).
    pub(super) fn judge_touched(&mut self) -> Result<()> {
        if self.touched.is_empty() {
            return Ok(());
        }
        let jobs: Vec<&str> = self.touched.iter().map(String::as_str).collect();
        let moved = self.rows_direct(
            "WITH touched AS (SELECT unnest($1::text[]) AS job_id),
             wanted AS (
                 SELECT 'missing_output' AS finding, j.job_id FROM touched t
                   JOIN jobs j ON j.job_id = t.job_id
                  WHERE (j.state = 'succeeded' OR j.state = 'completed_late')
                    AND NOT reconcile_output_exists(j.job_id)
                 UNION ALL
                 SELECT 'missing_notification', j.job_id FROM touched t
                   JOIN jobs j ON j.job_id = t.job_id
                  WHERE NOT (j.state = 'accepted' OR j.state = 'running' OR j.state = 'timed_out')
                    AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id)
                 UNION ALL
                 SELECT 'divergent_decisions', j.job_id FROM touched t
                   JOIN jobs j ON j.job_id = t.job_id
                  WHERE (SELECT count(*) FROM (SELECT 1 FROM decisions d
                          WHERE d.job_id = j.job_id AND d.suppressed = 0 LIMIT 2) two) > 1
                 UNION ALL
                 SELECT 'conflicting_submissions', j.job_id FROM touched t
                   JOIN jobs j ON j.job_id = t.job_id
                  WHERE EXISTS (SELECT 1 FROM repeated_submissions r
                                 WHERE r.job_id = j.job_id AND r.conflicting = 1)
             ),
             gone AS (
                 DELETE FROM reconcile_findings f USING touched t
                  WHERE f.finding IN ('missing_output', 'missing_notification',
                                      'divergent_decisions', 'conflicting_submissions')
                    AND f.job_id = t.job_id
                    AND NOT EXISTS (SELECT 1 FROM wanted w
                                     WHERE w.finding = f.finding AND w.job_id = f.job_id)
                 RETURNING f.finding, f.job_id, -1 AS n
             ),
             added AS (
                 INSERT INTO reconcile_findings (finding, job_id)
                      SELECT finding, job_id FROM wanted
                     ON CONFLICT (finding, job_id) DO NOTHING
                 RETURNING finding, job_id, 1 AS n
             )
             SELECT m.finding, left(j.accepted_at, 13) || ':00:00.000Z', sum(m.n)::bigint
               FROM (SELECT * FROM gone UNION ALL SELECT * FROM added) m
               JOIN jobs j ON j.job_id = m.job_id
              GROUP BY 1, 2",
            &[&jobs],
        )?;
        let mut counted = Vec::with_capacity(moved.len());
        for row in &moved {
            let v = Values {
                row,
                location: self.location(),
            };
            counted.push((v.name::<Finding>(0)?, v.get::<String>(1)?, v.get::<i64>(2)?));
        }
        for (finding, hour, n) in counted {
            self.counts.finding(finding, hour, n);
        }
        Ok(())
    }
}
