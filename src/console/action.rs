//! What a reviewer (or the terminal) asks of the console.

use super::field::InputRequest;
use super::tab::Tab;

/// An intent, produced by the key table or the terminal and carried out by [`super::update()`].
///
/// The same action means the nearest thing in each context: `Move(Down)` moves the
/// selection in a list, scrolls the detail or the help, and picks the next verdict in a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the console.
    Quit,
    /// Step back: close what is open, clear the filter; never leave (only [`Action::Quit`]
    /// and [`Action::BackOrQuit`] at the top level do).
    Back,
    /// `q` in a list: back one level where there is one (a finding's jobs go back to
    /// the findings); at the top level, leave.
    BackOrQuit,
    /// Move the selection, or scroll what has the keyboard.
    Move(Move),
    NextTab,
    PrevTab,
    ShowTab(Tab),
    /// Open the detail pane of the selected row.
    OpenDetail,
    /// In the detail pane: the next or previous row of the list.
    NextRow,
    PrevRow,
    /// Start editing the filter of the current view.
    Filter,
    Help,
    /// Answer the selected held or quarantined callback.
    Answer,
    /// Set the owner and escalation time of the selected job.
    Owner,
    /// Ask for a retry of the selected job (checked, through the outbox).
    Retry,
    /// Ask for a cancel of the selected job (checked, through the outbox).
    Cancel,
    /// Held and Quarantined: list the questions still open, or all of them.
    ToggleOpen,
    /// Withdraw the selected pending request (Outbox view).
    Withdraw,
    /// Open the comparison pane of the selected held callback.
    Compare,
    /// Move to the next row new since the reviewer last looked at the list.
    NextNew,
    /// Move to the previous such row.
    PrevNew,
    /// Claim the selected held or quarantined callback ("on it"), or release one's own
    /// claim on it.
    Claim,
    /// Put the selected row's job id on the terminal's clipboard.
    CopyJobId,
    /// Put the selected callback's delivery id on the terminal's clipboard.
    CopyDeliveryId,
    /// Write the selected callback's evidence bundle to a file.
    Export,
    /// Mark the selected callback for a bulk answer, or unmark it.
    Mark,
    /// Mark every callback the view's filter matches (not only the page).
    MarkAll,
    /// Clear the view's marks.
    ClearMarks,
    /// Open the command prompt (`:save NAME`).
    Command,
    /// Open the list of saved views.
    SavedViews,
    /// Delete the saved view selected in their list (asked first).
    DeleteView,
    /// Sort the list by its next column (`s`), or the other way (`S`).
    SortNext,
    SortReverse,
    /// Start the guided tour of the demo's afternoon, or come back to the step left.
    Tour,
    /// The tour's next step (after the last, the tour ends).
    TourNext,
    /// The tour's step before.
    TourBack,
    /// A left click at this cell of the screen: selects the row or the tab there.
    Click {
        column: u16,
        row: u16,
    },
    /// Typing into a text field.
    Input(char),
    /// Edit the text field: move the cursor, delete (the text field's keys).
    Edit(InputRequest),
    NextField,
    PrevField,
    /// Write the form, keep the filter, confirm the request.
    Submit,
    /// The refresh tick (about every 250 ms): pick up changes to the ledger.
    Tick,
    /// A search running off the console's thread may have ended: its rows are put on
    /// screen now, not at the next tick.
    Searched,
    /// The terminal now has this size.
    Resize {
        width: u16,
        height: u16,
    },
}

/// A move of the selection (or of a scroll position).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
}
