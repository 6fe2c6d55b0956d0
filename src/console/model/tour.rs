//! The guided walkthrough of the demo's booking afternoon (`T` in the console, `jobledger
//! demo --tour`): its steps, written as data, and where the tour is.
//!
//! Each step names what the console shows (a view with a callback selected by its
//! label, the comparison, a Reconcile finding, the backlog) and says it in two or
//! three lines in a band at the bottom. The update step moves the console there; the
//! views draw the band and, while the tour runs, the labels C1–C5 on their rows.

use crate::console::tab::Tab;
use crate::decision::Verdict;
use crate::store::Finding;

/// Where the tour is, and the labels it gives the worked example's callbacks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tour {
    /// The step shown; once the tour is left, the step `T` comes back to.
    pub step: usize,
    /// The tour has the keyboard, and its band and labels are drawn.
    pub shown: bool,
    /// The worked example's callbacks found in the ledger, by sequence number: `C1`
    /// and so on, `C1′` for a later delivery of the same callback.
    pub labels: Vec<(i64, String)>,
}

impl Tour {
    /// The step shown.
    pub fn current(&self) -> &'static Step {
        &STEPS[self.step.min(STEPS.len() - 1)]
    }

    /// The label drawn on callback `seq` while the tour runs.
    pub fn label(&self, seq: i64) -> Option<&str> {
        self.labels
            .iter()
            .find(|(s, _)| *s == seq)
            .map(|(_, label)| label.as_str())
    }

    /// The first callback labelled `label` (the first delivery, not a repeat).
    pub fn seq_of(&self, label: &str) -> Option<i64> {
        self.labels
            .iter()
            .find(|(_, l)| l == label)
            .map(|(seq, _)| *seq)
    }
}

/// One step of the walkthrough: what the console shows, and what the band says.
#[derive(Debug)]
pub struct Step {
    /// A few words after "Tour 3/11 ·" on the band's top line.
    pub title: &'static str,
    /// Where the console is moved.
    pub scene: Scene,
    /// Two or three lines at 80 columns (wrapped at spaces).
    pub text: &'static str,
}

/// What a step shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scene {
    /// A callback view, the callback labelled `label` selected.
    Callback { tab: Tab, label: &'static str },
    /// The comparison of the held callback labelled `label`.
    Compare { label: &'static str },
    /// An answer written on the callback labelled `label` (once: not over an answer
    /// that closes it already), then its view, its queue one shorter.
    Answer {
        label: &'static str,
        verdict: Verdict,
        note: &'static str,
    },
    /// The Reconcile view with `Finding` selected.
    Finding(Finding),
    /// The jobs behind a Reconcile finding.
    FindingJobs(Finding),
    /// The Reconcile view scrolled to the backlog of questions for people.
    Backlog,
}

/// The walkthrough, in order.
pub const STEPS: &[Step] = &[
    Step {
        title: "the booking afternoon",
        scene: Scene::Callback {
            tab: Tab::Callbacks,
            label: "C1",
        },
        text: "A booking tool with a 120 s timeout, one afternoon. Its five callbacks are \
               labelled C1–C5 on their rows; each got exactly one disposition from a fixed \
               table: 1 applied, 1 held, 2 recorded, 1 quarantined.",
    },
    Step {
        title: "C1, applied late",
        scene: Scene::Callback {
            tab: Tab::Callbacks,
            label: "C1",
        },
        text: "C1 says the booking succeeded, 2m12s after its attempt timed out, and nobody \
               had started a replacement: applied (late_success), the job completed_late, \
               the timeout kept in its history. C1′ is C1 delivered again: recorded.",
    },
    Step {
        title: "C3 and C4, recorded",
        scene: Scene::Callback {
            tab: Tab::Callbacks,
            label: "C3",
        },
        text: "C3 reports a failure after its attempt timed out: recorded (late_failure), \
               the job's state stays. C4 reports success for a booking ops:ravi had \
               cancelled: recorded (after_cancel), kept as evidence. Nothing is overwritten.",
    },
    Step {
        title: "C5, quarantined",
        scene: Scene::Callback {
            tab: Tab::Quarantined,
            label: "C5",
        },
        text: "C5 names booking-9999, a job the ledger never accepted: quarantined \
               (no_matching_job), its raw bytes kept. A reviewer links it to a job, calls \
               it noise, or asks the sender; nothing is dropped.",
    },
    Step {
        title: "C2, held for the staff replacement",
        scene: Scene::Callback {
            tab: Tab::Held,
            label: "C2",
        },
        text: "C2 reports success for attempt 1, which timed out at 13:12:01; staff:maria \
               started attempt 2 at 13:14:30 and C2 came at 13:16:45. Two bookings are \
               possible: held for a person, timeout, arrival, gap and replacement side by side.",
    },
    Step {
        title: "the comparison",
        scene: Scene::Compare { label: "C2" },
        text: "C draws each attempt to scale, C2's arrival as a mark and the gap dotted, \
               and sets C2's report beside the attempt it reports on and the replacement, \
               field by field (≠ marks what differs). ↓ scrolls it.",
    },
    Step {
        title: "an answer, and the queue shrinks",
        scene: Scene::Answer {
            label: "C2",
            verdict: Verdict::SingleEffect,
            note: "tour: the hotel confirms one booking, HX-20977",
        },
        text: "The hotel confirms one booking, HX-20977. The tour writes that on C2 as your \
               answer (single_effect, a note, your name and the time; append-only), and Held \
               shrinks by one. In the console, a answers the row selected.",
    },
    Step {
        title: "reconcile: a missing notification",
        scene: Scene::Finding(Finding::MissingNotification),
        text: "The reconciliation accounts for every accepted job by terminal records and \
               output objects. booking-1051 succeeded, its output stored, but nobody was \
               notified: listed, for information only. A notification is a hint, not a result.",
    },
    Step {
        title: "reconcile: a missing output",
        scene: Scene::Finding(Finding::MissingOutput),
        text: "booking-1052 reported success, but the check found no confirmation object: a \
               consistency incident. So the report says NOT COMPLETE rather than claiming \
               the afternoon's queue finished.",
    },
    Step {
        title: "divergent decisions",
        scene: Scene::FindingJobs(Finding::DivergentDecisions),
        text: "booking-1045's retry ran in another region and decided again: dec-1045-eu \
               via eu-west, dec-1045-us via us-east. Acting on both would charge the deposit \
               twice: a person answers which stands (Enter shows both, a answers).",
    },
    Step {
        title: "the backlog alarm",
        scene: Scene::Backlog,
        text: "Held and quarantined arrivals per hour, against the reviewers' capacity: \
               quiet this afternoon. Above capacity the status line raises the backlog \
               alarm, a systemic fault to escalate; nobody widens a timeout in reaction.",
    },
];
