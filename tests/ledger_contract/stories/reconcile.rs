//! Reconciliation: every accepted job accounted for, by what the ledger proves.

use serde_json::{Value, json};

use super::{strings, with_demo_streams};
use crate::location::Location;

/// The job ids of a list of objects.
fn job_ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap_or_else(|| panic!("expected a list: {list}"))
        .iter()
        .map(|item| item["job_id"].as_str().expect("a job id"))
        .collect()
}

/// The demo queue is not complete, and the report says why, job by job: the jobs with
/// no terminal record (the aged ones among them, the unowned flagged), the success
/// whose output is gone (though notified: a notification is no result), the job never
/// notified, the job decided twice under two decision ids, the job id submitted again
/// for another input. Every accepted job is in one window.
pub fn the_demo_queue_is_accounted_for_job_by_job(location: &Location) {
    with_demo_streams(location);
    let r = location.json(&["reconcile", "--json"]);
    assert_eq!(r["accepted"], 15);
    assert_eq!(r["complete"], false);
    assert_eq!(
        strings(&r["missing_terminal"]),
        [
            "booking-1042",
            "booking-1043",
            "booking-1055",
            "booking-1056"
        ]
    );
    assert_eq!(strings(&r["missing_output"]), ["booking-1052"]);
    assert_eq!(strings(&r["missing_notification"]), ["booking-1051"]);

    let divergent = &r["divergent_decisions"];
    assert_eq!(job_ids(divergent), ["booking-1045"]);
    let decisions: Vec<(&Value, &Value)> = divergent[0]["decisions"]
        .as_array()
        .expect("the decisions")
        .iter()
        .map(|d| (&d["decision_id"], &d["route"]))
        .collect();
    assert_eq!(
        decisions,
        [
            (&json!("dec-1045-eu"), &json!("eu-west")),
            (&json!("dec-1045-us"), &json!("us-east"))
        ]
    );
    assert_eq!(divergent[0]["answer"], Value::Null);

    let conflicting = &r["conflicting_submissions"];
    assert_eq!(job_ids(conflicting), ["booking-1043"]);
    assert_eq!(conflicting[0]["first"]["input_digest"], "sha256:0b44c1");
    assert_eq!(
        conflicting[0]["conflicting"][0]["input_digest"],
        "sha256:e71d05"
    );

    let aged: Vec<(&str, &Value, &Value)> = r["aged"]
        .as_array()
        .expect("the aged jobs")
        .iter()
        .map(|a| {
            (
                a["job_id"].as_str().expect("a job id"),
                &a["owner"],
                &a["unowned"],
            )
        })
        .collect();
    assert_eq!(
        aged,
        [
            ("booking-1042", &Value::Null, &json!(true)),
            ("booking-1043", &Value::Null, &json!(true)),
            ("booking-1055", &json!("ops:lee"), &json!(false)),
            ("booking-1056", &Value::Null, &json!(true)),
        ]
    );

    let windows = r["windows"].as_array().expect("the windows");
    let starts: Vec<&str> = windows
        .iter()
        .map(|w| w["start"].as_str().expect("a start"))
        .collect();
    assert_eq!(
        starts,
        ["2026-11-27T13:00:00.000Z", "2026-11-27T14:00:00.000Z"]
    );
    let per_window: i64 = windows
        .iter()
        .map(|w| w["accepted"].as_i64().expect("a count"))
        .sum();
    assert_eq!(per_window, 15, "every accepted job is in one window");

    let out = location.run(&["reconcile", "--exit-code"]);
    assert_eq!(out.status.code(), Some(5), "NOT COMPLETE wants a person");
}

/// A person answers which of booking-1045's decisions stands: the report shows the
/// answer beside the decisions, and a second answer over it unseen is refused.
pub fn an_answer_on_divergent_decisions_closes_them(location: &Location) {
    with_demo_streams(location);
    let written = location.json(&[
        "answer",
        "--decisions",
        "booking-1045",
        "--verdict",
        "first_stands",
        "--note",
        "checked with payments",
        "--reviewer",
        "ann",
        "--json",
    ]);
    assert_eq!(written["job_id"], "booking-1045");
    assert_eq!(written["verdict"], "first_stands");
    assert_eq!(written["reviewer"], "ann");

    let r = location.json(&["reconcile", "--json"]);
    let answer = &r["divergent_decisions"][0]["answer"];
    assert_eq!(answer["verdict"], "first_stands", "{r}");
    assert_eq!(answer["reviewer"], "ann");
    assert_eq!(answer["note"], "checked with payments");
    assert_eq!(answer["id"], written["id"]);
    {
        let ledger = location.open_read_only();
        let standing = ledger
            .decision_answer("booking-1045")
            .unwrap()
            .expect("the answer is kept");
        assert_eq!(standing.reviewer, "ann");
        assert_eq!(ledger.divergent_decisions_closed().unwrap(), 1);
    }

    location.refused(
        &[
            "answer",
            "--decisions",
            "booking-1045",
            "--verdict",
            "second_stands",
            "--reviewer",
            "bob",
        ],
        &["answered meanwhile by ann", "nothing was written"],
    );
    let after = location.json(&["reconcile", "--json"]);
    assert_eq!(after["divergent_decisions"][0]["answer"], *answer);
}

