//! Saved views: a console tab and a query under a name a team shares. Saving a name
//! again adds a row; the latest row of a name is the view.

use rusqlite::Row;
use serde::Serialize;

use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;

type Result<T> = std::result::Result<T, StoreError>;

/// A view as it was last saved under its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedView {
    pub name: String,
    /// The tab's title (`Held`, `All callbacks`, ...).
    pub tab: String,
    /// The query, in the filter language (empty: no filter).
    pub query: String,
    pub saved_by: String,
    pub saved_at: Timestamp,
}

fn saved_from(row: &Row<'_>) -> rusqlite::Result<SavedView> {
    Ok(SavedView {
        name: row.get(0)?,
        tab: row.get(1)?,
        query: row.get(2)?,
        saved_by: row.get(3)?,
        saved_at: row.get(4)?,
    })
}

impl Ledger {
    /// Every saved view, the latest row of each name, in order of name.
    pub fn saved_views(&self) -> Result<Vec<SavedView>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT s.name, s.tab, s.query, s.saved_by, s.saved_at FROM saved_views s
                  WHERE s.id = (SELECT max(id) FROM saved_views WHERE name = s.name)
                  ORDER BY s.name",
            )?
            .query_map([], saved_from)?
            .collect()
        })
    }
}

impl Writer<'_> {
    /// Saves `view` (a name saved before gets a new row, which is then the view).
    pub fn save_view(&mut self, view: &SavedView) -> Result<()> {
        self.execute(
            "INSERT INTO saved_views (name, tab, query, saved_by, saved_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![
                view.name,
                view.tab,
                view.query,
                view.saved_by,
                view.saved_at
            ],
        )?;
        Ok(())
    }
}
