//! Rows marked for a bulk write: a set of keys per view, kept while other views are
//! shown and cleared once the write is done. Callbacks are marked by their sequence
//! number (a bulk answer), aged jobs by their id (a bulk owner): each kind of row its
//! own [`Marks`], so a key never stands for the wrong kind.

use std::borrow::Borrow;
use std::collections::{BTreeSet, HashMap};

use crate::console::tab::Tab;

/// The rows marked in each view, by key `K`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marks<K: Ord>(HashMap<Tab, BTreeSet<K>>);

impl<K: Ord> Default for Marks<K> {
    fn default() -> Self {
        Marks(HashMap::new())
    }
}

impl<K: Ord> Marks<K> {
    /// The rows marked in `tab`, in key order.
    pub fn of(&self, tab: Tab) -> Option<&BTreeSet<K>> {
        self.0.get(&tab).filter(|marked| !marked.is_empty())
    }

    /// How many rows are marked in `tab`.
    pub fn count(&self, tab: Tab) -> usize {
        self.of(tab).map_or(0, BTreeSet::len)
    }

    /// Is the row `key` marked in `tab`?
    pub fn is_marked<Q>(&self, tab: Tab, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.of(tab).is_some_and(|marked| marked.contains(key))
    }

    /// Marks `key` in `tab`, or unmarks it when it was marked; returns whether it is
    /// marked now.
    pub fn toggle(&mut self, tab: Tab, key: K) -> bool {
        let marked = self.0.entry(tab).or_default();
        if marked.remove(&key) {
            false
        } else {
            marked.insert(key);
            true
        }
    }

    /// Marks every one of `keys` in `tab` (those marked stay marked); returns how many
    /// were not marked before.
    pub fn mark_all(&mut self, tab: Tab, keys: impl IntoIterator<Item = K>) -> usize {
        let marked = self.0.entry(tab).or_default();
        keys.into_iter()
            .map(|key| marked.insert(key))
            .filter(|&new| new)
            .count()
    }

    /// Clears the marks of `tab`; returns how many there were.
    pub fn clear(&mut self, tab: Tab) -> usize {
        self.0.remove(&tab).map_or(0, |marked| marked.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_kept_per_view() {
        let mut marks = Marks::default();
        assert!(marks.toggle(Tab::Held, 4));
        assert_eq!(marks.mark_all(Tab::Held, [3, 4, 9]), 2);
        marks.toggle(Tab::Callbacks, 4);
        assert!(!marks.toggle(Tab::Held, 9));
        assert_eq!(
            marks
                .of(Tab::Held)
                .map(|m| m.iter().copied().collect::<Vec<_>>()),
            Some(vec![3, 4])
        );
        assert_eq!(marks.clear(Tab::Held), 2);
        assert_eq!(marks.count(Tab::Held), 0);
        assert!(marks.is_marked(Tab::Callbacks, &4));
    }

    #[test]
    fn jobs_are_marked_by_their_id() {
        let mut marks: Marks<String> = Marks::default();
        assert!(marks.toggle(Tab::Aged, "booking-1043".to_owned()));
        assert_eq!(
            marks.mark_all(
                Tab::Aged,
                ["booking-1042", "booking-1043"].map(String::from)
            ),
            1
        );
        assert!(marks.is_marked(Tab::Aged, "booking-1042"));
        assert!(!marks.is_marked(Tab::Failed, "booking-1042"));
        assert!(!marks.toggle(Tab::Aged, "booking-1043".to_owned()));
        assert_eq!(marks.count(Tab::Aged), 1);
    }
}
