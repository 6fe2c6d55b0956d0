//! A ledger server that goes away under an open console (it restarted, the network
//! dropped): the console says so on its status line, keeps the screen as it was read,
//! turns writes off (a form being typed stays open, its text kept), and connects
//! again by itself, waiting longer after each attempt that fails; once back, it reads
//! the ledger afresh and turns writes on.

use std::time::{Duration, Instant};

use super::App;
use crate::console::model::Flash;
use crate::store::StoreError;

/// Why nothing can be written while the server is away.
pub(super) const AWAY: &str = "the ledger server cannot be reached: writes are off until it is back (the console connects again by itself)";

/// The first wait before connecting again, doubled after each failure up to
/// [`MOST_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(500);
const MOST_WAIT: Duration = Duration::from_secs(15);

/// When to try connecting next, and how long to wait after that one fails.
#[derive(Debug, Clone, Copy)]
pub(super) struct Backoff {
    next_at: Instant,
    wait: Duration,
}

/// The server went away: say so once, keep the screen, turn writes off.
pub(super) fn went_away(app: &mut App, e: &StoreError) {
    // The searches' kept connection went with it.
    app.search.forget_connection();
    if !app.model.server_away {
        app.model.server_away = true;
        app.backoff = Some(Backoff {
            next_at: Instant::now() + FIRST_WAIT,
            wait: FIRST_WAIT,
        });
    }
    app.model.flash = Flash::error(format!("{e} — the screen stays as read; reconnecting…"));
}

/// At a tick while the server is away: connects again when it is time; once back,
/// reads the ledger afresh and turns writes on.
pub(super) fn try_again(app: &mut App) -> Result<(), StoreError> {
    let backoff = app.backoff.unwrap_or(Backoff {
        next_at: Instant::now(),
        wait: FIRST_WAIT,
    });
    if Instant::now() < backoff.next_at {
        return Ok(());
    }
    if app.ledger.reconnect().is_err() {
        let wait = (backoff.wait * 2).min(MOST_WAIT);
        app.backoff = Some(Backoff {
            next_at: Instant::now() + wait,
            wait,
        });
        return Ok(());
    }
    app.model.server_away = false;
    app.backoff = None;
    app.data_version = app.ledger.data_version()?;
    app.refresh()?;
    app.model.flash = Flash::info("the ledger server is back; writes are on again".to_owned());
    Ok(())
}
