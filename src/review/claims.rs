//! Claims: "on it". A reviewer takes a held or quarantined case so that a colleague
//! does not work it unknowing; the claim is shown on the case's row to everyone, and
//! ends when it is answered, released, or after [`CLAIM_LASTS_S`].

use std::collections::HashMap;

use crate::clock::Timestamp;
use crate::decision::Disposition;
use crate::inert::inert;
use crate::store::{CLAIM_LASTS_S, CallbackRow, ClaimRow, Ledger, StoreError};

/// What a claim or release did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimDone {
    /// The case is the reviewer's until the claim's `until` (a claim of their own
    /// made again lasts from now).
    Claimed(ClaimRow),
    /// The reviewer's claim is released.
    Released,
}

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error("there is no callback #{0}")]
    NoSuchCallback(i64),
    #[error(
        "callback #{seq} was given `{disposition}`; only held and quarantined callbacks are claimed"
    )]
    NotACase { seq: i64, disposition: Disposition },
    #[error("callback #{seq} is answered already ({verdict} by {reviewer}): nothing to claim")]
    Closed {
        seq: i64,
        verdict: String,
        reviewer: String,
    },
    #[error("{}", taken_by(.0))]
    ClaimedByOther(Box<ClaimRow>),
    #[error("callback #{0} has no claim of yours to release")]
    NotYours(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn taken_by(claim: &ClaimRow) -> String {
    format!(
        "callback #{} is claimed by {} since {} (until {}): nothing was written; it is free once they answer or release it, or at {}",
        claim.callback_seq,
        inert(&claim.reviewer),
        claim.since.short(),
        claim.until.short(),
        claim.until.short()
    )
}

/// The claim standing on `row` at `now`, whoever holds it (read in the transaction).
fn standing(
    writer: &crate::store::Writer<'_>,
    row: &CallbackRow,
    now: Timestamp,
) -> Result<Option<ClaimRow>, StoreError> {
    Ok(writer
        .latest_claim(row.seq)?
        .filter(|c| c.stands(now, row.answer.as_ref())))
}

/// Claims callback `seq` for `reviewer` until half an hour from `now`; refused when
/// another reviewer's claim stands on it.
pub fn claim(
    ledger: &mut Ledger,
    seq: i64,
    reviewer: &str,
    now: Timestamp,
) -> Result<ClaimRow, ClaimError> {
    let mut writer = ledger.writer()?;
    let row = writer
        .callback(seq)?
        .ok_or(ClaimError::NoSuchCallback(seq))?;
    if !row.disposition.waits_for_a_person() {
        return Err(ClaimError::NotACase {
            seq,
            disposition: row.disposition,
        });
    }
    if let Some(a) = row.answer.as_ref().filter(|a| a.verdict.closes()) {
        return Err(ClaimError::Closed {
            seq,
            verdict: a.verdict.to_string(),
            reviewer: inert(&a.reviewer).into_owned(),
        });
    }
    if let Some(theirs) = standing(&writer, &row, now)?.filter(|c| c.reviewer != reviewer) {
        return Err(ClaimError::ClaimedByOther(Box::new(theirs)));
    }
    let until = now.plus_seconds(CLAIM_LASTS_S);
    writer.insert_claim(seq, reviewer, now, Some(until))?;
    // Read back as the ledger holds it: a server also says which role wrote it.
    let written = writer.latest_claim(seq)?.unwrap_or(ClaimRow {
        callback_seq: seq,
        reviewer: reviewer.to_owned(),
        since: now,
        until,
        written_by: None,
    });
    writer.commit()?;
    Ok(written)
}

/// Releases `reviewer`'s claim on callback `seq`; refused when they hold none.
pub fn release(
    ledger: &mut Ledger,
    seq: i64,
    reviewer: &str,
    now: Timestamp,
) -> Result<(), ClaimError> {
    let mut writer = ledger.writer()?;
    let row = writer
        .callback(seq)?
        .ok_or(ClaimError::NoSuchCallback(seq))?;
    match standing(&writer, &row, now)? {
        Some(mine) if mine.reviewer == reviewer => {
            writer.insert_claim(seq, reviewer, now, None)?;
            writer.commit()?;
            Ok(())
        }
        Some(theirs) => Err(ClaimError::ClaimedByOther(Box::new(theirs))),
        None => Err(ClaimError::NotYours(seq)),
    }
}

/// The console's `t`: releases the reviewer's own standing claim on `seq`, or claims
/// it.
pub fn toggle(
    ledger: &mut Ledger,
    row: &CallbackRow,
    reviewer: &str,
    now: Timestamp,
) -> Result<ClaimDone, ClaimError> {
    let mine = row
        .claim
        .as_ref()
        .is_some_and(|c| c.reviewer == reviewer && c.stands(now, row.answer.as_ref()));
    if mine {
        release(ledger, row.seq, reviewer, now)?;
        Ok(ClaimDone::Released)
    } else {
        claim(ledger, row.seq, reviewer, now).map(ClaimDone::Claimed)
    }
}

/// Fills each held or quarantined row's `claim` with the claim standing on it at
/// `now` (one read for all of them); the others' stay `None`.
pub fn attach(ledger: &Ledger, rows: &mut [CallbackRow], now: Timestamp) -> Result<(), StoreError> {
    attach_with(rows, now, |seqs| ledger.latest_claims(seqs))
}

/// [`attach`] inside a write transaction.
pub fn attach_in(
    writer: &crate::store::Writer<'_>,
    rows: &mut [CallbackRow],
    now: Timestamp,
) -> Result<(), StoreError> {
    attach_with(rows, now, |seqs| writer.latest_claims(seqs))
}

fn attach_with(
    rows: &mut [CallbackRow],
    now: Timestamp,
    latest: impl FnOnce(&[i64]) -> Result<Vec<ClaimRow>, StoreError>,
) -> Result<(), StoreError> {
    let seqs: Vec<i64> = rows
        .iter()
        .filter(|r| r.disposition.waits_for_a_person())
        .map(|r| r.seq)
        .collect();
    if seqs.is_empty() {
        return Ok(());
    }
    let mut claims: HashMap<i64, ClaimRow> = latest(&seqs)?
        .into_iter()
        .map(|c| (c.callback_seq, c))
        .collect();
    for row in rows {
        row.claim = claims
            .remove(&row.seq)
            .filter(|c| c.stands(now, row.answer.as_ref()));
    }
    Ok(())
}

/// Is `row` claimed, at the time its claim was attached, by someone other than
/// `reviewer`?
pub fn claimed_by_other<'a>(row: &'a CallbackRow, reviewer: &str) -> Option<&'a ClaimRow> {
    row.claim.as_ref().filter(|c| c.reviewer != reviewer)
}
