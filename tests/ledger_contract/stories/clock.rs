//! The clock a ledger keeps: a ledger the demo built lives at the demo's afternoon, so
//! that opened again later, without `--now`, its reports (and its console) read it
//! there and not at the days since.

use crate::location::Location;
use crate::support::fixture::{at, now};

use super::with_demo_streams;

/// A time days after the afternoon, when the last hour saw no callback arrive.
const DAYS_LATER: &str = "2026-12-01T09:00:00Z";

/// Kept through the writer, the clock is read back by the API, and `summary` and
/// `reconcile` without `--now` report at it, as with `--now` at that time; `--now`
/// still wins. A ledger that keeps no clock has none.
pub fn a_kept_clock_is_the_time_the_reports_read_at(location: &Location) {
    with_demo_streams(location);
    assert_eq!(location.open_read_only().kept_clock().unwrap(), None);

    let mut ledger = location.open();
    let mut writer = ledger.writer().expect("a write transaction");
    writer.keep_clock(now()).expect("the clock is kept");
    writer.commit().expect("committed");
    drop(ledger);
    assert_eq!(location.open_read_only().kept_clock().unwrap(), Some(now()));

    for report in ["summary", "reconcile"] {
        assert_eq!(
            location.json_at_own_clock(&[report, "--json"]),
            location.json(&[report, "--json"]),
            "{report} without --now is not read at the kept clock"
        );
    }
    // The afternoon's last hour had an arrival for people; days later none had: the
    // two clocks give two reports, and --now says which.
    let later = location.json_at_own_clock(&["--now", DAYS_LATER, "summary", "--json"]);
    assert_eq!(later["backlog"]["arrivals"], 0);
    assert_eq!(
        location.json(&["summary", "--json"])["backlog"]["arrivals"],
        1
    );

    // Kept again, the latest stands.
    let mut ledger = location.open();
    let mut writer = ledger.writer().expect("a write transaction");
    writer
        .keep_clock(at(DAYS_LATER))
        .expect("the clock is kept");
    writer.commit().expect("committed");
    drop(ledger);
    assert_eq!(
        location.open_read_only().kept_clock().unwrap(),
        Some(at(DAYS_LATER))
    );
    assert_eq!(location.json_at_own_clock(&["summary", "--json"]), later);
}
