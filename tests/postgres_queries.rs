//! Every list on PostgreSQL gives what the SQLite engine gives on the same stream: the
//! same rows, in the same order (ties too), with the same values, under every kind of
//! term of the query language, page by page in both directions, sorted by each
//! column, and the same counts. The stream holds job ids whose case folds only by
//! Unicode's rules (`Job-ÜBER-1`, the Kelvin sign, a Greek final sigma, a dotted
//! capital I) and rejected lines that are not UTF-8, so the folding is tested where
//! the server's own `lower()` would differ.

mod support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use jobledger::clock::Timestamp;
use jobledger::filter::{Query, Scope, Sort, SortColumn};
use jobledger::store::{
    CallbackFilter, CallbackKey, Finding, JobOrder, Keyset, Ledger, Location, OpenMode,
    PageRequest, ServerAddress,
};
use support::binary::{Workdir, command, succeeded};
use support::fixture::NOW;
use support::postgres::PgServer;

/// The same stream in a SQLite file and in a PostgreSQL schema, and in a second
/// database whose planner reads the text table through its index.
struct Pair {
    w: Workdir,
    url: String,
    indexed_url: String,
}

fn now() -> Timestamp {
    Timestamp::from_ledger_text("2026-11-27T17:00:00.000Z").unwrap()
}

/// The demo's stream with a few job ids made ones whose case folds by Unicode's
/// rules alone, and rejected lines of bytes that are not UTF-8.
fn stream(w: &Workdir) -> Vec<u8> {
    let out = w.ok(&["demo", "--jobs", "3000", "--stream-only"]);
    let mut text = out
        .replace("job-0002953", "Job-ÜBER-1")
        .replace("job-0002913", "\u{212A}ELVIN-2")
        .replace("job-0002263", "ΟΔΟΣ-3")
        .replace("job-0000007", "İSTANBUL-4")
        .into_bytes();
    text.extend_from_slice(b"{\"event\":\"callback\",\"job_id\":\"BAD\xff\xc3\x9cBER\"}\n");
    text.extend_from_slice(b"{\"event\":\"oops\",\"job_id\":\"N\x00UL-\xce\xa3\"}\n");
    text.extend_from_slice("{\"event\":\"callback\",\"job_id\":\"Job-ÜBER-9\"\n".as_bytes());
    text
}

fn pair() -> &'static Pair {
    static PAIR: OnceLock<Pair> = OnceLock::new();
    PAIR.get_or_init(|| {
        let server = PgServer::shared();
        let db = server.fresh_database("postgres_queries");
        let url = server.url(&db);
        let w = Workdir::new();
        let file = w.file("stream.ndjson", &stream(&w));
        let file = file.to_str().unwrap();
        w.ok(&["ingest", file]);
        let args = ["ingest", file];
        let out = command(Path::new(&url), NOW).args(args).output().unwrap();
        succeeded(&out, &args);
        // Statistics as a server that has run a while keeps them.
        server.connect(&db).batch_execute("ANALYZE").unwrap();
        // The planner reading the text table through its index, as it does at a
        // million callbacks (a table this small it reads whole): the text terms it
        // expects few rows of are read as the list of their rows there.
        let indexed = server.fresh_database("postgres_queries_indexed");
        let indexed_url = server.url(&indexed);
        let out = command(Path::new(&indexed_url), NOW)
            .args(args)
            .output()
            .unwrap();
        succeeded(&out, &args);
        server
            .connect(&indexed)
            .batch_execute(&format!(
                "ANALYZE; ALTER DATABASE {indexed} SET enable_seqscan = off"
            ))
            .unwrap();
        Pair {
            w,
            url,
            indexed_url,
        }
    })
}

fn ledgers() -> (Ledger, Ledger) {
    let pair = pair();
    let sqlite = Ledger::open_at(&Location::File(pair.w.db.clone()), OpenMode::ReadOnly).unwrap();
    let address = ServerAddress::parse(&pair.url).unwrap();
    let pg = Ledger::open_at(&Location::Server(Box::new(address)), OpenMode::ReadOnly).unwrap();
    (sqlite, pg)
}

/// Aged rows without the role that wrote their owner: the server records the role
/// of every owner assignment (here the ingest's, for an owner the stream gave), a file
/// none; the rest of each row is compared.
fn without_roles(mut rows: Vec<jobledger::store::AgedJobRow>) -> Vec<jobledger::store::AgedJobRow> {
    for row in &mut rows {
        if let Some(owner) = &mut row.owner {
            owner.written_by = None;
        }
    }
    rows
}

