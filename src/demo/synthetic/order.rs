//! The generated stream in the orders a ledger meets: each job's events together, all
//! events in time order, or all in random order.
//!
//! All three hold the same lines (the same jobs, stories and arrival times, see
//! [`super::lateness`]), and in all three each job's own lines come in its time
//! order, so ingesting any of them gives the same ledger counts: only the order in
//! which jobs' lines meet differs. Memory stays bounded whatever the number of jobs:
//! time order keeps only the lines not yet due (a heap: those of the jobs late
//! callbacks are still to come from, a few thousand at any moment); random order
//! keeps ten bytes a job and makes each job's lines again when one is due.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use super::lateness::{LATEST, Lateness, mix};
use super::{Line, Rng, story_lines};
use crate::clock::Timestamp;
use crate::closed_set::closed_set;

closed_set! {
    /// The order `demo --stream-only` writes events in.
    pub enum StreamOrder("stream order") {
        /// Every event in the order it reaches the ledger (its `at`), jobs interleaved,
        /// late callbacks where they arrive: the stream a ledger meets in practice.
        Time,
        /// The events of all jobs in random order, each job's own still in order: the
        /// worst case, a day's streams merged with no regard for time.
        Shuffled,
        /// Each job's events together, jobs in the order they were accepted.
        Local,
    }
}

/// When a stream of `jobs` jobs in [`write_ordered`] starts so that its last line, up
/// to three days after its last job, comes an hour before `now`.
pub fn stream_start(jobs: u64, now: Timestamp) -> Timestamp {
    crate::demo::synthetic_start(jobs, now).plus_seconds(-LATEST)
}

/// Job `n` of the stream, accepted at `at0`: its lines in time order.
fn job(seed: u64, n: u64, at0: i64, lines: &mut Vec<Line>) {
    lines.clear();
    let mut rng = Rng(mix(seed ^ 0x6A6F_626C_6564_6765, n));
    let mut late = Lateness::new(seed, n);
    story_lines(&mut rng, Some(&mut late), n, at0, lines);
    // Stable: lines of one moment keep the order the story tells them in.
    lines.sort_by_key(|line| line.at);
}

/// When each job is accepted: a few seconds after the one before.
struct Acceptances {
    rng: Rng,
    at: i64,
}

impl Acceptances {
    fn new(seed: u64, start: Timestamp) -> Acceptances {
        Acceptances {
            rng: Rng(mix(seed ^ 0x6163_6365_7074, 0)),
            at: start.millis() / 1000,
        }
    }

    fn next(&mut self) -> i64 {
        self.at += 1 + i64::try_from(self.rng.below(6)).unwrap_or(0);
        self.at
    }
}

/// Writes the stream of `jobs` jobs in `order`, deterministic for a given `seed`,
/// with callbacks as late as they come in practice. Returns the number of lines.
pub fn write_ordered(
    out: &mut impl Write,
    jobs: u64,
    seed: u64,
    start: Timestamp,
    order: StreamOrder,
) -> io::Result<u64> {
    let mut written = 0u64;
    let mut emit = |line: &Line| -> io::Result<()> {
        written += 1;
        out.write_all(line.text.as_bytes())?;
        out.write_all(b"\n")
    };
    let mut accepted = Acceptances::new(seed, start);
    let mut lines = Vec::new();
    match order {
        StreamOrder::Local => {
            for n in 0..jobs {
                job(seed, n, accepted.next(), &mut lines);
                lines.iter().try_for_each(&mut emit)?;
            }
        }
        StreamOrder::Time => {
            // A job's lines are never before its acceptance, and jobs are accepted in
            // turn: once job n is accepted, every waiting line due by then is final.
            // Ties go to the earlier job, then to the story's order.
            let mut waiting: BinaryHeap<Reverse<(i64, u64, usize, String)>> = BinaryHeap::new();
            for n in 0..jobs {
                let at0 = accepted.next();
                while waiting.peek().is_some_and(|Reverse(next)| next.0 <= at0) {
                    if let Some(Reverse((at, _, _, text))) = waiting.pop() {
                        emit(&Line { at, text })?;
                    }
                }
                job(seed, n, at0, &mut lines);
                for (i, line) in lines.drain(..).enumerate() {
                    waiting.push(Reverse((line.at, n, i, line.text)));
                }
            }
            while let Some(Reverse((at, _, _, text))) = waiting.pop() {
                emit(&Line { at, text })?;
            }
        }
        StreamOrder::Shuffled => {
            let count = usize::try_from(jobs).unwrap_or(usize::MAX);
            let mut accepted_at = Vec::with_capacity(count);
            let mut left = Vec::with_capacity(count);
            for n in 0..jobs {
                let at0 = accepted.next();
                job(seed, n, at0, &mut lines);
                accepted_at.push(at0);
                left.push(u32::try_from(lines.len()).unwrap_or(u32::MAX));
            }
            let mut remaining = Remaining::new(&left);
            let mut taken = vec![0u8; count];
            let mut rng = Rng(mix(seed ^ 0x0073_6875_6666_6C65, 0));
            while remaining.total > 0 {
                // The next line is of a job drawn by the lines it has left: every
                // interleaving of the jobs' lines is equally likely.
                let n = remaining.take(rng.below(remaining.total));
                let at0 = accepted_at[n];
                job(seed, n as u64, at0, &mut lines);
                if let Some(line) = lines.get(usize::from(taken[n])) {
                    emit(line)?;
                }
                taken[n] = taken[n].saturating_add(1);
            }
        }
    }
    Ok(written)
}

/// Lines left per job, as a Fenwick tree: draw the job holding the k-th line left and
/// take that line, each in O(log jobs).
struct Remaining {
    tree: Vec<u64>,
    total: u64,
}

impl Remaining {
    fn new(left: &[u32]) -> Remaining {
        let mut tree = vec![0u64; left.len() + 1];
        // In one pass: a node has all its children's sums before it passes its own on.
        for (i, &count) in left.iter().enumerate() {
            let at = i + 1;
            tree[at] += u64::from(count);
            let parent = at + (at & at.wrapping_neg());
            if parent < tree.len() {
                tree[parent] += tree[at];
            }
        }
        let total = left.iter().map(|&c| u64::from(c)).sum();
        Remaining { tree, total }
    }

    /// The job holding line `k` (from 0) of those left; one line of it is taken.
    fn take(&mut self, mut k: u64) -> usize {
        let mut at = 0usize;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = at + step;
            if next < self.tree.len() && self.tree[next] <= k {
                k -= self.tree[next];
                at = next;
            }
            step /= 2;
        }
        // `at` lines' jobs lie before the one drawn: it is job `at` (tree index at + 1).
        let mut i = at + 1;
        while i < self.tree.len() {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
        self.total -= 1;
        at
    }
}

#[cfg(test)]
mod tests {
    use super::Remaining;

    #[test]
    fn remaining_takes_every_line_once() {
        let left = [3u32, 0, 1, 5, 2, 0, 4];
        let mut remaining = Remaining::new(&left);
        let mut taken = [0u32; 7];
        let mut k = 11u64;
        while remaining.total > 0 {
            k = (k * 7 + 3) % remaining.total;
            taken[remaining.take(k)] += 1;
        }
        assert_eq!(taken, left);
    }

    #[test]
    fn remaining_finds_the_job_of_each_line() {
        let mut remaining = Remaining::new(&[2, 0, 3]);
        assert_eq!(remaining.take(4), 2);
        assert_eq!(remaining.take(0), 0);
        assert_eq!(remaining.take(1), 2);
    }
}
