//! A deterministic, realistic event stream of any size, for trying the console on a
//! million jobs and for benchmarks.
//!
//! Jobs start a few seconds apart. [`write_stream`] is the demo ledger's stream: each
//! job's events together, callbacks at most minutes late. [`write_ordered`] writes the
//! same stories with callbacks as late as they come in practice (`lateness`), in time
//! order, shuffled, or each job's together (`order`). The mix
//! follows what the product exists for: mostly clean work, then late, repeated,
//! conflicting and unmatched callbacks, staff replacements, cancels, expiries,
//! failures, dropped notifications and outputs, repeated decisions, retries decided
//! again from another region, job ids reused for other input, and stuck jobs (half
//! of them owned). A stream cannot say when an owner escalates: once the stream
//! is in a ledger, [`escalate_owned`] gives the owned stuck jobs escalation times.

use std::io::{self, Write};

mod lateness;
mod order;

pub use order::{StreamOrder, stream_start, write_ordered};

use crate::clock::Timestamp;
use crate::filter::{Query, Scope};
use crate::store::{Ledger, PageRequest, StoreError};
use lateness::Lateness;

/// splitmix64: small, fast, and the same numbers on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// What happens to one synthetic job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Story {
    OnTime,
    WorkerRecord,
    LateSuccess,
    StaffRetryThenLateSuccess,
    LateFailure,
    CancelledThenCallback,
    PermanentFailure,
    TransientFailure,
    RepeatedCallback,
    ConflictingPair,
    Expired,
    Stuck,
}

fn story(roll: u64) -> Story {
    match roll {
        0..=599 => Story::OnTime,
        600..=679 => Story::WorkerRecord,
        680..=759 => Story::LateSuccess,
        760..=799 => Story::StaffRetryThenLateSuccess,
        800..=839 => Story::LateFailure,
        840..=869 => Story::CancelledThenCallback,
        870..=889 => Story::PermanentFailure,
        890..=909 => Story::TransientFailure,
        910..=939 => Story::RepeatedCallback,
        940..=959 => Story::ConflictingPair,
        960..=979 => Story::Expired,
        _ => Story::Stuck,
    }
}

/// Writes the NDJSON stream for `jobs` jobs, deterministic for a given `seed`: the
/// stream the demo ledger is built from, each job's events together and callbacks at
/// most minutes late. Returns the number of lines written. (The streams met in
/// practice, late by days and merged by time, are [`write_ordered`]'s.)
pub fn write_stream(
    out: &mut impl Write,
    jobs: u64,
    seed: u64,
    start: Timestamp,
) -> io::Result<u64> {
    let mut rng = Rng(seed ^ 0x6A6F_626C_6564_6765);
    let base = start.millis() / 1000;
    let mut clock = 0i64;
    let mut job = Vec::new();
    let mut lines = 0;
    for n in 0..jobs {
        clock += 1 + i64::try_from(rng.below(6)).unwrap_or(0);
        job.clear();
        story_lines(&mut rng, None, n, base + clock, &mut job);
        for line in &job {
            out.write_all(line.text.as_bytes())?;
            out.write_all(b"\n")?;
            lines += 1;
        }
    }
    Ok(lines)
}

/// One line of a job's story and when it reaches the ledger (seconds since the epoch;
/// always the line's own `at`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    at: i64,
    text: String,
}

