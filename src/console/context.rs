//! Where the keyboard is. The model says which context holds it; the key table binds
//! keys per context, and the help screen lists them under each context's heading.

/// Where the keyboard is: each context has its own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Keys that work in every context.
    Everywhere,
    /// Moving in a view's list.
    List,
    /// The detail pane has the keyboard.
    Detail,
    /// Typing the filter of a view.
    Filter,
    /// Filling in an answer form (one callback, or a job's divergent decisions).
    Form,
    /// Filling in an owner form.
    Owner,
    /// Editing the text of a field, in every context that takes typing (a group of
    /// keys, never where the keyboard is itself).
    Editing,
    /// Confirming a request to the outside.
    Confirm,
    /// A request the checks already refuse: nothing to confirm, so no key sends it.
    Refused,
    /// Confirming the withdrawal of a pending request (with an optional note).
    Withdraw,
    /// Reading the comparison pane of a held callback.
    Compare,
    /// Choosing the verdict and note of a bulk answer (the marked rows).
    Bulk,
    /// Reading the plan of a bulk answer before it is written.
    Plan,
    /// Typing the owner and escalation time of the marked aged jobs.
    BulkOwner,
    /// Reading the plan of a bulk owner assignment and typing its count.
    OwnerPlan,
    /// Reading what came of a form.
    Outcome,
    /// The help screen.
    Help,
    /// Typing a command after `:`.
    Command,
    /// Choosing a saved view.
    SavedViews,
    /// Confirming that a saved view is replaced or deleted.
    ConfirmView,
    /// The guided walkthrough of the demo's afternoon, step by step.
    Tour,
}

impl Context {
    /// Contexts in the order the help screen lists them.
    pub const ALL: [Context; 21] = [
        Context::List,
        Context::Detail,
        Context::Filter,
        Context::Command,
        Context::SavedViews,
        Context::ConfirmView,
        Context::Form,
        Context::Owner,
        Context::Editing,
        Context::Confirm,
        Context::Refused,
        Context::Withdraw,
        Context::Compare,
        Context::Bulk,
        Context::Plan,
        Context::BulkOwner,
        Context::OwnerPlan,
        Context::Outcome,
        Context::Tour,
        Context::Help,
        Context::Everywhere,
    ];

    /// A heading for the help screen.
    pub fn heading(self) -> &'static str {
        match self {
            Context::Everywhere => "Everywhere",
            Context::List => "In a list",
            Context::Detail => "In the detail pane",
            Context::Filter => "Typing a filter",
            Context::Form => "In an answer form",
            Context::Owner => "In an owner form",
            Context::Editing => "Editing text (in a form, the filter or a command)",
            Context::Confirm => "Confirming a retry or cancel",
            Context::Refused => "A retry or cancel the checks refuse",
            Context::Withdraw => "Withdrawing a pending request (Outbox)",
            Context::Compare => "In the comparison of a held callback",
            Context::Bulk => "Answering the marked rows at once",
            Context::Plan => "The plan of a bulk answer",
            Context::BulkOwner => "Giving the marked aged jobs an owner at once",
            Context::OwnerPlan => "The plan of a bulk owner assignment",
            Context::Outcome => "Reading what was written or refused",
            Context::Help => "In this help",
            Context::Command => "Typing a command (after :)",
            Context::SavedViews => "Choosing a saved view",
            Context::ConfirmView => "Replacing or deleting a saved view",
            Context::Tour => "In the guided tour of the demo (T, or jobledger demo --tour)",
        }
    }
}
