//! Opening the forms and writing what they say: answers, owners, requests.

use crate::escalation::{self, OwnerError, parse_escalation};
use crate::inert::inert;
use crate::outbox::{self, RequestError, RequestFacts, RequestKind};
use crate::review::{self, AnswerError, AnswerRequest};
use crate::store::StoreError;

use super::super::action::{Action, Move};
use super::super::field::{Outcome, TextField};
use super::super::model::detail::DetailKey;
use super::super::model::form::{
    AnswerField, AnswerForm, Form, OwnerField, OwnerForm, RequestForm,
};
use super::super::model::page::Page;
use super::super::model::{Flash, List, Model, Overlay};
use super::App;
use super::answered::Answered;
use super::read_only::why_read_only;
use crate::store::CallbackRow;

/// Opens the form for a write action on the selected row.
pub(super) fn open_form(app: &mut App, action: Action) -> Result<(), StoreError> {
    let model = &mut app.model;
    if model.writes_off() {
        model.flash = Flash::error(why_read_only(model));
        return Ok(());
    }
    if action == Action::Answer && model.callback_marks.count(model.tab) > 0 {
        return super::bulk::open(app);
    }
    if action == Action::Owner && model.job_marks.count(model.tab) > 0 {
        super::bulk_owner::open(app);
        return Ok(());
    }
    if action == Action::Answer && model.tab == crate::console::tab::Tab::Reconcile {
        return super::decisions::open_selected(app);
    }
    match action {
        Action::Answer => match model.answerable() {
            Ok((row, kind)) => {
                let form = AnswerForm::new(row.seq, row.job_id.clone(), kind, row.answer.clone());
                model.overlay = Overlay::Form(Box::new(Form::Answer(form)));
            }
            Err(why) => model.flash = Flash::error(why),
        },
        Action::Owner => match model.list().and_then(List::aged) {
            Some(row) => {
                let owner = row.owner.as_ref();
                let form = Form::Owner(OwnerForm {
                    job_id: row.job_id.clone(),
                    owner: TextField::with(owner.map_or(model.reviewer.as_str(), |o| &o.owner)),
                    escalate_at: TextField::with(
                        &owner
                            .and_then(|o| o.escalate_at)
                            .map(crate::clock::Timestamp::to_ledger_text)
                            .unwrap_or_default(),
                    ),
                    field: OwnerField::Owner,
                    error: None,
                    outcome: None,
                });
                model.overlay = Overlay::Form(Box::new(form));
            }
            None => model.flash = Flash::error("owners are set on aged jobs (view 3)"),
        },
        Action::Retry | Action::Cancel => {
            let kind = if action == Action::Retry {
                RequestKind::Retry
            } else {
                RequestKind::Cancel
            };
            let Some(job_id) = model.list().and_then(List::job).map(str::to_owned) else {
                model.flash = Flash::error(
                    "retries and cancels are asked for aged or failed jobs (views 3 and 4)",
                );
                return Ok(());
            };
            let Some(facts) = RequestFacts::read(&app.ledger, &job_id)? else {
                app.model.flash = Flash::error(format!("no job {} in the ledger", inert(&job_id)));
                return Ok(());
            };
            let form = RequestForm::new(kind, &facts, app.model.now);
            app.model.overlay = Overlay::Form(Box::new(Form::Request(form)));
        }
        _ => {}
    }
    Ok(())
}

