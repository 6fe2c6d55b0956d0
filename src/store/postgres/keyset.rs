//! How a page of a list ([`crate::store::PageRequest`]) is read in SQL on
//! PostgreSQL: by keyset (`key > after`), never by OFFSET, as on SQLite.

use crate::store::Keyset;

/// The key the page starts at, if it names one.
pub(super) fn key<K>(keyset: &Keyset<K>) -> Option<&K> {
    match keyset {
        Keyset::From(k) | Keyset::After(k) | Keyset::Before(k) => Some(k),
        Keyset::First | Keyset::Last => None,
    }
}

/// Read from the end towards the start (then put back in order).
pub(super) fn backwards<K>(keyset: &Keyset<K>) -> bool {
    matches!(keyset, Keyset::Before(_) | Keyset::Last)
}

/// How a row's key compares with the page's key to be on the page.
pub(super) fn comparison<K>(keyset: &Keyset<K>) -> Option<&'static str> {
    match keyset {
        Keyset::From(_) => Some(">="),
        Keyset::After(_) => Some(">"),
        Keyset::Before(_) => Some("<"),
        Keyset::First | Keyset::Last => None,
    }
}

/// The direction the rows are read in.
pub(super) fn direction<K>(keyset: &Keyset<K>) -> &'static str {
    if backwards(keyset) { "DESC" } else { "ASC" }
}
