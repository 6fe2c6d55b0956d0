//! The reconciliation's glance as the ledger keeps it, on PostgreSQL: the jobs each
//! finding names (the triggers of schema 7 keep them as every row is written), counted
//! over their own rows, and the latest hours' jobs by state over the jobs by acceptance
//! time. Range reads: the console's first screen does not read every job.

use super::writer::Values;
use super::{Ledger, StoreError};
use crate::store::{Finding, FindingKept, HourKept};

type Result<T> = std::result::Result<T, StoreError>;

impl Ledger {
    /// How many jobs `finding` names and the first `keep` of them in job id order.
    pub fn finding_kept(&self, finding: Finding, keep: usize) -> Result<FindingKept> {
        let limit = i64::try_from(keep).unwrap_or(i64::MAX);
        let first = |rows: Vec<postgres::Row>| -> Vec<String> {
            rows.iter().map(|row| row.get(0)).collect()
        };
        if finding == Finding::MissingTerminal {
            // A job's state alone decides it: the jobs by state are kept counts, and
            // `jobs_open_by_id` lists the open jobs by id.
            let count = self
                .job_state_counts()?
                .into_iter()
                .filter(|(state, _)| state.is_open())
                .map(|(_, n)| n)
                .sum();
            let rows = self.rows(
                "SELECT job_id FROM jobs
                  WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out')
                  ORDER BY job_id LIMIT $1",
                &[&limit],
            )?;
            return Ok(FindingKept {
                count,
                first: first(rows),
            });
        }
        let name = finding.as_str();
        let count = self
            .one(
                "SELECT count(*) FROM reconcile_findings WHERE finding = $1",
                &[&name],
            )?
            .get(0);
        let rows = self.rows(
            "SELECT job_id FROM reconcile_findings WHERE finding = $1 ORDER BY job_id LIMIT $2",
            &[&name, &limit],
        )?;
        Ok(FindingKept {
            count,
            first: first(rows),
        })
    }

    /// The latest `hours` clock hours that hold accepted jobs, newest first.
    pub fn recent_hours_kept(&self, hours: usize) -> Result<Vec<HourKept>> {
        let hours = i64::try_from(hours).unwrap_or(i64::MAX);
        // The hours stepped down from the latest by one index probe each (a time in an
        // earlier hour sorts before the hour's first 13 characters), then their jobs by
        // state and those of the two findings counted by hour, over that range only.
        let rows = self.rows(
            "WITH RECURSIVE hours (hour, n) AS (
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
             ORDER BY 1 DESC",
            &[&hours],
        )?;
        let mut kept: Vec<HourKept> = Vec::new();
        for row in &rows {
            let v = Values {
                row,
                location: &self.location,
            };
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
}
