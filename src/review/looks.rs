//! New since you looked: each reviewer's last look at each list (held, quarantined,
//! aged) is kept in the ledger, and what is new or changed since is marked for them
//! when they come back, on any machine: a new hold or quarantine, a colleague's
//! answer, a job that became overdue.

use crate::clock::Timestamp;
use crate::filter::{Query, Scope};
use crate::store::{AgedJobRow, CallbackRow, Ledger, LookRow, StoreError};

/// The lists a look is kept for.
pub const HELD: &str = "held";
pub const QUARANTINED: &str = "quarantined";
pub const AGED: &str = "aged";

/// Records that `reviewer` looked at `list` at `now`: how far the ledger has come.
pub fn record(
    ledger: &mut Ledger,
    reviewer: &str,
    list: &str,
    now: Timestamp,
) -> Result<LookRow, StoreError> {
    let look = LookRow {
        reviewer: reviewer.to_owned(),
        list: list.to_owned(),
        looked_at: now,
        callback_seq: ledger.newest_callback_seq()?,
        answer_id: ledger.newest_answer_id()?,
    };
    let mut writer = ledger.writer()?;
    writer.insert_look(&look)?;
    writer.commit()?;
    Ok(look)
}

/// Is the callback new to `me` since `look`: come after it, or answered since by
/// someone else (its standing answer)?
pub fn callback_is_new(row: &CallbackRow, look: &LookRow, me: &str) -> bool {
    row.seq > look.callback_seq
        || row
            .answer
            .as_ref()
            .is_some_and(|a| a.id > look.answer_id && a.reviewer != me)
}

/// Did the aged job become overdue since `look` (its escalation time passed between
/// then and `now`)?
pub fn aged_is_new(row: &AgedJobRow, look: &LookRow, now: Timestamp) -> bool {
    row.owner
        .as_ref()
        .and_then(|o| o.escalate_at)
        .is_some_and(|at| look.looked_at < at && at <= now)
}

/// The aged jobs that became overdue since `look`, as a query on the Aged list: its
/// count is the Aged tab's "new".
pub fn became_overdue(look: &LookRow) -> Query {
    let text = format!("escalates>{} escalates<=now", look.looked_at);
    // The ledger's own time text always parses.
    Query::parse(&text, Scope::AgedJobs).unwrap_or_else(|_| Query::all(Scope::AgedJobs))
}
