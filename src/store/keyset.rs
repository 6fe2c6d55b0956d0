//! One way to ask for a page of any list: where it starts, by the key the list is
//! ordered by, and how many rows at most.

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

impl CallbackKey {
    /// The key of callback `seq` in a list in ledger order, where the value sorted by
    /// is the sequence number itself.
    pub fn in_ledger_order(seq: i64) -> CallbackKey {
        CallbackKey {
            value: SortValue::Integer(seq),
            seq,
        }
    }
}
