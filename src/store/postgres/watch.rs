//! Telling an open console that someone committed to the ledger, within a second,
//! from whatever machine: every commit sends a notification (`NOTIFY
//! jobledger_commits`, its payload the ledger's schema), which a thread of the
//! console's, on a connection of its own, listens for. A notification cannot pass a
//! pooler in transaction mode, and a listening connection can drop: the commit counter
//! is also read every few seconds, whatever was heard.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator as _;

use super::ServerAddress;

/// The channel every commit notifies.
pub const CHANNEL: &str = "jobledger_commits";

/// The counter is read at least this often, notification or not.
pub const POLL_EVERY: Duration = Duration::from_secs(3);

/// How long the listener waits for a notification before it looks whether it is
/// still wanted.
const LISTEN_WAIT: Duration = Duration::from_millis(500);

/// The longest wait between two attempts to listen again on a server that went away.
const MOST_BACKOFF: Duration = Duration::from_secs(30);

/// Whether a commit was heard of since it was last asked; the listener stops when
/// this is dropped.
pub struct CommitWatch {
    heard: Arc<AtomicBool>,
    wanted: Arc<AtomicBool>,
    /// When the counter was last read.
    pub read_at: Instant,
    /// The counter as last read.
    pub counter: i64,
}

impl CommitWatch {
    /// Starts listening for commits to the ledger at `address`.
    pub fn start(address: &ServerAddress, counter: i64) -> CommitWatch {
        let heard = Arc::new(AtomicBool::new(false));
        let wanted = Arc::new(AtomicBool::new(true));
        let (h, w, address) = (heard.clone(), wanted.clone(), address.clone());
        std::thread::Builder::new()
            .name("jobledger-listen".to_owned())
            .spawn(move || listen(&address, &h, &w))
            .map(drop)
            // Without a thread, the counter read every few seconds still tells.
            .unwrap_or(());
        CommitWatch {
            heard,
            wanted,
            read_at: Instant::now(),
            counter,
        }
    }

    /// Is it time to read the counter: a commit was heard of, or it was read long ago?
    pub fn due(&self) -> bool {
        self.heard.swap(false, Ordering::AcqRel) || self.read_at.elapsed() >= POLL_EVERY
    }
}

impl Drop for CommitWatch {
    fn drop(&mut self) {
        self.wanted.store(false, Ordering::Release);
    }
}

/// Listens until unwanted, connecting again (waiting longer each time, up to
/// [`MOST_BACKOFF`]) when the connection drops.
fn listen(address: &ServerAddress, heard: &AtomicBool, wanted: &AtomicBool) {
    let mut backoff = Duration::from_millis(250);
    while wanted.load(Ordering::Acquire) {
        if let Ok(mut client) = address.connect()
            && client.batch_execute(&format!("LISTEN {CHANNEL}")).is_ok()
        {
            backoff = Duration::from_millis(250);
            // Whatever was committed while no one listened.
            heard.store(true, Ordering::Release);
            while wanted.load(Ordering::Acquire) {
                let next = client.notifications().timeout_iter(LISTEN_WAIT).next();
                match next {
                    Ok(Some(n)) if n.payload() == address.schema() => {
                        heard.store(true, Ordering::Release);
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
                if client.is_closed() {
                    break;
                }
            }
        }
        let slept = Instant::now();
        while wanted.load(Ordering::Acquire) && slept.elapsed() < backoff {
            std::thread::sleep(Duration::from_millis(100));
        }
        backoff = (backoff * 2).min(MOST_BACKOFF);
    }
}
