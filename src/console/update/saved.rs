//! Saved views: `:save NAME` writes the current view's tab and query into the ledger
//! (one transaction, as the reviewer the answers name), `'` lists them and Enter
//! shows one, so a team shares its views. A name in use is asked before its view is
//! replaced, and `d` in the list deletes one (asked too).

use super::App;
use crate::console::action::{Action, Move};
use crate::console::model::{Flash, Overlay, ViewChange};
use crate::console::tab::Tab;
use crate::inert::inert;
use crate::store::{SavedView, StoreError};

impl App {
    pub(super) fn command_action(&mut self, action: Action) -> Result<(), StoreError> {
        let Overlay::Command { text } = &mut self.model.overlay else {
            return Ok(());
        };
        match action {
            Action::Input(c) => text.push(c),
            Action::Edit(request) => text.edit(request),
            Action::Back => self.model.overlay = Overlay::None,
            Action::Submit => {
                let command = text.text().to_owned();
                self.model.overlay = Overlay::None;
                return self.run_command(command.trim());
            }
            _ => {}
        }
        Ok(())
    }

    fn run_command(&mut self, command: &str) -> Result<(), StoreError> {
        // `:q` leaves, as in vi, less and k9s.
        if matches!(command, "q" | "quit") {
            self.quit = true;
            return Ok(());
        }
        let name = match command.split_once(char::is_whitespace) {
            Some(("save", name)) => name.trim(),
            None if command == "save" => "",
            _ => {
                self.model.flash = Flash::error(format!(
                    "no command {:?}; :save NAME saves this view, :q leaves",
                    inert(command)
                ));
                return Ok(());
            }
        };
        if name.is_empty() {
            self.model.flash = Flash::error(":save needs a name: :save NAME");
            return Ok(());
        }
        if self.model.ledger_gone {
            self.model.flash = Flash::error(super::file_watch::GONE);
            return Ok(());
        }
        if self.model.read_only {
            self.model.flash =
                Flash::error("read-only: the console was opened with --read-only, nothing saved");
            return Ok(());
        }
        let view = SavedView {
            name: name.to_owned(),
            tab: self.model.tab.title().to_owned(),
            query: self.model.filter().unwrap_or_default().to_owned(),
            saved_by: self.model.reviewer.clone(),
            saved_at: self.model.now,
            written_by: None,
        };
        match self.ledger.saved_view(name)? {
            // A second row saying the same would only bury who saved it first.
            Some(standing) if standing.tab == view.tab && standing.query == view.query => {
                self.model.flash = Flash::info(format!(
                    "the view {} is saved as this already (by {}): nothing written",
                    inert(name),
                    inert(&standing.saved_by)
                ));
                Ok(())
            }
            // Another view under the name: it is asked before it is replaced.
            Some(standing) => {
                self.model.overlay =
                    Overlay::ConfirmView(Box::new(ViewChange::Replace { view, standing }));
                Ok(())
            }
            None => self.save_view(&view),
        }
    }

    fn save_view(&mut self, view: &SavedView) -> Result<(), StoreError> {
        let mut writer = self.ledger.writer()?;
        writer.save_view(view)?;
        writer.commit()?;
        self.model.flash = Flash::info(format!(
            "saved view {}: {} {}",
            inert(&view.name),
            view.tab,
            inert(&view.query)
        ));
        Ok(())
    }

    /// y or n to a replacement or a deletion asked for.
    pub(super) fn confirm_view_action(&mut self, action: Action) -> Result<(), StoreError> {
        if !matches!(action, Action::Submit | Action::Back) {
            return Ok(());
        }
        let Overlay::ConfirmView(change) = std::mem::take(&mut self.model.overlay) else {
            return Ok(());
        };
        match (*change, action) {
            (ViewChange::Replace { view, .. }, Action::Submit) => self.save_view(&view),
            (ViewChange::Replace { view, .. }, _) => {
                self.model.flash = Flash::info(format!(
                    "nothing saved: the view {} stays as it was",
                    inert(&view.name)
                ));
                Ok(())
            }
            (ViewChange::Delete { views, selected }, Action::Submit) => {
                let Some(name) = views.get(selected).map(|v| v.name.clone()) else {
                    return Ok(());
                };
                let mut writer = self.ledger.writer()?;
                let deleted = writer.delete_view(&name, &self.model.reviewer, self.model.now)?;
                writer.commit()?;
                self.open_saved_views()?;
                if let Overlay::SavedViews {
                    views,
                    selected: at,
                } = &mut self.model.overlay
                {
                    *at = selected.min(views.len().saturating_sub(1));
                }
                self.model.flash = Flash::info(match deleted {
                    Some(_) => format!("deleted view {}", inert(&name)),
                    None => format!(
                        "the view {} was deleted meanwhile: nothing written",
                        inert(&name)
                    ),
                });
                Ok(())
            }
            (ViewChange::Delete { views, selected }, _) => {
                self.model.overlay = Overlay::SavedViews { views, selected };
                Ok(())
            }
        }
    }

    pub(super) fn open_saved_views(&mut self) -> Result<(), StoreError> {
        let views = self.ledger.saved_views()?;
        // Open on the view shown now, when it is one of them.
        let tab = self.model.tab.title();
        let query = self.model.filter().unwrap_or_default();
        let selected = views
            .iter()
            .position(|v| v.tab == tab && v.query == query)
            .unwrap_or(0);
        self.model.overlay = Overlay::SavedViews { views, selected };
        Ok(())
    }

    pub(super) fn saved_views_action(&mut self, action: Action) -> Result<(), StoreError> {
        let writes_off = self
            .model
            .writes_off()
            .then(|| super::read_only::why_read_only(&self.model));
        let Overlay::SavedViews { views, selected } = &mut self.model.overlay else {
            return Ok(());
        };
        let last = views.len().saturating_sub(1);
        match action {
            Action::Move(Move::Down) => *selected = (*selected + 1).min(last),
            Action::Move(Move::Up) => *selected = selected.saturating_sub(1),
            Action::Move(Move::PageDown) => *selected = (*selected + 10).min(last),
            Action::Move(Move::PageUp) => *selected = selected.saturating_sub(10),
            Action::Move(Move::Home) => *selected = 0,
            Action::Move(Move::End) => *selected = last,
            Action::Back => self.model.overlay = Overlay::None,
            Action::DeleteView if views.is_empty() => {}
            Action::DeleteView if writes_off.is_some() => {
                self.model.flash = writes_off.and_then(Flash::error);
            }
            Action::DeleteView => {
                let (views, selected) = (std::mem::take(views), *selected);
                self.model.overlay =
                    Overlay::ConfirmView(Box::new(ViewChange::Delete { views, selected }));
            }
            Action::Submit => {
                let view = views.get(*selected).cloned();
                self.model.overlay = Overlay::None;
                if let Some(view) = view {
                    return self.recall(&view);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Shows `view`: its tab, under its query.
    fn recall(&mut self, view: &SavedView) -> Result<(), StoreError> {
        let Some(&tab) = Tab::ALL.iter().find(|t| t.title() == view.tab) else {
            self.model.flash = Flash::error(format!(
                "the view {} names no tab of this console ({})",
                inert(&view.name),
                inert(&view.tab)
            ));
            return Ok(());
        };
        self.show_tab(tab)?;
        if self.model.list().is_some() {
            self.set_filter(Some(view.query.clone()))?;
        }
        if self.model.flash.is_none() {
            self.model.flash = Flash::info(format!("view {}", inert(&view.name)));
        }
        Ok(())
    }
}
