//! The interactive review console (SPEC sec. 5), Elm-shaped.
//!
//! [`App`] holds the state: one page of rows per view, cached counts, the open
//! detail, form or help. [`update`] turns an [`Action`] into reads and writes on the
//! ledger; it is the only place the console does I/O. [`view::draw`] draws a frame
//! from `&App` alone and never touches the database. [`keymap`] is the one table of
//! keys that drives dispatch, the footer hints and the help screen, and [`terminal`]
//! owns the real terminal: raw mode, mouse capture, restore on every exit.

mod action;
mod app;
mod detail;
mod form;
pub mod keymap;
mod page;
mod tab;
pub mod terminal;
mod timeline;
pub mod view;
mod views;

use std::path::Path;

use anyhow::{Context as _, Result};

use crate::clock::Clock;
use crate::store::Ledger;

pub use action::Action;
pub use app::{App, Flash, mouse, press, update};
pub use keymap::Context;
pub use tab::Tab;

/// Opens the ledger at `path` and runs the console until the reviewer leaves.
pub fn run(path: &Path, clock: Clock, reviewer: String, read_only: bool) -> Result<()> {
    let ledger = if read_only {
        Ledger::open_read_only(path)
    } else {
        Ledger::open(path)
    }
    .with_context(|| format!("opening the ledger {} for review", path.display()))?;
    let mut app = App::new(ledger, clock, reviewer, read_only).context("reading the ledger")?;
    terminal::run(&mut app)
}
