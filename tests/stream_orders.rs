//! The generated streams in their three orders: time order as a ledger
//! meets it, with callbacks up to three days late; shuffled; each job's together.
//!
//! "Time order" here: every line's `at` is when it reaches the ledger (for a callback
//! its arrival, for the job system's own events the moment it wrote them), and the
//! stream is sorted by it, ties in the order the job's story tells them. So a line
//! is never before one with a later `at`: the late callbacks are late against their
//! attempt's timeout, not against the stream.

mod support;

use std::collections::BTreeMap;

use jobledger::clock::Timestamp;
use jobledger::demo::synthetic::{StreamOrder, stream_start, write_ordered};
use support::fixture::{self, TempLedger, now};

fn stream(jobs: u64, seed: u64, order: StreamOrder) -> Vec<String> {
    let mut out = Vec::new();
    let lines = write_ordered(&mut out, jobs, seed, stream_start(jobs, now()), order).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines_read: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(lines_read.len() as u64, lines);
    lines_read
}

/// The text value of `"field":"..."` in a generated line.
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("\"{name}\":\"");
    let rest = &line[line.find(&key)? + key.len()..];
    rest.split('"').next()
}

fn at(line: &str) -> Timestamp {
    Timestamp::parse(field(line, "at").unwrap()).unwrap()
}

fn seconds(t: Timestamp) -> i64 {
    t.millis() / 1000
}

/// Each job's lines (ghost callbacks under their own id), in stream order.
fn by_job(lines: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut jobs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines {
        let job = field(line, "job_id").unwrap().to_owned();
        jobs.entry(job).or_default().push(line.clone());
    }
    jobs
}

#[test]
fn the_time_ordered_stream_is_sorted_by_arrival() {
    let lines = stream(20_000, 1, StreamOrder::Time);
    for pair in lines.windows(2) {
        assert!(
            at(&pair[0]) <= at(&pair[1]),
            "out of order:\n{}\n{}",
            pair[0],
            pair[1]
        );
    }
    // Jobs interleave: most lines follow a line of another job.
    let changes = lines
        .windows(2)
        .filter(|p| field(&p[0], "job_id") != field(&p[1], "job_id"))
        .count();
    assert!(changes * 2 > lines.len(), "{changes} of {}", lines.len());
}