/// The queries of one scope that parse there.
fn queries(scope: Scope, texts: &[&str]) -> Vec<(String, Query)> {
    texts
        .iter()
        .filter_map(|t| Query::parse(t, scope).ok().map(|q| ((*t).to_owned(), q)))
        .collect()
}

/// Terms of every kind, and text that folds by Unicode's rules alone.
const CALLBACK_QUERIES: &[&str] = &[
    "",
    "reason:possible_duplicate_effect",
    "-reason:possible_duplicate_effect",
    "disposition:quarantine",
    "-disposition:apply",
    "outcome:failure",
    "-outcome:success",
    "reason:late",
    "late",
    "-late",
    "answered:yes",
    "answered:no",
    "verdict:single_effect",
    "-verdict:single_effect",
    "reviewer:bo",
    "by:staff",
    "-by:staff",
    "gap>1h",
    "gap<=0",
    "-gap>=5m",
    "gap>-30s",
    "age>1d",
    "age<=2d",
    "-age>3d",
    "arrived<2026-11-25",
    "timeout>=2026-11-25T12:00:00Z",
    "owner:none",
    "-owner:none",
    "job:über",
    "über",
    "ÜBER",
    "-über",
    "kel",
    "\u{212A}el",
    "σ",
    "ΟΔΟΣ",
    "οδος",
    "i\u{307}stanbul",
    "istanbul",
    "job:job-00001",
    "JOB-00002",
    "delivery:d",
    "job:none",
    "late -reason:late",
    "job:job-0001 outcome:success -gap>10s",
    // Text most callbacks hold, which the planner expects too many rows of to list.
    "job-0",
    "job:job-0 late",
    "job-0 0001",
];

fn callback_filters() -> Vec<(String, CallbackFilter)> {
    let mut filters = Vec::new();
    for (text, query) in queries(Scope::Callbacks, CALLBACK_QUERIES) {
        for disposition in [None, Some("hold"), Some("quarantine"), Some("apply")] {
            for open in [false, true] {
                if open && disposition == Some("apply") {
                    continue;
                }
                let filter = CallbackFilter {
                    disposition: disposition
                        .map(|d| jobledger::decision::Disposition::parse(d).unwrap()),
                    open,
                    query: query.clone(),
                    now: Some(now()),
                    answers_as_of: None,
                };
                filters.push((format!("{text:?} {disposition:?} open={open}"), filter));
            }
        }
    }
    filters
}

#[test]
fn callback_pages_counts_and_selections_are_sqlites() {
    let (sqlite, pg) = ledgers();
    let mut kept_any = 0;
    for (what, filter) in callback_filters() {
        let want = sqlite.count_callbacks(&filter).unwrap();
        assert_eq!(pg.count_callbacks(&filter).unwrap(), want, "count {what}");
        let seqs = sqlite.callback_seqs(&filter).unwrap();
        assert_eq!(pg.callback_seqs(&filter).unwrap(), seqs, "seqs {what}");
        assert_eq!(usize::try_from(want).unwrap(), seqs.len(), "{what}");
        if !seqs.is_empty() {
            kept_any += 1;
        }
        // Every page forward, from the first.
        let mut page = PageRequest::first(211);
        loop {
            let a = sqlite.callbacks_page(&filter, page).unwrap();
            let b = pg.callbacks_page(&filter, page).unwrap();
            assert_eq!(b, a, "page {page:?} {what}");
            let Some(last) = a.last() else { break };
            page = PageRequest::at(Keyset::After(last.seq), 211);
        }
        // The last page, a page up from the middle, a page read again in place.
        let mid = seqs.get(seqs.len() / 2).copied().unwrap_or(5);
        for keyset in [Keyset::Last, Keyset::Before(mid), Keyset::From(mid)] {
            let page = PageRequest::at(keyset, 37);
            assert_eq!(
                pg.callbacks_page(&filter, page).unwrap(),
                sqlite.callbacks_page(&filter, page).unwrap(),
                "page {page:?} {what}"
            );
        }
        // A report's rows, read in batches: every callback kept, in ledger order.
        let report = |ledger: &Ledger| {
            let mut rows = Vec::new();
            ledger
                .callbacks_report(&filter, 37, |batch| {
                    rows.append(batch);
                    Ok::<_, jobledger::store::StoreError>(())
                })
                .unwrap();
            rows
        };
        let listed = report(&sqlite);
        assert_eq!(report(&pg), listed, "report {what}");
        let listed: Vec<i64> = listed.iter().map(|r| r.seq).collect();
        assert_eq!(listed, seqs, "report {what}");
    }
    assert!(kept_any > 100, "weak cases: {kept_any}");
    let some: Vec<i64> = (1..400).step_by(7).chain([999_999]).collect();
    assert_eq!(
        pg.callbacks_numbered(&some).unwrap(),
        sqlite.callbacks_numbered(&some).unwrap()
    );
    for seq in [1, 2, 77, 999_999] {
        assert_eq!(pg.callback(seq).unwrap(), sqlite.callback(seq).unwrap());
    }
    for job in ["Job-ÜBER-1", "job-0000100", "nobody"] {
        assert_eq!(
            pg.callbacks_of_job(job, 5).unwrap(),
            sqlite.callbacks_of_job(job, 5).unwrap()
        );
    }
    let (since, until) = (
        Timestamp::from_ledger_text("2026-11-24T00:00:00.000Z").unwrap(),
        now(),
    );
    assert_eq!(
        pg.review_arrivals_between(since, until).unwrap(),
        sqlite.review_arrivals_between(since, until).unwrap()
    );
}

