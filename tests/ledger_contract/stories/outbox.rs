//! Requests to the outside: only from a person, checked, one at a time per job, and
//! withdrawn by a row of their own.

use jobledger::outbox::{RequestKind, RequestStatus, request};
use jobledger::store::TimelineFact;
use serde_json::{Value, json};

use super::{as_written, list, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::at;

/// Two jobs the demo queue lacks: one whose single attempt is spent, one whose output's
/// retention ran out before anyone retried it.
const SPENT_AND_EXPIRED: &str = r#"{"event":"job_accepted","job_id":"booking-2001","at":"2026-11-27T15:00:00Z","timeout_s":120,"attempt_budget":1}
{"event":"attempt_started","job_id":"booking-2001","attempt":1,"at":"2026-11-27T15:00:01Z"}
{"event":"attempt_timed_out","job_id":"booking-2001","attempt":1,"at":"2026-11-27T15:02:01Z"}
{"event":"job_accepted","job_id":"booking-2002","at":"2026-11-27T15:05:00Z","timeout_s":120}
{"event":"attempt_started","job_id":"booking-2002","attempt":1,"at":"2026-11-27T15:05:01Z"}
{"event":"output_stored","job_id":"booking-2002","ref":"bookings/2002/draft.pdf","at":"2026-11-27T15:06:00Z","retention_until":"2026-11-27T16:00:00Z"}
{"event":"attempt_timed_out","job_id":"booking-2002","attempt":1,"at":"2026-11-27T15:07:01Z"}
"#;

/// `request KIND JOB --by NAME --json`.
fn asked(location: &Location, kind: &str, job: &str, by: &str) -> Value {
    location.json(&["request", kind, job, "--by", by, "--json"])
}

/// Every way a request is refused, each with its reason and nothing written; then a
/// retry that passes goes out pinned to the job's first identity, and while it waits no
/// other request for the job is taken.
pub fn requests_are_checked_and_refusals_write_nothing(location: &Location) {
    with_demo_streams(location);
    location.ingest(SPENT_AND_EXPIRED);
    let refusals: [(&str, &str, &str); 9] = [
        ("retry", "booking-1041", "already has a success on record"),
        ("cancel", "booking-1053", "already has a success on record"),
        ("cancel", "booking-1044", "the job is cancelled"),
        ("retry", "booking-2002", "retention expired"),
        ("cancel", "booking-2002", "output object exists"),
        ("retry", "booking-1057", "failed permanently"),
        ("retry", "booking-2001", "attempt budget is spent: 1 of 1"),
        ("retry", "booking-1055", "attempt 1 is still running"),
        ("retry", "booking-7777", "no job"),
    ];
    for (kind, job, why) in refusals {
        location.refused(&["request", kind, job, "--by", "ops:maria"], &[job, why]);
    }
    assert_eq!(location.json(&["outbox", "--json"]), json!([]));
    assert_eq!(location.json(&["summary", "--json"])["outbox"], 0);

    let retry = asked(location, "retry", "booking-1043", "ops:maria");
    let id = retry["id"].clone();
    assert_eq!(
        retry,
        as_written(
            location,
            json!({
                "attempt": 2,
                "id": id,
                "input_digest": "sha256:0b44c1",
                "job_id": "booking-1043",
                "model_digest": "sha256:51d0b2",
                "policy_revision": "confirm-v7",
                "request": "retry",
                "requested_at": "2026-11-27T17:00:00.000Z",
                "requested_by": "ops:maria",
                "status": "pending",
                "withdrawal": null
            })
        ),
        "the retry keeps the job id and its first identity's digests"
    );
    for kind in ["retry", "cancel"] {
        location.refused(
            &["request", kind, "booking-1043", "--by", "ops:kim"],
            &["a retry request for this job is already waiting"],
        );
    }
    let cancel = asked(location, "cancel", "booking-1055", "ops:kim");
    assert_eq!(cancel["request"], "cancel");
    assert_eq!(cancel["attempt"], Value::Null);

    assert_eq!(
        location.json(&["outbox", "--json"]),
        json!([retry, cancel]),
        "the outbox lists what was asked, in order"
    );
    assert_eq!(location.json(&["summary", "--json"])["outbox"], 2);
    let ledger = location.open_read_only();
    assert_eq!(ledger.outbox_pending().unwrap(), 2);
    assert_eq!(ledger.pending_requests("booking-1043").unwrap().retries, 1);
}

/// A retry of booking-1058 (a transient failure) asked through the API is withdrawn with
/// the binary: the withdrawal is kept beside the request, which is no longer pending, is
/// withdrawn once, and no longer stands in the way of a new request.
pub fn a_withdrawn_request_is_kept_and_no_longer_pending(location: &Location) {
    with_demo_streams(location);
    let written = {
        let mut ledger = location.open();
        request(
            &mut ledger,
            RequestKind::Retry,
            "booking-1058",
            "ops:maria",
            at("2026-11-27T16:30:00Z"),
        )
        .expect("a retry after a transient failure is allowed")
    };
    assert_eq!(written.attempt, Some(2));
    assert_eq!(location.json(&["summary", "--json"])["outbox"], 1);

    let id = written.id.to_string();
    let withdrawn = location.json(&[
        "request",
        "withdraw",
        &id,
        "--note",
        "wrong job",
        "--reviewer",
        "ops:lee",
        "--json",
    ]);
    assert_eq!(withdrawn["id"], written.id);
    assert_eq!(withdrawn["status"], "withdrawn");
    assert_eq!(withdrawn["requested_by"], "ops:maria");
    assert_eq!(withdrawn["requested_at"], "2026-11-27T16:30:00.000Z");
    assert_eq!(
        withdrawn["withdrawal"],
        as_written(
            location,
            json!({
                "note": "wrong job",
                "withdrawn_at": "2026-11-27T17:00:00.000Z",
                "withdrawn_by": "ops:lee"
            })
        )
    );
    assert_eq!(location.json(&["outbox", "--json"]), json!([withdrawn]));
    assert_eq!(location.json(&["summary", "--json"])["outbox"], 0);
    {
        let ledger = location.open_read_only();
        assert_eq!(ledger.outbox_pending().unwrap(), 0);
        let row = ledger
            .outbox_request(written.id)
            .unwrap()
            .expect("the request is kept");
        assert_eq!(row.status, RequestStatus::Withdrawn);
    }

    location.refused(
        &["request", "withdraw", &id, "--reviewer", "ops:kim"],
        &["already withdrawn by ops:lee"],
    );
    location.refused(
        &["request", "withdraw", "4242", "--reviewer", "ops:kim"],
        &["no request 4242"],
    );

    let again = request(
        &mut location.open(),
        RequestKind::Retry,
        "booking-1058",
        "ops:lee",
        at("2026-11-27T17:10:00Z"),
    )
    .expect("a withdrawn retry no longer blocks one");
    assert_eq!(
        again.attempt,
        Some(2),
        "the withdrawn retry used no attempt"
    );
    let outbox = list(location.json(&["outbox", "--json"]));
    assert_eq!(outbox.len(), 2);

    let told: Vec<String> = location
        .open_read_only()
        .timeline("booking-1058")
        .unwrap()
        .into_iter()
        .filter_map(|entry| match entry.fact {
            TimelineFact::Requested {
                requested_by,
                status,
                ..
            } => Some(format!("requested by {requested_by}: {status}")),
            TimelineFact::Withdrawn {
                withdrawn_by, note, ..
            } => Some(format!("withdrawn by {withdrawn_by}: {note}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        told,
        [
            "requested by ops:maria: withdrawn",
            "withdrawn by ops:lee: wrong job",
            "requested by ops:lee: pending",
        ]
    );
}

/// A job's own requests, withdrawn ones too, oldest first, as `outbox` lists them:
/// what an evidence bundle shows beside the job. Another job's requests are not among
/// them, not even a job whose id begins the same.
pub fn a_jobs_requests_are_read_for_that_job_alone(location: &Location) {
    with_demo_streams(location);
    let first = asked(location, "retry", "booking-1058", "ops:maria");
    let id = first["id"].to_string();
    location.ok(&["request", "withdraw", &id, "--reviewer", "ops:lee"]);
    asked(location, "cancel", "booking-1055", "ops:kim");
    asked(location, "retry", "booking-1058", "ops:lee");

    let outbox = list(location.json(&["outbox", "--json"]));
    let of_job = |job: &str| -> Vec<Value> {
        let rows = location
            .open_read_only()
            .requests_of_job(job)
            .expect("the job's requests read");
        list(serde_json::to_value(rows).expect("rows serialize"))
    };
    let listed = |job: &str| -> Vec<Value> {
        outbox
            .iter()
            .filter(|row| row["job_id"] == job)
            .cloned()
            .collect()
    };
    let retries = of_job("booking-1058");
    assert_eq!(retries, listed("booking-1058"));
    assert_eq!(
        retries
            .iter()
            .map(|r| r["status"].as_str().unwrap_or_default())
            .collect::<Vec<_>>(),
        ["withdrawn", "pending"],
        "oldest first, the withdrawn one kept"
    );
    assert_eq!(of_job("booking-1055"), listed("booking-1055"));
    assert_eq!(of_job("booking-1055").len(), 1);
    assert!(of_job("booking-105").is_empty(), "an id is matched whole");
    assert!(of_job("booking-7777").is_empty());
}
