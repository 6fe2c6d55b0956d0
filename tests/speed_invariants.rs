//! What the speed work (kept counts, a one-pass reconciliation, write-behind) must not
//! change: the kept counts equal the rows counted, the one-pass reconciliation equals
//! the same report in plain SQL, the console's glance agrees with it, a ledger migrated
//! with data keeps its totals, and what the writer keeps behind in memory comes out as
//! if written at once.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use support::fixture::{self, query_i64};

use jobledger::clock::Timestamp;
use jobledger::decision::{Disposition, JobState};
use jobledger::demo::{self, DemoData};
use jobledger::reconcile::{self, BACKLOG_WINDOW_S, DEFAULT_REVIEW_CAPACITY};
use jobledger::review::{self, AnswerRequest};
use jobledger::store::{APPLICATION_ID, CallbackFilter, CallbackRow, Ledger, PageRequest};
use jobledger::{escalation, ingest};

fn now() -> Timestamp {
    demo::demo_now()
}

fn ids(path: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut st = conn.prepare(sql).unwrap();
    st.query_map([], |row| row.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

fn grouped(path: &Path, sql: &str) -> BTreeMap<String, i64> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut st = conn.prepare(sql).unwrap();
    st.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The first `n` callbacks given `disposition`.
fn first_callbacks(ledger: &Ledger, disposition: Disposition, n: usize) -> Vec<CallbackRow> {
    let filter = CallbackFilter {
        disposition: Some(disposition),
        ..CallbackFilter::default()
    };
    ledger
        .callbacks_page(&filter, PageRequest::first(n))
        .unwrap()
}

/// A generated ledger, then what people and late streams add to it: answers (one
/// linking a quarantined callback to a job), owners, garbage, fresh arrivals.
fn busy_ledger(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("busy.db");
    demo::build(
        &path,
        now(),
        DemoData::Synthetic {
            jobs: 2500,
            seed: 9,
        },
        |_| {},
    )
    .unwrap();
    let mut ledger = Ledger::open(&path).unwrap();
    let held = first_callbacks(&ledger, Disposition::Hold, 6);
    for (i, row) in held.iter().enumerate() {
        let verdict = if i % 3 == 0 {
            "needs_remote_check"
        } else if row.reason.as_str() == "possible_duplicate_effect" {
            "single_effect"
        } else {
            "success_stands"
        };
        review::answer(
            &mut ledger,
            &AnswerRequest {
                seq: row.seq,
                verdict,
                note: "checked",
                reviewer: "ana",
                link_job: None,
                seen_answer: None,
            },
            now(),
        )
        .unwrap();
    }
    let ghost = first_callbacks(&ledger, Disposition::Quarantine, 1);
    review::answer(
        &mut ledger,
        &AnswerRequest {
            seq: ghost[0].seq,
            verdict: "linked",
            note: "it was this one",
            reviewer: "ana",
            link_job: Some("job-0000007"),
            seen_answer: None,
        },
        now(),
    )
    .unwrap();
    escalation::set_owner(
        &mut ledger,
        "job-0000011",
        "ops:lee",
        Some(now()),
        "ana",
        now(),
    )
    .unwrap();
    let late = "not json at all\n\
        {\"event\":\"callback\",\"job_id\":\"ghost-x\",\"outcome\":\"success\",\"at\":\"2026-11-27T16:30:00Z\"}\n\
        {\"event\":\"callback\",\"job_id\":\"job-0000003\",\"attempt\":1,\"outcome\":\"failure\",\"at\":\"2026-11-27T16:40:00Z\"}\n\
        {\"event\":\"output_checked\",\"job_id\":\"job-0000005\",\"at\":\"2026-11-27T16:45:00Z\",\"exists\":false}\n\
        {\"event\":\"notification_sent\",\"job_id\":\"job-0000005\",\"kind\":\"again\",\"at\":\"2026-11-27T16:46:00Z\"}\n";
    let report = ingest::ingest(&mut ledger, late.as_bytes(), now(), |_| {}).unwrap();
    assert!(report.adds_up(), "{report}");
    path
}

#[test]
fn kept_counts_equal_the_rows_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = busy_ledger(dir.path());
    let ledger = Ledger::open(&path).unwrap();
    let by_disposition = grouped(
        &path,
        "SELECT disposition, count(*) FROM callbacks GROUP BY disposition",
    );
    let counts = ledger.disposition_counts().unwrap();
    for d in Disposition::ALL {
        assert_eq!(
            counts.get(d),
            by_disposition.get(d.as_str()).copied().unwrap_or(0),
            "{d:?}"
        );
    }
    let by_state = grouped(&path, "SELECT state, count(*) FROM jobs GROUP BY state");
    for (state, n) in ledger.job_state_counts().unwrap() {
        assert_eq!(
            n,
            by_state.get(state.as_str()).copied().unwrap_or(0),
            "{state:?}"
        );
    }
    assert_eq!(
        ledger.job_count().unwrap(),
        query_i64(&path, "SELECT count(*) FROM jobs", [])
    );
    let since = now().plus_seconds(-BACKLOG_WINDOW_S);
    assert_eq!(
        ledger.review_arrivals_between(since, now()).unwrap(),
        query_i64(
            &path,
            "SELECT count(*) FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq
             WHERE c.disposition IN ('hold', 'quarantine')
               AND coalesce(c.arrived_at, l.ingested_at) > ?1
               AND coalesce(c.arrived_at, l.ingested_at) <= ?2",
            [since.to_ledger_text(), now().to_ledger_text()],
        )
    );
    let open = ledger.open_questions().unwrap();
    assert_eq!(
        open,
        query_i64(
            &path,
            "SELECT count(*) FROM callbacks c
             WHERE c.disposition IN ('hold', 'quarantine')
               AND coalesce((SELECT verdict FROM answers WHERE callback_seq = c.seq
                             ORDER BY id DESC LIMIT 1), 'needs_remote_check') = 'needs_remote_check'",
            [],
        )
    );
    assert!(
        open < counts.held + counts.quarantined,
        "some answers closed questions"
    );
}

#[test]
fn one_pass_reconciliation_equals_the_report_in_plain_sql() {
    let dir = tempfile::tempdir().unwrap();
    let path = busy_ledger(dir.path());
    let ledger = Ledger::open(&path).unwrap();
    let r = reconcile::reconcile(&ledger, now(), 3600, DEFAULT_REVIEW_CAPACITY).unwrap();
    assert_eq!(
        r.accepted,
        query_i64(&path, "SELECT count(*) FROM jobs", [])
    );
    assert_eq!(
        r.missing_terminal,
        ids(
            &path,
            "SELECT job_id FROM jobs WHERE state IN ('accepted', 'running', 'timed_out') ORDER BY job_id"
        )
    );
    let missing_output = ids(
        &path,
        "SELECT j.job_id FROM jobs j
           LEFT JOIN outputs o ON o.id = (SELECT max(id) FROM outputs WHERE job_id = j.job_id)
          WHERE j.state IN ('succeeded', 'completed_late')
            AND (o.id IS NULL OR coalesce((SELECT object_exists FROM output_checks k
                     WHERE k.job_id = j.job_id AND k.checked_at >= o.stored_at
                     ORDER BY k.id DESC LIMIT 1), 1) = 0)
          ORDER BY j.job_id",
    );
    assert_eq!(r.missing_output, missing_output);
    // job-0000005 succeeded with its output stored; the check at 16:45 found it gone.
    assert!(missing_output.contains(&"job-0000005".to_owned()));
    assert_eq!(
        r.missing_notification,
        ids(
            &path,
            "SELECT job_id FROM jobs j
              WHERE state IN ('succeeded', 'completed_late', 'failed', 'expired', 'cancelled')
                AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id)
              ORDER BY job_id"
        )
    );
    let windows = grouped(
        &path,
        "SELECT (unixepoch(accepted_at) / 3600 * 3600) || '/' || state, count(*)
           FROM jobs GROUP BY 1",
    );
    let mut ours = BTreeMap::new();
    for w in &r.windows {
        for (state, n) in &w.states {
            if *n > 0 {
                ours.insert(format!("{}/{state}", w.start.millis() / 1000), *n);
            }
        }
        assert_eq!(w.accepted, w.states.values().sum::<i64>());
    }
    assert_eq!(ours, windows);
    assert_eq!(
        r.aged.iter().map(|a| a.job_id.clone()).collect::<Vec<_>>(),
        ids(
            &path,
            &format!(
                "SELECT job_id FROM jobs WHERE state IN ('accepted', 'running', 'timed_out')
                   AND aged_at <= '{}' ORDER BY aged_at, job_id",
                now().to_ledger_text()
            )
        )
    );
    assert!(r.aged.iter().any(|a| a.overdue), "some owners are overdue");
    assert!(r.aged.iter().any(|a| a.owner.is_some() && !a.overdue));
    assert!(r.aged.iter().any(|a| a.unowned));
}