/// Text terms, each read as the list of its rows when the planner expects few (the
/// database whose planner reads the text table through its index) and joined when it
/// expects many, keep the rows SQLite keeps, page by page and counted.
#[test]
fn text_terms_listed_or_joined_are_sqlites() {
    let (sqlite, _) = ledgers();
    let address = ServerAddress::parse(&pair().indexed_url).unwrap();
    let pg = Ledger::open_at(&Location::Server(Box::new(address)), OpenMode::ReadOnly).unwrap();
    let texts = [
        "job:job-00001",
        "JOB-00002",
        "job:über",
        "kel",
        "late",
        "by:staff",
        "reason:late",
        "job-0",
        "job:job-0 late",
        "job-0 0001",
        "job:job-0001 outcome:success -gap>10s",
        "late -reason:late",
    ];
    for (text, query) in queries(Scope::Callbacks, &texts) {
        for disposition in [None, Some(jobledger::decision::Disposition::Hold)] {
            let filter = CallbackFilter {
                disposition,
                open: false,
                query: query.clone(),
                now: Some(now()),
                answers_as_of: None,
            };
            let what = format!("{text:?} {disposition:?}");
            let seqs = sqlite.callback_seqs(&filter).unwrap();
            assert_eq!(pg.callback_seqs(&filter).unwrap(), seqs, "seqs {what}");
            assert_eq!(
                pg.count_callbacks(&filter).unwrap(),
                sqlite.count_callbacks(&filter).unwrap(),
                "count {what}"
            );
            let mid = seqs.get(seqs.len() / 2).copied().unwrap_or(5);
            for keyset in [
                Keyset::First,
                Keyset::After(mid),
                Keyset::Before(mid),
                Keyset::Last,
            ] {
                let page = PageRequest::at(keyset, 17);
                assert_eq!(
                    pg.callbacks_page(&filter, page).unwrap(),
                    sqlite.callbacks_page(&filter, page).unwrap(),
                    "page {page:?} {what}"
                );
            }
        }
    }
}

