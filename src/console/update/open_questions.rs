//! A queue that shrinks: Held and Quarantined list the questions still open (no
//! closing answer) unless the reviewer asks for all of them (`O`).

use super::App;
use crate::console::model::{Flash, List};
use crate::store::StoreError;

impl App {
    /// Switches the current view between its open questions and all its rows,
    /// counts again and keeps the selection on its row when it is still listed.
    pub(super) fn toggle_open(&mut self) -> Result<(), StoreError> {
        let title = self.model.tab.title();
        let Some(open) = self
            .model
            .lists
            .of_mut(self.model.tab)
            .and_then(List::toggle_open)
        else {
            self.model.flash = Flash::info(format!(
                "the {title} view lists no questions: it has no open/all switch"
            ));
            return Ok(());
        };
        super::reader::recount_list(self, self.model.list_id())?;
        self.reload_page()?;
        self.model.flash = Flash::info(if open {
            format!("{title}: open questions only (O shows all)")
        } else {
            format!("{title}: all, answered ones too (O shows the open ones only)")
        });
        Ok(())
    }
}
