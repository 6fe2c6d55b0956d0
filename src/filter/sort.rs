//! The orders a list can be sorted in: which column, and which way.

use super::Scope;

/// A column a list can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SortColumn {
    /// The order rows came into the ledger (every list's own order).
    #[default]
    Ledger,
    /// Arrival minus the attempt's timeout.
    Gap,
    /// When the callback arrived.
    Arrival,
    /// When the attempt reported on timed out.
    Timeout,
    /// The reason code.
    Reason,
    /// When a job's owner escalates it: overdue first, none last (Aged).
    Escalation,
    /// When the job was accepted: the oldest first (Aged).
    Accepted,
    /// Who owns the job: names in byte order (`Zoe` before `ann`), jobs nobody owns
    /// last, each owner's jobs in the order they aged (Aged).
    Owner,
}

impl SortColumn {
    /// The name shown in a list's title.
    pub fn name(self) -> &'static str {
        match self {
            SortColumn::Ledger => "ledger order",
            SortColumn::Gap => "gap",
            SortColumn::Arrival => "arrival",
            SortColumn::Timeout => "timeout",
            SortColumn::Reason => "reason",
            SortColumn::Escalation => "escalation",
            SortColumn::Accepted => "accepted",
            SortColumn::Owner => "owner",
        }
    }

    /// The columns a list of `scope` can be sorted by, the list's own order first.
    pub fn of(scope: Scope) -> &'static [SortColumn] {
        match scope {
            Scope::Callbacks => &[
                SortColumn::Ledger,
                SortColumn::Gap,
                SortColumn::Arrival,
                SortColumn::Timeout,
                SortColumn::Reason,
            ],
            Scope::AgedJobs => &[
                SortColumn::Ledger,
                SortColumn::Escalation,
                SortColumn::Accepted,
                SortColumn::Owner,
            ],
            Scope::FailedJobs | Scope::Requests | Scope::RejectedLines | Scope::FindingJobs => {
                &[SortColumn::Ledger]
            }
        }
    }
}

/// The order of a list: a column and a direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Sort {
    /// The column rows are ordered by (then by their place in the ledger).
    pub column: SortColumn,
    /// Largest first.
    pub descending: bool,
}

impl Sort {
    /// The next of `columns` (after the last, the first again), ascending.
    pub fn next_column(self, columns: &[SortColumn]) -> Sort {
        let at = columns.iter().position(|c| *c == self.column).unwrap_or(0);
        Sort {
            column: columns[(at + 1) % columns.len()],
            descending: false,
        }
    }

    /// The same column the other way.
    pub fn reversed(self) -> Sort {
        Sort {
            descending: !self.descending,
            ..self
        }
    }

    /// How the console says it, e.g. `sorted by gap ▼`; `None` in the list's own order.
    pub fn label(self) -> Option<String> {
        self.short_label().map(|l| format!("sorted {l}"))
    }

    /// The same, short enough for a list's title at 80 columns: `by gap ▼`.
    pub fn short_label(self) -> Option<String> {
        let arrow = if self.descending { '▼' } else { '▲' };
        (self != Sort::default()).then(|| format!("by {} {arrow}", self.column.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::{Scope, Sort, SortColumn};

    #[test]
    fn s_cycles_the_columns_and_capital_s_reverses() {
        let mut sort = Sort::default();
        let mut seen = vec![sort.column];
        for _ in 0..5 {
            sort = sort
                .reversed()
                .next_column(SortColumn::of(Scope::Callbacks));
            assert!(!sort.descending);
            seen.push(sort.column);
        }
        assert_eq!(seen[..5], *SortColumn::of(Scope::Callbacks));
        assert_eq!(seen[5], SortColumn::Ledger);
        assert_eq!(Sort::default().label(), None);
        let gap = Sort::default()
            .next_column(SortColumn::of(Scope::Callbacks))
            .reversed();
        assert_eq!(gap.label().as_deref(), Some("sorted by gap ▼"));
        assert_eq!(
            Sort::default().next_column(SortColumn::of(Scope::FailedJobs)),
            Sort::default()
        );
    }
}
