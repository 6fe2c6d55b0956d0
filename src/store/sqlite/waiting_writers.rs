//! Turns at the write lock. SQLite lets one writer in at a time and tells the one
//! holding the lock nothing about who waits for it. An ingest that commits every second
//! on the chance that someone waits writes the same hot pages to the log again each
//! time (a shuffled stream wrote 6.9 KB a line so); one that holds the lock longer
//! keeps a reviewer's answer waiting for as long.
//!
//! So a writer kept waiting says so: while its `BEGIN IMMEDIATE` waits, it holds a
//! shared `flock` on a lock file beside the ledger (`<ledger>-waiting`, owner-only,
//! always empty). A bulk writer asks between lines whether anyone holds it
//! ([`WaitingWriters::any`]: one non-blocking exclusive `flock`, taken and let go), and
//! commits at once when someone does. A writer that cannot make the file (a read-only
//! directory, where it could not write anyway) waits as before, at most one batch's
//! longest hold.
//!
//! `flock` locks are the open file's own and vanish with the process, so a writer
//! killed while waiting leaves nothing behind; they do not touch the POSIX locks SQLite
//! takes on the ledger and its `-shm`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rustix::fs::{FlockOperation, flock};

/// The name of the lock file beside `ledger`: beside the file a symbolic link names,
/// as SQLite's own `-wal` and `-shm` are, so that writers naming the ledger by the link
/// and by the file see each other.
pub(super) fn lock_file(ledger: &Path) -> PathBuf {
    super::file::beside(ledger, "-waiting")
}

/// Opens (making it, owner-only, if needed) the lock file beside `ledger`.
fn open_lock_file(ledger: &Path) -> Option<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(lock_file(ledger)).ok()
}

/// A connection's side of the turns: armed while it waits to begin a write, it says so
/// from SQLite's busy handler on the first refusal, and stops saying so once the write
/// has begun (or given up).
#[derive(Debug, Clone)]
pub(super) struct Turns {
    ledger: PathBuf,
    state: Arc<Mutex<TurnState>>,
}

#[derive(Debug, Default)]
struct TurnState {
    /// A write is being begun on this connection.
    armed: bool,
    /// The lock file, held shared while this connection waits.
    waiting: Option<File>,
}

impl Turns {
    pub fn new(ledger: &Path) -> Self {
        Turns {
            ledger: ledger.to_path_buf(),
            state: Arc::default(),
        }
    }

    /// Called by the busy handler each time SQLite refuses this connection a lock.
    /// Only a write being begun waits for a turn: a reader refused a lock in a
    /// moment of log recovery says nothing.
    pub fn refused(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.armed || state.waiting.is_some() {
            return;
        }
        if let Some(file) = open_lock_file(&self.ledger)
            && flock(&file, FlockOperation::NonBlockingLockShared).is_ok()
        {
            state.waiting = Some(file);
        }
    }

    /// Runs `begin` (which takes the write lock) as a write waiting its turn.
    pub fn begin<T>(&self, begin: impl FnOnce() -> T) -> T {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .armed = true;
        let begun = begin();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.armed = false;
        // Closing the file lets the lock go.
        state.waiting = None;
        begun
    }
}

/// The bulk writer's side: asks whether another writer waits for the lock.
#[derive(Debug)]
pub struct WaitingWriters {
    file: File,
}

impl WaitingWriters {
    /// Opens the lock file beside `ledger`; `None` when it cannot be made (then no
    /// writer can say it waits, and none is seen).
    pub(super) fn open(ledger: &Path) -> Option<Self> {
        open_lock_file(ledger).map(|file| WaitingWriters { file })
    }

    /// Does another writer wait for the write lock now? One non-blocking exclusive
    /// `flock`, let go at once when it was taken.
    pub fn any(&self) -> bool {
        match flock(&self.file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {
                let _ = flock(&self.file, FlockOperation::Unlock);
                false
            }
            Err(e) => e == rustix::io::Errno::WOULDBLOCK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_writer_is_seen_only_while_it_waits() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = dir.path().join("l.db");
        let waiters = WaitingWriters::open(&ledger).expect("lock file");
        let turns = Turns::new(&ledger);
        assert!(!waiters.any(), "no one waits yet");
        turns.refused();
        assert!(
            !waiters.any(),
            "a refusal outside a write's begin says nothing"
        );
        let seen_while_waiting = turns.begin(|| {
            turns.refused();
            turns.refused();
            waiters.any()
        });
        assert!(
            seen_while_waiting,
            "a write refused the lock is seen waiting"
        );
        assert!(!waiters.any(), "once begun, it no longer waits");
        assert!(!waiters.any(), "asking does not leave the lock taken");
    }

    #[cfg(unix)]
    #[test]
    fn a_writer_naming_the_ledger_by_a_link_is_seen() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = dir.path().join("l.db");
        std::fs::write(&ledger, b"").expect("ledger file");
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&ledger, &link).expect("link");
        let waiters = WaitingWriters::open(&ledger).expect("lock file");
        let turns = Turns::new(&link);
        let seen = turns.begin(|| {
            turns.refused();
            waiters.any()
        });
        assert!(seen, "the writer through the link was not seen");
    }

    #[cfg(unix)]
    #[test]
    fn the_lock_file_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = dir.path().join("l.db");
        let _waiters = WaitingWriters::open(&ledger).expect("lock file");
        let mode = std::fs::metadata(lock_file(&ledger))
            .expect("made")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
