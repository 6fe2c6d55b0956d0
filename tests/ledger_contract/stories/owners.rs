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

/// The aged jobs a query keeps when `me` asks it, at the clock `at`.
fn aged_kept_as(
    location: &Location,
    query: &str,
    me: &str,
    at: jobledger::clock::Timestamp,
) -> Vec<String> {
    let query = Query::parse_as(query, Scope::AgedJobs, me).expect("a query");
    let ledger = location.open_read_only();
    let rows = ledger
        .aged_jobs_page(at, &query, &PageRequest::first(100))
        .unwrap();
    assert_eq!(
        ledger.aged_count_matching(at, &query).unwrap(),
        i64::try_from(rows.len()).unwrap()
    );
    rows.into_iter().map(|row| row.job_id).collect()
}

/// An escalation owner's queue: `owner:me` is the jobs the person asking owns,
/// `overdue:yes` those past their escalation time now, `escalates<+1h` those due within
/// the hour, counted at the clock the query is read at; `overdue:no` keeps the rest,
/// jobs with no escalation time among them.
pub fn my_queue_is_found_by_owner_me_and_times_from_now(location: &Location) {
    with_demo_streams(location);
    let mut ledger = location.open();
    let owner = |ledger: &mut jobledger::store::Ledger, job: &str, who: &str, minutes: i64| {
        jobledger::escalation::set_owner(
            ledger,
            job,
            who,
            Some(now().plus_seconds(minutes * 60)),
            "ops:lead",
            now(),
        )
        .unwrap();
    };
    owner(&mut ledger, "booking-1056", "ops:kim", 30);
    owner(&mut ledger, "booking-1042", "ops:kim", 90);
    owner(&mut ledger, "booking-1043", "ops:ana", 10);
    drop(ledger);

    assert_eq!(
        aged_kept_as(location, "owner:me", "ops:kim", now()),
        ["booking-1042", "booking-1056"]
    );
    assert_eq!(
        aged_kept_as(location, "owner:me", "ops:ana", now()),
        ["booking-1043"]
    );
    // A literal "me" is still an owner's name to look for.
    assert!(aged_kept_as(location, "owner:\"me\"", "ops:kim", now()).is_empty());

    // Overdue now: what the reconciliation says is overdue, found by the query.
    let overdue_now: Vec<String> = location.json(&["reconcile", "--json"])["aged"]
        .as_array()
        .expect("the aged jobs")
        .iter()
        .filter(|a| a["overdue"] == true)
        .map(|a| a["job_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        aged_kept_as(location, "overdue:yes", "ops:kim", now()),
        overdue_now
    );
    assert!(!overdue_now.contains(&"booking-1043".to_owned()));
    assert_eq!(
        aged_kept_as(location, "owner:me escalates<+1h", "ops:kim", now()),
        ["booking-1056"]
    );
    // Forty minutes on, Ana's and Kim's first are past their time too.
    let later = now().plus_seconds(40 * 60);
    let overdue_later = aged_kept_as(location, "overdue:yes", "ops:kim", later);
    for job in ["booking-1043", "booking-1056"] {
        assert!(overdue_later.contains(&job.to_owned()), "{overdue_later:?}");
    }
    assert!(!overdue_later.contains(&"booking-1042".to_owned()));
    assert_eq!(
        aged_kept_as(location, "owner:me overdue:yes", "ops:kim", later),
        ["booking-1056"]
    );
    assert_eq!(
        aged_kept_as(location, "escalates<now", "ops:kim", later),
        aged_kept_as(location, "overdue:yes", "ops:kim", later)
    );
    let all = aged_kept_as(location, "", "ops:kim", later);
    let not_overdue = aged_kept_as(location, "overdue:no", "ops:kim", later);
    assert_eq!(
        not_overdue.len() + overdue_later.len(),
        all.len(),
        "{not_overdue:?} of {all:?}"
    );
    assert!(not_overdue.contains(&"booking-1042".to_owned()));
}

/// A lead gives every unowned aged job to Kim at once: the plan names them and its
/// count; a write with another count writes nothing; the plan's count writes them all
/// in one go, and a second plan finds them owned already (nothing to write).
pub fn a_bulk_owner_assignment_is_planned_then_written_with_its_count(location: &Location) {
    with_demo_streams(location);
    let bulk = [
        "owner",
        "--where",
        "owner:none",
        "--owner",
        "ops:kim",
        "--escalate-at",
        "2h",
        "--by",
        "ops:lead",
    ];
    let plan = location.json(&[&bulk[..], &["--dry-run", "--json"]].concat());
    let unowned = aged_kept(location, "owner:none");
    assert_eq!(plan["assigned"], json!(unowned));
    assert_eq!(plan["written"], false);
    let count = unowned.len().to_string();
    let wrong = (unowned.len() + 1).to_string();
    location.refused(
        &[&bulk[..], &["--expect", &wrong]].concat(),
        &["nothing was written", &format!("but {count} would now")],
    );
    assert_eq!(
        aged_kept(location, "owner:none"),
        unowned,
        "a refused count writes nothing"
    );
    location.refused(&bulk, &["--dry-run", "--expect N"]);
    let written = location.json(&[&bulk[..], &["--expect", &count, "--json"]].concat());
    assert_eq!(written["written"], true);
    assert_eq!(written["assigned"], json!(unowned));
    assert!(aged_kept(location, "owner:none").is_empty());
    assert_eq!(
        aged_kept_as(location, "owner:me", "ops:kim", now()),
        unowned,
        "every one is Kim's"
    );
    let again = location.json(&[
        "owner",
        "--where",
        "owner:me",
        "--owner",
        "ops:kim",
        "--escalate-at",
        "2h",
        "--reviewer",
        "ops:kim",
        "--dry-run",
        "--json",
    ]);
    assert_eq!(again["assigned"], json!([]));
    assert_eq!(again["unchanged"], json!(unowned));
}
