//! Answering a job's divergent decisions (`a` on a job of the Reconcile view's
//! divergent-decisions list): which decision stands, a note, and what came of it.

use crate::console::field::{Outcome, TextField};
use crate::decision::DecisionVerdict;
use crate::store::DecisionAnswerRow;

/// The answer form for a job decided under more than one decision id.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionsForm {
    pub job_id: String,
    /// Index into [`DecisionVerdict::ALL`].
    pub verdict: usize,
    pub note: TextField,
    /// Typing goes to the note (else arrows pick the verdict).
    pub on_note: bool,
    /// The answer standing when the form opened (the one the reviewer saw).
    pub seen: Option<DecisionAnswerRow>,
    /// A problem to fix before writing (the form stays editable).
    pub error: Option<String>,
    pub outcome: Option<Outcome>,
}

impl DecisionsForm {
    pub fn new(job_id: &str, seen: Option<DecisionAnswerRow>) -> Self {
        DecisionsForm {
            job_id: job_id.to_owned(),
            verdict: 0,
            note: TextField::default(),
            on_note: false,
            seen,
            error: None,
            outcome: None,
        }
    }

    /// The verdict picked.
    pub fn chosen(&self) -> DecisionVerdict {
        DecisionVerdict::ALL[self.verdict.min(DecisionVerdict::ALL.len() - 1)]
    }

    /// Picks the next (`delta` 1) or previous (-1) verdict, round.
    pub fn pick(&mut self, delta: isize) {
        let n = DecisionVerdict::ALL.len();
        self.verdict = (self.verdict + n).saturating_add_signed(delta) % n;
    }
}