#[test]
fn the_accounts_keep_the_first_ids_and_count_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let path = busy_ledger(dir.path());
    let ledger = Ledger::open(&path).unwrap();
    let all = reconcile::account(&ledger, 900, usize::MAX, None).unwrap();
    let first = reconcile::account(&ledger, 900, 3, None).unwrap();
    for (all, first) in [
        (&all.missing_terminal, &first.missing_terminal),
        (&all.missing_output, &first.missing_output),
        (&all.missing_notification, &first.missing_notification),
    ] {
        assert_eq!(all.count, i64::try_from(all.first.len()).unwrap());
        assert_eq!(first.count, all.count);
        assert_eq!(first.first[..], all.first[..all.first.len().min(3)]);
    }
    assert_eq!(first.windows, all.windows);
    assert!(
        all.windows
            .iter()
            .all(|w| w.end.seconds_since(w.start) == 900)
    );
}

#[test]
fn a_ledger_migrated_with_data_keeps_its_totals() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(include_str!(
            "../src/store/sqlite/migrations/001_ledger.sql"
        ))
        .unwrap();
        conn.execute_batch(include_str!(
            "../src/store/sqlite/migrations/002_ledger_notes.sql"
        ))
        .unwrap();
        conn.execute_batch(&format!(
            "PRAGMA user_version = 2; PRAGMA application_id = {APPLICATION_ID};
             INSERT INTO input_lines (seq, line_sha256, raw, status, ingested_at) VALUES
               (1, zeroblob(32), x'7b7d', 'applied', '2026-11-27T13:00:00.000Z'),
               (2, randomblob(32), x'7b7d', 'callback', '2026-11-27T13:00:00.000Z'),
               (3, randomblob(32), x'7b7d', 'callback', '2026-11-27T13:00:00.000Z');
             INSERT INTO jobs (job_id, state, accepted_at, aged_at, expected_age_s, attempt_budget,
                               latest_attempt, state_changed_at, accepted_line) VALUES
               ('a', 'succeeded', '2026-11-27T13:00:00.000Z', '2026-11-27T14:00:00.000Z', 3600, 3, 1, '2026-11-27T13:00:00.000Z', 1),
               ('b', 'running', '2026-11-27T13:00:00.000Z', '2026-11-27T14:00:00.000Z', 3600, 3, 1, '2026-11-27T13:00:00.000Z', 1);
             INSERT INTO callbacks (line_seq, job_id, disposition, reason, judged_at) VALUES
               (2, 'a', 'apply', 'on_time_success', '2026-11-27T13:00:00.000Z'),
               (3, 'zz', 'quarantine', 'no_matching_job', '2026-11-27T13:00:00.000Z');"
        ))
        .unwrap();
    }
    let ledger = Ledger::open(&path).unwrap();
    let counts = ledger.disposition_counts().unwrap();
    assert_eq!(
        (counts.applied, counts.quarantined, counts.total()),
        (1, 1, 2)
    );
    let states = ledger.job_state_counts().unwrap();
    assert_eq!(states[&JobState::Succeeded], 1);
    assert_eq!(states[&JobState::Running], 1);
    assert_eq!(states.values().sum::<i64>(), 2);
}

