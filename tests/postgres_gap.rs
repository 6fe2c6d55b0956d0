//! The seconds between a callback's timeout and its arrival, as the review lists show
//! and sort by them, are the same number on PostgreSQL as SQLite's `julianday` gives:
//! for the times the ledger writes itself (read by position on the server) and for any
//! other text a time column may hold (read by the general pattern), including texts
//! SQLite does not read as a time (no gap on either).

mod support;

use jobledger::store::{Ledger, Location, OpenMode};
use support::postgres::PgServer;

/// Times in the ledger's own form, spread over the years a ledger holds, and the
/// edges of that form.
fn ledger_times() -> Vec<String> {
    let mut times = vec![
        "0000-01-01T00:00:00.000Z".to_owned(),
        "9999-12-31T23:59:59.999Z".to_owned(),
        "2026-02-28T23:59:59.999Z".to_owned(),
        "2024-02-29T12:00:00.500Z".to_owned(),
        "2026-02-31T00:00:00.000Z".to_owned(),
        "2026-13-01T00:00:00.000Z".to_owned(),
        "2026-01-01T24:00:00.000Z".to_owned(),
        "2026-01-01T23:60:00.000Z".to_owned(),
    ];
    // A fixed walk through the calendar: every month, days and milliseconds varied.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..120 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        times.push(format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            1970 + x % 80,
            1 + (x >> 8) % 12,
            1 + (x >> 12) % 28,
            (x >> 17) % 24,
            (x >> 22) % 60,
            (x >> 28) % 60,
            (x >> 34) % 1000
        ));
    }
    times
}

/// Texts a time column may hold that are not in the ledger's form.
const OTHER_TEXTS: &[&str] = &[
    "2026-01-01 00:00",
    "2026-01-01T00:00:00+02:00",
    "2026-01-01T00:00:00-14:00",
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:00.1234567890123456789Z",
    "2026-01-01",
    "12:00",
    "12:00:30.25",
    "-0044-03-15T12:00:00.000Z",
    "+12026-01-01T00:00:00.000Z",
    "2026-01-01T00:00:00.000z",
    " 2026-01-01T00:00:00.000Z",
    "2026-01-01T00:00:00.000Z ",
    "garbage",
    "",
];

#[test]
fn the_gap_is_sqlites_to_the_millisecond() {
    let server = PgServer::shared();
    let db = server.fresh_database("gap");
    let url = server.url(&db);
    // Opening for writing makes the ledger's schema, the function with it.
    drop(
        Ledger::open_at(
            &Location::parse(std::ffi::OsStr::new(&url)).unwrap(),
            OpenMode::ReadWrite,
        )
        .expect("the ledger is made"),
    );
    let mut pg = server.connect(&db);
    let sqlite = rusqlite::Connection::open_in_memory().unwrap();

    let ours = ledger_times();
    let mut texts: Vec<String> = ours.clone();
    texts.extend(OTHER_TEXTS.iter().map(|t| (*t).to_owned()));
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (i, a) in ours.iter().enumerate() {
        pairs.push((a.clone(), ours[(i * 7 + 3) % ours.len()].clone()));
    }
    for a in &texts {
        pairs.push((a.clone(), "2026-01-01T00:00:00.000Z".to_owned()));
        pairs.push(("2026-01-01T00:00:00.000Z".to_owned(), a.clone()));
    }

    let mut checked = 0;
    for (arrived, timeout) in &pairs {
        let on_server: Option<f64> = pg
            .query_one(
                "SELECT jobledger.ledger_gap_seconds($1, $2)",
                &[arrived, timeout],
            )
            .unwrap()
            .get(0);
        let in_sqlite: Option<f64> = sqlite
            .query_row(
                "SELECT round((julianday(?1) - julianday(?2)) * 86400.0, 3)",
                [arrived, timeout],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(
            on_server, in_sqlite,
            "arrived {arrived:?}, timeout {timeout:?}"
        );
        checked += usize::from(in_sqlite.is_some());
    }
    // Most pairs have a gap: the comparison is not of NULLs alone.
    assert!(checked > pairs.len() / 2, "{checked} of {}", pairs.len());
}
