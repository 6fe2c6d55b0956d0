//! From a key, a click or a tick to what it does: the key table names the action for
//! the context, and each action goes to the [`App`] method, or the module of the form
//! or view, that carries it out. Every read and write of the console starts here.

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use super::{App, bulk, claims, compare, export, findings, tour, withdraw, writes};
use crate::console::action::{Action, Move};
use crate::console::field::TextField;
use crate::console::keymap::{self, Context};
use crate::console::model::{Flash, Overlay};
use crate::store::StoreError;

/// Turns a key press into its action through the key table, and carries it out.
pub fn press(app: &mut App, key: &KeyEvent) {
    if let Some(action) = keymap::action_for_key(app.context(), key) {
        update(app, action);
    }
}

/// Turns a mouse event (the wheel, a left click) into its action, and carries it out.
pub fn mouse(app: &mut App, event: &MouseEvent) {
    if let Some(action) = keymap::action_for_mouse(app.context(), event) {
        update(app, action);
    }
}

/// Carries out `action`: every read and write of the console happens here.
/// A failure is shown to the reviewer, never a reason to stop.
pub fn update(app: &mut App, action: Action) {
    // A key takes the message away, but a passing one stays its few seconds: the
    // reviewer who answered and went on at once still reads what was written.
    let passing = app.model.flash.as_ref().is_some_and(|f| f.until.is_some());
    if !matches!(
        action,
        Action::Tick | Action::Searched | Action::Resize { .. }
    ) && !passing
    {
        app.model.flash = None;
    }
    let done = dispatch(app, action).and_then(|()| {
        if app.quit {
            // Leaving the console is leaving its list: what it holds was seen.
            super::looks::leave(app, app.model.tab)
        } else {
            super::compare::read_beside(app)
        }
    });
    if let Err(e) = done {
        if matches!(e, StoreError::Unreachable { .. }) {
            super::server_watch::went_away(app, &e);
        } else {
            app.model.flash = Flash::error(e.to_string());
        }
    }
}

fn dispatch(app: &mut App, action: Action) -> Result<(), StoreError> {
    let context = app.context();
    dispatch_in(app, context, action)
}

/// Carries out `action` as the keyboard's `context` takes it (the tour hands its
/// scrolling keys to the context beneath it).
pub(super) fn dispatch_in(
    app: &mut App,
    context: Context,
    action: Action,
) -> Result<(), StoreError> {
    match action {
        Action::Quit => {
            app.quit = true;
            return Ok(());
        }
        Action::Tick => return app.tick(),
        Action::Searched => return super::reader::take_search(app),
        Action::Resize { width, height } => {
            app.model.size = (width, height);
            app.reload_page()?;
            tour::fit_to_screen(app);
            return Ok(());
        }
        _ => {}
    }
    match context {
        Context::Help => {
            app.help(action);
            // The help closed over the tour: its step comes back as it was (the
            // comparison it had open, say).
            if app.model.tour.shown && matches!(app.model.overlay, Overlay::None) {
                return tour::show(app);
            }
            Ok(())
        }
        Context::Tour => tour::action(app, action),
        Context::Form
        | Context::Owner
        | Context::Confirm
        | Context::Refused
        | Context::Withdraw
        | Context::Outcome
        | Context::Bulk
        | Context::Plan
        | Context::BulkOwner
        | Context::OwnerPlan => writes::form_action(app, action),
        Context::Filter => app.filter_action(action),
        Context::Compare => {
            compare::action(app, action);
            Ok(())
        }
        Context::Command => app.command_action(action),
        Context::SavedViews => app.saved_views_action(action),
        Context::ConfirmView => app.confirm_view_action(action),
        Context::Detail => match action {
            Action::Back | Action::BackOrQuit => app.close_detail(),
            Action::ShowTab(tab) => app.show_tab(tab),
            Action::NextRow => app.step(Move::Down),
            Action::PrevRow => app.step(Move::Up),
            Action::Help => {
                app.model.overlay = Overlay::Help { scroll: 0 };
                Ok(())
            }
            Action::Answer | Action::Owner | Action::Retry | Action::Cancel => {
                writes::open_form(app, action)
            }
            Action::Compare => compare::open(app),
            Action::Claim => claims::toggle_claim(app),
            Action::Tour => tour::start(app),
            Action::Export => export::case(app),
            Action::Move(m) => {
                app.scroll_detail(m);
                Ok(())
            }
            Action::CopyJobId | Action::CopyDeliveryId => {
                app.copy(action);
                Ok(())
            }
            Action::Click { column, row } => app.click(column, row),
            _ => Ok(()),
        },
        Context::List | Context::Everywhere | Context::Editing => match action {
            Action::Back => app.back(),
            Action::BackOrQuit if app.model.findings.jobs.is_some() => {
                findings::close(app);
                Ok(())
            }
            Action::BackOrQuit => {
                app.quit = true;
                Ok(())
            }
            Action::NextTab => app.show_tab(app.model.tab.next()),
            Action::PrevTab => app.show_tab(app.model.tab.prev()),
            Action::ShowTab(tab) => app.show_tab(tab),
            Action::OpenDetail => app.open_detail(),
            Action::Filter => {
                app.start_filter();
                Ok(())
            }
            Action::Withdraw => {
                withdraw::open(app);
                Ok(())
            }
            Action::Compare => compare::open(app),
            Action::Claim => claims::toggle_claim(app),
            Action::Export => export::case(app),
            Action::Help => {
                app.model.overlay = Overlay::Help { scroll: 0 };
                Ok(())
            }
            Action::Answer | Action::Owner | Action::Retry | Action::Cancel => {
                writes::open_form(app, action)
            }
            Action::Move(m) => app.step(m),
            Action::ToggleOpen => app.toggle_open(),
            Action::CopyJobId | Action::CopyDeliveryId => {
                app.copy(action);
                Ok(())
            }
            Action::Click { column, row } => app.click(column, row),
            Action::Mark => bulk::mark(app),
            Action::MarkAll => bulk::mark_all(app),
            Action::ClearMarks => {
                bulk::clear(app);
                Ok(())
            }
            Action::SortNext | Action::SortReverse => app.sort(action),
            Action::Command => {
                app.model.overlay = Overlay::Command {
                    text: TextField::default(),
                };
                Ok(())
            }
            Action::SavedViews => app.open_saved_views(),
            Action::Tour => tour::start(app),
            Action::NextNew => super::looks::step_to_new(app, true, super::NEXT_OPEN_WITHIN),
            Action::PrevNew => super::looks::step_to_new(app, false, super::NEXT_OPEN_WITHIN),
            _ => Ok(()),
        },
    }
}
