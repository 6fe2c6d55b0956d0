//! `w` in the Outbox view: opening the withdrawal of the selected pending request and
//! writing it (append-only, through [`crate::outbox::withdraw`]).

use crate::inert::inert;
use crate::outbox::{self, WithdrawError};
use crate::store::OutboxRow;

use super::super::action::Action;
use super::super::field::Outcome;
use super::super::model::form::Form;
use super::super::model::withdraw::WithdrawForm;
use super::super::model::{Flash, Overlay};
use super::super::tab::Tab;
use super::App;

/// Opens the confirmation for the selected Outbox row, or says why not.
pub(super) fn open(app: &mut App) {
    let model = &mut app.model;
    if model.writes_off() {
        model.flash = Flash::error(super::read_only::why_read_only(model));
        return;
    }
    let Some(row) = model
        .lists
        .page::<OutboxRow>(Tab::Outbox)
        .filter(|_| model.tab == Tab::Outbox)
        .and_then(|page| page.current())
    else {
        model.flash = Flash::error("requests are withdrawn from the Outbox view (7)");
        return;
    };
    match WithdrawForm::new(row, model.now) {
        Ok(form) => model.overlay = Overlay::Form(Box::new(Form::Withdraw(form))),
        Err(why) => model.flash = Flash::error(why),
    }
}

/// Types the note, or writes the withdrawal on Submit; `true` when something was written.
pub(super) fn action(app: &mut App, form: &mut WithdrawForm, action: Action) -> bool {
    match action {
        Action::Input(c) => form.note.push(c),
        Action::Edit(request) => form.note.edit(request),
        Action::Submit => return submit(app, form),
        _ => {}
    }
    false
}

fn submit(app: &mut App, form: &mut WithdrawForm) -> bool {
    let id = form.request.id;
    let written = outbox::withdraw(
        &mut app.ledger,
        id,
        &app.model.reviewer,
        form.note.text().trim(),
        app.model.now,
    );
    match written {
        Ok(row) => {
            form.outcome = Some(Outcome::Written(vec![format!(
                "Request {id} ({} of {}) withdrawn by {} at {}; it stays in the outbox, no longer pending.",
                row.request,
                inert(&row.job_id),
                inert(&app.model.reviewer),
                app.model.now.readable(app.model.now)
            )]));
            true
        }
        Err(e @ WithdrawError::AlreadyWithdrawn { .. }) => {
            form.outcome = Some(Outcome::Refused(e.to_string()));
            // Show who withdrew it in the row.
            true
        }
        Err(e) => {
            form.outcome = Some(Outcome::Refused(e.to_string()));
            false
        }
    }
}
