//! Escalation owners: who owns a stuck job, and when it escalates.

pub mod bulk;

use crate::clock::{Timestamp, parse_duration};
use crate::inert::inert;
use crate::store::{Ledger, OwnerRow, StoreError};

/// Why an owner was not set.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error("no job {0:?} is in the ledger")]
    NoSuchJob(String),
    #[error("an owner needs a name")]
    NoOwner,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An escalation time as a person gives it: a delay from now (`30m`, `+2h`) or a time.
///
/// The delay is kept as typed and counted from the clock when the owner is written,
/// so the command line (which reads its arguments before it reads the clock) and the
/// console's owner form take the same words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscalationTime {
    /// This many seconds after the owner is set.
    In(i64),
    At(Timestamp),
}

impl EscalationTime {
    /// Reads an escalation time as typed: empty for none, a delay from now (`30m`,
    /// `+2h`), or an RFC 3339 time; the error is a sentence naming what is accepted.
    pub fn parse(text: &str) -> Result<Option<EscalationTime>, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if let Some(seconds) = parse_duration(text.strip_prefix('+').unwrap_or(text)) {
            return Ok(Some(EscalationTime::In(seconds)));
        }
        Timestamp::parse(text)
            .map(|at| Some(EscalationTime::At(at)))
            .ok_or_else(|| {
                format!(
                    "{text:?} is neither a time (2026-11-27T18:00:00Z) nor a delay from now (30m, 2h)"
                )
            })
    }

    /// The time it names, counting a delay from `now`.
    pub fn from(self, now: Timestamp) -> Timestamp {
        match self {
            EscalationTime::In(seconds) => now.plus_seconds(seconds),
            EscalationTime::At(at) => at,
        }
    }
}

/// Reads an escalation time as typed and counts a delay from `now` (see
/// [`EscalationTime::parse`]).
pub fn parse_escalation(text: &str, now: Timestamp) -> Result<Option<Timestamp>, String> {
    Ok(EscalationTime::parse(text)?.map(|at| at.from(now)))
}

/// What came of setting an owner.
#[derive(Debug, Clone, PartialEq)]
pub enum OwnerSet {
    /// Appended: the assignment as written.
    Written(OwnerRow),
    /// The same owner and escalation time stand already: nothing was written (a
    /// second row saying the same would only bury who set it first); the one standing.
    Unchanged(OwnerRow),
}

/// Appends an owner assignment (the latest one stands), in one transaction, unless
/// the same owner and escalation time stand already.
pub fn set_owner(
    ledger: &mut Ledger,
    job_id: &str,
    owner: &str,
    escalate_at: Option<Timestamp>,
    set_by: &str,
    now: Timestamp,
) -> Result<OwnerSet, OwnerError> {
    if owner.trim().is_empty() {
        return Err(OwnerError::NoOwner);
    }
    let mut writer = ledger.writer()?;
    if !writer.job_exists(job_id)? {
        return Err(OwnerError::NoSuchJob(job_id.to_owned()));
    }
    if let Some(standing) = writer.owner(job_id)?
        && standing.owner == owner
        && standing.escalate_at == escalate_at
    {
        return Ok(OwnerSet::Unchanged(standing));
    }
    writer.assign_owner(job_id, owner, escalate_at, set_by, now)?;
    // Read back as the ledger holds it: a server also says which role wrote it.
    let written = writer.owner(job_id)?.unwrap_or_else(|| OwnerRow {
        owner: owner.to_owned(),
        escalate_at,
        set_by: set_by.to_owned(),
        set_at: now,
        written_by: None,
    });
    writer.commit()?;
    Ok(OwnerSet::Written(written))
}

/// What clearing an owner came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Cleared {
    /// The owner who stood until now; the clearing is written.
    Was(OwnerRow),
    /// The job had no owner: nothing is written.
    HadNone,
}

impl Cleared {
    /// What came of it, in one sentence about `job` (outside text made inert): the
    /// command line prints it, the console shows it.
    pub fn sentence(&self, job: &str) -> String {
        let job = inert(job);
        match self {
            Cleared::Was(was) => format!(
                "{job} has no owner now (was {}); it will not escalate",
                inert(&was.owner)
            ),
            Cleared::HadNone => format!("{job} has no owner; nothing written"),
        }
    }
}

/// Clears a job's owner (and its escalation time) by appending an assignment with no
/// owner, in one transaction; a job with no owner is left as it is, with nothing
/// written, so its history does not gain a clearing that changed nothing.
pub fn clear_owner(
    ledger: &mut Ledger,
    job_id: &str,
    set_by: &str,
    now: Timestamp,
) -> Result<Cleared, OwnerError> {
    let mut writer = ledger.writer()?;
    if !writer.job_exists(job_id)? {
        return Err(OwnerError::NoSuchJob(job_id.to_owned()));
    }
    let Some(was) = writer.owner(job_id)? else {
        return Ok(Cleared::HadNone);
    };
    writer.clear_owner(job_id, set_by, now)?;
    writer.commit()?;
    Ok(Cleared::Was(was))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escalation_takes_a_delay_or_a_time() {
        let now = Timestamp::parse("2026-11-27T17:00:00Z").unwrap();
        assert_eq!(parse_escalation("", now), Ok(None));
        assert_eq!(
            parse_escalation("+30m", now),
            Ok(Timestamp::parse("2026-11-27T17:30:00Z"))
        );
        assert_eq!(
            parse_escalation("2h", now),
            Ok(Timestamp::parse("2026-11-27T19:00:00Z"))
        );
        assert_eq!(
            parse_escalation("2026-11-28T09:00:00Z", now),
            Ok(Timestamp::parse("2026-11-28T09:00:00Z"))
        );
        assert!(parse_escalation("tomorrow", now).is_err());
    }
}
