//! `check`'s `kept_reconciliation`, for either engine: what the ledger keeps for the
//! reconciliation's glance (each finding's jobs and their count, each clock hour's jobs
//! by state and the two findings counted by hour) against the walk over every job,
//! each judged by [`Finding::holds`] as `reconcile` judges it.
//!
//! The engine reads what it keeps ([`KeptAgainstWalk::new`]) and walks every job
//! ([`KeptAgainstWalk::note`]) in one snapshot; this compares the two as the walk goes
//! (both in job id order, bytewise, so only what is kept is held) and words what
//! differs the same way on both engines.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Finding, FindingKept, HourKept, JobAccount};
use crate::decision::JobState;

/// How many of a finding's differing jobs its problem names before it counts the rest.
const NAMED: usize = 3;

/// One finding: what is kept, and how the walk so far compares with it.
struct FindingAgainstWalk {
    finding: Finding,
    /// The count the ledger keeps (what the glance shows).
    count: i64,
    /// Every job id the ledger keeps for it, in job id order.
    kept: Vec<String>,
    /// The kept ids before this place are accounted for.
    next: usize,
    /// Jobs the walk finds it names.
    walked: i64,
    /// The first differing jobs, in job id order, in words.
    named: Vec<String>,
    /// Differing jobs past those named.
    more: i64,
}

impl FindingAgainstWalk {
    fn differs(&mut self, job_id: &str, how: &str) {
        if self.named.len() < NAMED {
            self.named.push(format!("{job_id} {how}"));
        } else {
            self.more += 1;
        }
    }

    /// Kept jobs before `job_id` (bytewise) that the walk passed without finding.
    fn kept_before(&mut self, job_id: Option<&str>) {
        while let Some(kept) = self.kept.get(self.next) {
            if job_id.is_some_and(|id| kept.as_bytes() >= id.as_bytes()) {
                break;
            }
            let kept = std::mem::take(&mut self.kept[self.next]);
            self.differs(&kept, "kept, not found by the walk");
            self.next += 1;
        }
    }

    fn found(&mut self, job_id: &str) {
        self.walked += 1;
        self.kept_before(Some(job_id));
        if self.kept.get(self.next).is_some_and(|kept| kept == job_id) {
            self.next += 1;
        } else {
            self.differs(job_id, "found by the walk, not kept");
        }
    }

    /// The problem, when the kept finding is not the walk's.
    fn problem(mut self) -> Option<String> {
        self.kept_before(None);
        let rows = i64::try_from(self.kept.len()).unwrap_or(i64::MAX);
        if self.named.is_empty() && self.count == rows && self.count == self.walked {
            return None;
        }
        let kept = if self.count == rows {
            format!("keeps {}", jobs(rows))
        } else {
            format!("counts {} and keeps {rows}", jobs(self.count))
        };
        let mut problem = format!(
            "{}: the ledger {kept}, the walk finds {}",
            self.finding.as_str(),
            self.walked
        );
        if !self.named.is_empty() {
            let first = if self.named.len() == 1 && self.more == 0 {
                "difference"
            } else {
                "differences"
            };
            let _ = write!(problem, "; first {first}: {}", self.named.join("; "));
        }
        if self.more > 0 {
            let _ = write!(problem, "; and {} more", self.more);
        }
        Some(problem)
    }
}

/// `n` jobs, in words.
fn jobs(n: i64) -> String {
    if n == 1 {
        "1 job".to_owned()
    } else {
        format!("{n} jobs")
    }
}

/// What the ledger keeps for the reconciliation, compared with the walk as it goes.
pub(super) struct KeptAgainstWalk {
    findings: Vec<FindingAgainstWalk>,
    /// The hours kept, by start (milliseconds).
    kept_hours: BTreeMap<i64, HourKept>,
    /// The hours the walk finds, by start (milliseconds).
    walked_hours: BTreeMap<i64, HourKept>,
    jobs: i64,
}

