//! What happened downstream of a job, on PostgreSQL: its output objects and the checks
//! of them, the notifications sent, and the decisions taken.

use postgres::Row;

use super::ahead::DownstreamRow;
use super::writer::{Values, opt_time_text, time_text};
use super::{Ledger, Writer};
use crate::store::{Downstream, Location, NewDecision, OutputFacts, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

const LAST_OUTPUT: &str = "SELECT ref, retention_until, stored_at FROM outputs WHERE job_id = $1 ORDER BY id DESC LIMIT 1";

const LAST_CHECK: &str = "SELECT object_exists FROM output_checks
     WHERE job_id = $1 AND checked_at >= $2 ORDER BY id DESC LIMIT 1";

/// The facts from the job's last output (`stored`) and the last check of it since.
fn output_facts(
    stored: Option<Row>,
    last_check: impl FnOnce(&str) -> Result<Option<Row>>,
    location: &Location,
) -> Result<OutputFacts> {
    let Some(stored) = stored else {
        return Ok(OutputFacts::default());
    };
    let v = Values {
        row: &stored,
        location,
    };
    let reference: String = v.get(0)?;
    let retention_until = v.opt_time(1)?;
    let stored_at: &str = v.get(2)?;
    let last_check_exists = match last_check(stored_at)? {
        Some(row) => Some(
            Values {
                row: &row,
                location,
            }
            .flag(0)?,
        ),
        None => None,
    };
    Ok(OutputFacts {
        reference: Some(reference),
        retention_until,
        last_check_exists,
    })
}

impl Ledger {
    /// What the ledger knows about a job's output object.
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts> {
        let stored = self.row(LAST_OUTPUT, &[&job_id])?;
        output_facts(
            stored,
            |stored_at| self.row(LAST_CHECK, &[&job_id, &stored_at]),
            &self.location,
        )
    }

    /// Repeated decisions that were suppressed.
    pub fn decisions_suppressed(&self) -> Result<i64> {
        Ok(self
            .one("SELECT count(*) FROM decisions WHERE suppressed = 1", &[])?
            .get(0))
    }
}

impl Writer<'_> {
    /// What the ledger knows about a job's output object.
    pub fn output_facts(&self, job_id: &str) -> Result<OutputFacts> {
        // Outputs and checks kept ahead are written first (`row`), so that they are read.
        let stored = self.row(LAST_OUTPUT, &[&job_id])?;
        output_facts(
            stored,
            |stored_at| self.row_direct(LAST_CHECK, &[&job_id, &stored_at]),
            self.location(),
        )
    }

    /// Keeps what a line said happened downstream of a job, in the fact's table.
    #[allow(clippy::unnecessary_wraps)] // as the file's writer answers; written later here
    pub fn insert_downstream(
        &mut self,
        job_id: &str,
        fact: &Downstream<'_>,
        line_seq: i64,
    ) -> Result<()> {
        self.touch(job_id);
        // Written with the other rows kept ahead, before any statement that reads them.
        let job_id = job_id.to_owned();
        let row = match *fact {
            Downstream::OutputStored {
                reference,
                stored_at,
                retention_until,
            } => DownstreamRow::Output {
                job_id,
                reference: reference.to_owned(),
                stored_at: time_text(stored_at),
                retention_until: opt_time_text(retention_until),
                line_seq,
            },
            Downstream::OutputChecked { at, exists } => DownstreamRow::Check {
                job_id,
                checked_at: time_text(at),
                exists: i16::from(exists),
                line_seq,
            },
            Downstream::NotificationSent { kind, at } => DownstreamRow::Notification {
                job_id,
                kind: kind.to_owned(),
                sent_at: time_text(at),
                line_seq,
            },
        };
        self.ahead.borrow_mut().add_downstream(row);
        Ok(())
    }

    /// Records a downstream decision (with the route that produced it, when told);
    /// returns `true` when its id was seen before (suppressed).
    ///
    /// One statement: the decision is acted on (`suppressed = 0`) unless one with its
    /// id was; a decision another writer acts on meanwhile is met by the unique index
    /// `decisions_acted_once` (the insert waits for that writer's transaction), and
    /// this one is then kept as suppressed.
    pub fn insert_decision(&mut self, decision: &NewDecision<'_>, line_seq: i64) -> Result<bool> {
        let NewDecision {
            decision_id,
            job_id,
            action,
            route,
            at,
        } = *decision;
        let at = time_text(at);
        let acted = self.row_direct(
            "INSERT INTO decisions (decision_id, job_id, action, at, suppressed, line_seq, route)
             SELECT $1, $2, $3, $4, 0, $5, $6
              WHERE NOT EXISTS (SELECT 1 FROM decisions WHERE decision_id = $1 AND suppressed = 0)
             ON CONFLICT (decision_id) WHERE suppressed = 0 DO NOTHING
             RETURNING id",
            &[&decision_id, &job_id, &action, &at, &line_seq, &route],
        )?;
        if acted.is_some() {
            self.touch(job_id);
            return Ok(false);
        }
        self.execute_direct(
            "INSERT INTO decisions (decision_id, job_id, action, at, suppressed, line_seq, route)
             VALUES ($1, $2, $3, $4, 1, $5, $6)",
            &[&decision_id, &job_id, &action, &at, &line_seq, &route],
        )?;
        Ok(true)
    }
}
