//! The query language as `callbacks --where` runs it: each field,
//! negation and comparison keeps exactly the rows a plain reading of the JSON says,
//! and a query and its negation add up to the whole list.

mod support;

use serde_json::Value;
use support::binary::Workdir;

/// A ledger of a generated stream (holds of both reasons, quarantines, answers, owners).
/// Whether a row is one a query should keep.
type Keep = Box<dyn Fn(&Value) -> bool>;

fn generated() -> Workdir {
    let w = Workdir::new();
    let stream = w.ok(&["demo", "--jobs", "1500", "--stream-only"]);
    let file = w.file("stream.ndjson", stream.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    w
}

fn rows(w: &Workdir, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["callbacks"];
    all.extend_from_slice(args);
    all.push("--json");
    match w.json(&all) {
        Value::Array(rows) => rows,
        other => panic!("not a list: {other}"),
    }
}

fn seqs(rows: &[Value]) -> Vec<i64> {
    rows.iter().map(|r| r["seq"].as_i64().unwrap()).collect()
}

/// The held callbacks `query` keeps, by sequence number.
fn holds_where(w: &Workdir, query: &str) -> Vec<i64> {
    seqs(&rows(w, &["--where", query, "--disposition", "hold"]))
}

fn text<'a>(row: &'a Value, path: &[&str]) -> &'a str {
    path.iter()
        .fold(row, |v, key| &v[*key])
        .as_str()
        .unwrap_or("")
}

#[test]
fn a_query_and_its_negation_add_up_to_all_holds() {
    let w = generated();
    let holds = seqs(&rows(&w, &["--disposition", "hold"]));
    let duplicate = holds_where(&w, "reason:possible_duplicate_effect");
    let other = holds_where(&w, "-reason:possible_duplicate_effect");
    assert!(
        !duplicate.is_empty() && !other.is_empty(),
        "{duplicate:?} {other:?}"
    );
    let mut both: Vec<i64> = duplicate.iter().chain(&other).copied().collect();
    both.sort_unstable();
    assert_eq!(both, holds);
}

