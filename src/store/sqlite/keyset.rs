//! How a page of a list ([`crate::store::PageRequest`]) is read in SQL, and how the
//! value a sorted list is ordered by goes in and out of a statement.
//!
//! Lists are paged by keyset (`key > after`), never by OFFSET, so a page costs the
//! same at the first row and at the millionth.

use crate::store::{Keyset, SortValue};

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