#[test]
fn sorted_pages_page_by_key_as_sqlites() {
    let (sqlite, pg) = ledgers();
    let columns = [
        SortColumn::Ledger,
        SortColumn::Gap,
        SortColumn::Arrival,
        SortColumn::Timeout,
        SortColumn::Reason,
    ];
    let filters: Vec<(String, CallbackFilter)> = callback_filters()
        .into_iter()
        .filter(|(what, filter)| {
            !filter.open
                && [
                    "\"\"",
                    "\"late\"",
                    "\"gap>-30s\"",
                    "\"über\"",
                    "\"-outcome:success\"",
                ]
                .iter()
                .any(|q| what.starts_with(q))
        })
        .collect();
    for (what, filter) in &filters {
        for column in columns {
            for descending in [false, true] {
                let sort = Sort { column, descending };
                let mut page = PageRequest::first(173);
                let mut keys = Vec::new();
                loop {
                    let a = sqlite.callbacks_sorted_page(filter, sort, &page).unwrap();
                    let b = pg.callbacks_sorted_page(filter, sort, &page).unwrap();
                    assert_eq!(b, a, "{sort:?} {page:?} {what}");
                    let Some((row, value)) = a.last() else { break };
                    let key = CallbackKey {
                        value: value.clone(),
                        seq: row.seq,
                    };
                    keys.push(key.clone());
                    page = PageRequest::at(Keyset::After(key), 173);
                }
                let mut pages = vec![PageRequest::at(Keyset::Last, 41)];
                if let Some(key) = keys.get(keys.len() / 2) {
                    pages.push(PageRequest::at(Keyset::Before(key.clone()), 41));
                    pages.push(PageRequest::at(Keyset::From(key.clone()), 41));
                }
                for page in pages {
                    assert_eq!(
                        pg.callbacks_sorted_page(filter, sort, &page).unwrap(),
                        sqlite.callbacks_sorted_page(filter, sort, &page).unwrap(),
                        "{sort:?} {page:?} {what}"
                    );
                }
            }
        }
    }
}

#[test]
fn job_lists_are_sqlites() {
    let (sqlite, pg) = ledgers();
    let now = now();
    assert_eq!(pg.aged_count(now).unwrap(), sqlite.aged_count(now).unwrap());
    let texts = [
        "",
        "job:job-0001",
        "age>1d",
        "-age>2d",
        "owner:none",
        "-owner:none",
        "escalates<2026-11-27",
        "reason:timeout",
        "running",
        "über",
        "\u{212A}EL",
        "ος",
        "-job:job-00",
    ];
    for (text, query) in queries(Scope::AgedJobs, &texts) {
        assert_eq!(
            pg.aged_count_matching(now, &query).unwrap(),
            sqlite.aged_count_matching(now, &query).unwrap(),
            "aged {text:?}"
        );
        // Each order Aged sorts by, each way: the owner order's names by their bytes.
        for &column in SortColumn::of(Scope::AgedJobs) {
            for descending in [false, true] {
                let sort = Sort { column, descending };
                let read = |page: &PageRequest<_>, ledger: &Ledger| {
                    ledger
                        .aged_jobs_sorted_page(now, &query, sort, page)
                        .unwrap()
                };
                let mut page = PageRequest::first(89);
                loop {
                    let a = read(&page, &sqlite);
                    assert_eq!(without_roles(read(&page, &pg)), a, "aged {text:?} {sort:?}");
                    let Some(last) = a.last() else { break };
                    page = PageRequest::at(
                        Keyset::After((last.order.clone(), last.job_id.clone())),
                        89,
                    );
                }
                let page = PageRequest::at(Keyset::Last, 30);
                assert_eq!(
                    without_roles(read(&page, &pg)),
                    read(&page, &sqlite),
                    "aged last {text:?} {sort:?}"
                );
            }
        }
    }
    for (text, query) in queries(Scope::FailedJobs, &texts) {
        assert_eq!(
            pg.failed_count_matching(now, &query).unwrap(),
            sqlite.failed_count_matching(now, &query).unwrap(),
            "failed {text:?}"
        );
        let mut page = PageRequest::first(89);
        loop {
            let a = sqlite.failed_jobs_page(now, &query, &page).unwrap();
            assert_eq!(
                pg.failed_jobs_page(now, &query, &page).unwrap(),
                a,
                "failed {text:?}"
            );
            let Some((last, at)) = a.last() else { break };
            page = PageRequest::at(Keyset::After((JobOrder::At(*at), last.job_id.clone())), 89);
        }
        let page = PageRequest::at(Keyset::Last, 30);
        assert_eq!(
            pg.failed_jobs_page(now, &query, &page).unwrap(),
            sqlite.failed_jobs_page(now, &query, &page).unwrap(),
            "failed last {text:?}"
        );
    }
    let findings = [
        Finding::MissingTerminal,
        Finding::MissingOutput,
        Finding::MissingNotification,
        Finding::DivergentDecisions,
        Finding::ConflictingSubmissions,
    ];
    for finding in findings {
        for (text, query) in queries(Scope::FindingJobs, &texts) {
            assert_eq!(
                pg.finding_count_matching(finding, now, &query).unwrap(),
                sqlite.finding_count_matching(finding, now, &query).unwrap(),
                "{finding:?} {text:?}"
            );
            let mut page = PageRequest::first(97);
            loop {
                let a = sqlite
                    .finding_jobs_page(finding, now, &query, &page)
                    .unwrap();
                let b = pg.finding_jobs_page(finding, now, &query, &page).unwrap();
                assert_eq!(b, a, "{finding:?} {text:?}");
                let Some(last) = a.last() else { break };
                page = PageRequest::at(Keyset::After(last.job_id.clone()), 97);
            }
        }
    }
}