/// Edge cases of the findings the ledger keeps, in one stream: a retry reopens a failed
/// job and its success comes after; a check made after a store arrives before the store
/// (and another finds the object gone); an output stored again after a check found it
/// missing; a notification before the job's success; a job decided under two ids and a
/// third acted on, one suppressed; a job id submitted again twice with other inputs.
const EDGES: &str = r#"{"event":"job_accepted","job_id":"edge-1","at":"2026-11-27T09:00:00Z","timeout_s":60,"attempt_budget":3}
{"event":"attempt_started","job_id":"edge-1","attempt":1,"at":"2026-11-27T09:00:01Z"}
{"event":"job_failed","job_id":"edge-1","attempt":1,"at":"2026-11-27T09:00:30Z","cause":"flaky"}
{"event":"attempt_started","job_id":"edge-1","attempt":2,"at":"2026-11-27T09:01:00Z","created_by":"staff:ann"}
{"event":"job_succeeded","job_id":"edge-1","attempt":2,"at":"2026-11-27T09:01:30Z","result_ref":"r/1"}
{"event":"job_accepted","job_id":"edge-2","at":"2026-11-27T09:10:00Z","timeout_s":60,"input_digest":"sha256:aa"}
{"event":"attempt_started","job_id":"edge-2","attempt":1,"at":"2026-11-27T09:10:01Z"}
{"event":"notification_sent","job_id":"edge-2","kind":"done","at":"2026-11-27T09:10:20Z"}
{"event":"output_checked","job_id":"edge-2","at":"2026-11-27T09:30:00Z","exists":false}
{"event":"job_succeeded","job_id":"edge-2","attempt":1,"at":"2026-11-27T09:10:30Z","result_ref":"r/2"}
{"event":"output_stored","job_id":"edge-2","ref":"o/2","at":"2026-11-27T09:10:31Z"}
{"event":"job_accepted","job_id":"edge-3","at":"2026-11-27T10:00:00Z","timeout_s":60}
{"event":"attempt_started","job_id":"edge-3","attempt":1,"at":"2026-11-27T10:00:01Z"}
{"event":"job_succeeded","job_id":"edge-3","attempt":1,"at":"2026-11-27T10:00:30Z","result_ref":"r/3"}
{"event":"output_stored","job_id":"edge-3","ref":"o/3","at":"2026-11-27T10:00:31Z"}
{"event":"output_checked","job_id":"edge-3","at":"2026-11-27T10:05:00Z","exists":false}
{"event":"output_stored","job_id":"edge-3","ref":"o/3b","at":"2026-11-27T10:06:00Z"}
{"event":"decision","decision_id":"dec-e3-a","job_id":"edge-3","action":"ship","at":"2026-11-27T10:07:00Z"}
{"event":"decision","decision_id":"dec-e3-a","job_id":"edge-3","action":"ship","at":"2026-11-27T10:07:30Z"}
{"event":"decision","decision_id":"dec-e3-b","job_id":"edge-3","action":"ship","at":"2026-11-27T10:08:00Z"}
{"event":"decision","decision_id":"dec-e3-c","job_id":"edge-3","action":"ship","at":"2026-11-27T10:09:00Z"}
{"event":"job_accepted","job_id":"edge-2","at":"2026-11-27T10:10:00Z","timeout_s":60,"input_digest":"sha256:bb"}
{"event":"job_accepted","job_id":"edge-2","at":"2026-11-27T10:11:00Z","timeout_s":60,"input_digest":"sha256:cc"}
{"event":"job_accepted","job_id":"edge-4","at":"2026-11-27T10:20:00Z","timeout_s":60}
{"event":"job_cancelled","job_id":"edge-4","at":"2026-11-27T10:21:00Z","by":"ops:kim"}
{"event":"notification_sent","job_id":"edge-1","kind":"done","at":"2026-11-27T10:30:00Z"}
"#;

