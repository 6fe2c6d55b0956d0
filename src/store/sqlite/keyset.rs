//! One way to ask for a page of any list: where it starts, by the key the list is
//! ordered by, and how many rows at most.
//!
//! Lists are paged by keyset (`key > after`), never by OFFSET, so a page costs the
//! same at the first row and at the millionth.

use crate::clock::Timestamp;

/// Where a page of a list starts, by the key the list is ordered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyset<K> {
    /// The first rows.
    First,
    /// Rows from this key on (the key included): re-reading a page in place.
    From(K),
    /// Rows strictly after this key.
    After(K),
    /// Rows strictly before this key, the nearest ones (paging up).
    Before(K),
    /// The last rows.
    Last,
}

/// The key of a job list: the time it is ordered by, then the job id.
pub type JobKey = (Timestamp, String);

impl<K> Keyset<K> {
    /// The key the page starts at, if it names one.
    pub(super) fn key(&self) -> Option<&K> {
        match self {
            Keyset::From(k) | Keyset::After(k) | Keyset::Before(k) => Some(k),
            Keyset::First | Keyset::Last => None,
        }
    }

    /// Read from the end towards the start (then put back in order).
    pub(super) fn backwards(&self) -> bool {
        matches!(self, Keyset::Before(_) | Keyset::Last)
    }

    /// How a row's key compares with the page's key to be on the page.
    pub(super) fn comparison(&self) -> Option<&'static str> {
        match self {
            Keyset::From(_) => Some(">="),
            Keyset::After(_) => Some(">"),
            Keyset::Before(_) => Some("<"),
            Keyset::First | Keyset::Last => None,
        }
    }

    /// The direction the rows are read in.
    pub(super) fn direction(&self) -> &'static str {
        if self.backwards() { "DESC" } else { "ASC" }
    }
}

/// One page of a list: where it starts and how many rows it holds at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest<K> {
    /// Where the page starts.
    pub keyset: Keyset<K>,
    /// Rows at most.
    pub limit: usize,
}

impl<K> PageRequest<K> {
    /// The first `limit` rows.
    pub fn first(limit: usize) -> Self {
        PageRequest {
            keyset: Keyset::First,
            limit,
        }
    }

    /// `limit` rows starting at `keyset`.
    pub fn at(keyset: Keyset<K>, limit: usize) -> Self {
        PageRequest { keyset, limit }
    }
}

/// The value a sorted list is ordered by, as the ledger computed it.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    Integer(i64),
    Real(f64),
    Text(String),
}

/// The key of a sorted callback list: the sort value, then the sequence number.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackKey {
    /// The value of the column sorted by (the sequence number in ledger order).
    pub value: SortValue,
    /// The callback's sequence number: ties keep ledger order.
    pub seq: i64,
}

impl rusqlite::ToSql for SortValue {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(match self {
            SortValue::Integer(n) => (*n).into(),
            SortValue::Real(x) => (*x).into(),
            SortValue::Text(s) => s.as_str().into(),
        })
    }
}

impl rusqlite::types::FromSql for SortValue {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        use rusqlite::types::{FromSqlError, ValueRef};
        match value {
            ValueRef::Integer(n) => Ok(SortValue::Integer(n)),
            ValueRef::Real(x) => Ok(SortValue::Real(x)),
            ValueRef::Text(t) => Ok(SortValue::Text(String::from_utf8_lossy(t).into_owned())),
            ValueRef::Null | ValueRef::Blob(_) => Err(FromSqlError::InvalidType),
        }
    }
}
