//! The reconciliation's glance as the ledger keeps it, on PostgreSQL: the jobs each
//! finding names (schema 7), counted over their own rows, and the latest hours' jobs
//! by state over the jobs by acceptance time. Range reads: the console's first screen
//! does not read every job.
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

/// The jobs without a terminal record, by id (`jobs_open_by_id`), the first `$1`.
pub(super) const OPEN_BY_ID: &str = "SELECT job_id FROM jobs
      WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out')
      ORDER BY job_id LIMIT $1";

/// How many jobs finding `$1` names.
pub(super) const FINDING_COUNT: &str = "SELECT count(*) FROM reconcile_findings WHERE finding = $1";

/// The first `$2` jobs finding `$1` names, in job id order.
pub(super) const FINDING_FIRST: &str =
    "SELECT job_id FROM reconcile_findings WHERE finding = $1 ORDER BY job_id LIMIT $2";

/// The latest `$1` hours that hold accepted jobs: each hour's count by name (as
/// [`HourKept::add`] takes them), newest first. The hours are stepped down from the
/// latest by one index probe each (a time in an earlier hour sorts before the hour's
/// first 13 characters), then their jobs by state and those of the two findings
/// counted by hour, over that range only.
pub(super) const RECENT_HOURS: &str = "WITH RECURSIVE hours (hour, n) AS (
         SELECT (SELECT left(max(accepted_at), 13) FROM jobs), 1::bigint
         UNION ALL
         SELECT (SELECT left(max(j.accepted_at), 13) FROM jobs j
                  WHERE j.accepted_at < hours.hour), hours.n + 1
           FROM hours WHERE hours.hour IS NOT NULL AND hours.n < $1::bigint
     ),
     since AS (SELECT min(hour) AS hour FROM hours)
     SELECT left(j.accepted_at, 13) || ':00:00.000Z', 'jobs.' || j.state, count(*)
       FROM jobs j, since WHERE j.accepted_at >= since.hour GROUP BY 1, 2
     UNION ALL
     SELECT left(j.accepted_at, 13) || ':00:00.000Z', f.finding, count(*)
       FROM reconcile_findings f JOIN jobs j ON j.job_id = f.job_id, since
      WHERE (f.finding = 'divergent_decisions' OR f.finding = 'conflicting_submissions')
        AND j.accepted_at >= since.hour
      GROUP BY 1, 2
     ORDER BY 1 DESC";

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
    let first = |rows: Vec<Row>| -> Vec<String> { rows.iter().map(|row| row.get(0)).collect() };
    if finding == Finding::MissingTerminal {
        // A job's state alone decides it: the jobs by state are kept counts, and
        // `jobs_open_by_id` lists the open jobs by id.
        let open: Vec<String> = JobState::ALL
            .iter()
            .filter(|s| s.is_open())
            .map(|s| format!("jobs.{}", s.as_str()))
            .collect();
        let count = query(
            "SELECT coalesce(sum(n), 0)::bigint FROM ledger_counts WHERE name = ANY($1)",
            &[&open],
        )?
        .first()
        .map_or(0, |row| row.get(0));
        return Ok(FindingKept {
            count,
            first: first(query(OPEN_BY_ID, &[&limit])?),
        });
    }
    let name = finding.as_str();
    let count = query(FINDING_COUNT, &[&name])?
        .first()
        .map_or(0, |row| row.get(0));
    Ok(FindingKept {
        count,
        first: first(query(FINDING_FIRST, &[&name, &limit])?),
    })
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
    /// findings that name it now are kept, those that no longer do removed.
    pub(super) fn judge_touched(&self) -> Result<()> {
        if self.touched.is_empty() {
            return Ok(());
        }
        let jobs: Vec<&str> = self.touched.iter().map(String::as_str).collect();
        self.execute_direct(
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
             )
             INSERT INTO reconcile_findings (finding, job_id)
                  SELECT finding, job_id FROM wanted
                 ON CONFLICT (finding, job_id) DO NOTHING",
            &[&jobs],
        )?;
        Ok(())
    }
}