/// What the ledger keeps for the reconciliation's glance is what the walk over every job
/// finds, as the ledger grows: after half a generated stream, after the whole of it
/// arriving again in another order (the lines kept already adding nothing, the others
/// applied as they come, out of order), after the demo streams and the edge cases, and
/// after everything once more (a re-run: nothing changes).
pub fn the_kept_glance_is_what_the_walk_over_every_job_finds(location: &Location) {
    use jobledger::reconcile::{account, kept_accounts};

    let stream = String::from_utf8(crate::support::fixture::synthetic_stream(400))
        .expect("the stream is UTF-8");
    let lines: Vec<&str> = stream.lines().collect();
    // Another order: every seventh line from each start, so a job's events come
    // scattered, its outcome before its start or its notification before its success.
    let shuffled: Vec<&str> = (0..7)
        .flat_map(|start| lines.iter().skip(start).step_by(7).copied())
        .collect();
    let same = |step: &str| {
        let ledger = location.open_read_only();
        let walked = account(&ledger, 3600, usize::MAX, None).unwrap();
        let kept = kept_accounts(&ledger, usize::MAX, walked.windows.len() + 1).unwrap();
        assert_eq!(kept, walked, "{step}: everything, every window");
        // As the console asks: the first jobs of each finding, the latest windows.
        let mut walked = account(&ledger, 3600, 8, None).unwrap();
        let latest = walked.windows.len().saturating_sub(12);
        walked.windows.drain(..latest);
        assert_eq!(
            kept_accounts(&ledger, 8, 12).unwrap(),
            walked,
            "{step}: a glance"
        );
        kept
    };

    location.ingest(&(lines[..lines.len() / 2].join("\n") + "\n"));
    same("half the stream");
    location.ingest(&(shuffled.join("\n") + "\n"));
    same("the stream again, in another order");
    with_demo_streams(location);
    location.ingest(EDGES);
    let kept = same("the demo streams and the edge cases");
    assert!(
        [
            &kept.missing_terminal,
            &kept.missing_output,
            &kept.missing_notification,
            &kept.divergent_decisions,
            &kept.conflicting_submissions,
        ]
        .iter()
        .all(|finding| finding.count > 0),
        "every finding names jobs: {kept:?}"
    );
    location.ingest(&stream);
    location.ingest(EDGES);
    with_demo_streams(location);
    assert_eq!(
        same("everything once more"),
        kept,
        "a re-run changes nothing"
    );
}

/// `reconcile` with windows an hour wide (the default) reads what the ledger keeps and
/// the aged jobs as the Aged view pages them, and says exactly what the walk over every
/// job says, as the ledger grows (a generated stream, the demo streams, the edge cases)
/// and as owners are given and cleared, at times before, among and long after the jobs
/// age; printed, the two are the same bytes.
pub fn reconcile_from_what_is_kept_is_the_walks(location: &Location) {
    use jobledger::reconcile::{DEFAULT_REVIEW_CAPACITY, reconcile, reconcile_by_walk};
    use jobledger::report::{ListFormat, write_list};

    let stream = String::from_utf8(crate::support::fixture::synthetic_stream(300))
        .expect("the stream is UTF-8");
    let lines: Vec<&str> = stream.lines().collect();
    let nows = [
        "2020-01-01T00:00:00Z",
        crate::support::fixture::NOW,
        "2026-11-27T14:20:00Z",
        "2031-01-01T00:00:00Z",
    ];
    let same = |step: &str| {
        let ledger = location.open_read_only();
        for now in nows {
            let now = jobledger::clock::Timestamp::parse(now).unwrap();
            let kept = reconcile(&ledger, now, 3600, DEFAULT_REVIEW_CAPACITY).unwrap();
            let walked = reconcile_by_walk(&ledger, now, 3600, DEFAULT_REVIEW_CAPACITY).unwrap();
            assert_eq!(kept, walked, "{step}, at {now}");
            for format in [ListFormat::Table, ListFormat::Json, ListFormat::Csv] {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                write_list(&mut a, &kept, format).unwrap();
                write_list(&mut b, &walked, format).unwrap();
                assert!(a == b, "{step}, at {now}, {format:?}");
            }
        }
    };

    same("an empty ledger");
    location.ingest(&(lines[..lines.len() / 2].join("\n") + "\n"));
    same("half the stream");
    with_demo_streams(location);
    location.ingest(EDGES);
    location.ingest(&stream);
    same("everything");
    let aged = location.json(&["reconcile", "--json"])["aged"].clone();
    let aged = job_ids(&aged);
    assert!(aged.len() > 3, "{aged:?}");
    location.ok(&[
        "owner",
        aged[0],
        "--owner",
        "ops:kim",
        "--escalate-at",
        "2h",
    ]);
    location.ok(&["owner", aged[1], "--owner", "ops:kim"]);
    location.ok(&["owner", aged[1], "--clear"]);
    location.ok(&["owner", aged[2], "--owner", "ops:ann"]);
    location.ok(&["owner", aged[2], "--owner", "ops:bo", "--escalate-at", "1h"]);
    same("owners given, cleared and given again");
}

