//! Saved views on PostgreSQL: a console tab and a query under a name a team shares.
//! Saving a name again adds a row; the latest row of a name is the view, unless it is
//! a deletion. The SQLite engine's statements (`sqlite/views.rs`).

use postgres::Row;

use super::answers::{lock_key, time_at, value_at};
use super::writer::time_text;
use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::store::{Location, SavedView, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

fn saved_from(location: &Location, row: &Row) -> Result<SavedView> {
    Ok(SavedView {
        name: value_at(location, row, 0)?,
        tab: value_at(location, row, 1)?,
        query: value_at(location, row, 2)?,
        saved_by: value_at(location, row, 3)?,
        saved_at: time_at(location, row, 4)?,
        written_by: value_at(location, row, 5)?,
    })
}

/// The view standing under `$1`: its latest row, unless that is a deletion.
const STANDING: &str = "SELECT name, tab, query, saved_by, saved_at, written_by FROM saved_views
      WHERE name = $1 AND deleted = 0
        AND id = (SELECT max(id) FROM saved_views WHERE name = $1)";

impl Ledger {
    /// Every saved view, the latest row of each name, in order of name (bytewise).
    pub fn saved_views(&self) -> Result<Vec<SavedView>> {
        self.rows(
            "SELECT s.name, s.tab, s.query, s.saved_by, s.saved_at, s.written_by FROM saved_views s
              WHERE s.id = (SELECT max(id) FROM saved_views WHERE name = s.name)
                AND s.deleted = 0
              ORDER BY s.name",
            &[],
        )?
        .iter()
        .map(|row| saved_from(self.location(), row))
        .collect()
    }

    /// The view saved under `name`, if it has one.
    pub fn saved_view(&self, name: &str) -> Result<Option<SavedView>> {
        self.row(STANDING, &[&name])?
            .map(|row| saved_from(self.location(), &row))
            .transpose()
    }
}

impl Writer<'_> {
    /// Saves `view` (a name saved before gets a new row, which is then the view). The
    /// name's lock is taken first, so a deletion of the name being written meanwhile
    /// comes wholly before or after this save (see `answers.rs`).
    pub fn save_view(&mut self, view: &SavedView) -> Result<()> {
        lock_key(self, "saved_views", &view.name)?;
        self.execute(
            "INSERT INTO saved_views (name, tab, query, saved_by, saved_at)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &view.name,
                &view.tab,
                &view.query,
                &view.saved_by,
                &time_text(view.saved_at),
            ],
        )?;
        Ok(())
    }

    /// Deletes the view saved under `name` by appending a deletion row (who, when, and
    /// the tab and query it took away); returns the view deleted, or `None` when the
    /// name has no view (nothing is written). The standing view is read under the
    /// name's lock: of two people deleting it at once, the second reads the first's
    /// deletion and writes nothing, as on SQLite.
    pub fn delete_view(
        &mut self,
        name: &str,
        deleted_by: &str,
        at: Timestamp,
    ) -> Result<Option<SavedView>> {
        lock_key(self, "saved_views", name)?;
        let Some(row) = self.row(STANDING, &[&name])? else {
            return Ok(None);
        };
        let view = saved_from(self.location(), &row)?;
        self.execute(
            "INSERT INTO saved_views (name, tab, query, saved_by, saved_at, deleted)
             VALUES ($1, $2, $3, $4, $5, 1)",
            &[
                &view.name,
                &view.tab,
                &view.query,
                &deleted_by,
                &time_text(at),
            ],
        )?;
        Ok(Some(view))
    }
}
