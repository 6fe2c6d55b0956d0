//! The domain's values as SQL values: each closed set is stored as its name, and a
//! time as its ledger text (`2026-11-27T13:16:45.000Z`, which sorts as it reads).
//!
//! Reading a name borrows the text in place (no `String` per row: a list of a
//! million callbacks reads three names a row), and a name the set does not know
//! is an error naming the set, never a silent default.

use rusqlite::ToSql;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};

use crate::clock::Timestamp;
use crate::closed_set::ClosedSet;
use crate::decision::{DecisionVerdict, Verdict};
use crate::decision::{Disposition, JobState, Outcome, ReasonCode};
use crate::decision::{RequestKind, RequestStatus};

use super::{AttemptState, LineStatus};

/// Reads a stored name of the set `T`.
fn name_from_sql<T: ClosedSet>(value: ValueRef<'_>) -> FromSqlResult<T> {
    let name = value.as_str()?;
    T::parse(name).ok_or_else(|| {
        FromSqlError::Other(format!("unexpected {} {name:?} in the ledger", T::WHAT).into())
    })
}

macro_rules! stored_by_name {
    ($($set:ty),+ $(,)?) => {
        $(
            impl FromSql for $set {
                fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                    name_from_sql(value)
                }
            }

            impl ToSql for $set {
                fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                    Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.as_str().as_bytes())))
                }
            }
        )+
    };
}

stored_by_name!(
    JobState,
    Outcome,
    Disposition,
    ReasonCode,
    AttemptState,
    LineStatus,
    RequestKind,
    RequestStatus,
    Verdict,
    DecisionVerdict,
);

impl ToSql for Timestamp {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.to_ledger_text()))
    }
}

impl FromSql for Timestamp {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        Timestamp::from_ledger_text(text)
            .ok_or_else(|| FromSqlError::Other(format!("not a ledger time: {text:?}").into()))
    }
}