/// Appends job `n`'s lines, accepted at `at0` (seconds), in the order its story tells
/// them. Without `late`, callbacks come at most minutes late (the demo ledger's
/// stream); with it, the late ones arrive as [`Lateness`] says.
#[allow(clippy::too_many_lines)] // one story a match arm, read as a table
fn story_lines(
    rng: &mut Rng,
    mut late: Option<&mut Lateness>,
    n: u64,
    at0: i64,
    lines: &mut Vec<Line>,
) {
    let mut w = Emitter { lines };
    let t = |offset: i64| ts(at0 + offset);
    let id = format!("job-{n:07}");
    let story = story(rng.below(1000));
    let owner = if story == Story::Stuck && rng.below(2) == 0 {
        format!(
            ",\"owner\":\"ops:{}\"",
            ["lee", "maria", "ravi", "dana"][usize::try_from(rng.below(4)).unwrap_or(0)]
        )
    } else {
        String::new()
    };
    w.line(at0, format_args!(
            r#"{{"event":"job_accepted","job_id":"{id}","at":"{}","timeout_s":120,"expected_age_s":1800,"attempt_budget":3,"input_digest":"sha256:{:012x}","model_digest":"sha256:51d0b2","policy_revision":"r7"{owner}}}"#,
            t(0),
            rng.next() >> 16
        ));
    w.line(
        at0 + 1,
        format_args!(
            r#"{{"event":"attempt_started","job_id":"{id}","attempt":1,"at":"{}"}}"#,
            t(1)
        ),
    );
    // A client that reuses a job id for other input is a bug, and rare: one job in
    // two thousand. Chosen by the job's number, not the generator, so every other
    // line of the stream stays as it was.
    if n % 2000 == 1999 {
        w.line(at0 + 3, format_args!(
            r#"{{"event":"job_accepted","job_id":"{id}","at":"{}","timeout_s":120,"input_digest":"sha256:reused{n:06}","model_digest":"sha256:51d0b2","policy_revision":"r7"}}"#,
            t(3)
        ));
    }
    match story {
        Story::OnTime | Story::RepeatedCallback => {
            w.callback(&id, 1, "success", at0 + 40, &format!("d-{n}-a"));
            if story == Story::RepeatedCallback {
                // The sender saw no acknowledgement and delivers again: seconds later
                // in the demo's stream, hours later as webhook retries go.
                let again = late.as_mut().map_or(at0 + 95, |l| l.redelivery(at0 + 40));
                w.callback(&id, 1, "success", again, &format!("d-{n}-a"));
            }
            w.finish(rng, &id, at0 + 41);
            if rng.below(10) == 0 {
                w.line(at0 + 43, format_args!(
                        r#"{{"event":"decision","decision_id":"dec-{n}","job_id":"{id}","action":"notify_customer","at":"{}"}}"#,
                        t(43)
                    ));
                // Now and then the same decision is delivered again: suppressed.
                if rng.below(10) == 0 {
                    w.line(at0 + 47, format_args!(
                            r#"{{"event":"decision","decision_id":"dec-{n}","job_id":"{id}","action":"notify_customer","at":"{}"}}"#,
                            t(47)
                        ));
                }
            }
        }
        Story::WorkerRecord => {
            w.line(at0 + 50, format_args!(
                    r#"{{"event":"job_succeeded","job_id":"{id}","attempt":1,"at":"{}","result_ref":"out/{id}.json"}}"#,
                    t(50)
                ));
            w.finish(rng, &id, at0 + 51);
        }
        Story::LateSuccess | Story::LateFailure => {
            w.line(
                at0 + 121,
                format_args!(
                    r#"{{"event":"attempt_timed_out","job_id":"{id}","attempt":1,"at":"{}"}}"#,
                    t(121)
                ),
            );
            let outcome = if story == Story::LateSuccess {
                "success"
            } else {
                "failure"
            };
            let minutes_late = at0 + 130 + i64::try_from(rng.below(600)).unwrap_or(0);
            let arrival = late_by(&mut late, minutes_late);
            w.callback(&id, 1, outcome, arrival, &format!("d-{n}-a"));
            if story == Story::LateSuccess {
                w.finish(rng, &id, at0 + 800);
            }
        }
        Story::StaffRetryThenLateSuccess => {
            w.line(
                at0 + 121,
                format_args!(
                    r#"{{"event":"attempt_timed_out","job_id":"{id}","attempt":1,"at":"{}"}}"#,
                    t(121)
                ),
            );
            w.line(at0 + 200, format_args!(
                    r#"{{"event":"attempt_started","job_id":"{id}","attempt":2,"at":"{}","created_by":"staff:dana"}}"#,
                    t(200)
                ));
            // One retry in ten had already decided downstream from the first
            // region before it went quiet, and the replacement, run in another
            // region, re-scores and decides again under its own id: about one
            // job in 250 (retries are 4 in 100), mostly the same action, every
            // fourth time another one.
            let decided_twice = n % 10 == 3;
            if decided_twice {
                w.line(at0 + 100, format_args!(
                    r#"{{"event":"decision","decision_id":"dec-{n}-eu","job_id":"{id}","action":"notify_customer","at":"{}","route":"eu-west"}}"#,
                    t(100)
                ));
            }
            w.callback(
                &id,
                1,
                "success",
                late_by(&mut late, at0 + 230),
                &format!("d-{n}-a"),
            );
            w.callback(&id, 2, "success", at0 + 260, &format!("d-{n}-b"));
            w.finish(rng, &id, at0 + 261);
            if decided_twice {
                let action = if n % 40 == 3 {
                    "refund_customer"
                } else {
                    "notify_customer"
                };
                w.line(at0 + 270, format_args!(
                    r#"{{"event":"decision","decision_id":"dec-{n}-us","job_id":"{id}","action":"{action}","at":"{}","route":"us-east"}}"#,
                    t(270)
                ));
            }
        }
        Story::CancelledThenCallback => {
            w.line(
                at0 + 30,
                format_args!(
                    r#"{{"event":"job_cancelled","job_id":"{id}","at":"{}","by":"ops:ravi"}}"#,
                    t(30)
                ),
            );
            w.callback(
                &id,
                1,
                "success",
                late_by(&mut late, at0 + 70),
                &format!("d-{n}-a"),
            );
        }
        Story::PermanentFailure | Story::TransientFailure => {
            let permanent = story == Story::PermanentFailure;
            let cause = if permanent {
                "invalid payload"
            } else {
                "input download: connection reset"
            };
            w.line(at0 + 20, format_args!(
                    r#"{{"event":"job_failed","job_id":"{id}","attempt":1,"at":"{}","cause":"{cause}","permanent":{permanent}}}"#,
                    t(20)
                ));
            w.line(
                at0 + 21,
                format_args!(
                    r#"{{"event":"notification_sent","job_id":"{id}","kind":"failed","at":"{}"}}"#,
                    t(21)
                ),
            );
        }
        Story::ConflictingPair => {
            w.callback(&id, 1, "failure", at0 + 30, &format!("d-{n}-a"));
            w.callback(&id, 1, "success", at0 + 90, &format!("d-{n}-b"));
        }
        Story::Expired => {
            w.line(
                at0 + 1800,
                format_args!(
                    r#"{{"event":"job_expired","job_id":"{id}","at":"{}"}}"#,
                    t(1800)
                ),
            );
            if rng.below(2) == 0 {
                w.line(at0 + 1801, format_args!(
                        r#"{{"event":"notification_sent","job_id":"{id}","kind":"expired","at":"{}"}}"#,
                        t(1801)
                    ));
            }
        }
        Story::Stuck => {}
    }
    if rng.below(100) == 0 {
        w.callback(
            &format!("ghost-{n}"),
            1,
            "success",
            at0 + 45,
            &format!("d-ghost-{n}"),
        );
    }
}

