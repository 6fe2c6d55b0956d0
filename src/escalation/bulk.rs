//! Many owners at once: every aged job a query keeps takes one owner and escalation
//! time. As with bulk answers, a plan says what would change (and what stands
//! already), and the write is given the count the plan gave: when the ledger has
//! moved since, nothing is written and the difference is said.

use std::fmt;

use crate::clock::Timestamp;
use crate::filter::Query;
use crate::store::{JobKey, Keyset, Ledger, PageRequest, StoreError};

/// Aged jobs read at a time while planning.
const PAGE: usize = 1000;

/// What a bulk owner assignment would write.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnerPlan {
    pub owner: String,
    pub escalate_at: Option<Timestamp>,
    /// The jobs that take the owner (their assignment changes), in the Aged list's
    /// order.
    pub assigned: Vec<String>,
    /// The jobs the query keeps whose owner and escalation time are these already:
    /// nothing is written for them.
    pub unchanged: Vec<String>,
}

/// Why a bulk owner assignment wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum BulkOwnerError {
    #[error("an owner needs a name")]
    NoOwner,
    #[error("{}", not_as_expected(*.expected, .plan))]
    NotAsExpected {
        expected: usize,
        plan: Box<OwnerPlan>,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn not_as_expected(expected: usize, plan: &OwnerPlan) -> String {
    format!(
        "expected {expected} jobs to take {}, but {} would now ({} more already have that owner and escalation time); nothing was written. Read the plan again (--dry-run) and write with the count it gives.",
        crate::inert::inert(&plan.owner),
        plan.assigned.len(),
        plan.unchanged.len()
    )
}

impl fmt::Display for OwnerPlan {
    /// The plan in words, for the command line: the count, then the jobs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let when = self.escalate_at.map_or_else(
            || "no escalation time".to_owned(),
            |t| format!("escalating at {t}"),
        );
        writeln!(
            f,
            "{} jobs would take {} ({when}); {} have it already",
            self.assigned.len(),
            crate::inert::inert(&self.owner),
            self.unchanged.len()
        )?;
        for job in &self.assigned {
            writeln!(f, "  {}", crate::inert::inert(job))?;
        }
        Ok(())
    }
}

/// The plan for giving every aged job `query` keeps at `now` the owner `owner` and
/// escalation time `escalate_at`; writes nothing.
pub fn plan(
    ledger: &Ledger,
    query: &Query,
    owner: &str,
    escalate_at: Option<Timestamp>,
    now: Timestamp,
) -> Result<OwnerPlan, StoreError> {
    let mut plan = OwnerPlan {
        owner: owner.to_owned(),
        escalate_at,
        assigned: Vec::new(),
        unchanged: Vec::new(),
    };
    let mut page: PageRequest<JobKey> = PageRequest::first(PAGE);
    loop {
        let rows = ledger.aged_jobs_page(now, query, &page)?;
        for row in &rows {
            let same = row
                .owner
                .as_ref()
                .is_some_and(|o| o.owner == owner && o.escalate_at == escalate_at);
            if same {
                plan.unchanged.push(row.job_id.clone());
            } else {
                plan.assigned.push(row.job_id.clone());
            }
        }
        match rows.last() {
            Some(last) if rows.len() == PAGE => {
                page.keyset = Keyset::After((last.order.clone(), last.job_id.clone()));
            }
            _ => return Ok(plan),
        }
    }
}

/// Gives every aged job `query` keeps the owner and escalation time, in one
/// transaction, if exactly `expect` of them take it (the count the plan gave);
/// otherwise writes nothing and says what changed. Each job's standing owner is read
/// again inside the transaction: one set meanwhile to the same owner counts as
/// unchanged, and so refuses the count.
pub fn assign(
    ledger: &mut Ledger,
    query: &Query,
    owner: &str,
    escalate_at: Option<Timestamp>,
    set_by: &str,
    now: Timestamp,
    expect: usize,
) -> Result<OwnerPlan, BulkOwnerError> {
    if owner.trim().is_empty() {
        return Err(BulkOwnerError::NoOwner);
    }
    let mut plan = plan(ledger, query, owner, escalate_at, now)?;
    let mut writer = ledger.writer()?;
    let mut changed_meanwhile = Vec::new();
    for job in &plan.assigned {
        if writer
            .owner(job)?
            .is_some_and(|o| o.owner == owner && o.escalate_at == escalate_at)
        {
            changed_meanwhile.push(job.clone());
        }
    }
    plan.assigned.retain(|job| !changed_meanwhile.contains(job));
    plan.unchanged.extend(changed_meanwhile);
    if plan.assigned.len() != expect {
        // The writer is dropped unused: nothing is written.
        return Err(BulkOwnerError::NotAsExpected {
            expected: expect,
            plan: Box::new(plan),
        });
    }
    for job in &plan.assigned {
        writer.assign_owner(job, owner, escalate_at, set_by, now)?;
    }
    writer.commit()?;
    Ok(plan)
}
