//! Rows marked for a bulk answer: a set of callback numbers per view, kept while
//! other views are shown and cleared once the answers are written.

use std::collections::{BTreeSet, HashMap};

use crate::console::tab::Tab;

/// The callbacks marked in each view, by sequence number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks(HashMap<Tab, BTreeSet<i64>>);

impl Marks {
    /// The callbacks marked in `tab`, in ingest order.
    pub fn of(&self, tab: Tab) -> Option<&BTreeSet<i64>> {
        self.0.get(&tab).filter(|marked| !marked.is_empty())
    }

    /// How many callbacks are marked in `tab`.
    pub fn count(&self, tab: Tab) -> usize {
        self.of(tab).map_or(0, BTreeSet::len)
    }

    /// Is callback `seq` marked in `tab`?
    pub fn is_marked(&self, tab: Tab, seq: i64) -> bool {
        self.of(tab).is_some_and(|marked| marked.contains(&seq))
    }

    /// Marks `seq` in `tab`, or unmarks it when it was marked; returns whether it is
    /// marked now.
    pub fn toggle(&mut self, tab: Tab, seq: i64) -> bool {
        let marked = self.0.entry(tab).or_default();
        if marked.remove(&seq) {
            false
        } else {
            marked.insert(seq);
            true
        }
    }

    /// Marks every one of `seqs` in `tab` (those marked stay marked); returns how many
    /// were not marked before.
    pub fn mark_all(&mut self, tab: Tab, seqs: impl IntoIterator<Item = i64>) -> usize {
        let marked = self.0.entry(tab).or_default();
        seqs.into_iter().filter(|&seq| marked.insert(seq)).count()
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
        assert!(marks.is_marked(Tab::Callbacks, 4));
    }
}
