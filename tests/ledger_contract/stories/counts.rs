//! Counts: every number the ledger keeps or counts is the number of rows it lists.

use jobledger::decision::Disposition;
use jobledger::store::{CallbackFilter, PageRequest};

use super::{list, seq_of, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::now;

/// Answers one question of each kind, so that answered and open rows both exist.
fn answer_some(location: &Location) {
    for (delivery, verdict) in [
        ("d-1042-a", "single_effect"),
        ("d-1054-b", "needs_remote_check"),
        ("d-9998-a", "noise"),
    ] {
        let seq = seq_of(location, delivery).to_string();
        location.ok(&["answer", &seq, "--verdict", verdict, "--reviewer", "ann"]);
    }
}

/// The demo streams with some answers, a request and an owner: the summary's counts are
/// the lengths of the lists behind them, the API's counts those of its pages, for each
/// disposition, the open questions, several queries, the jobs by state, the rejected
/// lines and the outbox.
pub fn counts_match_the_rows_listed(location: &Location) {
    with_demo_streams(location);
    answer_some(location);
    location.ok(&["request", "retry", "booking-1043", "--by", "ops:maria"]);
    location.ok(&[
        "owner",
        "booking-1056",
        "--owner",
        "ops:kim",
        "--by",
        "ops:lead",
    ]);

    let summary = location.json(&["summary", "--json"]);
    let mut total = 0;
    for (key, disposition) in [
        ("applied", "apply"),
        ("held", "hold"),
        ("recorded", "record"),
        ("quarantined", "quarantine"),
    ] {
        let listed = list(location.json(&["callbacks", "--json", "--disposition", disposition]));
        assert_eq!(summary[key], listed.len(), "{key}: {summary}");
        total += listed.len();
    }
    assert_eq!(summary["callbacks"], total, "the totals add up");
    assert_eq!(
        summary["callbacks"],
        list(location.json(&["callbacks", "--json"])).len()
    );
    let open = list(location.json(&["callbacks", "--open", "--json"]));
    assert_eq!(summary["backlog"]["open"], open.len());
    assert_eq!(open.len(), 4, "6 questions, 2 closed by answers");

    let ledger = location.open_read_only();
    assert_eq!(ledger.open_questions().unwrap(), 4);
    let filters = [
        CallbackFilter::default(),
        CallbackFilter {
            disposition: Some(Disposition::Hold),
            ..CallbackFilter::default()
        },
        CallbackFilter {
            open: true,
            ..CallbackFilter::default()
        },
        CallbackFilter {
            disposition: Some(Disposition::Quarantine),
            open: true,
            ..CallbackFilter::default()
        },
    ];
    let queries = [
        "answered:yes",
        "-answered:yes",
        "gap>1m",
        "outcome:failure",
        "job:1054",
        "reviewer:ann -verdict:noise",
        "owner:none disposition:hold",
    ];
    let with_queries = queries.iter().map(|q| {
        CallbackFilter::default()
            .with_query(q, now(), "ana")
            .expect("a query")
    });
    for filter in filters.into_iter().chain(with_queries) {
        let rows = ledger
            .callbacks_page(&filter, PageRequest::first(100_000))
            .unwrap();
        assert_eq!(
            ledger.count_callbacks(&filter).unwrap(),
            i64::try_from(rows.len()).unwrap(),
            "{filter:?}"
        );
    }
    for (query, expected) in [("answered:yes", 3), ("job:1054", 2), ("outcome:failure", 2)] {
        let listed = list(location.json(&["callbacks", "--json", "--where", query]));
        assert_eq!(listed.len(), expected, "{query}");
    }

    // Jobs by state: the summary's, the API's kept counts, and the reconciliation's
    // windows, each adding up to the jobs accepted.
    let reconciled = location.json(&["reconcile", "--json"]);
    let accepted = reconciled["accepted"].as_i64().expect("a count");
    assert_eq!(accepted, 15);
    let states = ledger.job_state_counts().unwrap();
    assert_eq!(states.values().sum::<i64>(), accepted);
    assert_eq!(ledger.job_count().unwrap(), accepted);
    for (state, count) in &states {
        assert_eq!(summary["jobs"][state.as_str()], *count, "{state}");
        let in_windows: i64 = reconciled["windows"]
            .as_array()
            .expect("the windows")
            .iter()
            .map(|w| w["states"][state.as_str()].as_i64().expect("a count"))
            .sum();
        assert_eq!(in_windows, *count, "{state} across the windows");
    }

    let rejected = list(location.json(&["rejected", "--json"]));
    assert_eq!(rejected.len(), 2);
    assert_eq!(summary["rejected_events"], rejected.len());
    assert_eq!(ledger.rejected_count().unwrap(), 2);

    assert_eq!(summary["outbox"], 1);
    assert_eq!(list(location.json(&["outbox", "--json"])).len(), 1);
    assert_eq!(ledger.outbox_pending().unwrap(), 1);
    assert_eq!(summary["decisions_suppressed"], 1);
    assert_eq!(ledger.decisions_suppressed().unwrap(), 1);
}

/// A question's newest answer says whether it is open, in the count as in the list:
/// closed by an answer, opened again by one over it that leaves it open, closed again
/// by the next. (Each answer over another names the one it saw.)
pub fn the_newest_answer_says_whether_a_question_is_open(location: &Location) {
    with_demo_streams(location);
    let seq = seq_of(location, "d-1042-a");
    let seq_text = seq.to_string();
    let counted_and_listed = || {
        let open = list(location.json(&["callbacks", "--open", "--json"]));
        let seqs: Vec<i64> = open.iter().filter_map(|c| c["seq"].as_i64()).collect();
        let counted = location.open_read_only().open_questions().unwrap();
        assert_eq!(counted, i64::try_from(seqs.len()).unwrap(), "{seqs:?}");
        (counted, seqs.contains(&seq))
    };
    let (before, open) = counted_and_listed();
    assert!(open);

    let mut seen: Option<String> = None;
    for (verdict, still_open) in [
        ("single_effect", false),
        ("needs_remote_check", true),
        ("duplicate_effect", false),
    ] {
        let mut args = vec![
            "answer",
            &seq_text,
            "--verdict",
            verdict,
            "--reviewer",
            "ann",
            "--json",
        ];
        if let Some(id) = &seen {
            args.extend(["--seen", id.as_str()]);
        }
        let answer = location.json(&args);
        seen = Some(answer["id"].to_string());
        let (counted, open) = counted_and_listed();
        assert_eq!(open, still_open, "after {verdict}");
        let closed_by_it = i64::from(!still_open);
        assert_eq!(counted, before - closed_by_it, "after {verdict}");
    }
}

/// The Aged and Failed tabs' counts at any time are the lengths of their lists: the
/// aged count read from the kept open jobs less those not aged yet, or counted itself
/// when most are not aged, at each aged job's moment and a second either side, before
/// every job ages and after.
pub fn aged_and_failed_counts_are_the_rows_listed_at_any_time(location: &Location) {
    use jobledger::filter::{Query, Scope};
    with_demo_streams(location);
    let ledger = location.open_read_only();
    let (aged, failed) = (Query::all(Scope::AgedJobs), Query::all(Scope::FailedJobs));
    let far = now().plus_seconds(400 * 86_400);
    let open = ledger
        .aged_jobs_page(far, &aged, &PageRequest::first(10_000))
        .unwrap();
    assert!(open.len() > 2, "the demo streams leave jobs open");
    let mut times = vec![now().plus_seconds(-400 * 86_400), now(), far];
    for job in &open {
        times.extend([-1, 0, 1].map(|s| job.aged_at.plus_seconds(s)));
    }
    for at in times {
        let listed = ledger
            .aged_jobs_page(at, &aged, &PageRequest::first(10_000))
            .unwrap()
            .len();
        assert_eq!(
            ledger.aged_count(at).unwrap(),
            i64::try_from(listed).unwrap(),
            "aged at {at}"
        );
        let listed = ledger
            .failed_jobs_page(at, &failed, &PageRequest::first(10_000))
            .unwrap()
            .len();
        assert_eq!(
            ledger.failed_count_matching(at, &failed).unwrap(),
            i64::try_from(listed).unwrap(),
            "failed at {at}"
        );
    }
}