/// Carries out an action while a form is open.
pub(super) fn form_action(app: &mut App, action: Action) -> Result<(), StoreError> {
    let Overlay::Form(mut form) = std::mem::take(&mut app.model.overlay) else {
        return Ok(());
    };
    if form.outcome().is_some() {
        // The outcome is on screen; any way out closes the form.
        if !matches!(action, Action::Submit | Action::Back) {
            app.model.overlay = Overlay::Form(form);
        }
        return Ok(());
    }
    if action == Action::Back {
        app.model.flash = Flash::info("closed without writing anything");
        return Ok(());
    }
    let wrote = match &mut *form {
        Form::Answer(f) => match answer_action(app, f, action) {
            Answered::Nothing => false,
            Answered::Shown => true,
            Answered::Passing(line) => {
                let open: fn(&Model) -> bool = |model| {
                    let row = model.list().and_then(List::callback);
                    row.is_some_and(CallbackRow::is_open_question)
                };
                return answered(app, &DetailKey::Callback(f.seq), open, line);
            }
        },
        Form::Decisions(f) => match super::decisions::action(app, f, action) {
            Answered::Nothing => false,
            Answered::Shown => true,
            Answered::Passing(line) => {
                let open: fn(&Model) -> bool = |model| {
                    let job = model.findings.jobs.as_ref().and_then(Page::current);
                    job.is_some_and(|j| j.answer.as_ref().is_none_or(|(v, _)| !v.closes()))
                };
                return answered(app, &DetailKey::Job(f.job_id.clone()), open, line);
            }
        },
        Form::Owner(f) => match owner_action(app, f, action) {
            Answered::Nothing => false,
            Answered::Shown => true,
            Answered::Passing(line) => {
                // The form was taken off already: it closes.
                app.model.flash = Flash::info(line);
                return Ok(());
            }
        },
        Form::Request(f) => request_action(app, f, action),
        Form::Withdraw(f) => super::withdraw::action(app, f, action),
        Form::Bulk(f) => super::bulk::form_action(app, f, action),
        Form::BulkOwner(f) => super::bulk_owner::form_action(app, f, action),
    };
    app.model.overlay = Overlay::Form(form);
    if wrote {
        // Our own commits do not change PRAGMA data_version for this connection.
        app.refresh()?;
    }
    Ok(())
}

/// Written: the form closes (it was taken off already), the cursor goes on to the next
/// open question after the `row` answered, and `line` says what was written for a few
/// seconds on the message line.
fn answered(
    app: &mut App,
    row: &DetailKey,
    open: fn(&Model) -> bool,
    line: String,
) -> Result<(), StoreError> {
    app.refresh()?;
    app.go_on_to_next_open_row(row, open)?;
    app.model.flash = Flash::passing(line, app.passing_for);
    Ok(())
}

