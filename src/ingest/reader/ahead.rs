//! The read-ahead, bounded in bytes.
//!
//! The channel to the writer holds a number of chunks, and a chunk a number of lines:
//! counted in lines alone, 2,000 lines of 1 MiB took 1.5 GB. Every line read holds a
//! share of a byte budget until the writer is done with it (drops it); the reader sends
//! a chunk only while the lines in flight fit the budget, or when nothing else is in
//! flight (a chunk over the budget alone, one long line, still goes).

use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// The bytes of read lines in flight between the reader and the writer.
pub(crate) struct ReadAhead {
    budget: u64,
    state: Mutex<InFlight>,
    room: Condvar,
}

#[derive(Default)]
struct InFlight {
    bytes: u64,
    reader_waits: bool,
}

impl ReadAhead {
    /// A read-ahead of at most `budget` bytes (beyond one chunk that is larger alone).
    pub fn new(budget: u64) -> Arc<Self> {
        Arc::new(ReadAhead {
            budget,
            state: Mutex::new(InFlight::default()),
            room: Condvar::new(),
        })
    }

    /// Counts `bytes` of a line just read as in flight until the returned share drops.
    pub fn hold(self: &Arc<Self>, bytes: usize) -> Held {
        let bytes = bytes as u64;
        self.lock().bytes += bytes;
        Held {
            bytes,
            ahead: Arc::clone(self),
        }
    }

    /// Waits until a chunk of `own` bytes (already held) may go: everything in flight
    /// fits the budget, or the chunk is all there is.
    pub fn wait_for_room(&self, own: u64) {
        let mut state = self.lock();
        while state.bytes > self.budget && state.bytes > own {
            state.reader_waits = true;
            state = self
                .room
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state.reader_waits = false;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, InFlight> {
        // A panic elsewhere leaves the counts as they were: still good to read.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A line's share of the read-ahead, given back when the line is dropped (the writer
/// is done with it, or the channel was dropped with it).
pub(crate) struct Held {
    bytes: u64,
    ahead: Arc<ReadAhead>,
}

impl Held {
    /// Gives the share back now (once: dropping it later gives nothing more).
    pub fn release(&mut self) {
        let bytes = std::mem::take(&mut self.bytes);
        if bytes == 0 {
            return;
        }
        let mut state = self.ahead.lock();
        state.bytes -= bytes;
        if state.reader_waits {
            self.ahead.room.notify_one();
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_waits_until_the_writer_drops_what_it_read() {
        let ahead = ReadAhead::new(10);
        let first = ahead.hold(8);
        ahead.wait_for_room(8); // alone in flight: goes even over the budget
        let second = ahead.hold(8);
        let waiting = {
            let ahead = Arc::clone(&ahead);
            std::thread::spawn(move || ahead.wait_for_room(8))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiting.is_finished(), "16 bytes in flight, 10 allowed");
        drop(first);
        waiting.join().unwrap();
        drop(second);
        assert_eq!(ahead.lock().bytes, 0);
    }
}
