//! The console's views, shown as tabs: the one place a tab is described.
//!
//! A tab names its title and the page of rows it lists; its number key is its place
//! among the tabs (the key table and the tab bar both read it from here), and how it
//! is drawn is named once, beside the views' modules (`views::of`). The model, which
//! this module serves, never reaches the drawing code.

use crate::decision::Disposition;
use crate::store::{AgedJobRow, OutboxRow, RejectedLine};

use super::model::List;
use super::model::page::{CallbackItem, CallbackList, FailedItem, Page};

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

/// What a tab is: its title, and the page it lists (`None`: it lists no rows).
struct Spec {
    title: &'static str,
    page: Option<fn() -> Box<dyn List>>,
}

impl Tab {
    /// Every view, in the order of the tabs (and of the number keys from 1).
    pub const ALL: &'static [Tab] = <Tab as strum::VariantArray>::VARIANTS;

    fn spec(self) -> Spec {
        let list = |title, page| Spec {
            title,
            page: Some(page),
        };
        match self {
            Tab::Held => list("Held", || callbacks(Some(Disposition::Hold), false)),
            Tab::Quarantined => list("Quarantined", || {
                callbacks(Some(Disposition::Quarantine), true)
            }),
            Tab::Aged => list("Aged", || Box::new(Page::<AgedJobRow>::new(()))),
            Tab::Failed => list("Failed", || Box::new(Page::<FailedItem>::new(()))),
            Tab::Callbacks => list("All callbacks", || callbacks(None, false)),
            Tab::Reconcile => Spec {
                title: "Reconcile",
                page: None,
            },
            Tab::Outbox => list("Outbox", || Box::new(Page::<OutboxRow>::new(()))),
            Tab::Rejected => list("Rejected", || Box::new(Page::<RejectedLine>::new(()))),
        }
    }

    /// The tab's title.
    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// A new, empty page of the rows the tab lists (`None`: it lists no rows).
    pub fn new_page(self) -> Option<Box<dyn List>> {
        self.spec().page.map(|page| page())
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

/// A page of the callbacks of one disposition (`None`: all of them). Held and
/// quarantined callbacks are questions: their views list the open ones first.
fn callbacks(disposition: Option<Disposition>, raw_head: bool) -> Box<dyn List> {
    let open = matches!(
        disposition,
        Some(Disposition::Hold | Disposition::Quarantine)
    );
    Box::new(Page::<CallbackItem>::new(CallbackList {
        disposition,
        raw_head,
        open,
    }))
}
