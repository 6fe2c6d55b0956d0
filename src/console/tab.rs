//! The console's views, shown as tabs: the one place a tab is described.
//!
//! A tab names its title; its number key is its place among the tabs (the key table and
//! the tab bar both read it from here). The page of rows it lists is the model's
//! (`model::Lists`), and how it is drawn is named once, beside the views' modules
//! (`views::of`). This module imports nothing of the console, so the key table, the
//! actions and the model can all name a tab.

/// One view of the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray)]
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
    /// Requests to the outside (retries, cancels), as `jobledger outbox` lists them.
    Outbox,
    /// Event lines not taken, with the reason, as `jobledger rejected` lists them.
    Rejected,
}

impl Tab {
    /// Every view, in the order of the tabs (and of the number keys from 1).
    pub const ALL: &'static [Tab] = <Tab as strum::VariantArray>::VARIANTS;

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Held => "Held",
            Tab::Quarantined => "Quarantined",
            Tab::Aged => "Aged",
            Tab::Failed => "Failed",
            Tab::Callbacks => "All callbacks",
            Tab::Reconcile => "Reconcile",
            Tab::Outbox => "Outbox",
            Tab::Rejected => "Rejected",
        }
    }

    /// Its place among the tabs, from 0.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The number key that shows it: its place among the tabs, from 1.
    pub fn key(self) -> char {
        u32::try_from(self.index() + 1)
            .ok()
            .and_then(|n| char::from_digit(n, 10))
            .unwrap_or('?')
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
