//! Marking rows, and answering the marked callbacks at once: the plan is read from
//! the ledger before anything is written, and the write checks every row again against
//! the plan shown (a row another reviewer answered since is left out and named). Aged
//! jobs are marked here too; their bulk owner is [`super::bulk_owner`]'s.

use crate::clock::Timestamp;
use crate::console::action::{Action, Move};
use crate::console::field::{Outcome, TextField};
use crate::console::model::bulk::{BulkField, BulkForm, BulkStage, count_of, some_of};
use crate::console::model::form::Form;
use crate::console::model::page::CallbackItem;
use crate::console::model::{Flash, List, Overlay};
use crate::inert::inert;
use crate::review::CaseKind;
use crate::review::bulk::{self, BulkRequest, Plan, Selection};
use crate::store::StoreError;

use super::{App, reads};

/// Where marks are made, said where a row cannot be marked.
const MARKS_ARE_FOR: &str =
    "marks are for callbacks (Held, Quarantined, All callbacks) and aged jobs (Aged)";

/// Space: marks or unmarks the selected callback or aged job, and moves to the next row.
pub(super) fn mark(app: &mut App) -> Result<(), StoreError> {
    let tab = app.model.tab;
    let list = app.model.list();
    if let Some(seq) = list.and_then(List::callback).map(|row| row.seq) {
        app.model.callback_marks.toggle(tab, seq);
    } else if let Some(job) = list.and_then(List::aged).map(|row| row.job_id.clone()) {
        app.model.job_marks.toggle(tab, job);
    } else {
        app.model.flash = Flash::info(
            if app.model.lists_callbacks() || app.model.lists_aged_jobs() {
                "no row selected: nothing marked"
            } else {
                MARKS_ARE_FOR
            },
        );
        return Ok(());
    }
    app.step(Move::Down)
}

/// V: marks every row the view's filter matches, read from the ledger (not only the
/// rows on the page), and says how many.
pub(super) fn mark_all(app: &mut App) -> Result<(), StoreError> {
    let tab = app.model.tab;
    if app.model.lists_aged_jobs() {
        return super::bulk_owner::mark_all(app);
    }
    let Some(page) = app.model.lists.page::<CallbackItem>(tab) else {
        app.model.flash = Flash::info(MARKS_ARE_FOR);
        return Ok(());
    };
    let filter = reads::callback_filter(page.query(), app.model.now);
    let seqs = app.ledger.callback_seqs(&filter)?;
    let matched = seqs.len();
    let newly = app.model.callback_marks.mark_all(tab, seqs);
    let marked = app.model.callback_marks.count(tab);
    let all = MarkedAll {
        matched,
        newly,
        marked,
        filtered: !filter.query.is_empty(),
    };
    app.model.flash = Flash::info(all.said("callbacks", "a answers them"));
    Ok(())
}

/// What `V` came to: how many rows it matched, how many of them it marked (the rest
/// were marked before), and how many the view has marked now.
#[derive(Debug, Clone, Copy)]
pub(super) struct MarkedAll {
    pub matched: usize,
    pub newly: usize,
    pub marked: usize,
    /// The view has a filter (else `V` took every row it lists).
    pub filtered: bool,
}

impl MarkedAll {
    /// The message after `V`: `marked all 4 callbacks the view lists: 4 marked (a
    /// answers them, x clears)`, naming the rows as `what` and the bulk key by `then`.
    pub(super) fn said(self, what: &str, then: &str) -> String {
        let which = if self.filtered {
            "the filter matches"
        } else {
            "the view lists"
        };
        let already = match self.matched - self.newly {
            0 => String::new(),
            n => format!(", {n} of them marked before"),
        };
        format!(
            "marked all {} {what} {which}{already}: {} marked ({then}, x clears)",
            self.matched, self.marked
        )
    }
}

/// x: clears the view's marks.
pub(super) fn clear(app: &mut App) {
    let tab = app.model.tab;
    let cleared = app.model.callback_marks.clear(tab) + app.model.job_marks.clear(tab);
    app.model.flash = Flash::info(format!("{cleared} marks cleared"));
}

/// `a` with marks: opens the bulk answer, offering the verdicts of the kinds of
/// question among the marked rows.
pub(super) fn open(app: &mut App) -> Result<(), StoreError> {
    let tab = app.model.tab;
    let seqs: Vec<i64> = app
        .model
        .callback_marks
        .of(tab)
        .map(|marked| marked.iter().copied().collect())
        .unwrap_or_default();
    let mut kinds: Vec<CaseKind> = Vec::new();
    for &seq in &seqs {
        if let Some(kind) = app
            .ledger
            .callback(seq)?
            .and_then(|row| CaseKind::of(row.disposition, row.reason))
            && !kinds.contains(&kind)
        {
            kinds.push(kind);
        }
        if kinds.len() == CaseKind::ALL.len() {
            break;
        }
    }
    let form = BulkForm::new(tab, seqs, &kinds);
    if form.verdicts.is_empty() {
        app.model.flash = Flash::error(
            "none of the marked callbacks was held or quarantined: nothing to answer (x clears the marks)",
        );
        return Ok(());
    }
    app.model.overlay = Overlay::Form(Box::new(Form::Bulk(form)));
    Ok(())
}

