//! The console's views, shown as tabs.

/// One view of the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    /// Callbacks held for a person.
    Held,
    /// Callbacks with no job to judge them against.
    Quarantined,
    /// Open jobs past their expected age.
    Aged,
    /// Failed jobs, permanent and transient.
    Failed,
    /// Every callback, in ingest order.
    Callbacks,
    /// The ledger accounting for every accepted job.
    Reconcile,
}

impl Tab {
    /// Every view, in the order of the tabs (and of the number keys 1–6).
    pub const ALL: [Tab; 6] = [
        Tab::Held,
        Tab::Quarantined,
        Tab::Aged,
        Tab::Failed,
        Tab::Callbacks,
        Tab::Reconcile,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Held => "Held",
            Tab::Quarantined => "Quarantined",
            Tab::Aged => "Aged",
            Tab::Failed => "Failed",
            Tab::Callbacks => "All callbacks",
            Tab::Reconcile => "Reconcile",
        }
    }

    /// Its place among the tabs, from 0.
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }

    /// The tab to the right, wrapping around.
    pub fn next(self) -> Tab {
        Tab::ALL[(self.index() + 1) % Tab::ALL.len()]
    }

    /// The tab to the left, wrapping around.
    pub fn prev(self) -> Tab {
        Tab::ALL[(self.index() + Tab::ALL.len() - 1) % Tab::ALL.len()]
    }
}
