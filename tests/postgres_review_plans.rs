//! The review lists on PostgreSQL are read through the indexes kept for them: the
//! server's own counts of the callbacks a statement read (`pg_stat_user_tables`) stay
//! near the rows the list needs, where a plan the planner misjudged reads every held
//! callback.

mod support;

use jobledger::clock::Timestamp;
use jobledger::decision::Disposition;
use jobledger::store::{CallbackFilter, Ledger, Location, OpenMode};
use support::binary::{bare, run_at, succeeded};
use support::fixture::NOW;
use support::postgres::PgServer;

/// A ledger of the 3,000-job demo on the tests' server, analyzed: its URL, and a
/// client of its database.
fn demo_ledger(test: &str) -> (String, postgres::Client) {
    let (server, db, url) = PgServer::fresh_ledger(test);
    let dir = tempfile::tempdir().unwrap();
    let out = bare()
        .args(["demo", "--jobs", "3000", "--seed", "3", "--stream-only"])
        .output()
        .expect("the binary runs");
    let stream = dir.path().join("demo.ndjson");
    std::fs::write(&stream, succeeded(&out, &["demo --stream-only"])).unwrap();
    let args = ["ingest", stream.to_str().unwrap()];
    succeeded(&run_at(&url, NOW, &args), &args);
    let mut client = server.connect(&db);
    client.batch_execute("ANALYZE").unwrap();
    (url, client)
}

/// How many callbacks are held.
fn held(client: &mut postgres::Client) -> i64 {
    client
        .query_one(
            "SELECT count(*) FROM jobledger.callbacks WHERE disposition = 'hold'",
            &[],
        )
        .unwrap()
        .get(0)
}

/// The callbacks `read` (a session of its own, ended before it returns) made the
/// server read, by a scan of the table or through an index.
fn callbacks_read(client: &mut postgres::Client, read: impl FnOnce()) -> i64 {
    let mut so_far = || -> i64 {
        client
            .query_one(
                "SELECT pg_stat_clear_snapshot(), (SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
                   FROM pg_stat_user_tables WHERE schemaname = 'jobledger' AND relname = 'callbacks')",
                &[],
            )
            .unwrap()
            .get(1)
    };
    let before = so_far();
    read();
    // The server counts a session's reads as it ends, a moment after it does.
    let started = std::time::Instant::now();
    let mut after = so_far();
    while after == before && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
        after = so_far();
    }
    after - before
}

fn open(url: &str) -> Ledger {
    Ledger::open_at(
        &Location::parse(std::ffi::OsStr::new(url)).unwrap(),
        OpenMode::ReadOnly,
    )
    .unwrap()
}

fn held_under(query: &str) -> CallbackFilter {
    CallbackFilter {
        disposition: Some(Disposition::Hold),
        ..CallbackFilter::default()
    }
    .with_query(query, Timestamp::from_ledger_text(NOW).unwrap(), "ana")
    .unwrap()
}

/// The held callbacks with a gap over six hours are counted from the gap's index:
/// about as many callbacks are read as are counted, not every held one (which the
/// server did while computing the gap looked cheap to it, calling the function for
/// each).
#[test]
fn a_held_lists_gap_term_reads_the_callbacks_the_gap_index_gives() {
    let (url, mut client) = demo_ledger("gap_through_index");
    let held = held(&mut client);
    let mut counted = 0;
    let read = callbacks_read(&mut client, || {
        counted = open(&url).count_callbacks(&held_under("gap>6h")).unwrap();
    });
    assert!(
        counted > 0 && counted < held / 2,
        "{counted} of {held} held"
    );
    assert!(
        read > 0 && read <= counted + 20,
        "counting {counted} of {held} held callbacks read {read} callbacks"
    );
}
