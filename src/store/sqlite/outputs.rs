//! What happened downstream of a job: its output objects and the checks of them,
//! the notifications sent, and the decisions taken.

use crate::store::NewDecision;
use rusqlite::{Connection, OptionalExtension, params};

use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::store::{Downstream, OutputFacts};

type Result<T> = std::result::Result<T, StoreError>;

fn read_output_facts(conn: &Connection, job_id: &str) -> rusqlite::Result<OutputFacts> {
    let stored: Option<(String, Option<Timestamp>, Timestamp)> = conn
        .prepare_cached(
            "SELECT ref, retention_until, stored_at FROM outputs WHERE job_id = ?1 ORDER BY id DESC LIMIT 1",
        )?
        .query_row([job_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .optional()?;
    let Some((reference, retention_until, stored_at)) = stored else {
        return Ok(OutputFacts::default());
    };
    let last_check_exists = conn
        .prepare_cached(
            "SELECT object_exists FROM output_checks WHERE job_id = ?1 AND checked_at >= ?2
             ORDER BY id DESC LIMIT 1",
        )?
        .query_row(params![job_id, stored_at], |row| row.get(0))
        .optional()?;
    Ok(OutputFacts {
        reference: Some(reference),
        retention_until,
        last_check_exists,
    })
}

impl Ledger {
    /// What the ledger knows about a job's output object.
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts> {
        self.run(|c| read_output_facts(c, job_id))
    }

    /// Repeated decisions that were suppressed.
    pub fn decisions_suppressed(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT count(*) FROM decisions WHERE suppressed = 1")?
                .query_row([], |row| row.get(0))
        })
    }
}

impl Writer<'_> {
    /// What the ledger knows about a job's output object.
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts> {
        self.run(|c| read_output_facts(c, job_id))
    }

    /// Keeps what a line said happened downstream of a job, in the fact's table.
    pub fn insert_downstream(
        &mut self,
        job_id: &str,
        fact: &Downstream<'_>,
        line_seq: i64,
    ) -> Result<()> {
        match *fact {
            Downstream::OutputStored {
                reference,
                stored_at,
                retention_until,
            } => self.execute(
                "INSERT INTO outputs (job_id, ref, stored_at, retention_until, line_seq)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![job_id, reference, stored_at, retention_until, line_seq],
            ),
            Downstream::OutputChecked { at, exists } => self.execute(
                "INSERT INTO output_checks (job_id, checked_at, object_exists, line_seq)
                 VALUES (?1, ?2, ?3, ?4)",
                params![job_id, at, exists, line_seq],
            ),
            Downstream::NotificationSent { kind, at } => self.execute(
                "INSERT INTO notifications (job_id, kind, sent_at, line_seq) VALUES (?1, ?2, ?3, ?4)",
                params![job_id, kind, at, line_seq],
            ),
        }?;
        self.reconcile.touched(job_id);
        Ok(())
    }

    /// Records a downstream decision (with the route that produced it, when told);
    /// returns `true` when its id was seen before (suppressed).
    pub fn insert_decision(&mut self, decision: &NewDecision<'_>, line_seq: i64) -> Result<bool> {
        let NewDecision {
            decision_id,
            job_id,
            action,
            route,
            at,
        } = *decision;
        let seen = self.run(|c| {
            c.prepare_cached("SELECT 1 FROM decisions WHERE decision_id = ?1 AND suppressed = 0")?
                .exists([decision_id])
        })?;
        self.execute(
            "INSERT INTO decisions (decision_id, job_id, action, at, suppressed, line_seq, route)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![decision_id, job_id, action, at, seen, line_seq, route],
        )?;
        if !seen {
            self.reconcile.touched(job_id);
        }
        Ok(seen)
    }
}