fn answer_action(app: &mut App, form: &mut AnswerForm, action: Action) -> Answered {
    let fields = form.fields();
    let at = fields.iter().position(|f| *f == form.field).unwrap_or(0);
    match action {
        Action::Move(Move::Down) => form.pick(1),
        Action::Move(Move::Up) => form.pick(-1),
        Action::NextField => form.field = fields[(at + 1) % fields.len()],
        Action::PrevField => form.field = fields[(at + fields.len() - 1) % fields.len()],
        Action::Input(c) => {
            if form.field == AnswerField::Verdict {
                // Typing on the verdict moves on to the first text field.
                form.field = fields[1];
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
        Action::Submit => return submit_answer(app, form),
        _ => {}
    }
    if !form.fields().contains(&form.field) {
        form.field = AnswerField::Verdict;
    }
    Answered::Nothing
}

fn submit_answer(app: &mut App, form: &mut AnswerForm) -> Answered {
    let verdict = form.chosen();
    let link_job = form.link_job.text().trim();
    if verdict.needs_job() && link_job.is_empty() {
        form.error = Some("`linked` needs the id of the job this callback belongs to".to_owned());
        form.field = AnswerField::LinkJob;
        return Answered::Nothing;
    }
    let request = AnswerRequest {
        seq: form.seq,
        verdict: verdict.as_str(),
        note: form.note.text().trim(),
        reviewer: &app.model.reviewer,
        link_job: verdict.needs_job().then_some(link_job),
        seen_answer: form.seen.as_ref().map(|a| a.id),
    };
    match review::answer(&mut app.ledger, &request, app.model.now) {
        Ok(written) if written.linked.is_none() => {
            let stays_open = if verdict.closes() {
                ""
            } else {
                "; the question stays open"
            };
            Answered::Passing(format!(
                "Answer {} written on callback #{}: {} by {}{stays_open}.",
                written.answer_id,
                form.seq,
                verdict.as_str(),
                inert(&app.model.reviewer)
            ))
        }
        Ok(written) => {
            // A linked answer judged a new callback: three lines, kept until closed.
            let mut lines = vec![format!(
                "Answer {} written on callback #{}: {} by {}.",
                written.answer_id,
                form.seq,
                verdict.as_str(),
                inert(&app.model.reviewer)
            )];
            if let Some((new_seq, decision)) = written.linked {
                lines.push(format!(
                    "Judged against job {} as callback #{new_seq}: {} ({}).",
                    inert(link_job),
                    decision.disposition,
                    decision.reason
                ));
                lines.push(format!(
                    "Callback #{} stays in the ledger as it arrived.",
                    form.seq
                ));
            }
            if !verdict.closes() {
                lines.push(
                    "The question stays open until someone checks the remote side.".to_owned(),
                );
            }
            form.error = None;
            form.outcome = Some(Outcome::Written(lines));
            Answered::Shown
        }
        Err(AnswerError::AnsweredMeanwhile(theirs)) => {
            // Refused: said in the form, which stays until closed, so it cannot pass
            // unread. Show their answer in the row too.
            form.outcome = Some(Outcome::AnsweredMeanwhile(theirs));
            Answered::Shown
        }
        Err(e) => {
            form.error = Some(e.to_string());
            Answered::Nothing
        }
    }
}

/// An owner written shows in the form until it is closed ([`Answered::Shown`]); one
/// that stood already closes the form and says so on the message line.
fn owner_action(app: &mut App, form: &mut OwnerForm, action: Action) -> Answered {
    match action {
        Action::NextField | Action::PrevField | Action::Move(Move::Up | Move::Down) => {
            form.field = match form.field {
                OwnerField::Owner => OwnerField::EscalateAt,
                OwnerField::EscalateAt => OwnerField::Owner,
            };
        }
        Action::Input(c) => form.focused_text().push(c),
        Action::Edit(request) => form.focused_text().edit(request),
        Action::Submit => {
            let escalate_at = match parse_escalation(form.escalate_at.text(), app.model.now) {
                Ok(at) => at,
                Err(why) => {
                    form.error = Some(why);
                    form.field = OwnerField::EscalateAt;
                    return Answered::Nothing;
                }
            };
            let owner = form.owner.text().trim();
            // No owner and no time: the form asks for the owner to be cleared.
            if owner.is_empty() && escalate_at.is_none() {
                return clear_owner(app, form);
            }
            let set = escalation::set_owner(
                &mut app.ledger,
                &form.job_id,
                owner,
                escalate_at,
                &app.model.reviewer,
                app.model.now,
            );
            match set {
                Ok(escalation::OwnerSet::Unchanged(standing)) => {
                    return Answered::Passing(format!(
                        "nothing changed: {} is owned by {} already; nothing written",
                        inert(&form.job_id),
                        inert(&standing.owner)
                    ));
                }
                Ok(escalation::OwnerSet::Written(_)) => {
                    let when = escalate_at.map_or_else(
                        || "no escalation time".to_owned(),
                        |t| format!("escalates at {}", t.readable(app.model.now)),
                    );
                    form.error = None;
                    form.outcome = Some(Outcome::Written(vec![format!(
                        "{} is owned by {}; {when}.",
                        inert(&form.job_id),
                        inert(owner)
                    )]));
                    return Answered::Shown;
                }
                Err(OwnerError::NoOwner) => {
                    form.error = Some("an owner needs a name".to_owned());
                    form.field = OwnerField::Owner;
                }
                Err(e) => form.error = Some(e.to_string()),
            }
        }
        _ => {}
    }
    Answered::Nothing
}

/// Clears the owner of the form's job: written, the form says so until closed; a job
/// with no owner closes the form with "nothing changed", as an unchanged owner does.
fn clear_owner(app: &mut App, form: &mut OwnerForm) -> Answered {
    match escalation::clear_owner(
        &mut app.ledger,
        &form.job_id,
        &app.model.reviewer,
        app.model.now,
    ) {
        Ok(cleared @ escalation::Cleared::HadNone) => Answered::Passing(format!(
            "nothing changed: {}",
            cleared.sentence(&form.job_id)
        )),
        Ok(cleared @ escalation::Cleared::Was(_)) => {
            form.error = None;
            let said = format!("{}.", cleared.sentence(&form.job_id));
            form.outcome = Some(Outcome::Written(vec![said]));
            Answered::Shown
        }
        Err(e) => {
            form.error = Some(e.to_string());
            Answered::Nothing
        }
    }
}

fn request_action(app: &mut App, form: &mut RequestForm, action: Action) -> bool {
    if action != Action::Submit {
        return false;
    }
    match outbox::request(
        &mut app.ledger,
        form.kind,
        &form.job_id,
        &app.model.reviewer,
        app.model.now,
    ) {
        Ok(written) => {
            let attempt = written
                .attempt
                .map_or_else(String::new, |a| format!(", to run as attempt {a}"));
            form.outcome = Some(Outcome::Written(vec![format!(
                "The {} of {} is in the outbox as request {}{attempt}.",
                form.kind,
                inert(&form.job_id),
                written.id
            )]));
            true
        }
        Err(RequestError::Refused { refusal, .. }) => {
            form.outcome = Some(Outcome::Refused(refusal.to_string()));
            false
        }
        Err(e) => {
            form.outcome = Some(Outcome::Refused(e.to_string()));
            false
        }
    }
}
