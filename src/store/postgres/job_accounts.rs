//! Every accepted job once, in job id order, with what reconciliation asks of it: the
//! SQLite engine's `sqlite/job_accounts.rs` on PostgreSQL.
//!
//! The same ordered reads walked side by side (the jobs, their notifications, their
//! outputs and the checks of those outputs, their owners, their decisions acted on and
//! their conflicting resubmissions, each in job id order), each one a portal of a
//! read-only transaction fetched a chunk at a time: at a million jobs nothing is held
//! whole, and every read sees the ledger at one moment (`REPEATABLE READ`), as
//! SQLite's statements read one snapshot together.

use std::cmp::Ordering;
use std::vec::IntoIter;

use postgres::{IsolationLevel, Portal, Row, Statement, Transaction};

use super::Ledger;
use super::timeline::{Name, Time};
use crate::decision::JobState;
use crate::store::{JobAccount, OpenJob, OwnerRow, StoreError};

/// Rows fetched from a portal at a time.
const CHUNK: i32 = 2048;

const JOBS: &str =
    "SELECT job_id, state, accepted_at, aged_at, expected_age_s FROM jobs ORDER BY job_id";
// A job's repeats are skipped by the walk, as in SQLite (cheaper than DISTINCT).
const NOTIFICATIONS: &str = "SELECT job_id FROM notifications ORDER BY job_id";
const OUTPUTS: &str = "SELECT job_id FROM outputs ORDER BY job_id";
// Checks are rare: only a checked job's latest output is read for its time.
const LATEST_STORED: &str =
    "SELECT stored_at FROM outputs WHERE job_id = $1 ORDER BY id DESC LIMIT 1";
const CHECKS: &str =
    "SELECT job_id, checked_at, object_exists FROM output_checks ORDER BY job_id, id";
const OWNERS: &str = "SELECT job_id, owner, escalate_at, set_by, set_at, written_by
     FROM owner_assignments
     ORDER BY job_id, id";
const ACTED: &str = "SELECT job_id FROM decisions WHERE suppressed = 0 ORDER BY job_id";
const CONFLICTS: &str =
    "SELECT job_id FROM repeated_submissions WHERE conflicting = 1 ORDER BY job_id";

/// One of the side reads, at its current row: the job id first (then, for checks, the
/// time and the flag; for owners, the assignment).
struct Side {
    portal: Portal,
    /// The rows fetched and not yet reached.
    fetched: IntoIter<Row>,
    /// Whether the portal may hold more rows than were fetched.
    more: bool,
    row: Option<Row>,
    /// The current row's job id; empty and meaningless once `row` is `None`.
    key: String,
}

impl Side {
    fn start(tx: &mut Transaction<'_>, sql: &str) -> Result<Self, postgres::Error> {
        let portal = tx.bind(sql, &[])?;
        let mut side = Side {
            portal,
            fetched: Vec::new().into_iter(),
            more: true,
            row: None,
            key: String::new(),
        };
        side.step(tx)?;
        Ok(side)
    }

    fn step(&mut self, tx: &mut Transaction<'_>) -> Result<(), postgres::Error> {
        if self.fetched.len() == 0 && self.more {
            let rows = tx.query_portal(&self.portal, CHUNK)?;
            self.more = rows.len() == CHUNK as usize;
            self.fetched = rows.into_iter();
        }
        self.row = self.fetched.next();
        self.key.clear();
        if let Some(row) = &self.row {
            self.key.push_str(row.try_get::<_, &str>(0)?);
        }
        Ok(())
    }

    /// How the current row's job id compares with `job_id` (`None` once done), by
    /// bytes, as the reads are ordered (`COLLATE "C"`).
    fn compare(&self, job_id: &str) -> Option<Ordering> {
        self.row
            .as_ref()
            .map(|_| self.key.as_bytes().cmp(job_id.as_bytes()))
    }

    /// Skips rows of jobs before `job_id`; true when the current row is `job_id`'s.
    fn reach(&mut self, tx: &mut Transaction<'_>, job_id: &str) -> Result<bool, postgres::Error> {
        loop {
            match self.compare(job_id) {
                Some(Ordering::Less) => self.step(tx)?,
                Some(Ordering::Equal) => return Ok(true),
                Some(Ordering::Greater) | None => return Ok(false),
            }
        }
    }

    /// Is the current row `job_id`'s?
    fn at_job(&self, job_id: &str) -> bool {
        self.compare(job_id) == Some(Ordering::Equal)
    }

    /// The current row's owner assignment (columns 1 to 5); none when it clears the
    /// owner.
    fn owner(&self) -> Result<Option<OwnerRow>, postgres::Error> {
        let Some(row) = &self.row else {
            return Ok(None);
        };
        let Some(owner) = row.try_get::<_, Option<String>>(1)? else {
            return Ok(None);
        };
        Ok(Some(OwnerRow {
            owner,
            escalate_at: row.try_get::<_, Option<Time>>(2)?.map(|t| t.0),
            set_by: row.try_get(3)?,
            set_at: row.try_get::<_, Time>(4)?.0,
            written_by: row.try_get(5)?,
        }))
    }