#[test]
fn late_callbacks_come_minutes_to_days_late_redeliveries_hours_later_backlogs_in_bursts() {
    let lines = stream(20_000, 1, StreamOrder::Time);
    let accepted: BTreeMap<&str, i64> = lines
        .iter()
        .filter(|l| l.contains(r#""event":"job_accepted""#))
        .map(|l| (field(l, "job_id").unwrap(), seconds(at(l))))
        .rev() // the first acceptance of a reused id wins
        .collect();
    let mut late = Vec::new();
    let mut deliveries: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for line in lines.iter().filter(|l| l.contains(r#""event":"callback""#)) {
        let arrived = seconds(at(line));
        deliveries
            .entry(field(line, "delivery_id").unwrap())
            .or_default()
            .push(arrived);
        if let Some(accepted) = accepted.get(field(line, "job_id").unwrap()) {
            // Past the 120 s timeout of attempt 1.
            late.push(arrived - accepted - 120);
        }
    }
    let callbacks = late.len();
    let within_timeout = late.iter().filter(|&&s| s <= 0).count();
    let over_a_day = late.iter().filter(|&&s| s > 86_400).count();
    let hours = late.iter().filter(|&&s| s > 3600 && s <= 86_400).count();
    assert!(
        within_timeout * 2 > callbacks,
        "most on time: {within_timeout} of {callbacks}"
    );
    assert!(over_a_day >= 20, "a tail over a day late: {over_a_day}");
    assert!(
        hours > over_a_day,
        "{hours} hours late, {over_a_day} days late"
    );
    assert!(
        late.iter().all(|&s| s <= 3 * 86_400),
        "none later than three days"
    );
    let redelivered: Vec<i64> = deliveries
        .values()
        .filter(|d| d.len() == 2)
        .map(|d| d[1] - d[0])
        .collect();
    assert!(!redelivered.is_empty());
    assert!(
        redelivered.iter().all(|&gap| gap >= 3600),
        "{redelivered:?}"
    );
    // A backlog replayed: many late callbacks within one minute.
    let mut per_minute: BTreeMap<i64, usize> = BTreeMap::new();
    for line in lines.iter().filter(|l| l.contains(r#""event":"callback""#)) {
        let job = field(line, "job_id").unwrap();
        let arrived = seconds(at(line));
        if accepted.get(job).is_some_and(|a| arrived - a > 600) {
            *per_minute.entry(arrived / 60).or_default() += 1;
        }
    }
    let burst = per_minute.values().max().copied().unwrap_or(0);
    assert!(
        burst >= 30,
        "the largest burst of late callbacks in a minute: {burst}"
    );
}

#[test]
fn every_order_holds_the_same_lines_each_job_in_its_own_order() {
    let time = stream(3000, 1, StreamOrder::Time);
    let shuffled = stream(3000, 1, StreamOrder::Shuffled);
    let local = stream(3000, 1, StreamOrder::Local);
    assert_eq!(by_job(&time), by_job(&local));
    assert_eq!(by_job(&shuffled), by_job(&local));
    assert_ne!(time, local);
    assert_ne!(shuffled, time);
    // Local: a job's lines together, jobs in turn (a ghost callback, for no job,
    // comes among the lines of the job it was generated with).
    let mut seen = Vec::new();
    for line in &local {
        let job = field(line, "job_id").unwrap();
        if job.starts_with("ghost-") {
            continue;
        }
        if seen.last().is_none_or(|last: &&str| *last != job) {
            assert!(!seen.contains(&job), "{job} comes back");
            seen.push(job);
        }
    }
    // Shuffled: far apart. The next line of the same job is on average hundreds of
    // lines on, against a few in time order.
    let mean_gap = |lines: &[String]| {
        let mut last: BTreeMap<&str, usize> = BTreeMap::new();
        let (mut sum, mut n) = (0usize, 0usize);
        for (i, line) in lines.iter().enumerate() {
            if let Some(before) = last.insert(field(line, "job_id").unwrap(), i) {
                sum += i - before;
                n += 1;
            }
        }
        sum / n.max(1)
    };
    assert!(mean_gap(&shuffled) > 1000, "{}", mean_gap(&shuffled));
    assert!(
        mean_gap(&time) < mean_gap(&shuffled) / 4,
        "{}",
        mean_gap(&time)
    );
}

#[test]
fn every_order_is_reproducible_by_seed() {
    for order in StreamOrder::ALL {
        assert_eq!(stream(500, 7, order), stream(500, 7, order), "{order}");
        assert_ne!(stream(500, 7, order), stream(500, 8, order), "{order}");
    }
}

/// Callbacks by disposition and reason, and jobs by state.
fn counts(t: &TempLedger) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(&t.path).unwrap();
    let mut out = Vec::new();
    for sql in [
        "SELECT 'callback ' || disposition || ' ' || reason, count(*) FROM callbacks GROUP BY 1 ORDER BY 1",
        "SELECT 'job ' || state, count(*) FROM jobs GROUP BY 1 ORDER BY 1",
        "SELECT 'lines ' || status, count(*) FROM input_lines GROUP BY 1 ORDER BY 1",
    ] {
        let mut statement = conn.prepare(sql).unwrap();
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

/// The same events in any of the orders give the same ledger: every job's lines keep
/// their order, and nothing judged of one job reads another's lines (callbacks are
/// judged against their own job; delivery and decision ids are a job's own). So the
/// counts are asserted equal, not close.
#[test]
fn ingesting_any_order_gives_the_same_counts() {
    let mut ledgers = Vec::new();
    for order in StreamOrder::ALL {
        let mut t = TempLedger::new();
        let text = stream(3000, 1, order).join("\n") + "\n";
        let report = t.ingest(&text);
        assert!(report.adds_up(), "{report}");
        fixture::assert_sound(&t.path);
        ledgers.push((order, counts(&t)));
    }
    let (_, first) = &ledgers[0];
    for disposition in ["apply", "hold", "record", "quarantine"] {
        assert!(
            first
                .iter()
                .any(|(what, n)| what.starts_with(&format!("callback {disposition} ")) && *n > 0),
            "no {disposition}: {first:?}"
        );
    }
    for (order, counts) in &ledgers[1..] {
        assert_eq!(counts, first, "{order}");
    }
}
