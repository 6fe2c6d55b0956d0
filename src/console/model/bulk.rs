//! Answering the marked rows at once: first the answer (verdict and note), then the
//! plan (how many, which are left out and why, and above [`CONFIRM_ABOVE`] rows the
//! count typed to confirm), then what was written.

use crate::console::tab::Tab;
use crate::review::bulk::Plan;
use crate::review::{CaseKind, Verdict};

use crate::console::field::{Outcome, TextField};

/// Above this many answers, the reviewer types the count to confirm.
pub const CONFIRM_ABOVE: usize = 100;

/// Where a bulk answer stands.
#[derive(Debug, Clone, PartialEq)]
pub enum BulkStage {
    /// Choosing the verdict and writing the note.
    Answer,
    /// Reading the plan before anything is written.
    Plan {
        plan: Box<Plan>,
        /// The count as typed, when the plan is large enough to ask for it.
        confirm: TextField,
    },
}

/// The fields of the bulk answer form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkField {
    Verdict,
    Note,
}

/// A bulk answer of the rows marked in a view.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkForm {
    /// The view whose marks are answered (and cleared once written).
    pub tab: Tab,
    /// The callbacks marked, in ingest order.
    pub seqs: Vec<i64>,
    /// The verdicts offered: those of the kinds of question among the marked rows,
    /// without `linked` (it names a job per callback).
    pub verdicts: Vec<Verdict>,
    /// Index into `verdicts`.
    pub verdict: usize,
    pub note: TextField,
    pub field: BulkField,
    pub stage: BulkStage,
    /// A problem to fix before going on (the form stays open).
    pub error: Option<String>,
    pub outcome: Option<Outcome>,
}

impl BulkForm {
    /// The answer form for `seqs`, marked in `tab`, whose rows ask `kinds` of question.
    pub fn new(tab: Tab, seqs: Vec<i64>, kinds: &[CaseKind]) -> Self {
        let mut verdicts: Vec<Verdict> = Vec::new();
        for kind in CaseKind::ALL.iter().filter(|k| kinds.contains(k)) {
            for &v in kind.verdicts() {
                if !v.needs_job() && !verdicts.contains(&v) {
                    verdicts.push(v);
                }
            }
        }
        BulkForm {
            tab,
            seqs,
            verdicts,
            verdict: 0,
            note: TextField::default(),
            field: BulkField::Verdict,
            stage: BulkStage::Answer,
            error: None,
            outcome: None,
        }
    }

    /// The verdict picked (`None`: no marked row takes any).
    pub fn chosen(&self) -> Option<Verdict> {
        self.verdicts
            .get(self.verdict)
            .or(self.verdicts.last())
            .copied()
    }

    /// Picks the next (`delta` 1) or previous (-1) verdict.
    pub fn pick(&mut self, delta: isize) {
        let n = self.verdicts.len().max(1);
        self.verdict = (self.verdict + n).saturating_add_signed(delta) % n;
    }

    /// The plan on screen, once the answer is given.
    pub fn plan(&self) -> Option<&Plan> {
        match &self.stage {
            BulkStage::Answer => None,
            BulkStage::Plan { plan, .. } => Some(plan),
        }
    }

    /// Does the plan ask for the count to be typed before writing?
    pub fn needs_count(&self) -> bool {
        self.plan()
            .is_some_and(|plan| plan.answered.len() > CONFIRM_ABOVE)
    }

    /// The text field that has the keyboard, if any.
    pub fn focused_text(&mut self) -> Option<&mut TextField> {
        match (&mut self.stage, self.field) {
            (BulkStage::Plan { confirm, .. }, _) => Some(confirm),
            (BulkStage::Answer, BulkField::Note) => Some(&mut self.note),
            (BulkStage::Answer, BulkField::Verdict) => None,
        }
    }
}

/// `n` and the noun, singular for one: `1 callback`, `12 callbacks`.
pub fn count_of(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Callback numbers named in a list before "and N more".
const SEQS_SHOWN: usize = 6;

/// The first few callback numbers of a list, and how many more: `#2 #5 … and 40 more`.
pub fn some_of(seqs: &[i64]) -> String {
    let shown: Vec<String> = seqs
        .iter()
        .take(SEQS_SHOWN)
        .map(|seq| format!("#{seq}"))
        .collect();
    match seqs.len().saturating_sub(SEQS_SHOWN) {
        0 => shown.join(" "),
        more => format!("{} … and {more} more", shown.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdicts_offered_are_those_of_the_marked_kinds_without_linked() {
        let form = BulkForm::new(Tab::Callbacks, vec![1, 2], &[CaseKind::Quarantined]);
        assert_eq!(form.verdicts, [Verdict::Noise, Verdict::NeedsRemoteCheck]);
        let held = [CaseKind::PossibleDuplicate, CaseKind::ConflictingOutcomes];
        let form = BulkForm::new(Tab::Held, vec![1], &held);
        assert_eq!(form.verdicts.len(), 5, "needs_remote_check once");
        assert_eq!(form.chosen(), Some(Verdict::SingleEffect));
    }
}
