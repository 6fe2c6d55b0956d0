//! Saved views: a console tab and a query under a name a team shares. Saving a name
//! again adds a row; the latest row of a name is the view, unless it is a deletion
//! (a row of its own, who deleted it and when): then the name has no view.

use crate::store::SavedView;
use rusqlite::Row;

use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;

type Result<T> = std::result::Result<T, StoreError>;

fn saved_from(row: &Row<'_>) -> rusqlite::Result<SavedView> {
    Ok(SavedView {
        name: row.get(0)?,
        tab: row.get(1)?,
        query: row.get(2)?,
        saved_by: row.get(3)?,
        saved_at: row.get(4)?,
        written_by: row.get(5)?,
    })
}

impl Ledger {
    /// Every saved view, the latest row of each name, in order of name.
    pub fn saved_views(&self) -> Result<Vec<SavedView>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT s.name, s.tab, s.query, s.saved_by, s.saved_at, s.written_by FROM saved_views s
                  WHERE s.id = (SELECT max(id) FROM saved_views WHERE name = s.name)
                    AND s.deleted = 0
                  ORDER BY s.name",
            )?
            .query_map([], saved_from)?
            .collect()
        })
    }

    /// The view saved under `name`, if it has one.
    pub fn saved_view(&self, name: &str) -> Result<Option<SavedView>> {
        self.run(|c| standing(c, name))
    }
}

/// The view standing under `name`: its latest row, unless that is a deletion.
fn standing(c: &rusqlite::Connection, name: &str) -> rusqlite::Result<Option<SavedView>> {
    use rusqlite::OptionalExtension;
    c.prepare_cached(
        "SELECT name, tab, query, saved_by, saved_at, written_by FROM saved_views
          WHERE name = ?1 AND deleted = 0
            AND id = (SELECT max(id) FROM saved_views WHERE name = ?1)",
    )?
    .query_row([name], saved_from)
    .optional()
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

    /// Deletes the view saved under `name` by appending a deletion row (who, when, and
    /// the tab and query it took away); returns the view deleted, or `None` when the
    /// name has no view (nothing is written).
    pub fn delete_view(
        &mut self,
        name: &str,
        deleted_by: &str,
        at: Timestamp,
    ) -> Result<Option<SavedView>> {
        let Some(view) = self.run(|c| standing(c, name))? else {
            return Ok(None);
        };
        self.execute(
            "INSERT INTO saved_views (name, tab, query, saved_by, saved_at, deleted)
             VALUES (?1, ?2, ?3, ?4, ?5, 1)",
            rusqlite::params![view.name, view.tab, view.query, deleted_by, at],
        )?;
        Ok(Some(view))
    }
}