impl KeptAgainstWalk {
    /// What is kept: every finding with every job id it names (`kept`, in job id
    /// order, as `finding_kept` reads them with no limit), and every hour.
    pub fn new(kept: Vec<(Finding, FindingKept)>, hours: Vec<HourKept>) -> KeptAgainstWalk {
        KeptAgainstWalk {
            findings: kept
                .into_iter()
                .map(|(finding, kept)| FindingAgainstWalk {
                    finding,
                    count: kept.count,
                    kept: kept.first,
                    next: 0,
                    walked: 0,
                    named: Vec::new(),
                    more: 0,
                })
                .collect(),
            kept_hours: hours.into_iter().map(|h| (h.start.millis(), h)).collect(),
            walked_hours: BTreeMap::new(),
            jobs: 0,
        }
    }

    /// One job of the walk (jobs come in job id order, bytewise).
    pub fn note(&mut self, job: &JobAccount<'_>) {
        self.jobs += 1;
        for finding in &mut self.findings {
            if finding.finding.holds(job) {
                finding.found(job.job_id);
            }
        }
        let start = job.accepted_at.window_start(3600);
        let hour = self
            .walked_hours
            .entry(start.millis())
            .or_insert_with(|| HourKept::at(start));
        if let Some(i) = JobState::ALL.iter().position(|s| *s == job.state) {
            hour.states[i] += 1;
        }
        hour.divergent_decisions += i64::from(Finding::DivergentDecisions.holds(job));
        hour.conflicting_submissions += i64::from(Finding::ConflictingSubmissions.holds(job));
    }

    /// The jobs walked, and each difference in a sentence (none: what is kept is what
    /// the walk finds): each finding that differs, then each hour, at most `listed`
    /// hours named; `mend` (what makes it again) closes them when there are any.
    pub fn problems(self, listed: usize, mend: &str) -> (i64, Vec<String>) {
        let mut problems: Vec<String> = self
            .findings
            .into_iter()
            .filter_map(FindingAgainstWalk::problem)
            .collect();
        let mut starts: Vec<i64> = self
            .kept_hours
            .keys()
            .chain(self.walked_hours.keys())
            .copied()
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let hours: Vec<String> = starts
            .into_iter()
            .filter_map(|start| {
                hour_problem(self.kept_hours.get(&start), self.walked_hours.get(&start))
            })
            .collect();
        let more = hours.len().saturating_sub(listed);
        problems.extend(hours.into_iter().take(listed));
        if more > 0 {
            problems.push(format!("… and {more} more hours that differ"));
        }
        if !problems.is_empty() {
            problems.push(mend.to_owned());
        }
        (self.jobs, problems)
    }
}

