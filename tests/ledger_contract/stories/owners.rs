//! Owners of stuck jobs: appended, the latest standing; a clearing leaves the job unowned.

use jobledger::filter::{Query, Scope};
use jobledger::store::{PageRequest, TimelineFact};
use serde_json::{Value, json};

use super::{as_written, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::now;

/// The aged job `job_id` as `reconcile --json` lists it.
fn aged(location: &Location, job_id: &str) -> Value {
    let r = location.json(&["reconcile", "--json"]);
    r["aged"]
        .as_array()
        .expect("the aged jobs")
        .iter()
        .find(|a| a["job_id"] == job_id)
        .cloned()
        .unwrap_or_else(|| panic!("{job_id} is not aged: {r}"))
}

/// The aged jobs a query in the Aged view's language keeps, through the public API.
fn aged_kept(location: &Location, query: &str) -> Vec<String> {
    let query = Query::parse(query, Scope::AgedJobs).expect("a query");
    let ledger = location.open_read_only();
    let rows = ledger
        .aged_jobs_page(now(), &query, &PageRequest::first(100))
        .unwrap();
    assert_eq!(
        ledger.aged_count_matching(now(), &query).unwrap(),
        i64::try_from(rows.len()).unwrap()
    );
    rows.into_iter().map(|row| row.job_id).collect()
}

/// The owners booking-1056's timeline shows, oldest first (`None`: a clearing).
fn owners_in_timeline(location: &Location) -> Vec<Option<String>> {
    location
        .open_read_only()
        .timeline("booking-1056")
        .unwrap()
        .into_iter()
        .filter_map(|entry| match entry.fact {
            TimelineFact::OwnerSet { owner, .. } => Some(owner),
            _ => None,
        })
        .collect()
}

/// booking-1056 is aged and unowned. Kim takes it with an escalation time; Ana takes it
/// over (the latest stands, with no escalation time of Kim's); then it is cleared: the
/// job is unowned again, `owner:none` keeps it, and its history keeps all three. A
/// second clearing writes nothing; an owner for no job is refused.
pub fn the_latest_owner_stands_and_a_clearing_leaves_the_job_unowned(location: &Location) {
    with_demo_streams(location);
    assert_eq!(aged(location, "booking-1056")["unowned"], true);
    // An owner given at acceptance stands as any other.
    assert_eq!(aged(location, "booking-1055")["owner"], "ops:lee");
    assert_eq!(
        aged_kept(location, "owner:none"),
        ["booking-1042", "booking-1043", "booking-1056"]
    );

    let kim = location.json(&[
        "owner",
        "booking-1056",
        "--owner",
        "ops:kim",
        "--escalate-at",
        "2h",
        "--by",
        "ops:lead",
        "--json",
    ]);
    assert_eq!(
        kim,
        as_written(
            location,
            json!({
                "escalate_at": "2026-11-27T19:00:00.000Z",
                "job_id": "booking-1056",
                "owner": "ops:kim",
                "set_at": "2026-11-27T17:00:00.000Z",
                "set_by": "ops:lead",
                "written": true
            })
        )
    );
    let shown = aged(location, "booking-1056");
    assert_eq!(shown["owner"], "ops:kim");
    assert_eq!(shown["escalate_at"], "2026-11-27T19:00:00.000Z");
    assert_eq!(shown["unowned"], false);
    assert_eq!(shown["overdue"], false);
    assert_eq!(aged_kept(location, "owner:kim"), ["booking-1056"]);

    location.ok(&[
        "owner",
        "booking-1056",
        "--owner",
        "ops:ana",
        "--by",
        "ops:lead",
    ]);
    {
        let ledger = location.open_read_only();
        let standing = ledger.owner("booking-1056").unwrap().expect("an owner");
        assert_eq!(standing.owner, "ops:ana");
        assert_eq!(standing.escalate_at, None, "Kim's escalation went with Kim");
    }
    assert_eq!(aged_kept(location, "owner:kim"), Vec::<String>::new());
    assert_eq!(aged_kept(location, "owner:ana"), ["booking-1056"]);

    let cleared = location.json(&[
        "owner",
        "booking-1056",
        "--clear",
        "--by",
        "ops:lead",
        "--json",
    ]);
    assert_eq!(cleared["owner"], Value::Null);
    assert_eq!(cleared["written"], true);
    assert_eq!(
        location.open_read_only().owner("booking-1056").unwrap(),
        None
    );
    let shown = aged(location, "booking-1056");
    assert_eq!(shown["owner"], Value::Null);
    assert_eq!(shown["escalate_at"], Value::Null);
    assert_eq!(shown["unowned"], true);
    assert!(aged_kept(location, "owner:none").contains(&"booking-1056".to_owned()));
    assert_eq!(aged_kept(location, "owner:ana"), Vec::<String>::new());
    assert_eq!(
        owners_in_timeline(location),
        [Some("ops:kim".to_owned()), Some("ops:ana".to_owned()), None]
    );

    let again = location.json(&[
        "owner",
        "booking-1056",
        "--clear",
        "--by",
        "ops:lead",
        "--json",
    ]);
    assert_eq!(again["written"], false, "nothing to clear: nothing written");
    assert_eq!(owners_in_timeline(location).len(), 3);

    location.refused(
        &[
            "owner",
            "booking-7777",
            "--owner",
            "ops:kim",
            "--by",
            "ops:lead",
        ],
        &["booking-7777"],
    );
}