#[test]
fn rejected_lines_and_the_outbox_are_sqlites() {
    let (sqlite, pg) = ledgers();
    let now = now();
    assert_eq!(
        pg.rejected_count().unwrap(),
        sqlite.rejected_count().unwrap()
    );
    assert!(sqlite.rejected_count().unwrap() >= 1);
    assert_eq!(
        pg.rejected_lines(50).unwrap(),
        sqlite.rejected_lines(50).unwrap()
    );
    for seq in 1..40 {
        assert_eq!(
            pg.rejected_line(seq).unwrap(),
            sqlite.rejected_line(seq).unwrap()
        );
    }
    let texts = [
        "",
        "job",
        "-job",
        "über",
        "bad\u{fffd}über",
        "σ\"",
        "\u{fffd}",
        "reason:unknown",
        "-reason:unknown",
        "reason:none",
        "age>1d",
        "age<1d",
        "oops callback",
        "retry",
        "pending",
    ];
    for (text, query) in queries(Scope::RejectedLines, &texts) {
        assert_eq!(
            pg.rejected_count_matching(now, &query).unwrap(),
            sqlite.rejected_count_matching(now, &query).unwrap(),
            "rejected {text:?}"
        );
        for keyset in [
            Keyset::First,
            Keyset::Last,
            Keyset::After(3),
            Keyset::Before(15_000),
        ] {
            let page = PageRequest::at(keyset, 2);
            assert_eq!(
                pg.rejected_page(now, &query, &page).unwrap(),
                sqlite.rejected_page(now, &query, &page).unwrap(),
                "rejected {text:?} {page:?}"
            );
        }
    }
    for (text, query) in queries(Scope::Requests, &texts) {
        assert_eq!(
            pg.outbox_count_matching(now, &query).unwrap(),
            sqlite.outbox_count_matching(now, &query).unwrap(),
            "outbox {text:?}"
        );
        let page = PageRequest::first(20);
        assert_eq!(
            pg.outbox_page(now, &query, &page).unwrap(),
            sqlite.outbox_page(now, &query, &page).unwrap(),
            "outbox {text:?}"
        );
    }
}

/// `callbacks --json --where` prints the same on both engines.
#[test]
fn the_command_line_prints_the_same() {
    let pair = pair();
    let run = |db: &Path, args: &[&str]| -> String {
        let out = command(db, NOW).args(args).output().unwrap();
        succeeded(&out, args)
    };
    let sqlite: PathBuf = pair.w.db.clone();
    let pg = PathBuf::from(&pair.url);
    for query in [
        "late",
        "über",
        "kel",
        "-answered:yes gap>0",
        "ΟΔΟΣ",
        "owner:none",
    ] {
        for disposition in [None, Some("hold"), Some("quarantine")] {
            let mut args = vec!["callbacks", "--json", "--where", query];
            if let Some(d) = disposition {
                args.extend(["--disposition", d]);
            }
            assert_eq!(run(&pg, &args), run(&sqlite, &args), "{args:?}");
        }
    }
}

#[test]
fn the_backlog_trend_is_sqlites() {
    let (sqlite, pg) = ledgers();
    // Hours ending at the stream's last arrivals and a day later, so that some hours
    // hold arrivals and some none.
    for now in [now(), now().plus_seconds(86_400)] {
        let ours = jobledger::reconcile::review_trend(&pg, now).unwrap();
        let theirs = jobledger::reconcile::review_trend(&sqlite, now).unwrap();
        assert_eq!(ours, theirs, "at {now:?}");
    }
    let trend = jobledger::reconcile::review_trend(&sqlite, now()).unwrap();
    assert!(trend.iter().any(|hour| hour.arrivals > 0), "{trend:?}");
}
