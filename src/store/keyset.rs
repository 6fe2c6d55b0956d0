//! One way to ask for a page of any list: where it starts, by the key the list is
//! ordered by, and how many rows at most.

use std::cmp::Ordering;

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

/// The key of a job list: the value it is ordered by, then the job id.
pub type JobKey = (JobOrder, String);

/// The value a job list orders a job by, before its id: the same rule in Rust (its
/// `Ord`) and in each engine's SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOrder {
    /// A time: when the job aged, was accepted or escalates.
    At(Timestamp),
    /// The job's owner, then when it aged: names in byte order (as `str` compares
    /// them and both engines' text does), no owner after every name.
    Owner(Option<String>, Timestamp),
}

impl Ord for JobOrder {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (JobOrder::At(a), JobOrder::At(b)) => a.cmp(b),
            (JobOrder::Owner(a, a_at), JobOrder::Owner(b, b_at)) => {
                (a.is_none(), a, a_at).cmp(&(b.is_none(), b, b_at))
            }
            // Never in one list; ordered all the same, so the order is total.
            (JobOrder::At(_), JobOrder::Owner(..)) => Ordering::Less,
            (JobOrder::Owner(..), JobOrder::At(_)) => Ordering::Greater,
        }
    }
}

impl PartialOrd for JobOrder {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
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

#[cfg(test)]
mod tests {
    use super::JobOrder;
    use crate::clock::Timestamp;

    #[test]
    fn owners_compare_by_bytes_with_none_last_then_by_when_they_aged() {
        let early = Timestamp::EARLIEST;
        let late = Timestamp::LATEST;
        let owner = |name: Option<&str>, at| JobOrder::Owner(name.map(str::to_owned), at);
        let mut orders = vec![
            owner(None, early),
            owner(Some("ann"), late),
            owner(Some("Ärne"), early),
            owner(Some("ann"), early),
            owner(Some("Zoë"), late),
            owner(None, late),
        ];
        orders.sort();
        assert_eq!(
            orders,
            [
                owner(Some("Zoë"), late),
                owner(Some("ann"), early),
                owner(Some("ann"), late),
                owner(Some("Ärne"), early),
                owner(None, early),
                owner(None, late),
            ]
        );
    }
}
