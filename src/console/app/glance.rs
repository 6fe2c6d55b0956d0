//! The reconciliation glance of a large ledger, counted off the console's thread.
//!
//! What every accepted job misses is found by reading every job once: milliseconds
//! for a small ledger, half a second at a million jobs. A small ledger is counted in
//! place, so the first frame already shows it. Above [`IN_PLACE_JOBS`] a worker thread
//! counts on its own read-only connection; the first frame comes at once with
//! "counting…" in the Reconcile tab, and the counts are taken in on a later tick.
//! Drawing never waits for it.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use super::{App, Flash, Glance};
use crate::clock::Timestamp;
use crate::reconcile::{Backlog, DEFAULT_REVIEW_CAPACITY};
use crate::store::{Ledger, StoreError};

/// Ledgers with at most this many jobs are counted in place (a few milliseconds).
pub(crate) const IN_PLACE_JOBS: i64 = 20_000;

/// At most one count running, and whether the ledger changed since it started.
pub(crate) struct GlanceWorker {
    path: PathBuf,
    running: Option<Receiver<Result<Glance, StoreError>>>,
    /// Asked again while a count was running: the clock to count at next.
    again: Option<Timestamp>,
    /// Ledgers with more jobs than this are counted by the worker.
    pub in_place_jobs: i64,
}

impl GlanceWorker {
    pub fn new(path: PathBuf) -> Self {
        GlanceWorker {
            path,
            running: None,
            again: None,
            in_place_jobs: IN_PLACE_JOBS,
        }
    }

    /// Starts a count at `now`, or, while one runs, asks for another after it.
    fn request(&mut self, now: Timestamp) {
        if self.running.is_some() {
            self.again = Some(now);
            return;
        }
        let (tx, rx) = mpsc::channel();
        let path = self.path.clone();
        std::thread::spawn(move || {
            let glance = Ledger::open_read_only(&path).and_then(|l| Glance::read(&l, now));
            // The console may have left meanwhile; then nobody needs the answer.
            let _ = tx.send(glance);
        });
        self.running = Some(rx);
    }

    /// The finished count, if there is one (and the next one started, if asked for).
    fn take(&mut self) -> Option<Result<Glance, StoreError>> {
        let result = match self.running.as_ref()?.try_recv() {
            Ok(result) => result,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => {
                self.running = None;
                return None;
            }
        };
        self.running = None;
        if let Some(now) = self.again.take() {
            self.request(now);
        }
        Some(result)
    }

    /// Is a count running?
    #[cfg(test)]
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }
}

impl App {
    /// Re-reads the glance: in place for a small ledger, else asks the worker (the
    /// backlog alarm, which is cheap and shown in every frame, is read in place).
    pub(crate) fn read_glance(&mut self) -> Result<(), StoreError> {
        if self.ledger.job_count()? <= self.glance_worker.in_place_jobs {
            self.glance = Glance::read(&self.ledger, self.now)?;
        } else {
            self.glance.backlog =
                Backlog::measure(&self.ledger, self.now, DEFAULT_REVIEW_CAPACITY)?;
            self.glance_worker.request(self.now);
        }
        Ok(())
    }

    /// Takes in a count the worker finished (on a tick).
    pub(crate) fn take_glance(&mut self) {
        match self.glance_worker.take() {
            Some(Ok(glance)) => self.glance = glance,
            Some(Err(e)) => self.flash = Flash::error(format!("counting the reconciliation: {e}")),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::clock::Clock;
    use crate::console::{Action, update};
    use crate::demo::{self, DemoData};

    #[test]
    fn a_large_ledger_is_counted_off_the_thread_and_equals_the_count_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.db");
        let now = demo::demo_now();
        demo::build(
            &path,
            now,
            DemoData::Synthetic { jobs: 300, seed: 3 },
            |_| {},
        )
        .unwrap();
        let in_place = Glance::read(&Ledger::open(&path).unwrap(), now).unwrap();
        assert!(in_place.counted && in_place.missing.accepted == 300);

        let mut app = App::new(
            Ledger::open(&path).unwrap(),
            Clock::Fixed(now),
            "t".into(),
            false,
        )
        .unwrap();
        app.glance_worker.in_place_jobs = 10;
        app.glance = Glance::default();
        app.refresh().unwrap();
        assert!(
            !app.glance.counted,
            "a large ledger is not counted in place"
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        while !app.glance.counted {
            assert!(Instant::now() < deadline, "the worker never answered");
            std::thread::sleep(Duration::from_millis(5));
            update(&mut app, Action::Tick);
        }
        assert_eq!(app.glance, in_place);
        assert!(!app.glance_worker.busy());
    }
}
