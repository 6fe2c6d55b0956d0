//! The comparison pane of a held callback (`C`): the comparison read from the ledger
//! ([`crate::evidence::compare`], which the evidence bundle shows too) and how far it
//! is scrolled; and the one-line reading kept for the selected held callback.

pub use crate::evidence::compare::{Comparison, Pair, Side, pairs};

/// The comparison pane, open.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparePane {
    /// What is set side by side, read when the pane opened.
    pub comparison: Comparison,
    /// Lines of the comparison scrolled off the top.
    pub scroll: usize,
}

/// [`Comparison::reading`] of one held callback, kept while it is selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beside {
    pub seq: i64,
    pub reading: String,
}
