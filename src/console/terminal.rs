//! The real terminal: raw mode, alternate screen, mouse capture, the event loop, and
//! putting the terminal back on every exit (errors and panics included).

use std::io::{Write, stdout};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind,
};
use ratatui::crossterm::execute;

use super::action::Action;
use super::clipboard;
use super::update::{App, mouse, press, update};
use super::view;

/// How often the ledger is asked whether it changed underneath.
pub const TICK: Duration = Duration::from_millis(250);

/// How often the console looks for the rows of a search running off its thread:
/// well within a frame, so they show as soon as they are read, not at the next tick.
const SEARCH_POLL: Duration = Duration::from_millis(2);

/// Puts the terminal back when dropped: after a normal exit or an error.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore();
    }
}

fn restore() {
    // Mouse capture first: ratatui's restore does not know about it.
    let _ = execute!(stdout(), DisableMouseCapture);
    ratatui::restore();
}

/// Takes the terminal over; a panic anywhere puts it back before the message prints.
fn init() -> Result<DefaultTerminal> {
    // `try_init` installs ratatui's own hook (raw mode, alternate screen); ours runs
    // first and releases the mouse too.
    let terminal = ratatui::try_init().context("setting up the terminal")?;
    let ratatui_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(stdout(), DisableMouseCapture);
        ratatui_hook(info);
    }));
    execute!(stdout(), EnableMouseCapture).context("enabling mouse scrolling")?;
    Ok(terminal)
}

/// Writes what the update step left for the clipboard as an OSC 52 sequence to `out`
/// (the terminal), and takes it from the model: the one place the console writes
/// to the terminal outside drawing a frame.
pub fn write_clipboard(app: &mut App, out: &mut impl Write) -> std::io::Result<()> {
    if let Some(text) = app.take_clipboard() {
        out.write_all(clipboard::osc52(&text).as_bytes())?;
        out.flush()?;
    }
    Ok(())
}

/// Runs the console until the reviewer leaves.
pub fn run(app: &mut App) -> Result<()> {
    let mut terminal = init()?;
    let _restore = Restore;
    let size = terminal.size().context("reading the terminal size")?;
    update(
        app,
        Action::Resize {
            width: size.width,
            height: size.height,
        },
    );
    let mut last_tick = Instant::now();
    // Drawn after whatever may change the screen: a key, a tick, a search's rows. A
    // search's 2 ms polls change nothing until its rows come, and drawing at each
    // would take a core from the search.
    let mut changed = true;
    while !app.quit_requested() {
        if changed {
            terminal
                .draw(|frame| view::draw(frame, app.model()))
                .context("drawing the console")?;
            changed = false;
        }
        let mut wait = TICK.saturating_sub(last_tick.elapsed());
        if app.searching() {
            wait = wait.min(SEARCH_POLL);
        }
        if event::poll(wait).context("reading the terminal")? {
            match event::read().context("reading the terminal")? {
                Event::Key(key) if key.kind != KeyEventKind::Release => press(app, &key),
                Event::Mouse(event) => mouse(app, &event),
                Event::Resize(width, height) => update(app, Action::Resize { width, height }),
                _ => {}
            }
            write_clipboard(app, terminal.backend_mut()).context("writing to the clipboard")?;
            changed = true;
        }
        if app.searching() {
            let taken = app.searches_taken();
            update(app, Action::Searched);
            changed |= app.searches_taken() != taken;
        }
        // Tick even while keys keep coming, so live refresh never starves.
        if last_tick.elapsed() >= TICK {
            update(app, Action::Tick);
            last_tick = Instant::now();
            changed = true;
        }
    }
    Ok(())
}
