//! `a` on a job of the divergent-decisions list: opening the answer form with the
//! standing answer read afresh, and writing it (append-only, through
//! [`crate::review::decisions`]).

use crate::inert::inert;
use crate::review::decisions::{DecisionAnswerError, DecisionAnswerRequest, answer_decisions};
use crate::store::StoreError;

use super::super::action::{Action, Move};
use super::super::field::Outcome;
use super::super::model::decisions::DecisionsForm;
use super::super::model::form::Form;
use super::super::model::{Flash, Overlay};
use super::App;
use super::answered::Answered;

/// Opens the answer form on the job selected in the divergent-decisions list, with
/// its standing answer read afresh, or says where answers are given here.
pub(super) fn open_selected(app: &mut App) -> Result<(), StoreError> {
    let Some(job_id) = app.model.divergent_job().map(str::to_owned) else {
        app.model.flash = Flash::error(
            "here, answers are given on divergent decisions: open that finding (Enter), pick a job, then a",
        );
        return Ok(());
    };
    let seen = app.ledger.decision_answer(&job_id)?;
    let form = DecisionsForm::new(&job_id, seen);
    app.model.overlay = Overlay::Form(Box::new(Form::Decisions(form)));
    Ok(())
}

/// Picks, types, or writes on Submit.
pub(super) fn action(app: &mut App, form: &mut DecisionsForm, action: Action) -> Answered {
    match action {
        Action::Move(Move::Down) if !form.on_note => form.pick(1),
        Action::Move(Move::Up) if !form.on_note => form.pick(-1),
        Action::NextField | Action::PrevField => form.on_note = !form.on_note,
        Action::Input(c) => {
            // Typing on the verdict moves on to the note.
            form.on_note = true;
            form.note.push(c);
        }
        Action::Edit(request) => form.note.edit(request),
        Action::Submit => return submit(app, form),
        _ => {}
    }
    Answered::Nothing
}

fn submit(app: &mut App, form: &mut DecisionsForm) -> Answered {
    let verdict = form.chosen();
    let request = DecisionAnswerRequest {
        job_id: &form.job_id,
        verdict: verdict.as_str(),
        note: form.note.text().trim(),
        reviewer: &app.model.reviewer,
        seen_answer: form.seen.as_ref().map(|a| a.id),
    };
    match answer_decisions(&mut app.ledger, &request, app.model.now) {
        Ok(id) => {
            let stays_open = if verdict.closes() {
                ""
            } else {
                "; the finding stays open"
            };
            Answered::Passing(format!(
                "Answer {id} written on the divergent decisions of {}: {verdict} by {}{stays_open}.",
                inert(&form.job_id),
                inert(&app.model.reviewer)
            ))
        }
        Err(DecisionAnswerError::AnsweredMeanwhile { answer, .. }) => {
            // Said as the console's own answers say it: the command line's advice
            // (`--seen`) is no way here, the form opened again starts from theirs.
            let note = if answer.note.is_empty() {
                String::new()
            } else {
                format!(" ({})", answer.note)
            };
            form.outcome = Some(Outcome::Refused(format!(
                "{} answered these decisions meanwhile: {} at {}{note}. The list now shows their answer; to answer over it, open the form again (a): it starts from theirs.",
                answer.reviewer,
                answer.verdict,
                answer.answered_at.readable(app.model.now)
            )));
            // Refused: said in the form, which stays until closed. Show their answer
            // in the row too.
            Answered::Shown
        }
        Err(e) => {
            form.error = Some(e.to_string());
            Answered::Nothing
        }
    }
}
