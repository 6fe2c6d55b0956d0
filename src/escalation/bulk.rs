//! Many owners at once: the aged jobs selected (those a query keeps, or those marked
//! in the console) take one owner and escalation time. As with bulk answers, a plan
//! says what would change (and what stands already, and what is left out), and the
//! write is given the count the plan gave: when the ledger has moved since, nothing is
//! written and the difference is said.

use std::collections::HashSet;
use std::fmt;

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::filter::{Query, Scope};
use crate::inert::inert;
use crate::store::{AgedJobRow, JobKey, Keyset, Ledger, OwnerRow, PageRequest, StoreError};

/// Aged jobs read at a time while planning.
const PAGE: usize = 1000;

/// Which jobs a bulk owner assignment is given.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'a> {
    /// Every aged job the query keeps (the command line's `--where`).
    Query(&'a Query),
    /// These jobs (the rows marked in the console's Aged view): those still aged take
    /// part; one no longer aged, or in no ledger, is left out and named.
    Jobs(&'a [String]),
}

/// Why a job selected by its id takes no owner from a bulk assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOutWhy {
    /// It is no longer aged: it reached this state (a stuck job's owner is for jobs
    /// still stuck).
    NotAged(JobState),
    /// No job has this id.
    NoSuchJob,
}

impl fmt::Display for LeftOutWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeftOutWhy::NotAged(state) => write!(f, "no longer aged: it is {state}"),
            LeftOutWhy::NoSuchJob => f.write_str("no such job"),
        }
    }
}

/// What a bulk owner assignment would write.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnerPlan {
    pub owner: String,
    pub escalate_at: Option<Timestamp>,
    /// The jobs that take the owner (their assignment changes), in the Aged list's
    /// order.
    pub assigned: Vec<String>,
    /// The jobs selected whose owner and escalation time are these already: nothing
    /// is written for them.
    pub unchanged: Vec<String>,
    /// Jobs selected by id that are not aged now, and why: nothing is written for
    /// them (a query keeps aged jobs only, so it leaves none out).
    pub left_out: Vec<(String, LeftOutWhy)>,
}

impl OwnerPlan {
    fn new(owner: &str, escalate_at: Option<Timestamp>) -> Self {
        OwnerPlan {
            owner: owner.to_owned(),
            escalate_at,
            assigned: Vec::new(),
            unchanged: Vec::new(),
            left_out: Vec::new(),
        }
    }

    /// Does `standing` say this plan's owner and escalation time already?
    fn stands(&self, standing: Option<&OwnerRow>) -> bool {
        standing.is_some_and(|o| o.owner == self.owner && o.escalate_at == self.escalate_at)
    }

    /// Puts `job`, whose standing owner is `standing`, among the assigned or the
    /// unchanged: the one rule the plan and the write share.
    fn place(&mut self, job: &str, standing: Option<&OwnerRow>) {
        if self.stands(standing) {
            self.unchanged.push(job.to_owned());
        } else {
            self.assigned.push(job.to_owned());
        }
    }
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
    let left_out = match plan.left_out.len() {
        0 => String::new(),
        n => format!(", {n} left out: no longer aged"),
    };
    format!(
        "expected {expected} jobs to take {}, but {} would now ({} more already have that owner and escalation time{left_out}); nothing was written.",
        inert(&plan.owner),
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
            inert(&self.owner),
            self.unchanged.len()
        )?;
        for job in &self.assigned {
            writeln!(f, "  {}", inert(job))?;
        }
        for (job, why) in &self.left_out {
            writeln!(f, "  left out: {} ({why})", inert(job))?;
        }
        Ok(())
    }
}

/// Calls `each` with every aged job `query` keeps at `now`, in the Aged list's order,
/// read a page at a time.
pub fn each_aged(
    ledger: &Ledger,
    query: &Query,
    now: Timestamp,
    mut each: impl FnMut(&AgedJobRow),
) -> Result<(), StoreError> {
    let mut page: PageRequest<JobKey> = PageRequest::first(PAGE);
    loop {
        let rows = ledger.aged_jobs_page(now, query, &page)?;
        rows.iter().for_each(&mut each);
        match rows.last() {
            Some(last) if rows.len() == PAGE => {
                page.keyset = Keyset::After((last.order.clone(), last.job_id.clone()));
            }
            _ => return Ok(()),
        }
    }
}

/// The ids of every aged job `query` keeps at `now`, in the Aged list's order (the
/// console's `V` marks them: all pages, not only the one shown).
pub fn aged_job_ids(
    ledger: &Ledger,
    query: &Query,
    now: Timestamp,
) -> Result<Vec<String>, StoreError> {
    let mut ids = Vec::new();
    each_aged(ledger, query, now, |row| ids.push(row.job_id.clone()))?;
    Ok(ids)
}

/// The plan for giving every aged job of `selection` at `now` the owner `owner` and
/// escalation time `escalate_at`; writes nothing.
pub fn plan(
    ledger: &Ledger,
    selection: Selection<'_>,
    owner: &str,
    escalate_at: Option<Timestamp>,
    now: Timestamp,
) -> Result<OwnerPlan, StoreError> {
    let mut plan = OwnerPlan::new(owner, escalate_at);
    match selection {
        Selection::Query(query) => each_aged(ledger, query, now, |row| {
            plan.place(&row.job_id, row.owner.as_ref());
        })?,
        Selection::Jobs(jobs) => {
            // Read through the Aged list itself, so that "aged" means here exactly
            // what the view and the query mean by it.
            let wanted: HashSet<&str> = jobs.iter().map(String::as_str).collect();
            let mut met: HashSet<String> = HashSet::new();
            each_aged(ledger, &Query::all(Scope::AgedJobs), now, |row| {
                if wanted.contains(row.job_id.as_str()) {
                    met.insert(row.job_id.clone());
                    plan.place(&row.job_id, row.owner.as_ref());
                }
            })?;
            let mut named: HashSet<&str> = HashSet::new();
            for job in jobs {
                if met.contains(job) || !named.insert(job) {
                    continue;
                }
                let why = match ledger.job(job)? {
                    Some(row) => LeftOutWhy::NotAged(row.state),
                    None => LeftOutWhy::NoSuchJob,
                };
                plan.left_out.push((job.clone(), why));
            }
        }
    }
    Ok(plan)
}

/// Gives every aged job of `selection` the owner and escalation time, in one
/// transaction, if exactly `expect` of them take it (the count the plan gave);
/// otherwise writes nothing and says what changed. Each job's standing owner is read
/// again inside the transaction: one set meanwhile to the same owner counts as
/// unchanged, one set meanwhile to another as taking it, and either refuses the count.
pub fn assign(
    ledger: &mut Ledger,
    selection: Selection<'_>,
    owner: &str,
    escalate_at: Option<Timestamp>,
    set_by: &str,
    now: Timestamp,
    expect: usize,
) -> Result<OwnerPlan, BulkOwnerError> {
    if owner.trim().is_empty() {
        return Err(BulkOwnerError::NoOwner);
    }
    let read = plan(ledger, selection, owner, escalate_at, now)?;
    let mut writer = ledger.writer()?;
    let mut plan = OwnerPlan {
        left_out: read.left_out,
        ..OwnerPlan::new(owner, escalate_at)
    };
    for job in read.assigned.iter().chain(&read.unchanged) {
        plan.place(job, writer.owner(job)?.as_ref());
    }
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
