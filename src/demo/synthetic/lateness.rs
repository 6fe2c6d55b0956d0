//! How late callbacks arrive in the streams met in practice.
//!
//! The rates, and why:
//! - A callback the story makes late (its attempt timed out, was replaced, or its
//!   job was cancelled) arrives within ten minutes of today's demo time in 60 of 100
//!   cases: most remote work that misses a 120 s timeout is slow, not lost. 25 come
//!   ten minutes to six hours late (a queue backed up, a retry with backoff), 10 six
//!   hours to a day late, and 5 one to three days late: Stripe, for one, retries a
//!   webhook with backoff for up to three days, and the last retries are the ones
//!   that get through after a long outage.
//! - A repeated delivery comes one to twelve hours after the first: the sender saw
//!   no acknowledgement in time and its retry schedule spaces retries by hours.
//! - A third of the twelve-hour periods hold one outage of the remote sender, 30 to
//!   120 minutes long, somewhere in their first half. Every late callback that would
//!   have arrived during it is replayed in a burst within a minute of its end.
//!
//! Nothing here moves a callback that is on time, nor any line but a callback: the
//! callbacks that are late were already late, so every job keeps its story (and its
//! disposition) and only the arrival times, and so the stream's order, change.

use super::Rng;

/// Twelve hours: the period an outage is drawn in.
const PERIOD: i64 = 12 * 3600;
/// The latest a callback arrives after the moment the demo's stream has it.
pub(super) const LATEST: i64 = 3 * 86_400;

/// A number for `n` under `salt`: the same on every machine.
pub(super) fn mix(salt: u64, n: u64) -> u64 {
    Rng(salt ^ n.wrapping_mul(0xD1B5_4A32_D192_ED03)).next()
}

/// The arrival times of one job's late callbacks.
pub(super) struct Lateness {
    rng: Rng,
    seed: u64,
}

impl Lateness {
    /// Job `n`'s lateness, deterministic for `seed`.
    pub(super) fn new(seed: u64, n: u64) -> Lateness {
        Lateness {
            rng: Rng(mix(seed ^ 0x6C61_7465_6E65_7373, n)),
            seed,
        }
    }

    /// When a callback that the demo's stream has arriving at `at` (seconds, minutes
    /// after its attempt's timeout) arrives in practice.
    pub(super) fn tail(&mut self, at: i64) -> i64 {
        let extra = match self.rng.below(100) {
            0..=59 => 0,
            60..=84 => self.between(600, 6 * 3600),
            85..=94 => self.between(6 * 3600, 86_400),
            // Up to three days less the longest outage and the minutes it was late
            // already, so that nothing arrives later than [`LATEST`].
            _ => self.between(86_400 + 3600, LATEST - 3 * 3600),
        };
        self.after_outage(at + extra)
    }

    /// When a callback first delivered at `first` is delivered again.
    pub(super) fn redelivery(&mut self, first: i64) -> i64 {
        let gap = self.between(3600, 12 * 3600);
        self.after_outage(first + gap)
    }

    fn between(&mut self, low: i64, high: i64) -> i64 {
        let span = u64::try_from(high - low).unwrap_or(1);
        low + i64::try_from(self.rng.below(span)).unwrap_or(0)
    }

    /// A callback due during an outage comes in the burst that replays its backlog.
    fn after_outage(&mut self, at: i64) -> i64 {
        match outage(self.seed, at) {
            Some(end) => end + self.between(0, 60),
            None => at,
        }
    }
}

/// The end of the sender's outage that `at` falls in, if it falls in one.
pub(super) fn outage(seed: u64, at: i64) -> Option<i64> {
    let period = at.div_euclid(PERIOD);
    let draw = mix(seed ^ 0x6F75_7461_6765, period.cast_unsigned());
    if !draw.is_multiple_of(3) {
        return None;
    }
    let start =
        period * PERIOD + i64::try_from((draw >> 8) % (PERIOD / 2).cast_unsigned()).unwrap_or(0);
    let end = start + 1800 + i64::try_from((draw >> 32) % 5400).unwrap_or(0);
    (start..end).contains(&at).then_some(end)
}