#[test]
fn a_batch_larger_than_the_writers_memory_gives_the_ledger_of_many_small_batches() {
    // 2,500 jobs in one transaction: more than the writer remembers (1,024), so it
    // writes out and forgets jobs mid-batch, and later events find them in the ledger.
    let stream = fixture::synthetic_stream(2_500);
    let ingest_with = |batching: ingest::Batching| {
        let mut t = fixture::TempLedger::new();
        let mut batches = 0;
        let report = ingest::ingest_in_batches(&mut t.ledger, &stream[..], now(), batching, |_| {
            batches += 1;
        })
        .unwrap();
        assert!(report.adds_up(), "{report}");
        (t, batches)
    };
    let (whole, batches) = ingest_with(ingest::Batching {
        lines: usize::MAX,
        max_hold: std::time::Duration::MAX,
        pause: std::time::Duration::ZERO,
        give_way_after: std::time::Duration::MAX,
        complete: false,
        max_line_bytes: ingest::MAX_LINE_BYTES,
    });
    assert_eq!(batches, 1);
    let (pieces, batches) = ingest_with(ingest::Batching {
        lines: 200,
        max_hold: std::time::Duration::MAX,
        pause: std::time::Duration::ZERO,
        give_way_after: std::time::Duration::MAX,
        complete: false,
        max_line_bytes: ingest::MAX_LINE_BYTES,
    });
    assert!(batches > 60, "{batches}");
    assert_eq!(whole.dump(), pieces.dump());
}

