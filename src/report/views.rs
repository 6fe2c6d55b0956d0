//! `views`: the saved views a team shares (each name's latest), as the console's `'`
//! lists them.

use std::fmt::Write as _;

use super::clip;
use super::table::{self, Align::Left, Column};
use crate::inert::inert;
use crate::store::SavedView;

const VIEW_COLUMNS: [Column<SavedView>; 5] = [
    Column::new("", "name", 20, Left, |v| clip(&inert(&v.name), 20)),
    Column::new("  ", "view", 13, Left, |v| v.tab.clone()),
    Column::new("  ", "saved by", 16, Left, |v| {
        clip(&inert(&v.saved_by), 16)
    }),
    Column::new("  ", "at", 19, Left, |v| v.saved_at.short()),
    Column::new("  ", "query", 0, Left, |v| inert(&v.query).into_owned()),
];

impl super::Report for [SavedView] {
    fn text(&self) -> String {
        if self.is_empty() {
            return "No saved views: in the console, :save NAME saves the view shown.\n".to_owned();
        }
        let mut out = String::new();
        let _ = writeln!(out, "{}", table::header(&VIEW_COLUMNS));
        for v in self {
            let _ = writeln!(out, "{}", table::row(&VIEW_COLUMNS, v));
        }
        out
    }
}

/// After `views --delete NAME`: what was deleted.
pub fn view_deleted(view: &SavedView) -> String {
    format!(
        "deleted view {}: {} {} (saved by {} at {})\n",
        inert(&view.name),
        view.tab,
        inert(&view.query),
        inert(&view.saved_by),
        view.saved_at.short()
    )
}