/// Carries out an action on the open bulk answer; returns whether it wrote.
pub(super) fn form_action(app: &mut App, form: &mut BulkForm, action: Action) -> bool {
    match action {
        Action::Move(Move::Down) if form.plan().is_none() => form.pick(1),
        Action::Move(Move::Up) if form.plan().is_none() => form.pick(-1),
        Action::NextField | Action::PrevField if form.plan().is_none() => {
            form.field = match form.field {
                BulkField::Verdict => BulkField::Note,
                BulkField::Note => BulkField::Verdict,
            };
        }
        Action::Input(c) => {
            if form.plan().is_none() && form.field == BulkField::Verdict {
                // Typing on the verdict moves on to the note.
                form.field = BulkField::Note;
            }
            if let Some(text) = form.focused_text() {
                text.push(c);
            }
        }
        Action::Edit(request) => {
            if let Some(text) = form.focused_text() {
                text.edit(request);
            }
        }
        Action::Submit if form.plan().is_none() => show_plan(app, form),
        Action::Submit => return write(app, form),
        _ => {}
    }
    false
}

/// Enter on the answer: reads the plan of the marked rows for the chosen verdict.
fn show_plan(app: &mut App, form: &mut BulkForm) {
    let Some(verdict) = form.chosen() else {
        return;
    };
    let read = bulk::read_plan(
        &app.ledger,
        Selection::Seqs(&form.seqs),
        verdict,
        &app.model.reviewer,
        app.model.now,
    );
    match read {
        Ok(plan) => {
            form.error = None;
            form.stage = BulkStage::Plan {
                plan: Box::new(plan),
                confirm: TextField::default(),
            };
        }
        Err(e) => form.error = Some(e.to_string()),
    }
}

/// Enter on the plan: writes the answers in one transaction, once the count is
/// confirmed when asked for.
fn write(app: &mut App, form: &mut BulkForm) -> bool {
    let (Some(plan), Some(verdict)) = (form.plan(), form.chosen()) else {
        return false;
    };
    let count = plan.answered.len();
    let as_of = plan.as_of;
    if count == 0 {
        form.error =
            Some("no marked callback takes this verdict: nothing to write (Esc closes)".to_owned());
        return false;
    }
    if let BulkStage::Plan { confirm, .. } = &form.stage
        && form.needs_count()
        && confirm.text().trim() != count.to_string()
    {
        form.error = Some(format!("type {count} to confirm writing {count} answers"));
        return false;
    }
    let note = form.note.text().trim().to_owned();
    let request = BulkRequest {
        selection: Selection::Seqs(&form.seqs),
        verdict,
        note: &note,
        reviewer: &app.model.reviewer,
        expect: None,
        // The plan on screen is what the reviewer saw: an answer given after it by
        // someone else is theirs to read first, as it would be answering alone.
        as_of,
    };
    match bulk::answer_bulk(&mut app.ledger, &request, app.model.now) {
        Ok(written) => {
            app.model.callback_marks.clear(form.tab);
            form.error = None;
            form.outcome = Some(Outcome::Written(outcome_lines(
                &written.plan,
                &written.answer_ids,
                &app.model.reviewer,
                app.model.now,
            )));
            true
        }
        Err(e) => {
            form.outcome = Some(Outcome::Refused(e.to_string()));
            false
        }
    }
}

/// Rows answered since the plan, named one by one in the outcome.
const CHANGED_NAMED: usize = 6;

/// What the outcome says: how many were written, by whom, and what was left out.
fn outcome_lines(plan: &Plan, answer_ids: &[i64], reviewer: &str, now: Timestamp) -> Vec<String> {
    let ids = match (answer_ids.first(), answer_ids.last()) {
        (Some(first), Some(last)) if first == last => format!("answer {first}"),
        (Some(first), Some(last)) => format!("answers {first}–{last}"),
        _ => "no answer".to_owned(),
    };
    let mut lines = vec![format!(
        "Wrote {} in one transaction ({ids}): {} by {}, each recorded as if given alone.",
        count_of(answer_ids.len(), "answer"),
        plan.verdict,
        inert(reviewer)
    )];
    if !plan.left_out.is_empty() {
        lines.push(format!("Left out {} when written:", plan.left_out.len()));
        // Answers given since the plan are news: each row is named below with who
        // answered, when and what, rather than counted under a reason.
        let changed: Vec<_> = plan.changed().collect();
        for (why, seqs) in plan.left_out_by_reason() {
            if seqs
                .iter()
                .all(|seq| changed.iter().any(|left| left.seq == *seq))
            {
                continue;
            }
            lines.push(format!(
                "  {} {}: {}",
                seqs.len(),
                inert(&why),
                some_of(&seqs)
            ));
        }
        for left in changed.iter().take(CHANGED_NAMED) {
            let why = left.why.said(|at| at.readable(now));
            lines.push(format!("  #{} {}", left.seq, inert(&why)));
        }
        if changed.len() > CHANGED_NAMED {
            lines.push(format!("  … and {} more", changed.len() - CHANGED_NAMED));
        }
    }
    lines.push("The marks of this view are cleared.".to_owned());
    lines
}