/// How an hour kept differs from the walk's, in a sentence (`None`: it does not).
fn hour_problem(kept: Option<&HourKept>, walked: Option<&HourKept>) -> Option<String> {
    let start = kept.or(walked)?.start;
    let nothing = HourKept::at(start);
    let (k, w) = (kept.unwrap_or(&nothing), walked.unwrap_or(&nothing));
    let counts = |h: &HourKept| -> Vec<(String, i64)> {
        JobState::ALL
            .iter()
            .zip(h.states)
            .map(|(s, n)| (format!("jobs.{}", s.as_str()), n))
            .chain([
                (
                    Finding::DivergentDecisions.as_str().to_owned(),
                    h.divergent_decisions,
                ),
                (
                    Finding::ConflictingSubmissions.as_str().to_owned(),
                    h.conflicting_submissions,
                ),
            ])
            .collect()
    };
    let mut said: Vec<String> = counts(k)
        .into_iter()
        .zip(counts(w))
        .filter(|((_, kn), (_, wn))| kn != wn)
        .map(|((name, kn), (_, wn))| format!("{name} kept {kn}, the walk finds {wn}"))
        .collect();
    match (kept, walked) {
        (Some(_), None) => {
            said.insert(0, "kept, and the walk finds no job accepted in it".into());
        }
        (None, Some(_)) => {
            said.insert(0, "not kept, and the walk finds jobs accepted in it".into());
        }
        _ => {}
    }
    (!said.is_empty()).then(|| format!("hour {start}: {}", said.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap()
    }

    fn job<'a>(job_id: &'a str, state: JobState, accepted_at: &str) -> JobAccount<'a> {
        JobAccount {
            job_id,
            state,
            accepted_at: at(accepted_at),
            output_exists: false,
            notified: true,
            divergent_decisions: false,
            conflicting_submission: false,
            open: None,
        }
    }

    fn kept(count: i64, ids: &[&str]) -> FindingKept {
        FindingKept {
            count,
            first: ids.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn hour(start: &str, succeeded: i64) -> HourKept {
        let mut h = HourKept::at(at(start));
        h.add("jobs.succeeded", succeeded);
        h
    }

    #[test]
    fn what_is_kept_as_the_walk_finds_it_has_no_problem() {
        let mut c = KeptAgainstWalk::new(
            vec![(Finding::MissingOutput, kept(2, &["a", "c"]))],
            vec![hour("2026-11-27T13:00:00Z", 3)],
        );
        for id in ["a", "b", "c"] {
            let mut job = job(id, JobState::Succeeded, "2026-11-27T13:10:00Z");
            job.output_exists = id == "b";
            c.note(&job);
        }
        assert_eq!(c.problems(20, "mend"), (3, vec![]));
    }

    #[test]
    fn each_difference_is_named_in_job_id_order_a_few_then_counted() {
        let mut c = KeptAgainstWalk::new(
            vec![(Finding::MissingOutput, kept(3, &["a", "b2", "d"]))],
            vec![hour("2026-11-27T13:00:00Z", 5)],
        );
        for id in ["a", "b", "c", "d", "e"] {
            c.note(&job(id, JobState::Succeeded, "2026-11-27T13:10:00Z"));
        }
        let (jobs, problems) = c.problems(20, "mend");
        assert_eq!(jobs, 5);
        assert_eq!(
            problems,
            [
                "missing_output: the ledger keeps 3 jobs, the walk finds 5; first differences: \
                 b found by the walk, not kept; b2 kept, not found by the walk; \
                 c found by the walk, not kept; and 1 more",
                "mend"
            ]
        );
    }

    #[test]
    fn a_count_apart_from_its_rows_and_hours_that_differ_are_named() {
        let mut c = KeptAgainstWalk::new(
            vec![(Finding::MissingOutput, kept(4, &["a"]))],
            vec![
                hour("2026-11-27T12:00:00Z", 1),
                hour("2026-11-27T13:00:00Z", 2),
            ],
        );
        c.note(&job("a", JobState::Succeeded, "2026-11-27T13:10:00Z"));
        c.note(&job("b", JobState::Cancelled, "2026-11-27T14:10:00Z"));
        let (_, problems) = c.problems(20, "mend");
        assert_eq!(
            problems,
            [
                "missing_output: the ledger counts 4 jobs and keeps 1, the walk finds 1",
                "hour 2026-11-27T12:00:00.000Z: kept, and the walk finds no job accepted in it; \
                 jobs.succeeded kept 1, the walk finds 0",
                "hour 2026-11-27T13:00:00.000Z: jobs.succeeded kept 2, the walk finds 1",
                "hour 2026-11-27T14:00:00.000Z: not kept, and the walk finds jobs accepted in it; \
                 jobs.cancelled kept 0, the walk finds 1",
                "mend"
            ]
        );
        let mut c = KeptAgainstWalk::new(vec![], vec![]);
        c.note(&job("b", JobState::Cancelled, "2026-11-27T14:10:00Z"));
        c.note(&job("c", JobState::Cancelled, "2026-11-27T15:10:00Z"));
        let (_, problems) = c.problems(1, "mend");
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert_eq!(problems[1], "… and 1 more hours that differ");
    }
}