#[test]
fn a_report_lists_the_same_callbacks_as_the_console_without_the_attempts_state() {
    let t = fixture::TempLedger::with_demo_streams();
    for disposition in [None, Some(Disposition::Hold), Some(Disposition::Record)] {
        let filter = CallbackFilter {
            disposition,
            ..CallbackFilter::default()
        };
        let page = PageRequest::first(10_000);
        let mut console = t.ledger.callbacks_page(&filter, page).unwrap();
        // Read in batches of 7: the rows go on where each batch stops.
        let mut report = Vec::new();
        t.ledger
            .callbacks_report(&filter, 7, |rows| {
                assert!(!rows.is_empty() && rows.len() <= 7, "{}", rows.len());
                report.append(rows);
                Ok::<_, jobledger::store::StoreError>(())
            })
            .unwrap();
        assert!(
            disposition.is_some() || console.iter().any(|c| c.replacement.is_some()),
            "the demo has replacements"
        );
        for row in &mut console {
            if let Some(r) = &mut row.replacement {
                assert!(r.state.is_some(), "the console shows the state");
                r.state = None;
            }
        }
        assert_eq!(report, console, "{disposition:?}");
    }
}

/// Every callback of a report, read in batches of `batch`.
fn report_of(ledger: &Ledger, filter: &CallbackFilter, batch: usize) -> Vec<CallbackRow> {
    let mut report = Vec::new();
    ledger
        .callbacks_report(filter, batch, |rows| {
            report.append(rows);
            Ok::<_, jobledger::store::StoreError>(())
        })
        .unwrap();
    report
}

/// Every callback of the console's pages in ledger order, without the attempts' state.
fn pages_of(ledger: &Ledger, filter: &CallbackFilter) -> Vec<CallbackRow> {
    let mut rows = Vec::new();
    let mut page = PageRequest::first(97);
    loop {
        let got = ledger.callbacks_page(filter, page).unwrap();
        let Some(last) = got.last().map(|r| r.seq) else {
            break;
        };
        rows.extend(got);
        page = PageRequest::at(jobledger::store::Keyset::After(last), 97);
    }
    for row in &mut rows {
        if let Some(r) = &mut row.replacement {
            r.state = None;
        }
    }
    rows
}

/// A report reads its rows by whichever index serves its query (the text index, a
/// range of a review list's sorted index) in one statement: the rows are those of the
/// console's pages, read in ledger order from the list's own, under every kind of term
/// (comparisons each side and negated, on gaps, arrivals, timeouts and ages, holding
/// few of a list or most of it; text; answers) on every list. (The generated callbacks
/// arrive from 13:15 to 15:53, held ones with gaps of 109 or -31 seconds; one held
/// later, at 16:40, hours after its timeout.)
#[test]
fn a_report_lists_the_rows_of_the_consoles_pages_under_any_query() {
    let dir = tempfile::tempdir().unwrap();
    let path = busy_ledger(dir.path());
    let ledger = Ledger::open(&path).unwrap();
    let queries = [
        "",
        "gap>1m",
        "gap>=109s",
        "gap<0",
        "gap<=-31s",
        "-gap>1m",
        "gap>1h",
        "gap>-1h gap<100s",
        "age<100m",
        "age>=3h20m",
        "-age<100m",
        "arrived>2026-11-27T15:20:00Z",
        "arrived<=2026-11-27T13:40:00Z",
        "arrived>2026-11-27T14:00:00Z",
        "timeout<2026-11-27T13:35:00Z",
        "timeout>=2026-11-27T15:00:00Z -answered:yes",
        "job:00001",
        "job:00001 gap>1m",
        "12 gap<2m",
        "by:staff age<100m",
        "reason:duplicate -answered:yes gap>1m",
        "answered:yes",
        "owner:none age>1h",
    ];
    let mut some = 0;
    let mut some_not_all = 0;
    for query in queries {
        for disposition in [None, Some(Disposition::Hold), Some(Disposition::Quarantine)] {
            for open in [false, true] {
                let filter = CallbackFilter {
                    disposition,
                    open,
                    ..CallbackFilter::default()
                }
                .with_query(query, now(), "ana")
                .unwrap();
                let pages = pages_of(&ledger, &filter);
                let what = format!("{query:?} {disposition:?} open={open}");
                assert_eq!(report_of(&ledger, &filter, 50), pages, "{what}");
                if !pages.is_empty() {
                    some += 1;
                    let whole = CallbackFilter {
                        query: jobledger::filter::Query::default(),
                        ..filter
                    };
                    if pages.len() < pages_of(&ledger, &whole).len() {
                        some_not_all += 1;
                    }
                }
            }
        }
    }
    assert!(some > 60 && some_not_all > 50, "{some} {some_not_all}");
}