/// Does the job's id hold `text` (lowered already)?
fn id_holds(job: &jobledger::store::FindingJob, text: &str) -> bool {
    job.job_id.to_lowercase().contains(text)
}

/// Which jobs a filter keeps, as a test says it.
type Keeps = fn(&jobledger::store::FindingJob) -> bool;

/// Every job of `finding` that `query` keeps, read a page of seven at a time.
fn finding_pages(
    ledger: &jobledger::store::Ledger,
    finding: jobledger::store::Finding,
    now: jobledger::clock::Timestamp,
    query: &jobledger::filter::Query,
) -> Vec<jobledger::store::FindingJob> {
    use jobledger::store::{Keyset, PageRequest};
    let mut jobs = Vec::new();
    let mut keyset = Keyset::First;
    loop {
        let page = ledger
            .finding_jobs_page(finding, now, query, &PageRequest::at(keyset, 7))
            .unwrap();
        let last = page.last().map(|j| j.job_id.clone());
        let full = page.len() == 7;
        jobs.extend(page);
        match last {
            Some(last) if full => keyset = Keyset::After(last),
            _ => return jobs,
        }
    }
}

/// A filter in a finding's jobs counts the jobs its pages list, whatever it asks: job
/// ids alone (counted from the rows the ledger keeps for the finding, without a job's
/// row each), a bare word (which looks in the job's state too), an age; and each keeps
/// the jobs whose id (or state, for a word) holds its text, in any case.
pub fn a_filter_in_a_findings_jobs_counts_the_jobs_its_pages_list(location: &Location) {
    use jobledger::filter::{Query, Scope};
    use jobledger::store::{Finding, FindingJob};

    with_demo_streams(location);
    location.ingest(EDGES);
    let ledger = location.open_read_only();
    let now = jobledger::clock::Timestamp::parse("2026-11-27T12:00:00Z").unwrap();
    let kept_by: [(&str, Keeps); 6] = [
        ("job:EDGE", |j| id_holds(j, "edge")),
        ("-job:edge", |j| !id_holds(j, "edge")),
        ("job:1 -job:104", |j| {
            id_holds(j, "1") && !id_holds(j, "104")
        }),
        ("edge", |j| id_holds(j, "edge")),
        ("succeeded", |j| j.state.as_str().contains("succeeded")),
        ("job:no-such-job", |_| false),
    ];
    for finding in Finding::ALL {
        let every = finding_pages(&ledger, finding, now, &Query::all(Scope::FindingJobs));
        assert!(!every.is_empty(), "{finding}: no job");
        let count = |query: &Query| ledger.finding_count_matching(finding, now, query).unwrap();
        assert_eq!(
            count(&Query::all(Scope::FindingJobs)),
            i64::try_from(every.len()).unwrap(),
            "{finding}"
        );
        for (text, keeps) in kept_by {
            let query = Query::parse(text, Scope::FindingJobs).unwrap();
            let listed = finding_pages(&ledger, finding, now, &query);
            let expected: Vec<&FindingJob> = every.iter().filter(|j| keeps(j)).collect();
            assert_eq!(
                listed.iter().collect::<Vec<_>>(),
                expected,
                "{finding} {text:?}"
            );
            assert_eq!(
                count(&query),
                i64::try_from(listed.len()).unwrap(),
                "{finding} {text:?}"
            );
        }
        // An age reads the job's row: older and not older are every job, once.
        let older = Query::parse("age>2h", Scope::FindingJobs).unwrap();
        let not_older = Query::parse("-age>2h", Scope::FindingJobs).unwrap();
        let (a, b) = (
            finding_pages(&ledger, finding, now, &older),
            finding_pages(&ledger, finding, now, &not_older),
        );
        assert_eq!(count(&older), i64::try_from(a.len()).unwrap(), "{finding}");
        assert_eq!(
            count(&not_older),
            i64::try_from(b.len()).unwrap(),
            "{finding}"
        );
        assert_eq!(a.len() + b.len(), every.len(), "{finding}");
    }
}