/// When a callback the story makes late arrives: minutes late (at `at`) in the demo's
/// stream, or as [`Lateness`] says.
fn late_by(late: &mut Option<&mut Lateness>, at: i64) -> i64 {
    late.as_mut().map_or(at, |l| l.tail(at))
}

/// Where a job's lines go.
struct Emitter<'w> {
    lines: &'w mut Vec<Line>,
}

impl Emitter<'_> {
    fn line(&mut self, at: i64, line: std::fmt::Arguments<'_>) {
        self.lines.push(Line {
            at,
            text: line.to_string(),
        });
    }

    fn callback(&mut self, job: &str, attempt: u32, outcome: &str, at: i64, delivery: &str) {
        let arrival = ts(at);
        self.line(at, format_args!(
            r#"{{"event":"callback","delivery_id":"{delivery}","job_id":"{job}","attempt":{attempt},"outcome":"{outcome}","at":"{arrival}","payload":{{"ref":"{job}/{attempt}"}}}}"#
        ));
    }

    /// The output object (now and then dropped) and the notification (now and then
    /// lost) of a job that finished at `at` (seconds since the epoch).
    fn finish(&mut self, rng: &mut Rng, id: &str, at: i64) {
        if rng.below(200) != 0 {
            self.line(at, format_args!(
                r#"{{"event":"output_stored","job_id":"{id}","ref":"out/{id}.json","at":"{}","retention_until":"2027-12-31T00:00:00Z"}}"#,
                ts(at)
            ));
        } else {
            self.line(
                at + 60,
                format_args!(
                    r#"{{"event":"output_checked","job_id":"{id}","at":"{}","exists":false}}"#,
                    ts(at + 60)
                ),
            );
        }
        if rng.below(100) != 0 {
            self.line(
                at + 1,
                format_args!(
                    r#"{{"event":"notification_sent","job_id":"{id}","kind":"done","at":"{}"}}"#,
                    ts(at + 1)
                ),
            );
        }
    }
}

/// Gives every owned aged job of a generated ledger an escalation time, as its owner
/// would: a third of them already overdue at `now`, the rest due within two days.
/// Deterministic (it follows the job ids); one transaction. Returns how many were set.
pub fn escalate_owned(ledger: &mut Ledger, now: Timestamp) -> Result<usize, StoreError> {
    let owned: Vec<(String, String)> = ledger
        .aged_jobs_page(
            now,
            &Query::all(Scope::AgedJobs),
            &PageRequest::first(usize::MAX),
        )?
        .into_iter()
        .filter_map(|job| Some((job.job_id, job.owner?.owner)))
        .collect();
    let mut writer = ledger.writer()?;
    for (job_id, owner) in &owned {
        let n: i64 = job_id
            .bytes()
            .filter(u8::is_ascii_digit)
            .fold(0, |n, d| (n * 10 + i64::from(d - b'0')) % 1_000_003);
        let escalate_at = if n % 3 == 0 {
            now.plus_seconds(-3600 * (1 + n % 12))
        } else {
            now.plus_seconds(3600 * (1 + n % 48))
        };
        writer.assign_owner(job_id, owner, Some(escalate_at), "demo", now)?;
    }
    writer.commit()?;
    Ok(owned.len())
}

fn ts(seconds: i64) -> String {
    Timestamp::from_millis(seconds * 1000).map_or_else(String::new, Timestamp::to_ledger_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(jobs: u64, seed: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let start = Timestamp::parse("2026-11-01T00:00:00Z").unwrap();
        write_stream(&mut out, jobs, seed, start).unwrap();
        out
    }

    #[test]
    fn same_seed_same_stream_other_seed_other_stream() {
        assert_eq!(stream(200, 7), stream(200, 7));
        assert_ne!(stream(200, 7), stream(200, 8));
    }

    #[test]
    fn every_line_parses_as_an_event() {
        for line in stream(500, 1)
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
        {
            let parsed = crate::event::parse_line(line);
            assert!(
                matches!(
                    parsed,
                    crate::event::Parsed::Event(_) | crate::event::Parsed::Callback(_)
                ),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
