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

/// A lead marks jobs in the console and gives them to Kim at once. The plan of those
/// ids (one given twice) takes the aged ones not Kim's already, counts the one that is
/// as unchanged, and leaves out and names a job no longer aged and an id of no job.
/// Lee gives one of them to Kim meanwhile: the plan's count no longer holds, and
/// nothing is written; the count the ledger gives now writes in one go, and the jobs
/// left out gain no owner.
pub fn a_bulk_owner_of_chosen_jobs_leaves_out_what_is_not_aged_and_refuses_a_moved_count(
    location: &Location,
) {
    use jobledger::escalation::bulk::{self, BulkOwnerError, LeftOutWhy, Selection};
    use jobledger::escalation::set_owner;

    with_demo_streams(location);
    let at = now().plus_seconds(2 * 3600);
    let mut ledger = location.open();
    set_owner(
        &mut ledger,
        "booking-1055",
        "ops:kim",
        Some(at),
        "ops:lead",
        now(),
    )
    .unwrap();
    let done = ledger
        .job("booking-1045")
        .unwrap()
        .expect("booking-1045 is in the ledger");
    assert!(!aged_kept(location, "").contains(&"booking-1045".to_owned()));
    let jobs: Vec<String> = [
        "booking-1056",
        "booking-1045",
        "booking-1043",
        "booking-9999",
        "booking-1055",
        "booking-1056",
    ]
    .map(String::from)
    .to_vec();
    let selection = Selection::Jobs(&jobs);
    let plan = bulk::plan(&ledger, selection, "ops:kim", Some(at), now()).unwrap();
    // In the Aged list's order, whatever the order marked.
    assert_eq!(plan.assigned, ["booking-1043", "booking-1056"]);
    assert_eq!(plan.unchanged, ["booking-1055"]);
    assert_eq!(
        plan.left_out,
        [
            ("booking-1045".to_owned(), LeftOutWhy::NotAged(done.state)),
            ("booking-9999".to_owned(), LeftOutWhy::NoSuchJob),
        ]
    );

    let mut lee = location.open();
    set_owner(
        &mut lee,
        "booking-1056",
        "ops:kim",
        Some(at),
        "ops:lee",
        now(),
    )
    .unwrap();
    drop(lee);
    let refused = bulk::assign(
        &mut ledger,
        selection,
        "ops:kim",
        Some(at),
        "ops:lead",
        now(),
        2,
    );
    match refused {
        Err(BulkOwnerError::NotAsExpected { expected, plan }) => {
            assert_eq!(expected, 2);
            assert_eq!(plan.assigned, ["booking-1043"]);
            assert!(plan.unchanged.contains(&"booking-1056".to_owned()));
            let said = BulkOwnerError::NotAsExpected { expected, plan }.to_string();
            assert!(said.contains("but 1 would now"), "{said}");
            assert!(said.contains("nothing was written"), "{said}");
        }
        other => panic!("a moved count was not refused: {other:?}"),
    }
    assert_eq!(
        location.open_read_only().owner("booking-1043").unwrap(),
        None,
        "a refused count writes nothing"
    );

    let written = bulk::assign(
        &mut ledger,
        selection,
        "ops:kim",
        Some(at),
        "ops:lead",
        now(),
        1,
    )
    .unwrap();
    assert_eq!(written.assigned, ["booking-1043"]);
    let reader = location.open_read_only();
    let standing = reader.owner("booking-1043").unwrap().expect("an owner");
    assert_eq!(
        (
            standing.owner.as_str(),
            standing.escalate_at,
            standing.set_by.as_str()
        ),
        ("ops:kim", Some(at), "ops:lead")
    );
    assert_eq!(
        reader.owner("booking-1056").unwrap().unwrap().set_by,
        "ops:lee"
    );
    assert_eq!(reader.owner("booking-1045").unwrap(), None, "left out");
    assert_eq!(
        aged_kept_as(location, "owner:me", "ops:kim", now()),
        ["booking-1043", "booking-1055", "booking-1056"]
    );
}
