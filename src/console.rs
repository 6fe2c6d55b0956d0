//! The interactive review console (SPEC sec. 5), Elm-shaped.
//!
//! [`Model`] is what is on screen, as plain data: one page of rows per view, cached
//! counts, the detail pane, the open overlay, the flash and the size. [`App`] owns the
//! ledger and the model; [`update()`] turns an [`Action`] into reads and writes on the
//! ledger, the only place the console does I/O. [`view::draw`] draws a frame from
//! `&Model` alone, with [`layout`] saying where each part goes. [`keymap`] is the one
//! table of keys that drives dispatch, the footer hints and the help screen, and
//! [`terminal`] owns the real terminal: raw mode, mouse capture, restore on every exit.
//!
//! Imports run one way: `terminal` → `update` → `model` and `layout`; `view` and
//! `views` read the model.
//!
//! A new view of rows of a kind already listed is its [`Tab`] variant with one arm in
//! `Tab::title` (the number key is its place), one arm in `model::lists::new_page` (the
//! `TabPage` it lists), and one arm in `views::of` beside its view's `mod` line (its
//! columns, or its own drawing). Rows of a new kind add their `PageRow` impl and a
//! `RowSource` method (`model/rows.rs`), a `TabPage` variant named in `tab_rows!`
//! (`model/lists.rs`), and a read in `update/reads.rs` by a keyset page method of the
//! store.

mod action;
pub mod axis;
pub mod clipboard;
pub mod context;
pub mod field;
pub mod keymap;
pub mod layout;
pub mod model;
mod tab;
pub mod terminal;
pub mod theme;
mod update;
pub mod view;
mod views;

use anyhow::Result;

use crate::clock::Clock;

pub use action::{Action, Move};
pub use context::Context;
pub use model::{Flash, Model, Overlay};
pub use tab::Tab;
pub use theme::Theme;
pub use update::{App, mouse, press, update};

/// Opens the ledger at `location` and runs the console, in `theme` (in the guided tour
/// of the demo's afternoon when `tour` asks), until the reviewer leaves.
pub fn run(
    location: &crate::store::Location,
    clock: Clock,
    reviewer: String,
    read_only: bool,
    theme: Theme,
    tour: bool,
) -> Result<()> {
    let mut app = App::open(location, clock, reviewer, read_only)?;
    app.set_theme(theme);
    if tour {
        update(&mut app, Action::Tour);
    }
    terminal::run(&mut app)
}
