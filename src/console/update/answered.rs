//! What came of an action in an answer form, told the same way by the one-callback
//! form (`writes`) and the job's-decisions form (`decisions`): `writes` dispatches to
//! `decisions`, so what they share lives here rather than in either.

/// What came of an action in an answer form (one callback, or one job's decisions).
pub(super) enum Answered {
    /// Nothing written (the form stays open, maybe with an error to fix).
    Nothing,
    /// Something happened that the form shows until the reviewer closes it: a linked
    /// answer's new callback, or someone else's answer that came first.
    Shown,
    /// Written, said in one line: the form closes and the line passes.
    Passing(String),
}
