//! Giving the marked aged jobs an owner at once: first the owner and escalation time,
//! then the plan (how many take the owner, how many have it already, which are left
//! out) and the count typed to confirm it, then what was written or why nothing was.

use crate::console::field::{Outcome, TextField};
use crate::console::tab::Tab;
use crate::escalation::bulk::OwnerPlan;

use super::form::OwnerField;

/// Where a bulk owner assignment stands.
#[derive(Debug, Clone, PartialEq)]
pub enum OwnersStage {
    /// Typing the owner and the escalation time.
    Owner,
    /// Reading the plan before anything is written, and typing its count.
    Plan {
        plan: Box<OwnerPlan>,
        /// The count as typed: nothing is written until it is the plan's.
        confirm: TextField,
    },
}

/// An owner and escalation time for the jobs marked in a view.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkOwnerForm {
    /// The view whose marks are given the owner (and cleared once written).
    pub tab: Tab,
    /// The jobs marked, in id order.
    pub jobs: Vec<String>,
    pub owner: TextField,
    pub escalate_at: TextField,
    pub field: OwnerField,
    pub stage: OwnersStage,
    /// A problem to fix before going on (the form stays open).
    pub error: Option<String>,
    pub outcome: Option<Outcome>,
    /// Under a refusal: what changed since the plan, job by job.
    pub moved: Vec<String>,
}

impl BulkOwnerForm {
    /// The form for `jobs`, marked in `tab`, its owner prefilled with `owner` (the
    /// person at the console: the usual owner of what they mark).
    pub fn new(tab: Tab, jobs: Vec<String>, owner: &str) -> Self {
        BulkOwnerForm {
            tab,
            jobs,
            owner: TextField::with(owner),
            escalate_at: TextField::default(),
            field: OwnerField::Owner,
            stage: OwnersStage::Owner,
            error: None,
            outcome: None,
            moved: Vec::new(),
        }
    }

    /// The plan on screen, once the owner is given.
    pub fn plan(&self) -> Option<&OwnerPlan> {
        match &self.stage {
            OwnersStage::Owner => None,
            OwnersStage::Plan { plan, .. } => Some(plan),
        }
    }

    /// The count as typed, once the plan is shown.
    pub fn confirm(&self) -> Option<&TextField> {
        match &self.stage {
            OwnersStage::Owner => None,
            OwnersStage::Plan { confirm, .. } => Some(confirm),
        }
    }

    /// The text field that has the keyboard.
    pub fn focused_text(&mut self) -> &mut TextField {
        match (&mut self.stage, self.field) {
            (OwnersStage::Plan { confirm, .. }, _) => confirm,
            (OwnersStage::Owner, OwnerField::Owner) => &mut self.owner,
            (OwnersStage::Owner, OwnerField::EscalateAt) => &mut self.escalate_at,
        }
    }
}

/// Job ids named in a list before "and N more".
const JOBS_SHOWN: usize = 8;

/// The first few job ids of a list, and how many more: `booking-1042 booking-1043 …
/// and 40 more` (made inert where shown).
pub fn some_jobs(jobs: &[String]) -> String {
    let shown = jobs
        .iter()
        .take(JOBS_SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    match jobs.len().saturating_sub(JOBS_SHOWN) {
        0 => shown,
        more => format!("{shown} … and {more} more"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_field_has_the_keyboard_once_the_plan_is_shown() {
        let mut form = BulkOwnerForm::new(Tab::Aged, vec!["a".to_owned()], "ops:kim");
        form.field = OwnerField::EscalateAt;
        form.focused_text().push('2');
        assert_eq!(form.escalate_at.text(), "2");
        form.stage = OwnersStage::Plan {
            plan: Box::new(OwnerPlan {
                owner: "ops:kim".to_owned(),
                escalate_at: None,
                assigned: vec!["a".to_owned()],
                unchanged: Vec::new(),
                left_out: Vec::new(),
            }),
            confirm: TextField::default(),
        };
        form.focused_text().push('1');
        assert_eq!(form.confirm().map(TextField::text), Some("1"));
        assert_eq!(form.escalate_at.text(), "2");
    }

    #[test]
    fn a_long_list_of_jobs_names_the_first_and_counts_the_rest() {
        let jobs: Vec<String> = (0..10).map(|i| format!("j{i}")).collect();
        assert_eq!(some_jobs(&jobs[..2]), "j0 j1");
        assert_eq!(some_jobs(&jobs), "j0 j1 j2 j3 j4 j5 j6 j7 … and 2 more");
    }
}