    /// The current row's time (column 1) and flag (column 2): an output check's.
    fn check(&self) -> Result<Option<(&str, bool)>, postgres::Error> {
        match &self.row {
            Some(row) => Ok(Some((row.try_get(1)?, row.try_get::<_, i16>(2)? != 0))),
            None => Ok(None),
        }
    }
}

impl Ledger {
    /// Calls `f` for every accepted job, in job id order (bytewise, as SQLite sorts
    /// text). `f` must not read the ledger: the walk holds its connection.
    pub fn for_each_job_account(
        &self,
        mut f: impl FnMut(&JobAccount<'_>),
    ) -> Result<(), StoreError> {
        self.walk_after(|_| Ok(()), |(), job| f(job))
    }

    /// Reads `first`, then calls `each` with what it read and every accepted job as
    /// [`Ledger::for_each_job_account`] walks them, in one read-only snapshot: what
    /// `first` reads and what the walk finds are the ledger at one moment, whatever
    /// commits meanwhile.
    pub(super) fn walk_after<T>(
        &self,
        first: impl FnOnce(&mut Transaction<'_>) -> Result<T, StoreError>,
        mut each: impl FnMut(&mut T, &JobAccount<'_>),
    ) -> Result<T, StoreError> {
        let latest_stored = self.statement(LATEST_STORED)?;
        let mut client = self.client();
        let mut snapshot = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(|e| self.err(e))?;
        let mut read = first(&mut snapshot)?;
        walk(&mut snapshot, &latest_stored, &mut |job| {
            each(&mut read, job);
        })
        .and_then(|()| snapshot.commit())
        .map_err(|e| self.err(e))?;
        Ok(read)
    }
}

/// Calls `f` for every accepted job, in job id order, reading inside `tx`.
fn walk(
    tx: &mut Transaction<'_>,
    latest_stored: &Statement,
    f: &mut impl FnMut(&JobAccount<'_>),
) -> Result<(), postgres::Error> {
    // Every read below is walked in job id order, which an index of each
    // table keeps: read along it. Left to choose, the server sorts the whole
    // jobs table first (on disk past a few megabytes): twice the time at
    // fifty thousand jobs, and nothing sent until the sort ends.
    tx.batch_execute("SET LOCAL enable_sort = off")?;
    let mut decided = Side::start(tx, ACTED)?;
    let mut resubmitted = Side::start(tx, CONFLICTS)?;
    let mut owned = Side::start(tx, OWNERS)?;
    let mut notified = Side::start(tx, NOTIFICATIONS)?;
    let mut stored = Side::start(tx, OUTPUTS)?;
    let mut checked = Side::start(tx, CHECKS)?;
    let jobs = tx.bind(JOBS, &[])?;
    let mut latest_store = String::new();
    loop {
        let page = tx.query_portal(&jobs, CHUNK)?;
        for row in &page {
            let job_id: &str = row.try_get(0)?;
            let state = row.try_get::<_, Name<JobState>>(1)?.0;
            // The latest output (the one with the highest id), then the latest
            // check made at or after it was stored: the same rule as
            // `output_facts`.
            let has_output = stored.reach(tx, job_id)?;
            let mut exists_by_check = None;
            if checked.reach(tx, job_id)? && has_output {
                latest_store.clear();
                latest_store.push_str(
                    tx.query_one(latest_stored, &[&job_id])?
                        .try_get::<_, &str>(0)?,
                );
                while checked.at_job(job_id) {
                    if let Some((at, exists)) = checked.check()?
                        && at >= latest_store.as_str()
                    {
                        exists_by_check = Some(exists);
                    }
                    checked.step(tx)?;
                }
            }
            let open = if state.is_open() {
                // The latest assignment (the highest id) stands.
                let mut owner = None;
                if owned.reach(tx, job_id)? {
                    while owned.at_job(job_id) {
                        owner = owned.owner()?;
                        owned.step(tx)?;
                    }
                }
                Some(OpenJob {
                    aged_at: row.try_get::<_, Time>(3)?.0,
                    expected_age_s: row.try_get(4)?,
                    owner,
                })
            } else {
                None
            };
            let mut decisions = 0;
            if decided.reach(tx, job_id)? {
                while decided.at_job(job_id) {
                    decisions += 1;
                    decided.step(tx)?;
                }
            }
            let account = JobAccount {
                job_id,
                state,
                accepted_at: row.try_get::<_, Time>(2)?.0,
                output_exists: has_output && exists_by_check.unwrap_or(true),
                notified: notified.reach(tx, job_id)?,
                divergent_decisions: decisions > 1,
                conflicting_submission: resubmitted.reach(tx, job_id)?,
                open,
            };
            f(&account);
        }
        if page.len() < CHUNK as usize {
            break;
        }
    }
    Ok(())
}