#[test]
fn each_field_keeps_what_the_rows_say() {
    let w = generated();
    let all = rows(&w, &[]);
    // Answer two holds, one of them closing, and give a job an owner. (In the
    // time-ordered stream the first hold is a conflicting pair: a retried job's late
    // callback comes later. `single_effect` answers a possible duplicate.)
    let duplicate = holds_where(&w, "reason:possible_duplicate_effect")[0];
    let held = seqs(&rows(&w, &["--disposition", "hold"]));
    let other = *held.iter().find(|&&seq| seq != duplicate).unwrap();
    w.ok(&[
        "answer",
        &duplicate.to_string(),
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    w.ok(&[
        "answer",
        &other.to_string(),
        "--verdict",
        "needs_remote_check",
        "--reviewer",
        "bo",
    ]);
    let all_after = rows(&w, &[]);
    assert_eq!(all.len(), all_after.len());
    let job = text(&all[3], &["job_id"]).to_owned();
    w.ok(&["owner", &job, "--owner", "ops:lee"]);

    let gap = |r: &Value| r["gap_s"].as_i64();
    // Times in the middle of the stream, to the minute as a reviewer types them.
    let mut arrivals: Vec<&str> = all_after
        .iter()
        .filter_map(|r| r["arrived_at"].as_str())
        .collect();
    arrivals.sort_unstable();
    let mid = arrivals[arrivals.len() / 2][..16].to_owned();
    let (arrived, timeout) = (format!("arrived<{mid}"), format!("timeout>={mid}:00Z"));
    let mid_at = format!("{mid}:00.000Z");
    let mid_to = mid_at.clone();
    let cases: Vec<(&str, Keep)> = vec![
        (
            "disposition:quarantine",
            Box::new(|r| text(r, &["disposition"]) == "quarantine"),
        ),
        (
            "-disposition:apply",
            Box::new(|r| text(r, &["disposition"]) != "apply"),
        ),
        (
            "outcome:failure",
            Box::new(|r| text(r, &["outcome"]) == "failure"),
        ),
        (
            "reason:late",
            Box::new(|r| text(r, &["reason"]).contains("late")),
        ),
        (
            "verdict:single_effect",
            Box::new(|r| text(r, &["answer", "verdict"]) == "single_effect"),
        ),
        (
            "-verdict:single_effect disposition:hold",
            Box::new(|r| {
                text(r, &["disposition"]) == "hold"
                    && text(r, &["answer", "verdict"]) != "single_effect"
            }),
        ),
        ("answered:yes", Box::new(|r| !r["answer"].is_null())),
        (
            "answered:no disposition:hold",
            Box::new(|r| r["answer"].is_null() && text(r, &["disposition"]) == "hold"),
        ),
        (
            "reviewer:BO",
            Box::new(|r| text(r, &["answer", "reviewer"]) == "bo"),
        ),
        (
            "by:staff",
            Box::new(|r| text(r, &["replacement", "created_by"]).contains("staff")),
        ),
        (
            "-by:staff",
            Box::new(|r| !text(r, &["replacement", "created_by"]).contains("staff")),
        ),
        (
            "gap>1h",
            Box::new(move |r| gap(r).is_some_and(|g| g > 3600)),
        ),
        ("gap<=0", Box::new(move |r| gap(r).is_some_and(|g| g <= 0))),
        (
            "-gap>=5m",
            Box::new(move |r| gap(r).is_none_or(|g| g < 300)),
        ),
        (
            &arrived,
            Box::new(move |r| {
                r["arrived_at"]
                    .as_str()
                    .is_some_and(|a| a < mid_at.as_str())
            }),
        ),
        (
            &timeout,
            Box::new(move |r| {
                r["timeout_at"]
                    .as_str()
                    .is_some_and(|t| t >= mid_to.as_str())
            }),
        ),
    ];
    for (query, keep) in cases {
        let want: Vec<i64> = all_after
            .iter()
            .filter(|r| keep(r))
            .map(|r| r["seq"].as_i64().unwrap())
            .collect();
        let got = seqs(&rows(&w, &["--where", query]));
        assert_eq!(got, want, "--where {query:?}");
        assert!(
            !got.is_empty() || query.starts_with("gap>1h"),
            "{query:?} keeps nothing: a weak case"
        );
    }
    // A job id, as a field and as a bare word (a word also matches delivery ids).
    let of_job: Vec<i64> = all_after
        .iter()
        .filter(|r| text(r, &["job_id"]).contains(&job))
        .map(|r| r["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs(&rows(&w, &["--where", &format!("job:{job}")])), of_job);
    assert_eq!(seqs(&rows(&w, &["--where", "owner:ops:lee"])), of_job);
    assert_eq!(seqs(&rows(&w, &["--where", &job.to_uppercase()])), of_job);
}

#[test]
fn a_bad_query_says_where_and_what_and_lists_nothing() {
    let w = generated();
    let err = w.fails(&["callbacks", "--where", "job:x disposition:held"]);
    assert!(err.contains("at column 19"), "{err}");
    assert!(
        err.contains("one of: apply, hold, record, quarantine"),
        "{err}"
    );
    let err = w.fails(&["callbacks", "--where", "escalates<2026-11-27"]);
    assert!(
        err.contains("does not apply to this view; its fields: job, delivery"),
        "{err}"
    );
    // Control characters in the query come back inert.
    let err = w.fails(&["callbacks", "--where", "verdict:\u{1b}[31m"]);
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

/// `n` terms that each hold for every row of the worked example (no job id holds the
/// word), ending with `last`.
fn long_query(n: usize, last: &str) -> String {
    let mut terms: Vec<String> = (1..n).map(|i| format!("-job:~{i}")).collect();
    terms.push(last.to_owned());
    terms.join(" ")
}

#[test]
fn a_query_of_thousands_of_terms_runs_and_one_past_the_limit_is_refused_before_any_output() {
    // The worked example: a statement of 10,000 terms is read for each row.
    let w = Workdir::with_afternoon();
    let holds = seqs(&rows(&w, &["--disposition", "hold"]));
    // SQLite refuses an expression more than 1,000 deep: a chain of ANDs that long
    // failed in the middle of the list.
    for n in [1_000, jobledger::filter::MAX_TERMS] {
        let query = long_query(n, "disposition:hold");
        assert_eq!(seqs(&rows(&w, &["--where", &query])), holds, "{n} terms");
    }
    let query = long_query(jobledger::filter::MAX_TERMS + 1, "disposition:hold");
    for json in [true, false] {
        let mut args = vec!["callbacks", "--where", &query];
        if json {
            args.push("--json");
        }
        let out = w.run(&args);
        let said = support::binary::refused(&out, &["at most 10000 terms", "shorten the query"]);
        assert!(!said.contains("SQL"), "{said}");
        assert!(
            out.stdout.is_empty(),
            "{:?}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// Four jobs, each with one callback, for the rules of case, owners and time bounds:
/// `(job id, when its callback arrived, its owner)`.
const RULES: [(&str, &str, Option<&str>); 4] = [
    ("Job-ÜBER-1", "2026-11-27T14:00:00.000Z", Some("Ops:Ünal")),
    (
        "job-plain-2",
        "2026-11-27T20:30:00.000Z",
        Some("Unowned Desk"),
    ),
    ("job-free-3", "2026-11-28T09:00:00.000Z", None),
    ("job-named-4", "2026-11-26T23:59:59.999Z", Some("none")),
];

fn rules_ledger() -> Workdir {
    let w = Workdir::new();
    let mut stream = String::new();
    for (job, arrived, _) in RULES {
        let lines = [
            serde_json::json!({"event": "job_accepted", "job_id": job, "at": "2026-11-26T12:00:00Z",
                "timeout_s": 864_000, "attempt_budget": 3, "input_digest": "sha256:1",
                "model_digest": "sha256:2", "policy_revision": "p1"}),
            serde_json::json!({"event": "attempt_started", "job_id": job, "attempt": 1,
                "at": "2026-11-26T12:00:01Z"}),
            serde_json::json!({"event": "callback", "delivery_id": format!("d-{job}"),
                "job_id": job, "attempt": 1, "outcome": "success", "at": arrived,
                "payload": {}}),
        ];
        for line in lines {
            stream.push_str(&line.to_string());
            stream.push('\n');
        }
    }
    let file = w.file("rules.ndjson", stream.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    for (job, _, owner) in RULES {
        if let Some(owner) = owner {
            w.ok(&["owner", job, "--owner", owner]);
        }
    }
    w
}

/// The jobs (by their number in [`RULES`]) whose callbacks `query` keeps.
fn jobs_where(w: &Workdir, query: &str) -> Vec<usize> {
    let mut kept: Vec<usize> = rows(w, &["--where", query])
        .iter()
        .map(|r| {
            let job = text(r, &["job_id"]);
            1 + RULES.iter().position(|(j, _, _)| *j == job).unwrap()
        })
        .collect();
    kept.sort_unstable();
    kept
}

#[test]
fn case_owners_and_time_bounds_keep_what_the_query_says() {
    let w = rules_ledger();
    assert_eq!(jobs_where(&w, ""), [1, 2, 3, 4]);
    let cases: &[(&str, &[usize])] = &[
        // Case is folded by Unicode's rules, not A to Z alone.
        ("job:über", &[1]),
        ("JOB:ÜBER", &[1]),
        ("über", &[1]),
        ("-job:über", &[2, 3, 4]),
        ("owner:ünal", &[1]),
        ("Owner:ÜNAL", &[1]),
        // Names and closed sets in any case.
        ("Job:PLAIN", &[2]),
        ("DISPOSITION:APPLY answered:NO", &[1, 2, 3, 4]),
        ("Gap>1h", &[]),
        ("gap<=0", &[1, 2, 3, 4]),
        // No owner is a term of its own; an owner's name is text like any other.
        ("owner:none", &[3]),
        ("-owner:none", &[1, 2, 4]),
        ("owner:\"none\"", &[4]),
        ("owner:unowned", &[2]),
        ("owner:own", &[2]),
        ("-owner:own", &[1, 3, 4]),
        // A bound finer than a millisecond.
        ("arrived<2026-11-27T14:00:00.0005Z", &[1, 4]),
        ("arrived>=2026-11-27T14:00:00.0005Z", &[2, 3]),
        ("arrived<=2026-11-26T23:59:59.9995Z", &[4]),
        ("arrived>2026-11-26T23:59:59.9985Z", &[1, 2, 3, 4]),
        // A day alone: the whole day for `<=` and `>`, its start for `<` and `>=`.
        ("arrived<=2026-11-27", &[1, 2, 4]),
        ("arrived>2026-11-27", &[3]),
        ("arrived<2026-11-27", &[4]),
        ("arrived>=2026-11-27", &[1, 2, 3]),
        ("arrived>=2026-11-27 arrived<=2026-11-27", &[1, 2]),
    ];
    // Every case is run before any is judged, so a failure names all that are wrong.
    let mut wrong = Vec::new();
    for &(query, want) in cases {
        let out = w.run(&["callbacks", "--where", query, "--json"]);
        let got = if out.status.success() {
            format!("{:?}", jobs_where(&w, query))
        } else {
            String::from_utf8_lossy(&out.stderr).into_owned()
        };
        if got != format!("{want:?}") {
            wrong.push(format!("--where {query:?} kept {got}, not {want:?}"));
        }
    }
    for (query, said) in [
        ("gap=1h", "`gap` is compared with >, <, >= or <=, not `=`"),
        ("Foo:x", "no field `Foo`; this view's fields: job, delivery"),
    ] {
        let out = w.run(&["callbacks", "--where", query]);
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || !err.contains(said) {
            wrong.push(format!(
                "--where {query:?} was not refused with {said:?}: {err}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_aged_view_finds_no_owner_by_owner_none_and_never_by_a_word() {
    use jobledger::filter::{Query, Scope};
    use jobledger::store::PageRequest;
    let w = Workdir::with_afternoon();
    w.ok(&["owner", "booking-1043", "--owner", "Unowned Desk"]);
    let ledger = w.ledger();
    let aged = |query: &str| -> Vec<String> {
        let query = Query::parse(query, Scope::AgedJobs).expect("a query");
        let page = ledger
            .aged_jobs_page(support::fixture::now(), &query, &PageRequest::first(100))
            .expect("the Aged view reads");
        page.into_iter().map(|row| row.job_id).collect()
    };
    let all = aged("");
    let nobodys: Vec<String> = all
        .iter()
        .filter(|j| *j != "booking-1043")
        .cloned()
        .collect();
    assert!(
        all.len() > nobodys.len() && !nobodys.is_empty(),
        "{all:?}: a weak case"
    );
    assert_eq!(aged("owner:none"), nobodys);
    assert_eq!(aged("-owner:none"), ["booking-1043"]);
    assert_eq!(aged("OWNER:unowned"), ["booking-1043"]);
    assert_eq!(aged("unowned"), ["booking-1043"]);
    assert_eq!(aged("owner:own"), ["booking-1043"]);
}

/// A page read from a row's key under a filter starts at that row, as a page read
/// without one does: what keeps the console's cursor on its row while it still matches
/// (the Aged list's `now` and a filter's first value were once one SQLite parameter,
/// and every such page came back empty).
#[test]
fn a_job_page_read_from_a_rows_key_under_a_filter_starts_at_that_row() {
    use jobledger::filter::{Query, Scope, Sort, SortColumn};
    use jobledger::store::{JobOrder, Keyset, PageRequest};
    let w = Workdir::with_afternoon();
    let ledger = w.ledger();
    let now = support::fixture::now();
    for text in ["", "booking", "job:booking -owner:nobody", "age>1m booking"] {
        let query = Query::parse(text, Scope::AgedJobs).expect("a query");
        // In every order Aged sorts by: the owner order's key binds more values.
        for &column in SortColumn::of(Scope::AgedJobs) {
            let sort = Sort {
                column,
                descending: false,
            };
            let all = ledger
                .aged_jobs_sorted_page(now, &query, sort, &PageRequest::first(100))
                .unwrap();
            assert!(all.len() > 1, "{text:?}: a weak case");
            for row in &all {
                let page = PageRequest {
                    keyset: Keyset::From((row.order.clone(), row.job_id.clone())),
                    limit: 100,
                };
                let from = ledger
                    .aged_jobs_sorted_page(now, &query, sort, &page)
                    .unwrap();
                assert_eq!(
                    from.first().map(|r| &r.job_id),
                    Some(&row.job_id),
                    "Aged by {column:?} under {text:?}, from {}",
                    row.job_id
                );
            }
        }
        let query = Query::parse(text.replace("-owner:nobody", "").trim(), Scope::FailedJobs);
        let Ok(query) = query else { continue };
        let all = ledger
            .failed_jobs_page(now, &query, &PageRequest::first(100))
            .unwrap();
        for (row, accepted_at) in &all {
            let page = PageRequest {
                keyset: Keyset::From((JobOrder::At(*accepted_at), row.job_id.clone())),
                limit: 100,
            };
            let from = ledger.failed_jobs_page(now, &query, &page).unwrap();
            assert_eq!(
                from.first().map(|(r, _)| &r.job_id),
                Some(&row.job_id),
                "Failed under {text:?}"
            );
        }
    }
}
